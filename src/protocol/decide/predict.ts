// What a write tool will leave on disk, computed from the bytes there now, byte for byte as Claude Code writes
// them (encoding, BOM, line-ending style: core/text-file.ts). `exact: false` means fettle cannot reproduce the
// tool's result for certain; it then records the previous bytes and lets the tool run, and never stages a guess.
import { randomBytes } from 'node:crypto';
import { classifyContent, countLines, MAX_DIFF_BYTES } from '../../core/content';
import type { StructuredPatchHunk } from 'diff';
import { diffLines } from '../../core/diff';
import { applyEdits } from '../../core/edits';
import { applyNotebookEdit } from '../../core/notebook';
import { encodeText, readTextFile, writtenBytes } from '../../core/text-file';
import type { WriteCall } from '../../core/tool-call';
import type { DiskFile } from '../../io/atomic-write';

export interface SourceCounts {
  added: number;
  removed: number;
  oldLines: number;
  /** lines modified in place, when the diff counted them */
  modified?: number | undefined;
  /** the diff to show, of the text that changed (a cell's source, a decoded UTF-16 file); absent when it gave up */
  hunks: StructuredPatchHunk[] | undefined;
}

export type Proposed =
  | {
      exact: true;
      next: Buffer;
      /** the decision's counts, when they are not of the bytes as UTF-8 lines */
      counts?: SourceCounts;
      /** bytes the tool draws at random (a new notebook cell's id): equal length, any value */
      randomSpan?: [number, number];
    }
  | { exact: false; why: string };

/** Line counts of two texts (a notebook cell, a UTF-16 file decoded): the diff, or all lines when it gave up. */
const textCounts = (before: string, after: string, oldLines: number): SourceCounts => {
  const d = diffLines(before, after);
  const counts = d
    ? { added: d.added, removed: d.removed, modified: d.modified }
    : { added: countLines(after), removed: countLines(before) };
  return { ...counts, oldLines, hunks: d?.hunks };
};

/** A UTF-16 file is text to a person: decided on its decoded lines, not as binary bytes. */
const utf16Counts = (old: Buffer, next: Buffer): SourceCounts | undefined => {
  if (old.length > MAX_DIFF_BYTES || next.length > MAX_DIFF_BYTES) return undefined;
  const isUtf16 = (b: Buffer) => b.length >= 2 && b[0] === 0xff && b[1] === 0xfe;
  if (!isUtf16(old) || !isUtf16(next)) return undefined;
  // Decoded past the BOM both start with: the diff shown reads as the text.
  const before = old.toString('utf16le', 2);
  return textCounts(before, next.toString('utf16le', 2), countLines(before));
};

const exactly = (next: Buffer, old: DiskFile | null): Proposed => {
  const counts = old ? utf16Counts(old.bytes, next) : undefined;
  return counts ? { exact: true, next, counts } : { exact: true, next };
};

export const predict = (call: WriteCall, old: DiskFile | null): Proposed => {
  if (call.tool === 'Rewrite') {
    const predicted = call.predict(old?.bytes ?? null);
    return predicted.exact ? exactly(predicted.next, old) : predicted;
  }
  if (call.tool === 'Write') {
    const next = writtenBytes(call.content, old?.bytes ?? null);
    return Buffer.isBuffer(next) ? exactly(next, old) : { exact: false, why: next.why };
  }
  if (call.tool === 'NotebookEdit') {
    if (!old) return { exact: false, why: 'the notebook does not exist' };
    if (old.bytes.length > MAX_DIFF_BYTES)
      return { exact: false, why: 'the notebook is over 5 MB, so it is recorded without predicting the edit' };
    const result = applyNotebookEdit(old.bytes, call.op, () => randomBytes(4).toString('hex'));
    if (!result.ok) return { exact: false, why: result.why };
    const counts = textCounts(result.oldSource, result.newSource, result.sourceLines);
    return { exact: true, next: result.bytes, counts, ...(result.randomSpan ? { randomSpan: result.randomSpan } : {}) };
  }
  const [first] = call.edits;
  if (!old) {
    // Edit with an empty old_string creates a file that does not exist yet.
    return call.edits.length === 1 && first?.oldString === ''
      ? { exact: true, next: Buffer.from(first.newString, 'utf8') }
      : { exact: false, why: 'the file does not exist' };
  }
  // Past 5 MB a change is direct whatever it is (the decision rule), so predicting it would only cost memory.
  if (classifyContent(old.bytes) === 'oversize')
    return { exact: false, why: 'the file is over 5 MB, so it is recorded without predicting the edit' };
  const file = readTextFile(old.bytes);
  if (!('text' in file)) return { exact: false, why: file.why };
  const result = applyEdits(file.text, call.edits);
  return result.ok
    ? exactly(encodeText(result.text, file.encoding, file.crlf), old)
    : { exact: false, why: result.why };
};
