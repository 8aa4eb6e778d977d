// Case `storage`: what 1,000 agent writes cost on disk. The same direct writes (one line of one of 20 files each),
// each after a Read of its file (the Read hook on) and a new turn every 10, go through fettle's resident server with
// its default retention, and into a peer's shadow git dir over the same
// work tree (`git add -A` + `git commit` after each); fettle's `.git` growth is compared with the shadow dir
// once `git gc` packed it, and git's loose-object count is sampled as the writes go.
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, dirs, fixtureEnv, git, TMP } from '../env.mjs';
import { buildRepo, removeRepo } from '../fixtures.mjs';
import { fail, nextToolUseId, payload } from '../hook-calls.mjs';
import { opts, SIZES } from '../options.mjs';
import { log } from '../progress.mjs';
import { addCase, info } from '../results.mjs';
import { timed } from '../timing.mjs';
import { startResident } from './resident.mjs';

const CLIENT = new URL('../resident-client.mjs', import.meta.url).pathname;
const WRITES = opts.quick ? 60 : 1000;
const MiB = 1024 * 1024;

/** Disk usage of a tree, as `du` counts it (allocated blocks). */
const du = (path) => {
  const info = lstatSync(path);
  if (!info.isDirectory()) return info.blocks * 512;
  return info.blocks * 512 + readdirSync(path).reduce((n, name) => n + du(join(path, name)), 0);
};

/** Disk usage of every entry under a directory, by path relative to it: to attribute the growth. */
const duTree = (root, rel = '', out = new Map()) => {
  for (const name of readdirSync(join(root, rel))) {
    const path = join(rel, name);
    const info = lstatSync(join(root, path));
    out.set(path, info.blocks * 512);
    if (info.isDirectory()) duTree(root, path, out);
  }
  return out;
};

/** Where under `.git` the growth lies: the bytes of new or grown entries, summed by the part of `.git` they are in. */
const PARTS = [
  ['refs/fettle/sessions', "fettle's session refs"],
  ['refs/fettle', "fettle's other refs"],
  ['packed-refs', 'packed-refs'],
  ['objects/pack', 'packs'],
  ['objects', 'loose objects'],
  ['fettle', "fettle's own files under .git/fettle"],
  ['logs', 'reflogs'],
  ['', 'anything else'],
];
const attribute = (before, after) => {
  const sums = new Map(PARTS.map(([, name]) => [name, { bytes: 0, entries: 0 }]));
  for (const [path, bytes] of after) {
    const grown = bytes - (before.get(path) ?? 0);
    if (grown === 0) continue;
    const [, name] = PARTS.find(([prefix]) => prefix === '' || path === prefix || path.startsWith(`${prefix}/`));
    const sum = sums.get(name);
    sum.bytes += grown;
    if (!before.has(path)) sum.entries++;
  }
  return [...sums].filter(([, s]) => s.bytes !== 0);
};

/** A new turn every this many writes: the session's turns are refs too. */
const TURN_WRITES = 10;

/** The Read hook's two calls for a Read of `file` in the bench's session (the writes' own), as Claude Code sends them. */
const readPayloads = (cwd, file) => {
  const id = nextToolUseId();
  const call = (hook_event_name) => {
    const base = JSON.parse(payload(cwd, hook_event_name, file, '', id));
    return JSON.stringify({ ...base, tool_name: 'Read', tool_input: { file_path: file } });
  };
  return { pre: call('PreToolUse'), post: call('PostToolUse') };
};

const promptPayload = (cwd, k) => {
  const { session_id, transcript_path } = JSON.parse(payload(cwd, 'UserPromptSubmit', cwd, '', 'prompt'));
  return JSON.stringify({ session_id, transcript_path, cwd, hook_event_name: 'UserPromptSubmit', prompt: `turn ${k}` });
};

const pad = (n, w) => String(n).padStart(w, '0');
const looseCount = (gitDir) =>
  Number(/^count: (\d+)/m.exec(git(TMP, ['--git-dir', gitDir, 'count-objects', '-v']))?.[1]);
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Waits until the server's housekeeping is done: nothing maintaining, and fettle's packs unchanged a while. */
const settled = (gitDir) => {
  let last = '';
  for (let quiet = 0, n = 0; quiet < 3 && n < 120; n++) {
    sleep(1000);
    const now = readdirSync(join(gitDir, 'objects', 'pack')).join();
    const busy = existsSync(join(gitDir, 'fettle', 'locks', 'maintain.lock'));
    quiet = now === last && !busy ? quiet + 1 : 0;
    last = now;
  }
};

export const measureStorage = () => {
  log(`case storage: ${WRITES} direct writes of a ${SIZES.files}-file repository, fettle vs a shadow git dir`);
  const repo = buildRepo('repo-storage', SIZES.files);
  const gitDir = join(repo.repo, '.git');
  const before = du(gitDir);
  const treeBefore = duTree(gitDir);
  const shadow = { gitDir: join(TMP, 'shadow-storage.git'), workTree: repo.repo };
  const shadowEnv = { ...fixtureEnv, GIT_DIR: shadow.gitDir, GIT_WORK_TREE: repo.repo };
  for (const args of [
    ['init', '-q'],
    ['add', '-A'],
    ['commit', '-q', '--no-verify', '-m', 'first'],
  ])
    git(repo.repo, args, { env: shadowEnv });
  const firstSnapshot = du(shadow.gitDir);
  // The shadow's first snapshot, packed, is what it holds before any agent write: the baseline includes it (a
  // peer cannot work without it), and its growth over it is reported beside.
  git(repo.repo, ['gc', '-q'], { env: shadowEnv });
  const firstPacked = du(shadow.gitDir);
  // 20 files: the 60-line one and 19 fillers, each write changing one line of one of them.
  const files = [
    [repo.direct, (k) => readFileSync(repo.direct, 'utf8').replace(/^direct line 5.*$/m, `direct line 5 edit ${k}`)],
    ...Array.from({ length: 19 }, (_, n) => {
      const i = Math.floor((n * (SIZES.files - 2)) / 19); // fillers spread over the repository
      const file = join(repo.repo, 'src', `d${pad(Math.floor(i / 100), 4)}`, `f${pad(i, 6)}.txt`);
      return [file, (k) => `fixture file ${i}\nedit ${k}\n${'a line of fixture text\n'.repeat(4)}`];
    }),
  ];
  const writes = Array.from({ length: WRITES }, (_, k) => {
    const [file, text] = files[k % files.length];
    const content = text(k);
    const id = nextToolUseId();
    return {
      file,
      content,
      pre: payload(repo.repo, 'PreToolUse', file, content, id),
      post: payload(repo.repo, 'PostToolUse', file, content, id),
      read: readPayloads(repo.repo, file),
      prompt: k % TURN_WRITES === 0 ? promptPayload(repo.repo, k) : undefined,
    };
  });
  const server = startResident();
  let out;
  try {
    const job = {
      kind: 'writes',
      url: server.url,
      headers: server.headers,
      writes,
      shadow,
      loose: { gitDir, every: Math.max(1, WRITES / 20) },
    };
    const r = timed(process.execPath, [CLIENT], {
      cwd: TMP,
      env: fixtureEnv, // the shadow's commits need an author
      input: JSON.stringify(job),
      timeout: 30 * 60_000,
    });
    out = JSON.parse(r.stdout || '{}');
    if (r.code !== 0 || out.failed) fail(`the storage writes: ${out.failed ?? ''}`, r);
    settled(gitDir);
  } finally {
    server.stop();
  }
  // The reads' index is outside .git (fettle's data dir): one <session>.json each, beside last/ (the cross-session
  // notes); the bytes read are blobs in the repository's store.
  const readsDir = join(dirs.data, 'fettle', 'reads');
  const indexes = existsSync(readsDir) ? readdirSync(readsDir).filter((f) => f.endsWith('.json')) : [];
  const baselines = indexes.reduce(
    (n, f) => n + Object.keys(JSON.parse(readFileSync(join(readsDir, f), 'utf8')).files).length,
    0,
  );
  if (baselines < files.length)
    fail(`the Reads left ${baselines} baselines for ${files.length} files`, { code: 0, stdout: '', stderr: '' });
  const growth = du(gitDir) - before;
  const parts = attribute(treeBefore, duTree(gitDir));
  const packsDir = join(gitDir, 'objects', 'pack');
  const ours = readdirSync(join(gitDir, 'fettle', 'packs'));
  const oursBytes = ours.reduce((n, p) => n + du(join(packsDir, `${p}.pack`)) + du(join(packsDir, `${p}.idx`)), 0);
  const refsBytes = du(join(gitDir, 'refs', 'fettle'));
  const looseAtEnd = looseCount(gitDir);
  const threshold = Number(git(repo.repo, ['config', '--get', 'gc.auto'], { env: fixtureEnv }).trim() || 6700) || 6700;
  const shadowLoose = du(shadow.gitDir);
  git(repo.repo, ['gc', '-q'], { env: shadowEnv });
  const shadowPacked = du(shadow.gitDir);
  const gc = timed(process.execPath, [CLI, 'gc', '--expire', 'now'], { cwd: repo.repo });
  if (gc.code !== 0) fail('fettle gc --expire now', gc);
  const afterGc = du(gitDir) - before;
  const mib = (b) => ({ median: b / MiB, min: b / MiB, max: b / MiB, n: 1, unit: 'MB' });
  addCase({
    id: 'storage',
    name: `storage: .git growth after ${WRITES} direct writes, each after a Read, ${WRITES / TURN_WRITES} turns (default retention) ÷ the shadow git dir packed by git gc`,
    fettle: mib(growth),
    baseline: mib(shadowPacked),
    ratio: growth / shadowPacked,
    target: { op: '<=', value: 1.5 },
  });
  const maxLoose = Math.max(looseAtEnd, ...(out.loose ?? []));
  addCase({
    id: 'storage-b',
    name: `storage: most loose objects seen during the writes ÷ git's auto-gc threshold (gc.auto ${threshold})`,
    fettle: { median: maxLoose, min: maxLoose, max: maxLoose, n: 1, unit: 'objects' },
    baseline: { median: threshold, min: threshold, max: threshold, n: 1, unit: 'objects' },
    ratio: maxLoose / threshold,
    target: { op: '<', value: 1 },
  });
  info.push({
    id: 'storage-per-1000',
    name: `storage: .git growth per 1,000 agent writes`,
    ...mib((growth * 1000) / WRITES),
  });
  info.push({
    id: 'storage-expired',
    name: 'storage: .git growth after `fettle gc --expire now` (what only removed changes reached is gone)',
    ...mib(afterGc),
  });
  info.push({
    id: 'storage-shadow',
    name:
      'storage: the shadow git dir before git gc (its first snapshot alone: ' +
      (firstSnapshot / MiB).toFixed(2) +
      ' MB)',
    ...mib(shadowLoose),
  });
  info.push({
    id: 'storage-shadow-growth',
    name: `storage: the shadow git dir's growth over its packed first snapshot (${(firstPacked / MiB).toFixed(2)} MB), once packed by git gc`,
    ...mib(shadowPacked - firstPacked),
  });
  info.push({
    id: 'storage-packs',
    name: `storage: of the growth, fettle's ${ours.length} packs (with their indexes)`,
    ...mib(oursBytes),
  });
  info.push({
    id: 'storage-refs',
    name: "storage: of the growth, fettle's loose refs (a file and a disk block each; the rest are in packed-refs)",
    ...mib(refsBytes),
  });
  for (const [name, { bytes, entries }] of parts)
    info.push({
      id: `storage-part-${name.replace(/[^a-z]+/gi, '-').toLowerCase()}`,
      name: `storage: of the growth, ${name} (${entries} new entries)`,
      ...mib(bytes),
    });
  info.push({
    id: 'storage-reads',
    name: `storage: the session's read index, outside .git (${baselines} baselines)`,
    ...mib(indexes.reduce((n, f) => n + du(join(readsDir, f)), 0)),
  });
  statSync(gitDir);
  removeRepo(repo);
};
