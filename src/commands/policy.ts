// `fettle policy check <path> [--tool <name>] [--content-file <file>] [--command <line>] [--session <id>] [--run]
// [--json]`: which policy rules match a call and why: every rule of the repository's `.fettle/policy.json` and the
// user's file, in the order considered (the repository's first), each condition and whether it held, what the
// matching rules tell the agent, the rule that decides, and the commands of the matching `run` rules (run with
// --run, as a write would run them).
import { invocationText, runInvocation } from '../core/policy-run';
import type { Considered } from '../core/policy-engine';
import { ruleShape, type PolicyEffect, type PolicyRule } from '../core/policy';
import type { PolicyFacts } from '../core/policy-when';
import { addedLines } from '../core/session-log';
import { EXIT, FettleError } from '../errors';
import type { Context } from '../protocol/context';
import { openStore, openTarget } from '../protocol/select/open';
import { explainPolicy, type Explained } from '../protocol/decide/policy';
import { runOnProposed, writeOf, type RunFailure } from '../protocol/review/proposed-tree';
import type { Target } from '../store/store';
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
  ...(r.run === undefined ? {} : { run: r.run }),
});

export interface CheckOptions {
  json?: boolean;
  tool?: string;
  contentFile?: string;
  command?: string;
  session?: string;
  run?: boolean;
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
  if (c.rule.action === 'run') return 'matches: runs its command';
  return winner ? `matches; ${winner.label} decides` : 'matches';
};

/** The matching `run` rules' commands, as a write to `path` would run them (none for a shell command). */
const runsOf = (x: Explained, path: string | undefined) =>
  x.runs.map((r) => {
    const spec = r.run as NonNullable<typeof r.run>;
    const command = invocationText(runInvocation(spec, path ?? '{file}'));
    return { rule: r.label, command, onFail: spec.onFail, timeoutSeconds: spec.timeoutSeconds, applies: !!path };
  });

const runLines = (x: Explained, path: string | undefined): string[] => {
  const runs = runsOf(x, path);
  if (runs.length === 0) return [];
  const head = path
    ? 'A write that goes on (direct, staged or asked about) first runs, on the files as it would leave them:'
    : 'These run rules do not apply to a shell command: fettle cannot know what a command will write before it runs.';
  const rows = runs.map((r) => `  ${r.rule}: \`${r.command}\` (failing: ${r.onFail}; timeout ${r.timeoutSeconds} s)`);
  return ['', head, ...rows];
};

const textOf = (x: Explained, what: string, path: string | undefined): string[] => {
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
  lines.push(...runLines(x, path));
  const file = winner ? x.files[winner.layer] : '';
  const outcome = winner
    ? `${what}: decided by policy rule ${winner.label} (${ruleShape(winner)} in ${file}): ${effectText(x.effect).replace(/([^.!?])$/, '$1.')}`
    : `${what}: no rule ${x.feedback.length > 0 || x.runs.length > 0 ? 'decides' : 'matches'}; the thresholds in force decide (floor ${x.thresholds.floor}, ceil ${x.thresholds.ceil}, ratio ${x.thresholds.ratio}; see \`fettle info\`).`;
  lines.push('', outcome);
  return lines;
};

/** The store and the path the call is on: <path>'s, or the repository's around the command for a Bash command. */
const callOn = async (ctx: Context, path: string | undefined, o: CheckOptions) => {
  if (path !== undefined) {
    const target = await openTarget(ctx, path);
    return { store: target.store, treePath: target.treePath as string | undefined, target };
  }
  if (o.command === undefined)
    throw new FettleError('E_USAGE', 'fettle policy check needs a <path>, or --command for a Bash command.', {
      hint: 'Name the file a write would change, or give the command line with --command.',
    });
  return { store: await openStore(ctx), treePath: undefined, target: undefined };
};

/**
 * --run: the matching `run` rules' commands, run as a write of the --content-file (else of the file as it is) would
 * run them, in the session's test tree (--session; else the one of changes without a session).
 */
const runNow = async (ctx: Context, edge: Edge, x: Explained, on: { target: Target; o: CheckOptions }) => {
  const { target, o } = on;
  const content = o.contentFile === undefined ? null : await readUserFile(resolve(edge.cwd, o.contentFile));
  const write = await writeOf(target, content, o.session);
  if (!write)
    throw new FettleError('E_USAGE', `--run: ${target.treePath} does not exist, so there is nothing to run on.`, {
      hint: 'Give the content a write would leave with --content-file.',
    });
  return (await runOnProposed(ctx, write, x.runs, x.files)) ?? [];
};

const ranLines = (failures: RunFailure[]): string[] =>
  failures.length === 0
    ? ['', 'Ran them: every command passed; the write would go on.']
    : [
        '',
        'Ran them:',
        ...failures.map((f) => `${f.text}\n(${f.onFail === 'block' ? 'blocks the write' : 'stages the write'})`),
      ];

export const policyCheck = async (
  edge: Edge,
  dir: string | undefined,
  path: string | undefined,
  o: CheckOptions,
): Promise<number> => {
  const ctx = contextFor(edge, dir);
  const { store, treePath, target } = await callOn(ctx, path, o);
  const facts = await factsOf(edge, o, target?.realPath);
  if (o.session !== undefined) facts.history = sessionHistory(store, o.session);
  const x = explainPolicy(ctx, store, treePath, facts);
  const failures = o.run && target && x.runs.length > 0 ? await runNow(ctx, edge, x, { target, o }) : undefined;
  const exit = failures && failures.length > 0 ? EXIT.failed : EXIT.ok;
  if (!o.json) {
    const on = treePath ?? 'the command';
    const what = facts.tool ? `${on} (${facts.tool})` : on;
    const ran = failures ? ranLines(failures) : [];
    edge.io.out(spelled(edge, dir, [...textOf(x, what, treePath), ...ran].join('\n')));
    return exit;
  }
  edge.io.out(JSON.stringify(checkJson(x, { treePath, facts, o, failures }), null, 2));
  return exit;
};

const checkJson = (
  x: Explained,
  c: { treePath: string | undefined; facts: PolicyFacts; o: CheckOptions; failures: RunFailure[] | undefined },
) => {
  const { treePath, facts, o, failures } = c;
  const winner = x.winner;
  return {
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
    runs: runsOf(x, treePath),
    ...(failures === undefined
      ? {}
      : { ran: { failures: failures.map((f) => ({ rule: f.rule.label, onFail: f.onFail, text: f.text })) } }),
  };
};
