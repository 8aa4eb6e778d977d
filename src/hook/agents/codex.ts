// Codex CLI's hooks (hooks.json, the same shape as Claude Code's settings): its file writes arrive as one tool,
// `apply_patch`, whose `tool_input.command` is a patch of any number of files. The patch is parsed and applied to the
// files' bytes exactly as Codex does (core/codex-patch.ts) and decided as a whole (protocol/write/write-set.ts). Codex
// renders a deny as "Command blocked by PreToolUse hook: <reason>. Command: <the patch>"; a PostToolUse's
// additionalContext reaches the model. UserPromptSubmit counts turns (its prompt kept, as Claude Code's); Stop ends a
// turn whose tool calls are all over, so every open record of the session is settled there. Its shell tools
// (exec_command, and shell or shell_command for other models) reach the hooks as `Bash` with the command line in
// `tool_input.command` and the command's directory as `cwd`, as Claude Code's Bash does: recorded by the same snapshot
// and comparison (hook/bash.ts). Codex says nothing of a command's exit in PostToolUse; a command still running when
// the call returns (a long one Codex keeps in the background) is recorded at Stop.
import { applyPatch, touchedPaths } from '../../core/codex-patch';
import { type Hunk, parsePatch } from '../../core/codex-patch-parse';
import { renderHeldPatch } from '../../core/agent-messages';
import { renderDirect } from '../../core/direct-note';
import {
  renderBlocked,
  renderNoop,
  renderRunBlocked,
  renderSetWritten,
  renderUnstageable,
  summarize,
} from '../../core/messages';
import { invocationFor, selfCommand } from '../../io/self';
import type { Context, Origin } from '../../protocol/context';
import { beforeWriteSet, type SetBlocked } from '../../protocol/write/write-set';
import { afterWriteSet } from '../../protocol/write/write-set-after';
import type { SetStaged } from '../../protocol/write/write-set-record';
import type { HookEdge } from '../edge';
import { settleSession } from '../end';
import { isOutcome, writeContext, writeFailure } from '../failure';
import { context, deny, pass, replayed, warn, type HookOutcome } from '../outcome';
import { commandProblem, str, type Obj } from '../payload';
import { isObj } from '../../core/json';
import { countTurn } from '../turn';
import { runShell } from '../bash';
import { diffOfSet } from './set-diff';
import { shownTarget } from '../../core/shown-path';

/** The tool that writes files in Codex, and the events fettle registers for it. */
export const CODEX_WRITE_TOOL = 'apply_patch';
/** The name Codex gives its hooks for every shell tool. */
export const CODEX_SHELL_TOOL = 'Bash';

const runCodexShell = (data: Obj, edge: HookEdge): Promise<HookOutcome> => {
  const command = isObj(data.tool_input) ? data.tool_input.command : undefined;
  const problem = commandProblem(command);
  if (problem !== undefined || typeof command !== 'string')
    return Promise.resolve(warn(`fettle: ${problem}; this command was not protected by fettle.`));
  const call = {
    command,
    cwd: str(data.cwd) ?? edge.cwd,
    session: str(data.session_id),
    toolUse: str(data.tool_use_id),
    agent: 'codex',
  };
  const phase = data.hook_event_name === 'PreToolUse' ? ('before' as const) : ('after' as const);
  return runShell({ phase, call }, edge, (line, user) => context('PostToolUse', line, user));
};

export const runCodex = async (data: Obj, edge: HookEdge): Promise<HookOutcome> => {
  const event = data.hook_event_name;
  const session = str(data.session_id);
  if (event === 'UserPromptSubmit') return countTurn({ session, prompt: str(data.prompt) }, edge);
  if (event === 'Stop') {
    const end = { event: 'Stop' as const, session, cwd: str(data.cwd), transcript: undefined, callsOver: true };
    return settleSession(end, edge);
  }
  if (event !== 'PreToolUse' && event !== 'PostToolUse') return pass();
  if (data.tool_name === CODEX_SHELL_TOOL) return runCodexShell(data, edge);
  if (data.tool_name !== CODEX_WRITE_TOOL) return pass();
  // Plan mode writes nothing.
  if (event === 'PreToolUse' && data.permission_mode === 'plan') return pass();
  const input = isObj(data.tool_input) ? data.tool_input : {};
  const patch = str(input.command) ?? str(input.input);
  if (patch === undefined)
    return warn(
      'fettle: Codex sent apply_patch without tool_input.command; this tool call was not protected by fettle.',
    );
  const parsed = parsePatch(patch);
  // A patch Codex cannot parse fails in Codex, which says why; nothing to protect.
  if (!parsed.ok) return pass();
  const paths = touchedPaths(parsed.hunks);
  const ctx = writeContext(edge, str(data.cwd), event === 'PreToolUse');
  if (isOutcome(ctx)) return ctx;
  const origin: Origin = { session, toolUse: str(data.tool_use_id), tool: CODEX_WRITE_TOOL, agent: 'codex' };
  try {
    return event === 'PreToolUse'
      ? await before(ctx, edge, parsed.hunks, patch, origin)
      : await after(ctx, edge, paths, patch, origin);
  } catch (error) {
    return writeFailure(error, ctx, event === 'PreToolUse' ? 'before' : 'after', paths.join(', '));
  }
};

const before = async (ctx: Context, edge: HookEdge, hunks: Hunk[], patch: string, origin: Origin) => {
  const decided = await beforeWriteSet(ctx, {
    paths: touchedPaths(hunks),
    input: patch,
    effect: (read) => applyPatch(hunks, read),
    origin,
    // Codex's permission_mode says only whether it ever asks ("bypassPermissions" when it never does); it writes a
    // patch inside the workspace without asking either way, so a large patch goes to the model to confirm.
    mode: undefined,
  });
  if (decided.kind === 'replay') return replayed(decided.answer) ?? pass();
  if (decided.kind === 'duplicate') return pass();
  const outcome =
    decided.kind === 'staged'
      ? deny(await heldText(ctx, edge, decided))
      : decided.kind === 'blocked'
        ? deny(blockedText(decided))
        : decided.kind === 'noop'
          ? context('PreToolUse', renderNoop(touchedPaths(hunks).join(', ')))
          : pass();
  await decided.remember?.(JSON.stringify(outcome)).catch(() => undefined);
  return outcome;
};

/** A block rule's refusal, or a run rule's failed command; Codex appends ". Command: <the patch>" to either. */
const blockedText = (b: SetBlocked): string => {
  const { path, ruleText: rule } = b;
  if (b.unsure !== undefined) {
    const instead = 'Send a patch that names each file once, its chunks in the order they come in the file';
    return renderUnstageable({ path, rule, why: b.unsure, tool: 'apply_patch', runs: true, instead });
  }
  if (b.check === undefined) return renderBlocked({ path, rule, message: b.message, tool: 'apply_patch' });
  return renderRunBlocked({ path, check: b.check, message: b.message }).replace(/\.$/, '');
};

const heldText = async (ctx: Context, edge: HookEdge, s: SetStaged): Promise<string> => {
  const [first] = s.files;
  const invoke = invocationFor(
    selfCommand(ctx.env, edge.script),
    ctx.cwd,
    s.store,
    first?.file.target.realPath ?? ctx.cwd,
  );
  return renderHeldPatch({
    changeset: s.changeset,
    files: s.files.map(({ id, file }) => ({
      id,
      path: shownTarget(file.target),
      summary:
        file.decision.tier === 'noop'
          ? ''
          : summarize(file.decision.reason, file.decision.added, file.decision.removed),
    })),
    decision: s.decision,
    alone: s.alone,
    thresholds: ctx.config,
    diff: diffOfSet(s.files.map((f) => f.file)),
    invoke,
    ttlSeconds: ctx.config.ttlSeconds,
    person: s.review === 'person',
    check: s.check,
  });
};

const after = async (ctx: Context, edge: HookEdge, paths: string[], patch: string, origin: Origin) => {
  const recorded = await afterWriteSet(ctx, paths, patch, origin);
  if (recorded.kind === 'none') return pass();
  const [only] = recorded.files;
  const invoke = invocationFor(selfCommand(ctx.env, edge.script), ctx.cwd, recorded.store, only?.file ?? ctx.cwd);
  const rows = recorded.files.map((f) => ({
    id: f.id,
    path: f.path,
    summary: summarize(f.fields.reason, f.fields.added, f.fields.removed),
    large: false,
  }));
  const changeset = only?.fields.changeset;
  const text =
    recorded.files.length === 1 && only
      ? renderDirect({ id: only.id, path: only.path, fields: only.fields, shape: only.shape, invoke })
      : renderSetWritten({ changeset: changeset ?? '', files: rows, invoke });
  return context('PostToolUse', text);
};
