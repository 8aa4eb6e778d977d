// The resident server's port, in `config.json` of its directory: chosen by `fettle install --resident` (whose HTTP
// hooks name it, so it never moves), or by the server's own first start (started by a hook call, or `fettle serve`
// alone), which takes a port the system gives and may take another when a program holds that one later.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FettleError } from '../../errors';
import { withLock } from '../../io/lock';
import type { ServePaths } from './serve-paths';
import { createOnce, ensureServeDir, notInstalled, replace } from './serve-state';

/** Written by a server that chose its port itself: no settings file names it. */
const BY_SERVER = 'server';

interface Kept {
  port: number;
  /** chosen by a server, not by install: it may move */
  movable: boolean;
}

const configText = (port: number, movable: boolean): string =>
  `${JSON.stringify(movable ? { port, chosenBy: BY_SERVER } : { port })}\n`;

/** The port chosen so far; null when none was (a damaged file is an error, never overwritten). */
export const keptPort = async (paths: ServePaths): Promise<Kept | null> => {
  const text = await readFile(paths.config, 'utf8').catch(() => null);
  if (text === null) return null;
  const data = JSON.parse(text) as { port?: unknown; chosenBy?: unknown };
  const port = data.port;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)
    throw new FettleError('E_SERVE', `${paths.config} names no valid port.`, {
      hint: 'Run `fettle install --resident` again.',
    });
  return { port, movable: data.chosenBy === BY_SERVER };
};

export const readPort = async (paths: ServePaths): Promise<number> => {
  const kept = await keptPort(paths);
  if (!kept) throw notInstalled();
  return kept.port;
};

/** install's choice, which its HTTP hooks name: fixed from now on. */
export const writePort = async (paths: ServePaths, port: number): Promise<void> => {
  await ensureServeDir(paths);
  await replace(paths.config, configText(port, false), 0o600);
};

/**
 * A server's first choice, kept unless another server starting at the same time made its own first: the port that
 * stands is returned.
 */
export const claimPort = async (paths: ServePaths, port: number): Promise<number> => {
  await ensureServeDir(paths);
  return (await createOnce(paths.config, configText(port, true), 0o600)) ? port : readPort(paths);
};

/**
 * A server's port another program now holds: `to` replaces `from`, under a lock, unless another server moved it
 * first (its port is returned then). Never a port install chose.
 */
export const movePort = (paths: ServePaths, from: number, to: number): Promise<number> =>
  withLock(join(paths.dir, 'port.lock'), async () => {
    const kept = await keptPort(paths);
    if (!kept?.movable || kept.port !== from) return kept?.port ?? from;
    await replace(paths.config, configText(to, true), 0o600);
    return to;
  });
