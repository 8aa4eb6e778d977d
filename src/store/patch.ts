// Diffs between two of fettle's commits, as `git diff` prints them. Comparing two commits reads no index and
// no work tree; external diff tools and textconv filters are off so the output is the stored bytes' diff.
import type { Store } from './store';

/**
 * The diff between two commits, of one path when `path` is given (three lines of context: every hunk fettle
 * numbers is read this way, with or without colour, since git colours lines and never moves them).
 */
export const diffCommits = async (
  store: Store,
  from: string,
  to: string,
  options: { color?: boolean; path?: string } = {},
): Promise<string> => {
  // literally: a name with `*` or a leading `:` is a file here, not a pattern
  const only = options.path === undefined ? [] : ['--unified=3', from, to, '--', `:(literal)${options.path}`];
  const { stdout } = await store.git.run({
    args: [
      'diff',
      options.color ? '--color=always' : '--no-color',
      '--no-ext-diff',
      '--no-textconv',
      '--no-renames',
      ...(only.length ? only : [from, to]),
    ],
  });
  return stdout.toString('utf8');
};

/** Commits on each side: `behind` only in `base`'s history, `ahead` only in `head`'s. */
export const distance = async (
  store: Store,
  base: string,
  head: string,
): Promise<{ behind: number; ahead: number }> => {
  const text = await store.git.text({ args: ['rev-list', '--left-right', '--count', `${base}...${head}`] });
  const [behind = 0, ahead = 0] = text.split(/\s+/).map(Number);
  return { behind, ahead };
};

export const countCommits = async (store: Store, rev: string): Promise<number> =>
  Number(await store.git.text({ args: ['rev-list', '--count', rev] }));
