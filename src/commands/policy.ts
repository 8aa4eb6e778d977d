// `fettle policy check <path> [--json]`: which policy rule decides a path and why: every rule of the user's file
// and the repository's `.fettle/policy.json`, in the order considered, whether its glob matches, and the one that
// decides (the last match: the project's rules after the user's, later after earlier).
import type { PolicyEffect, PolicyRule } from '../core/policy';
import { openTarget } from '../protocol/select/open';
import { explainPolicy } from '../protocol/decide/policy';
import { table } from './change-view';
import { contextFor, spelled, type Edge } from './edge';
import { plural } from '../core/plural';

/** What a rule does to a write, in words. */
export const effectText = (effect: PolicyEffect): string => {
  switch (effect.kind) {
    case 'none':
      return 'no rule matches: the thresholds in force decide';
    case 'stage':
      return 'every change is staged for review, whatever its size';
    case 'direct':
      return 'every change goes through (recorded), whatever its size';
    case 'ignore':
      return 'fettle does nothing: writes go through, unrecorded';
    case 'block':
      return `every write is denied, with the rule's message: ${effect.message}`;
    case 'thresholds': {
      const t = effect.thresholds;
      return `the rule's thresholds decide: floor ${t.floor}, ceil ${t.ceil}, ratio ${t.ratio}`;
    }
  }
};

const ruleJson = (r: PolicyRule, matched: boolean) => ({
  rule: r.label,
  layer: r.layer,
  index: r.index,
  path: r.path,
  action: r.action,
  matched,
  ...(r.message === undefined ? {} : { message: r.message }),
  ...(r.thresholds === undefined ? {} : { thresholds: r.thresholds }),
});

export const policyCheck = async (edge: Edge, dir: string | undefined, path: string, o: { json?: boolean }) => {
  const ctx = contextFor(edge, dir);
  const target = await openTarget(ctx, path);
  const x = explainPolicy(ctx, target);
  const winner = x.resolution.winner;
  if (o.json) {
    edge.io.out(
      JSON.stringify(
        {
          path: target.treePath,
          files: x.sources.map((s) => ({ layer: s.layer, file: s.path, rules: s.rules })),
          considered: x.resolution.considered.map((c) => ruleJson(c.rule, c.matched)),
          decidedBy: winner ? ruleJson(winner, true) : null,
          effect: {
            kind: x.effect.kind,
            text: effectText(x.effect),
            thresholds: { floor: x.thresholds.floor, ceil: x.thresholds.ceil, ratio: x.thresholds.ratio },
          },
        },
        null,
        2,
      ),
    );
    return;
  }
  const lines = ["Policy files (the user's, then the repository's; the last rule that matches decides):"];
  for (const s of x.sources)
    lines.push(`  ${s.layer.padEnd(8)} ${s.display}  ${s.rules === null ? '(none)' : `${plural(s.rules, 'rule')}`}`);
  const considered = x.resolution.considered;
  if (considered.length > 0) {
    lines.push('', `Rules for ${target.treePath}, in the order considered:`);
    const rows = considered.map((c) => [
      c.rule.label,
      c.rule.action,
      JSON.stringify(c.rule.path),
      c.rule === winner ? 'matches: decides' : c.matched ? 'matches, overridden by a later rule' : 'no match',
    ]);
    lines.push(...table([['RULE', 'ACTION', 'PATH', 'MATCH'], ...rows]).map((r) => `  ${r}`));
  }
  const file = winner ? x.files[winner.layer] : '';
  const outcome = winner
    ? `${target.treePath}: decided by policy rule ${winner.label} (${JSON.stringify(winner.path)} in ${file}): ${effectText(x.effect).replace(/([^.!?])$/, '$1.')}`
    : `${target.treePath}: no rule matches; the thresholds in force decide (floor ${x.thresholds.floor}, ceil ${x.thresholds.ceil}, ratio ${x.thresholds.ratio}; see \`fettle info\`).`;
  lines.push('', outcome);
  edge.io.out(spelled(edge, dir, lines.join('\n')));
};
