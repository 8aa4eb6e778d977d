// A fresh ref created in process. Its value is written to a file of fettle's own (named by the writer's pid) and
// fsynced while the pack holding the ref's objects is synced (pack-write.ts `alongside`); once that pack is in
// place, with its directory synced, the file is hard-linked to the ref's name and its own name removed. link(2)
// fails when the name exists, so the loose ref is created only if absent, atomically, and `packed-refs` is
// checked before; no git process writes a ref of the same fresh name (ids are drawn at random, and a taken one
// is drawn again). A `git update-ref` in its place costs a process, or in the resident server a round trip, and
// its fsync comes after the pack's, not beside it. Unlike git's `<ref>.lock`, a file a killed fettle leaves
// names its dead writer, so the next run removes it (sweepNewRefs) and nothing under refs/ is left behind.
// Where git would do more than write the file (another ref storage, a reflog for every ref, permissions adjusted
// for a shared repository), git creates the ref (refsThroughGit). No hook is skipped: fettle runs git with
// core.hooksPath=/dev/null (git.ts), so a reference-transaction hook never ran for fettle's refs.
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import { open, readdir, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { disown, own } from '../io/cleanup';
import { fileStamp } from '../io/exists';
import { makeOwnDir } from '../io/fettle-dir';
import { isAlive } from '../io/pid';
import { objectWritingOf } from './repo-config';
import { lostRace } from './refs';
import type { Store } from './store';

/** A ref's value written and being synced; `commit` gives it its name ('git': this file system cannot). */
export interface HeldRef {
  synced: Promise<void>;
  commit(): Promise<'done' | 'git'>;
  abort(): Promise<void>;
}

/** Why git must create refs in this store, or undefined when fettle may (the config read once per change). */
export const refsThroughGit = async (store: Pick<Store, 'commonDir'>): Promise<string | undefined> =>
  (await objectWritingOf(store.commonDir)).refsThroughGit;

/**
 * One folder per host: a pid says whether a writer is alive only on its own host, and a repository on a shared
 * disk may be written from several.
 */
const HOST = hostname().replace(/[^A-Za-z0-9._-]/g, '_') || 'host';
export const newRefsDir = (commonDir: string): string => join(commonDir, 'fettle', 'new-refs', HOST);

const packedCache = new Map<string, { stamp: string; bytes: Buffer }>();

/** Whether packed-refs holds `ref` (a record line is `<oid> SP <name> LF`); read again only when it changed. */
const packedHas = (commonDir: string, ref: string): boolean => {
  const path = join(commonDir, 'packed-refs');
  const stamp = fileStamp(path);
  if (stamp === 'missing') return false;
  let known = packedCache.get(commonDir);
  if (known?.stamp !== stamp) {
    known = { stamp, bytes: readFileSync(path) };
    packedCache.set(commonDir, known);
  }
  return known.bytes.includes(` ${ref}\n`);
};

/** Errors of a file system without hard links where fettle's refs live: git makes the ref instead. */
const NO_LINKS = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK', 'ENOSYS']);

const remove = (path: string): void => {
  disown(path);
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
};

/** Writes `oid` for `ref` (which must not exist) and starts its fsync; E_CONFLICT when the name is taken. */
export const holdNewRef = (store: Pick<Store, 'commonDir'>, ref: string, oid: string): HeldRef => {
  const path = join(store.commonDir, ref);
  const dir = newRefsDir(store.commonDir);
  const temp = join(dir, `${process.pid}-${randomBytes(6).toString('hex')}`);
  let made = false;
  const synced = (async () => {
    if (existsSync(path) || packedHas(store.commonDir, ref)) throw lostRace(ref);
    const create = () => open(temp, 'wx', 0o666);
    const handle = await create().catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
      await makeOwnDir(dir);
      return create();
    });
    made = true;
    own(temp); // in the turn the open resolved in, so a signal handler (io/cleanup.ts) removes it
    try {
      await handle.writeFile(`${oid}\n`, 'latin1');
      await handle.sync();
    } finally {
      await handle.close();
    }
  })();
  synced.catch(() => undefined); // the caller awaits it; a failure before then must not go unhandled
  const drop = () => {
    if (made) remove(temp);
  };
  return {
    synced,
    commit: async () => {
      try {
        await synced;
        try {
          linkSync(temp, path);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
          mkdirSync(dirname(path), { recursive: true }); // as git makes refs/ directories: the umask decides
          linkSync(temp, path);
        }
      } catch (error) {
        drop();
        const code = (error as NodeJS.ErrnoException).code ?? '';
        if (code === 'EEXIST') throw lostRace(ref);
        if (NO_LINKS.has(code)) return 'git';
        throw error;
      }
      drop();
      return 'done';
    },
    abort: () => synced.then(drop, drop),
  };
};

/**
 * Removes the files of this host's writers that died before naming their ref (a kill -9; a signal removes its
 * own). Another host's are left to that host.
 */
export const sweepNewRefs = async (commonDir: string): Promise<void> => {
  const dir = newRefsDir(commonDir);
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const pid = Number.parseInt(name, 10);
    if (pid > 0 && pid !== process.pid && !isAlive(pid)) await unlink(join(dir, name)).catch(() => undefined);
  }
};
