// `fettle blame`: who wrote each line of a working file. An agent, by fettle's records of the file (the bytes each
// change replaced and wrote), else by the note of the commit git blame names for the line (refs/notes/fettle,
// written by the git hooks); else a person (a line not committed yet) or the commit git blame names. One git
// blame, one listing of notes, and a few batched reads, whatever the length of the file's history.
import { type AgentOrigin, linesOf } from '../core/attribution';
import { type BlameAnswer, parseBlamePorcelain } from '../core/blame-porcelain';
import { GitError } from '../store/git';
import type { Store, Target } from '../store/store';
import { recordedOrigins, recordedSteps } from './attribution';
import { listChanges } from './changes';
import type { Context } from './context';
import { readNotes } from './notes';
import { settlePending } from './notes-pending';

export type LineAuthor =
  | { by: 'agent'; origin: AgentOrigin; source: 'record' | 'note' }
  | { by: 'person' }
  | { by: 'commit' };

export interface BlameLine {
  /** 1-based */
  line: number;
  /** the line's bytes, as latin1 code units */
  bytes: string;
  author: LineAuthor;
  /** git blame's answer; null for a line not committed yet (or a file git does not track) */
  git: BlameAnswer | null;
}

/** git blame of `content` as the file at `path`: one answer per line, or null when git has no history of it. */
const gitBlame = async (store: Store, path: string, content: Buffer): Promise<(BlameAnswer | null)[] | null> => {
  if (store.kind !== 'repo' || store.head === null) return null;
  try {
    const { stdout } = await store.git.run({
      // The work tree's HEAD (git refuses a commit with --contents); the runner works in this store's work tree.
      args: ['blame', '--porcelain', '--contents', '-', '--', path],
      input: content,
    });
    return parseBlamePorcelain(stdout.toString('latin1'));
  } catch (error) {
    // A file HEAD does not hold: every line is new.
    if (error instanceof GitError && /no such path/.test(error.stderr)) return null;
    throw error;
  }
};

const authorOf = (
  recorded: AgentOrigin | null,
  git: BlameAnswer | null,
  notes: Map<string, Map<string, Map<number, AgentOrigin>>>,
): LineAuthor => {
  if (recorded) return { by: 'agent', origin: recorded, source: 'record' };
  if (!git?.commit) return { by: 'person' };
  const noted = notes.get(git.commit)?.get(git.path)?.get(git.origLine);
  return noted ? { by: 'agent', origin: noted, source: 'note' } : { by: 'commit' };
};

export const blameFile = async (ctx: Context, target: Target, content: Buffer): Promise<BlameLine[]> => {
  const { store, treePath } = target;
  // git blame, the long part on a long history, runs while fettle's records of the file are read and walked.
  const blaming = gitBlame(store, treePath, content);
  blaming.catch(() => undefined);
  const changes = await listChanges(ctx, store);
  const steps = await recordedSteps(store, changes, [treePath]);
  const recorded = recordedOrigins(steps, treePath, content);
  const blamed = await blaming;
  const commits = new Set((blamed ?? []).flatMap((b) => (b?.commit ? [b.commit] : [])));
  await settlePending(ctx, store); // notes a commit's detached hook has not written yet
  const notes = await readNotes(store, commits);
  return linesOf(content).map((bytes, i) => {
    const git = blamed?.[i] ?? null;
    return { line: i + 1, bytes, author: authorOf(recorded[i] ?? null, git, notes), git: git?.commit ? git : null };
  });
};
