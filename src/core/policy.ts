// Policy files, pure: parsing one (.fettle/policy.json, or the user's), validated against the published schema of
// its version (schema/policy.v1.json, schema/policy.v2.json) and then for what a schema cannot say (each glob and
// regular expression compiles, names are unique). Which rules match a call and which decides: policy-engine.ts.
// Format 1 is a contract: its rules keep meaning what they meant (a path and an action, the last match wins).
import schemaV1 from '../../schema/policy.v1.json';
import schemaV2 from '../../schema/policy.v2.json';
import { FettleError } from '../errors';
import type { Thresholds } from './decide';
import { compileGlob, type Glob } from './glob';
import { validate, type Schema } from './json-schema';
import { jsonError, lineOfPath } from './json-text';
import { compileWhen, WHEN_KEYS, type CompiledWhen, type RawWhen } from './policy-when';

export type PolicyAction = 'stage' | 'direct' | 'ignore' | 'block' | 'thresholds' | 'ask' | 'note' | 'run';

/** A `run` rule's command: run on the tree a write would produce; its failure blocks the write or stages it. */
export interface RunSpec {
  /** a command line (run by the shell) or an argv; `{file}` is the path written, from the top directory */
  command: string | string[];
  onFail: 'block' | 'stage';
  timeoutSeconds: number;
}

/** What a `run` rule without `onFail` or `timeoutSeconds` gets. */
export const RUN_DEFAULTS = { onFail: 'block', timeoutSeconds: 60 } as const;
export type PolicyLayerName = 'user' | 'project';

export interface PolicyRule {
  layer: PolicyLayerName;
  /** 1-based position in its file */
  index: number;
  /** its `name`, else `<layer>#<index>`: what records and `fettle policy check` call it */
  label: string;
  /** its path glob as written; format 2 rules may have none (any path, and calls with no path) */
  path?: string | undefined;
  glob: Glob | null;
  /** format 2: its other conditions, as written and compiled */
  when?: RawWhen | undefined;
  cond?: CompiledWhen | undefined;
  action: PolicyAction;
  /** block: the reason given; format 2: what the agent is told whenever the rule matches */
  message?: string | undefined;
  /** thresholds: those it sets (the rest are the configuration's) */
  thresholds?: Partial<Thresholds> | undefined;
  /** run: the command, and what its failure does */
  run?: RunSpec | undefined;
}

export interface PolicyLayer {
  layer: PolicyLayerName;
  /** how the file is named in messages (`.fettle/policy.json`, or the user file's path) */
  file: string;
  /** the file's format: 1, the last match decides and only it speaks; 2, every match speaks, the first decides */
  version: 1 | 2;
  rules: PolicyRule[];
}

const HINT = (file: string, version: number) =>
  `Fix it in ${file} (the format: schema/policy.v${version}.json in fettle's package), then check a path with \`fettle policy check <path>\`.`;

/** The file's format as it says it, for the hint: version 2 files read schema/policy.v2.json, all others v1. */
const invalid = (file: string, what: string, version = 1): FettleError =>
  new FettleError('E_POLICY', `${file} is not a valid fettle policy: ${what}.`, { hint: HINT(file, version) });

interface RawRule extends RawWhen {
  name?: string;
  path?: string;
  action: PolicyAction;
  message?: string;
  floor?: number;
  ceil?: number;
  ratio?: number;
  run?: string | string[];
  onFail?: RunSpec['onFail'];
  timeoutSeconds?: number;
}

/** `rule 4 (".env*")`, or the document's own place for an error outside the rules. */
const where = (path: (string | number)[], rules: unknown): string => {
  if (path[0] !== 'rules' || typeof path[1] !== 'number') return path.length ? `"${path.join('.')}"` : 'the file';
  const rule = Array.isArray(rules) ? (rules[path[1]] as { path?: unknown } | undefined) : undefined;
  const glob = typeof rule?.path === 'string' ? ` (${JSON.stringify(rule.path)})` : '';
  const field = path.length > 2 ? `: "${path.slice(2).join('.')}"` : '';
  return `rule ${path[1] + 1}${glob}${field}`;
};

const thresholdsOf = (r: RawRule): Partial<Thresholds> | undefined =>
  r.action === 'thresholds'
    ? Object.fromEntries((['floor', 'ceil', 'ratio'] as const).filter((k) => r[k] !== undefined).map((k) => [k, r[k]]))
    : undefined;

/** One rule of a validated file, compiled; E_POLICY for what the schema cannot say. */
interface FileOf {
  layer: PolicyLayerName;
  file: string;
  version: 1 | 2;
  /** ` (line N)` of a key's value, for a file of several lines */
  line: (path: (string | number)[]) => string;
}

const compileRule = (raw: RawRule[], n: number, f: FileOf) => {
  const r = raw[n] as RawRule;
  const glob = r.path === undefined ? null : compileGlob(r.path);
  if (glob && 'error' in glob)
    throw invalid(
      f.file,
      `${where(['rules', n, 'path'], raw)} is not a glob fettle reads: ${glob.error}${f.line(['rules', n, 'path'])}`,
      f.version,
    );
  const when =
    f.version === 2 ? Object.fromEntries(WHEN_KEYS.filter((k) => r[k] !== undefined).map((k) => [k, r[k]])) : {};
  const cond = compileWhen(when);
  if ('error' in cond)
    throw invalid(
      f.file,
      `${where(['rules', n, cond.key], raw)} ${cond.error}${f.line(['rules', n, cond.key])}`,
      f.version,
    );
  const thresholds = thresholdsOf(r);
  if (thresholds?.floor !== undefined && thresholds.ceil !== undefined && thresholds.ceil <= thresholds.floor)
    throw invalid(
      f.file,
      `${where(['rules', n], raw)} has a "ceil" (${thresholds.ceil}) not above its "floor" (${thresholds.floor})${f.line(['rules', n])}`,
      f.version,
    );
  const label = r.name ?? `${f.layer}#${n + 1}`;
  const conditions = Object.keys(when).length > 0 ? { when, cond } : {};
  const run = r.action === 'run' && r.run !== undefined ? { run: runOf(r, r.run) } : {};
  return {
    layer: f.layer,
    index: n + 1,
    label,
    path: r.path,
    glob,
    ...conditions,
    action: r.action,
    message: r.message,
    thresholds,
    ...run,
  };
};

const runOf = (r: RawRule, command: string | string[]): RunSpec => ({
  command,
  onFail: r.onFail ?? RUN_DEFAULTS.onFail,
  timeoutSeconds: r.timeoutSeconds ?? RUN_DEFAULTS.timeoutSeconds,
});

/** One policy file's text, checked whole: E_POLICY names the file, the rule and what to fix. */
export const parsePolicy = (text: string, layer: PolicyLayerName, file: string): PolicyLayer => {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw invalid(file, `it is not JSON (${jsonError(text, error)})`);
  }
  const rulesOf = (doc as { rules?: unknown } | null)?.rules;
  const version = (doc as { version?: unknown } | null)?.version === 2 ? 2 : 1;
  const error = validate(doc, (version === 2 ? schemaV2 : schemaV1) as Schema);
  const line = (path: (string | number)[]) => (text.trim().includes('\n') ? ` (line ${lineOfPath(text, path)})` : '');
  if (error) throw invalid(file, `${where(error.path, rulesOf)} ${error.message}${line(error.path)}`, version);
  const raw = (doc as { rules: RawRule[] }).rules;
  const labels = new Set<string>();
  const rules = raw.map((_, n): PolicyRule => {
    const rule = compileRule(raw, n, { layer, file, version, line });
    if (labels.has(rule.label))
      throw invalid(
        file,
        `${where(['rules', n, 'name'], raw)} repeats the name ${JSON.stringify(rule.label)}${line(['rules', n, 'name'])}`,
        version,
      );
    labels.add(rule.label);
    return rule;
  });
  return { layer, file, version, rules };
};

/** What fettle does with a write the rule decides, given the thresholds in force. */
export type PolicyEffect =
  | { kind: 'none' }
  | { kind: 'ignore' | 'stage' | 'direct'; rule: PolicyRule }
  | { kind: 'block' | 'ask'; rule: PolicyRule; message: string }
  | { kind: 'thresholds'; rule: PolicyRule; thresholds: Thresholds };

export const effectOf = (winner: PolicyRule | null, config: Thresholds, files: Record<PolicyLayerName, string>) => {
  if (!winner) return { kind: 'none' } as PolicyEffect;
  if (winner.action === 'block' || winner.action === 'ask')
    return { kind: winner.action, rule: winner, message: winner.message ?? '' } as PolicyEffect;
  // never deciders (policy-engine.ts)
  if (winner.action === 'note' || winner.action === 'run') return { kind: 'none' } as PolicyEffect;
  if (winner.action !== 'thresholds') return { kind: winner.action, rule: winner } as PolicyEffect;
  const thresholds = { floor: config.floor, ceil: config.ceil, ratio: config.ratio, ...winner.thresholds };
  if (thresholds.ceil <= thresholds.floor) {
    const file = files[winner.layer];
    const own = winner.thresholds?.ceil !== undefined ? 'its "ceil"' : 'the ceil in force (FETTLE_WRITE_CEIL)';
    const floor = winner.thresholds?.floor !== undefined ? 'its "floor"' : 'the floor in force (FETTLE_WRITE_FLOOR)';
    throw invalid(
      file,
      `rule ${winner.index} (${ruleShape(winner)}) makes ${own} (${thresholds.ceil}) not above ${floor} (${thresholds.floor})`,
    );
  }
  return { kind: 'thresholds', rule: winner, thresholds } as PolicyEffect;
};

/** `policy:<label>`: who decided, as the Fettle-Decided-By trailer says it. */
export const ruleDecider = (rule: PolicyRule): string => `policy:${rule.label}`;

/** A rule's conditions in short: its glob as written (`"src/**"`), then each other condition (`tool=Bash`). */
export const ruleShape = (rule: PolicyRule): string => {
  const parts = rule.path === undefined ? [] : [JSON.stringify(rule.path)];
  for (const [key, value] of Object.entries(rule.when ?? {}))
    parts.push(`${key}=${Array.isArray(value) ? value.join('|') : JSON.stringify(value)}`);
  return parts.length > 0 ? parts.join(' ') : 'every call';
};

/** How a rule is named to a person: its label, its conditions and its file. */
export const ruleText = (rule: PolicyRule, file: string): string => `${rule.label} (${ruleShape(rule)} in ${file})`;

/**
 * A parsed layer as plain JSON, for the cache of parses kept between processes: each glob's regex by its source;
 * the other conditions by what the file says, compiled again when read back.
 */
export const layerToJson = (l: PolicyLayer): unknown => ({
  ...l,
  rules: l.rules.map(({ cond: _, ...r }) => ({ ...r, glob: r.glob && { ...r.glob, regex: r.glob.regex.source } })),
});

/** `layerToJson`'s output read back; null when it is not that (a cache written by another version, or torn). */
export const layerFromJson = (data: unknown): PolicyLayer | null => {
  const l = data as PolicyLayer | null;
  if (!l || typeof l.file !== 'string' || (l.layer !== 'user' && l.layer !== 'project') || !Array.isArray(l.rules))
    return null;
  if (l.version !== 1 && l.version !== 2) return null;
  const rules: PolicyRule[] = [];
  for (const r of l.rules as (PolicyRule & { glob: { regex: unknown } | null })[]) {
    if (r?.glob !== null && typeof r?.glob?.regex !== 'string') return null;
    if (typeof r.label !== 'string' || typeof r.action !== 'string') return null;
    const glob = r.glob && { ...r.glob, regex: new RegExp(r.glob.regex as unknown as string, 's') };
    const cond = r.when ? compileWhen(r.when) : undefined;
    if (cond && 'error' in cond) return null;
    rules.push({ ...r, glob, ...(cond ? { cond } : {}) });
  }
  return { layer: l.layer, file: l.file, version: l.version, rules };
};
