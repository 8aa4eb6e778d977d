// Loading a bundle with V8's code cache. Every hook call is a fresh Node process that parses and compiles its
// bundle again (~5 ms of fettle's ~30 ms over bare Node, docs/PERFORMANCE.md). The code compiled by a first
// run is kept under the user's cache directory and handed back to V8 by later runs.
// V8 checks cached data against its own version and flags but only against the source's *length*, so the file
// name carries a hash of the source: an upgraded bundle never meets code compiled from another one.
// V8 does not checksum cached code in release builds, so each file carries a SHA-256 of its payload: a cache
// damaged on disk is dropped, never run. Nothing here may fail a run: an unreadable, stale, damaged or rejected
// cache means compiling as without one.
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

type Env = Record<string, string | undefined>;

// Required when a bundle loads, not with the entry: the thin hook (hook/thin.ts) answers without a bundle, and
// loading these modules took it milliseconds (docs/PERFORMANCE.md).
const createHash: typeof import('node:crypto').createHash = (...args) => require('node:crypto').createHash(...args);
const homedir = (): string => require('node:os').homedir();
const newScript = (...args: ConstructorParameters<typeof import('node:vm').Script>): import('node:vm').Script =>
  new (require('node:vm').Script)(...args);

/** FETTLE_CACHE_DIR, else $XDG_CACHE_HOME/fettle, else ~/.cache/fettle. */
export const cacheDirOf = (env: Env): string =>
  env.FETTLE_CACHE_DIR || join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'fettle');

const quietly = (fn: () => void): void => {
  try {
    fn();
  } catch {
    // best effort: the cache only saves time
  }
};

const sha256 = (data: Buffer): Buffer => createHash('sha256').update(data).digest();

/**
 * Cached code runs as fettle: only a file and directory this user owns and nobody else may write are used (a
 * FETTLE_CACHE_DIR in a shared place must not let another account hand fettle its bytecode).
 */
const ownedAndPrivate = (path: string): boolean => {
  if (process.platform === 'win32') return true;
  const info = statSync(path);
  return info.uid === process.getuid?.() && (info.mode & 0o022) === 0;
};

/** The payload of a cache file whose checksum holds, else undefined. */
const payloadOf = (file: Buffer): Buffer | undefined => {
  const payload = file.subarray(32);
  return file.length > 32 && sha256(payload).equals(file.subarray(0, 32)) ? payload : undefined;
};

/** A temp file this old was left by a process killed while writing it (writing takes milliseconds). */
const STALE_TEMP_MS = 10 * 60_000;

/**
 * Older caches of the same bundle (an upgrade, another Node) are removed when a new one is written, and so are
 * temp files of this bundle that a killed process left.
 */
const replaceCache = (dir: string, name: string, data: Buffer): void => {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!ownedAndPrivate(dir)) return;
  const temp = join(dir, `.${name}.${process.pid}.tmp`);
  writeFileSync(temp, Buffer.concat([sha256(data), data]), { mode: 0o600 });
  renameSync(temp, join(dir, name));
  const prefix = name.slice(0, name.indexOf('-') + 1);
  for (const old of readdirSync(dir)) {
    const path = join(dir, old);
    if (old.startsWith(prefix) && old !== name) quietly(() => unlinkSync(path));
    else if (old.startsWith(`.${prefix}`) && old.endsWith('.tmp')) {
      quietly(() => Date.now() - statSync(path).mtimeMs > STALE_TEMP_MS && unlinkSync(path));
    }
  }
};

/** Runs the CommonJS bundle at `file` (which may only require Node's own modules) and returns its exports. */
export const loadBundle = (file: string, env: Env): unknown => {
  const source = readFileSync(file, 'utf8');
  const key = createHash('sha256')
    .update(source)
    .update(process.version)
    .update(process.arch)
    .digest('hex')
    .slice(0, 16);
  const dir = cacheDirOf(env);
  const name = `${basename(file, '.js')}-${key}.v8`;
  let cached: Buffer | undefined;
  quietly(() => {
    const path = join(dir, name);
    if (ownedAndPrivate(dir) && ownedAndPrivate(path)) cached = payloadOf(readFileSync(path));
  });
  const wrapper = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = newScript(wrapper, { filename: file, cachedData: cached });
  const module = { exports: {} as unknown };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, require, module, file, dirname(file));
  if (!cached || script.cachedDataRejected) {
    // At exit, so that the functions this run compiled are in the cache too, and after fettle has answered.
    process.once('exit', () => quietly(() => replaceCache(dir, name, script.createCachedData())));
  }
  return module.exports;
};
