// What a write tool will leave on disk, computed from the bytes there now. `unsure` means fettle cannot
// reproduce the tool's result for certain; it then records the previous bytes and lets the tool run.
import { randomBytes } from 'node:crypto';
import { classifyContent, countLines } from '../core/content';
import type { StructuredPatchHunk } from 'diff';
import { diffLines } from '../core/diff';
import { applyEdits } from '../core/edits';
import { applyNotebookEdit } from '../core/notebook';
import type { WriteCall } from '../core/tool-call';
import type { DiskFile } from '../io/atomic-write';

export interface SourceCounts {
  added: number;
  removed: number;
  oldLines: number;
  /** the diff to show, of the changed cell's source (not of the JSON); absent when the diff gave up */
  hunks: StructuredPatchHunk[] | undefined;
}

export type Proposed = { exact: true; next: Buffer; counts?: SourceCounts } | { exact: false; why: string };

export const predict = (call: WriteCall, old: DiskFile | null): Proposed => {
  if (call.tool === 'Write') return { exact: true, next: Buffer.from(call.content, 'utf8') };
  if (call.tool === 'NotebookEdit') {
    if (!old) return { exact: false, why: 'the notebook does not exist' };
    const result = applyNotebookEdit(old.bytes.toString('utf8'), call.op, () => randomBytes(4).toString('hex'));
    if (!result.ok) return { exact: false, why: result.why };
    const d = diffLines(result.oldSource, result.newSource);
    const counts = d
      ? { added: d.added, removed: d.removed }
      : { added: countLines(result.newSource), removed: countLines(result.oldSource) };
    return { exact: true, next: result.bytes, counts: { ...counts, oldLines: result.sourceLines, hunks: d?.hunks } };
  }
  const [first] = call.edits;
  if (!old) {
    // Edit with an empty old_string creates a file that does not exist yet.
    return call.edits.length === 1 && first?.oldString === ''
      ? { exact: true, next: Buffer.from(first.newString, 'utf8') }
      : { exact: false, why: 'the file does not exist' };
  }
  const kind = classifyContent(old.bytes);
  // Past 5 MB a change is direct whatever it is (the decision rule), so predicting it would only cost memory.
  if (kind === 'oversize')
    return { exact: false, why: 'the file is over 5 MB, so it is recorded without predicting the edit' };
  if (kind !== 'text') return { exact: false, why: 'the file is not UTF-8 text' };
  const result = applyEdits(old.bytes.toString('utf8'), call.edits);
  return result.ok ? { exact: true, next: Buffer.from(result.text, 'utf8') } : { exact: false, why: result.why };
};
