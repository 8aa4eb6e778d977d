// Case `resident`: the resident hook path (`fettle install --resident`). Each sample is one PreToolUse POST from a
// separate client process (bench/run/resident-client.mjs), timed there end to end on a fresh connection,
// against a bare `node -e 0`, a warm shadow-git checkpoint at the same size, and itself at 100 vs 100,000 files.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, CLI, dirs, fixtureEnv, git, TMP } from '../env.mjs';
import { buildRepo, removeRepo, settle } from '../fixtures.mjs';
import { blockingLabel, directWrite, fail, nextToolUseId, payload, stagedOk } from '../hook-calls.mjs';
import { RUNS, SIZES } from '../options.mjs';
import { log } from '../progress.mjs';
import { addCase, info } from '../results.mjs';
import { directText, stagedText } from '../texts.mjs';
import { alternate, bareNode, stats, timed } from '../timing.mjs';

const CLIENT = new URL('../resident-client.mjs', import.meta.url).pathname;

/** Installs resident mode in the bench's HOME and starts its server; the token goes in the client's headers. */
export const startResident = () => {
  const r = timed(process.execPath, [CLI, 'install', '--resident'], { cwd: TMP });
  if (r.code !== 0) fail('fettle install --resident', r);
  const settings = JSON.parse(readFileSync(join(dirs.home, '.claude', 'settings.json'), 'utf8'));
  const hook = settings.hooks.PreToolUse[0].hooks.find((h) => h.type === 'http');
  const token = readFileSync(join(dirs.state, 'fettle', 'serve', 'token'), 'utf8').trim();
  // What Claude Code sends: each header with the variables it may interpolate, from the session's environment.
  const env = { ...baseEnv, FETTLE_SERVE_TOKEN: token };
  const headers = {};
  for (const [name, value] of Object.entries(hook.headers))
    headers[name] = value.replace(/\$\{(\w+)\}/g, (_, v) => (hook.allowedEnvVars.includes(v) ? (env[v] ?? '') : ''));
  const url = hook.url.replace(/PreToolUse$/, '');
  return {
    url,
    headers,
    guard: settings.hooks.PreToolUse[0].hooks.find((h) => h.type === 'command').command,
    stop: () => timed(process.execPath, [CLI, 'serve', '--stop'], { cwd: TMP }),
  };
};

export const client = (job) => {
  const r = timed(process.execPath, [CLIENT], { cwd: TMP, input: JSON.stringify(job) });
  let out;
  try {
    out = JSON.parse(r.stdout);
  } catch {
    fail('the resident client', r);
  }
  if (out.failed) fail(`the resident client: ${out.failed}`, r);
  return out;
};

/** One direct Write through the server: Pre (timed) and Post (timed apart); the file written in between. */
export const residentDirect = (server, repo, file, content, fresh = false) => {
  const id = nextToolUseId();
  return client({
    kind: 'direct',
    fresh,
    ...server,
    file,
    content,
    pre: payload(repo, 'PreToolUse', file, content, id),
    post: payload(repo, 'PostToolUse', file, content, id),
  });
};

const residentStaged = (server, repo, file, content) =>
  client({ kind: 'staged', ...server, pre: payload(repo, 'PreToolUse', file, content, nextToolUseId()) }).pre;

/** The peer's checkpoint, warm: a shadow git dir over the same work tree, one file changed, add -A + commit. */
const shadowOf = (repo) => {
  const env = { ...fixtureEnv, GIT_DIR: join(TMP, `shadow-${repo.files}.git`), GIT_WORK_TREE: repo.repo };
  const sg = (args) => timed('git', ['-c', 'gc.auto=0', ...args], { cwd: repo.repo, env });
  sg(['init', '-q']);
  sg(['add', '-A']);
  sg(['commit', '-q', '--no-verify', '-m', 'first']);
  settle();
  const touched = join(repo.repo, 'src', 'd0000', 'f000000.txt');
  return (i) => {
    writeFileSync(touched, `fixture file 0\nshadow edit ${i}\n`);
    const add = sg(['add', '-A']);
    const commit = sg(['commit', '-q', '--no-verify', '-m', `checkpoint ${i}`]);
    if (add.code !== 0 || commit.code !== 0) fail('shadow checkpoint', add.code ? add : commit);
    return add.ms + commit.ms;
  };
};

/**
 * The command hook (`fettle hook`, what every agent's hook runs) with the server running: it hands each call to
 * the server before loading a bundle (src/hook/thin.ts). Against `node -e 0`, and against the same hook in
 * process (a state dir with no server), alternating in one run.
 */
const measureThinHook = (mid) => {
  log('case resident-e: the command hook with the server running vs bare node and in process');
  const alone = { ...baseEnv, FETTLE_STATE_DIR: join(TMP, 'no-server-state') };
  const [thin, node, local] = alternate(RUNS, [
    (i) => directWrite(mid.repo, mid.direct, directText(`r10t-${i}`)).ms,
    () => bareNode(mid.repo),
    (i) => directWrite(mid.repo, mid.direct, directText(`r10l-${i}`), alone).ms,
  ]);
  const t = stats(thin);
  addCase({
    id: 'resident-e',
    name: `command hook, server running: direct Write (${blockingLabel}), ${mid.files} files ÷ node -e 0`,
    fettle: t,
    baseline: stats(node),
    ratio: t.median / stats(node).median,
    target: { op: '<=', value: 1.35 },
  });
  info.push({
    id: 'resident-e-local',
    name: `command hook, no server (in process): direct Write, same run; thin ÷ this = ${(t.median / stats(local).median).toFixed(2)}`,
    ...stats(local),
  });
  const [staged, node2] = alternate(RUNS, [
    (i) => stagedOk(mid.repo, mid.staged, stagedText(`r10ts-${i}`)),
    () => bareNode(mid.repo),
  ]);
  addCase({
    id: 'resident-f',
    name: `command hook, server running: staged Write (denies), ${mid.files} files ÷ node -e 0`,
    fettle: stats(staged),
    baseline: stats(node2),
    ratio: stats(staged).median / stats(node2).median,
    target: { op: '<=', value: 1.8 },
  });
};

/** The command-hook rows alone (`--cases thin`), with a server of their own. */
export const measureThin = (mid) => {
  const server = startResident();
  try {
    measureThinHook(mid);
  } finally {
    server.stop();
  }
};

export const measureResident = (mid) => {
  log('case resident: the resident hook path');
  const server = startResident();
  try {
    const { url, headers } = server;
    const s = { url, headers };
    const post = [];
    const shadow = shadowOf(mid);
    const [direct, node, snap] = alternate(RUNS, [
      (i) => {
        const r = residentDirect(s, mid.repo, mid.direct, directText(`r10-${i}`));
        if (i >= 0) post.push(r.post);
        return r.pre;
      },
      () => bareNode(mid.repo),
      (i) => shadow(i),
    ]);
    const d = stats(direct);
    addCase({
      id: 'resident-a',
      name: `resident: direct Write (Pre POST), ${mid.files} files ÷ node -e 0`,
      fettle: d,
      baseline: stats(node),
      ratio: d.median / stats(node).median,
      target: { op: '<=', value: 0.25 },
    });
    addCase({
      id: 'resident-b',
      name: `resident: direct Write (Pre POST) ÷ warm shadow-git checkpoint, ${mid.files} files`,
      fettle: d,
      baseline: stats(snap),
      ratio: d.median / stats(snap).median,
      target: { op: '<=', value: 0.5 },
    });
    info.push({
      id: 'resident-post',
      name: 'resident: PostToolUse POST of the same writes (also blocking: HTTP hooks are never async)',
      ...stats(post),
    });
    const fresh = [];
    for (let i = 0; i < RUNS; i++)
      fresh.push(residentDirect(s, mid.repo, mid.direct, directText(`r10f-${i}`), true).pre);
    info.push({
      id: 'resident-fresh',
      name: 'resident: direct Write (Pre POST) on a new connection (connect, and the peer check: /proc/net/tcp)',
      ...stats(fresh),
    });
    const guard = [];
    for (let i = 0; i < RUNS; i++)
      guard.push(
        timed('/bin/sh', ['-c', server.guard], { cwd: mid.repo, env: { ...baseEnv, FETTLE_SERVE_TOKEN: 'x' } }).ms,
      );
    info.push({
      id: 'resident-guard',
      name: 'resident: the PreToolUse guard alone (sh, run beside the POST)',
      ...stats(guard),
    });

    log('case resident-c: resident staged Write vs bare node');
    const [staged, node2] = alternate(RUNS, [
      (i) => residentStaged(s, mid.repo, mid.staged, stagedText(`r10c-${i}`)),
      () => bareNode(mid.repo),
    ]);
    addCase({
      id: 'resident-c',
      name: `resident: staged Write (Pre POST, denies), ${mid.files} files ÷ node -e 0`,
      fettle: stats(staged),
      baseline: stats(node2),
      ratio: stats(staged).median / stats(node2).median,
      target: { op: '<=', value: 0.4 },
    });

    measureThinHook(mid);

    log(`case resident-d: resident direct Write, ${SIZES.big} vs ${SIZES.small} files`);
    const big = buildRepo('repo-big-resident', SIZES.big);
    const small = buildRepo('repo-small-resident', SIZES.small);
    const [bd, sd] = alternate(RUNS, [
      (i) => residentDirect(s, big.repo, big.direct, directText(`r10b-${i}`)).pre,
      (i) => residentDirect(s, small.repo, small.direct, directText(`r10s-${i}`)).pre,
    ]);
    addCase({
      id: 'resident-d',
      name: `resident: direct Write (Pre POST), ${big.files} files ÷ ${small.files} files`,
      fettle: stats(bd),
      baseline: stats(sd),
      ratio: stats(bd).median / stats(sd).median,
      target: { op: '<=', value: 1.1 },
    });
    removeRepo(big);
    removeRepo(small);
  } finally {
    server.stop();
  }
};

/** For the storage case: the repository's git dir, for counting loose objects from the client. */
export const gitDirOf = (repo) => git(repo, ['rev-parse', '--absolute-git-dir']).trim();
