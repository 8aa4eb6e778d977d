// The environment every git fettle runs (and the demo's) gets: nothing the caller exported steers it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gitEnv, IDENTITY } from '../../src/io/child-env';

test('gitEnv scrubs repository-selecting and config-injecting variables, and pins identity and locale', () => {
  const inherited = {
    PATH: '/bin',
    HOME: '/home/u',
    GIT_DIR: '/x/.git',
    GIT_WORK_TREE: '/x',
    GIT_INDEX_FILE: '/x/.git/index',
    GIT_COMMON_DIR: '/x/.git',
    GIT_OBJECT_DIRECTORY: '/x/o',
    GIT_ALTERNATE_OBJECT_DIRECTORIES: '/x/alt',
    GIT_CONFIG_PARAMETERS: "'core.hookspath'='/evil'",
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'core.hooksPath',
    GIT_CONFIG_VALUE_0: '/evil',
    GIT_TRACE: '1',
    GIT_TRACE2_EVENT: '/tmp/t',
    GIT_EXTERNAL_DIFF: 'evil',
    GIT_AUTHOR_NAME: 'Someone',
    GIT_AUTHOR_DATE: '@1 +0000',
    GIT_COMMITTER_EMAIL: 'x@y',
    GIT_CEILING_DIRECTORIES: '/',
    GIT_TERMINAL_PROMPT: '1',
    LC_ALL: 'de_DE.UTF-8',
    UNDEFINED: undefined,
  };
  const out = gitEnv(inherited);
  assert.deepEqual(out, {
    PATH: '/bin',
    HOME: '/home/u',
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
    GIT_AUTHOR_NAME: IDENTITY.name,
    GIT_AUTHOR_EMAIL: IDENTITY.email,
    GIT_COMMITTER_NAME: IDENTITY.name,
    GIT_COMMITTER_EMAIL: IDENTITY.email,
  });
});
