// The resident server's Unix socket, for command hooks' calls (hook/thin.ts): in the server's directory, which only
// its user may enter, so whoever connects is that user, with no token and no lookup of the connection's owner.
// Bound under a name of its own and renamed into place: a successor's socket replaces its predecessor's at once,
// and closing one never removes another's (a closing socket removes the name it was bound to, which is gone).
import { lstat, rename, stat, unlink } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { socketUsable, type ServePaths } from './serve-paths';

export interface LocalSocket {
  /** Stops listening, and removes the socket if it is still this server's. */
  close(): Promise<void>;
}

const listening = (server: Server, path: string): Promise<void> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });

/**
 * Listens on `paths.socket`, each connection handed to `accept`. Null where a socket cannot serve (no Unix
 * sockets, a path too long to bind) or must not (a directory others may enter: its mode is the only check).
 */
export const listenLocal = async (paths: ServePaths, accept: (socket: Socket) => void): Promise<LocalSocket | null> => {
  const own = join(paths.dir, `sock.${process.pid}`);
  if (!socketUsable(paths.socket) || !socketUsable(own)) return null;
  const dir = await stat(paths.dir);
  if (dir.uid !== process.getuid?.() || (dir.mode & 0o077) !== 0) return null;
  await unlink(own).catch(() => undefined); // left by a killed process that had this pid
  const server = createServer(accept);
  await listening(server, own);
  try {
    await rename(own, paths.socket);
  } catch (error) {
    server.close();
    throw error;
  }
  const { ino } = await lstat(paths.socket);
  return {
    close: async () => {
      server.close();
      const now = await lstat(paths.socket).catch(() => null);
      if (now?.ino === ino) await unlink(paths.socket).catch(() => undefined);
    },
  };
};
