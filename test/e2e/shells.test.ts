// Every agent's shell recorded, through the real clients (pinned, offline against the fake model APIs): in one
// session the model edits a file with `sed -i`, removes one and creates one through the client's own shell tool
// (Codex CLI's exec_command, Gemini CLI's run_shell_command, opencode's bash), then writes a file in a
// subdirectory; fettle records each command as one changeset of the session's first turn, the model is told, and
// `fettle rollback --turn 1` gives back the tree byte for byte, the bytes the session started from included.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { codexHookKeys } from '../../src/setup/agent-doctor';
import { runCli } from '../helpers/cli';
import { FIRST, SECOND, shellRepo, shellRows, treeOf } from '../helpers/agent-shell';
import type { Repo } from '../helpers/repo';
import { codexHome, runCodex } from './codex/client';
import { messagesIn, say, shell, startFakeResponses } from './codex/fake-api';
import { geminiSettings, runGemini } from './gemini/client';
import { call, startFakeGemini, text } from './gemini/fake-api';
import { startApi, toolResults } from './opencode-api';
import { opencodeEnv, runOpencode, writeOpencodeConfig } from './opencode-client';

const RECORDED = /fettle recorded 3 files changed by this command: 1 modified, 1 created, 1 deleted; undo with: /;

/** The rows each client's session leaves: its tool's name, its agent, its session, turn 1. */
const rowsOf = (tool: string, agent: string, session: string) =>
  ['a.txt modified', 'b.txt deleted', 'c.txt created', 'sub/here.txt created'].map(
    (r) => `${r} ${tool} ${agent} ${session} 1`,
  );

const sessionOf = (repo: Repo, agent: string): string =>
  JSON.parse(runCli(['log', '--agent', agent, '--json'], { cwd: repo.dir, env: repo.env }).stdout).changes[0]
    ?.session ?? 'none';

/** `fettle rollback --turn 1`, as the person runs it after the session; the tree as the session found it. */
const rollsBack = (repo: Repo, start: Record<string, string>, why: string) => {
  const back = runCli(['rollback', '--turn', '1'], { cwd: repo.dir, env: repo.env });
  assert.equal(back.code, 0, `${back.stderr}\n${why}`);
  assert.deepEqual(treeOf(repo), start, why);
};

/** exec_command in another directory: `workdir`, which Codex hands its hooks as the call's `cwd`. */
const inSub = {
  type: 'function_call' as const,
  name: 'exec_command',
  arguments: JSON.stringify({ cmd: SECOND, workdir: 'sub' }),
  call_id: 'call_2',
};

test("Codex CLI's shell (exec_command): each command one changeset of turn 1, the model told; rollback --turn 1 restores byte for byte", async () => {
  const repo = shellRepo();
  const start = treeOf(repo);
  const api = await startFakeResponses((_req, turn) =>
    turn === 0 ? [shell('call_1', FIRST)] : turn === 1 ? [inSub] : [say('done')],
  );
  try {
    const home = codexHome(repo.home, api.url);
    const env = { ...repo.env, CODEX_HOME: home };
    assert.equal(runCli(['install', '--agent', 'codex'], { cwd: repo.dir, env }).code, 0);
    const hooks = join(home, 'hooks.json');
    const keys = codexHookKeys(hooks, JSON.parse(readFileSync(hooks, 'utf8')));
    assert.equal(keys.length, 6);
    codexHome(repo.home, api.url, keys.map((k) => `[hooks.state."${k.key}"]\ntrusted_hash = "${k.hash}"\n`).join('\n'));
    const run = await runCodex({ cwd: repo.dir, codexHome: home, env: repo.env });
    const why = `codex exit ${run.code}\nstderr: ${run.stderr.slice(-2000)}`;
    assert.equal(run.code, 0, why);
    assert.match(messagesIn(api.requests[api.requests.length - 1]), RECORDED, why);
    assert.deepEqual(shellRows(repo), rowsOf('Bash', 'codex', sessionOf(repo, 'codex')), why);
    rollsBack(repo, start, why);
  } finally {
    await api.close();
  }
});

test("Gemini CLI's run_shell_command: each command one changeset of turn 1, the model told; rollback --turn 1 restores byte for byte", async () => {
  const repo = shellRepo();
  const start = treeOf(repo);
  const api = await startFakeGemini((_req, turn) =>
    turn === 0
      ? [call('run_shell_command', { command: FIRST, description: 'edit' })]
      : turn === 1
        ? [call('run_shell_command', { command: SECOND, dir_path: 'sub', description: 'sub' })]
        : [text('done')],
  );
  try {
    geminiSettings(repo.home);
    assert.equal(runCli(['install', '--agent', 'gemini'], { cwd: repo.dir, env: repo.env }).code, 0);
    const run = await runGemini({ cwd: repo.dir, api: api.url, env: repo.env });
    const seen = api.responses();
    const why = `gemini exit ${run.code}\nstderr: ${run.stderr.slice(-2000)}\nthe model saw: ${JSON.stringify(seen).slice(0, 1500)}`;
    assert.equal(run.code, 0, why);
    assert.match(seen[0]?.output ?? '', RECORDED, why);
    assert.deepEqual(shellRows(repo), rowsOf('run_shell_command', 'gemini', sessionOf(repo, 'gemini')), why);
    rollsBack(repo, start, why);
  } finally {
    await api.close();
  }
});

test("opencode's bash: each command one changeset of turn 1, the model told; rollback --turn 1 restores byte for byte", async () => {
  const repo = shellRepo();
  const start = treeOf(repo);
  const env = opencodeEnv(repo);
  const api = await startApi([
    { tool: 'bash', args: { command: FIRST, description: 'edit' } },
    { tool: 'bash', args: { command: SECOND, workdir: repo.path('sub'), description: 'sub' } },
  ]);
  try {
    assert.equal(runCli(['install', '--agent', 'opencode'], { cwd: repo.dir, env }).code, 0);
    writeOpencodeConfig(env.XDG_CONFIG_HOME as string, api.url);
    const run = await runOpencode({ cwd: repo.dir, env, prompt: 'Edit the files.' });
    const seen = api.requests.map(toolResults);
    const why = `opencode exited ${run.code}\n${run.stderr.slice(-3000)}\nthe model saw: ${JSON.stringify(seen).slice(0, 3000)}`;
    assert.equal(run.code, 0, why);
    assert.match(seen[seen.length - 1]?.[0] ?? '', RECORDED, why);
    assert.deepEqual(shellRows(repo), rowsOf('bash', 'opencode', sessionOf(repo, 'opencode')), why);
    rollsBack(repo, start, why);
  } finally {
    await api.close();
  }
});
