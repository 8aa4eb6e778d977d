// `fettle trace export`: commits as Agent Trace records (core/agent-trace.ts), from their notes on
// refs/notes/fettle, or for a commit without one, from fettle's records as the post-commit hook would have noted it.
import type { Attribution } from '../core/attribution-note';
import { type TraceRecord, traceRecord } from '../core/agent-trace';
import { VERSION } from '../core/version';
import { FettleError } from '../errors';
import { GitError } from '../store/git';
import type { Store } from '../store/store';
import { readCommits } from './chains';
import { listChanges } from './changes';
import { attributeCommits, withKeptReads } from './commit-notes';
import type { Context } from './context';
import { readNotes } from './notes';
import { settlePending } from './notes-pending';

/** The commits `revision` names: one commit, or a range (`a..b`, oldest first). */
const commitsOf = async (store: Store, revision: string): Promise<string[]> => {
  if (revision.startsWith('-'))
    throw new FettleError('E_USAGE', `${revision}: a revision does not start with "-".`, {
      hint: 'Give a commit (HEAD, a branch, an id) or a range (main..HEAD).',
    });
  const args = revision.includes('..')
    ? ['rev-list', '--reverse', revision, '--']
    : ['rev-parse', '--verify', '--quiet', `${revision}^{commit}`];
  try {
    const text = await store.git.text({ args });
    return text.split('\n').filter(Boolean);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    throw new FettleError('E_NOT_FOUND', `${revision}: no such commit or range in this repository.`, {
      hint: 'Give a commit (HEAD, a branch, an id) or a range (main..HEAD).',
    });
  }
};

export const exportTrace = async (ctx: Context, store: Store, revision: string): Promise<TraceRecord[]> => {
  if (store.kind !== 'repo')
    throw new FettleError('E_USAGE', 'not in a git repository: a trace names commits.', {
      hint: 'Run this in a repository, or pass -C <dir>.',
    });
  const commits = await commitsOf(store, revision);
  await settlePending(ctx, store); // notes a commit's detached hook has not written yet
  const notes = await readNotes(store, commits);
  const missing = commits.filter((c) => !notes.has(c));
  const computed =
    missing.length === 0
      ? new Map<string, Attribution>()
      : await withKeptReads(store, (kept) =>
          attributeCommits(kept, listChanges(ctx, kept), new Map(missing.map((c) => [c, []]))),
        );
  const info = await readCommits(store, commits);
  return commits.map((commit, i) =>
    traceRecord({
      revision: commit,
      timestamp: new Date((info[i]?.time ?? 0) * 1000).toISOString(),
      attribution: notes.get(commit) ?? computed.get(commit) ?? new Map(),
      fettleVersion: VERSION,
    }),
  );
};
