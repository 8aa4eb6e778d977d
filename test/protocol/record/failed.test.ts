// The failed state: a confirm or an apply that fails leaves a record of the attempt and its reason, which `status`
// lists until it is resolved and `log` and `show` keep; bad input leaves none. The built CLI on real repositories,
// and `unresolved` (which failures status lists) as a table.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RecordFields } from '../../../src/core/record-message';
import type { Change, ChangeState } from '../../../src/protocol/changes';
import { unresolved } from '../../../src/protocol/record/failed';
import { lines, makeRepo } from '../../helpers/repo';
import { fettle, ok, stageWrite } from '../../helpers/stage';

const BASE = lines(40);
const PROPOSAL = lines(20) + lines(20, 'new', 21);

const failedRefs = (repo: ReturnType<typeof makeRepo>): string[] =>
  repo
    .git('for-each-ref', '--format=%(refname) %(contents:subject)', 'refs/fettle/')
    .split('\n')
    .filter((l) => / fettle: (confirm|apply) failed for /.test(l));

test('a confirm refused by edits made since is recorded as failed, listed by status until the change is decided', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const id = stageWrite(repo, 'a.txt', PROPOSAL);
  repo.write('a.txt', BASE.replace('line 30\n', 'user 30\n'));
  const r = fettle(repo, ['confirm', id]);
  assert.equal(r.code, 5, r.stderr);
  const [ref] = failedRefs(repo);
  assert.ok(ref, 'one failure record');
  const fid = (ref as string).slice('refs/fettle/'.length, 'refs/fettle/'.length + 8);
  assert.match(r.stderr, new RegExp(`fettle recorded this failure as ${fid}`));
  assert.ok(repo.read('a.txt').equals(Buffer.from(BASE.replace('line 30\n', 'user 30\n'))), 'nothing written');
  const message = repo.git('log', '-1', '--format=%B', `refs/fettle/${fid}`);
  assert.match(message, /^Fettle-Kind: failed$/m);
  assert.match(message, new RegExp(`^Fettle-Of: ${id}$`, 'm'));
  assert.match(message, /^Fettle-Error: E_CONFLICT$/m);
  const status = ok(fettle(repo, ['status'])).stdout;
  assert.match(status, new RegExp(`Failed \\(1\\):\\n  ${fid}  confirm of ${id} \\(a\\.txt\\) failed 0s ago: `));
  const json = JSON.parse(ok(fettle(repo, ['status', '--json'])).stdout);
  assert.deepEqual(
    json.failed.map((f: { id: string; failure: { attempt: string; of: string[]; code: string } }) => [
      f.id,
      f.failure.attempt,
      f.failure.of,
      f.failure.code,
    ]),
    [[fid, 'confirm', [id], 'E_CONFLICT']],
  );
  assert.equal(json.pending.length, 1, 'the change itself is still pending');
  assert.match(ok(fettle(repo, ['log'])).stdout, new RegExp(`${fid} .* E_CONFLICT .* failed `));
  assert.match(ok(fettle(repo, ['show', fid])).stdout, /confirm failed for a\.txt/);
  ok(fettle(repo, ['discard', id]));
  const after = ok(fettle(repo, ['status'])).stdout;
  assert.doesNotMatch(after, /Failed/);
  assert.match(ok(fettle(repo, ['log'])).stdout, new RegExp(`${fid} `), 'log keeps the failure');
});

test('bad input is answered, not recorded: an unknown id, a change already applied', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const id = stageWrite(repo, 'a.txt', PROPOSAL);
  assert.equal(fettle(repo, ['confirm', 'zzzzzzzz']).code, 1);
  ok(fettle(repo, ['confirm', id]));
  assert.equal(fettle(repo, ['confirm', id]).code, 1);
  assert.deepEqual(failedRefs(repo), []);
});

test('an apply whose anchor matches nothing is recorded; a later apply that stages resolves it', () => {
  const repo = makeRepo({ 'src/a.ts': 'export const a = 1;\n' });
  const contract = (anchor: string) =>
    JSON.stringify({ version: 1, scope: ['src/**'], edits: [{ op: 'replace', file: 'src/a.ts', anchor, with: 'b' }] });
  const path = join(repo.dir, 'plan.json');
  writeFileSync(path, contract('nowhere'));
  const r = fettle(repo, ['apply', 'plan.json']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /fettle recorded this failure as [0-9a-z]{8}/);
  assert.equal(failedRefs(repo).length, 1);
  assert.match(
    ok(fettle(repo, ['status'])).stdout,
    /Failed \(1\):\n {2}[0-9a-z]{8} {2}apply of .*plan\.json failed 0s ago: /,
  );
  assert.equal(fettle(repo, ['apply', '--dry-run', 'plan.json']).code, 1);
  assert.equal(failedRefs(repo).length, 1, 'a dry run attempts nothing');
  writeFileSync(path, contract('const a'));
  assert.equal(fettle(repo, ['apply', 'plan.json']).code, 3);
  assert.doesNotMatch(ok(fettle(repo, ['status'])).stdout, /Failed/);
});

const change = (id: string, state: ChangeState, f: Partial<RecordFields> = {}): Change => ({
  id,
  ref: `refs/fettle/${id}`,
  tip: '0'.repeat(40),
  parents: [],
  state,
  at: new Date(0),
  fields: { id, kind: state === 'failed' ? 'failed' : 'proposal', tier: 'staged', path: 'a', file: '/a', ...f },
});
const failedConfirm = (id: string, of: string) => change(id, 'failed', { attempt: 'confirm', of });
const failedApply = (id: string, contractPath: string) => change(id, 'failed', { attempt: 'apply', contractPath });
const staged = (id: string, contractPath: string) =>
  change(id, 'pending', { contractPath, contract: `sha256:${'0'.repeat(64)}` });

// newest first, as listChanges gives them
const CASES: [string, Change[], string[]][] = [
  ['a confirm failure of a pending change is open', [failedConfirm('f1', 'c1'), change('c1', 'pending')], ['f1']],
  ['of an expired change too', [failedConfirm('f1', 'c1'), change('c1', 'expired')], ['f1']],
  ['decided since: resolved', [failedConfirm('f1', 'c1'), change('c1', 'discarded')], []],
  ['gone (retention): resolved', [failedConfirm('f1', 'c1')], []],
  [
    'two failures of one change: the newer',
    [failedConfirm('f2', 'c1'), failedConfirm('f1', 'c1'), change('c1', 'pending')],
    ['f2'],
  ],
  [
    'a set with one change still waiting',
    [failedConfirm('f1', 'c1 c2'), change('c1', 'applied'), change('c2', 'pending')],
    ['f1'],
  ],
  ['an apply failure is open', [failedApply('f1', '/p.json')], ['f1']],
  ['an apply of the contract staged since: resolved', [staged('c1', '/p.json'), failedApply('f1', '/p.json')], []],
  ['an apply that staged before the failure: open', [failedApply('f1', '/p.json'), staged('c1', '/p.json')], ['f1']],
  [
    'two apply failures of one contract: the newer',
    [failedApply('f2', '/p.json'), failedApply('f1', '/p.json')],
    ['f2'],
  ],
  ['other contracts do not resolve it', [staged('c1', '/q.json'), failedApply('f1', '/p.json')], ['f1']],
];

for (const [name, changes, open] of CASES)
  test(`unresolved: ${name}`, () =>
    assert.deepEqual(
      unresolved(changes).map((c) => c.id),
      open,
    ));
