// What the model reads from the adapters of agents other than Claude Code (core/messages.ts has Claude Code's,
// which Gemini CLI's shares). Codex CLI wraps a deny as "Command blocked by PreToolUse hook: <reason>. Command:
// <the patch>", so a patch's reason opens with what happened and ends on a clause the appended ". Command:"
// completes.
import type { Decision, Thresholds } from './decide';
import { capDiff, LINE_CHAR_CAP, type RunCheck, sizeText } from './messages';
import { secondsText } from './time';
import { plural } from './plural';

export interface HeldFile {
  id: string;
  path: string;
  /** `+3 -1`, new file, ... */
  summary: string;
}

export interface HeldPatch {
  changeset: string;
  files: HeldFile[];
  /** the whole patch's size, summed over the files it changes */
  decision: Extract<Decision, { tier: 'staged' }>;
  /** a file that is a large change on its own, when that, not the sum, staged the patch */
  alone?: { path: string; decision: Extract<Decision, { tier: 'staged' }> } | undefined;
  thresholds: Thresholds;
  diff: string;
  invoke: string;
  ttlSeconds: number;
  /** only a person may apply it (FETTLE_REVIEW=human) */
  person: boolean;
  /** what the failed commands of `run` rules that stage said; `staged`: they alone staged it, by `rule` */
  check?: (RunCheck & { rule: string }) | undefined;
}

/** The diff as the model is shown it: capped as Claude Code's is, with what was cut said. */
const shownDiff = (diff: string, ref: string): string[] => {
  const shown = capDiff(diff);
  const out = ['', shown.text];
  if (shown.shortened > 0)
    out.push(
      `[${plural(shown.shortened, 'long line')} cut at ${LINE_CHAR_CAP} characters; see them whole with: ${ref}]`,
    );
  if (shown.cutLines > 0) out.push(`[${shown.cutLines} more diff lines not shown; see them with: ${ref}]`);
  return out;
};

/** A patch held as one staged changeset: nothing written, one id for all its files. */
export const renderHeldPatch = (m: HeldPatch): string => {
  const { added, removed, oldLines, reason } = m.decision;
  const changed = added + removed;
  const across = m.files.length === 1 ? '' : ` across ${m.files.length} files`;
  const alone = m.alone && sizeText(m.alone.decision, m.thresholds);
  const why = m.check?.staged
    ? `the command of policy rule ${m.check.rule} failed`
    : alone
      ? `${m.alone?.path} alone is a large change (${alone.counts}; ${alone.why})`
      : reason === 'ceil'
        ? `its ${changed} changed lines (added + removed) reach the limit of ${m.thresholds.ceil}`
        : `its ${changed} changed lines (added + removed) are more than ${Math.round(m.thresholds.ratio * 100)}% of the ${oldLines} lines of the files it changes`;
  const apply = m.person
    ? [
        `A person must approve it (FETTLE_REVIEW=human): tell the user to review it with \`${m.invoke} review ${m.changeset}\` and apply it with \`${m.invoke} confirm ${m.changeset}\` in their own terminal.`,
      ]
    : [`To apply it, run: ${m.invoke} confirm ${m.changeset}`, `To drop it, run: ${m.invoke} discard ${m.changeset}`];
  return [
    `fettle held this patch for review: nothing was written to ${m.files.length === 1 ? (m.files[0]?.path ?? 'the file') : `the ${m.files.length} files it changes`}.`,
    `Staged as changeset ${m.changeset} (+${added} -${removed}${across}), because ${why}:`,
    ...m.files.map((f) => `  ${f.id}  ${f.path}  ${f.summary}`),
    ...(m.check ? [m.check.text] : []),
    ...apply,
    `It can be confirmed for ${secondsText(m.ttlSeconds)}.`,
    ...shownDiff(m.diff, `${m.invoke} review ${m.changeset}`),
    '',
    'Do not send this patch again; confirm or discard it instead',
  ].join('\n');
};

/** A large write held for a person, in an agent that cannot ask one at a prompt (Gemini CLI, FETTLE_REVIEW=human). */
export const renderHeldForPerson = (m: {
  id: string;
  path: string;
  decision: Extract<Decision, { tier: 'staged' }>;
  thresholds: Thresholds;
  invoke: string;
  tool: string;
}): string => {
  const { counts, why } = sizeText(m.decision, m.thresholds);
  return (
    `fettle held this write for review: nothing was written to ${m.path}. It is a large change (${counts}; ${why}), ` +
    `and FETTLE_REVIEW=human: a person must review it with \`${m.invoke} review ${m.id}\` and apply it with ` +
    `\`${m.invoke} confirm ${m.id}\` in their own terminal. Do not retry the ${m.tool}; tell the user that staged change ${m.id} needs their review.`
  );
};
