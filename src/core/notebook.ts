// NotebookEdit on a Jupyter notebook, byte for byte as Claude Code's tool does it (docs/HOOK.md, "Byte for byte"):
// the file is read as text (text-file.ts), parsed, changed, and written back as `JSON.stringify(nb, null, 1)`
// (whatever its indent was), with its BOM, a final newline only if it had one, in its encoding and line-ending
// style. The threshold counts changed lines of cell *source*; the record keeps the whole .ipynb.
import { countLines } from './content';
import { encodeText, readTextFile } from './text-file';

export interface NotebookOp {
  cellId: string | undefined;
  newSource: string;
  cellType: 'code' | 'markdown' | undefined;
  editMode: 'replace' | 'insert' | 'delete';
}

export type NotebookResult =
  | {
      ok: true;
      bytes: Buffer;
      oldSource: string;
      newSource: string;
      sourceLines: number;
      /** the byte range of an inserted cell's id: the client draws it at random, so it cannot be predicted */
      randomSpan?: [number, number];
    }
  | { ok: false; why: string };

type Cell = Record<string, unknown> & { id?: unknown; cell_type?: unknown; source?: unknown };
type Notebook = { cells?: unknown; nbformat?: unknown; nbformat_minor?: unknown };

const sourceText = (source: unknown): string =>
  Array.isArray(source) ? source.join('') : typeof source === 'string' ? source : '';

/** The client's own check: cells an array of objects whose source is a string or an array of strings. */
const validCells = (nb: Notebook): nb is Notebook & { cells: Cell[] } =>
  Array.isArray(nb?.cells) &&
  !nb.cells.some(
    (c: unknown) =>
      c === null ||
      typeof c !== 'object' ||
      (typeof (c as Cell).source !== 'string' &&
        !(Array.isArray((c as Cell).source) && ((c as Cell).source as unknown[]).every((s) => typeof s === 'string'))),
  );

/** The cell an op names, as the tool finds it: by id, else `cell-<N>` as an index. Insert goes after it. */
const cellIndex = (cells: Cell[], op: NotebookOp): number | string => {
  const insert = op.editMode === 'insert';
  if (!op.cellId) return insert ? 0 : `${op.editMode} needs cell_id`;
  let index = cells.findIndex((c) => c.id === op.cellId);
  if (index === -1) {
    const n = /^cell-(\d+)$/.exec(op.cellId)?.[1];
    if (n === undefined) return `no cell with id ${op.cellId}`;
    index = Number.parseInt(n, 10);
    if (!cells[index]) return `no cell at index ${index}`;
  }
  return insert ? index + 1 : index;
};

/** `newId` names an inserted cell (8 hex characters): passed in, so this stays pure and testable. */
export const applyNotebookEdit = (bytes: Buffer, op: NotebookOp, newId: () => string): NotebookResult => {
  const file = readTextFile(bytes);
  if (!('text' in file)) return { ok: false, why: file.why };
  let nb: Notebook;
  try {
    nb = JSON.parse(file.text.startsWith('\uFEFF') ? file.text.slice(1) : file.text) as Notebook;
  } catch {
    return { ok: false, why: 'the notebook is not valid JSON' };
  }
  if (!validCells(nb)) return { ok: false, why: 'the notebook has no valid cells array' };
  if (op.editMode === 'insert' && !op.cellType) return { ok: false, why: 'insert needs cell_type' };
  const cells = nb.cells;
  const total = cells.reduce((n, c) => n + countLines(sourceText(c.source)), 0);
  const index = cellIndex(cells, op);
  if (typeof index === 'string') return { ok: false, why: index };
  let oldSource = '';
  let id: string | undefined;
  if (op.editMode === 'insert') {
    // nbformat 4.5 and later give every cell an id; the client makes one for an inserted cell.
    const minor = typeof nb.nbformat_minor === 'number' ? nb.nbformat_minor : Number.NaN;
    const major = typeof nb.nbformat === 'number' ? nb.nbformat : Number.NaN;
    id = major > 4 || (major === 4 && minor >= 5) ? newId() : undefined;
    const cell =
      op.cellType === 'markdown'
        ? { cell_type: 'markdown', id, source: op.newSource, metadata: {} }
        : { cell_type: 'code', id, source: op.newSource, metadata: {}, execution_count: null, outputs: [] };
    cells.splice(index, 0, cell);
  } else {
    const cell = cells[index] as Cell;
    oldSource = sourceText(cell.source);
    if (op.editMode === 'delete') cells.splice(index, 1);
    else {
      cell.source = op.newSource;
      // New code, old outputs would lie: the tool clears them (before changing the type, as it does).
      if (cell.cell_type === 'code') Object.assign(cell, { execution_count: null, outputs: [] });
      if (op.cellType && op.cellType !== cell.cell_type) cell.cell_type = op.cellType;
    }
  }
  const bom = file.text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const text = bom + JSON.stringify(nb, null, 1) + (file.text.endsWith('\n') ? '\n' : '');
  const out = encodeText(text, file.encoding, file.crlf);
  const randomSpan = id === undefined ? undefined : spanOf(out, `"id": ${JSON.stringify(id)}`, file.encoding);
  if (id !== undefined && !randomSpan) return { ok: false, why: 'the new cell id is not unique in the notebook' };
  return {
    ok: true,
    bytes: out,
    oldSource,
    newSource: op.editMode === 'delete' ? '' : op.newSource,
    sourceLines: total,
    ...(randomSpan ? { randomSpan } : {}),
  };
};

/** Byte range of the value in the one occurrence of `needle` (`"id": "<id>"`) in the encoded bytes. */
const spanOf = (bytes: Buffer, needle: string, encoding: 'utf8' | 'utf16le'): [number, number] | undefined => {
  const key = Buffer.from(needle, encoding);
  const at = bytes.indexOf(key);
  if (at === -1 || bytes.indexOf(key, at + 1) !== -1) return undefined;
  const valueBytes = Buffer.byteLength(needle.slice(needle.indexOf('"', 5)), encoding);
  return [at + key.length - valueBytes, at + key.length];
};
