// fettle's refs. Every update is a compare-and-swap: create only if absent, move or delete only from the
// value last read. A lost race is an E_CONFLICT for the caller to retry or report, never a silent overwrite.
import { FettleError } from '../errors';
import { GitError } from './git';
import type { Store } from './store';

export const REF_PREFIX = 'refs/fettle/';
/** Discarded changes move here: out of `git log --glob='fettle/*'`, still recoverable until gc. */
export const DISCARDED_PREFIX = 'refs/fettle-discarded/';

/** One ref per agent session: its history is the session's changes, its tree the session's view. */
export const SESSIONS_PREFIX = `${REF_PREFIX}sessions/`;

export const changeRef = (id: string): string => `${REF_PREFIX}${id}`;
export const discardedRef = (id: string): string => `${DISCARDED_PREFIX}${id}`;

export type RefUpdate =
  | { op: 'create'; ref: string; oid: string }
  | { op: 'update'; ref: string; oid: string; old: string }
  | { op: 'delete'; ref: string; old: string }
  | { op: 'verify'; ref: string; old: string };

const line = (u: RefUpdate): string => {
  switch (u.op) {
    case 'create':
      return `create ${u.ref} ${u.oid}`;
    case 'update':
      return `update ${u.ref} ${u.oid} ${u.old}`;
    case 'delete':
      return `delete ${u.ref} ${u.old}`;
    case 'verify':
      return `verify ${u.ref} ${u.old}`;
  }
};

const updateArgs = (reason: string): string[] => ['update-ref', '-m', reason, '--stdin'];

/** Starts the `update-ref` a later updateRefs with the same reason will use (see GitRunner.warm). */
export const warmRefUpdate = (store: Store, reason: string): void => store.git.warm(updateArgs(reason));

/** Applies all updates atomically or none (`update-ref --stdin` is one transaction). */
export const updateRefs = async (store: Store, updates: RefUpdate[], reason: string): Promise<void> => {
  const input = `${updates.map(line).join('\n')}\n`;
  try {
    await store.git.run({ args: updateArgs(reason), input });
  } catch (error) {
    throw error instanceof GitError ? refError(error, updates) : error;
  }
};

/** A compare-and-swap lost to another writer of `refs` (a comma-separated list). */
export const lostRace = (refs: string, cause?: unknown): FettleError =>
  new FettleError('E_CONFLICT', `another fettle process changed ${refs} at the same time`, {
    cause,
    hint: 'Run `fettle status` to see where things stand, then retry.',
  });

/**
 * What a failed ref update means. Only a stale expected value is a lost race; anything else (a held .lock, a
 * file in the way of the ref, a read-only refs dir) is reported with git's own words.
 */
const refError = (error: GitError, updates: RefUpdate[]): Error => {
  const refs = updates.map((u) => u.ref).join(', ');
  if (/reference already exists|is at [0-9a-f]+ but expected|unable to resolve reference/i.test(error.stderr)) {
    return lostRace(refs, error);
  }
  if (/Unable to create '.*\.lock': File exists/i.test(error.stderr)) {
    return new FettleError('E_LOCKED', `a git lock on ${refs} is held: ${error.message}`, {
      cause: error,
      hint: 'Another git process is updating refs; retry. If none is running, a crashed one left the .lock file: remove it.',
    });
  }
  return error;
};

export interface PreparedRefs {
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/**
 * Locks the refs and checks their expected values now, before the caller's destructive step (replacing a
 * user's file); `commit` makes the updates, `abort` drops them. A transaction git never sees committed is
 * aborted when the process ends, so a crash between the two changes no ref.
 */
export const prepareRefs = async (store: Store, updates: RefUpdate[], reason: string): Promise<PreparedRefs> => {
  let stdout = '';
  let settle: (ok: boolean) => void = () => undefined;
  const prepared = new Promise<boolean>((resolve) => (settle = resolve));
  const git = store.git.start(updateArgs(reason), (c) => {
    stdout += c.toString('utf8');
    if (stdout.includes('prepare: ok')) settle(true);
  });
  void git.closed.then(() => settle(false));
  const end = async (input: string): Promise<void> => {
    try {
      await git.finish(input);
    } catch (error) {
      throw error instanceof GitError ? refError(error, updates) : error;
    }
  };
  git.write(`start\n${updates.map(line).join('\n')}\nprepare\n`);
  if (!(await prepared)) {
    await end(''); // rejects with git's reason
    throw new FettleError(
      'E_GIT',
      `git update-ref did not prepare the update of ${updates.map((u) => u.ref).join(', ')}`,
    );
  }
  return { commit: () => end('commit\n'), abort: () => end('abort\n') };
};

export interface RefRecord {
  ref: string;
  oid: string;
  /** the tip commit's full message */
  message: string;
  /** committer time of the tip, in epoch seconds */
  time: number;
  parents: string[];
}

const SEP = '\u0001';
const END = '\u0002';

/** The git command listRefTips runs, for a caller that starts it early (GitRunner.warm). */
export const refTipsArgs = (prefixes: readonly string[]): string[] => [
  'for-each-ref',
  '--format=%(objectname) %(refname)',
  ...prefixes,
];

/**
 * Every ref under the prefixes with the object it names, and nothing read from the objects: refs alone. From the
 * ref files when the store reads them (Store.refTips) and they are plain, else from git (or with `git`).
 */
export const listRefTips = async (
  store: Store,
  prefixes: string[],
  o: { git?: boolean } = {},
): Promise<{ ref: string; oid: string }[]> => {
  const files = o.git ? null : store.refTips?.(prefixes);
  if (files) return files;
  const { stdout } = await store.git.run({ args: refTipsArgs(prefixes) });
  const tips: { ref: string; oid: string }[] = [];
  // A ref name holds no space or newline (git check-ref-format).
  for (const line of stdout.toString('utf8').split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) tips.push({ oid: line.slice(0, space), ref: line.slice(space + 1) });
  }
  return tips;
};

/** Every ref under the given prefixes with its tip commit; one process, cost grows with fettle's refs only. */
export const listRefs = async (store: Store, prefixes: string[]): Promise<RefRecord[]> => {
  const format = ['%(refname)', '%(objectname)', '%(committerdate:unix)', '%(parent)', '%(contents)'].join(SEP) + END;
  const text = (await store.git.run({ args: ['for-each-ref', `--format=${format}`, ...prefixes] })).stdout.toString(
    'utf8',
  );
  return text
    .split(`${END}\n`)
    .filter((chunk) => chunk.includes(SEP))
    .map((chunk) => {
      const [ref = '', oid = '', time = '0', parents = '', message = ''] = chunk.split(SEP);
      return { ref, oid, time: Number(time), parents: parents.split(' ').filter(Boolean), message };
    });
};
