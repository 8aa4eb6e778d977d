// `fettle install --resident`: the server's port (chosen once, kept), the per-user token, and the hooks that
// reach the server, with their guards (core/resident-settings.ts), in a settings file.
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import type { Env } from '../config';
import { RESIDENT_EVENTS, residentGroups, type ResidentPlan } from '../core/resident-settings';
import { COMPACT_EVENTS } from '../core/settings';
import { realPathOrAbsolute } from '../io/atomic-write';
import { shellQuote } from '../io/self';
import { readPort, writePort } from '../protocol/serve/serve-port';
import { makeToken, servePaths, type ServePaths } from '../protocol/serve/serve-state';
import { hookCommand, installHooks, type Outcome } from './settings-file';

/** Whether 127.0.0.1:port can be listened on now. */
const free = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ host: '127.0.0.1', port, exclusive: true }, () => probe.close(() => resolve(true)));
  });

/** A port nothing listens on, from the range no well-known service uses by default. */
const choosePort = async (): Promise<number> => {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 40_000);
    if (await free(port)) return port;
  }
  throw new Error('no free port found on 127.0.0.1 between 20000 and 60000');
};

/**
 * The guard commands: `sh` builtins while the server runs, then `cat` reads the hook input away (Claude Code
 * reports a hook that closes its stdin early as failed); the paths are this installation's, quoted.
 */
export const residentPlan = (
  paths: ServePaths,
  script: string,
  port: number,
  read?: boolean,
  bash?: boolean,
): ResidentPlan => {
  const node = shellQuote(process.execPath);
  const cli = shellQuote(realPathOrAbsolute(script));
  // Alive, and the server that wrote the file: on Linux its /proc start time (field 22) must match, and a
  // zombie (state Z) is dead; `${20}` is that field once `pid (comm) ` is cut off.
  const stat = '{ read -r x < /proc/$p/stat && set -- ${x##*) } && [ "$1" != Z ] && [ "${20}" = "$t" ]; }';
  // `$a`, the pid file's second line, from the same version of the file: how that server authenticates.
  const readPid = `{ read -r p _ t && { read -r a || :; }; } < ${shellQuote(paths.pid)}`;
  const alive = `{ ${readPid} && kill -0 "$p" && { [ "$t" = - ] || ${stat}; }; } 2>/dev/null`;
  // The server admits this user's calls without a token (it checks each connection's owner).
  const byPeer = '[ "$a" = peer ]';
  const drain = 'exec cat >/dev/null';
  // The server's files are where install put them, whatever HOME the session has.
  const state = `FETTLE_STATE_DIR=${shellQuote(dirname(paths.dir))}`;
  return {
    port,
    guardBlocking: `${alive} || exec env ${state} ${node} ${cli} serve --guard; [ -n "$FETTLE_SERVE_TOKEN" ] || ${byPeer} || exec ${node} ${cli} hook; ${drain}`,
    guard: `${alive} && { [ -n "$FETTLE_SERVE_TOKEN" ] || ${byPeer}; } || exec ${node} ${cli} hook; ${drain}`,
    sessionStart: `${state} ${node} ${cli} serve --session-start`,
    read,
    bash,
  };
};

export interface ResidentInstall {
  path: string;
  result: Outcome;
  port: number;
  paths: ServePaths;
}

export const installResident = async (
  env: Env,
  file: string,
  script: string | undefined,
  options: { read?: boolean; bash?: boolean } = {},
): Promise<ResidentInstall> => {
  const paths = servePaths(env);
  const port = (await readPort(paths).catch(() => null)) ?? (await choosePort());
  await writePort(paths, port);
  await makeToken(paths);
  const plan = residentPlan(paths, script ?? 'fettle', port, options.read, options.bash);
  const { path, result } = await installHooks(env, file, hookCommand(script), {
    read: options.read,
    bash: options.bash,
    custom: {
      // SessionStart is resident mode's own (serve --session-start forgets the reads after /clear or a compaction).
      events: [...new Set([...RESIDENT_EVENTS, ...(plan.read ? COMPACT_EVENTS : [])])],
      groups: (event) => residentGroups(plan, event),
    },
  });
  return { path, result, port, paths };
};
