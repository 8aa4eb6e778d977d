// The git hooks' side of attribution: `fettle install --git-hooks` / `uninstall --git-hooks` (setup/git-hooks.ts),
// and `fettle git-hook <name>`, which those hooks run: post-commit notes the new HEAD, post-rewrite each commit an
// amend or a rebase made, from the old commits' notes as well as fettle's records (protocol/commit-notes.ts).
import { parseRewrites } from '../core/attribution-note';
import { FettleError } from '../errors';
import { selfCommand } from '../io/self';
import { noteCommits } from '../protocol/commit-notes';
import { noteLater, settleLocked, settlePending, withNotesLock } from '../protocol/notes-pending';
import { openStore } from '../protocol/select/open';
import { GIT_HOOKS, type GitHookName, installGitHooks, uninstallGitHooks } from '../setup/git-hooks';
import { contextFor, type Edge } from './edge';

const repoStore = async (edge: Edge, dir: string | undefined) => {
  const ctx = contextFor(edge, dir);
  const store = await openStore(ctx, { recover: false });
  return { ctx, store };
};

const requireRepo = (kind: string): void => {
  if (kind !== 'repo')
    throw new FettleError('E_USAGE', 'not in a git repository: git hooks belong to a repository.', {
      hint: 'Run this in the repository whose commits should carry attribution notes, or pass -C <dir>.',
    });
};

export const installGitHooksCommand = async (edge: Edge, dir: string | undefined, o: { json?: boolean }) => {
  const { store } = await repoStore(edge, dir);
  requireRepo(store.kind);
  const hooks = await installGitHooks(edge.env, store.git, selfCommand(edge.env, edge.io.script));
  if (o.json) {
    edge.io.out(JSON.stringify({ gitHooks: hooks }));
    return;
  }
  const changed = hooks.filter((h) => h.result === 'changed');
  edge.io.out(
    changed.length === 0
      ? `fettle's git hooks are already installed (${hooks.map((h) => h.path).join(', ')}); nothing changed.`
      : `Installed fettle's git hooks: ${hooks.map((h) => h.path).join(', ')}.\nEach commit now gets a note on refs/notes/fettle naming the agent of each line it adds (\`git log --notes=fettle\` shows them); \`fettle blame <file>\` reads them.`,
  );
};

export const uninstallGitHooksCommand = async (edge: Edge, dir: string | undefined, o: { json?: boolean }) => {
  const { store } = await repoStore(edge, dir);
  requireRepo(store.kind);
  const hooks = await uninstallGitHooks(edge.env, store.git);
  if (o.json) {
    edge.io.out(JSON.stringify({ gitHooks: hooks }));
    return;
  }
  const removed = hooks.filter((h) => h.result === 'changed');
  edge.io.out(
    removed.length === 0
      ? 'No fettle git hooks here; nothing changed.'
      : `Removed fettle's git hooks: ${removed.map((h) => h.path).join(', ')}. The notes already written stay on refs/notes/fettle.`,
  );
};

export const gitHookCommand = async (edge: Edge, dir: string | undefined, name: string, pending = false) => {
  if (!(GIT_HOOKS as readonly string[]).includes(name))
    throw new FettleError('E_USAGE', `no git hook named ${name}: fettle has ${GIT_HOOKS.join(' and ')}.`);
  const ctx = contextFor(edge, dir);
  // the listing of fettle's refs starts with the process that finds the repository
  const store = await openStore(ctx, { recover: false, lists: true });
  if (store.kind !== 'repo') return;
  // `--pending`: the detached half of post-commit (protocol/notes-pending.ts), which notes what the commits marked
  if (pending) {
    await settlePending(ctx, store);
    return;
  }
  // post-commit from a person's own hook (install's runs this half in the shell): the commit does not wait
  if (
    name === 'post-commit' &&
    store.head &&
    edge.io.script &&
    (await noteLater(store, store.head, edge.io.script, ctx.env))
  )
    return;
  const rewrites =
    (name as GitHookName) === 'post-commit'
      ? new Map<string, string[]>(store.head ? [[store.head, []]] : [])
      : parseRewrites((await edge.io.stdin()).toString('utf8'));
  if (rewrites.size === 0) return;
  // the commits still pending first: an amend carries the note of the commit it replaces
  await withNotesLock(store, async () => {
    await settleLocked(ctx, store);
    await noteCommits(ctx, store, rewrites);
  });
};
