// Tier: slow, every hook suite again, through the resident server over HTTP (scripts/test-tiers.mjs).
// The hook suites again, over the resident server: every call goes through `fettle install --resident`'s
// settings as Claude Code makes it (HTTP hook and guard at once, test/helpers/http-hook.mjs), to the same
// runHook in a warm process. Same tests, same assertions: the same decisions, records and messages.
// Required, not imported: the path must be chosen before the suites load.
process.env.FETTLE_TEST_HOOK_PATH = 'http';

for (const suite of [
  'write',
  'edit',
  'notebook',
  'failure',
  'permission-modes',
  'review',
  'session-end',
  'read',
  'encodings',
  'idempotency',
  'bash',
  'policy',
  'audit',
])
  require(`./${suite}.test`);
