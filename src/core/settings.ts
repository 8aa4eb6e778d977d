// Claude Code settings, edited as data. Pure: the command reads and writes the file. Every key and hook
// fettle did not put there is kept, in order; fettle's own handlers are recognised by their status message
// or command, so install is idempotent and uninstall takes out exactly what install put in.

import { WRITE_TOOLS } from './tool-call';
import { isObj, type Json, type JsonObject } from './json';

/** PostToolUseFailure settles the record of a write whose tool failed (src/protocol/write/failed-write.ts). */
export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure'] as const;
/**
 * The end of a turn and of a session: the session's records whose PostToolUse never came are settled
 * (src/protocol/record/settle.ts). Registered without a matcher and not in the background: `claude -p` cancels
 * background hooks when it exits, and Stop runs before it does.
 */
export const SESSION_EVENTS = ['Stop', 'SessionEnd'] as const;
/**
 * A user prompt starts a turn: the session's turn count goes up (src/protocol/turns.ts), so `rollback --turn`
 * can undo what the agent did since a prompt. Blocking (a write of the new turn must see it), and cheap: a
 * small file, no git.
 */
export const TURN_EVENTS = ['UserPromptSubmit'] as const;
/** Events registered without a matcher: they are not about a tool. */
export const UNMATCHED_EVENTS = [...SESSION_EVENTS, ...TURN_EVENTS] as const;
/** Every event install registers, in the order it adds them. */
export const INSTALLED_EVENTS = [...HOOK_EVENTS, ...SESSION_EVENTS, ...TURN_EVENTS] as const;
/** The write tools (MultiEdit is legacy; keeping it in a matcher is harmless). */
export const MATCHER = WRITE_TOOLS.join('|');
/**
 * Bash commands: before (a snapshot of what they could change) and after (what they changed, recorded), on the
 * same three events as writes. Registered unless `fettle install --no-bash`.
 */
export const BASH_MATCHER = 'Bash';
/** Registered only with `fettle install --read`: a hook on every Read costs start-up on the most frequent tool. */
export const READ_MATCHER = 'Read';
/** The events of the Read group: before (a large file served, a re-read answered), after (what it returned kept). */
export const READ_EVENTS = ['PreToolUse', 'PostToolUse'] as const;
/**
 * With `--read`: before the client compacts the conversation (PreCompact, no matcher), and when a session starts
 * on a conversation the model no longer holds the reads of (SessionStart after `/clear` or a compaction, its
 * `source`), what the session was given is forgotten, so its next reads go to the tool. A resumed session keeps
 * them: the client restores the conversation, tool results included (docs/HOOK.md, "Re-reads").
 */
export const COMPACT_EVENTS = ['PreCompact', 'SessionStart'] as const;
/** The SessionStart sources after which the model no longer holds what the session read. */
export const FORGET_SOURCES = ['clear', 'compact'] as const;
export const forgetsReads = (source: unknown): boolean => FORGET_SOURCES.some((s) => s === source);
export const STATUS_MESSAGE = 'fettle: keeping the previous version';

export const isFettleHandler = (h: Json): boolean =>
  isObj(h) &&
  (h.statusMessage === STATUS_MESSAGE ||
    h.description === STATUS_MESSAGE ||
    (typeof h.command === 'string' &&
      (/(^|[\s'"/])fettle(['"]?|\/dist\/cli\.js['"]?)\s+hook(\s+--agent\s+[a-z]+)?\s*$/.test(h.command) ||
        // Cursor's handlers carry nothing but the command: fettle's own hook subcommand with an agent names it.
        /cli\.js['"]?\s+hook\s+--agent\s+(claude|codex|gemini|cursor)\s*$/.test(h.command))) ||
    (h.type === 'http' && typeof h.url === 'string' && /^http:\/\/127\.0\.0\.1:\d+\/fettle\/hook\//.test(h.url)));

/**
 * Another agent's hooks in the same shape as Claude Code's (Codex CLI's hooks.json, Gemini CLI's settings.json):
 * each event fettle registers, its matcher (none: every call of the event) and the handler object.
 */
export interface HooksSpec {
  events: { event: string; matcher?: string | undefined }[];
  handler: (command: string) => JsonObject;
}

export class SettingsShapeError extends Error {}

export interface FettleHandler {
  event: string;
  matcher: string;
  command: string;
  async: boolean;
}

/** fettle's handlers in settings, by event and matcher (what `fettle doctor` reports). */
export const fettleHandlers = (settings: JsonObject): FettleHandler[] => {
  const hooks = isObj(settings.hooks) ? settings.hooks : {};
  const found: FettleHandler[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    for (const group of Array.isArray(groups) ? groups : []) {
      if (!isObj(group) || !Array.isArray(group.hooks)) continue;
      for (const h of group.hooks) {
        if (!isFettleHandler(h) || !isObj(h)) continue;
        found.push({
          event,
          matcher: typeof group.matcher === 'string' ? group.matcher : '',
          command: typeof h.command === 'string' ? h.command : '',
          async: h.async === true,
        });
      }
    }
  }
  return found;
};

const hooksOf = (settings: JsonObject): JsonObject | undefined => {
  const hooks = settings.hooks;
  if (hooks === undefined) return undefined;
  if (!isObj(hooks)) throw new SettingsShapeError('"hooks" is not an object');
  return hooks;
};

/**
 * Settings without any fettle handler. Only what fettle's removal empties is pruned (a group, an event, the
 * `hooks` key); settings without a fettle handler come back as the very same object.
 */
export const removeFettleHooks = (settings: JsonObject): JsonObject => {
  const hooks = hooksOf(settings);
  if (!hooks) return settings;
  let touched = false;
  const nextHooks: JsonObject = {};
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) {
      nextHooks[event] = groups;
      continue;
    }
    let removedHere = false;
    const kept: Json[] = [];
    for (const group of groups) {
      const handlers =
        isObj(group) && Array.isArray(group.hooks) ? group.hooks.filter((h) => !isFettleHandler(h)) : null;
      if (!handlers || !isObj(group) || handlers.length === (group.hooks as Json[]).length) kept.push(group);
      else {
        removedHere = true;
        if (handlers.length > 0) kept.push({ ...group, hooks: handlers });
      }
    }
    touched ||= removedHere;
    if (kept.length > 0 || !removedHere) nextHooks[event] = kept;
  }
  if (!touched) return settings;
  const next: JsonObject = {};
  for (const [key, value] of Object.entries(settings)) {
    if (key !== 'hooks') next[key] = value;
    else if (Object.keys(nextHooks).length > 0) next[key] = nextHooks;
  }
  return next;
};

/** fettle's groups for each event, when not the command hooks' (resident mode: core/resident-settings.ts). */
export interface CustomHooks {
  events: readonly string[];
  groups: (event: string) => Json[];
}

export const addFettleHooks = (
  settings: JsonObject,
  command: string,
  options: { read?: boolean; bash?: boolean; custom?: CustomHooks | undefined } = {},
  spec?: HooksSpec,
): JsonObject => {
  const current = hooksOf(settings) ?? {};
  const handler = (): JsonObject => ({ type: 'command', command, timeout: 60, statusMessage: STATUS_MESSAGE });
  // PostToolUse only records what landed (the previous bytes are safe since PreToolUse), PostToolUseFailure
  // only settles a record: both run in the background, so a write waits for one fettle process. PostToolUse's
  // note reaches the model next turn.
  const background = (): JsonObject => ({ ...handler(), async: true });
  const hooks: JsonObject = { ...(hooksOf(removeFettleHooks(settings)) ?? {}) };
  const claude = (event: string): Json[] => {
    if (event === 'SessionStart') return [{ matcher: FORGET_SOURCES.join('|'), hooks: [handler()] }];
    const groups: Json[] = [...UNMATCHED_EVENTS, ...COMPACT_EVENTS].some((e) => e === event)
      ? [{ hooks: [handler()] }]
      : [{ matcher: MATCHER, hooks: [event === 'PreToolUse' ? handler() : background()] }];
    if (options.bash !== false && HOOK_EVENTS.some((e) => e === event))
      groups.push({ matcher: BASH_MATCHER, hooks: [event === 'PreToolUse' ? handler() : background()] });
    // Both block: the PostToolUse keeps what the Read returned before the model can read the file again.
    if (options.read && READ_EVENTS.some((e) => e === event))
      groups.push({ matcher: READ_MATCHER, hooks: [handler()] });
    return groups;
  };
  const events =
    options.custom?.events ??
    (spec
      ? [...new Set(spec.events.map((e) => e.event))]
      : [...INSTALLED_EVENTS, ...(options.read ? COMPACT_EVENTS : [])]);
  for (const event of events) {
    const before = current[event];
    if (before !== undefined && !Array.isArray(before))
      throw new SettingsShapeError(`"hooks.${event}" is not an array`);
    const theirs = spec?.events.filter((e) => e.event === event) ?? [];
    const ours: Json[] = options.custom
      ? options.custom.groups(event)
      : spec
        ? theirs.map((t) => ({
            ...(t.matcher === undefined ? {} : { matcher: t.matcher }),
            hooks: [spec.handler(command)],
          }))
        : claude(event);
    // Re-installing keeps fettle's groups where they were, so an unchanged install leaves the file unchanged.
    // Every group before the first one holding a fettle handler is foreign and kept, so `at` is still valid.
    const at = (before ?? []).findIndex((g) => isObj(g) && Array.isArray(g.hooks) && g.hooks.some(isFettleHandler));
    const others = (hooks[event] as Json[] | undefined) ?? [];
    const position = at < 0 ? others.length : at;
    hooks[event] = [...others.slice(0, position), ...ours, ...others.slice(position)];
  }
  const next: JsonObject = {};
  for (const [key, value] of Object.entries(settings)) next[key] = key === 'hooks' ? hooks : value;
  if (!('hooks' in next)) next.hooks = hooks;
  return next;
};
