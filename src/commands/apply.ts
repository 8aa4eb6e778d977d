// `fettle apply <contract> [--dry-run] [--test] [--link <path>]... [--json]`: the contract's edits applied exactly
// as written and staged as one changeset (protocol/contract/apply-contract.ts); `--dry-run` shows the diff and stages
// nothing; `--test` runs the contract's checks in the test tree first and records their outcome with it.
// Exit: 0 (dry run, or nothing to change), 3 staged, 4 a check failed (staged unless --dry-run), 1 failed (with
// `"fallback": "report"`, the report of what each failed edit lacked, on stdout).
import { stat } from '../core/record-message';
import { EXIT } from '../errors';
import { createProgress } from '../io/progress';
import { invocationFor, selfCommand } from '../io/self';
import { applyContract, type Applied, type AppliedFile } from '../protocol/contract/apply-contract';
import { commandText } from '../protocol/contract/contract-checks';
import { insufficientJson, insufficientText } from '../render/contract-report';
import { linkRequests } from '../protocol/review/test-links';
import { inCommandSession } from '../protocol/select/command-session';
import { contextFor, cwdFor, type Edge } from './edge';
import { plural } from '../core/plural';

export interface ApplyCommandOptions {
  dryRun?: boolean;
  test?: boolean;
  link?: string[];
  json?: boolean;
}

const countsOf = (f: AppliedFile): string =>
  f.op === 'create'
    ? `new file${f.added === undefined ? '' : ` (+${f.added})`}`
    : f.op === 'delete'
      ? `deleted${f.removed === undefined ? '' : ` (-${f.removed})`}`
      : stat(f.added, f.removed) || 'binary';

const checksLines = (a: Applied): string[] => {
  if (!a.checks) return [];
  const n = a.checks.results.length;
  return [
    `Checks ${a.checks.outcome} in the test tree (${plural(n, 'command')}):`,
    ...a.checks.results.map(
      (r) =>
        `  ${commandText(r.argv)}: ${r.result.error ? `could not run (${r.result.error})` : r.result.signal ? `killed by ${r.result.signal}` : `exit ${r.result.code}`}`,
    ),
  ];
};

/** `--json`: the outcome, its files and checks, and for a staged changeset the commands that decide on it. */
const appliedJson = (a: Applied, invoke: string) => {
  const next =
    a.kind === 'staged'
      ? {
          review: `${invoke} review ${a.changeset}`,
          confirm: `${invoke} confirm ${a.changeset}`,
          discard: `${invoke} discard ${a.changeset}`,
        }
      : {};
  const checks = a.checks && {
    outcome: a.checks.outcome,
    results: a.checks.results.map((r) => ({ argv: r.argv, ...r.result })),
  };
  return {
    kind: a.kind,
    changeset: a.changeset ?? null,
    contract: { path: a.contract.path, hash: a.contract.hash },
    files: a.files.map((f) => ({
      id: f.id ?? null,
      path: f.path,
      file: f.file,
      op: f.op,
      added: f.added ?? null,
      removed: f.removed ?? null,
    })),
    checks: checks ?? null,
    diff: a.diff,
    ...next,
  };
};

/** For a person: nothing to change, what a dry run would stage, or the staged changeset and its next steps. */
const appliedText = (a: Applied, contract: string, invoke: string): string => {
  const rows = a.files.map((f) => `  ${f.id ? `${f.id}  ` : ''}${f.path}  ${countsOf(f)}`);
  const files = `${plural(a.files.length, 'file')}`;
  const hash = `${a.contract.hash.slice(0, 19)}…`;
  if (a.kind === 'noop')
    return `fettle: the contract ${contract} changes nothing: every file it edits already reads as it would leave it.`;
  if (a.kind === 'dry-run')
    return [
      `fettle apply --dry-run: the contract ${contract} (${hash}) would stage ${files}; nothing was staged.`,
      ...rows,
      ...checksLines(a),
      '',
      a.diff,
    ].join('\n');
  return [
    `fettle staged the contract ${contract} as changeset ${a.changeset}: ${files}, nothing written yet.`,
    ...rows,
    `Contract: ${a.contract.path} (${hash}); editing it now makes confirm refuse (apply it again instead).`,
    ...checksLines(a),
    `To review it:  ${invoke} review ${a.changeset}`,
    `To apply it:   ${invoke} confirm ${a.changeset}`,
    `To drop it:    ${invoke} discard ${a.changeset}`,
    '',
    a.diff,
  ].join('\n');
};

export const applyCommand = async (
  edge: Edge,
  dir: string | undefined,
  contract: string,
  o: ApplyCommandOptions,
): Promise<number> => {
  const ctx = await inCommandSession(contextFor(edge, dir));
  const progress = createProgress({ write: edge.io.errWrite, tty: edge.io.errTTY, columns: edge.io.columns });
  const links = linkRequests(ctx.env, o.link ?? []);
  const a = await applyContract(ctx, contract, { dryRun: o.dryRun, test: o.test, links, progress });
  const invoke = invocationFor(selfCommand(ctx.env, edge.io.script), edge.cwd, a.store, cwdFor(edge, dir));
  if (a.kind === 'insufficient') {
    edge.io.out(o.json ? JSON.stringify(insufficientJson(a), null, 2) : insufficientText(a, contract));
    return EXIT.failed;
  }
  const code = a.checks?.outcome === 'failed' ? EXIT.checksFailed : a.kind === 'staged' ? EXIT.staged : EXIT.ok;
  edge.io.out(o.json ? JSON.stringify(appliedJson(a, invoke), null, 2) : appliedText(a, contract, invoke));
  return code;
};
