// What a command gets from the process: built once in index.ts, passed down.
import { resolve } from 'node:path';
import { clockFrom, loadConfig, type Env } from '../config';
import type { Context } from '../protocol/context';

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

/** The directory a command works in: `-C <dir>` against the process's own, or that one. */
export const cwdFor = (edge: Edge, dir?: string): string => (dir ? resolve(edge.cwd, dir) : edge.cwd);

export const contextFor = (edge: Edge, dir?: string): Context => ({
  cwd: cwdFor(edge, dir),
  env: edge.env,
  now: clockFrom(edge.env),
  config: loadConfig(edge.env),
  notice: (text) => edge.io.err(text),
});

/** The store of the repository the command runs in (or the private store outside any repository). */
