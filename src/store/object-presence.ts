// Whether objects fettle wrote are still there: in a pack this process wrote (a stat), loose, or, asked of git,
// anywhere. `git gc --prune=now` deletes unreachable objects however new, so what a ref came to name is checked
// after the ref exists and written again if gone; an object reused later is freshened so a prune by age keeps it.
import { existsSync, readFileSync } from 'node:fs';
import { utimes } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { FettleError } from '../errors';
import { isAlive } from '../io/pid';
import { packIndexOf } from './objects';
import type { Store } from './store';

const loosePath = (store: Store, oid: string): string =>
  join(store.commonDir, 'objects', oid.slice(0, 2), oid.slice(2));

/** A pack's name as fettle writes it: `pack-` and its checksum. */
const PACK_NAME = /^pack-[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * The pack this process wrote `oid` into (`pack-<checksum>`), if any. Kept beside the object's id (the Bash stat
 * cache), it lets a later process freshen the object without reading its bytes again: a pack never changes, so
 * while it is there it holds the object.
 */
export const packOf = (oid: string): string | undefined => {
  const index = packIndexOf(oid);
  return index && basename(index, '.idx');
};

/**
 * Marks an object as just used (its file's mtime, as git does when it would write an object that exists), so a
 * prune with an expiry keeps it: a loose one, or one in a pack this process wrote or `pack` names (the pack's
 * mtime is what git's cruft repack keeps unreachable packed objects by). False when none is there (packed by
 * maintenance since, or pruned): the caller writes it again.
 */
export const freshenLoose = async (store: Store, oid: string, pack?: string): Promise<boolean> => {
  const now = new Date();
  const index =
    packIndexOf(oid) ??
    (pack && PACK_NAME.test(pack) ? join(store.commonDir, 'objects', 'pack', `${pack}.idx`) : undefined);
  // A roll-up deletes a pack's index first: a pack without one is on its way out.
  if (index && !existsSync(index)) return false;
  const file = index ? index.replace(/\.idx$/, '.pack') : loosePath(store, oid);
  return utimes(file, now, now).then(
    () => true,
    () => false,
  );
};

/** Whether the object is in a pack this process wrote that is still there, or stored loose. */
const seenInPlace = async (store: Store, oid: string, checked: Map<string, Promise<boolean>>): Promise<boolean> => {
  const index = packIndexOf(oid);
  const where = index ?? loosePath(store, oid);
  let found = checked.get(where);
  if (!found) {
    found = Promise.resolve(existsSync(where)); // a stat: cheaper than a round trip through the thread pool
    checked.set(where, found);
  }
  return found;
};

/**
 * Objects among `oids` that are gone. Fresh objects are in the pack this process just wrote, so this is a stat
 * per pack; git is asked only about the others (repacked since, or pruned).
 */
export const missingObjects = async (store: Store, oids: string[]): Promise<string[]> => {
  const unsure: string[] = [];
  const checked = new Map<string, Promise<boolean>>();
  for (const oid of new Set(oids)) if (!(await seenInPlace(store, oid, checked))) unsure.push(oid);
  if (unsure.length === 0) return [];
  const { stdout } = await store.git.run({
    args: ['cat-file', '--batch-check'],
    input: `${unsure.join('\n')}\n`,
    fresh: true,
  });
  return stdout
    .toString('utf8')
    .split('\n')
    .filter((l) => l.endsWith(' missing'))
    .map((l) => l.split(' ')[0] ?? '');
};

/**
 * New objects are unreachable until a ref names them, and `git gc --prune=now` deletes unreachable objects
 * however new (git documents the race). After the ref exists, check that what it names is still there, and
 * write it again if not: objects are content-addressed, so `rewrite` recreates the very same ids.
 */
export const ensureObjects = async (store: Store, oids: string[], rewrite: () => Promise<unknown>): Promise<void> => {
  for (let attempt = 0; attempt < 3; attempt++) {
    // A gc that computed what is reachable before our ref existed can still prune after a check: wait for a
    // running gc to finish (git holds gc.pid throughout), then check.
    await waitForGc(store);
    if ((await missingObjects(store, oids)).length === 0) return;
    await rewrite();
  }
  const still = await missingObjects(store, oids);
  if (still.length > 0)
    throw new FettleError(
      'E_GIT',
      `objects ${still.join(', ')} keep disappearing (is \`git gc --prune=now\` running in a loop?)`,
    );
};

const GC_WAIT_MS = 30_000;

/** Waits while `gc.pid` names a live process; the usual case is one stat of a file that is not there. */
const waitForGc = async (store: Store): Promise<void> => {
  const pidFile = join(store.commonDir, 'gc.pid');
  const deadline = Date.now() + GC_WAIT_MS;
  while (Date.now() < deadline) {
    const pid = Number.parseInt(readFileText(pidFile), 10);
    if (!(pid > 0) || !isAlive(pid)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** Synchronously: after every write, and the usual answer is that the file is not there. */
const readFileText = (path: string): string => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};
