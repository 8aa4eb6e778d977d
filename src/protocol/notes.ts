// fettle's notes on the user's commits (refs/notes/fettle): read in bulk, written one commit at a time through
// `git notes`, which commits to the notes ref under its lock. No other ref, and no config, is touched.
import { type Attribution, decodeNote, encodeNote } from '../core/attribution-note';
import { readObjects } from '../store/object-read';
import type { Store } from '../store/store';

export const NOTES_REF = 'refs/notes/fettle';

/** The attribution in the notes of `commits` (full ids); a commit without a note is left out. */
export const readNotes = async (store: Store, commits: Iterable<string>): Promise<Map<string, Attribution>> => {
  const wanted = new Set(commits);
  const out = new Map<string, Attribution>();
  if (wanted.size === 0) return out;
  // One listing of every note, then the blobs of those wanted: `notes list <commit>` would be a process each.
  const { stdout, code } = await store.git.run({ args: ['notes', `--ref=${NOTES_REF}`, 'list'], okCodes: [1] });
  if (code !== 0) return out;
  const pairs = stdout
    .toString('utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .filter((p): p is [string, string] => p.length === 2 && wanted.has(p[1] as string));
  const blobs = await readObjects(
    store,
    pairs.map(([blob]) => blob),
  );
  pairs.forEach(([, commit], i) => {
    const blob = blobs[i];
    if (blob?.type === 'blob') out.set(commit, decodeNote(blob.body.toString('utf8')));
  });
  return out;
};

/** Writes (or replaces) the note of `commit`; an attribution with no line removes nothing and writes nothing. */
export const writeNote = async (store: Store, commit: string, attribution: Attribution): Promise<boolean> => {
  const text = encodeNote(attribution);
  if (text === null) return false;
  await store.git.run({ args: ['notes', `--ref=${NOTES_REF}`, 'add', '-f', '-F', '-', commit], input: text });
  return true;
};
