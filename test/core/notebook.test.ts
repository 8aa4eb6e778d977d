// applyNotebookEdit: NotebookEdit's replace / insert / delete on the .ipynb, byte for byte as Claude Code writes
// it (one-space JSON, source as one string, BOM, encoding and line endings kept), the source lines that count for
// the threshold, and "unsure" wherever the tool would refuse.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyNotebookEdit, type NotebookOp } from '../../src/core/notebook';

type Cell = {
  cell_type: string;
  id?: string;
  source: string[] | string;
  outputs?: unknown[];
  execution_count?: number | null;
  metadata: object;
};
type Notebook = { cells: Cell[]; metadata: object; nbformat: number; nbformat_minor: number };

const OUTPUT = { output_type: 'stream', name: 'stdout', text: ['1\n'] };
const code = (id: string | undefined, source: string[] | string): Cell => ({
  cell_type: 'code',
  execution_count: 1,
  ...(id ? { id } : {}),
  metadata: {},
  outputs: [OUTPUT],
  source,
});
const md = (id: string | undefined, source: string[]): Cell => ({
  cell_type: 'markdown',
  ...(id ? { id } : {}),
  metadata: {},
  source,
});
const notebook = (cells: Cell[], minor = 5): Notebook => ({
  cells,
  metadata: { kernelspec: { name: 'python3' } },
  nbformat: 4,
  nbformat_minor: minor,
});
const raw = (nb: Notebook, indent: string | number = 1, eol = '\n'): string => JSON.stringify(nb, null, indent) + eol;

/** Three cells with ids (nbformat 4.5), 6 source lines in all. */
const NB = notebook([
  md('intro', ['# Title\n', 'Some text']),
  code('c1', ['x = 1\n', 'print(x)']),
  code('c2', ['y = 2\n', 'print(y)']),
]);
/** The same without ids (nbformat 4.4). */
const NB44 = notebook(
  NB.cells.map(({ id: _id, ...c }) => c),
  4,
);

const op = (o: Partial<NotebookOp>): NotebookOp => ({
  cellId: undefined,
  newSource: '',
  cellType: undefined,
  editMode: 'replace',
  ...o,
});
const ORIGINAL_IDS = new Set(['intro', 'c1', 'c2']);
/** `type#id:source` per cell (`#new` for an id fettle made up), then the counted sources. */
const summary = (text: string, o: NotebookOp): string => {
  const r = applyNotebookEdit(Buffer.from(text), o, () => 'cafe0001');
  if (!r.ok) return `unsure: ${r.why}`;
  const nb = JSON.parse(r.bytes.toString('utf8')) as Notebook;
  const cells = nb.cells.map((c) => {
    const id = c.id === undefined ? '' : ORIGINAL_IDS.has(c.id) ? `#${c.id}` : '#new';
    return `${c.cell_type}${id}:${JSON.stringify(Array.isArray(c.source) ? c.source.join('') : c.source)}`;
  });
  return `${cells.join(' ')} | old=${JSON.stringify(r.oldSource)} new=${JSON.stringify(r.newSource)} lines=${r.sourceLines}`;
};

const MD = 'markdown#intro:"# Title\\nSome text"';
const C1 = 'code#c1:"x = 1\\nprint(x)"';
const C2 = 'code#c2:"y = 2\\nprint(y)"';
// [label, notebook text, op, expected summary]
const cases: [string, string, NotebookOp, string][] = [
  [
    'replace a code cell',
    raw(NB),
    op({ cellId: 'c1', newSource: 'x = 3\nprint(x * 2)\n' }),
    `${MD} code#c1:"x = 3\\nprint(x * 2)\\n" ${C2} | old="x = 1\\nprint(x)" new="x = 3\\nprint(x * 2)\\n" lines=6`,
  ],
  [
    'replace a markdown cell',
    raw(NB),
    op({ cellId: 'intro', newSource: '# New' }),
    `markdown#intro:"# New" ${C1} ${C2} | old="# Title\\nSome text" new="# New" lines=6`,
  ],
  [
    'replace, cell_type given and unchanged',
    raw(NB),
    op({ cellId: 'c2', newSource: 'z', cellType: 'code' }),
    `${MD} ${C1} code#c2:"z" | old="y = 2\\nprint(y)" new="z" lines=6`,
  ],
  [
    'replace with an empty source',
    raw(NB),
    op({ cellId: 'c2', newSource: '' }),
    `${MD} ${C1} code#c2:"" | old="y = 2\\nprint(y)" new="" lines=6`,
  ],
  ['replace without cell_id', raw(NB), op({ newSource: 'z' }), 'unsure: replace needs cell_id'],
  ['replace with an unknown cell_id', raw(NB), op({ cellId: 'nope', newSource: 'z' }), 'unsure: no cell with id nope'],
  [
    'replace by a cell-N index, as the tool resolves an unknown id',
    raw(NB44),
    op({ cellId: 'cell-1', newSource: 'z' }),
    'markdown:"# Title\\nSome text" code:"z" code:"y = 2\\nprint(y)" | old="x = 1\\nprint(x)" new="z" lines=6',
  ],
  ['a cell-N index past the end', raw(NB44), op({ cellId: 'cell-3', newSource: 'z' }), 'unsure: no cell at index 3'],
  [
    'replace that changes the cell type',
    raw(NB),
    op({ cellId: 'c1', newSource: 'z', cellType: 'markdown' }),
    `${MD} markdown#c1:"z" ${C2} | old="x = 1\\nprint(x)" new="z" lines=6`,
  ],
  [
    'insert after a cell-N index',
    raw(NB44),
    op({ editMode: 'insert', cellId: 'cell-0', cellType: 'code', newSource: 'z' }),
    'markdown:"# Title\\nSome text" code:"z" code:"x = 1\\nprint(x)" code:"y = 2\\nprint(y)" | old="" new="z" lines=6',
  ],
  [
    'insert code without cell_id: at the start',
    raw(NB),
    op({ editMode: 'insert', cellType: 'code', newSource: 'import os\n' }),
    `code#new:"import os\\n" ${MD} ${C1} ${C2} | old="" new="import os\\n" lines=6`,
  ],
  [
    'insert markdown after a cell',
    raw(NB),
    op({ editMode: 'insert', cellId: 'c1', cellType: 'markdown', newSource: '## Part 2\ntext' }),
    `${MD} ${C1} markdown#new:"## Part 2\\ntext" ${C2} | old="" new="## Part 2\\ntext" lines=6`,
  ],
  [
    'insert after the last cell',
    raw(NB),
    op({ editMode: 'insert', cellId: 'c2', cellType: 'code', newSource: 'z' }),
    `${MD} ${C1} ${C2} code#new:"z" | old="" new="z" lines=6`,
  ],
  [
    'insert without ids in the notebook: none made up',
    raw(NB44),
    op({ editMode: 'insert', cellType: 'code', newSource: 'z' }),
    'code:"z" markdown:"# Title\\nSome text" code:"x = 1\\nprint(x)" code:"y = 2\\nprint(y)" | old="" new="z" lines=6',
  ],
  ['insert without cell_type', raw(NB), op({ editMode: 'insert', newSource: 'z' }), 'unsure: insert needs cell_type'],
  [
    'insert after an unknown cell_id',
    raw(NB),
    op({ editMode: 'insert', cellId: 'nope', cellType: 'code', newSource: 'z' }),
    'unsure: no cell with id nope',
  ],
  [
    'delete a cell',
    raw(NB),
    op({ editMode: 'delete', cellId: 'c1' }),
    `${MD} ${C2} | old="x = 1\\nprint(x)" new="" lines=6`,
  ],
  [
    'delete ignores new_source',
    raw(NB),
    op({ editMode: 'delete', cellId: 'intro', newSource: 'ignored' }),
    `${C1} ${C2} | old="# Title\\nSome text" new="" lines=6`,
  ],
  ['delete without cell_id', raw(NB), op({ editMode: 'delete' }), 'unsure: delete needs cell_id'],
  [
    'source stored as one string',
    raw(notebook([code('c1', 'a\nb\n')])),
    op({ cellId: 'c1', newSource: 'c\n' }),
    'code#c1:"c\\n" | old="a\\nb\\n" new="c\\n" lines=2',
  ],
  ['not JSON', '{"cells": [', op({ cellId: 'c1', newSource: 'z' }), 'unsure: the notebook is not valid JSON'],
  [
    'no cells array',
    JSON.stringify({ metadata: {} }),
    op({ cellId: 'c1', newSource: 'z' }),
    'unsure: the notebook has no valid cells array',
  ],
  ['JSON null', 'null', op({ cellId: 'c1', newSource: 'z' }), 'unsure: the notebook has no valid cells array'],
  [
    'a cell whose source is a number',
    JSON.stringify({ cells: [{ id: 'c1', cell_type: 'code', source: 1 }] }),
    op({ cellId: 'c1', newSource: 'z' }),
    'unsure: the notebook has no valid cells array',
  ],
];
for (const [label, text, o, expected] of cases)
  test(`applyNotebookEdit: ${label}`, () => assert.equal(summary(text, o), expected));

const edited = (text: string, o: NotebookOp): { text: string; nb: Notebook } => {
  const r = applyNotebookEdit(Buffer.from(text), o, () => 'cafe0001');
  assert.ok(r.ok, r.ok ? '' : r.why);
  const out = r.bytes.toString('utf8');
  return { text: out, nb: JSON.parse(out) as Notebook };
};

test('the whole notebook comes back: other cells, outputs and metadata untouched', () => {
  const { nb } = edited(raw(NB), op({ cellId: 'c2', newSource: 'w' }));
  assert.deepEqual(nb.cells.slice(0, 2), NB.cells.slice(0, 2));
  assert.deepEqual({ ...nb, cells: [] }, { ...NB, cells: [] });
});

test('source is stored as one string, as the tool stores it', () => {
  assert.equal(edited(raw(NB), op({ cellId: 'c1', newSource: 'a\n\nb' })).nb.cells[1]?.source, 'a\n\nb');
  assert.equal(edited(raw(NB), op({ cellId: 'c1', newSource: '' })).nb.cells[1]?.source, '');
});

// [label, indent, end of file]
const layouts: [string, string | number, string][] = [
  ['one space, final newline (Jupyter)', 1, '\n'],
  ['two spaces, no final newline', 2, ''],
  ['tabs', '\t', '\n'],
];
for (const [label, indent, eol] of layouts) {
  test(`written as the tool writes it, whatever the file's indent: ${label}`, () => {
    const before = raw(NB, indent, eol);
    const { text, nb } = edited(before, op({ cellId: 'intro', newSource: '# Title\nSome text' }));
    assert.equal(text, JSON.stringify(nb, null, 1) + eol);
    assert.equal((nb.cells[0] as Cell).source, '# Title\nSome text');
  });
}

// [label, bytes on disk, what the edited file starts and ends with]
const encodings: [string, Buffer, (out: Buffer) => boolean][] = [
  ['a UTF-8 BOM stays', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(raw(NB))]), (o) => o[0] === 0xef],
  ['CRLF stays CRLF, every line', Buffer.from(raw(NB).replaceAll('\n', '\r\n')), (o) => !/[^\r]\n/.test(o.toString())],
  [
    'UTF-16LE stays UTF-16LE',
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(raw(NB), 'utf16le')]),
    (o) => o[0] === 0xff && o[1] === 0xfe && o.toString('utf16le').includes('"source": "z"'),
  ],
];
for (const [label, bytes, holds] of encodings) {
  test(`the file's encoding and line endings: ${label}`, () => {
    const r = applyNotebookEdit(bytes, op({ cellId: 'c1', newSource: 'z' }), () => 'cafe0001');
    assert.ok(r.ok && holds(r.bytes), r.ok ? r.bytes.toString('utf8').slice(0, 40) : r.why);
  });
}

test("a new code cell is a clean cell; a new markdown cell has no outputs, keys in the tool's order", () => {
  const codeCell = edited(raw(NB), op({ editMode: 'insert', cellType: 'code', newSource: 'a' })).nb.cells[0];
  assert.equal(
    JSON.stringify(codeCell),
    '{"cell_type":"code","id":"cafe0001","source":"a","metadata":{},"execution_count":null,"outputs":[]}',
  );
  const mdCell = edited(raw(NB), op({ editMode: 'insert', cellType: 'markdown', newSource: 'a' })).nb.cells[0];
  assert.equal(JSON.stringify(mdCell), '{"cell_type":"markdown","id":"cafe0001","source":"a","metadata":{}}');
});

test('the id of an inserted cell is marked as drawn at random: its byte range in the file', () => {
  const r = applyNotebookEdit(
    Buffer.from(raw(NB)),
    op({ editMode: 'insert', cellType: 'code', newSource: 'a' }),
    () => 'cafe0001',
  );
  assert.ok(r.ok && r.randomSpan);
  assert.equal(r.bytes.subarray(...r.randomSpan).toString(), '"cafe0001"');
  const none = applyNotebookEdit(
    Buffer.from(raw(NB44)),
    op({ editMode: 'insert', cellType: 'code', newSource: 'a' }),
    () => 'x',
  );
  assert.ok(none.ok && none.randomSpan === undefined);
});

test('an inserted cell takes the id it is given (core stays pure: the caller draws it)', () => {
  for (const id of ['c0ffee01', 'abc_-9']) {
    const r = applyNotebookEdit(
      Buffer.from(raw(NB)),
      op({ editMode: 'insert', cellType: 'code', newSource: 'a' }),
      () => id,
    );
    assert.ok(r.ok, r.ok ? '' : r.why);
    assert.equal((JSON.parse(r.bytes.toString('utf8')) as Notebook).cells[0]?.id, id);
  }
});

test('the counted lines are of source only, across all cells', () => {
  const r = applyNotebookEdit(
    Buffer.from(raw(notebook([code('a', ['1\n', '2\n', '3']), md('b', []), code('c', ['4\n'])]))),
    op({ cellId: 'c', newSource: '5\n' }),
    () => 'cafe0001',
  );
  assert.ok(r.ok);
  assert.equal(r.sourceLines, 4);
});

// Claude Code's NotebookEdit resets a replaced code cell (execution_count null, outputs []); a staged
// proposal that keeps stale outputs is not what the tool would have written.
test('replace of a code cell clears its outputs and execution count, as the tool does', {}, () => {
  const cell = edited(raw(NB), op({ cellId: 'c1', newSource: 'x = 3' })).nb.cells[1];
  assert.deepEqual([cell?.outputs, cell?.execution_count], [[], null]);
});
