// fettle in the real Codex CLI (pinned, offline against a fake Responses API): installed with
// `fettle install --agent codex`, its hooks trusted the way Codex checks trust (the hash fettle's doctor computes,
// which must equal the one Codex itself reports), a small patch recorded, a large one staged as one changeset and
// confirmed by the model through Codex's shell tool, then rolled back; under strace, nothing leaves 127.0.0.1. A
// large patch that deletes and moves files is held and confirmed the same way.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { codexHookKeys } from '../../src/setup/agent-doctor';
import { runCli } from '../helpers/cli';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import { codexHome, codexPath, runCodex } from './codex/client';
import { messagesIn, outputsIn, patch, say, shell, startFakeResponses, type Script } from './codex/fake-api';
import { assertStayedLocal } from './local';
import { changesIn, commandAfter, fettle } from './session';

const SMALL = `*** Begin Patch\n*** Update File: a.txt\n@@\n line 2\n-line 3\n+LINE 3\n line 4\n*** End Patch\n`;
const LARGE = [
  '*** Begin Patch',
  '*** Update File: b.txt',
  '@@',
  ...Array.from({ length: 30 }, (_, i) => [`-line ${i + 1}`, `+new ${i + 1}`]).flat(),
  '*** Add File: c.txt',
  '+a new file',
  '*** End Patch',
  '',
].join('\n');

/** Installs fettle for Codex in the repository's HOME and trusts its hooks by the hashes fettle computes. */
const setUp = (repo: Repo, api: string): string => {
  const home = codexHome(repo.home, api);
  const env = { ...repo.env, CODEX_HOME: home };
  const r = runCli(['install', '--agent', 'codex'], { cwd: repo.dir, env });
  assert.equal(r.code, 0, r.stderr);
  const hooksFile = join(home, 'hooks.json');
  const keys = codexHookKeys(hooksFile, JSON.parse(readFileSync(hooksFile, 'utf8')));
  assert.equal(keys.length, 6);
  const trust = keys.map((k) => `[hooks.state."${k.key}"]\ntrusted_hash = "${k.hash}"\n`).join('\n');
  codexHome(repo.home, api, trust);
  return home;
};

const bTxt = lines(30);

/** The model's next step once a patch was held: run the confirm command the reason gives, in Codex's shell. */
const confirmStep = (held: string) => {
  const confirm = commandAfter(held, 'To apply it, run:');
  return confirm ? [shell('call_confirm', confirm)] : [say('no command')];
};

test('Codex CLI: a small patch recorded, a large one staged, confirmed through its shell, rolled back; nothing leaves 127.0.0.1', async () => {
  const repo = makeRepo({ 'a.txt': lines(30), 'b.txt': bTxt });
  let held = '';
  let whileHeld: [string, boolean] = ['', true];
  const script: Script = (req, turn) => {
    if (turn === 0) return [patch('call_small', SMALL)];
    if (turn === 1) return [patch('call_large', LARGE)];
    if (turn === 2) {
      held = outputsIn(req).get('call_large') ?? '';
      whileHeld = [repo.read('b.txt').toString(), existsSync(repo.path('c.txt'))];
      return confirmStep(held);
    }
    return [say('done')];
  };
  const api = await startFakeResponses(script);
  try {
    const home = setUp(repo, api.url);
    const doctor = runCli(['doctor', '--json'], { cwd: repo.dir, env: { ...repo.env, CODEX_HOME: home } });
    const codex = JSON.parse(doctor.stdout).checks.find((c: { name: string }) => c.name === 'codex');
    assert.equal(codex?.status, 'ok', JSON.stringify(codex));
    const trace = join(repo.home, 'connect.strace');
    const run = await runCodex({
      cwd: repo.dir,
      codexHome: home,
      env: repo.env,
      wrap: ['strace', '-f', '-qq', '-e', 'trace=connect', '-o', trace],
    });
    const why = `codex exit ${run.code}\nstderr: ${run.stderr.slice(-2000)}\nheld: ${held.slice(0, 600)}`;
    assert.equal(run.code, 0, why);
    const last = api.requests[api.requests.length - 1];
    const outputs = outputsIn(last);
    // The small patch went through, and the model was told what fettle recorded.
    assert.match(outputs.get('call_small') ?? '', /Success/, why);
    assert.match(
      messagesIn(last),
      /fettle recorded a\.txt \(231 B, 30 lines, \+1 -1 ~1\) as (\w{8}); undo with: .+ rollback \1\b/,
      why,
    );
    // The large one was held: Codex's wrapping, fettle's reason, the diff, the command, then Codex's ". Command:".
    assert.match(
      held,
      /^Command blocked by PreToolUse hook: fettle held this patch for review: nothing was written to the 2 files it changes\.\n/,
      why,
    );
    assert.match(held, /^\+new 30$/m, why);
    assert.match(held, /confirm or discard it instead\. Command: \*\*\* Begin Patch/, why);
    assert.deepEqual(whileHeld, [bTxt, false], 'while the patch was held, neither file was written');
    assert.match(outputs.get('call_confirm') ?? '', /exited with code 0/, why);
    assert.equal(repo.read('a.txt').toString(), lines(30).replace('line 3\n', 'LINE 3\n'));
    assert.equal(repo.read('b.txt').toString(), Array.from({ length: 30 }, (_, i) => `new ${i + 1}\n`).join(''));
    assert.equal(repo.read('c.txt').toString(), 'a new file\n');

    const changes = changesIn(repo);
    assert.deepEqual(changes.map((c) => `${c.path} ${c.tier} ${c.state}`).sort(), [
      'a.txt direct applied',
      'b.txt staged applied',
      'c.txt staged applied',
    ]);
    const logged = JSON.parse(fettle(repo, 'log', '--agent', 'codex', '--json')).changes;
    assert.equal(logged.length, 3);
    assert.ok(logged.every((c: { agent: string; tool: string }) => c.agent === 'codex' && c.tool === 'apply_patch'));
    const staged = logged.filter((c: { tier: string }) => c.tier === 'staged');
    assert.equal(new Set(staged.map((c: { changeset: string }) => c.changeset)).size, 1, 'one changeset');

    // Rolling the patch back restores b.txt's bytes and takes the file it created away.
    fettle(repo, 'rollback', staged[0].changeset);
    assert.equal(repo.read('b.txt').toString(), bTxt);
    assert.equal(existsSync(repo.path('c.txt')), false);

    assertStayedLocal(readFileSync(trace, 'utf8'));
  } finally {
    await api.close();
  }
});

test('Codex CLI: a large patch that deletes one file and moves another is held as one changeset; confirming it through its shell removes and moves them', async () => {
  const repo = makeRepo({ 'gone.txt': lines(50), 'old/m.txt': lines(30), 'k.txt': 'keep\n' });
  const MOVE =
    '*** Begin Patch\n*** Delete File: gone.txt\n*** Update File: old/m.txt\n*** Move to: new/m.txt\n@@\n-line 1\n+LINE 1\n*** End Patch\n';
  let held = '';
  let whileHeld: boolean[] = [];
  const script: Script = (req, turn) => {
    if (turn === 0) return [patch('call_move', MOVE)];
    if (turn === 1) {
      held = outputsIn(req).get('call_move') ?? '';
      whileHeld = ['gone.txt', 'old/m.txt', 'new/m.txt'].map((p) => existsSync(repo.path(p)));
      return confirmStep(held);
    }
    return [say('done')];
  };
  const api = await startFakeResponses(script);
  try {
    const home = setUp(repo, api.url);
    const run = await runCodex({ cwd: repo.dir, codexHome: home, env: repo.env });
    const why = `codex exit ${run.code}\nstderr: ${run.stderr.slice(-2000)}\nheld: ${held.slice(0, 600)}`;
    assert.equal(run.code, 0, why);
    assert.match(
      held,
      /^Command blocked by PreToolUse hook: fettle held this patch for review: nothing was written to the 3 files it changes\.\n/,
      why,
    );
    assert.match(held, /^--- a\/gone\.txt\n\+\+\+ \/dev\/null$/m, why);
    assert.deepEqual(whileHeld, [true, true, false], 'while the patch was held, nothing was removed or moved');
    const outputs = outputsIn(api.requests[api.requests.length - 1]);
    assert.match(outputs.get('call_confirm') ?? '', /exited with code 0/, why);
    assert.deepEqual(
      [existsSync(repo.path('gone.txt')), existsSync(repo.path('old/m.txt')), repo.read('new/m.txt').toString()],
      [false, false, lines(30).replace('line 1\n', 'LINE 1\n')],
    );
    assert.deepEqual(
      changesIn(repo)
        .map((c) => `${c.path} ${c.tier} ${c.state}`)
        .sort(),
      ['gone.txt staged applied', 'new/m.txt staged applied', 'old/m.txt staged applied'],
    );
  } finally {
    await api.close();
  }
});

/** Codex's own view of its hooks: `codex app-server`'s hooks/list, over JSON-RPC on stdio. */
const hooksList = (
  cwd: string,
  env: Record<string, string>,
): Promise<{ key: string; currentHash: string; trustStatus: string }[]> =>
  new Promise((resolve, reject) => {
    const child = spawn(codexPath(), ['app-server'], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{"id":2'));
      if (!line) return;
      clearTimeout(timer);
      child.kill();
      resolve(JSON.parse(line).result.data[0].hooks);
    });
    child.on('error', reject);
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'fettle-e2e', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'hooks/list', params: { cwds: [cwd] } });
  });

test('Codex CLI: the hook keys and trust hashes fettle doctor computes are the ones Codex reports', async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const home = codexHome(repo.home, 'http://127.0.0.1:9');
  const env = { ...repo.env, CODEX_HOME: home };
  assert.equal(runCli(['install', '--agent', 'codex'], { cwd: repo.dir, env }).code, 0);
  const untrusted = JSON.parse(runCli(['doctor', '--json'], { cwd: repo.dir, env }).stdout).checks;
  assert.equal(untrusted.find((c: { name: string }) => c.name === 'codex')?.status, 'fail');
  const hooksFile = join(home, 'hooks.json');
  const ours = codexHookKeys(hooksFile, JSON.parse(readFileSync(hooksFile, 'utf8')));
  const theirs = await hooksList(repo.dir, env);
  assert.deepEqual(
    ours.map((k) => [k.key, k.hash]),
    theirs.map((h) => [h.key, h.currentHash]),
  );
  assert.ok(theirs.every((h) => h.trustStatus === 'untrusted'));
});
