// What a person has decided on the page so far, before they apply it: a decision per hunk or per change, and
// their comments. Kept by the server (a reload of the page shows them again) and turned into one decision set
// when they press Apply. Every draft the page sends is checked here; a malformed one is a usage error, never a
// partial state.
import type { FeedbackItem } from '../core/feedback';
import { FEEDBACK_MAX_CHARS } from '../core/feedback';
import { isChangeId } from '../core/record-message';
import { FettleError } from '../errors';
import type { Choice, DecisionSet } from '../protocol/review/decide-set';

export type Draft =
  | { kind: 'hunk'; change: string; hunk: number; decision: 'keep' | 'discard' | 'pending' }
  | { kind: 'whole'; change: string; decision: 'confirm' | 'discard' | 'pending' }
  | {
      kind: 'comment';
      change: string;
      /** a hunk of the change, and lines of its new side, when the comment points there */
      hunk?: number | undefined;
      lines?: { from: number; to: number } | undefined;
      /** empty: the comment is removed */
      text: string;
    };

const bad = (why: string) => new FettleError('E_USAGE', `the page sent a draft that ${why}`);

const count = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1 && v < 1e7;

/** A draft as the page sent it, checked field by field. */
export const checkDraft = (value: unknown): Draft => {
  if (typeof value !== 'object' || value === null) throw bad('is not an object');
  const d = value as Record<string, unknown>;
  if (typeof d.change !== 'string' || !isChangeId(d.change)) throw bad('names no change id');
  if (d.kind === 'hunk') {
    if (!count(d.hunk)) throw bad('names no hunk number');
    if (d.decision !== 'keep' && d.decision !== 'discard' && d.decision !== 'pending') throw bad('decides nothing');
    return { kind: 'hunk', change: d.change, hunk: d.hunk, decision: d.decision };
  }
  if (d.kind === 'whole') {
    if (d.decision !== 'confirm' && d.decision !== 'discard' && d.decision !== 'pending') throw bad('decides nothing');
    return { kind: 'whole', change: d.change, decision: d.decision };
  }
  if (d.kind === 'comment') {
    if (typeof d.text !== 'string') throw bad('has no text');
    if (d.text.length > FEEDBACK_MAX_CHARS) throw bad(`has a comment over ${FEEDBACK_MAX_CHARS} characters`);
    if (d.hunk !== undefined && !count(d.hunk)) throw bad('names a hunk that is not a number');
    const l = d.lines as { from?: unknown; to?: unknown } | undefined;
    if (l !== undefined && !(count(l.from) && count(l.to) && l.from <= l.to)) throw bad('names lines out of order');
    return {
      kind: 'comment',
      change: d.change,
      hunk: d.hunk as number | undefined,
      lines: l as { from: number; to: number } | undefined,
      text: d.text,
    };
  }
  throw bad('is neither a hunk, a change nor a comment');
};

const commentKey = (d: {
  change: string;
  hunk?: number | undefined;
  lines?: { from: number; to: number } | undefined;
}) => `${d.change}#${d.hunk ?? ''}#${d.lines ? `${d.lines.from}-${d.lines.to}` : ''}`;

export class Drafts {
  private hunks = new Map<string, Map<number, 'keep' | 'discard'>>();
  private wholes = new Map<string, 'confirm' | 'discard'>();
  private comments = new Map<string, Extract<Draft, { kind: 'comment' }>>();

  put(value: unknown): void {
    const d = checkDraft(value);
    if (d.kind === 'hunk') {
      const mine = this.hunks.get(d.change) ?? new Map();
      if (d.decision === 'pending') mine.delete(d.hunk);
      else mine.set(d.hunk, d.decision);
      this.hunks.set(d.change, mine);
      this.wholes.delete(d.change);
    } else if (d.kind === 'whole') {
      if (d.decision === 'pending') this.wholes.delete(d.change);
      else this.wholes.set(d.change, d.decision);
      this.hunks.delete(d.change);
    } else if (d.text.trim() === '') this.comments.delete(commentKey(d));
    else this.comments.set(commentKey(d), d);
  }

  all(): Draft[] {
    return [
      ...[...this.wholes].map(([change, decision]): Draft => ({ kind: 'whole', change, decision })),
      ...[...this.hunks].flatMap(([change, m]) =>
        [...m].map(([hunk, decision]): Draft => ({ kind: 'hunk', change, hunk, decision })),
      ),
      ...this.comments.values(),
    ];
  }

  clear(): void {
    this.hunks.clear();
    this.wholes.clear();
    this.comments.clear();
  }

  /** The drafts as one decision set: a comment on a dropped hunk (or change) is the reason it was dropped. */
  decisionSet(withConflicts: boolean): DecisionSet {
    const choices: Choice[] = [...this.wholes].map(([id, verdict]) => ({ id, verdict }));
    for (const [id, m] of this.hunks) {
      const keep = [...m].filter(([, d]) => d === 'keep').map(([h]) => h);
      const drop = [...m].filter(([, d]) => d === 'discard').map(([h]) => h);
      if (keep.length + drop.length > 0) choices.push({ id, keep, drop });
    }
    const dropped = (c: { change: string; hunk?: number | undefined }) =>
      this.wholes.get(c.change) === 'discard' ||
      (c.hunk !== undefined && this.hunks.get(c.change)?.get(c.hunk) === 'discard');
    const feedback: FeedbackItem[] = [...this.comments.values()].map((c) => ({
      change: c.change,
      path: '',
      kind: dropped(c) ? 'dropped' : 'comment',
      text: c.text,
      hunk: c.hunk,
      lines: c.lines,
    }));
    if (choices.length === 0 && feedback.length === 0)
      throw new FettleError('E_USAGE', 'Nothing to apply: decide a hunk or a change, or leave a comment, first.');
    return { choices, feedback, withConflicts };
  }
}
