// `fettle rewind` with the real Codex CLI, Gemini CLI and opencode (pinned, offline against the fake model APIs):
// one session of three prompts, each a run of the client continuing it (`codex exec resume`, `gemini --resume`,
// `opencode run --session`), changes files through the client's own file tool (apply_patch, replace, edit) and its
// shell (`sed -i`, `rm`, new files). Each prompt is one turn of the one session in `fettle log`; `fettle rewind
// --turn 2` and `--turn 1` put the tree back byte for byte where the turn began and say plainly that the
// conversation was not rewound and what the person can do; rolling each rewind back restores the later tree.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { dataDirFrom } from '../../src/config';
import { promptsOf } from '../../src/protocol/turns';
import { codexHookKeys } from '../../src/setup/agent-doctor';
import { runCli } from '../helpers/cli';
import { makeRepo, type Repo } from '../helpers/repo';
import { codexHome, runCodex } from './codex/client';
import { type Item, patch, type ResponsesRequest, say, shell, startFakeResponses } from './codex/fake-api';
import { geminiSettings, runGemini } from './gemini/client';
import { call, type GeminiRequest, type Part, startFakeGemini, text } from './gemini/fake-api';
import { type ChatRequest, startApi, textOf, type Turn } from './opencode-api';
import { opencodeEnv, runOpencode, writeOpencodeConfig } from './opencode-client';

const PROMPTS = ['turn one: edit a, sed b', 'turn two: remove c, add d', 'turn three: more'];

type Step = { edit: [path: string, from: string, to: string] } | { shell: string };

/** Each turn's tool calls, one per request: a file-tool edit, `sed -i`, `rm`, new files through the shell. */
const PLAN: Step[][] = [
  [{ edit: ['a.txt', 'line 2\n', 'LINE 2\n'] }, { shell: "sed -i 's/line 3/LINE 3/' b.txt" }],
  [{ shell: 'rm c.txt' }, { shell: "printf 'new in turn two\\n' > d.txt" }],
  [{ edit: ['b.txt', 'line 1\n', 'ONE\n'] }, { shell: "sed -i 's/line 1/ONE/' a.txt && printf 'three\\n' > e.txt" }],
];

/** The tree after the three turns. */
const AFTER = {
  'a.txt': 'ONE\nLINE 2\nline 3\n',
  'b.txt': 'ONE\nline 2\nLINE 3\n',
  'd.txt': 'new in turn two\n',
  'e.txt': 'three\n',
};

/** `fettle log --json` of the session: `path how turn`, each prompt one turn. */
const ROWS = [
  'a.txt tool 1',
  'b.txt shell 1',
  'c.txt shell 2',
  'd.txt shell 2',
  'a.txt shell 3',
  'b.txt tool 3',
  'e.txt shell 3',
].sort();

/** The model's next step: turn k is the prompt the conversation ends with, `results` the tool results since. */
const next = (said: string, results: number): { k: number; step: Step | undefined; id: string } => {
  const k = PROMPTS.findIndex((p) => said.includes(p));
  return { k, step: PLAN[k]?.[results], id: `call_${k}_${results}` };
};

/** The index of the last of `xs` that `is`, or -1. */
const lastIndex = <T>(xs: T[], is: (x: T) => boolean): number => {
  const back = [...xs].reverse().findIndex(is);
  return back === -1 ? -1 : xs.length - 1 - back;
};
const isPrompt = (said: string) => PROMPTS.some((p) => said.includes(p));

/** Every file of the tree but the dot-directories (git's, the clients'), byte for byte (latin1 is one char a byte). */
const tree = (repo: Repo): Record<string, string> => {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of readdirSync(join(repo.dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.name.startsWith('.')) continue;
      if (e.isDirectory()) walk(path);
      else out[path] = readFileSync(join(repo.dir, path)).toString('latin1');
    }
  };
  walk('');
  return out;
};

const rewindRepo = (): Repo => {
  const three = 'line 1\nline 2\nline 3\n';
  return makeRepo({ 'a.txt': three, 'b.txt': three, 'c.txt': 'gone in turn two\n' });
};

/** Three prompts, `run(k)` running the client for prompt k: the tree before each turn, and after all three. */
const threeTurns = async (repo: Repo, run: (k: number) => Promise<void>) => {
  const before: Record<string, string>[] = [];
  for (const k of [0, 1, 2]) {
    before.push(tree(repo));
    await run(k);
  }
  const after = tree(repo);
  assert.deepEqual(after, AFTER, 'every tool call of the three turns landed');
  return { before, after };
};

interface LogRow {
  path: string;
  session: string;
  turn?: number;
  command: string | null;
}

type Client = { agent: string; name: string; advice: string; sent?: (typed: string) => string };

/** The one session of the three prompts, each one turn, its prompt kept (`sent`: as the client sends it). */
const countedTurns = async (fettle: (...args: string[]) => string, env: Record<string, string>, client: Client) => {
  const log = JSON.parse(fettle('log', '--agent', client.agent, '--json')).changes as LogRow[];
  const sessions = [...new Set(log.map((c) => c.session))];
  assert.equal(sessions.length, 1, `one session for the three prompts: ${sessions.join(', ')}`);
  const session = sessions[0] as string;
  assert.deepEqual(log.map((c) => `${c.path} ${c.command === null ? 'tool' : 'shell'} ${c.turn}`).sort(), ROWS);
  const kept = await promptsOf(dataDirFrom(env), session);
  assert.deepEqual(
    [...kept].map(([turn, p]) => `${turn} ${p.prompt}`),
    PROMPTS.map((p, k) => `${k + 1} ${client.sent?.(p) ?? p}`),
  );
  return session;
};

/** Rewinds to turns 2 and 1 of the session, each rolled back. */
const rewindsEach = async (
  repo: Repo,
  env: Record<string, string>,
  client: Client,
  trees: { before: Record<string, string>[]; after: Record<string, string> },
) => {
  const fettle = (...args: string[]) => {
    const r = runCli(args, { cwd: repo.dir, env });
    assert.equal(r.code, 0, `fettle ${args.join(' ')}: ${r.stderr}${r.stdout}`);
    return r.stdout;
  };
  const session = await countedTurns(fettle, env, client);

  const dry = JSON.parse(fettle('rewind', '--turn', '2', '--session', session, '--dry-run', '--json'));
  assert.deepEqual(dry.files.files.map((f: { path: string }) => f.path).sort(), [
    'a.txt',
    'b.txt',
    'c.txt',
    'd.txt',
    'e.txt',
  ]);
  assert.deepEqual(tree(repo), trees.after, 'a dry run changes nothing');

  const two = JSON.parse(fettle('rewind', '--turn', '2', '--session', session, '--json'));
  assert.deepEqual(tree(repo), trees.before[1], 'the tree is as it was when turn 2 began');
  const why = `${client.name} offers no command that forks its conversation at a turn`;
  assert.deepEqual(
    [two.conversation.rewound, two.conversation.agent, two.conversation.why],
    [false, client.agent, why],
  );
  const advice = client.advice.replaceAll('<s>', session);
  assert.ok(two.conversation.advice.includes(advice), two.conversation.advice);
  fettle('rollback', ...two.files.undo);
  assert.deepEqual(tree(repo), trees.after, 'rolling the rewind back restores the later tree');

  // The person's own words, without --session: the session they work with is the one rewound.
  const one = fettle('rewind', '--turn', '1');
  assert.deepEqual(tree(repo), trees.before[0], 'the tree is as it was when turn 1 began');
  assert.ok(one.startsWith(`Rewound session ${session} to where turn 1 began.\n`), one);
  assert.ok(one.includes(`\nConversation: not rewound: ${why}.\n`), one);
  assert.ok(one.includes(advice), one);
  const undo = /Undo this with `[^`]*rollback ([0-9a-z]{8})`/.exec(one)?.[1];
  assert.ok(undo, one);
  fettle('rollback', undo);
  assert.deepEqual(tree(repo), trees.after, 'rolling the rewind back restores the later tree');
};

const codexText = (i: Record<string, unknown> | undefined): string =>
  (Array.isArray(i?.content) ? i.content : []).map((c) => String((c as { text?: unknown }).text ?? '')).join('\n');

const codexScript = (req: ResponsesRequest): Item[] => {
  const input = req.body.input ?? [];
  const at = lastIndex(input, (i) => i.type === 'message' && i.role === 'user' && isPrompt(codexText(i)));
  const results = input.slice(at + 1).filter((i) => String(i.type).endsWith('_call_output')).length;
  const { k, step, id } = next(codexText(input[at]), results);
  if (!step) return [say(`done with T${k + 1}`)];
  if ('shell' in step) return [shell(id, step.shell)];
  const [path, from, to] = step.edit;
  return [patch(id, `*** Begin Patch\n*** Update File: ${path}\n@@\n-${from}+${to}*** End Patch\n`)];
};

test('Codex CLI: three prompts of one session are turns 1-3; rewind --turn 2 and 1 restore the tree, say the conversation was not rewound, and roll back', async () => {
  const repo = rewindRepo();
  const api = await startFakeResponses(codexScript);
  try {
    const home = codexHome(repo.home, api.url);
    const env = { ...repo.env, CODEX_HOME: home };
    assert.equal(runCli(['install', '--agent', 'codex'], { cwd: repo.dir, env }).code, 0);
    const hooks = join(home, 'hooks.json');
    const keys = codexHookKeys(hooks, JSON.parse(readFileSync(hooks, 'utf8')));
    codexHome(repo.home, api.url, keys.map((k) => `[hooks.state."${k.key}"]\ntrusted_hash = "${k.hash}"\n`).join('\n'));
    let thread = '';
    const trees = await threeTurns(repo, async (k) => {
      const args = k === 0 ? [] : ['resume', thread];
      const run = await runCodex({ cwd: repo.dir, codexHome: home, env: repo.env, prompt: PROMPTS[k], args });
      assert.equal(run.code, 0, `codex exit ${run.code}\nstderr: ${run.stderr.slice(-2000)}`);
      thread ||= String(run.events.find((e) => e.type === 'thread.started')?.thread_id ?? '');
    });
    await rewindsEach(repo, env, { agent: 'codex', name: 'Codex CLI', advice: '`codex fork <s>`' }, trees);
  } finally {
    await api.close();
  }
});

const geminiText = (c: { parts?: Record<string, unknown>[] } | undefined): string =>
  (c?.parts ?? []).map((p) => (typeof p.text === 'string' ? p.text : '')).join('\n');

const geminiScript =
  (repo: Repo) =>
  (req: GeminiRequest): Part[] => {
    const contents = req.body.contents ?? [];
    const at = lastIndex(contents, (c) => c.role === 'user' && isPrompt(geminiText(c)));
    const parts = contents.slice(at + 1).flatMap((c) => c.parts ?? []);
    const { k, step } = next(geminiText(contents[at]), parts.filter((p) => p.functionResponse).length);
    if (!step) return [text(`done with T${k + 1}`)];
    if ('shell' in step) return [call('run_shell_command', { command: step.shell, description: 'a command' })];
    const [path, from, to] = step.edit;
    return [call('replace', { file_path: repo.path(path), old_string: from, new_string: to, instruction: 'edit' })];
  };

test('Gemini CLI: three prompts of one session are turns 1-3; rewind --turn 2 and 1 restore the tree, say the conversation was not rewound, and roll back', async () => {
  const repo = rewindRepo();
  const api = await startFakeGemini(geminiScript(repo));
  try {
    geminiSettings(repo.home);
    assert.equal(runCli(['install', '--agent', 'gemini'], { cwd: repo.dir, env: repo.env }).code, 0);
    const id = randomUUID();
    const trees = await threeTurns(repo, async (k) => {
      const args = k === 0 ? ['--session-id', id] : ['--resume', id];
      const run = await runGemini({ cwd: repo.dir, api: api.url, env: repo.env, prompt: PROMPTS[k], args });
      assert.equal(run.code, 0, `gemini exit ${run.code}\nstderr: ${run.stderr.slice(-2000)}`);
    });
    const advice = '`gemini --resume <s>` and then `/rewind`';
    await rewindsEach(repo, repo.env, { agent: 'gemini', name: 'Gemini CLI', advice }, trees);
  } finally {
    await api.close();
  }
});

const opencodeScript =
  (repo: Repo) =>
  (req: ChatRequest): Turn => {
    const messages = req.messages ?? [];
    const at = lastIndex(messages, (m) => m.role === 'user' && isPrompt(textOf(m.content)));
    const results = messages.slice(at + 1).filter((m) => m.role === 'tool').length;
    const { k, step } = next(textOf(messages[at]?.content), results);
    if (!step) return { text: `done with T${k + 1}` };
    if ('shell' in step) return { tool: 'bash', args: { command: step.shell, description: 'a command' } };
    const [path, from, to] = step.edit;
    return { tool: 'edit', args: { filePath: repo.path(path), oldString: from, newString: to } };
  };

test('opencode: three prompts of one session are turns 1-3; rewind --turn 2 and 1 restore the tree, say the conversation was not rewound, and roll back', async () => {
  const repo = rewindRepo();
  const env = opencodeEnv(repo);
  const api = await startApi(opencodeScript(repo));
  try {
    assert.equal(runCli(['install', '--agent', 'opencode'], { cwd: repo.dir, env }).code, 0);
    writeOpencodeConfig(env.XDG_CONFIG_HOME as string, api.url);
    let session = '';
    const trees = await threeTurns(repo, async (k) => {
      const args = k === 0 ? [] : ['--session', session];
      const run = await runOpencode({ cwd: repo.dir, env, prompt: PROMPTS[k] as string, args });
      assert.equal(run.code, 0, `opencode exit ${run.code}\n${run.stderr.slice(-3000)}`);
      const log = runCli(['log', '--agent', 'opencode', '--json'], { cwd: repo.dir, env });
      session ||= JSON.parse(log.stdout).changes[0]?.session ?? '';
    });
    const advice = '`opencode --session <s>`, then `/fork`';
    // `opencode run` quotes each word of its message that holds a space, and sends that.
    const sent = (typed: string) => `"${typed}"`;
    await rewindsEach(repo, env, { agent: 'opencode', name: 'opencode', advice, sent }, trees);
  } finally {
    await api.close();
  }
});
