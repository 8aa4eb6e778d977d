// The linked-worktree check: what isomorphic-git resolves and writes from a `git worktree add` checkout.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runNode, script } from './child-scripts.mjs';
import { git, TMP } from './env.mjs';

export const worktreeCheck = async (fx) => {
  const wt = join(TMP, 'linked-wt');
  await git(fx.path, ['worktree', 'add', '-q', '--detach', wt, 'HEAD']);
  await git(wt, ['commit', '-q', '--allow-empty', '-m', 'commit made in the linked worktree']);
  const wtHead = (await git(wt, ['rev-parse', 'HEAD'])).out;
  const mainHead = (await git(fx.path, ['rev-parse', 'HEAD'])).out;
  const commonDir = join(fx.path, '.git');
  const isoRef = 'refs/fettle/wt/iso';
  const { result: iso } = await runNode([script('worktreeIso'), wt, commonDir, isoRef]);
  const seen = async (ref) => (await git(fx.path, ['for-each-ref', '--format=%(objectname)', ref])).out !== '';
  const hasObject = async (oid) => (await git(fx.path, ['cat-file', '-e', oid], { ok: [0, 1, 128] })).code === 0;
  await git(wt, ['update-ref', 'refs/fettle/wt/git', wtHead]);
  await runNode([script('worktreeSimpleGit'), wt, 'refs/fettle/wt/sg', wtHead]);
  const privateDir = join(commonDir, 'worktrees', 'linked-wt');
  const r = {
    gitHeadInWorktree: wtHead,
    iso: {
      resolveHead: iso.resolveHead.ok
        ? iso.resolveHead.value === wtHead
          ? 'ok (the worktree HEAD)'
          : `wrong: ${iso.resolveHead.value}`
        : iso.resolveHead.error,
      readCommitOfHead: iso.readCommitHead.ok ? 'ok' : iso.readCommitHead.error,
      resolveBranchMain: iso.resolveMain.ok ? 'ok' : iso.resolveMain.error,
      writeRef: iso.writeRef.ok ? 'returned ok' : iso.writeRef.error,
      refSeenByForEachRefInMainRepo: await seen(isoRef),
      refFileWrittenUnder: existsSync(join(privateDir, isoRef))
        ? '.git/worktrees/<name>/ (per-worktree dir)'
        : existsSync(join(commonDir, isoRef))
          ? '.git/ (common dir)'
          : 'nowhere found',
      writeBlob: iso.writeBlob.ok ? 'returned ok' : iso.writeBlob.error,
      blobSeenByGit: iso.writeBlob.ok ? await hasObject(iso.writeBlob.value) : null,
      blobFileWrittenUnder: iso.writeBlob.ok
        ? existsSync(join(privateDir, 'objects', iso.writeBlob.value.slice(0, 2), iso.writeBlob.value.slice(2)))
          ? '.git/worktrees/<name>/objects'
          : existsSync(join(commonDir, 'objects', iso.writeBlob.value.slice(0, 2), iso.writeBlob.value.slice(2)))
            ? '.git/objects'
            : 'nowhere found'
        : null,
      withGitdirCommonDir_resolveHead: iso.commonResolveHead.ok
        ? iso.commonResolveHead.value === wtHead
          ? 'the worktree HEAD'
          : iso.commonResolveHead.value === mainHead
            ? "the MAIN worktree's HEAD (not this worktree's)"
            : iso.commonResolveHead.value
        : iso.commonResolveHead.error,
    },
    gitCliRefSeen: await seen('refs/fettle/wt/git'),
    simpleGitRefSeen: await seen('refs/fettle/wt/sg'),
  };
  await git(fx.path, ['worktree', 'remove', '--force', wt]);
  r.iso.afterWorktreeRemove = {
    perWorktreeDirExists: existsSync(privateDir),
    isoRefSeen: await seen(isoRef),
    gitCliRefSeen: await seen('refs/fettle/wt/git'),
  };
  return r;
};
