// Diffs between two of fettle's commits, as `git diff` prints them. Comparing two commits reads no index and
// no work tree; external diff tools and textconv filters are off so the output is the stored bytes' diff.
import type { Store } from './store';

export const diffCommits = async (
  store: Store,
  from: string,
  to: string,
  options: { color?: boolean } = {},
): Promise<string> => {
  const { stdout } = await store.git.run({
    args: [
      'diff',
      options.color ? '--color=always' : '--no-color',
      '--no-ext-diff',
      '--no-textconv',
      '--no-renames',
      from,
      to,
    ],
  });
  return stdout.toString('utf8');
};

/**
 * One path's diff between two commits with three lines of context, as every hunk fettle numbers is read: the same
 * text with or without colour (git colours lines, never moves them).
 */
export const diffPath = async (
  store: Store,
  from: string,
  to: string,
  path: string,
  options: { color?: boolean } = {},
): Promise<string> => {
  const { stdout } = await store.git.run({
    args: [
      'diff',
      options.color ? '--color=always' : '--no-color',
      '--no-ext-diff',
      '--no-textconv',
      '--no-renames',
      '--unified=3',
      from,
      to,
      '--',
      // literally: a name with `*` or a leading `:` is a file here, not a pattern
      `:(literal)${path}`,
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
