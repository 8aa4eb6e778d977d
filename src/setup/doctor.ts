// `fettle doctor`: is fettle able to protect writes here? Each check says what it found and, when something is
// off, the command that fixes it. Nothing is changed: every check only reads (gc is asked for a dry run).
import { loadConfig, readThresholdFrom, testLinksFrom, type Config, type Env } from '../config';
import { toFettleError } from '../errors';
import { createGit } from '../store/git';
import type { Store } from '../store/store';
import { listChanges } from '../protocol/changes';
import type { Check } from './check';
import type { Context } from '../protocol/context';
import { collectGarbage } from '../protocol/upkeep/gc';
import { journalDir } from '../protocol/journal/journal';
import { checkGitHooks } from './git-hook-doctor';
import { checkLocks } from './lock-doctor';
import { policyLayers } from '../protocol/decide/policy';
import { recoverInterrupted, recoveryText, type Recovery } from '../protocol/journal/recover';
import { plural } from '../core/plural';

export type { Check, CheckStatus } from './check';

const ok = (name: string, detail: string): Check => ({ name, status: 'ok', detail });
const warn = (name: string, detail: string, fix?: string): Check => ({ name, status: 'warn', detail, fix });
const fail = (name: string, detail: string, fix?: string): Check => ({ name, status: 'fail', detail, fix });

/** The oldest git fettle supports: core.fsync and core.fsyncMethod came in 2.36. */
export const MIN_GIT: [number, number] = [2, 36];
const MIN_NODE = 20;

export const checkNode = (version: string): Check => {
  const major = Number(/^v?(\d+)/.exec(version)?.[1]);
  return major >= MIN_NODE
    ? ok('node', `Node ${version}`)
    : fail('node', `Node ${version} is older than ${MIN_NODE}`, `Install Node ${MIN_NODE} or newer.`);
};

export const checkGitVersion = (output: string | null): Check => {
  const match = /git version (\d+)\.(\d+)/.exec(output ?? '');
  if (!match) return fail('git', 'git was not found on PATH', 'Install git 2.36 or newer.');
  const [major, minor] = [Number(match[1]), Number(match[2])];
  const recent = major > MIN_GIT[0] || (major === MIN_GIT[0] && minor >= MIN_GIT[1]);
  const version = `${major}.${minor}`;
  if (!recent)
    return fail(
      'git',
      `git ${version} is older than ${MIN_GIT.join('.')}, which fettle needs to make its records durable (core.fsync)`,
      'Upgrade git.',
    );
  return ok('git', `git ${version}${major === 2 && minor < 38 ? ' (file names containing a newline need 2.38)' : ''}`);
};

export const checkConfig = (env: Env): { check: Check; config?: Config } => {
  try {
    const config = loadConfig(env);
    // Read only by `fettle test` and the Read hook, but a mistake in them is still a mistake in the configuration.
    testLinksFrom(env);
    readThresholdFrom(env);
    return {
      check: ok(
        'config',
        `floor ${config.floor}, ceiling ${config.ceil}, ratio ${config.ratio}, staged changes kept ${config.ttlSeconds} s`,
      ),
      config,
    };
  } catch (error) {
    const e = toFettleError(error);
    return {
      check: fail('config', e.message, e.hint ?? 'Fix or unset the variable; `fettle info` shows what is in force.'),
    };
  }
};

const gitVersion = async (env: Env, cwd: string): Promise<string | null> =>
  createGit(cwd, env)
    .text({ args: ['--version'] })
    .catch(() => null);

/** Every object fettle's history needs is there (objects shared with HEAD are git's to check). */
const checkObjects = async (store: Store): Promise<Check> => {
  const args = [
    'rev-list',
    '--objects',
    '--quiet',
    '--glob=refs/fettle/*',
    '--glob=refs/fettle-discarded/*',
    ...(store.head ? ['--not', store.head] : []),
  ];
  const r = await store.git.run({ args, okCodes: [128] });
  if (r.code === 0) return ok('objects', "every object fettle's history needs is present");
  const first = r.stderr.split('\n').find(Boolean) ?? 'git rev-list failed';
  return fail(
    'objects',
    `fettle's history names missing objects (${first.replace(/^fatal: /, '')})`,
    'Run `git fsck` to see what is missing; `fettle gc` drops changes whose history is gone once they are past retention.',
  );
};

const SHOWN_IDS = 8;

const checkChanges = async (ctx: Context, store: Store): Promise<Check[]> => {
  const changes = await listChanges(ctx, store);
  const pending = changes.filter((c) => c.state === 'pending');
  const expired = changes.filter((c) => c.state === 'expired');
  const checks = [ok('changes', `${changes.length} in history, ${pending.length} staged and waiting`)];
  if (expired.length > 0) {
    const ids =
      expired
        .slice(0, SHOWN_IDS)
        .map((c) => c.id)
        .join(' ') + (expired.length > SHOWN_IDS ? ' …' : '');
    checks.push(
      warn(
        'expired',
        `${plural(expired.length, 'staged change')} expired without a decision: ${ids}`,
        'Drop each with `fettle discard <id>`; `fettle gc` removes them once past FETTLE_HISTORY_MAX_AGE.',
      ),
    );
  }
  return checks;
};

/** What `fettle gc` would remove: test trees and link files nothing uses, history past retention. */
const checkLeftovers = async (ctx: Context, store: Store): Promise<Check> => {
  const r = await collectGarbage(ctx, store, { dryRun: true });
  const parts = [
    r.removed.length ? `${plural(r.removed.length, 'change')} past retention` : '',
    r.worktrees.length ? `${plural(r.worktrees.length, 'test tree')} nothing uses` : '',
    r.links.length ? `${plural(r.links.length, 'tool-use link')} no tool call will come back for` : '',
    r.bookkeeping.length ? `${plural(r.bookkeeping.length, 'bookkeeping file')} nothing needs any more` : '',
  ].filter(Boolean);
  return parts.length
    ? warn('leftovers', parts.join(', '), 'Run `fettle gc` (`fettle gc --dry-run` lists them).')
    : ok('leftovers', 'nothing for `fettle gc` to remove');
};

/**
 * An operation a crash interrupted (its journal names a process that is gone) is recovered here, as any command
 * would, and reported: what was undone or finished, or, failing that, what a person must look at.
 */
const checkJournals = async (store: Store): Promise<Check> => {
  let recovered: Recovery[];
  try {
    recovered = await recoverInterrupted(store);
  } catch (error) {
    const e = toFettleError(error);
    return fail(
      'journal',
      `an interrupted confirm could not be recovered: ${e.message}`,
      e.hint ?? 'Run `fettle doctor` again.',
    );
  }
  const said = recovered
    .map(recoveryText)
    .filter(Boolean)
    .map((t) => t.replace(/^fettle: /, ''));
  const stuck = recovered.filter((r) => r.outcome === 'stuck');
  if (stuck.length > 0)
    return fail(
      'journal',
      said.join(' '),
      `Look at the files it names (\`git diff\`, \`fettle show <id>\`) and put each as it should be; then remove ${journalDir(store)}/*.json.`,
    );
  if (said.length > 0) return warn('journal', `recovered: ${said.join(' ')}`);
  return ok('journal', 'no interrupted confirm to recover');
};

/** The policy files: an invalid one blocks every write, so it fails the check. */
const checkPolicy = (ctx: Context, store: Store): Check => {
  try {
    const layers = policyLayers(ctx, store);
    const rules = layers.reduce((n, l) => n + l.rules.length, 0);
    if (layers.length === 0) return ok('policy', 'no policy file: the thresholds decide every path');
    return ok('policy', `${layers.map((l) => l.file).join(', ')}: ${plural(rules, 'rule')}`);
  } catch (error) {
    const e = toFettleError(error);
    return fail('policy', `${e.message} Every write is blocked until it is fixed.`, e.hint);
  }
};

export interface DoctorInput {
  ctx: Context;
  /** null when the store could not be opened (the failure is the `store` check) */
  store: Store | null;
  storeError?: unknown;
  nodeVersion: string;
}

export const diagnose = async (input: DoctorInput): Promise<Check[]> => {
  const { ctx, store } = input;
  const checks = [checkNode(input.nodeVersion), checkGitVersion(await gitVersion(ctx.env, ctx.cwd))];
  if (!store) {
    const e = toFettleError(input.storeError);
    return [...checks, fail('store', e.message, e.hint)];
  }
  checks.push(
    ok(
      'store',
      store.kind === 'repo'
        ? `this repository (${store.commonDir}, ${store.objectFormat})`
        : `the private store for files outside repositories (${store.commonDir})`,
    ),
  );
  checks.push(
    checkPolicy(ctx, store),
    await checkJournals(store),
    ...(await checkChanges(ctx, store)),
    await checkObjects(store),
    await checkLeftovers(ctx, store),
    ...(await checkLocks(store, ctx.now().getTime())),
    ...(await checkGitHooks(store, ctx.now().getTime())),
  );
  return checks;
};
