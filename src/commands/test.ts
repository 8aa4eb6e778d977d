// `fettle test <id|changeset...> [--session <id>] [--link <path>]... -- <command...>`: run a command in the
// test tree, your working tree as confirm would leave it with those staged changes applied (a changeset: every
// member confirm would write). Exits with the command's exit code (like `env` or `timeout`), after one line saying
// pass or fail.
import { minutesText } from '../core/time';
import { FettleError } from '../errors';
import { createProgress } from '../io/progress';
import { shellQuote } from '../io/self';
import { selectStaged, type TestedSet } from '../protocol/select/staged';
import { linkRequests } from '../protocol/review/test-links';
import { commandEnv, runCommand, startDir } from '../protocol/review/test-run';
import { withTestTree, type TestTree } from '../protocol/review/test-tree';
import { contextFor, type Edge } from './edge';
import { plural } from '../core/plural';
import { shownFile } from '../core/shown-path';

export interface TestOptions {
  session?: string;
  link?: string[];
}

/**
 * The operands split at the first `--` (commander drops it; `raw` is the command line as given): names before
 * it, the command after. Without `--`, the first operand names the change and the rest is the command.
 */
export const splitAtDashes = (operands: string[], raw: readonly string[]): { names: string[]; argv: string[] } => {
  const dashes = raw.indexOf('--');
  const after = dashes < 0 ? -1 : raw.length - dashes - 1;
  const split = after < 0 ? Math.min(1, operands.length) : operands.length - after;
  return { names: operands.slice(0, split), argv: operands.slice(split) };
};

const MAX_LISTED = 5;
const listed = (items: string[]): string =>
  items.length <= MAX_LISTED
    ? items.join(', ')
    : `${items.slice(0, MAX_LISTED).join(', ')} and ${items.length - MAX_LISTED} more`;

const ids = (changes: { id: string }[]): string => listed(changes.map((c) => c.id));

/** A changeset's members the test tree does not apply, as `fettle confirm <changeset>` would skip them. */
const setNotes = (sets: TestedSet[]): string[] =>
  sets.flatMap(({ id, size, applied, dropped }) => {
    const left = [
      ...(applied.length > 0 ? [`${applied.length} confirmed already, in your working tree (${ids(applied)})`] : []),
      ...(dropped.length > 0
        ? [
            `${dropped.length} ${dropped.every((c) => c.state === 'discarded') ? 'discarded' : 'no longer staged'}, left out as confirm would (${ids(dropped)})`,
          ]
        : []),
    ];
    if (left.length === 0) return [];
    const rest = size - applied.length - dropped.length;
    return [
      `fettle: changeset ${id}: ${left.join('; ')}; the test tree applies the other ${rest} of its ${size} changes.`,
    ];
  });

/** What the test tree holds, beyond "your working tree with the changes applied", worth a line each. */
const notes = (tree: TestTree, sets: TestedSet[], now: Date): string[] => {
  const lines: string[] = setNotes(sets);
  for (const { change, how } of tree.landings) {
    if (change.state === 'expired' && change.expiresAt)
      lines.push(
        `fettle: change ${change.id} expired ${minutesText(now.getTime() - change.expiresAt.getTime())} ago, so \`fettle confirm\` would refuse it; re-run the Write to stage it again.`,
      );
    if (how === 'merged')
      lines.push(
        `fettle: ${shownFile(change.fields)} changed after ${change.id} was staged; the test tree holds the clean three-way merge confirm would write.`,
      );
  }
  if (tree.work.kept.length > 0)
    lines.push(`fettle: kept as HEAD has them: ${listed(tree.work.kept.map((k) => `${k.path} (${k.why})`))}.`);
  if (tree.links.missing.length > 0)
    lines.push(`fettle: FETTLE_TEST_LINK: not in your working tree, so not linked: ${listed(tree.links.missing)}.`);
  if (tree.synced.cleaned.length > 0)
    lines.push(`fettle: removed what the last command left in the test tree: ${listed(tree.synced.cleaned)}.`);
  return lines;
};

const stateOf = (tree: TestTree): string => {
  if (tree.fresh) return 'created now, first use';
  if (tree.synced.updated === null) return 'its index was unreadable: checked out again';
  const n = tree.synced.updated.length;
  return n === 0 ? 'up to date' : `${plural(n, 'path')} updated`;
};

export const testCommand = async (
  edge: Edge,
  dir: string | undefined,
  operands: string[],
  raw: readonly string[],
  o: TestOptions,
): Promise<number> => {
  const ctx = contextFor(edge, dir);
  const { names, argv } =
    o.session !== undefined && !raw.includes('--') ? { names: [], argv: operands } : splitAtDashes(operands, raw);
  if (argv.length === 0)
    throw new FettleError('E_USAGE', 'Give the command to run after --.', {
      hint: 'For example: `fettle test <id> -- npm test`.',
    });
  const links = linkRequests(ctx.env, o.link ?? []);
  const { store, changes, sets } = await selectStaged(ctx, names, o.session);
  const progress = createProgress({ write: edge.io.errWrite, tty: edge.io.errTTY, columns: edge.io.columns });
  const shown = argv.map(shellQuote).join(' ');
  // One changeset named alone is called by its id; its members are listed by `fettle show`.
  const named =
    sets.length === 1 && names.length === 1 && o.session === undefined
      ? `changeset ${sets[0]?.id}`
      : changes.map((c) => c.id).join(', ');
  return withTestTree(ctx, store, changes, { links, progress }, async (tree) => {
    for (const line of notes(tree, sets, ctx.now())) edge.io.err(line);
    const cwd = await startDir(tree.source, ctx.cwd, tree.dir);
    edge.io.err(`fettle: running \`${shown}\` in the test tree of ${named} (${stateOf(tree)}): ${cwd}`);
    const result = await runCommand(argv, cwd, await commandEnv(store, ctx.env));
    const why = result.error ? ` (${result.error})` : result.signal ? ` (killed by ${result.signal})` : '';
    const verdict = result.code === 0 ? 'PASS' : 'FAIL';
    edge.io.err(
      `fettle: ${verdict}: \`${shown}\` exited with code ${result.code}${why} in the test tree of ${named}; your working tree was not touched.`,
    );
    return result.code;
  });
};
