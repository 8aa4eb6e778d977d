// The policy in force for a file: the repository's `.fettle/policy.json` (in the work tree the file is in, which
// locating it already found: no git process) and the user's file (config.ts), parsed by core/policy.ts. Each
// file's parse is kept in memory keyed by its identity (device, inode, size, modification time in ns), so a
// process that answers many writes (a resident hook server) reads each file again only when it changed. A one-shot
// hook process starts with nothing in memory, and checking a 50-rule file against the schema costs it milliseconds
// of cold code, so the parse is also kept on disk, under the repository's git dir (fettle/cache/), keyed by the
// same identity and the cache's format version: the hook then pays two stats and the read of a small JSON file, and parses
// again only after the policy file changed. A cache that cannot be read or written is ignored: it only saves time.
// Measured in `npm run bench` (case 11).
import { isUtf8 } from 'node:buffer';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';
import type { Thresholds } from '../../core/decide';
import {
  effectOf,
  layerFromJson,
  layerToJson,
  parsePolicy,
  type PolicyEffect,
  type PolicyLayer,
  type PolicyLayerName,
  type PolicyRule,
} from '../../core/policy';
import { evaluatePolicy, type Evaluation } from '../../core/policy-engine';
import type { PolicyFacts } from '../../core/policy-when';
import { FettleError, toFettleError } from '../../errors';
import { createGit } from '../../store/git';
import type { Store, Target } from '../../store/store';
import { fettleDir } from '../../store/worktrees';
import type { Context } from '../context';

/** Where a repository keeps its policy, from its top directory. */
export const PROJECT_POLICY = '.fettle/policy.json';

const parsed = new Map<string, { key: string; layer: PolicyLayer }>();

const identity = (s: BigIntStats): string => `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}`;

const unreadable = (display: string, error: unknown): FettleError =>
  new FettleError('E_POLICY', `${display} cannot be read: ${toFettleError(error).message}`, {
    hint: `Make it readable, or remove it, then check a path with \`fettle policy check <path>\`.`,
  });

/** Bump it whenever parsePolicy's output changes shape or meaning: a cache of another version is parsed again. */
const CACHE_VERSION = 'policy-cache 3';

interface CacheFile {
  version: string;
  file: string;
  key: string;
  layer: unknown;
}

const fromDisk = (cache: string | undefined, file: string, key: string): PolicyLayer | null => {
  if (!cache) return null;
  try {
    const c = JSON.parse(readFileSync(cache, 'utf8')) as CacheFile;
    return c.version === CACHE_VERSION && c.file === file && c.key === key ? layerFromJson(c.layer) : null;
  } catch {
    return null;
  }
};

const toDisk = (cache: string | undefined, file: string, key: string, layer: PolicyLayer): void => {
  if (!cache) return;
  try {
    mkdirSync(join(cache, '..'), { recursive: true });
    const temp = `${cache}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify({ version: CACHE_VERSION, file, key, layer: layerToJson(layer) }));
    renameSync(temp, cache);
  } catch {
    // only a cache
  }
};

/**
 * One policy file, parsed (from memory, or the disk cache `cache`, when its identity is unchanged); null when
 * there is none.
 */
export const readLayer = (
  file: string,
  layer: PolicyLayerName,
  display: string,
  cache?: string,
): PolicyLayer | null => {
  let info: BigIntStats;
  try {
    info = statSync(file, { bigint: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw unreadable(display, error);
  }
  if (!info.isFile())
    throw new FettleError('E_POLICY', `${display} is not a file.`, { hint: `Remove it, or make it a policy file.` });
  const known = parsed.get(file);
  if (known?.key === identity(info)) return known.layer;
  const cached = fromDisk(cache, file, identity(info));
  if (cached) {
    parsed.set(file, { key: identity(info), layer: cached });
    return cached;
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw unreadable(display, error);
  }
  if (!isUtf8(bytes))
    throw new FettleError('E_POLICY', `${display} is not a valid fettle policy: it is not UTF-8 text.`, {
      hint: `Save it as UTF-8 JSON, then check a path with \`fettle policy check <path>\`.`,
    });
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const result = parsePolicy(text, layer, display);
  // Keyed by what was read: a file replaced between the stat and the read is read again next time.
  const now = statSync(file, { bigint: true, throwIfNoEntry: false });
  if (now && identity(now) === identity(info)) {
    parsed.set(file, { key: identity(info), layer: result });
    toDisk(cache, file, identity(info), result);
  }
  return result;
};

/** The policy files of a store, with how messages name them: the user's, then the repository's. */
export const policyFiles = (
  ctx: Context,
  store: Store,
): { layer: PolicyLayerName; path: string; display: string }[] => [
  { layer: 'user', path: ctx.config.userPolicy, display: ctx.config.userPolicy },
  ...(store.kind === 'repo'
    ? [{ layer: 'project' as const, path: join(store.workTree, PROJECT_POLICY), display: PROJECT_POLICY }]
    : []),
];

/** Every policy file in force for the store, parsed; E_POLICY when one is invalid. */
export const policyLayers = (ctx: Context, store: Store): PolicyLayer[] =>
  policyFiles(ctx, store).flatMap((f) => readLayer(f.path, f.layer, f.display, cacheOf(store, f.layer)) ?? []);

/** Where a store keeps the parse of a policy layer between processes. */
const cacheOf = (store: Store, layer: PolicyLayerName): string =>
  join(fettleDir(store), 'cache', `policy-${layer}.json`);

export interface PathPolicy {
  /** the rule that decides (null: none matches) */
  winner: PolicyRule | null;
  effect: PolicyEffect;
  /** what every matching rule says to the agent, the decider's first */
  feedback: Evaluation['feedback'];
  /** the matching `run` rules, whose commands a write that goes on must pass (write/run-rules.ts) */
  runs: Evaluation['runs'];
  /** the thresholds that decide the write: a `thresholds` rule's, else the configuration's */
  thresholds: Thresholds;
  files: Record<PolicyLayerName, string>;
}

/** What decides with the layers already read: the evaluation, its effect and the thresholds in force. */
export const decidePolicy = (
  ctx: Context,
  layers: readonly PolicyLayer[],
  facts: PolicyFacts,
  explain = false,
): PathPolicy & { evaluation: Evaluation } => {
  const files = { user: ctx.config.userPolicy, project: PROJECT_POLICY };
  const evaluation = evaluatePolicy(layers, facts, explain);
  const winner = evaluation.decider;
  const effect = effectOf(winner, ctx.config, files);
  const thresholds = effect.kind === 'thresholds' ? effect.thresholds : ctx.config;
  const { feedback, runs } = evaluation;
  return { winner, effect, thresholds, files, feedback, runs, evaluation };
};

/**
 * The rule that decides a file's writes and what it does, given what else the call offers (the tool, the content
 * it would leave, the session's history); E_POLICY when a policy file is invalid.
 */
export const policyFor = (ctx: Context, target: Target, facts: PolicyFacts = {}): PathPolicy =>
  decidePolicy(ctx, policyLayers(ctx, target.store), { ...facts, path: target.treePath });

export interface Explained extends PathPolicy {
  /** every rule, project's then user's, each with whether it matches and why */
  evaluation: Evaluation;
  /** the policy files looked for: where, and how many rules each has (null: there is none) */
  sources: { layer: PolicyLayerName; path: string; display: string; rules: number | null }[];
}

/**
 * `fettle policy check`: every rule considered for a call on `path` in `store` (none: a Bash command), with what
 * else `facts` says of it: which matched and why, what they say, which decides, and what it does.
 */
export const explainPolicy = (ctx: Context, store: Store, path: string | undefined, facts: PolicyFacts): Explained => {
  const files = policyFiles(ctx, store);
  const layers = files.map((f) => readLayer(f.path, f.layer, f.display));
  const sources = files.map((f, n) => ({ ...f, rules: layers[n]?.rules.length ?? null }));
  const found = layers.flatMap((l) => l ?? []);
  return { ...decidePolicy(ctx, found, { ...facts, path }, true), sources };
};

/** The work tree around `cwd`, if any (no store is opened: `fettle info` outside a repository makes none). */
const workTreeAt = async (ctx: Context): Promise<string | null> => {
  const r = await createGit(ctx.cwd, ctx.env).run({ args: ['rev-parse', '--show-toplevel'], okCodes: [128] });
  const top = r.code === 0 ? r.stdout.toString('utf8').trim() : '';
  return top === '' ? null : top;
};

/** `fettle info`: the policy files in force where the command runs, parsed (or the error of an invalid one). */
export const policyInForce = async (
  ctx: Context,
): Promise<{
  files: { layer: PolicyLayerName; display: string; exists: boolean }[];
  layers: PolicyLayer[];
  error?: FettleError;
}> => {
  const top = await workTreeAt(ctx);
  const files = [
    { layer: 'user' as const, path: ctx.config.userPolicy, display: ctx.config.userPolicy },
    ...(top ? [{ layer: 'project' as const, path: join(top, PROJECT_POLICY), display: PROJECT_POLICY }] : []),
  ];
  const shown = files.map((f) => ({
    layer: f.layer,
    display: f.display,
    exists: statSync(f.path, { throwIfNoEntry: false }) !== undefined,
  }));
  try {
    return { files: shown, layers: files.flatMap((f) => readLayer(f.path, f.layer, f.display) ?? []) };
  } catch (error) {
    return { files: shown, layers: [], error: toFettleError(error) };
  }
};
