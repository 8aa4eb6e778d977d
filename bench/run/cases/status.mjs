// Case 7: `fettle status` and `fettle log` with a long history, and the hook path in the same repo.
import { baseEnv, CLI, git } from '../env.mjs';
import { buildRepo, removeRepo } from '../fixtures.mjs';
import { blockingLabel, directWrite, fail, stagedWrite } from '../hook-calls.mjs';
import { RUNS, SIZES } from '../options.mjs';
import { log } from '../progress.mjs';
import { addCase, info, notes, results } from '../results.mjs';
import { directText, stagedText } from '../texts.mjs';
import { alternate, bareNode, stats, timed } from '../timing.mjs';

export const measureStatus = () => {
  const r = buildRepo('repo-status', SIZES.files);
  seedHistory(r, SIZES.history, SIZES.pending);
  log(`case 7: fettle status with ${SIZES.history} history entries and ${SIZES.pending} pending vs bare node`);
  const [status, node] = alternate(RUNS, [
    () => {
      const s = timed(process.execPath, [CLI, 'status'], { cwd: r.repo });
      if (s.code !== 0 || !new RegExp(`Pending \\(${SIZES.pending}\\)`).test(s.stdout))
        fail(`fettle status did not list ${SIZES.pending} pending changes`, s);
      return s.ms;
    },
    () => bareNode(r.repo),
  ]);
  const f = stats(status);
  const b = stats(node);
  addCase({
    id: '7',
    name: `fettle status, ${SIZES.history} history + ${SIZES.pending} pending ÷ node -e 0`,
    fettle: f,
    baseline: b,
    ratio: f.median / b.median,
    target: { op: '<=', value: 1.6 },
  });
  const help = timed(process.execPath, [CLI, '--help'], { cwd: r.repo });
  if (/^\s+log\b/m.test(help.stdout)) {
    const [logT, node2] = alternate(RUNS, [
      () => {
        const s = timed(process.execPath, [CLI, 'log'], { cwd: r.repo });
        if (s.code !== 0) fail('fettle log', s);
        return s.ms;
      },
      () => bareNode(r.repo),
    ]);
    const lf = stats(logT);
    const lb = stats(node2);
    addCase({
      id: '7b',
      name: `fettle log, ${SIZES.history} history + ${SIZES.pending} pending ÷ node -e 0`,
      fettle: lf,
      baseline: lb,
      ratio: lf.median / lb.median,
      target: { op: '<=', value: 1.6 },
    });
  } else {
    notes.push('case 7: `fettle log` does not exist in this build; skipped');
    results.push({
      id: '7b',
      name: 'fettle log',
      fettle: null,
      baseline: null,
      ratio: null,
      target: { op: '<=', value: 1.6 },
      met: null,
      note: 'skipped: no `fettle log` command',
    });
  }
  // How the hook path grows with history: the same direct Write as case 1, in this repo. Retention is set
  // to keep everything, so the number of changes stays the same across runs.
  const keepAll = { ...baseEnv, FETTLE_HISTORY_MAX_COUNT: '1000000' };
  const [withHistory] = alternate(RUNS, [
    (i) => directWrite(r.repo, r.direct, directText(`c7-${i}`), keepAll).ms,
    () => bareNode(r.repo),
  ]);
  info.push({
    id: '7-direct',
    name: `direct Write (${blockingLabel}) with ${SIZES.history} history entries + ${SIZES.pending} pending (retention keeps all)`,
    ...stats(withHistory),
  });
  removeRepo(r);
};

/**
 * History for case 7: one real direct change and one real staged change made through the hook, then
 * copies of their commit chains (same messages, new ids) written in one `git fast-import`, until there are
 * `history` completed changes and `pending` staged ones.
 */
function seedHistory(r, history, pending) {
  const t = performance.now();
  const direct = directWrite(r.repo, r.direct, directText('seed'));
  void direct;
  const staged = stagedWrite(r.repo, r.staged, stagedText('seed'));
  if (!staged.denied) fail('seed staged write', staged);
  const refs = git(r.repo, ['for-each-ref', '--format=%(refname)', 'refs/fettle/']).split('\n').filter(Boolean);
  const chainOf = (ref) => {
    const out = git(r.repo, ['log', '--first-parent', '-z', '--format=%H%n%B', '-2', ref]).split('\0').filter(Boolean);
    return out
      .map((entry) => {
        const nl = entry.indexOf('\n');
        return { oid: entry.slice(0, nl), message: entry.slice(nl + 1) };
      })
      .reverse();
  };
  const chains = refs.map((ref) => ({ ref, id: ref.slice(ref.lastIndexOf('/') + 1), chain: chainOf(ref) }));
  const kindOf = (c) => /^Fettle-Kind: (\S+)$/m.exec(c.chain[c.chain.length - 1].message)?.[1];
  const doneTemplate = chains.find((c) => kindOf(c) === 'after');
  const pendingTemplate = chains.find((c) => kindOf(c) === 'proposal');
  if (!doneTemplate || !pendingTemplate)
    throw new Error(`seed: expected an 'after' and a 'proposal' change, found ${chains.map(kindOf).join(', ')}`);
  const head = git(r.repo, ['rev-parse', 'HEAD']).trim();
  const now = Math.floor(Date.now() / 1000);
  const parts = [];
  let mark = 0;
  const add = (template, n, prefix, ageStep) => {
    for (let i = 0; i < n; i++) {
      const id = `${prefix}${i.toString(36).padStart(7, '0')}`;
      let from = head;
      const when = now - (i + 1) * ageStep;
      for (const c of template.chain) {
        const message = Buffer.from(c.message.split(template.id).join(id));
        mark++;
        parts.push(
          Buffer.from(
            `commit refs/fettle/${id}\nmark :${mark}\ncommitter fettle <fettle@localhost> ${when} +0000\ndata ${message.length}\n`,
          ),
          message,
          Buffer.from(`\nfrom ${from}\n\n`),
        );
        from = `:${mark}`;
      }
    }
  };
  add(doneTemplate, history - 1, 'h', 60);
  add(pendingTemplate, pending - 1, 'p', 1);
  git(r.repo, ['fast-import', '--quiet'], { input: Buffer.concat(parts) });
  const total = git(r.repo, ['for-each-ref', '--format=%(refname)', 'refs/fettle/']).split('\n').filter(Boolean).length;
  log(
    `seeded ${total} changes (${history} completed, ${pending} pending) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
}
