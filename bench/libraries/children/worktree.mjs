// Child programs for the linked-worktree check.
import { fail, out } from './helpers.mjs';

/** Linked worktree, isomorphic-git side. Prints what it resolved and wrote; the parent asks git what it sees. */
export function worktreeIso() {
  const [wt, commonDir, ref] = process.argv.slice(2);
  const git = require('isomorphic-git');
  const fs = require('fs');
  const attempt = async (f) => {
    try {
      return { ok: true, value: await f() };
    } catch (error) {
      return { ok: false, error: `${error.code || error.name}: ${String(error.message).split('\n')[0].slice(0, 120)}` };
    }
  };
  (async () => {
    const r = {};
    r.resolveHead = await attempt(() => git.resolveRef({ fs, dir: wt, ref: 'HEAD' }));
    r.readCommitHead = await attempt(async () => (await git.readCommit({ fs, dir: wt, oid: r.resolveHead.value })).oid);
    r.resolveMain = await attempt(() => git.resolveRef({ fs, dir: wt, ref: 'refs/heads/main' }));
    r.writeBlob = await attempt(() =>
      git.writeBlob({ fs, dir: wt, blob: Buffer.from('written from a linked worktree\n') }),
    );
    r.writeRef = await attempt(() =>
      git.writeRef({
        fs,
        dir: wt,
        ref,
        value: r.resolveMain.ok ? r.resolveMain.value : r.resolveHead.value,
        force: true,
      }),
    );
    // the usual workaround: point gitdir at the common dir
    r.commonResolveHead = await attempt(() => git.resolveRef({ fs, dir: wt, gitdir: commonDir, ref: 'HEAD' }));
    return r;
  })().then(out, fail);
}

/** Linked worktree, simple-git side (control): update-ref through simple-git. */
export function worktreeSimpleGit() {
  const [wt, ref, oid] = process.argv.slice(2);
  const { simpleGit } = require('simple-git');
  simpleGit({ baseDir: wt, completion: { onExit: false } })
    .raw(['update-ref', ref, oid])
    .then(() => out({ ok: true }), fail);
}
