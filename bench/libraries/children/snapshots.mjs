// Child programs that write one snapshot commit of a single file, one per library or recipe.
import { cpRunner, fail, out, snapshotContent, textPlumbing } from './helpers.mjs';

export function snapCp() {
  const [repo, ref, path, token] = process.argv.slice(2);
  const raw = cpRunner(repo);
  const run = async (args, input) => (await raw(args, input)).toString('utf8');
  textPlumbing(run, ref, path, token).then(out, fail);
}

export function snapSimpleGit() {
  const [repo, ref, path, token, mode] = process.argv.slice(2);
  const { simpleGit } = require('simple-git');
  let pending;
  const options = { baseDir: repo, input: () => pending };
  if (mode === 'no-exit-wait') options.completion = { onExit: false };
  const sg = simpleGit(options);
  const run = async (args, input) => {
    pending = input;
    try {
      return await sg.raw(args);
    } finally {
      pending = undefined;
    }
  };
  textPlumbing(run, ref, path, token).then(out, fail);
}

export function snapIso() {
  const [repo, ref, path, token] = process.argv.slice(2);
  const git = require('isomorphic-git');
  const fs = require('fs');
  (async () => {
    const dir = repo;
    const cache = {};
    const head = await git.resolveRef({ fs, dir, ref: 'HEAD' });
    const { commit } = await git.readCommit({ fs, dir, oid: head, cache });
    const blob = await git.writeBlob({ fs, dir, blob: snapshotContent(token) });
    const segs = path.split('/');
    const dirs = segs.slice(0, -1);
    const levels = [];
    let oid = commit.tree;
    for (let d = 0; d <= dirs.length; d++) {
      levels.push(oid ? (await git.readTree({ fs, dir, oid, cache })).tree : []);
      if (d < dirs.length) {
        const entry = levels[d].find((e) => e.path === dirs[d] && e.type === 'tree');
        oid = entry ? entry.oid : null;
      }
    }
    let child = { mode: '100644', type: 'blob', oid: blob };
    let tree = '';
    for (let d = dirs.length; d >= 0; d--) {
      const entries = levels[d].filter((e) => e.path !== segs[d]);
      entries.push({ ...child, path: segs[d] });
      tree = await git.writeTree({ fs, dir, tree: entries });
      child = { mode: '040000', type: 'tree', oid: tree };
    }
    const who = {
      name: 'bench',
      email: 'bench@example.invalid',
      timestamp: Math.floor(Date.now() / 1000),
      timezoneOffset: 0,
    };
    const c = await git.writeCommit({
      fs,
      dir,
      commit: { message: 'snapshot\n', tree, parent: [head], author: who, committer: who },
    });
    await git.writeRef({ fs, dir, ref, value: c, force: false });
    return { blob, tree, commit: c };
  })().then(out, fail);
}
