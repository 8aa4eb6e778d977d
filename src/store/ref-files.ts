// fettle's refs read from their files, as git's files backend reads them for `for-each-ref` (refs/files-backend.c):
// the loose refs under each prefix first, then `packed-refs`, a loose ref winning over a packed one of the same
// name. In that order a concurrent pack-refs cannot hide a ref: one moved into packed-refs after its loose file
// was missed is in the packed-refs read next. Read only, and only what is plain: a symbolic ref, a value that is
// not one object id and a line end (a file being written by something other than git's lock and rename), a name
// git might reject, or a packed-refs file fettle does not know mean null, and git lists the refs instead.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type PackedRefs, parsePackedRefs } from '../core/packed-refs';

export interface RefTip {
  ref: string;
  oid: string;
}

/** Names git itself would accept and nothing unusual (as pack-refs.ts packs them). */
const NAME = /^refs\/[A-Za-z0-9_-]+(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;
const plainName = (name: string): boolean => NAME.test(name) && !name.includes('..') && !/\.lock(\/|$)/.test(name);

const readOrGone = <T>(read: () => T, gone: T): T => {
  try {
    return read();
  } catch (error) {
    // removed while being read (a ref deleted or packed, its emptied directory removed): as if never there
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return gone;
    throw error;
  }
};

class NotPlain extends Error {}

/**
 * Loose refs read one file at a time cost more than git reading them in a process of its own beyond this many
 * (each a few system calls on this thread); fettle's maintenance packs them once there are 8 (upkeep/maintain.ts).
 */
export const LOOSE_READ_MAX = 200;

/** The names of the loose refs under `dir` (a ref name's directory), into `names`. */
const looseNames = (commonDir: string, dir: string, names: string[]): void => {
  const entries = readOrGone(() => readdirSync(join(commonDir, dir), { withFileTypes: true }), []);
  for (const entry of entries) {
    // git skips these names in its refs directories
    if (entry.name.startsWith('.') || entry.name.endsWith('.lock')) continue;
    const name = `${dir}/${entry.name}`;
    if (entry.isDirectory()) looseNames(commonDir, name, names);
    else if (entry.isFile() && plainName(name)) names.push(name);
    else throw new NotPlain();
    // git lists them: the rest need not be looked at
    if (names.length > LOOSE_READ_MAX) throw new NotPlain();
  }
};

/** The packed-refs file's records, parsed once per text (HEAD's branch and fettle's refs read from one file). */
let lastPacked: { text: string; file: PackedRefs | null } = { text: '', file: parsePackedRefs('') };
export const packedRefsIn = (commonDir: string): PackedRefs | null => {
  const text = readOrGone(() => readFileSync(join(commonDir, 'packed-refs'), 'latin1'), '');
  if (text !== lastPacked.text) lastPacked = { text, file: parsePackedRefs(text) };
  return lastPacked.file;
};

/**
 * The refs under `prefixes` (each ending in `/`) with the object each names, in refname order as for-each-ref
 * prints them, or null when git is to list them. `oidLength`: 40, or 64 in a SHA-256 repository.
 */
export const refTipsFromFiles = (
  commonDir: string,
  prefixes: readonly string[],
  oidLength: number,
): RefTip[] | null => {
  const value = new RegExp(`^([0-9a-f]{${oidLength}})\\n$`);
  const found = new Map<string, string>();
  let inOrder = false;
  try {
    const names: string[] = [];
    for (const prefix of prefixes) looseNames(commonDir, prefix.slice(0, -1), names);
    inOrder = names.length === 0;
    for (const name of names) {
      const text = readOrGone(() => readFileSync(join(commonDir, name), 'latin1'), null);
      if (text === null) continue;
      const oid = value.exec(text)?.[1];
      if (oid === undefined) return null;
      found.set(name, oid);
    }
    const packed = packedRefsIn(commonDir);
    if (packed === null) return null;
    // in refname order already when all are packed in order, as pack-refs leaves them: no sort of a thousand
    let previous = '';
    for (const { name, oid } of packed.records) {
      if (!prefixes.some((p) => name.startsWith(p)) || found.has(name)) continue;
      if (!plainName(name) || oid.length !== oidLength) return null;
      inOrder &&= previous < name;
      previous = name;
      found.set(name, oid);
    }
  } catch {
    return null; // NotPlain, or a directory or file that cannot be read: git says what it makes of it
  }
  const tips = [...found].map(([ref, oid]) => ({ ref, oid }));
  return inOrder ? tips : tips.sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
};
