// Which policy rules match a call and which decides, pure, in two passes over one walk: every matching rule that
// speaks (a format 2 rule with a `message`) is collected, so the agent reads all of them in one answer; the first
// matching rule with a deciding action decides (`note` only speaks; `run` adds its command to those a write that
// goes on must pass, whichever rule decides, and is run by the caller). The project's rules come before the user's,
// so a project `block` is never overridden by a user's rule. A format 1 file keeps its meaning: its last match
// decides (its rules are walked last first) and only the rule that decides speaks.
import type { PolicyLayer, PolicyRule } from './policy';
import { checkRule, type PolicyFacts } from './policy-when';
import type { SessionEntry } from './session-log';

export interface Considered {
  rule: PolicyRule;
  matched: boolean;
  /** explain: each condition and whether it held */
  why: string[];
}

export interface Evaluation {
  /** the rule that decides; null when none does (the thresholds in force decide) */
  decider: PolicyRule | null;
  /** what the matching rules say, in the order considered (the decider's first when it speaks) */
  feedback: { rule: PolicyRule; message: string }[];
  /** the matching `run` rules, in the order considered: their commands run, in turn, on a write that goes on */
  runs: PolicyRule[];
  /** explain only: every rule, project's then user's, each file in its own order */
  considered: Considered[];
}

const DECIDES = new Set(['block', 'ask', 'stage', 'direct', 'ignore', 'thresholds']);

const walked = new WeakMap<PolicyLayer, PolicyRule[]>();
/** A layer's rules in the order they are walked: a format 1 file's last first (its last match decides). */
const walkOf = (layer: PolicyLayer): PolicyRule[] => {
  let rules = walked.get(layer);
  if (!rules) {
    rules = layer.version === 2 ? layer.rules : [...layer.rules].reverse();
    walked.set(layer, rules);
  }
  return rules;
};

const byLayer = (layers: readonly PolicyLayer[]): PolicyLayer[] =>
  [...layers].sort((a, b) => (a.layer === b.layer ? 0 : a.layer === 'project' ? -1 : 1));

const speaks = (layer: PolicyLayer, rule: PolicyRule): boolean => layer.version === 2 && rule.message !== undefined;

/**
 * The rules that match `facts` and the one that decides. Without `explain`, a rule is checked only while it can
 * still decide or speak, and the session's history is read once at most, when a state condition is reached.
 */
export const evaluatePolicy = (layers: readonly PolicyLayer[], facts: PolicyFacts, explain = false): Evaluation => {
  let entries: readonly SessionEntry[] | undefined;
  const history = () => {
    entries ??= facts.history?.() ?? [];
    return entries;
  };
  const ordered = byLayer(layers);
  const matched = new Set<PolicyRule>();
  const feedback: Evaluation['feedback'] = [];
  const runs: PolicyRule[] = [];
  let decider: PolicyRule | null = null;
  for (const layer of ordered) {
    for (const rule of walkOf(layer)) {
      if (decider && !speaks(layer, rule) && rule.action !== 'run' && !explain) continue;
      if (!checkRule(rule.glob, rule.cond, facts, { history, explain: false }).holds) continue;
      matched.add(rule);
      if (speaks(layer, rule)) feedback.push({ rule, message: rule.message as string });
      if (rule.run) runs.push(rule);
      if (!decider && DECIDES.has(rule.action)) decider = rule;
    }
  }
  if (decider?.message !== undefined) {
    const own = feedback.findIndex((f) => f.rule === decider);
    if (own >= 0) feedback.splice(own, 1);
    feedback.unshift({ rule: decider, message: decider.message });
  }
  const considered = explain
    ? ordered.flatMap((l) =>
        l.rules.map((rule) => {
          const why = checkRule(rule.glob, rule.cond, facts, { history, explain: true }).why;
          return { rule, matched: matched.has(rule), why };
        }),
      )
    : [];
  return { decider, feedback, runs, considered };
};

/** The rule that decides a path alone (format 1's question): a shell command's changed files, `fettle info`. */
export const winnerOf = (layers: readonly PolicyLayer[], path: string, facts: PolicyFacts = {}): PolicyRule | null =>
  evaluatePolicy(layers, { ...facts, path }).decider;
