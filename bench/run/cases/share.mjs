// Case `share`: `fettle share` of an agent session of 100 text-only turns (a prompt and a write each) to a bare
// remote, as one command: its wall time and the bytes it pushed, against the limits (2 s, 1 MB). The remote
// keeps every pack as received (transfer.unpackLimit=1), so the packs a push adds are the bytes it sent. Then one
// more turn shared again (only what is new goes), a teammate's `fettle fetch`, and whether their `review` of the
// session is the author's, byte for byte but the ref it reads.
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, fixtureEnv, git, TMP } from '../env.mjs';
import { fail } from '../hook-calls.mjs';
import { opts } from '../options.mjs';
import { log } from '../progress.mjs';
import { addCase, info } from '../results.mjs';
import { bareNode, timed } from '../timing.mjs';

const TURNS = opts.quick ? 10 : 100;
const MiB = 1024 * 1024;
const LIMIT_MS = 2000;

const packBytes = (bare) => {
  const dir = join(bare, 'objects', 'pack');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.pack'))
    .reduce((n, f) => n + statSync(join(dir, f)).size, 0);
};

const fettle = (cwd, args, env = {}, input = '') => {
  const r = timed(process.execPath, [CLI, ...args], { cwd, env: { ...fixtureEnv, ...env }, input });
  if (r.code !== 0) fail(`fettle ${args.join(' ')}`, r);
  return r;
};

/** One turn: the prompt (UserPromptSubmit), then a write of 40 lines to a file of its own. */
const turn = (repo, n) => {
  const prompt = { session_id: 'bench-share', hook_event_name: 'UserPromptSubmit', cwd: repo, prompt: `turn ${n}` };
  fettle(repo, ['hook'], {}, JSON.stringify(prompt));
  const text = Array.from({ length: 40 }, (_, i) => `turn ${n} line ${i}: some text an agent wrote`).join('\n');
  fettle(repo, ['write', join('src', `t${n}.txt`)], { FETTLE_SESSION: 'bench-share' }, `${text}\n`);
};

const one = (ms, unit) => ({ median: ms, min: ms, max: ms, n: 1, ...(unit ? { unit } : {}) });

export const measureShare = () => {
  log(`case share: fettle share of ${TURNS} turns to a bare remote, and a teammate's fetch`);
  const root = join(TMP, 'share');
  const bare = join(root, 'remote.git');
  const repo = join(root, 'alice');
  mkdirSync(join(repo, 'src'), { recursive: true });
  git(root, ['init', '-q', '--bare', bare]);
  git(bare, ['config', 'transfer.unpackLimit', '1']);
  writeFileSync(join(repo, 'README.md'), '# bench\n');
  git(repo, ['init', '-q']);
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '--no-verify', '-m', 'base']);
  git(repo, ['push', '-q', bare, 'HEAD:refs/heads/main']);
  for (let n = 1; n <= TURNS; n++) turn(repo, n);
  const before = packBytes(bare);
  const first = fettle(repo, ['share', '--session', 'bench-share', '--with-prompts', bare]);
  const sent = packBytes(bare) - before;
  // What a process start costs on this machine right now: the share's time is mostly fixed costs of its processes.
  const node = bareNode(repo);
  turn(repo, TURNS + 1);
  const mid = packBytes(bare);
  const again = fettle(repo, ['share', '--session', 'bench-share', '--with-prompts', bare]);
  const sentAgain = packBytes(bare) - mid;
  addCase({
    id: 'share',
    name: `share: \`fettle share\` of ${TURNS} text-only turns, one command ÷ 2 s`,
    fettle: one(first.ms),
    baseline: one(LIMIT_MS),
    ratio: first.ms / LIMIT_MS,
    target: { op: '<=', value: 1 },
  });
  addCase({
    id: 'share-bytes',
    name: `share: bytes pushed by that share ÷ 1 MB`,
    fettle: one(sent / MiB, 'MB'),
    baseline: one(1, 'MB'),
    ratio: sent / MiB,
    target: { op: '<=', value: 1 },
  });
  info.push({ id: 'share-node', name: 'share: `node -e 0` right after it, for the load of the moment', ...one(node) });
  info.push({ id: 'share-again', name: 'share: one more turn, shared again (time)', ...one(again.ms) });
  info.push({ id: 'share-again-b', name: 'share: bytes pushed by that second share', ...one(sentAgain, 'bytes') });
  const bob = join(root, 'bob');
  git(root, ['clone', '-q', bare, bob]);
  const fetched = timed(process.execPath, [CLI, 'fetch', bare], { cwd: bob, env: fixtureEnv });
  if (fetched.code !== 0) fail('fettle fetch', fetched);
  info.push({ id: 'share-fetch', name: `share: a teammate's \`fettle fetch\` of it`, ...one(fetched.ms) });
  const theirs = fettle(bob, ['review', '--session', 'bench-share']).stdout;
  const mine = fettle(repo, ['review', '--session', 'bench-share']).stdout;
  const same = theirs.replace(/fettle\/remotes\/\S+\/bench-share\/session/g, 'fettle/sessions/bench-share') === mine;
  info.push({
    id: 'share-same',
    name: "share: the teammate's review is the author's (1: byte for byte)",
    ...one(same ? 1 : 0, 'count'),
  });
};
