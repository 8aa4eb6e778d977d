// Loading a bundle with V8's code cache. Every hook call is a fresh Node process that parses and compiles its
// bundle again (~5 ms of fettle's ~30 ms over bare Node, docs/PERFORMANCE.md). The code compiled by a first
// run is kept under the user's cache directory and handed back to V8 by later runs.
// V8 checks cached data against its own version and flags but only against the source's *length*, so each file
// carries the source it was compiled from, and is used only when that equals the bundle on disk byte for byte: an
// upgraded bundle never meets code compiled from another one.
// V8 does not checksum cached code in release builds, so each file carries its payload twice: a cache damaged on
// disk (the copies differ) is dropped, never run. Comparing bytes needs no hash: loading Node's `crypto` for one
// cost a `fettle status` more than the comparison and the longer read (docs/PERFORMANCE.md, case 7).
// Nothing here may fail a run: an unreadable, stale, damaged or rejected cache means compiling as without one.
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

type Env = Record<string, string | undefined>;

// Required when a bundle loads, not with the entry: the thin hook (hook/thin.ts) answers without a bundle, and
// loading these modules took it milliseconds (docs/PERFORMANCE.md).
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

/**
 * The cache file's name for a bundle: where it is, its length, and the Node that compiles it, as 16 hex digits
 * (FNV-1a, two lanes). Only a name: two installs of fettle keep two files, and whether a file holds this very
 * bundle is the comparison of its source copy, not this.
 */
export const cacheKey = (file: string, length: number): string => {
  const text = `${file}\0${length}\0${process.version}\0${process.arch}`;
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    a = Math.imul(a ^ text.charCodeAt(i), 0x01000193);
    b = Math.imul(b ^ text.charCodeAt(i), 0x5bd1e995) ^ (b >>> 13);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
};

/** `FTC1`, the source's length, the payload's length; then the source, the payload, and the payload again. */
const MAGIC = 0x46544331;
const HEADER = 12;

export const cacheFile = (source: Buffer, payload: Buffer): Buffer => {
  const header = Buffer.alloc(HEADER);
  header.writeUInt32BE(MAGIC, 0);
  header.writeUInt32BE(source.length, 4);
  header.writeUInt32BE(payload.length, 8);
  return Buffer.concat([header, source, payload, payload]);
};

/**
 * Cached code runs as fettle: only a file and directory this user owns and nobody else may write are used (a
 * FETTLE_CACHE_DIR in a shared place must not let another account hand fettle its bytecode).
 */
const ownedAndPrivate = (path: string): boolean => {
  if (process.platform === 'win32') return true;
  const info = statSync(path);
  return info.uid === process.getuid?.() && (info.mode & 0o022) === 0;
};

/** The payload of a cache file compiled from `source` whose two copies agree, else undefined. */
export const payloadOf = (file: Buffer, source: Buffer): Buffer | undefined => {
  if (file.length < HEADER || file.readUInt32BE(0) !== MAGIC || file.readUInt32BE(4) !== source.length) return;
  const size = file.readUInt32BE(8);
  const start = HEADER + source.length;
  if (size === 0 || file.length !== start + 2 * size || !file.subarray(HEADER, start).equals(source)) return;
  const payload = file.subarray(start, start + size);
  return payload.equals(file.subarray(start + size)) ? payload : undefined;
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
  writeFileSync(temp, data, { mode: 0o600 });
  renameSync(temp, join(dir, name));
  const prefix = name.slice(0, name.lastIndexOf('-') + 1);
  for (const old of readdirSync(dir)) {
    const path = join(dir, old);
    if (old.startsWith(prefix) && old !== name) quietly(() => unlinkSync(path));
    else if (old.startsWith(`.${prefix}`) && old.endsWith('.tmp')) {
      quietly(() => Date.now() - statSync(path).mtimeMs > STALE_TEMP_MS && unlinkSync(path));
    }
  }
};

/**
 * Runs the CommonJS bundle at `file` (which may only require Node's own modules) and returns its exports. The cache
 * holds the functions the run that wrote it compiled: `variant` names a part of a bundle that runs other functions
 * (`status`, `log`), so each part keeps a cache of its own instead of compiling what the first one did not.
 */
export const loadBundle = (file: string, env: Env, variant?: string): unknown => {
  const bytes = readFileSync(file);
  const source = bytes.toString('utf8');
  const dir = cacheDirOf(env);
  const stem = basename(file, '.js') + (variant === undefined ? '' : `.${variant}`);
  const name = `${stem}-${cacheKey(file, bytes.length)}.v8`;
  let cached: Buffer | undefined;
  quietly(() => {
    const path = join(dir, name);
    if (ownedAndPrivate(dir) && ownedAndPrivate(path)) cached = payloadOf(readFileSync(path), bytes);
  });
  const wrapper = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = newScript(wrapper, { filename: file, cachedData: cached });
  const module = { exports: {} as unknown };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, require, module, file, dirname(file));
  if (!cached || script.cachedDataRejected) {
    // At exit, so that the functions this run compiled are in the cache too, and after fettle has answered.
    const write = () => replaceCache(dir, name, cacheFile(bytes, script.createCachedData()));
    process.once('exit', () => quietly(write));
  }
  return module.exports;
};
