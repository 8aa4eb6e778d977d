// Settings come from the environment only, read once at the edge and passed down.
// An invalid value is an error that names the variable: a silent fallback would change behaviour.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { FettleError } from './errors';
import type { Thresholds } from './core/decide';

export interface Config extends Thresholds {
  /** seconds a staged change stays confirmable */
  ttlSeconds: number;
  /** what the hook does when it cannot record: block the write (default) or let it through, loudly */
  onError: 'block' | 'allow';
  /** who approves staged changes: the model runs `fettle confirm` (default), or a human answers Claude Code's prompt */
  review: 'model' | 'human';
  /** where the private store for files outside any repository lives */
  dataDir: string;
  /** history retention: changes older than this many seconds are removed (pending staged ones never) */
  historyMaxAgeSeconds: number;
  /** history retention: at most this many changes are kept, newest first (pending staged ones not counted) */
  historyMaxCount: number;
  /** Bash commands: whether the hook records what they change */
  bash: 'on' | 'off';
  /** Bash commands: at most this many changed files are recorded one by one (the rest are listed by name) */
  bashMaxFiles: number;
  /** Bash commands: files larger than this are recorded as changed, their bytes not kept */
  bashMaxFileBytes: number;
  /** FETTLE_AUDIT=1: every hook decision is appended to `<git-common-dir>/fettle/audit.jsonl` */
  audit: boolean;
  /** the user's policy file (`$XDG_CONFIG_HOME/fettle/policy.json`), read when it exists */
  userPolicy: string;
}

export type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULTS = { floor: 10, ceil: 80, ratio: 0.4, ttlSeconds: 600 } as const;
export const HISTORY_DEFAULTS = { maxAgeSeconds: 24 * 3600, maxCount: 100 } as const;
export const BASH_DEFAULTS = { maxFiles: 500, maxFileBytes: 64 * 1024 * 1024 } as const;
/** Claude Code's Read refuses text files over 256 KB without offset/limit: the Read hook's default threshold. */
export const READ_DEFAULTS = { thresholdBytes: 256 * 1024 } as const;

/** FETTLE_BASH: `off` stops the hook recording Bash commands; read without the rest of the config (bashFrom). */
export const bashFrom = (env: Env): 'on' | 'off' => {
  const raw = (env.FETTLE_BASH ?? 'on').trim() || 'on';
  if (raw === 'on' || raw === 'off') return raw;
  throw new FettleError('E_CONFIG', `FETTLE_BASH must be 'on' or 'off', got '${env.FETTLE_BASH}'.`, {
    hint: 'Unset FETTLE_BASH to record what Bash commands change (the default), or set it to off.',
  });
};

const wholeNumber = (env: Env, name: string, fallback: number, min: number): number => {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min) {
    throw new FettleError(
      'E_CONFIG',
      `${name} must be a whole number ${min > 0 ? `of at least ${min}` : '(0 or more)'}, got '${raw}'.`,
      {
        hint: `Fix or unset ${name} (default ${fallback}), then run \`fettle info\` to check.`,
      },
    );
  }
  return value;
};

const fraction = (env: Env, name: string, fallback: number): number => {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw.trim());
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(raw.trim()) || value > 1) {
    throw new FettleError('E_CONFIG', `${name} must be a number from 0 to 1, got '${raw}'.`, {
      hint: `Fix or unset ${name} (default ${fallback}), then run \`fettle info\` to check.`,
    });
  }
  return value;
};

export const loadConfig = (env: Env): Config => {
  const floor = wholeNumber(env, 'FETTLE_WRITE_FLOOR', DEFAULTS.floor, 0);
  const ceil = wholeNumber(env, 'FETTLE_WRITE_CEIL', DEFAULTS.ceil, 1);
  if (ceil <= floor) {
    throw new FettleError(
      'E_CONFIG',
      `FETTLE_WRITE_CEIL (${ceil}) must be greater than FETTLE_WRITE_FLOOR (${floor}).`,
      {
        hint: 'Fix one of the two variables, then run `fettle info` to check.',
      },
    );
  }
  const onErrorRaw = (env.FETTLE_ON_ERROR ?? 'block').trim() || 'block';
  if (onErrorRaw !== 'block' && onErrorRaw !== 'allow') {
    throw new FettleError('E_CONFIG', `FETTLE_ON_ERROR must be 'block' or 'allow', got '${env.FETTLE_ON_ERROR}'.`, {
      hint: 'Unset FETTLE_ON_ERROR to use the default (block).',
    });
  }
  const review = (env.FETTLE_REVIEW ?? 'model').trim() || 'model';
  if (review !== 'model' && review !== 'human') {
    throw new FettleError('E_CONFIG', `FETTLE_REVIEW must be 'model' or 'human', got '${env.FETTLE_REVIEW}'.`, {
      hint: 'Unset FETTLE_REVIEW to let the model confirm staged changes (the default).',
    });
  }
  const audit = (env.FETTLE_AUDIT ?? '').trim();
  if (audit !== '' && audit !== '0' && audit !== '1') {
    throw new FettleError('E_CONFIG', `FETTLE_AUDIT must be '1' or '0', got '${env.FETTLE_AUDIT}'.`, {
      hint: 'Set FETTLE_AUDIT=1 to log every hook decision, or unset it.',
    });
  }
  return {
    floor,
    ceil,
    ratio: fraction(env, 'FETTLE_WRITE_RATIO', DEFAULTS.ratio),
    ttlSeconds: wholeNumber(env, 'FETTLE_WRITE_STAGE_TTL', DEFAULTS.ttlSeconds, 1),
    onError: onErrorRaw,
    review,
    dataDir: dataDirFrom(env),
    historyMaxAgeSeconds: wholeNumber(env, 'FETTLE_HISTORY_MAX_AGE', HISTORY_DEFAULTS.maxAgeSeconds, 1),
    historyMaxCount: wholeNumber(env, 'FETTLE_HISTORY_MAX_COUNT', HISTORY_DEFAULTS.maxCount, 1),
    bash: bashFrom(env),
    bashMaxFiles: wholeNumber(env, 'FETTLE_BASH_MAX_FILES', BASH_DEFAULTS.maxFiles, 1),
    bashMaxFileBytes: wholeNumber(env, 'FETTLE_BASH_MAX_FILE_BYTES', BASH_DEFAULTS.maxFileBytes, 1),
    audit: audit === '1',
    userPolicy: userPolicyFrom(env),
  };
};

/**
 * FETTLE_READ_THRESHOLD: bytes over which the opt-in Read hook serves a text file itself. Read only by the Read
 * hook (and checked by `info` and `doctor`), so a mistake in it never blocks a write.
 */
export const readThresholdFrom = (env: Env): number =>
  wholeNumber(env, 'FETTLE_READ_THRESHOLD', READ_DEFAULTS.thresholdBytes, 1);

/** The user's policy file: `$XDG_CONFIG_HOME/fettle/policy.json`, else `~/.config/fettle/policy.json`. */
export const userPolicyFrom = (env: Env): string =>
  join(env.XDG_CONFIG_HOME || join(homeFrom(env), '.config'), 'fettle', 'policy.json');

/**
 * What is wrong with a path to link into the test tree (`--link`, FETTLE_TEST_LINK), or null: it must name a
 * file or directory inside the work tree, as a relative path that stays there and does not go into `.git`.
 */
export const linkPathProblem = (path: string): string | null => {
  if (path === '') return 'an empty path';
  if (/[\n\r\0]/.test(path)) return `${JSON.stringify(path)} holds a line break or NUL`;
  if (path.startsWith('/')) return `'${path}' is absolute; name it relative to the repository's top directory`;
  const parts = path.split('/');
  if (parts.some((p) => p === '..')) return `'${path}' leaves the repository ('..')`;
  if (parts.some((p) => p === '' || p === '.')) return `'${path}' has an empty or '.' component`;
  if (parts.some((p) => p.toLowerCase() === '.git')) return `'${path}' is inside .git`;
  return null;
};

/** A link path as written, without the trailing slashes people add to directories. */
export const linkPathOf = (raw: string): string => raw.trim().replace(/\/+$/, '');

/**
 * FETTLE_TEST_LINK: paths of the work tree `fettle test` links into its test tree when they exist (ignored
 * dependency directories such as node_modules), separated by ':' as in PATH. Read only by `fettle test` and a
 * policy `run` rule's check (and checked by `info` and `doctor`), so a mistake in it blocks only the writes such
 * a rule checks.
 */
export const testLinksFrom = (env: Env): string[] => {
  const raw = env.FETTLE_TEST_LINK;
  if (raw === undefined || raw.trim() === '') return [];
  const paths = raw
    .split(':')
    .map(linkPathOf)
    .filter((p) => p !== '');
  for (const path of paths) {
    const problem = linkPathProblem(path);
    if (problem)
      throw new FettleError(
        'E_CONFIG',
        `FETTLE_TEST_LINK must list paths inside the repository, separated by ':', got '${raw}': ${problem}.`,
        {
          hint: 'Fix or unset FETTLE_TEST_LINK (e.g. FETTLE_TEST_LINK=node_modules), then run `fettle info` to check.',
        },
      );
  }
  return [...new Set(paths)];
};

/** The user's home: $HOME when set, else the account's home directory (never a relative path). */
export const homeFrom = (env: Env): string => env.HOME || homedir();

export const dataDirFrom = (env: Env): string => {
  if (env.FETTLE_DATA_DIR) return env.FETTLE_DATA_DIR;
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, 'fettle');
  return join(homeFrom(env), '.local', 'share', 'fettle');
};

/**
 * The clock. FETTLE_NOW (epoch seconds or an ISO date) pins it, so tests and reproductions can move time
 * without sleeping; otherwise the system clock. git stores commit times as seconds since 1970 and `git fsck`
 * rejects earlier ones, so a clock before 1970 is refused rather than written into history.
 */
export const clockFrom = (env: Env): (() => Date) => {
  const raw = env.FETTLE_NOW;
  if (raw === undefined || raw === '') return () => checkedTime(new Date(), 'the system clock');
  // Only the two spellings: Date's own parser reads '-5' as May 2001.
  const date = /^\d+$/.test(raw)
    ? new Date(Number(raw) * 1000)
    : /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(raw)
      ? new Date(raw)
      : new Date(Number.NaN);
  if (Number.isNaN(date.getTime()) || date.getTime() < 0) {
    throw new FettleError('E_CONFIG', `FETTLE_NOW must be epoch seconds or an ISO date from 1970 on, got '${raw}'.`);
  }
  return () => date;
};

const checkedTime = (date: Date, source: string): Date => {
  if (date.getTime() >= 0) return date;
  throw new FettleError(
    'E_CONFIG',
    `${source} says ${date.toISOString()}, before 1970; git cannot date a commit then.`,
    {
      hint: 'Set the clock right (or FETTLE_NOW to the current time) and try again.',
    },
  );
};
