// Policy files, pure: parsing one (.fettle/policy.json, or the user's), validated against the published schema
// (schema/policy.v1.json) and then for what a schema cannot say (each glob compiles, names are unique), and which
// rule decides a path: the user's rules, then the project's, each in order; the last rule whose glob matches
// wins, so project rules win over user rules and later rules over earlier ones.
import schema from '../../schema/policy.v1.json';
import { FettleError } from '../errors';
import type { Thresholds } from './decide';
import { compileGlob, matchesGlob, type Glob } from './glob';
import { validate, type Schema } from './json-schema';
import { jsonError } from './json-text';

export type PolicyAction = 'stage' | 'direct' | 'ignore' | 'block' | 'thresholds';
export type PolicyLayerName = 'user' | 'project';

export interface PolicyRule {
  layer: PolicyLayerName;
  /** 1-based position in its file */
  index: number;
  /** its `name`, else `<layer>#<index>`: what records and `fettle policy check` call it */
  label: string;
  path: string;
  glob: Glob;
  action: PolicyAction;
  /** block: the reason given */
  message?: string | undefined;
  /** thresholds: those it sets (the rest are the configuration's) */
  thresholds?: Partial<Thresholds> | undefined;
}

export interface PolicyLayer {
  layer: PolicyLayerName;
  /** how the file is named in messages (`.fettle/policy.json`, or the user file's path) */
  file: string;
  rules: PolicyRule[];
}

const HINT = (file: string) =>
  `Fix it in ${file} (the format: schema/policy.v1.json in fettle's package), then check a path with \`fettle policy check <path>\`.`;

const invalid = (file: string, what: string): FettleError =>
  new FettleError('E_POLICY', `${file} is not a valid fettle policy: ${what}.`, { hint: HINT(file) });

interface RawRule {
  name?: string;
  path: string;
  action: PolicyAction;
  message?: string;
  floor?: number;
  ceil?: number;
  ratio?: number;
}

/** `rule 4 (".env*")`, or the document's own place for an error outside the rules. */
const where = (path: (string | number)[], rules: unknown): string => {
  if (path[0] !== 'rules' || typeof path[1] !== 'number') return path.length ? `"${path.join('.')}"` : 'the file';
  const rule = Array.isArray(rules) ? (rules[path[1]] as { path?: unknown } | undefined) : undefined;
  const glob = typeof rule?.path === 'string' ? ` (${JSON.stringify(rule.path)})` : '';
  const field = path.length > 2 ? `: "${path.slice(2).join('.')}"` : '';
  return `rule ${path[1] + 1}${glob}${field}`;
};

/** One policy file's text, checked whole: E_POLICY names the file, the rule and what to fix. */
export const parsePolicy = (text: string, layer: PolicyLayerName, file: string): PolicyLayer => {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw invalid(file, `it is not JSON (${jsonError(text, error)})`);
  }
  const rulesOf = (doc as { rules?: unknown } | null)?.rules;
  const error = validate(doc, schema as Schema);
  if (error) throw invalid(file, `${where(error.path, rulesOf)} ${error.message}`);
  const raw = (doc as { rules: RawRule[] }).rules;
  const labels = new Set<string>();
  const rules = raw.map((r, n): PolicyRule => {
    const glob = compileGlob(r.path);
    if ('error' in glob)
      throw invalid(file, `${where(['rules', n, 'path'], raw)} is not a glob fettle reads: ${glob.error}`);
    const label = r.name ?? `${layer}#${n + 1}`;
    if (labels.has(label))
      throw invalid(file, `${where(['rules', n, 'name'], raw)} repeats the name ${JSON.stringify(label)}`);
    labels.add(label);
    const thresholds =
      r.action === 'thresholds'
        ? Object.fromEntries(
            (['floor', 'ceil', 'ratio'] as const).filter((k) => r[k] !== undefined).map((k) => [k, r[k]]),
          )
        : undefined;
    if (thresholds?.floor !== undefined && thresholds.ceil !== undefined && thresholds.ceil <= thresholds.floor)
      throw invalid(
        file,
        `${where(['rules', n], raw)} has a "ceil" (${thresholds.ceil}) not above its "floor" (${thresholds.floor})`,
      );
    return { layer, index: n + 1, label, path: r.path, glob, action: r.action, message: r.message, thresholds };
  });
  return { layer, file, rules };
};

export interface Resolution {
  /** every rule, in the order considered (user, then project), and whether its glob matches */
  considered: { rule: PolicyRule; matched: boolean }[];
  /** the rule that decides: the last that matches; null when none does (the thresholds in force decide) */
  winner: PolicyRule | null;
}

const inOrder = (layers: readonly PolicyLayer[]): PolicyLayer[] =>
  [...layers].sort((a, b) => (a.layer === b.layer ? 0 : a.layer === 'user' ? -1 : 1));

/**
 * The rule that decides `path`, and only that: the last match, found from the end, so the hook tests no more
 * globs than it must (each is a regex compiled on first use).
 */
export const winnerOf = (layers: readonly PolicyLayer[], path: string): PolicyRule | null => {
  const ordered = inOrder(layers);
  for (let l = ordered.length - 1; l >= 0; l--) {
    const rules = (ordered[l] as PolicyLayer).rules;
    for (let n = rules.length - 1; n >= 0; n--)
      if (matchesGlob((rules[n] as PolicyRule).glob, path)) return rules[n] ?? null;
  }
  return null;
};

/** Which rule decides `path` (a tree path), with every rule considered: the last match, the user's layer first. */
export const resolvePolicy = (layers: readonly PolicyLayer[], path: string): Resolution => {
  const ordered = inOrder(layers);
  const considered = ordered.flatMap((l) => l.rules.map((rule) => ({ rule, matched: matchesGlob(rule.glob, path) })));
  const winner = [...considered].reverse().find((c) => c.matched)?.rule ?? null;
  return { considered, winner };
};

/** What fettle does with a write the rule decides, given the thresholds in force. */
export type PolicyEffect =
  | { kind: 'none' }
  | { kind: 'ignore' | 'stage' | 'direct'; rule: PolicyRule }
  | { kind: 'block'; rule: PolicyRule; message: string }
  | { kind: 'thresholds'; rule: PolicyRule; thresholds: Thresholds };

export const effectOf = (winner: PolicyRule | null, config: Thresholds, files: Record<PolicyLayerName, string>) => {
  if (!winner) return { kind: 'none' } as PolicyEffect;
  if (winner.action === 'block') return { kind: 'block', rule: winner, message: winner.message ?? '' } as PolicyEffect;
  if (winner.action !== 'thresholds') return { kind: winner.action, rule: winner } as PolicyEffect;
  const thresholds = { floor: config.floor, ceil: config.ceil, ratio: config.ratio, ...winner.thresholds };
  if (thresholds.ceil <= thresholds.floor) {
    const file = files[winner.layer];
    const own = winner.thresholds?.ceil !== undefined ? 'its "ceil"' : 'the ceil in force (FETTLE_WRITE_CEIL)';
    const floor = winner.thresholds?.floor !== undefined ? 'its "floor"' : 'the floor in force (FETTLE_WRITE_FLOOR)';
    throw invalid(
      file,
      `rule ${winner.index} (${JSON.stringify(winner.path)}) makes ${own} (${thresholds.ceil}) not above ${floor} (${thresholds.floor})`,
    );
  }
  return { kind: 'thresholds', rule: winner, thresholds } as PolicyEffect;
};

/** `policy:<label>`: who decided, as the Fettle-Decided-By trailer says it. */
export const ruleDecider = (rule: PolicyRule): string => `policy:${rule.label}`;

/** How a rule is named to a person: its label, its glob and its file. */
export const ruleText = (rule: PolicyRule, file: string): string =>
  `${rule.label} (${JSON.stringify(rule.path)} in ${file})`;

/** A parsed layer as plain JSON (each glob's regex by its source), for the cache of parses kept between processes. */
export const layerToJson = (l: PolicyLayer): unknown => ({
  ...l,
  rules: l.rules.map((r) => ({ ...r, glob: { ...r.glob, regex: r.glob.regex.source } })),
});

/** `layerToJson`'s output read back; null when it is not that (a cache written by another version, or torn). */
export const layerFromJson = (data: unknown): PolicyLayer | null => {
  const l = data as PolicyLayer | null;
  if (!l || typeof l.file !== 'string' || (l.layer !== 'user' && l.layer !== 'project') || !Array.isArray(l.rules))
    return null;
  const rules: PolicyRule[] = [];
  for (const r of l.rules as (PolicyRule & { glob: { regex: unknown } })[]) {
    if (typeof r?.glob?.regex !== 'string' || typeof r.label !== 'string' || typeof r.action !== 'string') return null;
    rules.push({ ...r, glob: { ...r.glob, regex: new RegExp(r.glob.regex, 's') } });
  }
  return { layer: l.layer, file: l.file, rules };
};
