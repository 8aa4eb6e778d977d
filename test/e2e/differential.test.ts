// fettle's prediction against the real client, byte for byte. The same scripted session runs twice on the same
// files: once with fettle installed and every change staged (FETTLE_WRITE_FLOOR=0, FETTLE_WRITE_CEIL=1), so each
// proposal on refs/fettle/<id> is fettle's prediction and `fettle confirm` writes it; once without fettle, so the
// client writes what it writes. Every staged change, confirmed, must equal the client's bytes; a case fettle says
// it cannot predict is counted apart (it is recorded from what lands, never staged).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { Repo } from '../helpers/repo';
import { type Block, tool } from './fake-api';
import { e2eRepo, explain, fettle, fettleAsync, session } from './session';

type Call = { tool: 'Edit' | 'Write' | 'NotebookEdit'; input: Record<string, unknown> };
/** [label, file name, bytes on disk (null: none), the call (the path is filled in)] */
type Case = [string, string, Buffer | null, Call];

const b = (s: string) => Buffer.from(s);
const crlf = (s: string) => b(s.replaceAll('\n', '\r\n'));
const BOM8 = b('\uFEFF');
const u16 = (s: string) => Buffer.from(`\uFEFF${s}`, 'utf16le');
const edit = (old_string: string, new_string: string, replace_all?: boolean): Call => ({
  tool: 'Edit',
  input: { old_string, new_string, ...(replace_all === undefined ? {} : { replace_all }) },
});
const write = (content: string): Call => ({ tool: 'Write', input: { content } });
const nbEdit = (input: Record<string, unknown>): Call => ({ tool: 'NotebookEdit', input });

const cell = (type: string, id: string | undefined, source: string[] | string) => ({
  cell_type: type,
  ...(type === 'code'
    ? { execution_count: 3, outputs: [{ output_type: 'stream', name: 'stdout', text: ['x\n'] }] }
    : {}),
  ...(id ? { id } : {}),
  metadata: {},
  source,
});
const notebook = (minor: number, ids: boolean, extra: Record<string, unknown> = {}) => ({
  cells: [
    cell('markdown', ids ? 'intro' : undefined, ['# Title\n', 'Some text']),
    cell('code', ids ? 'c1' : undefined, ['x = 1\n', 'print(x)']),
    cell('code', ids ? 'c2' : undefined, ['y = 2\n', 'print(y)']),
  ],
  metadata: { kernelspec: { name: 'python3', display_name: 'Python 3' }, ...extra },
  nbformat: 4,
  nbformat_minor: minor,
});
const nb = (indent: number, eol: string, minor = 5, ids = true, extra = {}) =>
  b(JSON.stringify(notebook(minor, ids, extra), null, indent) + eol);

const TEXT = 'alpha\nbeta\ngamma\ndelta\n';
const CASES: Case[] = [
  ['LF: one line', 't01.txt', b(TEXT), edit('beta', 'BETA')],
  ['CRLF: one line', 't02.txt', crlf(TEXT), edit('beta', 'BETA')],
  ['CRLF: new_string with line breaks', 't03.txt', crlf(TEXT), edit('beta', 'b1\nb2\nb3')],
  ['mixed, CRLF majority', 't04.txt', b('alpha\r\nbeta\r\ngamma\ndelta\r\n'), edit('gamma', 'GAMMA')],
  ['mixed, LF majority', 't05.txt', b('alpha\nbeta\r\ngamma\ndelta\n'), edit('alpha', 'ALPHA')],
  ['mixed, a tie', 't06.txt', b('alpha\r\nbeta\n'), edit('beta', 'BETA')],
  ['UTF-8 BOM, LF', 't07.txt', Buffer.concat([BOM8, b(TEXT)]), edit('alpha', 'ALPHA')],
  ['UTF-8 BOM, CRLF', 't08.txt', Buffer.concat([BOM8, crlf(TEXT)]), edit('delta', 'DELTA')],
  ['UTF-16LE, LF', 't09.txt', u16(TEXT), edit('gamma', 'GAMMA')],
  ['UTF-16LE, CRLF', 't10.txt', u16(TEXT.replaceAll('\n', '\r\n')), edit('beta\ngamma', 'bg')],
  ['UTF-16LE, astral characters', 't11.txt', u16('a \u{1F600} b\n'), edit('\u{1F600}', '\u{1F680}\u00e9')],
  [
    'curly doubles in the file',
    't12.txt',
    b('say \u201chello\u201d now\n'),
    edit('say "hello"', 'say "bye" (or "ciao")'),
  ],
  ['curly singles in the file', 't13.txt', b('it\u2019s \u2018quoted\u2019\n'), edit("it's 'quoted'", "don't 'quote'")],
  ['$& in new_string', 't14.txt', b('cost = X;\n'), edit('X', '$&$&')],
  ["$1 $$ $` $' in new_string", 't15.txt', b('v = X;\n'), edit('X', "$1 $$ $` $'")],
  ['empty new_string: the line goes', 't16.txt', b(TEXT), edit('beta', '')],
  ['empty new_string: last line, no newline', 't17.txt', b('alpha\nbeta'), edit('beta', '')],
  ['empty new_string, old_string with its newline', 't18.txt', b(TEXT), edit('gamma\n', '')],
  ['replace_all', 't19.txt', b('foo 1\nfoo 2\nbar\nfoo 3\n'), edit('foo', 'baz', true)],
  ['replace_all, empty new_string', 't20.txt', b('x\nx y\nx\n'), edit('x', '', true)],
  ['replace_all in a CRLF file', 't21.txt', crlf('foo\nbar foo\n'), edit('foo', 'qux', true)],
  ['no final newline', 't22.txt', b('alpha\nbeta'), edit('alpha', 'ALPHA')],
  ['non-ASCII text', 't23.txt', b('caf\u00e9 \u4e2d\u6587\n'), edit('\u4e2d\u6587', '\u65e5\u672c\u8a9e')],
  ['\\u escapes in old_string', 't24.txt', b('caf\u00e9\n'), edit('caf\\u00e9', 'th\\u00e9')],
  ['\\u escapes in the file', 't25.txt', b('s = "caf\\u00e9";\n'), edit('caf\u00e9', 'th\u00e9')],
  ['trailing spaces in new_string', 't26.txt', b(TEXT), edit('beta', 'beta  \nnew\t')],
  ['trailing spaces in new_string, Markdown', 't27.md', b(TEXT), edit('beta', 'beta  \nnew')],
  ['empty file, empty old_string', 't28.txt', b(''), edit('', 'first\n')],
  ['whitespace-only file, empty old_string', 't29.txt', b(' \n\n'), edit('', 'first\n')],
  ['BOM-only file, empty old_string', 't30.txt', BOM8, edit('', 'first\n')],
  ['lone CR in the file', 't31.txt', b('a\rb\nc\n'), edit('c', 'C')],
  ['tabs and indentation', 't32.txt', b('if x:\n\treturn 1\n'), edit('\treturn 1', '\treturn 2\n\t# done')],
  ['old_string across CRLF lines', 't33.txt', crlf(TEXT), edit('alpha\nbeta\n', 'ab\n')],
  ['many lines of a CRLF file', 't34.txt', crlf(TEXT.repeat(10)), edit('delta\n', 'DELTA\n', true)],
  ['Write over LF', 'w01.txt', b(TEXT), write('one\ntwo\n')],
  ['Write over CRLF keeps its own LF', 'w02.txt', crlf(TEXT), write('one\ntwo\n')],
  ['Write over a BOM file keeps the BOM', 'w03.txt', Buffer.concat([BOM8, b(TEXT)]), write('one\ntwo\n')],
  ['Write over UTF-16LE', 'w04.txt', u16(TEXT), write('one\ntw\u00f6\n')],
  ['Write with its own BOM over a BOM file', 'w05.txt', Buffer.concat([BOM8, b(TEXT)]), write('\uFEFFone\n')],
  ['Write of nothing over a BOM file', 'w06.txt', Buffer.concat([BOM8, b(TEXT)]), write('')],
  ['Write with CRLF content', 'w07.txt', b(TEXT), write('one\r\ntwo\r\n')],
  ['Write with trailing spaces', 'w08.txt', b(TEXT), write('one  \ntwo\t\n')],
  ['Write over a binary file', 'w09.txt', b('a\u0000b'), write('text\n')],
  ['NotebookEdit: replace code', 'n01.ipynb', nb(1, '\n'), nbEdit({ cell_id: 'c1', new_source: 'x = 3\nprint(x)' })],
  ['NotebookEdit: no final newline', 'n02.ipynb', nb(1, ''), nbEdit({ cell_id: 'intro', new_source: '# New' })],
  [
    'NotebookEdit: insert markdown',
    'n03.ipynb',
    nb(1, '\n'),
    nbEdit({ cell_id: 'c1', new_source: '## Part', cell_type: 'markdown', edit_mode: 'insert' }),
  ],
  [
    'NotebookEdit: insert code at the start',
    'n04.ipynb',
    nb(1, '\n'),
    nbEdit({ new_source: 'import os', cell_type: 'code', edit_mode: 'insert' }),
  ],
  ['NotebookEdit: delete', 'n05.ipynb', nb(1, '\n'), nbEdit({ cell_id: 'c2', new_source: '', edit_mode: 'delete' })],
  ['NotebookEdit: two-space indent', 'n06.ipynb', nb(2, '\n'), nbEdit({ cell_id: 'c2', new_source: 'z' })],
  [
    'NotebookEdit: code to markdown',
    'n07.ipynb',
    nb(1, '\n'),
    nbEdit({ cell_id: 'c1', new_source: 'text', cell_type: 'markdown' }),
  ],
  ['NotebookEdit: cell-N, no ids', 'n08.ipynb', nb(1, '\n', 4, false), nbEdit({ cell_id: 'cell-1', new_source: 'z' })],
  [
    'NotebookEdit: insert without ids (4.4)',
    'n09.ipynb',
    nb(1, '\n', 4, false),
    nbEdit({ cell_id: 'cell-0', new_source: 'z', cell_type: 'code', edit_mode: 'insert' }),
  ],
  [
    'NotebookEdit: CRLF',
    'n10.ipynb',
    b(nb(1, '\n').toString().replaceAll('\n', '\r\n')),
    nbEdit({ cell_id: 'c1', new_source: 'q' }),
  ],
  [
    'NotebookEdit: escapes and numbers re-serialised',
    'n11.ipynb',
    b(nb(1, '\n').toString().replace('"Python 3"', '"Caf\\u00e9 3", "v": 1.50, "w": 1e5')),
    nbEdit({ cell_id: 'c2', new_source: 'w' }),
  ],
];

const filesOf = (): Record<string, Buffer> =>
  Object.fromEntries(CASES.flatMap(([, name, bytes]) => (bytes === null ? [] : [[name, bytes]])));

/** Read every file, then make every call, in one turn each: the model's side of the session. */
const script =
  (repo: Repo) =>
  (_req: unknown, turn: number): Block[] => {
    if (turn === 0)
      return CASES.filter(([, , bytes]) => bytes !== null).map(([, name]) =>
        tool('Read', { file_path: repo.path(name) }),
      );
    if (turn === 1)
      return CASES.map(([, name, , call]) =>
        tool(call.tool, {
          [call.tool === 'NotebookEdit' ? 'notebook_path' : 'file_path']: repo.path(name),
          ...call.input,
        }),
      );
    return [{ type: 'text', text: 'done' }];
  };

const onDisk = (repo: Repo, name: string): Buffer | null =>
  existsSync(repo.path(name)) ? readFileSync(repo.path(name)) : null;

/** A notebook's cell ids that the tool drew at random (not in the file before), read as one placeholder. */
const withoutNewIds = (bytes: Buffer | null, before: Buffer | null): string | null => {
  if (!bytes) return null;
  const known = new Set(before?.toString('utf8').match(/"id": "[^"]*"/g) ?? []);
  return bytes.toString('latin1').replace(/"id": "[0-9a-f]{8}"/g, (m) => (known.has(m) ? m : '"id": "<random>"'));
};

test('differential: what fettle stages is byte for byte what the real client writes', {
  timeout: 300_000,
}, async () => {
  const files = filesOf();
  const predicted = e2eRepo(files, 'settings');
  const real = e2eRepo(files, 'none');
  const stageAll = { FETTLE_WRITE_FLOOR: '0', FETTLE_WRITE_CEIL: '1' };
  // Forty-odd tool calls in one session, each with its hooks: on a loaded machine that outlasts the 60 s default.
  const long = 150_000;
  const [withFettle, without] = await Promise.all([
    session(predicted, script(predicted), { env: stageAll, timeoutMs: long }),
    session(real, script(real), { timeoutMs: long }),
  ]);
  const changes = JSON.parse(fettle(predicted, 'log', '--json')).changes as {
    id: string;
    path: string;
    tier: string;
    reason: string | null;
    kind: string;
  }[];
  const tally = { identical: 0, identicalButRandomId: 0, unpredictable: 0, refusedByClient: 0, direct: 0, mismatch: 0 };
  const report: string[] = [];
  // Every staged change confirmed first, four at a time (each in its own file), as a person would run it.
  const staged = changes.filter((c) => c.tier === 'staged');
  for (let i = 0; i < staged.length; i += 4)
    await Promise.all(staged.slice(i, i + 4).map((c) => fettleAsync(predicted, 'confirm', c.id)));
  for (const [label, name, before] of CASES) {
    const clientWrote = onDisk(real, name);
    const change = changes.find((c) => c.path === name);
    const unchanged = before === null ? clientWrote === null : clientWrote?.equals(before) === true;
    if (!change) {
      // fettle saw nothing: the client refused the call before any hook ran (or wrote nothing).
      assert.ok(unchanged, `${label}: fettle recorded nothing, yet the client changed ${name}\n${explain(withFettle)}`);
      tally.refusedByClient++;
      report.push(`refused by the client  ${label}`);
      continue;
    }
    if (change.tier !== 'staged') {
      const why = change.reason === 'unsure' ? 'unpredictable' : 'direct';
      tally[why]++;
      report.push(`${why.padEnd(22)} ${label} (${change.reason})`);
      continue;
    }
    const confirmed = onDisk(predicted, name);
    if (confirmed?.equals(clientWrote ?? Buffer.alloc(0)) && clientWrote) {
      tally.identical++;
      report.push(`identical              ${label}`);
    } else if (name.endsWith('.ipynb') && withoutNewIds(confirmed, before) === withoutNewIds(clientWrote, before)) {
      tally.identicalButRandomId++;
      report.push(`identical but the id  ${label}`);
    } else {
      tally.mismatch++;
      report.push(
        `MISMATCH               ${label}\n  fettle: ${JSON.stringify(confirmed?.toString('latin1'))}\n  client: ${JSON.stringify(clientWrote?.toString('latin1'))}`,
      );
    }
  }
  console.log(`client runs: ${withFettle.run.ms} ms with fettle, ${without.run.ms} ms without`);
  console.log(`${report.join('\n')}\n${JSON.stringify(tally)}`);
  assert.equal(tally.mismatch, 0, `${report.join('\n')}\n${explain(withFettle)}\n${explain(without)}`);
  assert.ok(tally.identical + tally.identicalButRandomId >= 40, JSON.stringify(tally));
});
