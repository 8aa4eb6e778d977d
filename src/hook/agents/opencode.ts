// The opencode adapter: fettle's opencode plugin (plugins/opencode/fettle.mjs) hands each of opencode's
// `tool.execute.before` / `after` events for its file tools, and the end of each turn, to `fettle hook --agent
// opencode` as one JSON object marked `"fettle_adapter": "opencode"`. The protocol underneath is the hook's (protocol/write/before.ts):
// the previous bytes recorded before the tool writes, a large change staged and the tool stopped, what landed
// recorded after. Its answers, on stdout: `{"block": text}` (the plugin throws it: opencode shows the model the
// text as the tool's error, and the tool does not run), `{"note": text}` (added to the tool's output), or nothing.
// Its `bash` tool and the turns of a session: opencode-shell.ts.
import { resolve } from 'node:path';
import { clockFrom, loadConfig } from '../../config';
import { renderDirect } from '../../core/direct-note';
import { renderStaged, sizeText } from '../../core/messages';
import { ruledText } from '../ruled';
import { opencodeEdit, opencodeWrite, patchedFiles, type Predicted } from '../../core/opencode-tools';
import type { WriteCall } from '../../core/tool-call';
import { toFettleError } from '../../errors';
import { invocationFor, selfCommand } from '../../io/self';
import type { DiskFile } from '../../io/atomic-write';
import type { Context, Origin } from '../../protocol/context';
import { settleSessionRecords } from '../../protocol/history/settle-session';
import { afterWrite } from '../../protocol/write/after';
import { type Decided, beforeWrite } from '../../protocol/write/before';
import type { HookEdge } from '../edge';
import { block, pass, replayed, warn, type HookOutcome } from '../outcome';
import { takeNote } from '../feedback';
import { shownTarget } from '../../core/shown-path';
import { countOpencodeTurn, OPENCODE_SHELL_TOOL, runOpencodeShell } from './opencode-shell';

type Obj = Record<string, unknown>;

/** One file the tool call writes, as the protocol takes it. */
interface FileCall {
  call: WriteCall;
  toolUse: string;
  predict: (old: DiskFile | null) => Predicted;
}

interface Event {
  event: 'before' | 'after' | 'idle';
  tool: string;
  session: string | undefined;
  call: string;
  directory: string;
  /** opencode's `permission.edit`, as the plugin read it from the merged config */
  permission: string;
  args: Obj;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const parse = (data: Obj): Event | string => {
  const event = data.event;
  if (event !== 'before' && event !== 'after' && event !== 'idle') return `unknown opencode event ${String(event)}`;
  const directory = str(data.directory);
  if (!directory) return 'the opencode plugin sent no directory';
  const args = typeof data.args === 'object' && data.args !== null ? (data.args as Obj) : {};
  return {
    event,
    tool: str(data.tool) ?? '',
    session: str(data.session),
    call: str(data.call) ?? '',
    directory,
    permission: str(data.permission) ?? 'ask',
    args,
  };
};

const UNSURE_PATCH = (): Predicted => ({
  exact: false,
  why: "apply_patch's result is not predicted: the previous bytes are recorded, and what lands after",
});

/** The files a tool call writes: `write` and `edit` one, `apply_patch` those its patch names; others none. */
const filesOf = (e: Event): FileCall[] | string => {
  const file = str(e.args.filePath);
  if (e.tool === 'write' || e.tool === 'edit') {
    if (!file) return `opencode's ${e.tool} came without a filePath`;
    const filePath = resolve(e.directory, file);
    if (e.tool === 'write') {
      const content = str(e.args.content);
      if (content === undefined) return "opencode's write came without content";
      return [
        {
          call: { tool: 'Write', filePath, content },
          toolUse: e.call,
          predict: (old) => ({ exact: true, next: opencodeWrite(content, old?.bytes ?? null) }),
        },
      ];
    }
    const op = {
      oldString: str(e.args.oldString),
      newString: str(e.args.newString),
      replaceAll: e.args.replaceAll === true,
    };
    if (op.oldString === undefined || op.newString === undefined)
      return "opencode's edit came without oldString and newString";
    const edit = { ...op, oldString: op.oldString, newString: op.newString };
    return [
      {
        call: { tool: 'Edit', filePath, edits: [edit] },
        toolUse: e.call,
        predict: (old) => opencodeEdit(edit, old?.bytes ?? null),
      },
    ];
  }
  if (e.tool === 'apply_patch') {
    const patch = str(e.args.patchText) ?? '';
    return patchedFiles(patch).map((path, n) => ({
      call: { tool: 'Edit', filePath: resolve(e.directory, path), edits: [] },
      toolUse: `${e.call}#${n}`,
      predict: UNSURE_PATCH,
    }));
  }
  return [];
};

/**
 * opencode asks its own permission inside the tool, after this hook: with `edit: allow` nobody is asked, so a
 * large change is staged for the model to confirm (or, under FETTLE_REVIEW=human, refused: nobody could review it);
 * with anything else opencode asks the person, who then decides on the write (Claude Code's `default` mode).
 */
const modeOf = (ctx: Context, permission: string): string | undefined =>
  permission !== 'allow' ? 'default' : ctx.config.review === 'human' ? 'dontAsk' : undefined;

const answer = (o: { block?: string; note?: string }): HookOutcome => ({
  exitCode: 0,
  stdout: JSON.stringify(o),
  ...(o.block ? { stops: true } : {}),
});

const before = async (ctx: Context, e: Event, f: FileCall, edge: HookEdge): Promise<HookOutcome> => {
  const origin: Origin = { session: e.session, toolUse: f.toolUse, tool: e.tool, agent: 'opencode' };
  const w = { call: f.call, origin, mode: modeOf(ctx, e.permission), inProject: true, predict: f.predict };
  const decided = await beforeWrite(ctx, w);
  // Answered before (the plugin installed for the user and for the project): the same answer, nothing again.
  if (decided.kind === 'replay') return replayed(decided.answer) ?? pass();
  if (decided.kind === 'duplicate') return pass();
  const outcome = beforeAnswer(ctx, e, decided, edge);
  await decided.remember?.(JSON.stringify(outcome)).catch(() => undefined);
  return outcome;
};

const beforeAnswer = (ctx: Context, e: Event, decided: Decided, edge: HookEdge): HookOutcome => {
  switch (decided.kind) {
    case 'pass':
    case 'noop': // the same bytes: nothing to record, and the tool may run
    case 'ignored': // a policy rule leaves this path to the tool: nothing recorded
      return pass();
    case 'blocked':
    case 'unstageable':
      return answer({ block: ruledText(decided, e.tool) });
    case 'refused': {
      const { counts, why } = sizeText(decided.decision, decided.thresholds, decided.rule);
      return answer({
        block: `fettle refused this ${e.tool}: nothing was written to ${shownTarget(decided.target)} and nothing was staged. It is a large change (${counts}; ${why}); FETTLE_REVIEW=human asks a person to approve every large change, and opencode is set to write edits without asking anyone (permission "edit": "allow"). Make it as smaller edits, or tell the user to set opencode's edit permission to "ask".`,
      });
    }
  }
  // A person answers opencode's own prompt; if they allow it, the tool writes and the after step marks it applied.
  if (decided.review === 'person') return pass();
  const { id, target, decision, diff, supersedes, thresholds, rule, check } = decided;
  const invoke = invocationFor(selfCommand(ctx.env, edge.script), e.directory, target.store, target.realPath);
  const ttlSeconds = ctx.config.ttlSeconds;
  const path = shownTarget(target);
  const message = { id, path, decision, diff, invoke, ttlSeconds, thresholds, rule, supersedes, check };
  return answer({ block: renderStaged({ ...message, tool: e.tool }) });
};

const after = async (ctx: Context, e: Event, f: FileCall, edge: HookEdge): Promise<string | undefined> => {
  const origin: Origin = { session: e.session, toolUse: f.toolUse, tool: e.tool, agent: 'opencode' };
  const done = await afterWrite(ctx, f.call, origin);
  if (done.kind === 'none') return undefined;
  const invoke = invocationFor(selfCommand(ctx.env, edge.script), e.directory, done.target.store, done.target.realPath);
  const { id, fields, shape, since } = done;
  return renderDirect({ id, path: shownTarget(done.target), fields, shape, invoke, since });
};

export const runOpencode = async (data: Obj, edge: HookEdge): Promise<HookOutcome> => {
  if (data.event === 'prompt') return countOpencodeTurn(data, edge);
  const e = parse(data);
  if (typeof e === 'string') return warn(`fettle: ${e}. This tool call was not protected by fettle.`);
  if (e.tool === OPENCODE_SHELL_TOOL && e.event !== 'idle') return runOpencodeShell({ ...e, event: e.event }, edge);
  return runFileTool(e, edge);
};

/** A file tool's event, or the end of a turn. */
const runFileTool = async (e: Event, edge: HookEdge): Promise<HookOutcome> => {
  let ctx: Context;
  try {
    ctx = { cwd: e.directory, env: edge.env, now: clockFrom(edge.env), config: loadConfig(edge.env) };
  } catch (error) {
    const why = toFettleError(error).message;
    return e.event === 'before'
      ? block(`fettle blocked this write because its configuration is invalid; nothing was written. ${why}`)
      : warn(`fettle: ${why}`);
  }
  try {
    if (e.event === 'idle') {
      // The turn is over: records whose tool never wrote (refused, failed, denied at opencode's prompt) are settled.
      if (e.session)
        await settleSessionRecords(ctx, { session: e.session, event: 'SessionEnd', transcript: undefined });
      return pass();
    }
    const files = filesOf(e);
    if (typeof files === 'string') return warn(`fettle: ${files}. This tool call was not protected by fettle.`);
    if (e.event === 'after') {
      const notes: string[] = [];
      for (const f of files) {
        const note = await after(ctx, e, f, edge);
        if (note) notes.push(note);
      }
      // A person's feedback on this session's changes comes with the tool's result (hook/feedback.ts).
      const feedback = await takeNote(e.session, edge);
      if (feedback) notes.push(feedback.text);
      const out = notes.length > 0 ? answer({ note: notes.join('\n') }) : pass();
      await feedback?.release();
      return out;
    }
    for (const f of files) {
      const outcome = await before(ctx, e, f, edge);
      if (outcome.stdout) return outcome;
    }
    return pass();
  } catch (error) {
    const err = toFettleError(error);
    if (err.code === 'E_FORBIDDEN_PATH') return pass();
    const detail = `${err.message}${err.hint ? ` ${err.hint}` : ''}`;
    if (e.event !== 'before') return warn(`fettle: recording the result of this ${e.tool} failed: ${detail}`);
    // A policy that cannot be read decides nothing: blocked until it is fixed, or let through unrecorded.
    if (err.code === 'E_POLICY')
      return ctx.config.onError === 'allow'
        ? warn(`fettle: ${detail} This ${e.tool} is NOT protected (FETTLE_ON_ERROR=allow): nothing was recorded.`)
        : block(
            `fettle blocked this ${e.tool} because a policy file is invalid; nothing was written. ${detail} To let writes through unprotected until it is fixed, set FETTLE_ON_ERROR=allow.`,
          );
    if (ctx.config.onError === 'allow')
      return warn(
        `fettle could not save the previous content, so this ${e.tool} is NOT protected (FETTLE_ON_ERROR=allow): ${detail}`,
      );
    return block(
      `fettle blocked this ${e.tool} because it could not save the previous content first; nothing was written. Cause: ${detail} To let writes through unprotected until this is fixed, set FETTLE_ON_ERROR=allow.`,
    );
  }
};
