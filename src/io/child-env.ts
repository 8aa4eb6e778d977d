// The environment git runs in, for fettle's own git and for any child process that runs git on the user's behalf
// (the demo's, a test command's): nothing the caller exported may steer it into another repository.
import type { Env } from '../config';

/**
 * Variables git itself clears when it switches repository (`git rev-parse --local-env-vars`), plus the
 * config injections. An editor or CI may export GIT_DIR/GIT_INDEX_FILE for another repository.
 */
const SCRUBBED = new Set([
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_CONFIG',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT',
  'GIT_OBJECT_DIRECTORY',
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_IMPLICIT_WORK_TREE',
  'GIT_GRAFT_FILE',
  'GIT_INDEX_FILE',
  'GIT_NO_REPLACE_OBJECTS',
  'GIT_REPLACE_REF_BASE',
  'GIT_PREFIX',
  'GIT_INTERNAL_SUPER_PREFIX',
  'GIT_SHALLOW_FILE',
  'GIT_COMMON_DIR',
  'GIT_EXTERNAL_DIFF',
  'GIT_DIFF_OPTS',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'GIT_PAGER',
  'GIT_TRACE',
  'GIT_TRACE2',
  'GIT_TRACE2_EVENT',
  'GIT_TRACE2_PERF',
  'GIT_CEILING_DIRECTORIES',
  'GIT_DISCOVERY_ACROSS_FILESYSTEM',
]);

export const IDENTITY = { name: 'fettle', email: 'fettle@localhost' } as const;

export const gitEnv = (env: Env): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined || SCRUBBED.has(key) || /^GIT_CONFIG_(KEY|VALUE)_\d+$/.test(key)) continue;
    if (key.startsWith('GIT_AUTHOR_') || key.startsWith('GIT_COMMITTER_')) continue;
    out[key] = value;
  }
  out.GIT_TERMINAL_PROMPT = '0';
  out.LC_ALL = 'C';
  out.GIT_AUTHOR_NAME = IDENTITY.name;
  out.GIT_AUTHOR_EMAIL = IDENTITY.email;
  out.GIT_COMMITTER_NAME = IDENTITY.name;
  out.GIT_COMMITTER_EMAIL = IDENTITY.email;
  return out;
};
