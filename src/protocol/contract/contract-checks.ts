// The checks of a contract (`fettle apply --test`): each command run, in order, at the top of the test tree of the
// staged changeset (test-tree.ts: the working tree as confirm would leave it). Their output goes to stderr, so a
// command's stdout (its --json) stays fettle's own. The outcome is recorded with the changeset (Fettle-Checks and
// a note in every change) and shown by `fettle review`.
import { shellQuote } from '../../core/shell-quote';
import type { Store } from '../../store/store';
import type { Change } from '../changes';
import type { Context } from '../context';
import type { Progress } from '../../io/progress';
import type { LinkRequest } from '../review/test-links';
import { commandEnv, runCommand, type RunResult } from '../review/test-run';
import { withTestTree } from '../review/test-tree';

export interface CheckRun {
  outcome: 'passed' | 'failed';
  results: { argv: string[]; result: RunResult }[];
  /** the lines recorded in each change's message */
  note: string;
}

export const commandText = (argv: string[]): string => argv.map(shellQuote).join(' ');

const resultText = (r: RunResult): string =>
  r.error ? `could not run (${r.error})` : r.signal ? `killed by ${r.signal}` : `exit ${r.code}`;

export const runChecks = async (
  ctx: Context,
  store: Store,
  changes: Change[],
  checks: string[][],
  o: { links: readonly LinkRequest[]; progress: Progress },
): Promise<CheckRun> =>
  withTestTree(ctx, store, changes, o, async (tree) => {
    const env = await commandEnv(store, ctx.env);
    const results: CheckRun['results'] = [];
    for (const argv of checks) {
      ctx.notice?.(`fettle: check: running \`${commandText(argv)}\` in the test tree ${tree.dir}`);
      results.push({ argv, result: await runCommand(argv, tree.dir, env, { stdout: 'stderr' }) });
    }
    const outcome = results.every((r) => r.result.code === 0) ? 'passed' : 'failed';
    const note = [
      `Checks ${outcome} in the test tree (fettle apply --test), with the changeset applied:`,
      ...results.map((r) => `  ${commandText(r.argv)}: ${resultText(r.result)}`),
    ].join('\n');
    return { outcome, results, note };
  });
