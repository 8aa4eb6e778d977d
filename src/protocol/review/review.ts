// PR-style review of a staged change: where it was based, how far HEAD has moved since, and pushing its
// commit as a branch of a remote. Pushing goes to the remote's URL, so not even a remote-tracking ref of the
// user's changes; local branches, HEAD and the index are never involved.
import { FettleError } from '../../errors';
import type { Store } from '../../store/store';
import { writeCommit } from '../../store/objects';
import { headCommit, readFiles, readObjects } from '../../store/object-read';
import { countCommits, distance } from '../../store/patch';
import type { Change } from '../changes';
import { replacedCommit, writtenCommit, type Chain } from '../chains';
import { foreignFiles, treeOnBase, type Run } from './own-diff';

export interface BaseMove {
  base: string | null;
  head: string | null;
  /** commits on HEAD not in the base, and in the base not on HEAD */
  ahead: number;
  behind: number;
  /** the changed file is different on HEAD than in the base */
  fileMoved: boolean;
}

const blobAt = async (store: Store, commit: string | null, path: string): Promise<string | null> => {
  if (!commit) return null;
  const [blob] = await readObjects(store, [`${commit}:${path}`]);
  return blob?.type === 'blob' ? blob.oid : null;
};

export const baseMove = async (store: Store, change: Change, chain: Chain): Promise<BaseMove> => {
  const { base } = chain;
  const head = await headCommit(store);
  const path = change.fields.path;
  const fileMoved = (await blobAt(store, base, path)) !== (await blobAt(store, head, path));
  if (!head || head === base) return { base, head, ahead: 0, behind: 0, fileMoved };
  if (!base) return { base, head, ahead: await countCommits(store, head), behind: 0, fileMoved };
  return { base, head, ...(await distance(store, base, head)), fileMoved };
};

const remoteUrl = async (store: Store, remote: string): Promise<string> => {
  const { code, stdout } = await store.git.run({ args: ['remote', 'get-url', '--push', remote], okCodes: [2, 128] });
  return code === 0 ? stdout.toString('utf8').trim() : remote; // not a remote's name: a URL or a path
};

export interface Pushed {
  commit: string;
  branch: string;
  url: string;
  /** the branch already held this commit: nothing was pushed */
  already?: boolean;
  /** the commit the branch held before --force moved it */
  moved?: string;
}

/**
 * What a push is made on where the changes were made on bytes their base does not hold (a person's uncommitted
 * edits, another session's): `disk`, those bytes, published with the changes; `head`, the base's own version of
 * each file, the changes applied to it.
 */
export type PushBase = 'head' | 'disk';

export interface PushOptions {
  /** move `branch` when it already exists on the remote with other history */
  force?: boolean;
  base?: PushBase | undefined;
}

/** A push that would publish bytes its base does not hold, and nobody chose how to push it. */
export const publishRefusal = (foreign: readonly string[], base: string | null): FettleError =>
  new FettleError(
    'E_USAGE',
    `The changes were made on bytes that are not in ${base ? `commit ${base.slice(0, 12)}` : 'any commit'} (uncommitted edits, or another session's): ${foreign.join(', ')}. Pushed as they were made, the branch would publish those bytes too. Nothing was pushed.`,
    {
      hint: 'Add `--base head` to push the changes alone, applied to the committed version of each file, or `--base disk` to push them with those bytes.',
    },
  );

/** What one change did, as a run (see own-diff.ts): the bytes it replaced, and what it wrote or proposes. */
export const changeRuns = async (store: Store, change: Change, chain: Chain): Promise<Run[]> => {
  const { path } = change.fields;
  const written = writtenCommit(chain) ?? change.tip;
  const [from = null, to = null] = await readFiles(store, [
    { commit: replacedCommit(chain), path },
    { commit: written, path },
  ]);
  const leaf = (f: typeof from) => f && { mode: f.mode, oid: f.oid };
  return [{ path, from: leaf(from), to: leaf(to) }];
};

/** The files of a change made on bytes its base does not hold (its path, or none). */
export const changeForeign = async (store: Store, change: Change, chain: Chain): Promise<string[]> =>
  foreignFiles(store, chain.base, await changeRuns(store, change, chain));

export const pushChange = async (
  store: Store,
  change: Change,
  chain: Chain,
  target: { remote: string; branch: string },
  options: PushOptions = {},
): Promise<Pushed> => {
  const written = writtenCommit(chain) ?? change.tip;
  const runs = await changeRuns(store, change, chain);
  const foreign = await foreignFiles(store, chain.base, runs);
  if (foreign.length > 0 && options.base === undefined) throw publishRefusal(foreign, chain.base);
  if (foreign.length === 0 || options.base === 'disk')
    return pushCommit(store, await withoutEmptyBefore(store, chain, written), target, options);
  // On the base's own file: one commit on the base, with the message of the commit it stands for.
  const tree = await treeOnBase(store, chain.base, runs);
  const message = chain.commits.find((c) => c.oid === written)?.message ?? '';
  const when = new Date((chain.commits[0]?.time ?? 0) * 1000);
  const commit = await writeCommit(store, tree, chain.base ? [chain.base] : [], message, when);
  return pushCommit(store, commit, target, options);
};

/**
 * `commit` as a reviewer should see it: when the change's `before` commit is empty (the file on disk was as HEAD
 * has it, the usual case), the commits above it are written again on HEAD itself, so the pushed branch is HEAD
 * and then the change. A `before` holding uncommitted edits of the file is part of the story and stays.
 */
const withoutEmptyBefore = async (store: Store, chain: Chain, commit: string): Promise<string> => {
  const at = chain.commits.findIndex((c) => c.oid === commit);
  const before = chain.commits[chain.commits.length - 1];
  if (at < 0 || before?.fields?.kind !== 'before') return commit;
  // Tip first, down to the commit just above `before`; rewritten bottom up.
  const above = chain.commits.slice(at, -1);
  const base = chain.base ?? EMPTY_TREE[store.objectFormat];
  const revs = [before.oid, base, ...above.map((c) => c.oid)].map((rev) => `${rev}^{tree}`);
  const [beforeTree, baseTree, ...trees] = (await store.git.text({ args: ['rev-parse', ...revs] })).split('\n');
  if (beforeTree !== baseTree) return commit;
  let below = chain.base;
  for (let n = above.length - 1; n >= 0; n--) {
    const c = above[n] as (typeof above)[number];
    below = await writeCommit(store, trees[n] ?? '', below ? [below] : [], c.message, new Date(c.time * 1000));
  }
  return below ?? commit;
};

/** git's empty tree, by object format: the tree of a commit with no files. */
const EMPTY_TREE = {
  sha1: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
  sha256: '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321',
} as const;

/**
 * Pushes `commit` as `branch` of `remote` (a remote's name, a URL or a path). A branch that already exists there
 * with another commit is never moved without `force` (`main` pushed over by an unreviewed proposal), and then only
 * from the commit it was seen at.
 */
/**
 * The URL `branch` of `remote` is pushed to, once the names are checked: a valid branch name, a remote that is not
 * an option, and a push URL git would not read as one. Said before anything is asked or written.
 */
export const pushTarget = async (store: Store, { remote, branch }: { remote: string; branch: string }) => {
  const { code } = await store.git.run({ args: ['check-ref-format', `refs/heads/${branch}`], okCodes: [1] });
  if (code !== 0 || branch.startsWith('-')) throw new FettleError('E_USAGE', `'${branch}' is not a valid branch name.`);
  return remoteTarget(store, remote);
};

/** The push URL of `remote` (a remote's name, a URL or a path), refused when git would read either as an option. */
export const remoteTarget = async (store: Store, remote: string): Promise<string> => {
  if (remote.startsWith('-')) throw new FettleError('E_USAGE', `'${remote}' is not a remote.`);
  const url = await remoteUrl(store, remote);
  // A remote's URL is configuration anyone with the repository may have set: one that starts with '-' would be
  // read by git as an option (--receive-pack=<command> runs a command). Refused, and options end with '--'.
  if (url.startsWith('-'))
    throw new FettleError(
      'E_USAGE',
      `remote '${remote}' has the push URL '${url}', which git would read as an option.`,
      {
        hint: `Check it with \`git remote -v\`, or push to a URL or path given directly.`,
      },
    );
  return url;
};

export const pushCommit = async (
  store: Store,
  commit: string,
  { remote, branch }: { remote: string; branch: string },
  options: PushOptions = {},
): Promise<Pushed> => {
  const ref = `refs/heads/${branch}`;
  const url = await pushTarget(store, { remote, branch });
  const listed = await store.git.text({ args: ['ls-remote', '--heads', '--', url, ref] });
  const existing = listed
    .split('\n')
    .map((line) => line.split('\t'))
    .find(([, name]) => name === ref)?.[0];
  if (existing === commit) return { commit, branch, url, already: true };
  if (existing && !options.force)
    throw new FettleError(
      'E_CONFLICT',
      `branch '${branch}' already exists on ${remote} (at ${existing.slice(0, 12)}); fettle does not move a branch that exists. Nothing was pushed.`,
      {
        hint: `Push it as a new branch (the default is fettle/<id>, or name one with --branch), or add --force to move '${branch}' to it.`,
      },
    );
  const lease = existing ? [`--force-with-lease=${ref}:${existing}`] : [];
  await store.git.run({ args: ['push', '--quiet', '--no-verify', ...lease, '--', url, `${commit}:${ref}`] });
  return { commit, branch, url, ...(existing ? { moved: existing } : {}) };
};
