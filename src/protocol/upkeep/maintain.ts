// Storage maintenance: fettle's small packs (one per record, store/pack-write.ts) rolled up, and the objects
// only removed changes reached freed once git's own expiry says so. Never on a blocking path: the resident
// server runs it after its answers, a hook process starts `fettle gc --auto` in the background, `fettle gc`
// runs it in full. Only packs fettle noted as its own are rewritten (every other pack is kept as it is), and
// the rules for what may be deleted are git's: `git repack --cruft` keeps whatever any ref, reflog, index or
// HEAD reaches, and an unreachable object until gc.pruneExpire (2 weeks) after it was last written. fettle's
// own refs are moved into packed-refs with git's locking (store/pack-refs.ts); `git pack-refs` is not run, as it
// would pack the user's branches too (git 2.39 cannot restrict it to fettle's).
import { sweepNewRefs } from '../../store/ref-create';
import { chmod, readdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FettleError } from '../../errors';
import { exists } from '../../io/exists';
import { makeOwnDir } from '../../io/fettle-dir';
import { withLock } from '../../io/lock';
import { packRegistry } from '../../store/objects';
import { countLooseRefs, packOwnRefs, type PackRefsReport } from '../../store/pack-refs';
import { recoverPackedLock } from '../../store/packed-refs-lock';
import { removeStaleRefLocks } from '../../store/stale-ref-locks';
import type { Store } from '../../store/store';
import type { Context } from '../context';
import { ROLL_UP_AT } from '../retention/maintain-due';

/** Loose refs of fettle's (4 KB of disk each) before a maintenance run packs them. */
export const PACK_REFS_AT = 8;
/** How often the expiry step runs unasked: like git's gc it walks every ref of the repository, so not often. */
const CRUFT_EVERY_MS = 24 * 3600 * 1000;
/** Packs are durable before the ones they replace are deleted. */
const FSYNC_PACKS = ['-c', 'core.fsync=loose-object,reference,index,pack'];

export interface MaintainReport {
  /** fettle's packs rolled into one */
  rolledUp: number;
  /** whether the expiry step ran, and with which expiry */
  expired: string | null;
  /** bytes of fettle's packs before and after */
  before: number;
  after: number;
  /** fettle's refs moved into packed-refs; null when not tried */
  refs: PackRefsReport | null;
  /** lock files a killed process left that this run removed, relative to the git dir */
  locks: string[];
  /** why a step did not run */
  skipped: string[];
}

const packDir = (store: Store): string => join(store.commonDir, 'objects', 'pack');

interface Pack {
  name: string;
  bytes: number;
  /** its permission bits: a pack holding bytes of a file only its owner may read is its owner's alone */
  mode?: number;
  /** a cruft pack (git's, with the time each unreachable object was last written): only git repacks it */
  cruft?: boolean;
}

/** fettle's packs that are still there (git gc may have folded them into its own); stale notes are dropped. */
export const fettlePacks = async (store: Store): Promise<Pack[]> => {
  const names = await readdir(packRegistry(store)).catch(() => [] as string[]);
  const packs: Pack[] = [];
  for (const name of names) {
    const info = await stat(join(packDir(store), `${name}.pack`)).catch(() => null);
    const cruft = await exists(join(packDir(store), `${name}.mtimes`));
    if (info) packs.push({ name, bytes: info.size, mode: info.mode & 0o777, cruft });
    else await unlink(join(packRegistry(store), name)).catch(() => undefined);
  }
  return packs;
};

const allPacks = async (store: Store): Promise<string[]> =>
  (await readdir(packDir(store)).catch(() => [] as string[]))
    .filter((f) => f.startsWith('pack-') && f.endsWith('.pack'))
    .map((f) => f.slice(0, -'.pack'.length));

const note = async (store: Store, names: string[]): Promise<void> => {
  if (names.length === 0) return;
  await makeOwnDir(packRegistry(store));
  for (const name of names) await writeFile(join(packRegistry(store), name), '');
};

/** Deletes a pack fettle rolled up: its index first, so no reader finds an index without its pack. */
const dropPack = async (store: Store, name: string): Promise<void> => {
  for (const ext of ['idx', 'pack', 'rev']) await unlink(join(packDir(store), `${name}.${ext}`)).catch(() => undefined);
  await unlink(join(packRegistry(store), name)).catch(() => undefined);
};

/**
 * fettle's packs up to this size are rolled up whole: git then deltas each new object against everything
 * fettle keeps (a roll-up copies what it already packed, cheaply), so a file's versions share one base.
 */
const WHOLE_UP_TO = 64 << 20;

/**
 * The packs to roll up: all of them while they are small; past WHOLE_UP_TO geometrically, all but the largest
 * when it holds more than twice the rest (so each roll-up rewrites about as much as was added since the last).
 */
export const rollUpSet = (packs: Pack[]): Pack[] => {
  const sorted = [...packs].sort((a, b) => a.bytes - b.bytes);
  const largest = sorted[sorted.length - 1];
  const rest = sorted.slice(0, -1);
  const restBytes = rest.reduce((n, p) => n + p.bytes, 0);
  return largest && largest.bytes + restBytes > WHOLE_UP_TO && largest.bytes > 2 * restBytes ? rest : sorted;
};

/** Who besides the owner may read a pack. */
const readers = (p: Pack): number => (p.mode ?? 0o444) & 0o044;

/**
 * Packs are rolled up with packs others may read as much: git writes the new pack with the repository's
 * permissions, and one holding bytes of a file only its owner could read is given that file's back.
 */
const rollUp = async (store: Store, packs: Pack[]): Promise<number> => {
  let rolled = 0;
  for (const bits of new Set(packs.map(readers)))
    rolled += await rollUpGroup(
      store,
      packs.filter((p) => readers(p) === bits),
    );
  return rolled;
};

const rollUpGroup = async (store: Store, packs: Pack[]): Promise<number> => {
  // A cruft pack rolled into a plain one would lose its objects' times: their expiry would start over.
  const chosen = rollUpSet(packs.filter((p) => !p.cruft));
  if (chosen.length < 2) return 0;
  const input = chosen.map((p) => `${p.name}.pack\n`).join('');
  const args = [...FSYNC_PACKS, 'pack-objects', '--stdin-packs', '--delta-base-offset', '--non-empty', '-q'];
  const hash = await store.git.text({ args: [...args, join(packDir(store), 'pack')], input });
  if (!/^[0-9a-f]{40,64}$/.test(hash)) return 0;
  const mode = Math.min(...chosen.map((p) => p.mode ?? 0o444));
  if ((mode & 0o044) !== 0o044)
    for (const ext of ['pack', 'idx']) await chmod(join(packDir(store), `pack-${hash}.${ext}`), mode & 0o444);
  await note(store, [`pack-${hash}`]);
  for (const p of chosen) if (p.name !== `pack-${hash}`) await dropPack(store, p.name);
  return chosen.length;
};

const gitConfig = async (store: Store, key: string): Promise<string | null> =>
  store.git.text({ args: ['config', '--get', key], okCodes: [1] }).then((v) => v || null);

const gitAtLeast = async (store: Store, major: number, minor: number): Promise<boolean> => {
  const m = /(\d+)\.(\d+)/.exec(await store.git.text({ args: ['version'] }));
  return !!m && (Number(m[1]) > major || (Number(m[1]) === major && Number(m[2]) >= minor));
};

/**
 * fettle's packs rewritten by git's own `repack --cruft`, every other pack kept: what anything reaches goes
 * into one pack, the rest into a cruft pack that remembers when each object was last written, minus what is
 * older than the expiry. Loose objects git finds are packed the same way, as `git gc` with cruft packs would.
 */
const expire = async (store: Store, packs: Pack[], expiry: string): Promise<void> => {
  const before = await allPacks(store);
  // git writes its packs readable as the repository is: packs of files fewer people may read are kept as they
  // are (their objects expire with git's own gc).
  const ours = new Set(packs.filter((p) => readers(p) === 0o044).map((p) => p.name));
  const keep = before.filter((name) => !ours.has(name)).map((name) => `--keep-pack=${name}.pack`);
  const args = [...FSYNC_PACKS, 'repack', '--cruft', '-d', '-l', `--cruft-expiration=${expiry}`];
  await store.git.run({ args: [...args, '--no-write-bitmap-index', '-q', ...keep] });
  const after = new Set(await allPacks(store));
  await note(
    store,
    [...after].filter((name) => !before.includes(name)),
  );
  for (const p of packs) if (!after.has(p.name)) await unlink(join(packRegistry(store), p.name)).catch(() => undefined);
};

const stampPath = (store: Store): string => join(store.commonDir, 'fettle', 'expired-at');

const bytesOf = (packs: Pack[]): number => packs.reduce((n, p) => n + p.bytes, 0);

export interface MaintainOptions {
  /** `fettle gc`: roll up whatever there is and run the expiry step now */
  full?: boolean;
  /** the expiry (git's approxidate), instead of gc.pruneExpire */
  expire?: string | undefined;
}

/** One maintenance run; another one already running makes this one a no-op. */
export const maintain = async (ctx: Context, store: Store, options: MaintainOptions = {}): Promise<MaintainReport> => {
  const report: MaintainReport = {
    rolledUp: 0,
    expired: null,
    before: 0,
    after: 0,
    refs: null,
    locks: [],
    skipped: [],
  };
  try {
    await withLock(join(store.commonDir, 'fettle', 'locks', 'maintain.lock'), () => run(ctx, store, options, report), {
      timeoutMs: options.full ? 60_000 : 0,
    });
  } catch (error) {
    if (!(error instanceof FettleError && error.code === 'E_LOCKED')) throw error;
    report.skipped.push('another fettle is maintaining this repository');
  }
  return report;
};

const run = async (ctx: Context, store: Store, options: MaintainOptions, report: MaintainReport): Promise<void> => {
  await sweepNewRefs(store.commonDir);
  // Under maintain.lock, so no fettle takes packed-refs.lock meanwhile: a killed run's lock blocks every ref
  // deletion in the repository until it goes.
  if (recoverPackedLock(store.commonDir)) report.locks.push('packed-refs.lock');
  report.locks.push(...(await removeStaleRefLocks(store.commonDir, ctx.now().getTime())));
  if (options.full || (await countLooseRefs(store)) >= PACK_REFS_AT) {
    report.refs = await packOwnRefs(store);
    if (report.refs.skipped) report.skipped.push(`fettle's refs (${report.refs.skipped})`);
  }
  let packs = await fettlePacks(store);
  report.before = bytesOf(packs);
  // A multi-pack index names packs by position: deleting one under it is git's to do (git repack), not fettle's.
  if (await exists(join(packDir(store), 'multi-pack-index'))) {
    report.skipped.push('this repository has a multi-pack index; `git maintenance` or `git gc` packs it');
    report.after = report.before;
    return;
  }
  if (options.full || packs.length >= ROLL_UP_AT) {
    report.rolledUp = await rollUp(store, packs);
    packs = await fettlePacks(store);
  }
  const last = Number(await readFile(stampPath(store), 'utf8').catch(() => '0')) || 0;
  const due = options.full || ctx.now().getTime() - last > CRUFT_EVERY_MS;
  if (due && packs.length > 0) {
    const auto = await gitConfig(store, 'gc.auto');
    const expiry = options.expire ?? (await gitConfig(store, 'gc.pruneExpire')) ?? '2.weeks.ago';
    if (!options.full && auto === '0') report.skipped.push('gc.auto is 0: old objects wait for `fettle gc`');
    else if (expiry === 'never') report.skipped.push('gc.pruneExpire is never');
    else if (!(await gitAtLeast(store, 2, 37))) report.skipped.push('git before 2.37 has no cruft packs');
    else {
      await expire(store, packs, expiry);
      await writeFile(stampPath(store), String(ctx.now().getTime()));
      report.expired = expiry;
    }
  }
  report.after = bytesOf(await fettlePacks(store));
};
