// The decision, pure: given what is on disk and what the agent wants to write, and the
// line counts of their diff, say whether the write goes through (direct) or is held back (staged).
import type { ContentKind } from './content';

export interface Thresholds {
  /** changed lines at or below this are always direct */
  floor: number;
  /** changed lines at or above this are always staged */
  ceil: number;
  /** between floor and ceil, staged when changed / old lines exceeds this */
  ratio: number;
}

/** `policy`: a rule of the policy files (core/policy.ts) staged it, or let it through, whatever its size. */
export type DirectReason = 'new-file' | 'small' | 'binary' | 'oversize' | 'policy';
export type StagedReason = 'ceil' | 'ratio' | 'policy';

/** Line counts of a change: `modified`, when the diff counted it, is how many of them were edited in place. */
interface Counted {
  added: number;
  removed: number;
  oldLines: number;
  modified?: number | undefined;
}

export type Decision =
  | { tier: 'noop' }
  | ({ tier: 'direct'; reason: DirectReason } & Counted)
  | ({ tier: 'staged'; reason: StagedReason } & Counted);

export interface DecisionInput {
  /** bytes on disk now; null when the file does not exist */
  old: Buffer | null;
  next: Buffer;
  /** kind of the bytes on disk (ignored for a new file) */
  oldKind: ContentKind;
  /** +/- line counts of the diff, for text content */
  counts?: Counted;
}

/** The threshold rule alone, for a text change of `changed` lines to a file of `oldLines` lines. */
export const tierFor = (changed: number, oldLines: number, t: Thresholds): 'direct' | StagedReason => {
  if (changed <= t.floor) return 'direct';
  if (changed >= t.ceil) return 'ceil';
  // An empty file has no lines to take a share of: any change past the floor is all of it.
  const share = oldLines === 0 ? Number.POSITIVE_INFINITY : changed / oldLines;
  return share > t.ratio ? 'ratio' : 'direct';
};

/**
 * `force`: a policy rule's `stage` (every change staged, a new file and binary content included) or `direct`
 * (never staged); an identical write is a no-op either way.
 */
export const decide = (p: DecisionInput, t: Thresholds, force?: 'stage' | 'direct'): Decision => {
  if (p.old !== null && p.old.equals(p.next)) return { tier: 'noop' };
  if (force === 'stage') return { tier: 'staged', reason: 'policy', added: 0, removed: 0, oldLines: 0, ...p.counts };
  if (p.old === null) return { tier: 'direct', reason: 'new-file', added: 0, removed: 0, oldLines: 0 };
  if (p.oldKind !== 'text' || !p.counts) {
    const reason = p.oldKind === 'oversize' ? 'oversize' : 'binary';
    return { tier: 'direct', reason, added: 0, removed: 0, oldLines: 0 };
  }
  const { added, removed, oldLines } = p.counts;
  const counted = {
    added,
    removed,
    oldLines,
    ...(p.counts.modified === undefined ? {} : { modified: p.counts.modified }),
  };
  if (force === 'direct') return { tier: 'direct', reason: 'policy', ...counted };
  const tier = tierFor(added + removed, oldLines, t);
  return tier === 'direct'
    ? { tier: 'direct', reason: 'small', ...counted }
    : { tier: 'staged', reason: tier, ...counted };
};
