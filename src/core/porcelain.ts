// `git status --porcelain=v2 -z` read as what a copy of the work tree needs: for each path git lists, whether the
// work tree's file is the index's blob (no need to read it), is on disk to be read, or is gone. Format: git's
// Documentation/git-status.txt, "Porcelain Format Version 2"; with -z every entry ends in NUL and paths are raw.
import { isUtf8 } from 'node:buffer';

/** What the work tree holds at a path git status listed. */
export type WorkEntry =
  /** the file is the index's blob (unchanged since `git add`): known without reading it */
  | { path: string; from: 'index'; mode: string; oid: string }
  /** the file is on disk and differs from the index, or is untracked: read it (mode: git's view, when tracked) */
  | { path: string; from: 'disk'; mode?: string }
  /** the file is gone from the work tree */
  | { path: string; from: 'gone' };

export interface WorkStatus {
  /** the commit HEAD names (`--branch` prints it); null when unborn or not asked */
  head: string | null;
  entries: WorkEntry[];
  /** paths kept as HEAD has them: submodules, nested repositories, names that are not UTF-8 */
  kept: { path: string; why: 'submodule' | 'nested repository' | 'name not UTF-8' }[];
}

const ABSENT = '000000';

/** Fields before the path: ordinary changed `1` 8, renamed or copied `2` 9, unmerged `u` 10, untracked `?` 1. */
const FIELDS: Record<string, number> = { '1': 8, '2': 9, u: 10, '?': 1, '!': 1 };

/** One entry: its fields, the raw path, and for a rename the path it came from. */
interface Raw {
  fields: string[];
  path: Buffer;
  orig?: Buffer;
}

const splitEntries = (out: Buffer): { raws: Raw[]; head: string | null } => {
  const raws: Raw[] = [];
  let head: string | null = null;
  let at = 0;
  const next = (): Buffer | null => {
    if (at >= out.length) return null;
    let end = out.indexOf(0, at);
    if (end < 0) end = out.length;
    const part = out.subarray(at, end);
    at = end + 1;
    return part;
  };
  for (let entry = next(); entry !== null; entry = next()) {
    if (entry.length === 0) continue;
    if (entry[0] === 0x23) {
      // `# ` headers (--branch, --show-stash): only HEAD's commit is of use
      const oid = /^# branch\.oid ([0-9a-f]+)$/.exec(entry.toString('latin1'))?.[1];
      if (oid) head = oid;
      continue;
    }
    const kind = String.fromCharCode(entry[0] as number);
    const count = FIELDS[kind];
    if (count === undefined) throw new Error(`unexpected git status line: ${entry.toString('utf8').slice(0, 80)}`);
    let pos = 0;
    for (let n = 0; n < count; n++) pos = entry.indexOf(0x20, pos) + 1;
    if (pos <= 0) throw new Error(`malformed git status line: ${entry.toString('utf8').slice(0, 80)}`);
    const fields = entry
      .subarray(0, pos - 1)
      .toString('latin1')
      .split(' ');
    const raw: Raw = { fields, path: entry.subarray(pos) };
    if (kind === '2') raw.orig = next() ?? Buffer.alloc(0);
    raws.push(raw);
  }
  return { raws, head };
};

/** What the work tree holds for each listed path; the caller reads the `disk` ones. */
export const parseWorkStatus = (out: Buffer): WorkStatus => {
  const entries: WorkEntry[] = [];
  const kept: WorkStatus['kept'] = [];
  const { raws, head } = splitEntries(out);
  for (const { fields, path: rawPath, orig } of raws) {
    const [kind = '', xy = '..', sub = 'N...'] = fields;
    const path = rawPath.toString('utf8');
    if (!isUtf8(rawPath)) {
      kept.push({ path, why: 'name not UTF-8' });
      continue;
    }
    if (kind === '!') continue;
    if (kind === '?') {
      // A directory git did not enter (a repository nested in the work tree) is listed with a trailing slash.
      if (path.endsWith('/')) kept.push({ path: path.slice(0, -1), why: 'nested repository' });
      else entries.push({ path, from: 'disk' });
      continue;
    }
    if (sub.startsWith('S')) {
      kept.push({ path, why: 'submodule' });
      continue;
    }
    // The worktree mode is the field before the object names: `1`/`2` have 2 names after it, `u` has 3.
    const modeW = fields[kind === 'u' ? 6 : 5] ?? ABSENT;
    const worktree = xy[1] ?? '.';
    if (orig && isUtf8(orig)) entries.push({ path: orig.toString('utf8'), from: 'gone' });
    if (modeW === ABSENT || worktree === 'D') entries.push({ path, from: 'gone' });
    else if (worktree === '.' && kind !== 'u') {
      const modeI = fields[4] ?? ABSENT;
      const oidI = fields[7] ?? '';
      entries.push(modeI === ABSENT ? { path, from: 'gone' } : { path, from: 'index', mode: modeI, oid: oidI });
    } else entries.push({ path, from: 'disk', mode: modeW });
  }
  // A path out of the index but still on disk is listed twice (`1 D.` and `?`): what is on disk wins.
  const byPath = new Map<string, WorkEntry>();
  for (const entry of entries) if (entry.from !== 'gone' || !byPath.has(entry.path)) byPath.set(entry.path, entry);
  return { head, entries: [...byPath.values()], kept };
};

/** A path `git status` listed, with what git said of HEAD, the index and the work tree there. */
export interface StatusPath {
  path: string;
  /** HEAD's entry, for a path the index or HEAD has ('000000': not in HEAD) */
  head?: { mode: string; oid: string } | undefined;
  /** the index entry (absent after `git rm`; a conflicted path has none usable) */
  index?: { mode: string; oid: string } | undefined;
  /** git found the work tree's file equal to the index entry (no need to read it) */
  matchesIndex: boolean;
  /** listed as untracked (on disk, not in the index, not ignored) */
  untracked: boolean;
}

export interface StatusPaths {
  head: string | null;
  paths: Map<string, StatusPath>;
  /** paths left out: submodules, nested repositories, names that are not UTF-8 */
  kept: WorkStatus['kept'];
}

/**
 * Every path `git status --porcelain=v2 -z --no-renames` listed, one record per path (a path out of the index
 * but still on disk is listed twice, `1 D.` and `?`: one record with both), for comparing two statuses.
 */
export const statusPaths = (out: Buffer): StatusPaths => {
  const paths = new Map<string, StatusPath>();
  const kept: WorkStatus['kept'] = [];
  const { raws, head } = splitEntries(out);
  const at = (path: string): StatusPath => {
    const found = paths.get(path) ?? { path, matchesIndex: false, untracked: false };
    paths.set(path, found);
    return found;
  };
  for (const { fields, path: rawPath } of raws) {
    const [kind = '', xy = '..', sub = 'N...'] = fields;
    const path = rawPath.toString('utf8');
    if (kind === '!') continue;
    if (!isUtf8(rawPath)) kept.push({ path, why: 'name not UTF-8' });
    else if (kind === '?') {
      if (path.endsWith('/')) kept.push({ path: path.slice(0, -1), why: 'nested repository' });
      else at(path).untracked = true;
    } else if (sub.startsWith('S')) kept.push({ path, why: 'submodule' });
    else if (kind === 'u')
      at(path); // a conflict: neither side is the index's blob; the disk decides
    else {
      const [, , , modeH = ABSENT, modeI = ABSENT, , oidH = '', oidI = ''] = fields;
      const entry = at(path);
      entry.head = { mode: modeH, oid: oidH };
      if (modeI !== ABSENT) entry.index = { mode: modeI, oid: oidI };
      entry.matchesIndex = modeI !== ABSENT && (xy[1] ?? '.') === '.';
    }
  }
  return { head, paths, kept };
};

/**
 * `git diff-tree -r -z --no-renames <a> <b>` read as each path's entry in `a` (null: not there). Format: git's
 * Documentation/diff-format.txt, "raw output format"; with -z the path follows its line after a NUL.
 */
export const oldEntries = (out: Buffer): Map<string, { mode: string; oid: string } | null> => {
  const found = new Map<string, { mode: string; oid: string } | null>();
  const parts = out.toString('latin1').split('\0');
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const meta = parts[i] as string;
    if (!meta.startsWith(':')) continue;
    const [modeA = ABSENT, , oidA = ''] = meta.slice(1).split(' ');
    const raw = Buffer.from(parts[i + 1] as string, 'latin1');
    if (!isUtf8(raw)) continue;
    found.set(raw.toString('utf8'), modeA === ABSENT ? null : { mode: modeA, oid: oidA });
  }
  return found;
};
