// The ref race: RACE_PROCS processes doing compare-and-swap updates of one ref at once.
import { spawn } from 'node:child_process';
import { script } from './child-scripts.mjs';
import { active, DEPS, ENV, git } from './env.mjs';
import { RACE_PROCS, RACE_UPDATES } from './options.mjs';

export const race = async (fx, kind) => {
  const ref = `refs/fettle/race/${kind}`;
  const root = (await git(fx.path, ['commit-tree', fx.tree], { input: 'race root\n' })).out;
  await git(fx.path, ['update-ref', ref, root]);
  const children = [];
  for (let id = 0; id < RACE_PROCS; id++) {
    const child = spawn(
      process.execPath,
      [script(kind === 'iso' ? 'raceIso' : 'raceGit'), fx.path, ref, fx.tree, String(id), String(RACE_UPDATES)],
      {
        cwd: DEPS,
        env: ENV,
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    active.add(child);
    child.on('close', () => active.delete(child));
    let stdout = '';
    let stderr = '';
    const ready = new Promise((resolve) => {
      child.stdout.on('data', (c) => {
        stdout += c;
        if (stdout.includes('ready\n')) resolve();
      });
    });
    child.stderr.on('data', (c) => (stderr += c));
    const done = new Promise((resolve, reject) =>
      child.on('close', (code) =>
        code === 0
          ? resolve(JSON.parse(stdout.trim().split('\n').pop()))
          : reject(new Error(`race ${kind} child ${code}: ${stderr}`)),
      ),
    );
    children.push({ child, ready, done });
  }
  await Promise.all(children.map((c) => c.ready));
  const t = performance.now();
  for (const c of children) c.child.stdin.end('go\n');
  const results = await Promise.all(children.map((c) => c.done));
  const wallMs = performance.now() - t;
  const survived = Number((await git(fx.path, ['rev-list', '--count', `${root}..${ref}`])).out);
  return {
    processes: RACE_PROCS,
    updatesEach: RACE_UPDATES,
    attempted: RACE_PROCS * RACE_UPDATES,
    reportedLanded: results.reduce((s, r) => s + r.landed, 0),
    survived,
    lost: RACE_PROCS * RACE_UPDATES - survived,
    retries: results.reduce((s, r) => s + r.retries, 0),
    errors: results.reduce((s, r) => s + r.errors, 0),
    errorKinds: results.reduce((acc, r) => {
      for (const [k, v] of Object.entries(r.errorKinds || {})) acc[k] = (acc[k] || 0) + v;
      return acc;
    }, {}),
    wallMs: Math.round(wallMs),
  };
};
