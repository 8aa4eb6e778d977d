// What a Bash command changed, from two `git status` listings and the files' stat data: pure decisions, the
// reading left to the caller. Before the command (protocol/bash/bash-snapshot.ts) every path git lists (tracked
// files that differ from the index or HEAD, untracked files that are not ignored) is kept: its blob, or that it
// was absent, with the stat data that tells later whether it changed without reading it again. After the
// command, every path either listing names (and every path two different HEADs differ at) is decided here:
// its bytes before and after, compared by stat first (git's racy rule: a file changed within SLACK_NS of being
// looked at is read again), then by blob id.
import type { StatusPath } from './porcelain';

/** What stat says of a file, as decimal strings (nanoseconds and inode numbers do not fit a double). */
export interface FileStat {
  size: string;
  mtimeNs: string;
  ctimeNs: string;
  ino: string;
  /** st_mode: the type and permission bits */
  mode: number;
}

export type Leaf = { mode: string; oid: string };

/** Why fettle holds no bytes for a side of a change. */
export type Unkept = 'too-large' | 'not-a-file' | 'not-read' | 'pruned';

/** A path's content at one moment: a blob, nothing, or something fettle did not keep. */
export type Side = { kind: 'blob'; leaf: Leaf } | { kind: 'absent' } | { kind: 'unkept'; why: Unkept };

/** A path as the snapshot before the command kept it. */
export interface PreEntry {
  path: string;
  side: Side;
  /** the file's stat when it was kept (none when absent) */
  stat?: FileStat | undefined;
  /** changed so shortly before it was looked at that an equal stat proves nothing (git's racy-clean rule) */
  racy?: boolean | undefined;
}

/**
 * A file whose timestamps are this close to the moment it was looked at (or later) may change again within the
 * same timestamp: some filesystems keep whole seconds, and the kernel's file clock lags the wall clock by a tick.
 */
export const SLACK_NS = 2_000_000_000n;

export const sameStat = (a: FileStat | undefined, b: FileStat | undefined): boolean =>
  a !== undefined &&
  b !== undefined &&
  a.size === b.size &&
  a.mtimeNs === b.mtimeNs &&
  a.ctimeNs === b.ctimeNs &&
  a.ino === b.ino &&
  a.mode === b.mode;

/** Racy: changed within SLACK_NS of `lookedAtNs` (or after it), so an equal stat later proves nothing. */
export const isRacy = (stat: FileStat, lookedAtNs: bigint): boolean =>
  BigInt(stat.mtimeNs) >= lookedAtNs - SLACK_NS || BigInt(stat.ctimeNs) >= lookedAtNs - SLACK_NS;

/** What is at a path now, as lstat saw it. */
export type Disk = { kind: 'file' | 'other'; stat: FileStat } | { kind: 'absent' };

/** Everything known of one path after the command, before any file is read. */
export interface PathFacts {
  pre?: PreEntry | undefined;
  /** what the listing after the command says of it */
  post?: StatusPath | undefined;
  /** HEAD moved during the command: the path's entry in the old HEAD (null: not there) when the two differ */
  oldHead?: Leaf | null | undefined;
  disk: Disk;
}

/** How to learn what a path holds after the command. */
export type AfterPlan =
  /** the index's blob (git compared the file with it) */
  | { kind: 'index'; leaf: Leaf }
  /** read the file and hash it */
  | { kind: 'read' }
  | { kind: 'known'; side: Side };

/**
 * Not written during the command: a file whose inode last changed (ctime: any write, chmod or rename sets it, and
 * nothing can set it back) well before the snapshot began holds what it held then.
 */
const untouchedSince = (disk: Disk, startNs: bigint): boolean =>
  disk.kind !== 'absent' && BigInt(disk.stat.ctimeNs) < startNs - SLACK_NS;

/**
 * How to find a path's content after the command, or null when it cannot have changed (its stat is what the
 * snapshot saw, and was not racy then). `maxBytes`: files larger are not read (recorded as changed, not kept).
 */
export const planAfter = (f: PathFacts, o: { startNs: bigint; maxBytes: number }): AfterPlan | null => {
  const { pre, post, disk } = f;
  if (pre === undefined && untouchedSince(disk, o.startNs)) return null;
  if (disk.kind === 'absent') return pre?.side.kind === 'absent' ? null : { kind: 'known', side: { kind: 'absent' } };
  if (pre?.stat && !pre.racy && sameStat(pre.stat, disk.stat)) return null;
  if (disk.kind === 'other') return { kind: 'known', side: { kind: 'unkept', why: 'not-a-file' } };
  if (post?.matchesIndex && post.index && post.index.mode !== '120000' && post.index.mode !== '160000')
    return { kind: 'index', leaf: post.index };
  if (Number(disk.stat.size) > o.maxBytes) return { kind: 'known', side: { kind: 'unkept', why: 'too-large' } };
  return { kind: 'read' };
};

/**
 * What the path held before the command: the snapshot's record when it listed the path; else the path was
 * clean, so the old HEAD's entry (where HEAD moved), or HEAD's as the listing after shows it, or nothing.
 */
export const sideBefore = (f: PathFacts): Side => {
  if (f.pre) return f.pre.side;
  if (f.oldHead !== undefined) return f.oldHead ? { kind: 'blob', leaf: f.oldHead } : { kind: 'absent' };
  const head = f.post?.head;
  return head && head.mode !== '000000' ? { kind: 'blob', leaf: head } : { kind: 'absent' };
};

export type Action = 'created' | 'deleted' | 'modified' | 'mode';

export interface PathChange {
  path: string;
  action: Action;
  before: Side;
  after: Side;
  /** both sides are blobs or absent: a rollback can restore it */
  kept: boolean;
}

/** The change between two sides of a path, or null when there is none. */
export const changeOf = (path: string, before: Side, after: Side): PathChange | null => {
  const kept = before.kind !== 'unkept' && after.kind !== 'unkept';
  if (before.kind === 'absent' && after.kind === 'absent') return null;
  if (before.kind === 'blob' && after.kind === 'blob') {
    if (before.leaf.oid !== after.leaf.oid) return { path, action: 'modified', before, after, kept };
    if (before.leaf.mode !== after.leaf.mode) return { path, action: 'mode', before, after, kept };
    return null;
  }
  const action: Action = before.kind === 'absent' ? 'created' : after.kind === 'absent' ? 'deleted' : 'modified';
  return { path, action, before, after, kept };
};

/** A rename: a deleted path and a created one with the same blob (git's exact-rename rule). */
export interface Rename {
  from: string;
  to: string;
}

/** Pairs deleted and created paths whose blobs match, each path at most once, in path order. */
export const renamesOf = (changes: readonly PathChange[]): Rename[] => {
  const created = new Map<string, string[]>();
  for (const c of changes)
    if (c.action === 'created' && c.after.kind === 'blob')
      created.set(c.after.leaf.oid, [...(created.get(c.after.leaf.oid) ?? []), c.path]);
  const renames: Rename[] = [];
  for (const c of changes) {
    if (c.action !== 'deleted' || c.before.kind !== 'blob') continue;
    const to = created.get(c.before.leaf.oid)?.shift();
    if (to !== undefined) renames.push({ from: c.path, to });
  }
  return renames;
};
