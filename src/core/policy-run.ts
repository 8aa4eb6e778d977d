// A `run` rule's command (core/policy.ts), pure: what runs for a write (`{file}` replaced by the path written),
// how it is shown, and what the agent reads when it fails: the command, how it ended, and the end of its output,
// capped (a test suite can print megabytes; the agent pays per token).
import type { RunSpec } from './policy';
import { shellQuote } from './shell-quote';

/** What is started: a command line through the shell, or an argv as is. */
export type RunInvocation = { shell: string } | { argv: string[] };

const FILE = /\{file\}/g;

/** The command for a write to `file` (from the repository's top directory). */
export const runInvocation = (spec: Pick<RunSpec, 'command'>, file: string): RunInvocation =>
  typeof spec.command === 'string'
    ? { shell: spec.command.replace(FILE, () => shellQuote(file)) }
    : { argv: spec.command.map((word) => word.replace(FILE, () => file)) };

/** What runs for a set of files: once per path when the command names `{file}`, else once (`{file}` unused). */
export const invocationsFor = (spec: Pick<RunSpec, 'command'>, paths: readonly string[]): RunInvocation[] => {
  const words = typeof spec.command === 'string' ? [spec.command] : spec.command;
  const each = words.some((word) => word.includes('{file}'));
  return (each ? paths : paths.slice(0, 1)).map((path) => runInvocation(spec, path));
};

/** The command as a person would type it. */
export const invocationText = (run: RunInvocation): string =>
  'shell' in run ? run.shell : run.argv.map(shellQuote).join(' ');

/** How a run ended. */
export interface RunOutcome {
  /** the exit code; 128 + n for a signal; 127 when the command cannot be found */
  code: number;
  signal?: string | undefined;
  /** stopped at the rule's timeout */
  timedOut?: boolean | undefined;
  /** why it could not start */
  error?: string | undefined;
  /** what it printed (stdout and stderr as they came), its end only */
  output: string;
}

export const passed = (r: RunOutcome): boolean => r.code === 0 && !r.timedOut && r.error === undefined;

/** Lines and characters of a failed command's output the agent is shown: its end, where the failure usually is. */
export const TAIL_LINES = 40;
export const TAIL_CHARS = 4000;

/** The last TAIL_LINES lines (at most TAIL_CHARS characters) of `output`, and how much was cut before them. */
export const tailOf = (output: string): { text: string; cutLines: number } => {
  const lines = output.trimEnd().split('\n');
  if (lines.length === 1 && lines[0] === '') return { text: '', cutLines: 0 };
  let kept = lines.slice(-TAIL_LINES);
  while (kept.length > 1 && kept.join('\n').length > TAIL_CHARS) kept = kept.slice(1);
  let text = kept.join('\n');
  if (text.length > TAIL_CHARS) text = `…${text.slice(-TAIL_CHARS)}`;
  return { text, cutLines: lines.length - kept.length };
};

/** How the run ended, in words: `exit 2`, `stopped after 60 s (its timeout)`, `could not start (...)`. */
export const endText = (r: RunOutcome, timeoutSeconds: number): string =>
  r.timedOut
    ? `did not finish within ${timeoutSeconds} s (the rule's timeoutSeconds) and was stopped`
    : r.error !== undefined
      ? `could not run (${r.error})`
      : r.signal
        ? `was killed by ${r.signal}`
        : `failed (exit ${r.code})`;

/**
 * What the agent (and the record of a staged write) reads of a failed run: the rule, the command, how it ended,
 * and the end of its output.
 */
export const failureText = (f: { rule: string; command: string; outcome: RunOutcome; timeoutSeconds: number }) => {
  const { text, cutLines } = tailOf(f.outcome.output);
  const head = `Policy rule ${f.rule} ran \`${f.command}\` on the files as this write would leave them, and it ${endText(f.outcome, f.timeoutSeconds)}.`;
  if (text === '') return `${head} It printed nothing.`;
  const cut = cutLines > 0 ? ` (its last lines; ${cutLines} before them not shown)` : '';
  return `${head} Its output${cut}:\n${text}`;
};
