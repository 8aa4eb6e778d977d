// What a session or a changeset changed, as runs: a file went from the bytes a change replaced (`from`) to what
// the last of its consecutive changes left (`to`). Another writer's edit between two of them (another session,
// the person) starts a new run, so each diff is against the bytes replaced and nobody else's edits are shown as
// theirs. Pushed, the runs are either the trees as they were on disk, or applied to the base's own version of each
// file (`--base head`): nothing uncommitted leaves the machine.
import { classifyContent } from '../../core/content';
import { FettleError } from '../../errors';
import { writeBatch, writeBlobs } from '../../store/objects';
import { readObjects } from '../../store/object-read';
import { mergeFile } from '../../store/merge';
import type { Store } from '../../store/store';
import { hashObject, type NewTree } from '../../store/tree-codec';
import {
  dirSpecs,
  dirsAlong,
  editOverlay,
  leafAt,
  overlayOf,
  sameLeaf,
  type Leaf,
  type Overlay,
} from '../../store/tree-overlay';

export interface Run {
  path: string;
  /** the bytes the first change of the run replaced; null: no file */
  from: Leaf | null;
  /** what the last one left; null: it removed the file */
  to: Leaf | null;
}

export interface FileStat {
  path: string;
  added: number | null;
  removed: number | null;
  /** how many diffs the file has, when more than one: another writer's edits came between the changes */
  parts?: number | undefined;
}

export interface OwnDiff {
  files: FileStat[];
  diff: string;
  /** files whose runs start from bytes the base does not hold (uncommitted, or another writer's), in order */
  foreign: string[];
}

/** The base's trees along the runs' paths. */
const baseOverlay = async (store: Store, base: string | null, runs: readonly Run[]): Promise<Overlay> => {
  const dirs = dirsAlong(runs.map((r) => r.path));
  return overlayOf(dirs, base === null ? [] : await readObjects(store, dirSpecs(base, dirs)));
};

/**
 * Runs by path in order of first appearance, each path's oldest first: a run that starts where the one before it
 * ended continues it, and a run that ends where it started is none.
 */
const byPath = (runs: readonly Run[]): Map<string, Run[]> => {
  const paths = new Map<string, Run[]>();
  for (const r of runs) {
    const list = paths.get(r.path) ?? [];
    const last = list[list.length - 1];
    if (last && sameLeaf(last.to, r.from)) list[list.length - 1] = { ...last, to: r.to };
    else list.push(r);
    paths.set(r.path, list);
  }
  for (const [path, list] of paths) {
    const live = list.filter((r) => !sameLeaf(r.from, r.to));
    if (live.length > 0) paths.set(path, live);
    else paths.delete(path);
  }
  return paths;
};

// biome-ignore lint/suspicious/noControlCharactersInRegex: a header may start with a colour
const FILE_HEADER = /^(?:\u001b\[[0-9;]*m)?diff --git /gm;

/** A diff cut at each file's header, in the order git prints them (the order of --numstat). */
const perFile = (diff: string): string[] => {
  const starts = [...diff.matchAll(FILE_HEADER)].map((m) => m.index ?? 0);
  return starts.map((at, n) => diff.slice(at, starts[n + 1]));
};

/** The numstat and diff of two trees, without external diff or textconv, one entry per file changed. */
const diffTrees = async (store: Store, from: string, to: string, color: boolean) => {
  const args = ['--no-ext-diff', '--no-textconv', '--no-renames', from, to];
  const numstat = (await store.git.run({ args: ['diff', '--numstat', '-z', ...args] })).stdout.toString('utf8');
  const count = (x: string | undefined) => (x === undefined || x === '-' ? null : Number(x));
  const stats: FileStat[] = numstat
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const [added, removed, ...path] = line.split('\t');
      return { path: path.join('\t'), added: count(added), removed: count(removed) };
    });
  const diff = (await store.git.run({ args: ['diff', color ? '--color=always' : '--no-color', ...args] })).stdout;
  return { stats, diffs: perFile(diff.toString('utf8')) };
};

/** Each tree once: a pack holds an object once. */
const unique = (trees: NewTree[]): NewTree[] => [...new Map(trees.map((t) => [t.oid, t])).values()];

/** The root of the overlay as it stands (the base's own root when nothing was edited), to be written. */
const rootTree = (store: Store, overlay: Overlay): NewTree => {
  const body = overlay.get('') ?? Buffer.alloc(0);
  return { oid: hashObject('tree', body, store.objectFormat), body, depth: 0 };
};

/**
 * The runs' files and diff, one diff per run against the bytes it started from: the k-th run of every file is
 * diffed in one `git diff` of two trees made in memory (the base with those files at `from`, and at `to`).
 */
export const ownDiff = async (
  store: Store,
  base: string | null,
  runs: readonly Run[],
  color = false,
): Promise<OwnDiff> => {
  const overlay = await baseOverlay(store, base, runs);
  const paths = byPath(runs);
  const layers = Math.max(0, ...[...paths.values()].map((l) => l.length));
  const pairs: [string, string][] = [];
  const trees: NewTree[] = [];
  for (let k = 0; k < layers; k++) {
    const from = new Map(overlay);
    const to = new Map(overlay);
    for (const [path, list] of paths) {
      const run = list[k];
      if (!run) continue;
      trees.push(...editOverlay(from, path, run.from, store.objectFormat));
      trees.push(...editOverlay(to, path, run.to, store.objectFormat));
    }
    const roots = [rootTree(store, from), rootTree(store, to)] as const;
    trees.push(...roots);
    pairs.push([roots[0].oid, roots[1].oid]);
  }
  await writeBatch(store, unique(trees), []);
  const files = new Map<string, FileStat>();
  const diffs = new Map<string, string[]>();
  for (const [from, to] of pairs) {
    const { stats, diffs: texts } = await diffTrees(store, from, to, color);
    stats.forEach((s, n) => {
      const had = files.get(s.path);
      const sum = (a: number | null, b: number | null) => (a === null || b === null ? null : a + b);
      const parts = (had?.parts ?? 1) + 1;
      files.set(
        s.path,
        had ? { ...s, added: sum(had.added, s.added), removed: sum(had.removed, s.removed), parts } : s,
      );
      diffs.set(s.path, [...(diffs.get(s.path) ?? []), texts[n] ?? '']);
    });
  }
  const order = [...files.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    files: order.map((p) => files.get(p) as FileStat),
    diff: order.flatMap((p) => diffs.get(p) ?? []).join(''),
    foreign: foreignOf(store, overlay, paths),
  };
};

/** Files whose runs start from bytes the base does not hold: more than one run, or one from other bytes. */
const foreignOf = (store: Store, overlay: Overlay, paths: Map<string, Run[]>): string[] =>
  [...paths]
    .filter(([path, l]) => l.length > 1 || !sameLeaf(l[0]?.from ?? null, leafAt(overlay, path, store.objectFormat)))
    .map(([path]) => path)
    .sort();

/** The files of `runs` made on bytes `base` does not hold (see OwnDiff.foreign), without diffing anything. */
export const foreignFiles = async (store: Store, base: string | null, runs: readonly Run[]): Promise<string[]> =>
  foreignOf(store, await baseOverlay(store, base, runs), byPath(runs));

/**
 * The base's tree with each file's runs applied to the base's own version of it, as a three-way merge of each
 * run (its `from` as the merge base): what the runs changed, without the bytes they started from that the base
 * does not hold. A run that does not apply cleanly is refused, naming its file.
 */
export const treeOnBase = async (store: Store, base: string | null, runs: readonly Run[]): Promise<string> => {
  const overlay = await baseOverlay(store, base, runs);
  const start = new Map<string, Leaf | null>();
  for (const path of byPath(runs).keys()) start.set(path, leafAt(overlay, path, store.objectFormat));
  const trees: NewTree[] = [];
  for (const [path, list] of byPath(runs)) {
    let now = start.get(path) ?? null;
    for (const run of list) now = sameLeaf(now, run.from) ? run.to : await merged(store, path, now, run);
    trees.push(...editOverlay(overlay, path, now, store.objectFormat));
  }
  const root = rootTree(store, overlay);
  await writeBatch(store, unique([...trees, root]), []);
  return root.oid;
};

const merged = async (store: Store, path: string, now: Leaf | null, run: Run): Promise<Leaf | null> => {
  const refuse = () =>
    new FettleError(
      'E_CONFLICT',
      `${path}: the change does not apply to the base's version of the file without the bytes it was made on. Nothing was pushed.`,
      { hint: 'Push it as it was made with `--base disk`, or commit those bytes first.' },
    );
  if (now === null || run.from === null || run.to === null) throw refuse();
  const [current, from, to] = (await readObjects(store, [now.oid, run.from.oid, run.to.oid])).map(
    (o) => o?.body ?? Buffer.alloc(0),
  ) as [Buffer, Buffer, Buffer];
  if ([current, from, to].some((b) => classifyContent(b) !== 'text')) throw refuse();
  const result = await mergeFile(store, current, from, to);
  if (!result.clean) throw refuse();
  const [oid = ''] = await writeBlobs(store, [result.bytes]);
  return { mode: run.to.mode, oid };
};
