// fettle_apply: `fettle apply <contract>` for the model (protocol/contract/apply-contract.ts): a contract's edits applied
// exactly and staged as one changeset, never written. Without --test: a contract's checks are commands of its
// author's choosing, and a tool call is not a shell the person watches; they run them with `fettle apply --test`.
import { stat } from '../core/record-message';
import { invocationFor, selfCommand, shellQuote } from '../io/self';
import { type AppliedFile, applyContract } from '../protocol/contract/apply-contract';
import { insufficientJson } from '../render/contract-report';
import { type Args, contextFor, dirOf, type McpEdge, text, type ToolResult } from './edge';

const countsOf = (f: AppliedFile): string =>
  f.op === 'create' ? `new file (+${f.added ?? 0})` : f.op === 'delete' ? 'deleted' : stat(f.added, f.removed);

/** A contract's checks are commands: this tool runs none, and says how a person runs them. */
const checksNote = (n: number, command: string): string[] =>
  n === 0
    ? []
    : [`Its ${n} check(s) were not run (fettle_apply runs no commands); a person runs them with: ${command}`];

export const applyTool = async (edge: McpEdge, args: Args): Promise<ToolResult> => {
  const base = contextFor(edge, args);
  // The server's session goes into the records, as every other change this server makes.
  const ctx = { ...base, env: { ...base.env, FETTLE_SESSION: edge.session } };
  const contract = args.contract as string;
  const dryRun = args.dry_run === true;
  const origin = { tool: 'fettle_apply', agent: edge.agent() };
  const a = await applyContract(ctx, contract, { dryRun, origin });
  // The contract asked for a report: the model that planned it gets the data to expand it.
  if (a.kind === 'insufficient')
    return text(
      `fettle: the contract ${contract} cannot be applied as written; nothing was staged. The report, as JSON:\n${JSON.stringify(insufficientJson(a), null, 2)}`,
    );
  const rows = a.files.map((f) => `  ${f.id ? `${f.id}  ` : ''}${f.path}  ${countsOf(f)}`);
  if (a.kind === 'noop')
    return text(`fettle: the contract ${contract} changes nothing: every file it edits already reads as it would.`);
  if (a.kind === 'dry-run')
    return text(
      [`Dry run: the contract would stage ${rows.length} file(s); nothing was staged.`, ...rows, '', a.diff].join('\n'),
    );
  const invoke = invocationFor(selfCommand(edge.env, edge.script), edge.cwd, a.store, dirOf(edge, args));
  const set = JSON.stringify(a.changeset);
  const where =
    a.store.kind === 'repo' && a.store.workTree !== edge.cwd
      ? `, "directory": ${JSON.stringify(a.store.workTree)}`
      : '';
  return text(
    [
      `fettle staged the contract ${contract} as changeset ${a.changeset}: nothing was written yet.`,
      ...rows,
      `Apply it with fettle_confirm with {"ids": [${set}]${where}}, or drop it with fettle_discard with the same ids; a person reviews it with: ${invoke} review ${a.changeset}.`,
      ...checksNote(
        a.contract.contract.checks.length,
        `${invoke} apply --test --dry-run ${shellQuote(a.contract.path)}`,
      ),
      '',
      a.diff,
    ].join('\n'),
  );
};
