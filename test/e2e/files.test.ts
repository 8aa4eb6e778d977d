// Files that are not plain UTF-8 LF text, and a notebook, through the real client with fettle's own thresholds:
// what the client writes is what fettle predicted, so a small write is recorded as it landed (no "another writer"
// note), and a large one is staged with the client's own bytes, which `fettle confirm` (run through Bash) writes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lines, type Repo } from '../helpers/repo';
import { type ApiRequest, type Block, resultsIn, text, tool, toolUseId } from './fake-api';
import { changesIn, commandAfter, e2eRepo, explain, session } from './session';

const crlf = (s: string) => Buffer.from(s.replaceAll('\n', '\r\n'));
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const u16 = (s: string) => Buffer.from(`\uFEFF${s}`, 'utf16le');
/** 20 lines, 11 ending CRLF and 9 LF: an Edit rewrites the 9 to CRLF. */
const MIXED = Buffer.from(
  lines(20)
    .split('\n')
    .slice(0, 20)
    .map((l, i) => `${l}${i % 2 === 0 || i === 19 ? '\r\n' : '\n'}`)
    .join(''),
);
const cellOf = (id: string, n: number, word: string) => ({
  cell_type: 'code',
  execution_count: 1,
  id,
  metadata: {},
  outputs: [],
  source: lines(n, word).split(/(?<=\n)/),
});
const NOTEBOOK = Buffer.from(
  `${JSON.stringify({ cells: [cellOf('c1', 10, 'a'), cellOf('c2', 10, 'b')], metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 1)}\n`,
);

const recordOf = (repo: Repo, path: string) => {
  const change = changesIn(repo).find((c) => c.path === path);
  assert.ok(change, `a change to ${path}`);
  return { ...change, message: repo.git('log', '-1', '--format=%B', `fettle/${change.id}`) };
};

test('CRLF, BOM, mixed endings, UTF-16 and a notebook: recorded and staged as the client writes them', async () => {
  const files = {
    'crlf.txt': crlf(lines(30)),
    'bom.txt': Buffer.concat([BOM, Buffer.from(lines(30))]),
    'mixed.txt': MIXED,
    'u16.txt': u16(lines(30)),
    'nb.ipynb': NOTEBOOK,
  };
  const repo = e2eRepo(files);
  const last = (req: ApiRequest) => resultsIn(req).at(-1)?.text ?? '';
  const confirm = (req: ApiRequest): Block[] => {
    const command = commandAfter(last(req), 'To apply it, run:');
    return command ? [tool('Bash', { command, description: 'confirm' })] : [text('nothing to confirm')];
  };
  const s = await session(
    repo,
    (req, turn) => {
      switch (turn) {
        case 0:
          return Object.keys(files).map((f) => tool('Read', { file_path: repo.path(f) }));
        case 1:
          return [
            tool('Edit', { file_path: repo.path('crlf.txt'), old_string: 'line 3\nline 4', new_string: 'three\nfour' }),
          ];
        case 2:
          return [tool('Write', { file_path: repo.path('bom.txt'), content: lines(30).replace('line 7', 'seven') })];
        case 3:
          return [tool('Edit', { file_path: repo.path('mixed.txt'), old_string: 'line 5', new_string: 'five' })];
        case 4:
          return confirm(req);
        case 5:
          return [
            tool('Write', { file_path: repo.path('u16.txt'), content: lines(30).replace('line 9', 'n\u00efne') }),
          ];
        case 6:
          return [
            tool('NotebookEdit', {
              notebook_path: repo.path('nb.ipynb'),
              cell_id: 'c1',
              new_source: lines(10, 'a').replace('a 2', 'A 2'),
            }),
          ];
        case 7:
          return [
            tool('NotebookEdit', { notebook_path: repo.path('nb.ipynb'), cell_id: 'c2', new_source: lines(10, 'B') }),
          ];
        case 8:
          return confirm(req);
        default:
          return [text('done')];
      }
    },
    { args: ['--allowedTools', 'Bash'] },
  );
  const why = explain(s);
  assert.equal(s.run.code, 0, why);

  // Small writes: recorded as landed, in the file's own encoding and endings, with no other writer involved.
  for (const [path, bytes] of [
    ['crlf.txt', crlf(lines(30).replace('line 3\nline 4', 'three\nfour'))],
    ['bom.txt', Buffer.concat([BOM, Buffer.from(lines(30).replace('line 7', 'seven'))])],
    ['u16.txt', u16(lines(30).replace('line 9', 'n\u00efne'))],
  ] as const) {
    assert.deepEqual(repo.read(path), bytes, `${path} as the client wrote it\n${why}`);
    const record = recordOf(repo, path);
    assert.equal(record.state, 'applied', `${path}: ${JSON.stringify(record)}`);
    assert.doesNotMatch(record.message, /another writer/, `${path}: the bytes that landed are the ones predicted`);
    assert.deepEqual(repo.gitBytes('show', `fettle/${record.id}:${path}`), bytes);
  }
  assert.match(recordOf(repo, 'u16.txt').message, /^Fettle-Stat: \+1 -1$/m, 'UTF-16 counted by its decoded lines');

  // One changed line of a mixed file rewrites 9 endings too: a large change, staged with the client's bytes.
  const [mixedDeny, mixedConfirm] = [s.api.resultFor(toolUseId(3, 0)), s.api.resultFor(toolUseId(4, 0))];
  assert.match(mixedDeny?.text ?? '', /nothing was written to mixed\.txt\.\nStaged change \w+: \+10 -10 /, why);
  assert.match(mixedConfirm?.text ?? '', /^Applied \w+ to mixed\.txt/, why);
  assert.deepEqual(repo.read('mixed.txt'), crlf(lines(20).replace('line 5', 'five')));

  // The notebook: a small cell edit recorded as the client wrote it, a large one staged and confirmed.
  const nb = recordOf(repo, 'nb.ipynb');
  assert.equal(nb.state, 'applied');
  const written = JSON.parse(repo.read('nb.ipynb').toString());
  assert.deepEqual(
    written.cells.map((c: { source: unknown }) => c.source),
    [lines(10, 'a').replace('a 2', 'A 2'), lines(10, 'B')],
  );
  assert.equal(repo.read('nb.ipynb').toString(), `${JSON.stringify(written, null, 1)}\n`, "the client's layout");
});
