// fettle as a Claude Code plugin (this repository, loaded with --plugin-dir, no settings written), in a session
// run under strace: every inet connect() of the client and of every process it starts (hooks, Bash) goes to
// 127.0.0.1, so the suite sends nothing off this machine.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { inetConnects } from './local';
import { A_AND_B, changesIn, e2eRepo, explain, session, smallEditThenLargeWrite } from './session';

test('the plugin layout loaded with --plugin-dir records and stages; nothing leaves 127.0.0.1', async () => {
  const strace = spawnSync('strace', ['-V']);
  assert.equal(strace.status, 0, 'strace is needed to prove the suite stays on 127.0.0.1 (apt-get install strace)');
  const repo = e2eRepo(A_AND_B, 'none');
  assert.ok(!existsSync(repo.path('.claude/settings.json')), 'no settings: the hooks come from the plugin');
  const trace = join(repo.home, 'connect.strace');
  const s = await session(repo, smallEditThenLargeWrite(repo), {
    install: 'plugin',
    wrap: ['strace', '-f', '-qq', '-e', 'trace=connect', '-o', trace],
  });
  const why = explain(s);
  assert.equal(s.run.code, 0, why);
  const [small, large] = s.api.results().slice(2);
  assert.equal(small?.isError, false, why);
  assert.match(large?.text ?? '', /^PreToolUse:Write hook error: fettle held this write for review/, why);
  const changes = changesIn(repo);
  assert.deepEqual(changes.map((c) => `${c.path} ${c.tier} ${c.state}`).sort(), [
    'a.txt direct applied',
    'b.txt staged pending',
  ]);

  const addresses = inetConnects(readFileSync(trace, 'utf8'));
  const port = new URL(s.api.url).port;
  assert.ok(
    readFileSync(trace, 'utf8').includes(`sin_port=htons(${port}), sin_addr=inet_addr("127.0.0.1")`),
    'the trace saw the client reach the fake API',
  );
  assert.deepEqual(
    addresses.filter((a) => a !== '127.0.0.1'),
    [],
    `every inet connect is to 127.0.0.1 (${addresses.length} seen)`,
  );
});
