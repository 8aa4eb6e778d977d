// What the agent and the user read. The agent pays per token: a direct change gets one line; a staged change
// gets the diff and the two commands. The staged text arrives as a tool error, possibly after a
// "PreToolUse:Write hook error: " prefix, so it opens by saying plainly that nothing was written.
import type { Decision } from './decide';
import { shareOfFile } from './decide';

export interface StagedMessage {
  id: string;
  path: string;
  decision: Extract<Decision, { tier: 'staged' }>;
  diff: { text: string; cutLines: number } | undefined;
  /** the agent's tool, named in the advice not to retry it */
  tool: string;
  /** how to invoke fettle so the command runs as printed, e.g. `fettle` or `fettle -C '/repo'` */
  invoke: string;
  ttlSeconds: number;
  thresholds: { ceil: number; ratio: number };
}

const duration = (seconds: number): string =>
  seconds % 3600 === 0 ? `${seconds / 3600} h` : seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;

export const renderStaged = (m: StagedMessage): string => {
  const { added, removed, oldLines, reason } = m.decision;
  const changed = added + removed;
  const why =
    reason === 'ceil'
      ? `${changed} changed lines reach the limit of ${m.thresholds.ceil}`
      : `it changes more than ${Math.round(m.thresholds.ratio * 100)}% of the file`;
  const lines = [
    `fettle held this write for review: nothing was written to ${m.path}.`,
    `Staged change ${m.id}: +${added} -${removed} (${shareOfFile(changed, oldLines)}% of file); staged because ${why}.`,
    `To apply it, run: ${m.invoke} confirm ${m.id}`,
    `To drop it, run: ${m.invoke} discard ${m.id}`,
    `It can be confirmed for ${duration(m.ttlSeconds)}. Do not retry the ${m.tool}; confirm or discard instead.`,
  ];
  if (m.diff) {
    lines.push('', m.diff.text);
    if (m.diff.cutLines > 0)
      lines.push(`[${m.diff.cutLines} more diff lines not shown; see them with: git show fettle/${m.id}]`);
  }
  return lines.join('\n');
};

/** Human review mode: shown in Claude Code's permission prompt, to the user (not the model). */
export const renderAsk = (m: Omit<StagedMessage, 'invoke' | 'diff' | 'tool'>): string => {
  const { added, removed, oldLines } = m.decision;
  return (
    `fettle: large change to ${m.path} (+${added} -${removed}, ${shareOfFile(added + removed, oldLines)}% of file), staged as ${m.id}. ` +
    `Review it with \`git diff HEAD fettle/${m.id}\`. Allow to write it; deny to leave the file as it is.`
  );
};

const REASON_TEXT: Record<string, string> = {
  'new-file': 'new file',
  binary: 'binary content, not diffed',
  oversize: 'over 5 MB, not diffed',
};

/** `+3 -1`, or why there are no counts (new file, binary, oversize). */
export const summarize = (reason: string | undefined, added?: number, removed?: number): string =>
  (reason && REASON_TEXT[reason]) || (added === undefined ? 'changed by the tool' : `+${added} -${removed ?? 0}`);

/** One line after a direct write: what changed and how to undo it. */
export const renderDirect = (id: string, path: string, summary: string, invoke: string): string =>
  `fettle recorded ${path} (${summary}) as ${id}; undo with: ${invoke} rollback ${id}`;

export const renderNoop = (path: string): string =>
  `fettle: ${path} already has this exact content; nothing to record.`;
