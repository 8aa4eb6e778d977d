// One error type for everything fettle reports on purpose. `code` is stable (tests and --json match on it);
// `hint` is the next command to run. Anything that is not a FettleError is an internal bug.

export type ErrorCode =
  | 'E_USAGE' // bad command-line arguments
  | 'E_CONFIG' // an environment variable has an invalid value
  | 'E_PAYLOAD' // the hook input is not what Claude Code sends
  | 'E_NOT_FOUND' // no change with that id
  | 'E_EXPIRED' // the staged change outlived FETTLE_WRITE_STAGE_TTL
  | 'E_ALREADY_APPLIED'
  | 'E_ALREADY_DISCARDED'
  | 'E_CONFLICT' // the file changed since fettle recorded it and the edits cannot be merged
  | 'E_LOCKED' // another fettle process holds the lock on this file
  | 'E_FORBIDDEN_PATH' // a path fettle never writes or records (inside a .git directory, a pseudo-filesystem)
  | 'E_PERSON_REQUIRED' // only a person may do this (human review), and it was run from the agent's shell
  | 'E_UNTRUSTED' // a record whose fields disagree or point outside the repository's work trees (a planted ref)
  | 'E_TOO_LARGE' // a file larger than fettle can hold in memory to record (2 GiB)
  | 'E_NOT_TEXT' // content fettle only handles as text (fettle read of a binary file)
  | 'E_SETTINGS' // the Claude Code settings file cannot be read or written safely
  | 'E_SERVE' // the resident hook server is not set up, cannot start, or refused (fettle serve)
  | 'E_GIT' // a git command failed
  | 'E_IO' // a filesystem operation failed
  | 'E_INTERNAL';

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
    const path = (error as NodeJS.ErrnoException).path;
    return new FettleError('E_IO', describeErrno(errno, path ?? message), { cause: error });
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

/** Exit codes of the ordinary commands (the hook has its own table in src/hook/outcome.ts). */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  staged: 3, // `fettle write`: the change was staged, nothing was written
} as const;

export const exitCodeFor = (error: FettleError): number =>
  error.code === 'E_USAGE' || error.code === 'E_CONFIG' ? EXIT.usage : EXIT.failed;
