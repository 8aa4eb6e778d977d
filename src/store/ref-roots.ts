// Where fettle's refs live as files: refs/fettle/ (changes, sessions) and refs/fettle-discarded/. Packing them,
// counting them, and finding the locks left among them all walk the same two trees.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DISCARDED_PREFIX, REF_PREFIX } from './refs';

export const REF_ROOTS = [REF_PREFIX, DISCARDED_PREFIX].map((p) => p.slice(0, -1));

export interface RootEntry {
  /** relative to the git dir, as `refs/fettle/<id>` */
  name: string;
  /** a regular file (anything else that is not a directory is listed too) */
  isFile: boolean;
}

/** Every entry under fettle's ref roots that is not a directory, depth first, one readdir per directory. */
export const refRootEntries = async (commonDir: string): Promise<RootEntry[]> => {
  const found: RootEntry[] = [];
  const walk = async (name: string): Promise<void> => {
    for (const entry of await readdir(join(commonDir, name), { withFileTypes: true }).catch(() => [])) {
      const child = `${name}/${entry.name}`;
      if (entry.isDirectory()) await walk(child);
      else found.push({ name: child, isFile: entry.isFile() });
    }
  };
  for (const root of REF_ROOTS) await walk(root);
  return found;
};
