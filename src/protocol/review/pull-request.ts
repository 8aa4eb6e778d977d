// `fettle pr`: an agent session as a pull request. The session is pushed as one commit on the commit it started
// from (session-review.ts, through the one git runner); then the GitHub CLI, where it is installed and logged in,
// opens the pull request with a body listing the session's turns (core/pr-body.ts). Without it, the caller prints
// where to open one. gh runs with the person's own environment: it is their tool and their login.
import { spawn } from 'node:child_process';
import type { Env } from '../../config';
import { githubRepo, type PrTurn } from '../../core/pr-body';
import { redact } from '../../core/redact';
import { FETCHED_PREFIX } from '../../core/shared-refs';
import type { Store } from '../../store/store';
import type { Context } from '../context';
import { promptsOf } from '../turns';
import { fetchedPrompts } from './fetched';
import { sessionCommits, type SessionView } from './session-review';

/** The session's turns, oldest first, with the files each touched and, when shared, its prompt (redacted). */
export const prTurns = async (
  ctx: Context,
  store: Store,
  view: SessionView,
  withPrompts: boolean,
): Promise<PrTurn[]> => {
  const commits = (await sessionCommits(store, view.tip, view.base)).filter((c) => c.fields.event !== 'found');
  const prompts = !withPrompts
    ? new Map<number, { prompt: string }>()
    : view.ref.startsWith(FETCHED_PREFIX)
      ? await fetchedPrompts(store, view.ref)
      : await promptsOf(ctx.config.dataDir, view.session);
  const turns = new Map<number | null, Set<string>>();
  for (const { fields } of commits) {
    const turn = fields.turn ?? null;
    turns.set(turn, (turns.get(turn) ?? new Set()).add(fields.path));
  }
  return [...turns].map(([turn, paths]) => {
    const said = turn === null ? undefined : prompts.get(turn)?.prompt;
    return { turn, paths: [...paths], prompt: said === undefined ? undefined : redact(said).text };
  });
};

/** `owner/repo` of the remote as configured (before any insteadOf), or of a URL given directly; null if not GitHub's. */
export const remoteRepo = async (store: Store, remote: string): Promise<string | null> => {
  const { code, stdout } = await store.git.run({ args: ['config', '--get', `remote.${remote}.url`], okCodes: [1] });
  return githubRepo(code === 0 ? stdout.toString('utf8').trim() : remote);
};

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  missing?: boolean;
}

const runGh = (args: string[], o: { cwd: string; env: Env; input?: string }): Promise<Ran> =>
  new Promise((resolve) => {
    const child = spawn('gh', args, { cwd: o.cwd, env: o.env, stdio: 'pipe' });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.on('error', (e: NodeJS.ErrnoException) =>
      resolve({ code: 127, stdout: '', stderr: e.message, missing: e.code === 'ENOENT' }),
    );
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.stdin.on('error', () => undefined);
    child.stdin.end(o.input ?? '');
    child.on('close', (code) =>
      resolve({
        code: code ?? 1,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
  });

export type GhOutcome =
  | { gh: 'opened'; url: string }
  | { gh: 'missing' | 'unauthenticated' }
  | { gh: 'failed'; error: string };

/** The arguments `gh pr create` is run with (the body on stdin). */
export const ghArgs = (repo: string, branch: string, title: string): string[] => [
  'pr',
  'create',
  '--repo',
  repo,
  '--head',
  branch,
  '--title',
  title,
  '--body-file',
  '-',
];

/** Opens the pull request with gh when it is installed and logged in. */
export const openWithGh = async (
  ctx: Context,
  cwd: string,
  o: { repo: string; branch: string; title: string; body: string },
): Promise<GhOutcome> => {
  const status = await runGh(['auth', 'status'], { cwd, env: ctx.env });
  if (status.missing) return { gh: 'missing' };
  if (status.code !== 0) return { gh: 'unauthenticated' };
  const made = await runGh(ghArgs(o.repo, o.branch, o.title), { cwd, env: ctx.env, input: o.body });
  if (made.code !== 0)
    return { gh: 'failed', error: made.stderr.trim() || made.stdout.trim() || `gh exited with ${made.code}` };
  const url = made.stdout.trim().split('\n').pop() ?? '';
  return { gh: 'opened', url };
};
