// A changeset as one pull request: the commit its changes were recorded on (HEAD then) with every member's file
// as it wrote or proposes it, so `fettle review <changeset>` is one diff per file (against the bytes each member
// replaced, own-diff.ts) and `--push` one commit on that base, as `review --session` does for a whole session
// (session-review.ts). The tree is made in memory from the trees along the members' paths.
import { FettleError } from '../../errors';
import { rootOf, writeBatch } from '../../store/objects';
import { readFiles, readObjects } from '../../store/object-read';
import type { Store } from '../../store/store';
import { dirSpecs, dirsAlong, editOverlay, overlayOf } from '../../store/tree-overlay';
import type { NewTree } from '../../store/tree-codec';
import { newestFirst, type Change } from '../changes';
import { chainsOf, replacedCommit, writtenCommit, type Chain } from '../chains';
import type { PushOptions, Pushed } from './review';
import { pushTree, treeToPush } from './session-review';
import { ownDiff, type FileStat, type Run } from './own-diff';
import { plural } from '../../core/plural';

export interface ChangesetView {
  id: string;
  /** every member, newest first, and those the view shows (all but discarded ones, unless all are) */
  members: Change[];
  shown: Change[];
  /** HEAD when its changes were recorded (null: unborn HEAD or the private store) */
  base: string | null;
  tree: string;
  files: FileStat[];
  diff: string;
  /** what its members changed, oldest first (see own-diff.ts) */
  runs: Run[];
  /** files its members changed on bytes the base does not hold: pushing its tree would publish them */
  foreign: string[];
}

/** The members a review shows: what was written or proposed and not dropped. */
const shownOf = (members: Change[], chains: Chain[]): Change[] => {
  const written = members.filter((_, n) => writtenCommit(chains[n] as Chain) !== undefined);
  const live = written.filter((c) => c.state !== 'discarded');
  return live.length > 0 ? live : written;
};

export const readChangesetView = async (
  store: Store,
  id: string,
  members: Change[],
  color = false,
): Promise<ChangesetView> => {
  const sorted = [...members].sort(newestFirst);
  const chains = await chainsOf(
    store,
    sorted.map((c) => c.tip),
  );
  const shown = shownOf(sorted, chains);
  if (shown.length === 0)
    throw new FettleError('E_NOT_FOUND', `No change of changeset ${id} has a result to review.`, {
      hint: `See its changes with \`fettle show ${id}\`.`,
    });
  const chainOf = (c: Change) => chains[sorted.indexOf(c)] as Chain;
  const base = chainOf(shown[shown.length - 1] as Change).base;
  const paths = shown.map((c) => c.fields.path);
  const dirs = dirsAlong(paths);
  const [entries, objects, replaced] = await Promise.all([
    readFiles(
      store,
      shown.map((c) => ({ commit: writtenCommit(chainOf(c)) as string, path: c.fields.path })),
    ),
    readObjects(store, dirSpecs(base, dirs)),
    readFiles(
      store,
      shown.map((c) => ({ commit: replacedCommit(chainOf(c)), path: c.fields.path })),
    ),
  ]);
  const overlay = overlayOf(dirs, objects);
  const trees: NewTree[] = [];
  // Oldest first, so that of two members of one path the newer one is what the view holds.
  for (let n = shown.length - 1; n >= 0; n--) {
    const entry = entries[n];
    const leaf = entry ? { mode: entry.mode, oid: entry.oid } : null;
    trees.push(...editOverlay(overlay, (shown[n] as Change).fields.path, leaf, store.objectFormat));
  }
  await writeBatch(store, trees, []);
  const tree = rootOf(trees);
  const leaf = (f: (typeof entries)[number] | undefined) => (f ? { mode: f.mode, oid: f.oid } : null);
  const runs = shown
    .map((c, n): Run => ({ path: c.fields.path, from: leaf(replaced[n]), to: leaf(entries[n]) }))
    .reverse();
  const { files, diff, foreign } = await ownDiff(store, base, runs, color);
  return { id, members: sorted, shown, base, tree, files, diff, runs, foreign };
};

/** The changeset as one commit on its base, pushed as `branch` of `remote`; no local ref is created or moved. */
export const pushChangeset = async (
  store: Store,
  view: ChangesetView,
  target: { remote: string; branch: string },
  when: Date,
  options: PushOptions = {},
): Promise<Pushed> => {
  const listed = view.shown.map((c) => `  ${c.id}  ${c.fields.path}`).join('\n');
  const n = view.files.length;
  const message = `fettle: changeset ${view.id} (${plural(n, 'file')})\n\nThe changes of changeset ${view.id}, on the commit they were recorded on.\n\n${listed}\n`;
  const tree = await treeToPush(store, view, options.base);
  return pushTree(store, { tree, base: view.base, message, when }, target, options);
};
