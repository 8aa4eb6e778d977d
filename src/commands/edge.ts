// What a command gets from the process: built once in index.ts, passed down.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { clockFrom, loadConfig, type Env } from '../config';
import { type Caller, callerOf } from '../core/caller';
import { FettleError } from '../errors';
import { ancestors, processStart } from '../io/ancestry';
import { selfCommand, shellQuote, spellCommands } from '../io/self';
import type { Context } from '../protocol/context';
import type { ReviewScope } from '../protocol/review/review-data';
import { detachedMaintenance } from '../protocol/upkeep/maintain-detached';

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** bytes of standard input (for `fettle write`) */
  stdin: () => Promise<Buffer>;
  /** path of the running script, for printing commands that run as shown */
  script: string | undefined;
  isTTY: boolean;
  /** whether stdin and stdout are both a terminal: where a person types and reads */
  terminal: boolean;
  /** long output for a person (review, show): through the pager on a terminal, else as `out` */
  page: (text: string) => void;
  /** stderr as given, no newline added (a progress line redrawn in place) */
  errWrite: (raw: string) => void;
  /** whether stderr is a terminal, and its width */
  errTTY: boolean;
  columns?: number | undefined;
  /** a line the person types in answer to `question` (shown on stderr); null when stdin is not a terminal */
  ask?: ((question: string) => Promise<string | null>) | undefined;
}

/**
 * The review page (web/server.ts runPage), which the entry loads for `fettle review --web` only: its bundle holds
 * the page's server and libraries, which no other command parses. Said here by shape, not imported: edges never
 * import each other.
 */
export type PageRunner = (o: {
  ctx: Context;
  scope: ReviewScope;
  open: boolean;
  quietMs: number;
  say: (line: string) => void;
}) => Promise<void>;

export interface Edge {
  cwd: string;
  env: Env;
  io: Io;
  /** who runs this command (processCaller), asked only when it decides a change */
  caller: () => Caller;
  /** loads the review page: absent where the entry did not hand it over (tests that build the program) */
  page?: (() => PageRunner) | undefined;
}

/**
 * Who runs this process, read once and only when first asked (a decision): `ps` costs a process on macOS, which
 * `status` and `log` need not pay. The terminal is stdin's and stdout's both: a person types and reads there.
 */
export const processCaller = (env: Env, terminal: boolean): (() => Caller) => {
  let known: Caller | undefined;
  return () => {
    known ??= callerOf({ env, ancestors: ancestors(process.ppid), terminal });
    return known;
  };
};

/** The directory a command works in: `-C <dir>` against the process's own, or that one. */
export const cwdFor = (edge: Edge, dir?: string): string => {
  if (!dir) return edge.cwd;
  const cwd = resolve(edge.cwd, dir);
  // Said here, before git is started there and blamed for it (`spawn git ENOENT`).
  const kind = statSync(cwd, { throwIfNoEntry: false });
  if (!kind?.isDirectory())
    throw new FettleError('E_USAGE', `-C ${dir}: ${kind ? 'not a directory' : 'no such directory'} (${cwd}).`, {
      hint: 'Give -C the directory of the repository (or the project) to work in.',
    });
  return cwd;
};

/**
 * How a printed command spells fettle for the caller's shell, which is in `edge.cwd`: this fettle's own
 * spelling (io/self.ts), plus `-C <dir>` when the command was told to run elsewhere.
 */
export const invokeFor = (edge: Edge, dir?: string): string => {
  const base = selfCommand(edge.env, edge.io.script);
  const cwd = dir ? resolve(edge.cwd, dir) : edge.cwd; // not checked: this also spells the error of a bad -C
  return cwd === edge.cwd ? base : `${base} -C ${shellQuote(cwd)}`;
};

/** A text from below the edge (a hint, a fix) with each backticked fettle command spelled for the caller. */
export const spelled = (edge: Edge, dir: string | undefined, text: string): string =>
  spellCommands(text, invokeFor(edge, dir));

/**
 * Whether to colour output, as git and most tools decide: FORCE_COLOR (other than 0/false) says yes, NO_COLOR
 * (any non-empty value) or TERM=dumb no; otherwise only on a terminal, and never in --json.
 */
export const useColor = (edge: Edge, json = false): boolean => {
  if (json) return false;
  const force = edge.env.FORCE_COLOR;
  if (force !== undefined && force !== '' && force !== '0' && force !== 'false') return true;
  if (edge.env.NO_COLOR || edge.env.TERM === 'dumb') return false;
  return edge.io.isTTY;
};

export const contextFor = (edge: Edge, dir?: string): Context => ({
  cwd: cwdFor(edge, dir),
  env: edge.env,
  now: clockFrom(edge.env),
  config: loadConfig(edge.env),
  caller: edge.caller,
  parent: () => processStart(process.ppid),
  notice: (text) => edge.io.err(text),
  // `fettle write` in a script's loop adds packs as the hook does: maintenance starts as it does for the hook
  detach: detachedMaintenance(edge.io.script, edge.env),
});

/** The store of the repository the command runs in (or the private store outside any repository). */
