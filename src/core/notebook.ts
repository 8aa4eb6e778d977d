// NotebookEdit on a Jupyter notebook, in memory. The threshold counts changed *source* lines; the record keeps
// the whole .ipynb. Claude Code's own serialisation is not reproduced byte for byte: a direct edit is written by
// the tool (and recorded from disk afterwards); only a staged edit is serialised here, in the file's own indent.
import { countLines } from './content';

export interface NotebookOp {
  cellId: string | undefined;
  newSource: string;
  cellType: 'code' | 'markdown' | undefined;
  editMode: 'replace' | 'insert' | 'delete';
}

export type NotebookResult =
  | { ok: true; bytes: Buffer; oldSource: string; newSource: string; sourceLines: number }
  | { ok: false; why: string };

type Cell = {
  id?: unknown;
  cell_type?: unknown;
  source?: unknown;
  outputs?: unknown;
  execution_count?: unknown;
  metadata?: unknown;
};

const sourceText = (source: unknown): string =>
  Array.isArray(source) ? source.join('') : typeof source === 'string' ? source : '';

/** Jupyter stores source as lines that keep their newline. */
const sourceLines = (text: string): string[] => text.match(/[^\n]*\n|[^\n]+$/g) ?? [];

/** The cells' types and sources, which is what a notebook edit changes; null when it is not a notebook. */
export const cellSources = (raw: string): string | null => {
  try {
    const nb = JSON.parse(raw) as { cells?: unknown };
    if (!Array.isArray(nb.cells)) return null;
    return JSON.stringify((nb.cells as Cell[]).map((c) => [c.cell_type, sourceText(c.source)]));
  } catch {
    return null;
  }
};

/** `newId` names an inserted cell (nbformat 4.5 ids): passed in, so this stays pure and testable. */
export const applyNotebookEdit = (raw: string, op: NotebookOp, newId: () => string): NotebookResult => {
  let nb: { cells?: unknown };
  try {
    nb = JSON.parse(raw) as { cells?: unknown };
  } catch {
    return { ok: false, why: 'the notebook is not valid JSON' };
  }
  if (!nb || !Array.isArray(nb.cells)) return { ok: false, why: 'the notebook has no cells array' };
  const cells = nb.cells as Cell[];
  const total = cells.reduce((n, c) => n + countLines(sourceText(c.source)), 0);
  const index = op.cellId === undefined ? -1 : cells.findIndex((c) => c.id === op.cellId);
  if (op.cellId !== undefined && index < 0) return { ok: false, why: `no cell with id ${op.cellId}` };
  let oldSource = '';
  if (op.editMode === 'insert') {
    if (!op.cellType) return { ok: false, why: 'insert needs cell_type' };
    // nbformat 4.5 gives every cell an id; keys in nbformat's sorted order.
    const id = cells.some((c) => typeof c.id === 'string') ? { id: newId() } : {};
    const cell: Cell =
      op.cellType === 'code'
        ? {
            cell_type: 'code',
            execution_count: null,
            ...id,
            metadata: {},
            outputs: [],
            source: sourceLines(op.newSource),
          }
        : { cell_type: 'markdown', ...id, metadata: {}, source: sourceLines(op.newSource) };
    cells.splice(index + 1, 0, cell);
  } else {
    if (index < 0) return { ok: false, why: `${op.editMode} needs cell_id` };
    const cell = cells[index] as Cell;
    oldSource = sourceText(cell.source);
    if (op.editMode === 'delete') cells.splice(index, 1);
    else {
      if (op.cellType && op.cellType !== cell.cell_type)
        return { ok: false, why: 'changing a cell type is left to the tool' };
      cell.source = sourceLines(op.newSource);
      // New code, old outputs would lie: the tool clears them, and so does fettle.
      if (cell.cell_type === 'code') Object.assign(cell, { execution_count: null, outputs: [] });
    }
  }
  const indent = /\n([ \t]+)"/.exec(raw)?.[1] ?? ' ';
  const text = JSON.stringify(nb, null, indent) + (raw.endsWith('\n') ? '\n' : '');
  return {
    ok: true,
    bytes: Buffer.from(text, 'utf8'),
    oldSource,
    newSource: op.editMode === 'delete' ? '' : op.newSource,
    sourceLines: total,
  };
};
