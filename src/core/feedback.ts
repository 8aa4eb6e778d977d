// What a person tells an agent about its changes, and how the agent reads it: a comment on a hunk or on lines,
// the reason a change or some hunks were dropped, and what became of each decided change. Pure: the records
// (protocol/record/feedback.ts) keep it, the hooks and the MCP server deliver it once.
import { hunkListText } from './hunks';

export interface FeedbackItem {
  /** the change it is about, and its file */
  change: string;
  path: string;
  /** a comment, or why the person dropped the change or some of its hunks */
  kind: 'comment' | 'dropped';
  text: string;
  /** where the person pointed: a hunk of the change, and lines of the file as the change proposed it */
  hunk?: number | undefined;
  lines?: { from: number; to: number } | undefined;
}

/** What a decision did to one change, for the agent that made it. */
export interface DecisionNote {
  change: string;
  path: string;
  verdict: 'confirmed' | 'discarded';
  /** decided in part: the hunks kept and dropped of how many, and the change now holding the rest */
  kept?: number[] | undefined;
  dropped?: number[] | undefined;
  count?: number | undefined;
  remainder?: string | undefined;
}

const where = (i: FeedbackItem): string => {
  const lines = i.lines
    ? i.lines.from === i.lines.to
      ? ` line ${i.lines.from}`
      : ` lines ${i.lines.from}-${i.lines.to}`
    : '';
  const hunk = i.hunk === undefined ? '' : `, hunk ${i.hunk}`;
  return `${i.path}${lines} (change ${i.change}${hunk})`;
};

const decisionLine = (d: DecisionNote): string => {
  if (d.count === undefined || (!d.kept?.length && !d.dropped?.length))
    return `${d.path}: change ${d.change} was ${d.verdict === 'confirmed' ? 'applied; the file on disk now holds it' : 'discarded; nothing of it was written'}.`;
  const which = (list: number[]) => `${list.length === 1 ? 'hunk' : 'hunks'} ${hunkListText(list)}`;
  const parts = [
    d.kept?.length ? `kept ${which(d.kept)} (now on disk)` : '',
    d.dropped?.length ? `dropped ${which(d.dropped)}` : '',
    d.remainder ? `the others are still pending, as change ${d.remainder}` : '',
  ].filter(Boolean);
  return `${d.path}: of the ${d.count} hunks of change ${d.change}, they ${parts.join('; ')}.`;
};

/** The text an agent reads, once: what was decided, then every comment with where it points. */
export const feedbackText = (decisions: DecisionNote[], items: FeedbackItem[]): string => {
  const lines = ['A person reviewed your changes with fettle.'];
  for (const d of decisions) lines.push(`- ${decisionLine(d)}`);
  for (const i of items)
    lines.push(`- ${i.kind === 'dropped' ? 'Why they dropped' : 'Comment on'} ${where(i)}: ${JSON.stringify(i.text)}`);
  if (decisions.some((d) => d.verdict === 'confirmed'))
    lines.push('The files they applied changed on disk: read them again before editing them.');
  return lines.join('\n');
};

/** A comment as typed: one line of up to this many characters per item in the record's message. */
export const FEEDBACK_MAX_CHARS = 4000;
