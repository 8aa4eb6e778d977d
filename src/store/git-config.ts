// The settings fettle pins on every git call it makes (git.ts adds them), whatever the user's own config says.

/**
 * Config pinned on every call:
 * - hooks never run for fettle's commits (the user's hooks, core.hooksPath);
 * - git does not fsync loose objects or refs by default ("committed,-loose-object"), so ask for it;
 * - no signing, no fsmonitor daemons, no auto-gc started by fettle, stable path quoting;
 * - a ref's lock is waited for up to a second (git's default is 100 ms): fettle's background maintenance holds
 *   each of its refs' locks for an instant while it packs them, and a loaded machine can stretch an instant.
 */
const PINNED = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsync=loose-object,reference,index',
  '-c',
  'core.fsyncMethod=fsync',
  '-c',
  'commit.gpgSign=false',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.quotePath=false',
  '-c',
  'gc.auto=0',
  '-c',
  'maintenance.auto=false',
  '-c',
  'advice.detachedHead=false',
  '-c',
  'core.filesRefLockTimeout=1000',
];

/** PINNED without the settings named (`-c key=value` pairs whose key is listed). */
export const pinnedExcept = (keys: readonly string[] | undefined): readonly string[] => {
  if (!keys || keys.length === 0) return PINNED;
  const out: string[] = [];
  for (let i = 0; i < PINNED.length; i += 2) {
    const setting = PINNED[i + 1] as string;
    if (!keys.includes(setting.slice(0, setting.indexOf('=')))) out.push(PINNED[i] as string, setting);
  }
  return out;
};
