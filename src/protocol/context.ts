import type { Caller } from '../core/caller';
import type { Config, Env } from '../config';
import type { StoreCache } from '../store/store-cache';
import type { Store } from '../store/store';

/**
 * Work a long-lived process runs after the answer: one task at a time per `key`, at most once per `pace` ms
 * (serve/runtime.ts).
 * `completes`: the task finishes what a call's answer already told (a superseded proposal's discard), not
 * housekeeping: it runs right after the answer, `key` and `pace` aside, and `completing` counts it until done.
 */
export type Background = (key: string, task: () => Promise<void>, pace?: number, o?: { completes?: boolean }) => void;

/** Everything ambient, read once at the edge and passed down. */
export interface Context {
  cwd: string;
  env: Env;
  now: () => Date;
  config: Config;
  /**
   * In the resident server (`fettle serve`): repositories found before and git processes kept between calls.
   * Absent in a command's or a hook process's own run, which asks git afresh.
   */
  resident?: StoreCache | undefined;
  /** In the resident server: housekeeping (retention, maintenance) runs after the answer, not before it. */
  background?: Background | undefined;
  /**
   * In the resident server: storage maintenance, run in process after the answer (maintain.ts). Handed in by the
   * server's edge, so a hook process, which never runs it, does not load it.
   */
  maintenance?: ((ctx: Context, store: Store) => Promise<unknown>) | undefined;
  /** In a hook process: starts storage maintenance of a store as a process of its own (`fettle gc --auto`). */
  detach?: ((store: Store) => void) | undefined;
  /**
   * Who runs this (core/caller.ts), asked when a change is decided: the command's edge reads its process once, the
   * MCP server's is the model. Absent (the hook's), nobody is a person.
   */
  caller?: (() => Caller) | undefined;
  /**
   * The process that started this one and when it started (io/ancestry.ts processStart), read at the edge when
   * first asked: the session ladder's third rung (select/command-session.ts). Absent: that rung is skipped.
   */
  parent?: (() => { pid: number; start: string } | null) | undefined;
  /** where a command says what it did on the side (recovering an interrupted confirm); the hook has none */
  notice?: ((text: string) => void) | undefined;
}

/** Metadata of the agent call that caused a change, recorded in its commit trailers. */
export interface Origin {
  session?: string | undefined;
  toolUse?: string | undefined;
  tool?: string | undefined;
  /** the agent that made the call (claude, codex, gemini, opencode, cursor, or an MCP client's name) */
  agent?: string | undefined;
  /** the agent turn (user prompt) of the session (see turns.ts) */
  turn?: number | undefined;
  /** a staged change Claude Code asks a person about */
  review?: 'person' | undefined;
  /** who decided the record's step (Fettle-Decided-By): threshold, policy:<rule>, executor, model, person, prompt */
  decidedBy?: string | undefined;
  /**
   * false: a proposal never replaces the session's pending one for the same file. A command's ladder session
   * (core/session-ladder.ts) is shared by every script on one branch, which share no plan.
   */
  supersedes?: false | undefined;
}
