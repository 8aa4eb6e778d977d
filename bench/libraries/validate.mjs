// Checks every snapshot the timed runs wrote.
import { snapshotContent } from './children/helpers.mjs';
import { git } from './env.mjs';

export const validate = async (repos, written) => {
  const problems = [];
  for (const [repo, fx] of Object.entries(repos)) {
    const mine = written.filter((w) => w.repo === repo);
    const refs = new Map(
      (await git(fx.path, ['for-each-ref', '--format=%(refname) %(objectname)', 'refs/fettle/bench/'])).out
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' ')),
    );
    const specs = mine.flatMap((w) => [`${w.commit}^`, `${w.commit}:${w.path}`]);
    const batch = (await git(fx.path, ['cat-file', '--batch'], { input: `${specs.join('\n')}\n` })).raw;
    let i = 0;
    const next = () => {
      const eol = batch.indexOf(0x0a, i);
      const [oid, type, size] = batch.subarray(i, eol).toString().split(' ');
      const body = batch.subarray(eol + 1, eol + 1 + Number(size));
      i = eol + 1 + Number(size) + 1;
      return { oid, type, body };
    };
    for (const w of mine) {
      const parent = next();
      const file = next();
      if (refs.get(w.ref) !== w.commit)
        problems.push(`${repo} ${w.ref}: ref is ${refs.get(w.ref)}, expected ${w.commit}`);
      if (parent.oid !== fx.head) problems.push(`${repo} ${w.variant}: parent ${parent.oid} is not HEAD`);
      if (!file.body.equals(snapshotContent(w.token)))
        problems.push(`${repo} ${w.variant}: ${w.path} has the wrong content`);
    }
    const fsck = await git(fx.path, ['fsck', '--no-progress', '--no-dangling'], { ok: null });
    if (fsck.code !== 0) problems.push(`${repo}: git fsck failed: ${fsck.stderr.trim().slice(0, 300)}`);
  }
  return problems;
};
