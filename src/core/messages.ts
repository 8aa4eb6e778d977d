// What the agent and the user read. The agent pays per token: a direct change gets one line (direct-note.ts); a
// staged change gets the diff and the two commands. The staged text arrives as a tool error, possibly after a
// "PreToolUse:Write hook error: " prefix, so it opens by saying plainly that nothing was written.
import type { Decision, Thresholds } from './decide';
import { secondsText } from './time';
import { plural } from './plural';

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
  thresholds: Thresholds;
  /** the earlier staged change of the file, from the same session, that this one replaced */
  supersedes?: string | undefined;
  /** the policy rule that staged it (reason `policy`), as ruleText() names it */
  rule?: string | undefined;
  /** what the failed commands of `run` rules that stage said (core/policy-run.ts); `staged`: they alone staged it */
  check?: RunCheck | undefined;
}

export interface RunCheck {
  text: string;
  staged: boolean;
}

/**
 * The size of a large change and the rule it passed, in words that say what they count: the rule counts a
 * modified line twice (one removed, one added), as unified diffs do, so "+15 -14" in a 53-line file is 29
 * changed lines, more than 40% of 53, though 15 lines were touched. A percentage of the file would mislead.
 */
export const sizeText = (
  decision: Extract<Decision, { tier: 'staged' }>,
  t: Thresholds,
  rule?: string,
): { counts: string; why: string } => {
  const { added, removed, oldLines, reason } = decision;
  const changed = added + removed;
  const counts = `+${added} -${removed} to ${oldLines === 0 ? 'an empty file' : `a ${oldLines}-line file`}`;
  if (reason === 'policy')
    return {
      counts: oldLines === 0 && removed === 0 ? `+${added} -0` : counts,
      why: `policy rule ${rule ?? '(unnamed)'} stages every change to it`,
    };
  const why =
    reason === 'ceil'
      ? `its ${changed} changed lines (added + removed) reach the limit of ${t.ceil}`
      : oldLines === 0
        ? `it puts more than ${t.floor} lines into an empty file`
        : `its ${changed} changed lines (added + removed) are more than ${Math.round(t.ratio * 100)}% of the file's ${oldLines}`;
  return { counts, why };
};

export const renderStaged = (m: StagedMessage): string => {
  const { counts, why } = sizeText(m.decision, m.thresholds, m.rule);
  const because = m.check?.staged ? `the command of policy rule ${m.rule} failed` : why;
  const lines = [
    `fettle held this write for review: nothing was written to ${m.path}.`,
    `Staged change ${m.id}: ${counts}; staged because ${because}.`,
    ...(m.check ? [m.check.text] : []),
    ...(m.supersedes ? [`It replaces staged change ${m.supersedes}, which is dropped: only ${m.id} is pending.`] : []),
    `To apply it, run: ${m.invoke} confirm ${m.id}`,
    `To drop it, run: ${m.invoke} discard ${m.id}`,
    `It can be confirmed for ${secondsText(m.ttlSeconds)}. Do not retry the ${m.tool}; confirm or discard instead.`,
  ];
  return [...lines, ...stagedDiff(m.id, m.diff)].join('\n');
};

/** A staged change's diff as the model is shown it: capped (capDiff), with what was left out and where to see it. */
export const stagedDiff = (id: string, diff: StagedMessage['diff']): string[] => {
  if (!diff) return [];
  const shown = capDiff(diff.text);
  const cut = diff.cutLines + shown.cutLines;
  const lines = ['', shown.text];
  if (shown.shortened > 0)
    lines.push(
      `[${plural(shown.shortened, 'long line')} cut at ${LINE_CHAR_CAP} characters; see them whole with: git show fettle/${id}]`,
    );
  if (cut > 0) lines.push(`[${cut} more diff lines not shown; see them with: git show fettle/${id}]`);
  return lines;
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

/**
 * A diff cut to DIFF_CHAR_CAP characters, each line to LINE_CHAR_CAP, and no run of removed (or added) lines past
 * half of it, so both sides of a rewrite show (as core/diff.ts's lineCapper does for lines): what is left, and
 * what was cut.
 */
export const capDiff = (text: string): { text: string; cutLines: number; shortened: number } => {
  const out: string[] = [];
  let size = 0;
  let shortened = 0;
  let cutLines = 0;
  let run = { sign: '', chars: 0, cut: 0 };
  let full = false; // once a line did not fit, nothing after it is shown: no gaps in what is
  const add = (line: string): boolean => {
    const grown = size + (out.length > 0 ? 1 : 0) + line.length;
    if (full || grown > DIFF_CHAR_CAP) {
      full = true;
      return false;
    }
    out.push(line);
    size = grown;
    return true;
  };
  const close = () => {
    if (run.cut > 0 && !full) add(`[${run.cut} more ${run.sign === '-' ? 'removed' : 'added'} lines]`);
    run = { sign: '', chars: 0, cut: 0 };
  };
  for (const line of text.split('\n')) {
    let shown = line;
    if (line.length > LINE_CHAR_CAP) {
      const head = cutAt(line, LINE_CHAR_CAP);
      shown = `${head} [… ${line.length - head.length} more characters]`;
    }
    const sign = line[0] === '-' || line[0] === '+' ? line[0] : '';
    if (sign !== run.sign) close();
    run.sign = sign;
    const overRun = sign !== '' && run.chars + shown.length > DIFF_CHAR_CAP / 2;
    if (overRun || !add(shown)) {
      cutLines++;
      if (sign !== '') run.cut++;
      continue;
    }
    if (shown !== line) shortened++;
    run.chars += shown.length + 1;
  }
  close();
  return { text: out.join('\n'), cutLines, shortened };
};

/** The size of a large change and the rule it passed, in one parenthesis-sized phrase. */
const sizeOf = (m: Pick<StagedMessage, 'decision' | 'thresholds' | 'rule'>): string => {
  const { counts, why } = sizeText(m.decision, m.thresholds, m.rule);
  return `${counts}; ${why}`;
};

/**
 * A staged change Claude Code asks a person about (`ask`). Two readers: the person, in the permission prompt;
 * and, when nobody can answer (a headless run, `claude -p`), the model, which then gets this text as the tool's
 * error. So it says what happens either way and gives the model no command to apply it.
 */
export const renderAsk = (m: Omit<StagedMessage, 'diff' | 'tool'>): string =>
  `fettle: this is ${m.decision.reason === 'policy' ? 'a change' : 'a large change'} to ${m.path} (${sizeOf(m)}), so a person must approve it. ` +
  `It is staged as ${m.id}: see exactly what it changes with \`${m.invoke} review ${m.id}\`. Allowing it writes the file; ` +
  `denying it leaves the file as it is. If nobody approved it, nothing was written, and fettle drops the change ` +
  `when this turn ends: do not retry it; tell the user that this change to ${m.path} needs their approval at a prompt.` +
  (m.check ? `\n\n${m.check.text}` : '');

/** A large write in a mode where nobody can review it (dontAsk): denied, nothing staged. */
export const renderRefused = (
  m: Pick<StagedMessage, 'path' | 'decision' | 'thresholds' | 'tool' | 'rule' | 'check'>,
): string =>
  (m.decision.reason === 'policy'
    ? `fettle refused this write: nothing was written to ${m.path} and nothing was staged. It is a change ` +
      `(${sizeOf(m)}), and in dontAsk mode nobody can review a staged change. Tell the user this change needs their review in ` +
      `another permission mode. Do not retry the ${m.tool} unchanged.`
    : `fettle refused this write: nothing was written to ${m.path} and nothing was staged. It is a large change ` +
      `(${sizeOf(m)}), and in dontAsk mode nobody can review a large change. Make it as smaller edits, each within ` +
      `the limit, or tell the user it needs their review in another permission mode. Do not retry the ${m.tool} unchanged.`) +
  (m.check ? `\n${m.check.text}` : '');

/** A write a policy `block` rule denies, in every permission mode but plan (where fettle does nothing). */
export const renderBlocked = (m: { path: string; rule: string; message: string; tool: string }): string =>
  `fettle blocked this write: nothing was written to ${m.path}. Policy rule ${m.rule} blocks it: ${m.message.trim()} ` +
  `Do not retry the ${m.tool}; tell the user if the change is needed.`;

/** An `ask` rule's write, in the person's permission prompt: what the matching rules say, and who asks. */
export const renderPolicyAsk = (m: { path: string; rule: string; message: string }): string =>
  `fettle: policy rule ${m.rule} asks you to approve this write to ${m.path}: ${m.message.trim()}`;

/**
 * A `stage` rule's path, written by a tool call whose result fettle cannot compute: nothing to stage, so denied;
 * so is a `run` rule's (`runs`), with nothing to run its command on.
 */
export const renderUnstageable = (m: {
  path: string;
  rule: string;
  why: string;
  tool: string;
  runs?: boolean;
  /** what to do instead (default: write the whole file) */
  instead?: string;
}) =>
  `fettle refused this write: nothing was written to ${m.path}. Policy rule ${m.rule} ` +
  (m.runs ? 'runs a command on the files as each write would leave them' : 'stages every change to it') +
  `, and fettle cannot compute this ${m.tool}'s result exactly (${m.why}), so there is nothing it could ${m.runs ? 'run it on' : 'stage'}. ` +
  (m.instead ?? `Write the whole file with the Write tool instead.`);

/** A write a `run` rule's failed command blocks: what it said, what the matching rules say, and what to do. */
export const renderRunBlocked = (m: { path: string; check: string; message: string }): string =>
  `fettle blocked this write: nothing was written to ${m.path}. ${m.check.trim()}` +
  (m.message.trim() === '' ? '' : `\n${m.message.trim()}`) +
  `\nFix what it reports, then write again.`;

const REASON_TEXT: Record<string, string> = {
  'new-file': 'new file',
  binary: 'binary content, not diffed',
  oversize: 'over 5 MB, not diffed',
};

/** Why a change has no line counts (new file, binary, oversize, not counted), or undefined when it has them. */
export const uncountedText = (reason: string | undefined, added?: number): string | undefined =>
  (reason && REASON_TEXT[reason]) || (added === undefined ? 'changed by the tool' : undefined);

/** `+3 -1`, or why there are no counts (new file, binary, oversize). */
export const summarize = (reason: string | undefined, added?: number, removed?: number): string =>
  uncountedText(reason, added) ?? `+${added} -${removed ?? 0}`;

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
export const renderSetStaged = (m: {
  changeset: string;
  files: SetFile[];
  invoke: string;
  /** what the failed commands of `run` rules said, and the rule that staged the set when they alone did */
  check?: (RunCheck & { rule: string }) | undefined;
}): string =>
  [
    `fettle held these writes for review as one changeset: nothing was written to ${plural(m.files.length, 'file')}.`,
    `Staged changeset ${m.changeset}, because ${m.check?.staged ? `the command of policy rule ${m.check.rule} failed` : m.files.filter((f) => f.large).length === 1 ? 'one of its files is a large change' : 'some of its files are a large change'}:`,
    ...setRows(m.files),
    ...(m.check ? [m.check.text] : []),
    `To apply them all, run: ${m.invoke} confirm ${m.changeset}`,
    `To drop them all, run: ${m.invoke} discard ${m.changeset}`,
    `To review them as one diff: ${m.invoke} review ${m.changeset}`,
  ].join('\n');

/** Several files written and recorded as one changeset. */
export const renderSetWritten = (m: { changeset: string; files: SetFile[]; invoke: string }): string =>
  [
    `fettle recorded ${plural(m.files.length, 'file')} as changeset ${m.changeset}; undo them all with: ${m.invoke} rollback ${m.changeset}`,
    ...setRows(m.files),
  ].join('\n');
