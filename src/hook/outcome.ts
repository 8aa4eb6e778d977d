// Every way the hook can end, and the exit code Claude Code gives it (its hooks reference, "Exit code output").
// 0 with JSON decides; 0 without output lets the call continue through Claude Code's own permission flow;
// 2 blocks the call and shows stderr to the model; 1 is a non-blocking error: the call proceeds and the user
// sees "hook error" with our first stderr line. fettle never answers `allow`.

export interface HookOutcome {
  exitCode: 0 | 1 | 2;
  stdout?: string;
  stderr?: string;
  /** the write must not happen (deny, ask): if stdout cannot carry that, the process blocks instead */
  stops?: boolean;
}

export const HOOK_EXIT = { pass: 0, warn: 1, block: 2 } as const;

/** No opinion: Claude Code continues exactly as if fettle were not installed. */
export const pass = (): HookOutcome => ({ exitCode: HOOK_EXIT.pass });

/** A note for the model next to the tool result; no permission decision. `user`: a warning shown to the person too. */
export const context = (
  event: 'PreToolUse' | 'PostToolUse' | 'PostToolUseFailure',
  text: string,
  user?: string,
): HookOutcome => ({
  exitCode: HOOK_EXIT.pass,
  stdout: JSON.stringify({
    ...(user ? { systemMessage: user } : {}),
    hookSpecificOutput: { hookEventName: event, additionalContext: text },
  }),
});

/** The tool does not run; the model reads `reason` as the tool's error. */
export const deny = (reason: string): HookOutcome => ({
  exitCode: HOOK_EXIT.pass,
  stops: true,
  stdout: JSON.stringify({
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason },
  }),
});

/** fettle could not do its job and stops the write so nothing is lost. */
export const block = (message: string): HookOutcome => ({ exitCode: HOOK_EXIT.block, stderr: `${message}\n` });

/** fettle could not do its job and says so; the write proceeds unprotected. */
export const warn = (message: string): HookOutcome => ({ exitCode: HOOK_EXIT.warn, stderr: `${message}\n` });

/** Human review mode: Claude Code shows `reason` to the user in its permission prompt. */
export const ask = (reason: string): HookOutcome => ({
  exitCode: HOOK_EXIT.pass,
  stops: true,
  stdout: JSON.stringify({
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: reason },
  }),
});

/** An outcome stored as JSON for a tool call answered before (protocol/record/call-answers.ts); null if it is not one. */
export const replayed = (text: string): HookOutcome | null => {
  try {
    const o = JSON.parse(text) as Partial<HookOutcome>;
    if (o.exitCode !== 0 && o.exitCode !== 1 && o.exitCode !== 2) return null;
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const out: HookOutcome = { exitCode: o.exitCode };
    if (str(o.stdout)) out.stdout = str(o.stdout);
    if (str(o.stderr)) out.stderr = str(o.stderr);
    if (o.stops === true) out.stops = true;
    return out;
  } catch {
    return null;
  }
};
