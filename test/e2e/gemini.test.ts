// fettle in the real Gemini CLI (pinned, offline against a fake Gemini API): installed with
// `fettle install --agent gemini`, a small `replace` recorded (the model told so in the tool's result), a large
// `write_file` staged and confirmed by the model through Gemini's shell tool, then rolled back; under strace,
// nothing leaves 127.0.0.1.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';
import { lines, makeRepo } from '../helpers/repo';
import { geminiSettings, runGemini } from './gemini/client';
import { call, responsesIn, startFakeGemini, text, type Script } from './gemini/fake-api';
import { assertStayedLocal } from './local';
import { changesIn, commandAfter, fettle } from './session';

test('Gemini CLI: a small replace recorded, a large write_file staged, confirmed through its shell, rolled back; nothing leaves 127.0.0.1', async () => {
  const repo = makeRepo({ 'a.txt': lines(30), 'b.txt': lines(30) });
  const rewritten = lines(30, 'new');
  let held = '';
  let whileHeld = '';
  const script: Script = (req, turn) => {
    if (turn === 0)
      return [
        call('replace', {
          file_path: repo.path('a.txt'),
          old_string: 'line 3\n',
          new_string: 'LINE 3\n',
          instruction: 'x',
        }),
      ];
    if (turn === 1) return [call('write_file', { file_path: repo.path('b.txt'), content: rewritten })];
    if (turn === 2) {
      held = responsesIn(req).find((r) => r.name === 'write_file')?.output ?? '';
      whileHeld = repo.read('b.txt').toString();
      const confirm = commandAfter(held, 'To apply it, run:');
      return confirm ? [call('run_shell_command', { command: confirm, description: 'confirm' })] : [text('no command')];
    }
    return [text('done')];
  };
  const api = await startFakeGemini(script);
  try {
    geminiSettings(repo.home);
    const install = runCli(['install', '--agent', 'gemini'], { cwd: repo.dir, env: repo.env });
    assert.equal(install.code, 0, install.stderr);
    const doctor = JSON.parse(runCli(['doctor', '--json'], { cwd: repo.dir, env: repo.env }).stdout).checks;
    assert.equal(doctor.find((c: { name: string }) => c.name === 'gemini')?.status, 'ok');
    const trace = join(repo.home, 'connect.strace');
    const run = await runGemini({
      cwd: repo.dir,
      api: api.url,
      env: repo.env,
      wrap: ['strace', '-f', '-qq', '-e', 'trace=connect', '-o', trace],
    });
    const seen = api.responses();
    const why = `gemini exit ${run.code}\nstderr: ${run.stderr.slice(-2000)}\nthe model saw: ${JSON.stringify(seen).slice(0, 1500)}`;
    assert.equal(run.code, 0, why);
    const replaced = seen.find((r) => r.name === 'replace')?.output ?? '';
    assert.match(replaced, /Successfully modified file/, why);
    assert.match(
      replaced,
      /<hook_context>fettle recorded a\.txt \(231 B, 30 lines, \+1 -1 ~1\) as (\w{8}); undo with: .+ rollback \1<\/hook_context>/,
      why,
    );
    assert.match(
      held,
      /^Tool execution blocked: fettle held this write for review: nothing was written to b\.txt\.\n/,
      why,
    );
    assert.match(held, /^\+new 30$/m, why);
    assert.equal(whileHeld, lines(30), 'while the write was held, b.txt was not written');
    assert.match(
      seen.find((r) => r.name === 'run_shell_command')?.output ?? '',
      /Applied \w{8} to b\.txt \(\+30 -30\)/,
      why,
    );
    assert.equal(repo.read('a.txt').toString(), lines(30).replace('line 3\n', 'LINE 3\n'));
    assert.equal(repo.read('b.txt').toString(), rewritten);

    const changes = changesIn(repo);
    assert.deepEqual(changes.map((c) => `${c.path} ${c.tier} ${c.state}`).sort(), [
      'a.txt direct applied',
      'b.txt staged applied',
    ]);
    const logged = JSON.parse(fettle(repo, 'log', '--agent', 'gemini', '--json')).changes;
    assert.deepEqual(logged.map((c: { agent: string; tool: string }) => `${c.agent} ${c.tool}`).sort(), [
      'gemini replace',
      'gemini write_file',
    ]);
    const b = logged.find((c: { path: string }) => c.path === 'b.txt');
    fettle(repo, 'rollback', b.id);
    assert.equal(repo.read('b.txt').toString(), lines(30));

    assertStayedLocal(readFileSync(trace, 'utf8'));
  } finally {
    await api.close();
  }
});
