// What a command gets from the process: built once in index.ts, passed down.
import { resolve } from 'node:path';
import { clockFrom, loadConfig, type Env } from '../config';
import type { Context } from '../protocol/context';
import { openStoreAt, type Store } from '../store/locate';

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** bytes of standard input (for `fettle write`) */
  stdin: () => Promise<Buffer>;
  /** path of the running script, for printing commands that run as shown */
  script: string | undefined;
  isTTY: boolean;
}

export interface Edge {
  cwd: string;
  env: Env;
  io: Io;
}

export const contextFor = (edge: Edge, dir?: string): Context => ({
  cwd: dir ? resolve(edge.cwd, dir) : edge.cwd,
  env: edge.env,
  now: clockFrom(edge.env),
  config: loadConfig(edge.env),
});

/** The store of the repository the command runs in (or the private store outside any repository). */
export const storeFor = (ctx: Context): Promise<Store> => openStoreAt(ctx.cwd, ctx.env, ctx.config.dataDir);
