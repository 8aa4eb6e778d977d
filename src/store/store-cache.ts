// git for a long-lived process (the resident hook server, `fettle serve`): which repository a directory belongs
// to is remembered and checked again on each call with a few stats, and the readers and the ref updater a
// record needs stay running between calls: one `cat-file --batch-command` per work tree (HEAD, trees along the
// path, existence checks) and one `update-ref --stdin` per repository, fed one transaction after another. A
// hook call then starts no git process at all. Anything else goes to git as a fresh process, as it would in
// the command hook; so does every call of a process that has died (a failed compare-and-swap ends
// `update-ref`, which is started again for the next transaction).
import { createHash } from 'node:crypto';
import { dirname, join, relative, sep } from 'node:path';
import type { Env } from '../config';
import { existsSync } from 'node:fs';
import { gitEnv } from '../io/child-env';
import { createGit, GitError, type GitCall, type GitResult, type GitRunner, textOf } from './git';
import { Gone, Kept, type Parse } from './kept';
import { batchAnswers, headAndLevels, type HeadRead, transactionDone } from './kept-answers';
import type { Store } from './store';

/** What opening a store found, as much of it as does not change between calls. */
export interface Found {
  kind: Store['kind'];
  workTree: string;
  commonDir: string;
  objectFormat: Store['objectFormat'];
  zeroOid: string;
  /** where git runs, and the arguments it needs there (the private store's --git-dir) */
  cwd: string;
  extraArgs: readonly string[];
}

/** A kept process unused this long is ended. */
const IDLE_MS = 30_000;
/** How many kept processes in a row a request may find gone (Gone) before it fails. */
const GONE_ATTEMPTS = 50;

const linesOf = (input: GitCall['input']): string[] =>
  (Buffer.isBuffer(input) ? input.toString('utf8') : (input ?? '')).split('\n').filter((l) => l !== '');

/** Asks a kept process: its arguments, what to send it, and how to tell where its answer ends. */
type Ask = (args: readonly string[], input: string, parse: Parse) => Promise<Buffer>;

const result = (stdout: Buffer): GitResult => ({ code: 0, stdout, stderr: '' });

/** The kept process every `cat-file` batch is asked of. */
const KEPT_READER = ['cat-file', '--batch-command', '--buffer'] as const;

/**
 * A store's git calls: a `cat-file` batch and a plain `update-ref --stdin` transaction go to the kept processes;
 * anything else (its own env, streamed output, a fresh process asked for, other arguments) to a process of its own.
 */
const routed =
  (base: GitRunner, ask: Ask) =>
  async (call: GitCall): Promise<GitResult> => {
    if (call.env || call.onStdout || call.fresh) return base.run(call);
    const [command, flag, reason, stdin] = call.args;
    if (command === 'cat-file' && call.args.length === 2 && (flag === '--batch' || flag === '--batch-check')) {
      const specs = linesOf(call.input);
      if (specs.length === 0) return result(Buffer.alloc(0));
      const content = flag === '--batch';
      const input = `${specs.map((s) => `${content ? 'contents' : 'info'} ${s}\n`).join('')}flush\n`;
      return result(await ask(KEPT_READER, input, batchAnswers(specs.length, content)));
    }
    if (command === 'update-ref' && flag === '-m' && reason !== undefined && stdin === '--stdin') {
      if (call.args.length !== 4) return base.run(call);
      const transaction = `start\n${linesOf(call.input).join('\n')}\nprepare\ncommit\n`;
      try {
        await ask(['update-ref', '-m', 'fettle', '--stdin'], transaction, transactionDone);
      } catch (error) {
        // git said why (a lost compare-and-swap, a held lock): the same words a one-off run reports.
        throw error instanceof GitError ? new GitError(call.args, error.exitCode, error.stderr, error) : error;
      }
      return result(Buffer.alloc(0));
    }
    return base.run(call);
  };

/**
 * A one-off process's runner over `base` (the git hooks' `fettle git-hook`): its `cat-file` batches all go to one
 * kept process, started by `warm` (or by the first read), instead of a process each; everything else goes to `base`,
 * warmed processes included. `close` ends the kept process; until then it keeps fettle running.
 */
export const keepingReads = (base: GitRunner): { git: GitRunner; close: () => void } => {
  const kept = new Map<string, Kept>();
  const keptFor = (args: readonly string[]): Kept => {
    const key = args.join('\0');
    let k = kept.get(key);
    if (!k || k.dead) {
      k = new Kept(base, args);
      kept.set(key, k);
    }
    return k;
  };
  const ask: Ask = async (args, input, parse) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await keptFor(args).ask(input, parse);
      } catch (error) {
        if (!(error instanceof Gone) || attempt >= GONE_ATTEMPTS) throw error;
      }
    }
  };
  const run = routed(base, ask);
  const git: GitRunner = {
    cwd: base.cwd,
    run,
    start: base.start,
    text: textOf(run),
    warm: (args) => (args[0] === 'cat-file' ? void keptFor(KEPT_READER) : base.warm(args)),
  };
  const close = () => {
    for (const k of kept.values()) k.close();
  };
  return { git, close };
};

export class StoreCache {
  private readonly found = new Map<string, Found>();
  private readonly kept = new Map<string, Kept>();
  private readonly sweeper: NodeJS.Timeout;

  constructor() {
    this.sweeper = setInterval(() => this.sweep(), IDLE_MS / 3);
    this.sweeper.unref();
  }

  /** Remembers what opening a store found, under `key` (the directory, and the private store's place). */
  remember(key: string, found: Found): void {
    this.found.set(key, found);
  }

  /**
   * The store at `dir` if it was found before and nothing changed since: its repository is still there and no
   * `.git` appeared between `dir` and its work tree (a nested repository made meanwhile); HEAD is read anew.
   */
  async reopen(key: string, dir: string, env: Env, file?: string, early = false): Promise<Store | null> {
    const found = this.found.get(key);
    if (!found || !this.unchanged(dir, found)) {
      this.found.delete(key);
      return null;
    }
    const git = this.runner(found, env);
    const { cwd: _cwd, extraArgs: _args, ...store } = found;
    if (found.kind !== 'repo') return { ...store, git, head: null };
    const rel = file ? relative(found.workTree, file) : '';
    const segments = rel && !rel.startsWith('..') ? rel.split(sep) : [];
    const reading = git.headAndLevels(segments.slice(0, -1));
    if (!early) return { ...store, git, ...(await reading) };
    // The caller goes on (claims the call, reads the file) while the kept cat-file answers.
    const opened: Store = { ...store, git, head: null };
    opened.ready = reading.then(({ head, read }) => {
      opened.head = head;
      opened.read = read;
    });
    opened.ready.catch(() => undefined); // awaited by the caller; a failure before then must not go unhandled
    return opened;
  }

  /** A few stats, synchronous: each costs microseconds, a round trip through libuv's thread pool more. */
  private unchanged(dir: string, found: Found): boolean {
    if (!existsSync(join(found.commonDir, 'HEAD'))) return false;
    if (found.kind === 'repo' && !existsSync(join(found.workTree, '.git'))) return false;
    const stop = found.kind === 'repo' ? found.workTree : null;
    for (let d = dir; d !== stop; d = dirname(d)) {
      if (existsSync(join(d, '.git'))) return false;
      if (dirname(d) === d) break;
    }
    return true;
  }

  /** A runner for the store that sends reads and ref transactions to kept processes, the rest to fresh ones. */
  runner(found: Found, env: Env): GitRunner & { headAndLevels(dirs: string[]): Promise<HeadRead> } {
    const base = createGit(found.cwd, env, found.extraArgs);
    const fingerprint = createHash('sha1')
      .update(JSON.stringify([found.cwd, found.extraArgs, Object.entries(gitEnv(env)).sort()]))
      .digest('hex');
    /**
     * Asks the kept process for `args`, starting it if needed, and again while it is found gone: nothing was
     * sent to a process found gone, and under contention (failed compare-and-swaps end `update-ref`) a request
     * can find several in a row.
     */
    const ask: Ask = async (args, input, parse) => {
      const key = `${fingerprint}\0${args.join('\0')}`;
      for (let attempt = 1; ; attempt++) {
        let kept = this.kept.get(key);
        if (!kept || kept.dead) {
          kept = new Kept(base, args);
          this.kept.set(key, kept);
        }
        try {
          return await kept.ask(input, parse);
        } catch (error) {
          if (!(error instanceof Gone) || attempt >= GONE_ATTEMPTS) throw error;
        }
      }
    };
    const read = (specs: string[], how: 'contents' | 'info'): Promise<Buffer> =>
      ask(
        KEPT_READER,
        `${specs.map((s) => `${how} ${s}\n`).join('')}flush\n`,
        batchAnswers(specs.length, how === 'contents'),
      );
    const run = routed(base, ask);
    return {
      cwd: base.cwd,
      run,
      start: base.start,
      text: textOf(run),
      warm: () => undefined, // what is worth warming is kept running
      headAndLevels: (dirs: string[]) => headAndLevels(read, dirs),
    };
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, kept] of this.kept) {
      if (kept.dead || (kept.pending === 0 && now - kept.used > IDLE_MS)) {
        kept.close();
        this.kept.delete(key);
      }
    }
  }

  /** Ends every kept process (the server is stopping). */
  close(): void {
    clearInterval(this.sweeper);
    for (const kept of this.kept.values()) kept.close();
    this.kept.clear();
  }
}
