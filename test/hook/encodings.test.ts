// `fettle hook` on files that are not plain UTF-8 LF text, end to end: the built CLI, real repositories, the tool
// simulated as Claude Code 2.1.330 writes (docs/HOOK.md, "Byte for byte"). A staged change is exactly what the
// client would write, so `fettle confirm` leaves the bytes it would have left; a direct one whose bytes landed as
// predicted is recorded without a note that another writer replaced them.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { lines, type Repo } from '../helpers/repo';
import { T0 } from '../helpers/stage';
import {
  assertSilent,
  blobAt,
  changeOf,
  denied,
  directNote,
  editInput,
  fettleRefs,
  type Input,
  recordedLine,
  scenario,
  STAGE_ALL,
  toolCall,
} from '../helpers/tools';

const BOM8 = Buffer.from([0xef, 0xbb, 0xbf]);
const utf16 = (text: string): Buffer => Buffer.from(`\uFEFF${text}`, 'utf16le');
const crlf = (text: string): Buffer => Buffer.from(text.replaceAll('\n', '\r\n'));

/** One call; the tool writes `landed` (null: denied or failed). Returns the run and the change it created. */
const call = (repo: Repo, tool: string, input: Input, landed: Buffer | null, env = {}) => {
  const known = fettleRefs(repo);
  const run = toolCall(
    repo,
    tool,
    input,
    () => (landed === null ? false : writeFileSync(String(input.file_path), landed)),
    { env },
  );
  return { run, ...changeOf(repo, run, known) };
};

const confirm = (repo: Repo, id: string) =>
  execFileSync(process.execPath, [require.resolve('../../dist/cli.js'), 'confirm', id], {
    cwd: repo.dir,
    env: { ...repo.env, FETTLE_NOW: String(T0) },
    stdio: 'pipe',
  });

// [label, bytes on disk, the call, the bytes Claude Code writes for it]
const staged: [string, Buffer, (r: Repo) => [string, Input], Buffer][] = [
  [
    'a large Edit of a CRLF file stays CRLF',
    crlf(lines(20)),
    (r) => ['Edit', editInput(r.path('f.txt'), lines(12).slice(0, -1), lines(12, 'new').slice(0, -1))],
    crlf(lines(12, 'new') + lines(8, 'line', 13)),
  ],
  [
    'an Edit of a mixed file rewrites every ending to the majority (CRLF)',
    Buffer.concat([crlf(lines(15)), Buffer.from(lines(5, 'line', 16))]),
    (r) => ['Edit', editInput(r.path('f.txt'), 'line 1\n', 'first\n')],
    crlf(`first\n${lines(19, 'line', 2)}`),
  ],
  [
    'a Write over a UTF-8 BOM file keeps the BOM',
    Buffer.concat([BOM8, Buffer.from(lines(20))]),
    (r) => ['Write', { file_path: r.path('f.txt'), content: lines(20, 'new') }],
    Buffer.concat([BOM8, Buffer.from(lines(20, 'new'))]),
  ],
  [
    'a Write over a UTF-16LE file writes UTF-16LE with its BOM',
    utf16(lines(20)),
    (r) => ['Write', { file_path: r.path('f.txt'), content: lines(20, 'new') }],
    utf16(lines(20, 'new')),
  ],
  [
    'an Edit of a UTF-16LE CRLF file',
    utf16(lines(20).replaceAll('\n', '\r\n')),
    (r) => ['Edit', editInput(r.path('f.txt'), 'line 3', 'LINE 3')],
    utf16(lines(20).replace('line 3', 'LINE 3').replaceAll('\n', '\r\n')),
  ],
];
for (const [label, before, make, after] of staged) {
  scenario(`staged, then confirmed: ${label}, byte for byte`, { 'f.txt': before }, (repo) => {
    const [tool, input] = make(repo);
    const { run, id } = call(repo, tool, input, null, STAGE_ALL);
    denied(run.pre);
    assert.deepEqual(blobAt(repo, `fettle/${id}`, 'f.txt'), after, 'the proposal is what the client writes');
    confirm(repo, id);
    assert.deepEqual(repo.read('f.txt'), after, 'confirm writes what the client would have');
  });
}

scenario(
  'a small Write to a UTF-16LE file: recorded as it landed, with no other writer',
  {
    'f.txt': utf16(lines(20)),
  },
  (repo) => {
    const landed = utf16(lines(20).replace('line 4', 'LINE 4'));
    const input = { file_path: repo.path('f.txt'), content: lines(20).replace('line 4', 'LINE 4') };
    const { run, id } = call(repo, 'Write', input, landed);
    assertSilent(run.pre, 'a small change passes');
    assert.match(
      recordedLine(run.post, id),
      directNote('f.txt', `${landed.length} B, 20 lines, +1 -1 ~1`, id),
      'counted on the decoded lines',
    );
    assert.deepEqual(blobAt(repo, `fettle/${id}`, 'f.txt'), landed);
    const message = repo.git('log', '-1', '--format=%B', `fettle/${id}`);
    assert.doesNotMatch(message, /another writer/, 'the UTF-16 bytes are what fettle predicted');
    assert.equal(repo.git('rev-list', '--parents', '-1', `fettle/${id}`).split(' ').length, 2, 'one parent');
  },
);

scenario('a large rewrite of a UTF-16LE file is staged like any text file', { 'f.txt': utf16(lines(20)) }, (repo) => {
  const input = { file_path: repo.path('f.txt'), content: lines(20, 'new') };
  const reason = denied(call(repo, 'Write', input, null).run.pre);
  assert.match(reason, /\+20 -20 to a 20-line file/);
  assert.match(reason, /^\+new 1$/m, 'the diff shown is of the decoded text');
});
