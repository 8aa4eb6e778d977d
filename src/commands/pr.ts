// `fettle pr --session <id> [remote] [--with-prompts] [--branch <name>] [--base head|disk] [--force] [--json]`: an
// agent session pushed as one commit on the commit it started from, and opened as a pull request with gh where it
// is installed and logged in; otherwise where to open one, and its description, are printed.
import { EXIT, FettleError } from '../errors';
import { prBody, prTitle } from '../core/pr-body';
import { sessionRefFor } from '../protocol/review/fetched';
import { type GhOutcome, ghArgs, openWithGh, prTurns, remoteRepo } from '../protocol/review/pull-request';
import { pushTarget } from '../protocol/review/review';
import { pushSession, readSessionView } from '../protocol/review/session-review';
import { openStore } from '../protocol/select/open';
import { shellQuote } from '../io/self';
import { contextFor, type Edge } from './edge';
import { choosePushBase, pushedText, type PushFlags } from './review-push';

export interface PrOptions extends Omit<PushFlags, 'push'> {
  session: string;
  withPrompts?: boolean | undefined;
}

const GH_SAID: Record<string, string> = {
  missing: 'The GitHub CLI (gh) is not installed, so no pull request was opened.',
  unauthenticated: 'The GitHub CLI (gh) is not logged in (`gh auth login`), so no pull request was opened.',
  unknown: 'The remote is not on GitHub, so no pull request was opened.',
};

/** Where to open the pull request by hand, and its description. */
const byHand = (o: { repo: string | null; branch: string; remote: string; title: string; body: string }) => {
  const where = o.repo
    ? [
        'Open it at:',
        `  https://github.com/${o.repo}/compare/${o.branch}?expand=1`,
        'or with the GitHub CLI (the description below in a file):',
        `  gh ${[...ghArgs(o.repo, o.branch, o.title).slice(0, -1).map(shellQuote), '<file>'].join(' ')}`,
      ]
    : [`Open a pull request from branch ${o.branch} of ${o.remote} on its host.`];
  return [...where, '', `Title: ${o.title}`, 'Description:', '', o.body.trimEnd()];
};

export const prCommand = async (
  edge: Edge,
  dir: string | undefined,
  remote: string | undefined,
  o: PrOptions,
): Promise<number> => {
  if (o.base !== undefined && o.base !== 'head' && o.base !== 'disk')
    throw new FettleError('E_USAGE', `--base takes head or disk, got '${o.base}'.`);
  const ctx = contextFor(edge, dir);
  const store = await openStore(ctx);
  const target = remote ?? 'origin';
  const view = await readSessionView(store, o.session, false, await sessionRefFor(store, o.session));
  const name = view.ref.startsWith('refs/fettle/sessions/') ? view.ref.split('/').pop() : view.ref.split('/').at(-2);
  const branch = o.branch ?? `fettle/sessions/${name}`;
  await pushTarget(store, { remote: target, branch });
  const base = await choosePushBase(edge, { ...o, push: true }, view.foreign, view.base);
  if (base === null) return EXIT.failed;
  const pushed = await pushSession(store, view, { remote: target, branch }, ctx.now(), { force: o.force, base });
  const turns = await prTurns(ctx, store, view, !!o.withPrompts);
  const title = prTitle({ session: o.session, changes: view.changes, files: view.files });
  const body = prBody({ session: o.session, base: view.base, changes: view.changes, files: view.files, turns });
  const repo = await remoteRepo(store, target);
  const gh: GhOutcome | { gh: 'unknown' } = repo
    ? await openWithGh(ctx, store.workTree, { repo, branch, title, body })
    : { gh: 'unknown' };
  const opened = gh.gh === 'opened' ? gh.url : null;
  if (o.json) {
    const { commit, url } = pushed;
    const shown = { session: o.session, remote: target, url, branch, commit, repo, gh: gh.gh, pullRequest: opened };
    edge.io.out(JSON.stringify({ ...shown, title, body }, null, 2));
  } else {
    const lines = [pushedText(`session ${o.session}`, target, pushed, view.base)];
    if (opened) lines.push(`Opened pull request ${opened}`);
    else if (gh.gh === 'failed') lines.push(`gh could not open the pull request: ${gh.error}`);
    else lines.push(GH_SAID[gh.gh] ?? '');
    if (!opened) lines.push(...byHand({ repo, branch, remote: target, title, body }));
    edge.io.out(lines.join('\n'));
  }
  return gh.gh === 'failed' ? EXIT.failed : EXIT.ok;
};
