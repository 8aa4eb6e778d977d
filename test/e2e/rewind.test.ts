// `fettle rewind` with the real client: three turns change files through a file tool and the shell (an edit,
// `sed -i`, `rm`, a new file); rewinding to the start of a turn puts the tree back byte for byte, the command it
// prints continues a fork of the conversation whose next request holds what came before the turn and nothing
// after, and rolling the rewind back restores the later tree byte for byte.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Repo } from '../helpers/repo';
import { type ApiRequest, type Block, text, tool } from './fake-api';
import { e2eRepo, explain, fettle, session } from './session';

const SESSION = '0b7e3f52-6d1c-4c8e-9a43-2f1d5e6a7b80';
const PROMPTS = ['turn one: edit a and b', 'turn two: remove c, add d', 'turn three: more'];

/** Every file of the tree but git's and the client's own, by path: what "byte-identical" compares. */
const tree = (repo: Repo): Record<string, string> => {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of readdirSync(join(repo.dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.name === '.git' || e.name === '.claude') continue;
      if (e.isDirectory()) walk(path);
      else out[path] = readFileSync(join(repo.dir, path)).toString('base64');
    }
  };
  walk('');
  return out;
};

type Msg = NonNullable<ApiRequest['body']['messages']>[number];
const blocks = (m: Msg): Record<string, unknown>[] =>
  typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
const isPrompt = (m: Msg) => m.role === 'user' && !blocks(m).some((b) => b.type === 'tool_result');
const said = (m: Msg) =>
  blocks(m)
    .map((b) => (b.type === 'text' ? String(b.text) : ''))
    .join('\n');

/** The script: by the prompt the request ends its conversation with, and how many answers came after it. */
const script =
  (repo: Repo) =>
  (req: ApiRequest): Block[] => {
    const messages = req.body.messages ?? [];
    const at = messages.length - 1 - [...messages].reverse().findIndex(isPrompt);
    const step = messages.slice(at + 1).filter((m) => m.role === 'assistant').length;
    const prompt = said(messages[at] as Msg);
    const bash = (command: string) => tool('Bash', { command, description: 'a command' });
    const plan: Block[][] = prompt.includes(PROMPTS[0] as string)
      ? [
          [tool('Edit', { file_path: repo.path('a.txt'), old_string: 'line 2\n', new_string: 'LINE 2\n' })],
          [bash("sed -i 's/line 3/LINE 3/' b.txt")],
        ]
      : prompt.includes(PROMPTS[1] as string)
        ? [[bash('rm c.txt')], [tool('Write', { file_path: repo.path('d.txt'), content: 'new in turn two\n' })]]
        : prompt.includes(PROMPTS[2] as string)
          ? [[bash("sed -i 's/line 1/ONE/' a.txt && printf 'three\\n' > e.txt")]]
          : [];
    const k = PROMPTS.findIndex((p) => prompt.includes(p));
    return plan[step] ?? [text(`done with T${k + 1}`)];
  };

const turnRun = async (repo: Repo, k: number) => {
  const args = [...(k === 0 ? ['--session-id', SESSION] : ['--resume', SESSION]), '--allowedTools', 'Bash'];
  const s = await session(repo, script(repo), { args, prompt: PROMPTS[k] as string });
  assert.equal(s.run.code, 0, explain(s));
  assert.ok(
    s.api.results().every((r) => !r.isError),
    explain(s),
  );
};

interface Rewound {
  files: { undo: string[] } | null;
  conversation: {
    rewound: boolean;
    fork: string;
    args: string[];
    resumeAt: string | null;
    prompt: string;
    cwd: string;
    command: string;
  };
}

/** Runs the client's command the rewind printed (its own binary for `claude`), answered "forked"; its first request. */
const runFork = async (repo: Repo, r: Rewound) => {
  const [name, ...args] = r.conversation.args;
  assert.equal(name, 'claude');
  assert.equal(args.at(-2), '-p');
  const s = await session(repo, () => [text('forked')], { args: args.slice(0, -2), prompt: args.at(-1) as string });
  assert.equal(s.run.code, 0, explain(s));
  return s.api.turnRequests()[0]?.body.messages ?? [];
};

test('rewind --turn puts files and conversation back where a turn began, and rolls back as one', async () => {
  const repo = e2eRepo({
    'a.txt': 'line 1\nline 2\nline 3\n',
    'b.txt': 'line 1\nline 2\nline 3\n',
    'c.txt': 'gone in turn two\n',
  });
  const before: Record<string, string>[] = [];
  for (const k of [0, 1, 2]) {
    before.push(tree(repo));
    await turnRun(repo, k);
  }
  const after = tree(repo);
  assert.notDeepEqual(after, before[0]);

  const dry = JSON.parse(fettle(repo, 'rewind', '--turn', '2', '--session', SESSION, '--dry-run', '--json'));
  assert.deepEqual(dry.files.files.map((f: { path: string }) => f.path).sort(), ['a.txt', 'c.txt', 'd.txt', 'e.txt']);
  assert.deepEqual(tree(repo), after, 'a dry run changes nothing');

  const two: Rewound = JSON.parse(fettle(repo, 'rewind', '--turn', '2', '--session', SESSION, '--json'));
  assert.deepEqual(tree(repo), before[1], 'the tree is as it was when turn 2 began');
  assert.equal(two.conversation.rewound, true, JSON.stringify(two));
  assert.equal(two.conversation.prompt, PROMPTS[1]);
  const forked = await runFork(repo, two);
  const seen = forked.map(said).join('\n');
  assert.ok(seen.includes(PROMPTS[0] as string) && seen.includes('done with T1'), 'turn 1 is in the fork');
  assert.equal(said(forked.at(-1) as Msg).includes(PROMPTS[1] as string), true, 'it ends with turn 2 asked again');
  assert.ok(!/done with T[23]|turn three/.test(seen), `nothing after turn 2 began: ${seen.slice(-2000)}`);
  assert.equal(forked.filter((m) => m.role === 'assistant').length, 3, "turn 1's three answers, then turn 2 asked");

  // The fork is a session of its own, whose first turn is the prompt it was asked again: it rewinds in turn.
  const fork = JSON.parse(
    fettle(repo, 'rewind', '--turn', '1', '--session', two.conversation.fork, '--conversation', '--dry-run', '--json'),
  );
  assert.deepEqual([fork.conversation.rewound, fork.conversation.prompt], [true, PROMPTS[1]]);
  assert.notEqual(fork.conversation.resumeAt, null, 'the fork keeps turn 1 of the session it came from');

  fettle(repo, 'rollback', ...(two.files?.undo ?? []));
  assert.deepEqual(tree(repo), after, 'rolling the rewind back restores the later tree');

  const one: Rewound = JSON.parse(fettle(repo, 'rewind', '--turn', '1', '--session', SESSION, '--json'));
  assert.deepEqual(tree(repo), before[0], 'the tree is as it was when turn 1 began');
  assert.equal(one.conversation.resumeAt, null);
  const fresh = await runFork(repo, one);
  const fromStart = fresh.map(said).join('\n');
  assert.equal(fresh.filter((m) => m.role === 'assistant').length, 0, 'no answer before turn 1');
  assert.ok(fromStart.includes(PROMPTS[0] as string), 'turn 1 is asked again');
  assert.ok(!/done with|turn two|turn three/.test(fromStart), `nothing after turn 1 began: ${fromStart.slice(-2000)}`);
  fettle(repo, 'rollback', ...(one.files?.undo ?? []));
  assert.deepEqual(tree(repo), after, 'rolling the rewind back restores the later tree');
});
