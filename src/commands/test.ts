// `fettle test <id|commit> -- <command...>`: run a command in a staged change's hidden worktree. Exits with
// the command's exit code (like `env` or `timeout`), after one line saying pass or fail.
import { shellQuote } from '../io/self';
import { commandEnv, prepareWorktree, runCommand, startDir } from '../protocol/test-run';
import { resolveChange } from '../protocol/arguments';
import { contextFor, type Edge } from './edge';

export const testCommand = async (
  edge: Edge,
  dir: string | undefined,
  arg: string,
  argv: string[],
): Promise<number> => {
  const ctx = contextFor(edge, dir);
  const { store, change } = await resolveChange(ctx, arg);
  const { dir: tree, filled } = await prepareWorktree(ctx, store, change);
  const cwd = await startDir(store, ctx.cwd, tree);
  const shown = argv.map(shellQuote).join(' ');
  edge.io.err(
    `fettle: running \`${shown}\` in the staged tree of ${change.id}${filled ? ' (checked out now, first use)' : ''}: ${cwd}`,
  );
  const result = await runCommand(argv, cwd, await commandEnv(store, ctx.env));
  const why = result.error ? ` (${result.error})` : result.signal ? ` (killed by ${result.signal})` : '';
  const verdict = result.code === 0 ? 'PASS' : 'FAIL';
  edge.io.err(
    `fettle: ${verdict}: \`${shown}\` exited with code ${result.code}${why} in the staged tree of ${change.id}; your working tree was not touched.`,
  );
  return result.code;
};
