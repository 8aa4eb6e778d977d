// PR-style review of a staged change: where it was based, how far HEAD has moved since, and pushing its
// commit as a branch of a remote. Pushing goes to the remote's URL, so not even a remote-tracking ref of the
// user's changes; local branches, HEAD and the index are never involved.
import { FettleError } from '../errors';
import type { Store } from '../store/store';
import { headCommit, readObjects } from '../store/objects';
import { countCommits, distance } from '../store/patch';
import type { Change } from './changes';
import { writtenCommit, type Chain } from './history';

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
}

export const pushChange = (
  store: Store,
  change: Change,
  chain: Chain,
  remote: string,
  branch: string,
): Promise<Pushed> => pushCommit(store, writtenCommit(chain) ?? change.tip, remote, branch);

/** Pushes `commit` as `branch` of `remote` (a remote's name, a URL or a path), never forcing. */
export const pushCommit = async (store: Store, commit: string, remote: string, branch: string): Promise<Pushed> => {
  const ref = `refs/heads/${branch}`;
  const { code } = await store.git.run({ args: ['check-ref-format', ref], okCodes: [1] });
  if (code !== 0 || branch.startsWith('-')) throw new FettleError('E_USAGE', `'${branch}' is not a valid branch name.`);
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
  // No force: an existing branch is only fast-forwarded, never overwritten.
  await store.git.run({ args: ['push', '--quiet', '--no-verify', '--', url, `${commit}:${ref}`] });
  return { commit, branch, url };
};
