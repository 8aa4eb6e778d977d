// What `fettle doctor` says about the git hooks' background half (protocol/notes-pending.ts): a person's commit
// leaves a mark and a detached fettle writes its attribution note, its stderr appended to
// `.git/fettle/git-hook.log`. Nobody sees that run fail unless this says so. Only reads: the marks are settled by
// the next note, `fettle blame` or `fettle trace`, and the log is the person's to read and remove.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PENDING_DIR, pendingOf } from '../protocol/notes-pending';
import type { Store } from '../store/store';
import type { Check } from './check';

/** A background note takes seconds; a mark older than this was left by a run that failed or never started. */
const MARK_LATE_MS = 10 * 60_000;
const logPath = (store: Store): string => join(store.commonDir, 'fettle', 'git-hook.log');
const minutes = (ms: number): string => `${Math.round(ms / 60_000)} min`;

const lateMarks = async (store: Store, nowMs: number): Promise<Check | null> => {
  const dir = join(store.commonDir, PENDING_DIR);
  const names = await pendingOf(store).catch(() => [] as string[]);
  const ages = await Promise.all(
    names.map((n) =>
      stat(join(dir, n)).then(
        (s) => nowMs - s.mtimeMs,
        () => 0,
      ),
    ),
  );
  const late = ages.filter((age) => age > MARK_LATE_MS);
  if (late.length === 0) return null;
  return {
    name: 'git hooks',
    status: 'warn',
    detail: `${late.length} commit${late.length === 1 ? '' : 's'} still wait${late.length === 1 ? 's' : ''} for ${late.length === 1 ? 'its' : 'their'} attribution note (the oldest ${minutes(Math.max(...late))}): the git hook's background run did not write it`,
    fix: `Run \`fettle blame <file>\` or \`fettle trace\`: either writes them first; why the run failed is in ${logPath(store)}.`,
  };
};

const logged = async (store: Store): Promise<Check | null> => {
  const path = logPath(store);
  const text = await readFile(path, 'utf8').catch(() => '');
  const last = text.trimEnd().split('\n').pop();
  if (!last) return null;
  const at = await stat(path).then(
    (s) => s.mtime.toISOString(),
    () => '',
  );
  return {
    name: 'git hooks',
    status: 'warn',
    detail: `the git hooks' background run reported an error${at ? ` (last at ${at})` : ''}: ${last.slice(0, 300)}`,
    fix: `Read ${path}, then remove it: a new error writes it again.`,
  };
};

export const checkGitHooks = async (store: Store, nowMs: number): Promise<Check[]> => {
  if (store.kind !== 'repo') return [];
  return [await lateMarks(store, nowMs), await logged(store)].filter((c): c is Check => c !== null);
};
