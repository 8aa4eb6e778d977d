// Hook calls as Claude Code makes them: payloads, one `fettle hook` process per event, and checks of its answers.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, CLI } from './env.mjs';
import { PROCESS_TIMEOUT_MS, ROOT } from './options.mjs';
import { timed } from './timing.mjs';

/** Which Write hook events Claude Code waits for, from the plugin's hooks/hooks.json (async hooks do not block). */
export const hookPlan = (() => {
  const plan = {
    PreToolUse: { registered: true, blocking: true },
    PostToolUse: { registered: true, blocking: true },
    source: 'default (hooks/hooks.json not readable)',
  };
  try {
    const config = JSON.parse(readFileSync(join(ROOT, 'hooks', 'hooks.json'), 'utf8'));
    for (const event of ['PreToolUse', 'PostToolUse']) {
      const groups = (config.hooks?.[event] ?? []).filter((g) => {
        if (!g.matcher || g.matcher === '*') return true;
        try {
          return new RegExp(`^(?:${g.matcher})$`).test('Write');
        } catch {
          return g.matcher === 'Write';
        }
      });
      const hooks = groups.flatMap((g) => g.hooks ?? []).filter((h) => h.type === 'command');
      plan[event] = { registered: hooks.length > 0, blocking: hooks.some((h) => !h.async && !h.asyncRewake) };
    }
    plan.source = 'hooks/hooks.json';
  } catch {
    // keep the default: both events registered and blocking
  }
  return plan;
})();

export const blockingDirect =
  Number(hookPlan.PreToolUse.blocking) + Number(hookPlan.PostToolUse.registered && hookPlan.PostToolUse.blocking);
/** e.g. "Pre + Post", or "Pre" when PostToolUse runs async */
export const blockingLabel =
  ['PreToolUse', 'PostToolUse']
    .filter((e) => hookPlan[e].registered && hookPlan[e].blocking)
    .map((e) => e.replace('ToolUse', ''))
    .join(' + ') || 'none blocking';

/** A PreToolUse for a tool fettle does not handle (Glob): the hook's start, bundle and stdin, no git. */
export const ignoredPayload = (cwd) =>
  JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Glob', tool_input: { pattern: '*.txt' }, cwd });

let toolUseCounter = 0;
export const nextToolUseId = () => `toolu_bench_${++toolUseCounter}`;
export const payload = (cwd, event, file, content, toolUseId) =>
  JSON.stringify({
    session_id: 'bench-session',
    transcript_path: '/dev/null',
    cwd,
    permission_mode: 'acceptEdits', // the model reviews staged changes (default mode asks a person)
    hook_event_name: event,
    tool_name: 'Write',
    tool_input: { file_path: file, content },
    tool_use_id: toolUseId,
  });

export const hookOnce = (cwd, input, env = baseEnv, timeout = PROCESS_TIMEOUT_MS, cli = CLI) => {
  const r = timed(process.execPath, [cli, 'hook'], { cwd, env, input, timeout });
  let json;
  try {
    json = r.stdout.trim() ? JSON.parse(r.stdout) : undefined;
  } catch {
    json = undefined;
  }
  return { ...r, json, denied: json?.hookSpecificOutput?.permissionDecision === 'deny' };
};

export const fail = (what, r) => {
  throw new Error(
    `${what}: exit ${r.code}${r.signal ? ` (${r.signal})` : ''}${r.timedOut ? ' (timed out)' : ''}\nstdout: ${r.stdout.slice(0, 2000)}\nstderr: ${r.stderr.slice(0, 2000)}`,
  );
};

/**
 * One direct Write as Claude Code runs it: PreToolUse (must let it through), the tool writes the file,
 * PostToolUse. Returns the time of the blocking hook processes only (not our own write).
 */
export const directWrite = (repo, file, content, env = baseEnv, cli = CLI) => {
  const id = nextToolUseId();
  let blocking = 0;
  const times = {};
  if (hookPlan.PreToolUse.registered) {
    const pre = hookOnce(repo, payload(repo, 'PreToolUse', file, content, id), env, PROCESS_TIMEOUT_MS, cli);
    if (pre.code !== 0 || pre.denied || pre.stdout.trim() !== '')
      fail(`direct PreToolUse on ${file} did not pass silently`, pre);
    times.pre = pre.ms;
    if (hookPlan.PreToolUse.blocking) blocking += pre.ms;
  }
  writeFileSync(file, content);
  if (hookPlan.PostToolUse.registered) {
    const post = hookOnce(repo, payload(repo, 'PostToolUse', file, content, id), env, PROCESS_TIMEOUT_MS, cli);
    if (post.code !== 0 || !post.json?.hookSpecificOutput?.additionalContext)
      fail(`direct PostToolUse on ${file} did not report the write`, post);
    times.post = post.ms;
    if (hookPlan.PostToolUse.blocking) blocking += post.ms;
  }
  return { ms: blocking, ...times };
};

/** One staged Write: PreToolUse denies it (nothing is written, no PostToolUse follows). */
export const stagedWrite = (repo, file, content, env = baseEnv, timeout = PROCESS_TIMEOUT_MS) => {
  const id = nextToolUseId();
  const pre = hookOnce(repo, payload(repo, 'PreToolUse', file, content, id), env, timeout);
  return pre;
};
export const stagedOk = (repo, file, content, env) => {
  const pre = stagedWrite(repo, file, content, env);
  if (pre.code !== 0 || !pre.denied) fail(`staged PreToolUse on ${file} did not deny`, pre);
  return pre.ms;
};
