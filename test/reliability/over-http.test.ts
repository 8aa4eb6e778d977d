// Tier: slow, the reliability scenarios again, through the resident server over HTTP (scripts/test-tiers.mjs).
// Concurrency over the resident server: the suites that run many agents, and many hook calls of one session,
// at once, with every hook call sent to one server as Claude Code sends it. The server serves them
// concurrently in one process, under the same file locks and compare-and-swap ref updates as separate hook
// processes. Required, not imported: the path must be chosen before the suites load.
process.env.FETTLE_TEST_HOOK_PATH = 'http';

for (const suite of ['concurrency', 'sessions']) require(`./${suite}.test`);
