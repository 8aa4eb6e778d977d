// What the page knows: the review's pending changes and the drafts (decisions and comments) the server keeps.
// A draft is applied here at once, the way the server applies it (web/drafts.ts), so the page answers a key
// press without waiting; the server's list replaces it when its answer comes.
import type { ReviewChange, ReviewData } from '../../protocol/review/review-data';
import type { CommentDraft, Draft } from './api';

export type HunkDecision = 'keep' | 'discard' | 'pending';

export const commentKey = (d: { change: string; hunk?: number | undefined; lines?: { from: number; to: number } }) =>
  `${d.change}#${d.hunk ?? ''}#${d.lines ? `${d.lines.from}-${d.lines.to}` : ''}`;

/** `drafts` with `d` put in, as the server puts it: a hunk's decision ends the change's whole one, and back. */
export const putDraft = (drafts: Draft[], d: Draft): Draft[] => {
  if (d.kind === 'comment') {
    const rest = drafts.filter((x) => x.kind !== 'comment' || commentKey(x) !== commentKey(d));
    return d.text.trim() === '' ? rest : [...rest, d];
  }
  const rest = drafts.filter(
    (x) =>
      x.kind === 'comment' || x.change !== d.change || (d.kind === 'hunk' && x.kind === 'hunk' && x.hunk !== d.hunk),
  );
  return d.decision === 'pending' ? rest : [...rest, d];
};

export interface Counts {
  changes: number;
  hunks: number;
  keep: number;
  discard: number;
  pending: number;
  comments: number;
}

export class ReviewState {
  data: ReviewData | null = null;
  /** the changes under review: the review's pending ones, and those an Apply left pending */
  pending: ReviewChange[] = [];
  drafts: Draft[] = [];

  change(id: string): ReviewChange | undefined {
    return this.pending.find((c) => c.id === id);
  }

  whole(change: string): 'confirm' | 'discard' | undefined {
    const d = this.drafts.find((x) => x.kind === 'whole' && x.change === change);
    return d?.kind === 'whole' && d.decision !== 'pending' ? d.decision : undefined;
  }

  decision(change: string, hunk: number): HunkDecision {
    const whole = this.whole(change);
    if (whole) return whole === 'confirm' ? 'keep' : 'discard';
    const d = this.drafts.find((x) => x.kind === 'hunk' && x.change === change && x.hunk === hunk);
    return d?.kind === 'hunk' ? d.decision : 'pending';
  }

  comments(change: string, hunk: number | undefined): CommentDraft[] {
    return this.drafts.filter((x): x is CommentDraft => x.kind === 'comment' && x.change === change && x.hunk === hunk);
  }

  /** How many hunks of the change are decided, of how many (a change with no hunks counts as one). */
  progress(c: ReviewChange): { decided: number; of: number } {
    if (c.hunks.length === 0) return { decided: this.whole(c.id) ? 1 : 0, of: 1 };
    const decided = c.hunks.filter((h) => this.decision(c.id, h.index) !== 'pending').length;
    return { decided, of: c.hunks.length };
  }

  counts(): Counts {
    const n: Counts = { changes: this.pending.length, hunks: 0, keep: 0, discard: 0, pending: 0, comments: 0 };
    for (const c of this.pending) {
      const indexes = c.hunks.length > 0 ? c.hunks.map((h) => h.index) : [0];
      for (const i of indexes) {
        n.hunks++;
        n[i === 0 ? wholeAsHunk(this.whole(c.id)) : this.decision(c.id, i)]++;
      }
    }
    n.comments = this.drafts.filter((d) => d.kind === 'comment').length;
    return n;
  }

  /** Something to apply: a decision or a comment. */
  hasDrafts(): boolean {
    return this.drafts.length > 0;
  }
}

const wholeAsHunk = (w: 'confirm' | 'discard' | undefined): HunkDecision =>
  w === 'confirm' ? 'keep' : w === 'discard' ? 'discard' : 'pending';
