// The resident server and the fettle installed on disk: the server notices when its bundles were replaced (an
// upgrade, a reinstall), answers from then on through the installed command path, so no call is handled by
// code that is no longer the installed one, and hands its listening socket to a successor started from the
// new files, so Claude Code's next calls reach the new version without a refused connection.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { outcomeOfProcess } from './serve-answer';
import type { HookOutcome } from './outcome';

/**
 * A bundle's identity. Synchronous: a stat per call costs microseconds, a round trip through libuv's thread pool
 * more. (io/exists.ts has the same for the store; edges do not import io.)
 */
const stampOf = (file: string): string => {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return 'missing';
  }
};

interface Seen {
  file: string;
  stamp: string;
  hash: string;
}

const hashOf = async (file: string): Promise<string> =>
  readFile(file).then(
    (b) => createHash('sha256').update(b).digest('hex'),
    () => 'missing',
  );

export interface BuildWatch {
  /** a short hash of what the server runs, for logs and status */
  id: string;
  /** whether any of the files now holds other bytes than when the server started (a stat each, usually) */
  replaced(): Promise<boolean>;
}

export const watchBuild = async (files: string[]): Promise<BuildWatch> => {
  const seen: Seen[] = await Promise.all(
    files.map(async (file) => ({ file, stamp: stampOf(file), hash: await hashOf(file) })),
  );
  const id = createHash('sha256')
    .update(seen.map((s) => s.hash).join())
    .digest('hex')
    .slice(0, 12);
  let replaced = false;
  return {
    id,
    replaced: async () => {
      if (replaced) return true;
      for (const s of seen) {
        const stamp = stampOf(s.file);
        if (stamp === s.stamp) continue;
        if ((await hashOf(s.file)) !== s.hash) replaced = true;
        else s.stamp = stamp; // touched, same bytes
      }
      return replaced;
    },
  };
};

/** The installed command hook, run for one call: the payload on its stdin, its exit code and output read back. */
export const commandPath =
  (script: string) =>
  (raw: string, env: NodeJS.ProcessEnv): Promise<HookOutcome> =>
    new Promise((resolve) => {
      let child: ChildProcess;
      try {
        child = spawn(process.execPath, [script, 'hook'], { env, cwd: '/', stdio: ['pipe', 'pipe', 'pipe'] });
      } catch (error) {
        resolve(outcomeOfProcess(null, '', (error as Error).message));
        return;
      }
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout?.on('data', (c: Buffer) => out.push(c));
      child.stderr?.on('data', (c: Buffer) => err.push(c));
      child.stdin?.on('error', () => undefined);
      child.on('error', (error) => resolve(outcomeOfProcess(null, '', error.message)));
      child.on('close', (code) =>
        resolve(outcomeOfProcess(code, Buffer.concat(out).toString('utf8'), Buffer.concat(err).toString('utf8'))),
      );
      child.stdin?.end(raw);
    });

/**
 * Starts the installed fettle as the next server and gives it the listening socket; resolves once it says it
 * serves (false if it never does: the caller keeps answering through the command path).
 */
export const handSocketOver = (script: string, server: Server, token: string): Promise<boolean> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [script, 'serve', '--takeover'], {
      detached: true,
      cwd: '/',
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    const done = (ok: boolean) => {
      clearTimeout(timer);
      child.removeAllListeners();
      if (child.connected) child.disconnect();
      child.unref();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), 10_000);
    child.on('error', () => done(false));
    child.on('exit', () => done(false));
    child.on('message', (message: { kind?: string }) => {
      if (message?.kind === 'ready') done(true);
    });
    child.send({ kind: 'takeover', token }, server);
  });
