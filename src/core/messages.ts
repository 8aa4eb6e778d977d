// What the agent and the user read. The agent pays per token: a direct change gets one line; a staged change
// gets the diff and the two commands. The staged text arrives as a tool error, possibly after a
// "PreToolUse:Write hook error: " prefix, so it opens by saying plainly that nothing was written.
import type { Decision } from './decide';
import { shareOfFile } from './decide';
import { secondsText } from './time';

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
  /** the earlier staged change of the file, from the same session, that this one replaced */
  supersedes?: string | undefined;
}

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
    ...(m.supersedes ? [`It replaces staged change ${m.supersedes}, which is dropped: only ${m.id} is pending.`] : []),
    `To apply it, run: ${m.invoke} confirm ${m.id}`,
    `To drop it, run: ${m.invoke} discard ${m.id}`,
    `It can be confirmed for ${secondsText(m.ttlSeconds)}. Do not retry the ${m.tool}; confirm or discard instead.`,
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

/** The size of a large change and the rule it passed, in words. */
const sizeOf = (m: Pick<StagedMessage, 'decision' | 'thresholds'>): string => {
  const { added, removed, oldLines, reason } = m.decision;
  const changed = added + removed;
  const rule =
    reason === 'ceil'
      ? `${changed} changed lines reach the limit of ${m.thresholds.ceil}`
      : `it changes more than ${Math.round(m.thresholds.ratio * 100)}% of the file`;
  return `+${added} -${removed}, ${shareOfFile(changed, oldLines)}% of the file; ${rule}`;
};

/**
 * A staged change Claude Code asks a person about (`ask`). Two readers: the person, in the permission prompt;
 * and, when nobody can answer (a headless run, `claude -p`), the model, which then gets this text as the tool's
 * error. So it says what happens either way and gives the model no command to apply it.
 */
export const renderAsk = (m: Omit<StagedMessage, 'invoke' | 'diff' | 'tool'>): string =>
  `fettle: this is a large change to ${m.path} (${sizeOf(m)}), so a person must approve it. ` +
  `It is staged as ${m.id}: review it with \`git diff HEAD fettle/${m.id}\`. Allowing it writes the file; ` +
  `denying it leaves the file as it is. If nobody approved it, nothing was written, and fettle drops the change ` +
  `when this turn ends: do not retry it; tell the user that this change to ${m.path} needs their approval at a prompt.`;

/** A large write in a mode where nobody can review it (dontAsk): denied, nothing staged. */
export const renderRefused = (m: Pick<StagedMessage, 'path' | 'decision' | 'thresholds' | 'tool'>): string =>
  `fettle refused this write: nothing was written to ${m.path} and nothing was staged. It is a large change ` +
  `(${sizeOf(m)}), and in dontAsk mode nobody can review a large change. Make it as smaller edits, each within ` +
  `the limit, or tell the user it needs their review in another permission mode. Do not retry the ${m.tool} unchanged.`;

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

/** One file of a changeset, as a staged or written changeset lists it. */
export interface SetFile {
  id: string;
  path: string;
  /** `+3 -1`, new file, …; with `staged`: this file alone would have been large */
  summary: string;
  large: boolean;
}

const setRows = (files: SetFile[]): string[] =>
  files.map((f) => `  ${f.id}  ${f.path}  ${f.summary}${f.large ? '  (large)' : ''}`);

/** Several files held as one changeset: nothing written; one id confirms, discards or reviews them all. */
export const renderSetStaged = (m: { changeset: string; files: SetFile[]; invoke: string }): string =>
  [
    `fettle held these writes for review as one changeset: nothing was written to ${m.files.length} file${m.files.length === 1 ? '' : 's'}.`,
    `Staged changeset ${m.changeset}, because ${m.files.filter((f) => f.large).length === 1 ? 'one of its files is' : 'some of its files are'} a large change:`,
    ...setRows(m.files),
    `To apply them all, run: ${m.invoke} confirm ${m.changeset}`,
    `To drop them all, run: ${m.invoke} discard ${m.changeset}`,
    `To review them as one diff: ${m.invoke} review ${m.changeset}`,
  ].join('\n');

/** Several files written and recorded as one changeset. */
export const renderSetWritten = (m: { changeset: string; files: SetFile[]; invoke: string }): string =>
  [
    `fettle recorded ${m.files.length} file${m.files.length === 1 ? '' : 's'} as changeset ${m.changeset}; undo them all with: ${m.invoke} rollback ${m.changeset}`,
    ...setRows(m.files),
  ].join('\n');
