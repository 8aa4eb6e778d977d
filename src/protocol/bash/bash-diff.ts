// After a Bash command: what it changed, against the snapshot taken before it (bash-snapshot.ts). One more
// `git status`, and when HEAD moved (a checkout, a reset, a commit) the paths the two HEADs differ at; every path
// in either is looked at with lstat, and read only when its stat changed (or was racy) and git could not vouch
// for it. The decisions are core/bash-changes.ts's.
import { join } from 'node:path';
import {
  changeOf,
  planAfter,
  sideBefore,
  type AfterPlan,
  type PathChange,
  type PathFacts,
  type Side,
} from '../../core/bash-changes';
import type { StatusPath, StatusPaths } from '../../core/porcelain';
import type { Store } from '../../store/store';
import { missingObjects } from '../../store/object-presence';
import { headMoves, workStatus } from '../../store/status';
import type { Context } from '../context';
import { diskAt, readIntoStore, tooLarge, type ToRead } from './bash-snapshot';
import type { Snapshot } from './bash-state';

export interface Found {
  /** every path whose content or mode changed, in path order */
  changes: PathChange[];
  /** what the listing after the command says of each path (HEAD's entry, for a file whose bytes were not kept) */
  listed: Map<string, StatusPath>;
}

const byPath = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * What `snapshot`'s command changed in its work tree, as the disk shows it now. `listing`: that work tree's
 * status, when it was started already (after the command ended).
 */
export const findChanges = async (
  ctx: Context,
  store: Store,
  snapshot: Snapshot,
  listing?: Promise<StatusPaths>,
): Promise<Found> => {
  const root = snapshot.workTree;
  const status = await (listing ?? workStatus(root, ctx.env));
  const moved = status.head !== snapshot.head ? await headMoves(store, snapshot.head, status.head) : new Map();
  const pre = new Map(snapshot.entries.map((e) => [e.path, e]));
  const kept = new Set(snapshot.kept.map((k) => k.path));
  const paths = [...new Set([...pre.keys(), ...status.paths.keys(), ...moved.keys()])]
    .filter((p) => !kept.has(p))
    .sort(byPath);
  const limits = { startNs: BigInt(snapshot.startNs), maxBytes: ctx.config.bashMaxFileBytes };
  const planned: { path: string; facts: PathFacts; plan: AfterPlan }[] = [];
  const toRead: ToRead = [];
  for (const path of paths) {
    const facts: PathFacts = {
      pre: pre.get(path),
      post: status.paths.get(path),
      oldHead: moved.has(path) ? moved.get(path) : undefined,
      disk: diskAt(join(root, ...path.split('/'))),
    };
    let plan = planAfter(facts, limits);
    if (plan === null) continue;
    if (plan.kind === 'read' && facts.disk.kind === 'file') {
      if (toRead.length >= ctx.config.bashMaxFiles || tooLarge(facts.disk.stat, limits.maxBytes))
        plan = { kind: 'known', side: { kind: 'unkept', why: 'not-read' } };
      else toRead.push({ path, stat: facts.disk.stat });
    }
    planned.push({ path, facts, plan });
  }
  const read = await readIntoStore(store, root, toRead);
  // Blobs the snapshot wrote and nothing named since: a `git gc --prune=now` meanwhile would have taken them.
  const snapshotBlobs = planned.flatMap(({ facts }) =>
    facts.pre?.side.kind === 'blob' ? [facts.pre.side.leaf.oid] : [],
  );
  const gone = new Set(await missingObjects(store, snapshotBlobs));
  const changes: PathChange[] = [];
  for (const { path, facts, plan } of planned) {
    let before = sideBefore(facts);
    if (before.kind === 'blob' && facts.pre && gone.has(before.leaf.oid)) before = { kind: 'unkept', why: 'pruned' };
    const change = changeOf(path, before, afterSide(plan, read.get(path)));
    if (change) changes.push(change);
  }
  return { changes, listed: status.paths };
};

const afterSide = (plan: AfterPlan, read: { mode: string; oid: string } | null | undefined): Side => {
  if (plan.kind === 'known') return plan.side;
  if (plan.kind === 'index') return { kind: 'blob', leaf: plan.leaf };
  return read ? { kind: 'blob', leaf: read } : { kind: 'absent' };
};
