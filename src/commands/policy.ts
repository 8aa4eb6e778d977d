// `fettle policy check <path> [--tool <name>] [--content-file <file>] [--command <line>] [--session <id>] [--json]`:
// which policy rules match a call and why: every rule of the repository's `.fettle/policy.json` and the user's
// file, in the order considered (the repository's first), each condition and whether it held, what the matching
// rules tell the agent, and the rule that decides.
import type { Considered } from '../core/policy-engine';
import { ruleShape, type PolicyEffect, type PolicyRule } from '../core/policy';
import type { PolicyFacts } from '../core/policy-when';
import { addedLines } from '../core/session-log';
import { FettleError } from '../errors';
import type { Context } from '../protocol/context';
import { openStore, openTarget } from '../protocol/select/open';
import { explainPolicy } from '../protocol/decide/policy';
import { readUserFile } from '../protocol/read';
import { sessionHistory } from '../protocol/session-state';
import { table } from './change-view';
import { contextFor, spelled, type Edge } from './edge';
import { plural } from '../core/plural';
import { resolve } from 'node:path';

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
      return `the call is denied, with the rule's message: ${effect.message}`;
    case 'ask':
      return `a person decides at the agent's prompt, told: ${effect.message}`;
    case 'thresholds': {
      const t = effect.thresholds;
      return `the rule's thresholds decide: floor ${t.floor}, ceil ${t.ceil}, ratio ${t.ratio}`;
    }
  }
};

const ruleJson = (r: PolicyRule, matched: boolean, why?: string[]) => ({
  rule: r.label,
  layer: r.layer,
  index: r.index,
  ...(r.path === undefined ? {} : { path: r.path }),
  ...(r.when === undefined ? {} : { when: r.when }),
  action: r.action,
  matched,
  ...(why === undefined ? {} : { why }),
  ...(r.message === undefined ? {} : { message: r.message }),
  ...(r.thresholds === undefined ? {} : { thresholds: r.thresholds }),
});

export interface CheckOptions {
  json?: boolean;
  tool?: string;
  contentFile?: string;
  command?: string;
  session?: string;
}

/** What the options say of the call: its tool, the content it would leave (and so the lines it adds), a command. */
const factsOf = async (edge: Edge, o: CheckOptions, current: string | undefined): Promise<PolicyFacts> => {
  const facts: PolicyFacts = { tool: o.tool, command: o.command };
  if (o.command !== undefined && o.tool === undefined) facts.tool = 'Bash';
  if (o.contentFile !== undefined) {
    const bytes = await readUserFile(resolve(edge.cwd, o.contentFile));
    if (!bytes)
      throw new FettleError('E_USAGE', `--content-file ${o.contentFile}: there is no such file.`, {
        hint: 'Name a file holding the content the write would leave.',
      });
    facts.content = bytes.toString('utf8');
    const old = current === undefined ? '' : ((await readUserFile(current).catch(() => null))?.toString('utf8') ?? '');
    facts.added = addedLines(old, facts.content);
  }
  return facts;
};

const matchText = (c: Considered, winner: PolicyRule | null): string => {
  if (c.rule === winner) return 'matches: decides';
  if (!c.matched) return 'no match';
  if (c.rule.action === 'note') return 'matches: speaks';
  return winner ? `matches; ${winner.label} decides` : 'matches';
};

const textOf = (x: ReturnType<typeof explainPolicy>, what: string): string[] => {
  const winner = x.winner;
  const lines = [
    "Policy files (the repository's, then yours; in a version 2 file every match speaks and the first decides, in a version 1 file the last match decides):",
  ];
  for (const s of [...x.sources].reverse())
    lines.push(`  ${s.layer.padEnd(8)} ${s.display}  ${s.rules === null ? '(none)' : `${plural(s.rules, 'rule')}`}`);
  const considered = x.evaluation.considered;
  if (considered.length > 0) {
    lines.push('', `Rules for ${what}, in the order considered:`);
    const rows = considered.map((c) => [c.rule.label, c.rule.action, ruleShape(c.rule), matchText(c, winner)]);
    lines.push(...table([['RULE', 'ACTION', 'WHEN', 'MATCH'], ...rows]).map((r) => `  ${r}`));
    lines.push('', 'Why:', ...considered.map((c) => `  ${c.rule.label}: ${c.why.join('; ') || 'no condition'}`));
  }
  if (x.feedback.length > 0)
    lines.push('', 'The agent is told:', ...x.feedback.map((f) => `  ${f.rule.label}: ${f.message}`));
  const file = winner ? x.files[winner.layer] : '';
  const outcome = winner
    ? `${what}: decided by policy rule ${winner.label} (${ruleShape(winner)} in ${file}): ${effectText(x.effect).replace(/([^.!?])$/, '$1.')}`
    : `${what}: no rule ${x.feedback.length > 0 ? 'decides' : 'matches'}; the thresholds in force decide (floor ${x.thresholds.floor}, ceil ${x.thresholds.ceil}, ratio ${x.thresholds.ratio}; see \`fettle info\`).`;
  lines.push('', outcome);
  return lines;
};

/** The store and the path the call is on: <path>'s, or the repository's around the command for a Bash command. */
const callOn = async (ctx: Context, path: string | undefined, o: CheckOptions) => {
  if (path !== undefined) {
    const target = await openTarget(ctx, path);
    return { store: target.store, treePath: target.treePath as string | undefined, file: target.realPath };
  }
  if (o.command === undefined)
    throw new FettleError('E_USAGE', 'fettle policy check needs a <path>, or --command for a Bash command.', {
      hint: 'Name the file a write would change, or give the command line with --command.',
    });
  return { store: await openStore(ctx), treePath: undefined, file: undefined };
};

export const policyCheck = async (edge: Edge, dir: string | undefined, path: string | undefined, o: CheckOptions) => {
  const ctx = contextFor(edge, dir);
  const { store, treePath, file } = await callOn(ctx, path, o);
  const facts = await factsOf(edge, o, file);
  if (o.session !== undefined) facts.history = sessionHistory(store, o.session);
  const x = explainPolicy(ctx, store, treePath, facts);
  const winner = x.winner;
  if (!o.json) {
    const on = treePath ?? 'the command';
    const what = facts.tool ? `${on} (${facts.tool})` : on;
    edge.io.out(spelled(edge, dir, textOf(x, what).join('\n')));
    return;
  }
  const out = {
    ...(treePath === undefined ? {} : { path: treePath }),
    ...(o.command === undefined ? {} : { command: o.command }),
    ...(facts.tool === undefined ? {} : { tool: facts.tool }),
    files: x.sources.map((s) => ({ layer: s.layer, file: s.path, rules: s.rules })),
    considered: x.evaluation.considered.map((c) => ruleJson(c.rule, c.matched, c.why)),
    feedback: x.feedback.map((f) => ({ rule: f.rule.label, message: f.message })),
    decidedBy: winner ? ruleJson(winner, true) : null,
    effect: {
      kind: x.effect.kind,
      text: effectText(x.effect),
      thresholds: { floor: x.thresholds.floor, ceil: x.thresholds.ceil, ratio: x.thresholds.ratio },
    },
  };
  edge.io.out(JSON.stringify(out, null, 2));
};
