// One error type for everything fettle reports on purpose. `code` is stable (tests and --json match on it);
// `hint` is the next command to run. Anything that is not a FettleError is an internal bug.

/**
 * Every code, with what it means: the table of docs/COMMANDS.md is generated from this (scripts/commands-doc.ts)
 * and a test checks the two agree.
 */
export const ERROR_CODES = {
  E_USAGE: 'bad command-line arguments (an unknown option, a missing id, a -C that is not a directory)',
  E_CONFIG: 'an environment variable has an invalid value; the message names it',
  E_NOT_FOUND: 'no change with that id (the nearest id is suggested), or nothing of that session or file',
  E_EXPIRED: 'the staged change outlived FETTLE_WRITE_STAGE_TTL; a person may still apply it with --expired',
  E_ALREADY_APPLIED: 'the change was applied already; rollback undoes it',
  E_ALREADY_DISCARDED: 'the change was discarded already; nothing of it was written',
  E_NOTHING_TO_ROLL_BACK:
    "nothing of the change can be put back: it never reached the disk (pending, expired, discarded), its file already holds the bytes it replaced, or fettle did not keep them (a shell command's file over the size cap)",
  E_CONFLICT:
    'refused: the file changed since fettle recorded it and the edits overlap, a branch to push exists, or another process won a race; nothing was changed',
  E_LOCKED: 'another fettle (or git) process holds the lock on this file or ref',
  E_FORBIDDEN_PATH: 'a path fettle never writes or records: inside a .git directory, or a pseudo-filesystem',
  E_PERSON_REQUIRED:
    'only a person may do this (human review, --expired), and it ran in or under the agent, over MCP, or with no terminal',
  E_UNTRUSTED: "a record whose fields disagree or point outside the repository's work trees (a planted ref)",
  E_TOO_LARGE: 'a file larger than fettle can hold in memory to record (2 GiB)',
  E_NOT_TEXT: 'content fettle handles only as text (fettle read of a binary file)',
  E_SETTINGS:
    "an agent's settings file, opencode's plugin or a git hook cannot be read or written safely (or is not fettle's); it was left as it was",
  E_SERVE: 'the resident hook server (fettle serve) is not set up, cannot start, or refused the request',
  E_POLICY:
    'a policy file (.fettle/policy.json, or your own under the XDG config dir) is invalid; the message names the file, the rule and the fix',
  E_BLOCKED: "a policy rule blocks writing this path; the message is the rule's own, or its `run` command's output",
  E_CONTRACT:
    'a contract cannot be applied as written (invalid, an anchor matching 0 or 2+ times, an edit out of its scope) or changed since it was staged',
  E_STORE_NEWER:
    "this repository's fettle data (or the private store's) was written by a newer fettle, whose store format this one cannot read; nothing was read or changed: upgrade fettle",
  E_STORE_FORMAT:
    "the stamp of fettle's store format (.git/fettle/format, or the private store's) names no version; nothing was read or changed: the message says how to repair it",
  E_GIT: 'a git command failed; its own words follow',
  E_IO: 'a filesystem operation failed (disk full, permission denied, read-only filesystem, ...)',
  E_INTERNAL: 'a bug in fettle; run again with FETTLE_DEBUG=1 and report it',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class FettleError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;

  constructor(code: ErrorCode, message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'FettleError';
    this.code = code;
    this.hint = options.hint;
  }
}

export const isFettleError = (value: unknown): value is FettleError => value instanceof FettleError;

/** Wraps an unexpected failure so it is reported once, with its cause kept for FETTLE_DEBUG. */
export const toFettleError = (error: unknown): FettleError => {
  if (isFettleError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof errno === 'string' && /^E[A-Z]+$/.test(errno)) {
    const { path: from, dest } = error as NodeJS.ErrnoException & { dest?: string };
    // A rename or link names both ends: the failure may be at either.
    const path = from && dest ? `${from} -> ${dest}` : from;
    // Codex CLI's workspace-write sandbox, for one, keeps every .git read-only for the commands its agent runs.
    const sandboxed = (errno === 'EROFS' || errno === 'EACCES') && /[/\\]\.git[/\\]/.test(path ?? '');
    const hint = sandboxed
      ? "The repository's .git is read-only here, as an agent's sandbox keeps it: run this command outside the sandbox (approve running it unsandboxed), or have the user run it in a terminal."
      : undefined;
    return new FettleError('E_IO', describeErrno(errno, path ?? message), { cause: error, hint });
  }
  return new FettleError('E_INTERNAL', `internal error: ${message}`, {
    cause: error,
    hint: 'Run again with FETTLE_DEBUG=1 for details, and please report it.',
  });
};

const ERRNO_TEXT: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exceeded',
  EFBIG: 'the file is larger than this process may write',
  EROFS: 'the filesystem is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EIO: 'the disk reported an I/O error',
  ENOENT: 'no such file or directory',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a parent is not a directory',
};

/** "no such file or directory (/repo/a.txt)": the plain words, then the path (or Node's message). */
const describeErrno = (errno: string, detail: string): string => {
  const text = ERRNO_TEXT[errno];
  return text ? `${text} (${detail})` : `${errno} (${detail})`;
};

/**
 * Exit codes of the ordinary commands (the hook has its own table in src/hook/outcome.ts), with what each means:
 * docs/COMMANDS.md's table of exit codes is generated from this. A dry run that finds the real run would fail
 * or be refused exits as it would.
 */
export const EXIT_CODES = {
  ok: { code: 0, meaning: 'done (a dry run: the real run would go through)' },
  failed: { code: 1, meaning: 'failed, or there was nothing to do; the message says why and what to run next' },
  usage: { code: 2, meaning: 'usage error, invalid configuration or an invalid policy file' },
  staged: { code: 3, meaning: '`fettle write`, `fettle apply`: the change was staged, nothing was written' },
  checksFailed: {
    code: 4,
    meaning: '`fettle apply --test`: a check of the contract failed in the test tree (staged unless `--dry-run`)',
  },
  refused: {
    code: 5,
    meaning:
      'refused: it would have overwritten what fettle did not write (a file edited since fettle recorded it, a branch that exists), so nothing was changed; a dry run: the real run would refuse',
  },
  storeFormat: {
    code: 6,
    meaning:
      "this fettle cannot read the repository's fettle data: a newer fettle wrote it (upgrade fettle), or its format stamp is damaged; nothing was read or changed",
  },
} as const;

export const EXIT = {
  ok: EXIT_CODES.ok.code,
  failed: EXIT_CODES.failed.code,
  usage: EXIT_CODES.usage.code,
  staged: EXIT_CODES.staged.code,
  checksFailed: EXIT_CODES.checksFailed.code,
  refused: EXIT_CODES.refused.code,
  storeFormat: EXIT_CODES.storeFormat.code,
} as const;

export const exitCodeFor = (error: FettleError): number => {
  if (error.code === 'E_USAGE' || error.code === 'E_CONFIG' || error.code === 'E_POLICY') return EXIT.usage;
  if (error.code === 'E_STORE_NEWER' || error.code === 'E_STORE_FORMAT') return EXIT.storeFormat;
  return error.code === 'E_CONFLICT' ? EXIT.refused : EXIT.failed;
};
