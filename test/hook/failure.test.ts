// PostToolUseFailure: a write tool that failed after fettle recorded the file. Nothing changed: the record is
// dropped. The file changed anyway: what is there is recorded. A staged change a human approved stays pending.
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lines } from '../helpers/repo';
import {
  assertSilent,
  blobAt,
  changeOf,
  editInput,
  fettleRefs,
  hook,
  kindAt,
  scenario,
  STAGE_ALL,
  toolCall,
} from '../helpers/tools';

const A30 = { 'a.txt': lines(30) };
const links = (dir: string): string[] =>
  readdirSync(join(dir, '.git', 'fettle', 'tool-use')).filter((f) => f.endsWith('.json'));
const small = (file: string) => editInput(file, 'line 3\n', 'three\n');

scenario('a failed Edit that changed nothing: silent, the record dropped, no link left', A30, (repo) => {
  const known = fettleRefs(repo);
  const run = toolCall(repo, 'Edit', small(repo.path('a.txt')), () => false);
  assertSilent(run.pre, 'PreToolUse');
  assertSilent(run.post, 'PostToolUseFailure');
  const { id, tip } = changeOf(repo, run, known);
  assert.equal(kindAt(repo, tip), 'before', 'PreToolUse had recorded the file');
  assert.deepEqual(fettleRefs(repo), known, `change ${id} is gone: there is nothing to undo`);
  assert.deepEqual(links(repo.dir), []);
  assert.equal(repo.read('a.txt').toString(), lines(30));
});

scenario('a failed Write that left other bytes on disk: they are recorded, with the error', A30, (repo) => {
  const known = fettleRefs(repo);
  const half = lines(15);
  const input = { file_path: repo.path('a.txt'), content: lines(30).replace('line 9\n', 'nine\n') };
  const run = toolCall(repo, 'Write', input, () => (writeFileSync(repo.path('a.txt'), half), false), {
    error: 'ENOSPC: no space left on device, write',
  });
  assertSilent(run.post, 'PostToolUseFailure');
  const { id } = changeOf(repo, run, known);
  assert.deepEqual([kindAt(repo, `fettle/${id}`), kindAt(repo, `fettle/${id}^`)], ['after', 'before']);
  assert.equal(blobAt(repo, `fettle/${id}`, 'a.txt')?.toString(), half);
  assert.equal(blobAt(repo, `fettle/${id}^`, 'a.txt')?.toString(), lines(30));
  assert.match(
    repo.git('log', '-1', '--format=%B', `fettle/${id}`),
    /The tool reported a failure \(ENOSPC: no space left on device, write\); these bytes were on disk after it\./,
  );
  assert.deepEqual(links(repo.dir), []);
});

scenario('a staged change a human approved, whose tool then failed, stays pending', A30, (repo) => {
  const known = fettleRefs(repo);
  const input = { file_path: repo.path('a.txt'), content: lines(30, 'new') };
  const run = toolCall(repo, 'Write', input, () => false, {
    env: { FETTLE_REVIEW: 'human', ...STAGE_ALL },
    answer: 'allow',
  });
  assertSilent(run.post, 'PostToolUseFailure');
  const { id } = changeOf(repo, run, known);
  assert.equal(kindAt(repo, `fettle/${id}`), 'proposal');
  assert.equal(repo.read('a.txt').toString(), lines(30));
});

scenario('a PostToolUseFailure without a record (no tool_use_id, or none started) does nothing', A30, (repo) => {
  const known = fettleRefs(repo);
  assertSilent(
    hook(repo, 'Edit', small(repo.path('a.txt')), { event: 'PostToolUseFailure', toolUseId: 'toolu_never_seen' }),
  );
  assert.deepEqual(fettleRefs(repo), known);
});
