// Case "bash" (named, not numbered: select it with --cases bash): Bash commands. A read-only command (decided from its text: no git, no file) against the hook with a
// payload it ignores; a command that changes nothing (PreToolUse: one `git status` and the snapshot; PostToolUse:
// a second status and the comparison) in 100-, 10,000- and 100,000-file repositories, each against one
// `git status --porcelain` of the same work tree, alternating; and, at the largest size, a peer's whole-tree
// shadow snapshot (`git add -A && git commit` into a separate git dir) against the same call. At each size, the
// same call through every other agent's shell (agent-shells.mjs: bash-codex-<size>, bash-gemini-, bash-opencode-).
// Each repository has 5 tracked files modified and 5 untracked ones, as a work tree in use does. The 100,000-file
// repository (and so the shadow comparison at that size) is built only in the full run: --quick uses 20, 100 and
// 300 files.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureEnv, TMP } from '../env.mjs';
import { buildRepo, removeRepo, settle } from '../fixtures.mjs';
import { fail, hookOnce, ignoredPayload, nextToolUseId } from '../hook-calls.mjs';
import { opts, RUNS, SIZES } from '../options.mjs';
import { log } from '../progress.mjs';
import { addCase, info } from '../results.mjs';
import { alternate, stats, timed } from '../timing.mjs';
import { client, startResident } from './resident.mjs';
import { measureAgentShells } from './agent-shells.mjs';

const bashPayload = (cwd, event, command, toolUseId) =>
  JSON.stringify({
    session_id: 'bench-session',
    transcript_path: '/dev/null',
    cwd,
    permission_mode: 'acceptEdits',
    hook_event_name: event,
    tool_name: 'Bash',
    tool_input: { command, description: 'bench', timeout: 120000 },
    tool_use_id: toolUseId,
  });

/** A command the classifier scans (it cannot tell it is harmless) and that changes nothing when run. */
const NO_OP = 'node -e 0';

/** Pre then Post of a command that changed nothing: both must answer nothing. Returns each one's ms. */
const noOpCall = (repo) => {
  const id = nextToolUseId();
  const pre = hookOnce(repo, bashPayload(repo, 'PreToolUse', NO_OP, id));
  if (pre.code !== 0 || pre.stdout.trim() !== '') fail('Bash PreToolUse did not pass silently', pre);
  const post = hookOnce(repo, bashPayload(repo, 'PostToolUse', NO_OP, id));
  if (post.code !== 0 || post.stdout.trim() !== '') fail('Bash PostToolUse of a no-op reported a change', post);
  return { pre: pre.ms, post: post.ms };
};

/** The same call through the resident server (`install --resident`): two POSTs, both blocking (HTTP hooks are). */
const residentNoOp = (server, repo) => {
  const id = nextToolUseId();
  const pre = bashPayload(repo, 'PreToolUse', NO_OP, id);
  const out = client({ kind: 'bash', ...server, pre, post: bashPayload(repo, 'PostToolUse', NO_OP, id) });
  return out.pre + out.post;
};

const gitStatus = (repo) => {
  const s = timed('git', ['status', '--porcelain'], { cwd: repo });
  if (s.code !== 0) fail('git status --porcelain', s);
  return s.ms;
};

/** 100 -> "100", 10000 -> "10k": the size in a row's id. */
const short = (n) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));

/** A work tree in use: 5 tracked files modified, 5 untracked. */
const dirty = (r) => {
  for (let i = 0; i < 5; i++) {
    writeFileSync(join(r.repo, 'src', 'd0000', `f00000${i}.txt`), `modified ${i}\n`);
    writeFileSync(join(r.repo, 'src', 'app', `untracked-${i}.txt`), `untracked ${i}\n`);
  }
};

const measureReadOnly = (r) => {
  log('case bash-ro: a read-only Bash command vs a payload the hook ignores');
  const ignored = ignoredPayload(r.repo);
  const [ro, glob] = alternate(RUNS, [
    () => {
      const h = hookOnce(r.repo, bashPayload(r.repo, 'PreToolUse', 'git log --oneline -5 | head -3', nextToolUseId()));
      if (h.code !== 0 || h.stdout !== '') fail('read-only Bash PreToolUse', h);
      return h.ms;
    },
    () => hookOnce(r.repo, ignored).ms,
  ]);
  const f = stats(ro);
  const b = stats(glob);
  addCase({
    id: 'bash-ro',
    name: 'read-only Bash command (PreToolUse: no git, no file) ÷ a payload the hook ignores (Glob)',
    fettle: f,
    baseline: b,
    ratio: f.median / b.median,
    target: { op: '<=', value: 1.1 },
  });
};

const measureResidentSize = (server, r, label) => {
  log(`case ${label}-resident: the same call through the resident server vs git status --porcelain`);
  const [call, status] = alternate(RUNS, [() => residentNoOp(server, r.repo), () => gitStatus(r.repo)]);
  const f = stats(call);
  const b = stats(status);
  addCase({
    id: `${label}-resident`,
    name: `no-op Bash call through the resident server, Pre + Post, ${r.files.toLocaleString('en-US')} files ÷ one git status`,
    fettle: f,
    baseline: b,
    ratio: f.median / b.median,
    target: { op: '<=', value: 2.5 },
  });
};

const measureSize = (files, server) => {
  const r = buildRepo(`repo-bash-${files}`, files);
  dirty(r);
  const label = `bash-${short(r.files)}`;
  log(`case ${label}: a no-op Bash call (Pre + Post) in the ${r.files}-file repo vs git status --porcelain`);
  const pre = [];
  const post = [];
  const [call, status] = alternate(RUNS, [
    (i) => {
      const t = noOpCall(r.repo);
      if (i >= 0) {
        pre.push(t.pre);
        post.push(t.post);
      }
      return t.pre + t.post;
    },
    () => gitStatus(r.repo),
  ]);
  const f = stats(call);
  const b = stats(status);
  addCase({
    id: label,
    name: `no-op Bash call, Pre + Post, ${r.files.toLocaleString('en-US')} files ÷ one git status --porcelain`,
    fettle: f,
    baseline: b,
    ratio: f.median / b.median,
    target: { op: '<=', value: 2.5 },
  });
  info.push({ id: `${label}-pre`, name: `case ${label}: PreToolUse alone (the blocking part)`, ...stats(pre) });
  info.push({ id: `${label}-post`, name: `case ${label}: PostToolUse alone (background)`, ...stats(post) });
  measureResidentSize(server, r, label);
  measureAgentShells(r, short(r.files));
  return { r, call: f, label };
};

const measureShadow = (r, fettle, label) => {
  const shadowDir = join(TMP, 'shadow-bash.git');
  const shadowEnv = { ...fixtureEnv, GIT_DIR: shadowDir, GIT_WORK_TREE: r.repo };
  const sg = (args) => timed('git', ['-c', 'gc.auto=0', ...args], { cwd: r.repo, env: shadowEnv });
  if (sg(['init', '-q']).code !== 0) fail('shadow git init', sg(['status']));
  const first = [sg(['add', '-A']), sg(['commit', '-q', '--no-verify', '-m', 'shadow: first'])];
  if (first.some((x) => x.code !== 0))
    fail(
      'shadow first snapshot',
      first.find((x) => x.code !== 0),
    );
  const firstMs = first[0].ms + first[1].ms;
  settle();
  log(
    `case bash-shadow: shadow snapshot of ${r.files} files vs the Bash call (first snapshot ${firstMs.toFixed(0)} ms)`,
  );
  const touched = join(r.repo, 'src', 'd0001', 'f000100.txt');
  const [ours, shadow] = alternate(RUNS, [
    () => {
      const t = noOpCall(r.repo);
      return t.pre + t.post;
    },
    (i) => {
      writeFileSync(touched, `fixture file 100\nshadow edit ${i}\n`); // the command's change (untimed)
      const add = sg(['add', '-A']);
      const commit = sg(['commit', '-q', '--no-verify', '-m', `shadow ${i}`]);
      if (add.code !== 0 || commit.code !== 0) fail('shadow snapshot', add.code !== 0 ? add : commit);
      return add.ms + commit.ms;
    },
  ]);
  const f = stats(ours);
  const s = stats(shadow);
  addCase({
    id: 'bash-shadow',
    name: `warm shadow snapshot (git add -A + commit) ÷ Bash call Pre + Post, ${r.files.toLocaleString('en-US')} files`,
    fettle: f,
    baseline: s,
    ratio: s.median / f.median,
    target: { op: '>=', value: 20 },
  });
  info.push({
    id: 'bash-shadow-first',
    name: `shadow repo: first whole-tree snapshot of ${r.files} files (cold, once)`,
    median: firstMs,
    n: 1,
  });
  info.push({
    id: 'bash-shadow-first-ratio',
    name: `first shadow snapshot ÷ Bash call Pre + Post (median of case ${label})`,
    ratio: firstMs / fettle.median,
  });
  if (!opts.keep) rmSync(shadowDir, { recursive: true, force: true });
};

export const measureBash = () => {
  const [small, mid, big] = SIZES.bash;
  const server = startResident();
  try {
    const s = measureSize(small, server);
    measureReadOnly(s.r);
    removeRepo(s.r);
    removeRepo(measureSize(mid, server).r);
    const b = measureSize(big, server);
    measureShadow(b.r, b.call, b.label);
    removeRepo(b.r);
  } finally {
    server.stop();
  }
};
