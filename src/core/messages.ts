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
    const shown = capDiff(m.diff.text);
    const cut = m.diff.cutLines + shown.cutLines;
    lines.push('', shown.text);
    if (shown.shortened > 0)
      lines.push(
        `[${shown.shortened} long line${shown.shortened === 1 ? '' : 's'} cut at ${LINE_CHAR_CAP} characters; see them whole with: git show fettle/${m.id}]`,
      );
    if (cut > 0) lines.push(`[${cut} more diff lines not shown; see them with: git show fettle/${m.id}]`);
  }
  return lines.join('\n');
};

/**
 * Characters of diff the model is shown. Claude Code passes a deny reason on whole (a 12-line file of
 * 6,000-character lines made a 144,591-character reason), and caps other hook text at 10,000 characters.
 */
export const DIFF_CHAR_CAP = 6000;
/** A longer diff line is shown cut, with the count of characters left out. */
export const LINE_CHAR_CAP = 400;

/** Never ends on the first half of a surrogate pair. */
const cutAt = (text: string, at: number): string => {
  const code = text.charCodeAt(at - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? at - 1 : at);
};

/** A diff cut to DIFF_CHAR_CAP characters, each line to LINE_CHAR_CAP: what is left, and what was cut. */
export const capDiff = (text: string): { text: string; cutLines: number; shortened: number } => {
  const out: string[] = [];
  let size = 0;
  let shortened = 0;
  const all = text.split('\n');
  for (const [n, line] of all.entries()) {
    let shown = line;
    if (line.length > LINE_CHAR_CAP) {
      const head = cutAt(line, LINE_CHAR_CAP);
      shown = `${head} [… ${line.length - head.length} more characters]`;
    }
    const grown = size + (out.length > 0 ? 1 : 0) + shown.length;
    if (grown > DIFF_CHAR_CAP) return { text: out.join('\n'), cutLines: all.length - n, shortened };
    if (shown !== line) shortened++;
    out.push(shown);
    size = grown;
  }
  return { text: out.join('\n'), cutLines: 0, shortened };
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
