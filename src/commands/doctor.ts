// `fettle doctor`: checks that fettle can protect writes here, and says how to fix what it finds. Exits 1 when
// a check fails (fettle cannot work as set up), 0 otherwise, warnings included.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { clockFrom, loadConfig, type Env } from '../config';
import { type InstallScope, keepOneFix } from '../core/install-scopes';
import { MATCHER, SESSION_EVENTS, TURN_EVENTS, type FettleHandler } from '../core/settings';
import { EXIT } from '../errors';
import { shellWords } from '../io/self';
import type { Context } from '../protocol/context';
import { agentChecks } from '../setup/agent-doctor';
import { opencodeChecks } from '../setup/opencode-doctor';
import { checkConfig, diagnose, type Check } from '../setup/doctor';
import { checkResident } from '../setup/serve-doctor';
import type { Store } from '../store/store';
import { openStore } from '../protocol/select/open';
import { cwdFor, spelled, useColor, type Edge } from './edge';
import { settingsPath } from '../setup/settings-file';
import { handlersIn } from '../setup/settings-text';

const SCOPES = ['user', 'project', 'local'] as const;

/** The script a hook command runs: its first word ending in cli.js, as the shell reads it. */
export const scriptOf = (command: string): string | undefined => shellWords(command).find((w) => w.endsWith('cli.js'));

const covers = (handlers: FettleHandler[], event: string): boolean =>
  handlers.some(
    (h) => h.event === event && MATCHER.split('|').every((tool) => new RegExp(`^(?:${h.matcher})$`).test(tool)),
  );

/** The check of one settings file that registers fettle: whether its hooks exist and cover every event. */
const handlersCheck = (path: string, scope: string, handlers: FettleHandler[]): Check => {
  const missing = ['PreToolUse', 'PostToolUse'].filter((event) => !covers(handlers, event));
  const gone = [
    ...new Set(
      handlers.map((h) => scriptOf(h.command)).filter((s): s is string => !!s && !s.includes('$') && !existsSync(s)),
    ),
  ];
  if (gone.length > 0) {
    return {
      name: 'hooks',
      status: 'fail',
      detail: `${path}: the hook runs ${gone.join(', ')}, which does not exist: writes are not protected`,
      fix: `Run \`fettle install --scope ${scope}\` with the fettle you use.`,
    };
  }
  if (missing.length > 0) {
    return {
      name: 'hooks',
      status: 'warn',
      detail: `${path}: no fettle hook on ${missing.join(' and ')} for ${MATCHER}`,
      fix: `Run \`fettle install --scope ${scope}\`.`,
    };
  }
  if (!covers(handlers, 'PostToolUseFailure')) {
    return {
      name: 'hooks',
      status: 'warn',
      detail: `${path}: installed by an older fettle, without PostToolUseFailure: records of failed writes stay incomplete until retention`,
      fix: `Run \`fettle install --scope ${scope}\` again.`,
    };
  }
  if (!SESSION_EVENTS.every((event) => handlers.some((h) => h.event === event))) {
    return {
      name: 'hooks',
      status: 'warn',
      detail: `${path}: installed by an older fettle, without ${SESSION_EVENTS.join(' and ')}: the last write of a headless session stays incomplete until a fettle command meets it`,
      fix: `Run \`fettle install --scope ${scope}\` again.`,
    };
  }
  if (!TURN_EVENTS.every((event) => handlers.some((h) => h.event === event))) {
    return {
      name: 'hooks',
      status: 'warn',
      detail: `${path}: installed by an older fettle, without ${TURN_EVENTS.join(' and ')}: turns are not counted, so \`fettle rollback --turn\` finds nothing`,
      fix: `Run \`fettle install --scope ${scope}\` again.`,
    };
  }
  return { name: 'hooks', status: 'ok', detail: `registered in ${path} (${scope})` };
};

/** fettle registered in no scope, or in several (each write then runs it once per scope). */
const scopesCheck = (registered: InstallScope[]): Check | null => {
  if (registered.length === 0) {
    return {
      name: 'hooks',
      status: 'warn',
      detail: 'fettle is in no Claude Code settings file here (an install as a plugin does not show in them)',
      fix: 'Run `fettle install` (user scope) or `fettle install --scope project`.',
    };
  }
  if (registered.length > 1) {
    return {
      name: 'hooks',
      status: 'warn',
      detail: `registered in ${registered.length} scopes (${registered.join(', ')}): every write runs fettle ${registered.length} times`,
      fix: keepOneFix(registered),
    };
  }
  return null;
};

const checkHooks = async (edge: Edge, root: string | undefined): Promise<Check[]> => {
  const checks: Check[] = [];
  const registered: InstallScope[] = [];
  for (const scope of SCOPES) {
    const path = settingsPath(cwdFor(edge, root), edge.env, scope);
    const text = await readFile(path, 'utf8').catch(() => null);
    if (text === null) continue;
    let handlers: FettleHandler[];
    try {
      handlers = handlersIn(text);
    } catch (error) {
      checks.push({
        name: 'hooks',
        status: 'warn',
        detail: `${path} cannot be read as settings (${(error as Error).message})`,
        fix: 'Fix the JSON; Claude Code ignores a file it cannot parse.',
      });
      continue;
    }
    if (handlers.length === 0) continue;
    registered.push(scope);
    checks.push(handlersCheck(path, scope, handlers));
  }
  const scopes = scopesCheck(registered);
  if (scopes) checks.push(scopes);
  return checks;
};

const MARK: Record<Check['status'], string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };
/** Green, yellow, bold red: the mark of each check, on a terminal (useColor decides). */
const SGR: Record<Check['status'], string> = { ok: '32', warn: '33', fail: '1;31' };

const render = (checks: Check[], color: boolean): string =>
  checks
    .map((c) => {
      const mark = color ? `\u001b[${SGR[c.status]}m${MARK[c.status]}\u001b[0m` : MARK[c.status];
      return `${mark}  ${c.name.padEnd(9)} ${c.detail}${c.fix ? `\n      ${' '.repeat(9)} ${c.fix}` : ''}`;
    })
    .join('\n');

export const doctor = async (edge: Edge, dir: string | undefined, o: { json?: boolean }): Promise<number> => {
  const cwd = cwdFor(edge, dir);
  const env: Env = edge.env;
  const { check: config, config: valid } = checkConfig(env);
  // A bad variable is reported; the other checks run with the defaults.
  const defaults = () =>
    loadConfig({ HOME: env.HOME, XDG_DATA_HOME: env.XDG_DATA_HOME, FETTLE_DATA_DIR: env.FETTLE_DATA_DIR });
  const ctx: Context = { cwd, env, now: clockFrom(env), config: valid ?? defaults() };
  let store: Store | null = null;
  let storeError: unknown;
  try {
    // Not recovered on opening: the journal check recovers and reports it.
    store = await openStore(ctx, { recover: false });
  } catch (error) {
    storeError = error;
  }
  const [node, git, ...rest] = await diagnose({ ctx, store, storeError, nodeVersion: process.version });
  const root = store?.kind === 'repo' ? store.workTree : dir;
  const hooks = await checkHooks(edge, root);
  const resident = await checkResident(env);
  const agents = [
    ...(await agentChecks(edge.env, cwdFor(edge, root))),
    ...(await opencodeChecks(edge.env, cwdFor(edge, root), edge.io.script)),
  ];
  const checks = [node, git, config, ...hooks, ...resident, ...agents, ...rest]
    .filter((c): c is Check => !!c)
    .map((c) => ({ ...c, detail: spelled(edge, dir, c.detail), ...(c.fix ? { fix: spelled(edge, dir, c.fix) } : {}) }));
  if (o.json) edge.io.out(JSON.stringify({ checks }, null, 2));
  else edge.io.out(render(checks, useColor(edge)));
  return checks.some((c) => c.status === 'fail') ? EXIT.failed : EXIT.ok;
};
