// Part of case "bash": every other agent's shell, through `fettle hook --agent <name>` with the payloads each
// client sends (Codex CLI 0.169's `Bash`, Gemini CLI 0.61's `run_shell_command`, opencode's `bash` from fettle's
// plugin): a command the classifier scans and that changes nothing, its before then its after, against one
// `git status --porcelain` of the same work tree, alternating; the bound is Claude Code's Bash call's (<= 2.5).
import { baseEnv, CLI } from '../env.mjs';
import { fail, nextToolUseId } from '../hook-calls.mjs';
import { RUNS } from '../options.mjs';
import { log } from '../progress.mjs';
import { addCase, info } from '../results.mjs';
import { alternate, stats, timed } from '../timing.mjs';

const NO_OP = 'node -e 0';

/** Each agent's before and after payload of one command in `cwd`, as its client sends them. */
const PAYLOADS = {
  codex: (cwd, before, id) => ({
    session_id: 'bench-codex',
    turn_id: 'bench-turn',
    transcript_path: null,
    cwd,
    hook_event_name: before ? 'PreToolUse' : 'PostToolUse',
    model: 'gpt-5.5',
    permission_mode: 'bypassPermissions',
    tool_name: 'Bash',
    tool_input: { command: NO_OP },
    tool_use_id: id,
    ...(before ? {} : { tool_response: '' }),
  }),
  gemini: (cwd, before, id) => ({
    session_id: 'bench-gemini',
    transcript_path: '/dev/null',
    cwd,
    hook_event_name: before ? 'BeforeTool' : 'AfterTool',
    timestamp: '2026-01-01T00:00:00.000Z',
    tool_name: 'run_shell_command',
    // Gemini names no call: its input does, so each call's differs.
    tool_input: { command: NO_OP, description: id },
    ...(before ? {} : { tool_response: { llmContent: 'Output: (empty)', returnDisplay: '' } }),
  }),
  opencode: (cwd, before, id) => ({
    fettle_adapter: 'opencode',
    directory: cwd,
    permission: 'allow',
    event: before ? 'before' : 'after',
    tool: 'bash',
    session: 'ses_bench',
    call: id,
    args: { command: NO_OP, description: 'bench' },
  }),
};

const agentHook = (cwd, agent, input) =>
  timed(process.execPath, [CLI, 'hook', '--agent', agent], { cwd, env: baseEnv, input: JSON.stringify(input) });

/** Before then after of a no-op command: both must answer nothing. Returns their ms together. */
const noOpCall = (repo, agent) => {
  const id = nextToolUseId();
  const pre = agentHook(repo, agent, PAYLOADS[agent](repo, true, id));
  if (pre.code !== 0 || pre.stdout.trim() !== '') fail(`${agent} shell before`, pre);
  const post = agentHook(repo, agent, PAYLOADS[agent](repo, false, id));
  if (post.code !== 0 || post.stdout.trim() !== '') fail(`${agent} shell after reported a change`, post);
  return { pre: pre.ms, post: post.ms };
};

const gitStatus = (repo) => {
  const s = timed('git', ['status', '--porcelain'], { cwd: repo });
  if (s.code !== 0) fail('git status --porcelain', s);
  return s.ms;
};

/** One case per agent in `r` (a dirty fixture repository), labelled like Claude Code's: bash-<agent>-<size>. */
export const measureAgentShells = (r, size) => {
  for (const agent of Object.keys(PAYLOADS)) {
    const label = `bash-${agent}-${size}`;
    log(`case ${label}: a no-op ${agent} shell call (before + after) in the ${r.files}-file repo vs git status`);
    const pre = [];
    const [call, status] = alternate(RUNS, [
      (i) => {
        const t = noOpCall(r.repo, agent);
        if (i >= 0) pre.push(t.pre);
        return t.pre + t.post;
      },
      () => gitStatus(r.repo),
    ]);
    const f = stats(call);
    const b = stats(status);
    addCase({
      id: label,
      name: `no-op ${agent} shell call, before + after, ${r.files.toLocaleString('en-US')} files ÷ one git status --porcelain`,
      fettle: f,
      baseline: b,
      ratio: f.median / b.median,
      target: { op: '<=', value: 2.5 },
    });
    info.push({ id: `${label}-pre`, name: `case ${label}: the before hook alone (the blocking part)`, ...stats(pre) });
  }
};
