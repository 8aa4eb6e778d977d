// The stamp of fettle's store format (core/store-format.ts) in `<common-dir>/fettle/format`. Read each time a store
// is opened, one small synchronous read, before anything of fettle's data is read or written: a store a newer
// fettle stamped is refused there. Written once, when fettle first writes objects into a store without one, and
// only ever created, never replaced: two first writers cannot race it, and no stamp is ever lowered.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, open, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { glimpse, newerStore, parseStamp, STORE_FORMAT, stampText, unreadableStamp } from '../core/store-format';
import { disown, own } from '../io/cleanup';
import { makeOwnDir } from '../io/fettle-dir';
import { shellQuote } from '../io/self';
import { newRefsDir } from './ref-create';
import type { Store } from './store';

type Where = Pick<Store, 'kind' | 'commonDir'>;

export const stampPath = (commonDir: string): string => join(commonDir, 'fettle', 'format');

const whose = (store: Where): string =>
  store.kind === 'private' ? `fettle's private store (${store.commonDir})` : "this repository's fettle data";

/**
 * Whether the store carries a stamp; throws E_STORE_NEWER when it names a format newer than this fettle reads,
 * E_STORE_FORMAT when it names none. No stamp is the first format, which every store made before stamps holds.
 */
export const readStamp = (store: Where): boolean => {
  const path = stampPath(store.commonDir);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
  const version = parseStamp(text);
  if (version === null) throw unreadableStamp(whose(store), path, glimpse(text), shellQuote(path));
  if (version > STORE_FORMAT) throw newerStore(whose(store), version);
  return true;
};

/** Errors of a file system without hard links: the stamp is then created in place, exclusively. */
const NO_LINKS = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK', 'ENOSYS']);

/**
 * Writes the stamp's bytes to `path`, which must not exist, and syncs them (a torn stamp would refuse the store).
 * `mode`: whoever may enter fettle's folder may read it (the group of a shared repository too).
 */
const writeNew = async (path: string, mode: number): Promise<void> => {
  const handle = await open(path, 'wx', mode);
  try {
    await handle.writeFile(stampText(), 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
};

/**
 * Stamps the store with this fettle's format unless it carries a stamp: written whole under a name of this
 * process, then hard-linked to its place, which fails if the name exists (another writer stamped it first), so
 * a reader sees no stamp or a whole one. Whatever stamp is there afterwards is checked as an opening checks it.
 */
export const stampStore = async (store: Store): Promise<void> => {
  store.stamped ??= readStamp(store); // a store not opened by openStoreAt was not read yet
  if (store.stamped) return;
  const path = stampPath(store.commonDir);
  // Written where a fresh ref's value is (ref-create.ts): a file a killed writer leaves there is swept.
  const dir = newRefsDir(store.commonDir);
  await makeOwnDir(dir);
  const mode = (await stat(dirname(path))).mode & 0o666;
  const temp = join(dir, `${process.pid}-${randomBytes(6).toString('hex')}`);
  own(temp);
  try {
    await writeNew(temp, mode);
    await link(temp, path).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') return;
      if (!NO_LINKS.has(error.code ?? '')) throw error;
      // Without links a reader may see the stamp before its bytes: only here, and only this once.
      await writeNew(path, mode).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'EEXIST') throw e;
      });
    });
  } finally {
    disown(temp);
    await unlink(temp).catch(() => undefined);
  }
  store.stamped = readStamp(store);
};
