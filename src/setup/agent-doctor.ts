// `fettle doctor`'s look at the agents other than Claude Code: where fettle's hooks are installed, and whether the
// agent would run them.
//   Codex CLI runs a hook from a config layer only once the user trusted it: `[hooks.state."<key>"]` in the
//     user's config.toml holds `trusted_hash`, which must equal the hash of the hook as it is now (Codex's hooks
//     discovery: sha256 of the hook's normalised identity as sorted JSON; checked against `codex app-server`'s
//     hooks/list by the real-client suite). `[features] hooks = false` turns every hook off, and a project's
//     .codex/ layer is read only in a project the user trusted.
//   Gemini CLI runs settings hooks unless `hooksConfig.enabled` is false or the hook's name is in
//     `hooksConfig.disabled`.
//   Cursor runs what its hooks.json lists.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { CODEX_HOOKS, cursorHandlers, GEMINI_HOOKS, CURSOR_EVENTS } from '../core/agent-hooks';
import { AGENT_TITLES, type AgentName } from '../core/agents';
import { keepOneFix } from '../core/install-scopes';
import { fettleHandlers, isFettleHandler, type FettleHandler } from '../core/settings';
import { homeFrom, type Env } from '../config';
import type { Check } from './doctor';
import { agentSettingsPath, scopesOf } from './agent-settings';
import type { Scope } from './settings-file';
import { parseSettingsText } from './settings-text';
import { isObj, type JsonObject } from '../core/json';

const readText = (path: string): Promise<string | null> => readFile(path, 'utf8').catch(() => null);

/** Codex's event names as its hook keys spell them. */
const CODEX_LABEL: Record<string, string> = {
  PreToolUse: 'pre_tool_use',
  PostToolUse: 'post_tool_use',
  UserPromptSubmit: 'user_prompt_submit',
  Stop: 'stop',
};

const canonical = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(canonical)
    : isObj(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, canonical(v[k])]),
        )
      : v;

/**
 * The hash Codex trusts a command hook by: its event, its group's matcher and the one handler, normalised (the
 * timeout defaults to 600 s, `async` to false; absent fields are left out), as JSON with sorted keys.
 */
export const codexHookHash = (event: string, matcher: string | undefined, handler: JsonObject): string => {
  const normal: JsonObject = {
    type: 'command',
    command: String(handler.command ?? ''),
    timeout: Math.max(1, typeof handler.timeout === 'number' ? handler.timeout : 600),
    async: handler.async === true,
    ...(typeof handler.statusMessage === 'string' ? { statusMessage: handler.statusMessage } : {}),
  };
  const identity = {
    event_name: CODEX_LABEL[event] ?? event,
    ...(matcher === undefined ? {} : { matcher }),
    hooks: [normal],
  };
  return `sha256:${createHash('sha256')
    .update(JSON.stringify(canonical(identity)))
    .digest('hex')}`;
};

/** fettle's handlers in a Codex hooks.json, each with the key and hash Codex gives it. */
export const codexHookKeys = (path: string, settings: JsonObject): { key: string; hash: string; event: string }[] => {
  const hooks = isObj(settings.hooks) ? settings.hooks : {};
  const out: { key: string; hash: string; event: string }[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    (Array.isArray(groups) ? groups : []).forEach((group, g) => {
      if (!isObj(group) || !Array.isArray(group.hooks)) return;
      const matcher = typeof group.matcher === 'string' ? group.matcher : undefined;
      group.hooks.forEach((h, n) => {
        if (!isObj(h) || !isFettleHandler(h)) return;
        out.push({
          key: `${path}:${CODEX_LABEL[event] ?? event}:${g}:${n}`,
          hash: codexHookHash(event, matcher, h),
          event,
        });
      });
    });
  }
  return out;
};

const codexHome = (env: Env): string => env.CODEX_HOME || join(homeFrom(env), '.codex');

interface Found {
  scope: Scope;
  path: string;
  value: JsonObject;
}

/** fettle's installs of `agent`, scope by scope; a file it cannot read is a check of its own. */
const installs = async (agent: AgentName, root: string, env: Env): Promise<{ found: Found[]; checks: Check[] }> => {
  const found: Found[] = [];
  const checks: Check[] = [];
  for (const scope of scopesOf(agent)) {
    const path = agentSettingsPath(agent, root, env, scope);
    const text = await readText(path);
    if (text === null) continue;
    let value: JsonObject;
    try {
      value = parseSettingsText(text).value;
    } catch (error) {
      checks.push({
        name: agent,
        status: 'warn',
        detail: `${path} cannot be read as JSON (${(error as Error).message})`,
        fix: `Fix the JSON; ${AGENT_TITLES[agent]} does not run hooks from a file it cannot parse.`,
      });
      continue;
    }
    const ours = agent === 'cursor' ? cursorHandlers(value) : fettleHandlers(value);
    if (ours.length > 0) found.push({ scope, path, value });
  }
  return { found, checks };
};

const missingEvents = (agent: AgentName, value: JsonObject): string[] => {
  if (agent === 'cursor') {
    const have = new Set(cursorHandlers(value).map((h) => h.event));
    return CURSOR_EVENTS.filter((e) => !have.has(e));
  }
  // An install from before fettle recorded the agent's shell has every event, but not the shell's matcher.
  const spec = agent === 'codex' ? CODEX_HOOKS : GEMINI_HOOKS;
  const key = (event: string, matcher: string | undefined) => `${event} ${matcher ?? ''}`.trim();
  const have = new Set(fettleHandlers(value).map((h: FettleHandler) => key(h.event, h.matcher)));
  return spec.events.map((e) => key(e.event, e.matcher)).filter((e) => !have.has(e));
};

/** Why Codex would not run fettle's hooks of this install, or null when it would. */
const codexBlocked = async (env: Env, root: string, f: Found): Promise<{ why: string; fix: string } | null> => {
  const configPath = join(codexHome(env), 'config.toml');
  const text = await readText(configPath);
  let config: JsonObject = {};
  try {
    config = text === null ? {} : (parseToml(text) as JsonObject);
  } catch (error) {
    return {
      why: `${configPath} is not valid TOML (${(error as Error).message.split('\n')[0]})`,
      fix: 'Fix it; Codex will not start with it either.',
    };
  }
  const features = isObj(config.features) ? config.features : {};
  if (features.hooks === false || features.codex_hooks === false)
    return {
      why: `hooks are turned off in ${configPath} ([features] hooks = false)`,
      fix: 'Remove `hooks = false` from [features].',
    };
  if (f.scope === 'project') {
    const projects = isObj(config.projects) ? config.projects : {};
    const trusted = Object.entries(projects).some(
      ([dir, p]) => isObj(p) && p.trust_level === 'trusted' && (dir === root || dir === dirname(dirname(f.path))),
    );
    if (!trusted)
      return {
        why: `Codex reads ${f.path} only in a project you trusted, and ${root} is not trusted in ${configPath}`,
        fix: 'Start `codex` in the project and trust it, or install for yourself: `fettle install --agent codex`.',
      };
  }
  const hooks = isObj(config.hooks) ? config.hooks : {};
  const state = isObj(hooks.state) ? hooks.state : {};
  const keys = codexHookKeys(f.path, f.value);
  const untrusted = keys.filter((k) => {
    const s = state[k.key];
    return !(isObj(s) && s.enabled !== false && s.trusted_hash === k.hash);
  });
  if (untrusted.length === 0) return null;
  const disabled = keys.filter((k) => isObj(state[k.key]) && (state[k.key] as JsonObject).enabled === false);
  if (disabled.length > 0)
    return {
      why: `fettle's ${disabled.map((k) => k.event).join(', ')} hooks are disabled in ${configPath}`,
      fix: 'Enable them in `codex` with /hooks.',
    };
  return {
    why: `Codex runs a hook only once you trust it, and ${untrusted.length} of fettle's ${keys.length} hooks in ${f.path} are not trusted (new, or changed since you trusted them): Codex skips them without a word`,
    fix: "Start `codex`, run /hooks and trust fettle's hooks (`codex exec --dangerously-bypass-hook-trust` runs them once without trust).",
  };
};

/** Why Gemini CLI would not run fettle's hook, or null when it would. */
const geminiBlocked = (found: Found[]): { why: string; fix: string } | null => {
  for (const f of found) {
    const config = isObj(f.value.hooksConfig) ? f.value.hooksConfig : {};
    if (config.enabled === false)
      return {
        why: `hooks are turned off in ${f.path} (hooksConfig.enabled: false)`,
        fix: 'Set hooksConfig.enabled to true.',
      };
    if (Array.isArray(config.disabled) && config.disabled.includes('fettle'))
      return {
        why: `${f.path} disables the hook named fettle (hooksConfig.disabled)`,
        fix: 'Remove "fettle" from hooksConfig.disabled, or run /hooks enable fettle in gemini.',
      };
  }
  return null;
};

/** One check per agent other than Claude Code that fettle is installed for. */
export const agentChecks = async (env: Env, root: string): Promise<Check[]> => {
  const checks: Check[] = [];
  for (const agent of ['codex', 'gemini', 'cursor'] as const) {
    const { found, checks: unreadable } = await installs(agent, root, env);
    checks.push(...unreadable);
    if (found.length === 0) continue;
    const where = found.map((f) => `${f.path} (${f.scope})`).join(', ');
    const incomplete = found.find((f) => missingEvents(agent, f.value).length > 0);
    if (incomplete) {
      checks.push({
        name: agent,
        status: 'warn',
        detail: `${incomplete.path}: no fettle hook on ${missingEvents(agent, incomplete.value).join(', ')}`,
        fix: `Run \`fettle install --agent ${agent} --scope ${incomplete.scope}\` again.`,
      });
      continue;
    }
    let blocked: { why: string; fix: string } | null = null;
    if (agent === 'codex') for (const f of found) blocked ??= await codexBlocked(env, root, f);
    if (agent === 'gemini') blocked = geminiBlocked(found);
    if (blocked)
      checks.push({
        name: agent,
        status: 'fail',
        detail: `installed in ${where}, but ${blocked.why}`,
        fix: blocked.fix,
      });
    else if (found.length > 1)
      checks.push({
        name: agent,
        status: 'warn',
        detail: `installed in ${found.length} scopes (${where}): every write runs fettle ${found.length} times`,
        fix: keepOneFix(
          found.map((f) => f.scope),
          agent,
        ),
      });
    else
      checks.push({
        name: agent,
        status: 'ok',
        detail: `installed in ${where}${agent === 'cursor' ? '; Cursor edits are recorded after they land, never staged, and its shell commands are not recorded' : ''}`,
      });
  }
  return checks;
};
