// The note a commit gets (the git hooks `fettle install --git-hooks` adds): of the lines the commit added against
// its first parent, those an agent wrote, by fettle's records of the paths it touched, else by the notes of the
// commits it replaced (an amend, a rebase, a squash: each old commit's attributed lines are carried to the new
// commit's content where they are still equal). Nothing is written for a commit no agent line reached.
import { type AgentOrigin, addedLines, carry, linesOf } from '../core/attribution';
import type { Attribution } from '../core/attribution-note';
import { readObjects } from '../store/object-read';
import { keepingReads } from '../store/store-cache';
import type { Store } from '../store/store';
import { changedPaths } from '../store/tree-diff';
import { recordedOrigins, recordedSteps, type PathSteps } from './attribution';
import { type Change, listChanges } from './changes';
import type { Context } from './context';
import { readNotes, writeNote } from './notes';

/** Lines of an old commit's note, by path: `carry`'s origins for its version of the file. */
const noteOrigins = (note: Attribution, path: string, count: number): (AgentOrigin | null)[] => {
  const lines = note.get(path);
  return Array.from({ length: count }, (_, i) => lines?.get(i + 1) ?? null);
};

interface Rewritten {
  commit: string;
  /** the paths it changed */
  paths: string[];
  /** the commits it replaced, newest first, with their notes */
  olds: { commit: string; note: Attribution }[];
}

const attributionOf = async (store: Store, steps: PathSteps, r: Rewritten): Promise<Attribution> => {
  const out: Attribution = new Map();
  const known = (p: string) => steps.has(p) || r.olds.some((o) => o.note.has(p));
  const paths = r.paths.filter(known);
  if (paths.length === 0) return out;
  // A root commit's `^1` names nothing: every line of it is added.
  const specs = paths.flatMap((p) => [
    `${r.commit}^1:${p}`,
    `${r.commit}:${p}`,
    ...r.olds.map((o) => `${o.commit}:${p}`),
  ]);
  const blobs = (await readObjects(store, specs)).map((b) => (b?.type === 'blob' ? b.body : null));
  const per = 2 + r.olds.length;
  paths.forEach((path, k) => {
    const at = blobs.slice(k * per, (k + 1) * per);
    const parentLines = linesOf(at.shift() ?? null);
    const content = at.shift() ?? null;
    const lines = linesOf(content);
    const recorded = recordedOrigins(steps, path, content);
    const carried = r.olds.map((o, i) => {
      const old = linesOf(at[i] ?? null);
      return carry(old, noteOrigins(o.note, path, old.length), lines, null);
    });
    const file = new Map<number, AgentOrigin>();
    for (const i of addedLines(parentLines, lines)) {
      const origin = recorded[i] ?? carried.map((c) => c[i]).find((o) => o) ?? null;
      if (origin) file.set(i + 1, origin);
    }
    if (file.size > 0) out.set(path, file);
  });
  return out;
};

/**
 * The attribution of each commit of `rewrites` (new commit -> the commits it replaced, oldest first; none for a
 * plain commit), by fettle's records (`listed`, already asked for) and the replaced commits' notes. The records'
 * paths are read once for all.
 */
export const attributeCommits = async (
  store: Store,
  listed: Promise<readonly Change[]>,
  rewrites: ReadonlyMap<string, readonly string[]>,
): Promise<Map<string, Attribution>> => {
  const news = [...rewrites.keys()];
  const touched: string[][] = [];
  // The listing of fettle's changes runs while git says what each commit changed; its failure is reported when
  // it is awaited, not as a rejection nobody handled meanwhile.
  listed.catch(() => undefined);
  for (const commit of news) touched.push(await changedPaths(store, commit));
  const changes = await listed;
  const all = new Set(touched.flat());
  const applied = changes.filter((c) => c.state === 'applied' && all.has(c.fields.path));
  const recorded = new Set(applied.map((c) => c.fields.path));
  const oldNotes = await readNotes(store, [...rewrites.values()].flat());
  const out = new Map<string, Attribution>();
  if (recorded.size === 0 && oldNotes.size === 0) return out;
  const steps = await recordedSteps(store, changes, recorded);
  for (const [i, commit] of news.entries()) {
    const olds = [...(rewrites.get(commit) ?? [])].reverse().flatMap((c) => {
      const note = oldNotes.get(c);
      return note ? [{ commit: c, note }] : [];
    });
    const r = { commit, paths: touched[i] ?? [], olds };
    out.set(commit, await attributionOf(store, steps, r));
  }
  return out;
};

/**
 * `work` on `store` with every object read going to one `cat-file`, started at once and ended when `work` settles:
 * the trees of each commit are read level by level, a round trip each, never a process each.
 */
export const withKeptReads = async <T>(store: Store, work: (kept: Store) => Promise<T>): Promise<T> => {
  const reads = keepingReads(store.git);
  reads.git.warm(['cat-file']);
  try {
    return await work({ ...store, git: reads.git });
  } finally {
    reads.close();
  }
};

/**
 * Notes for `rewrites` (as attributeCommits takes them): what a git hook runs inside each commit, so its reads go to
 * one kept `cat-file` beside the listing of fettle's refs. How many commits got a note, and how many lines they name.
 */
export const noteCommits = async (
  ctx: Context,
  store: Store,
  rewrites: ReadonlyMap<string, readonly string[]>,
): Promise<{ commits: number; lines: number }> =>
  withKeptReads(store, async (kept) => {
    const done = { commits: 0, lines: 0 };
    for (const [commit, attribution] of await attributeCommits(kept, listChanges(ctx, kept), rewrites))
      if (await writeNote(kept, commit, attribution)) {
        done.commits++;
        for (const f of attribution.values()) done.lines += f.size;
      }
    return done;
  });
