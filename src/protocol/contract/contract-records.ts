// The records of a contract's changeset (apply-contract.ts): one staged change per file, each with the contract's
// hash and path, and the same records as the test tree reads them before their refs exist.
import type { FileResult } from '../../core/anchors';
import { countChanges } from '../../core/diff';
import type { RecordFields } from '../../core/record-message';
import { gitModeOf, type DiskFile } from '../../io/atomic-write';
import { changeRef } from '../../store/refs';
import type { Target } from '../../store/store';
import type { Change } from '../changes';
import type { Context } from '../context';
import type { ContractFile } from '../contract-file';
import { instructionsText } from '../../core/contract';
import type { Recorded } from '../record/record-many';
import { currentTurn } from '../turns';

/** A file the contract changes: its edits' result, where it lives, and its bytes when they were read. */
export interface PlannedFile {
  result: FileResult;
  target: Target;
  disk: DiskFile | null;
}

/** The changeset's records: one staged change per file, each with the contract's hash and path. */
export const itemsOf = async (ctx: Context, c: ContractFile, changed: PlannedFile[], extra: Partial<RecordFields>) => {
  const session = ctx.env.FETTLE_SESSION || undefined;
  const turn = await currentTurn(ctx.config.dataDir, session);
  return changed.map(({ result, target, disk }) => ({
    old: disk,
    next: result.after === null ? null : { bytes: result.after, mode: disk ? gitModeOf(disk.mode) : '100644' },
    fields: {
      tier: 'staged' as const,
      path: target.treePath,
      file: target.realPath,
      reason: 'contract',
      tool: 'fettle apply',
      session,
      ...(turn === undefined ? {} : { turn }),
      decidedBy: 'executor',
      contract: c.hash,
      contractPath: c.path,
      ...countChanges(result.before, result.after),
      ...extra,
      note: [instructionsText(c.contract, target.treePath), extra.note].filter(Boolean).join('\n\n') || undefined,
    },
  }));
};

/** Changes as the test tree needs them, for records whose refs are not made yet. */
export const unpublished = (ctx: Context, made: Recorded[]): Change[] =>
  made.map((m) => ({
    id: m.id,
    ref: changeRef(m.id),
    tip: m.tip,
    parents: m.before ? [m.before] : [],
    fields: m.fields,
    state: 'pending',
    at: ctx.now(),
  }));
