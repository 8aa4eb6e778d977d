// The one line the model reads after a Bash command changed files: what changed, what fettle could not keep, and
// the command that undoes it. Nothing is said when nothing changed. The reader pays per token: counts, a name
// only when there is one file, and the exceptions.
import { renamesOf, type PathChange } from './bash-changes';
import { plural } from './plural';

export interface BashReport {
  changeset: string;
  /** every file the command changed, in path order */
  changes: readonly PathChange[];
  /** how many of them were recorded (the first ones; the rest exceed FETTLE_BASH_MAX_FILES) */
  recorded: number;
  /** another Bash call ran at the same time */
  overlapped: boolean;
  /** paths a policy `block` rule covers that the command changed, with the rule as a person reads it */
  blocked?: readonly { path: string; rule: string }[] | undefined;
  /** why no policy rule could be applied (an invalid policy file) */
  policyInvalid?: string | undefined;
  /** how to spell fettle for the reader */
  invoke: string;
}

const ACTION_WORDS: Record<PathChange['action'], string> = {
  modified: 'modified',
  created: 'created',
  deleted: 'deleted',
  mode: 'mode changed',
};

/** `2 modified, 1 renamed (a -> b), 1 created`: a rename pairs a deleted file with a created one of the same bytes. */
const summary = (changes: readonly PathChange[]): { text: string; files: number } => {
  const renames = renamesOf(changes);
  const paired = new Set(renames.flatMap((r) => [r.from, r.to]));
  const counts = new Map<string, number>();
  for (const c of changes) if (!paired.has(c.path)) counts.set(c.action, (counts.get(c.action) ?? 0) + 1);
  const parts = (['modified', 'created', 'deleted', 'mode'] as const)
    .filter((a) => counts.has(a))
    .map((a) => `${counts.get(a)} ${ACTION_WORDS[a]}`);
  if (renames.length > 0)
    parts.push(`${renames.length} renamed${renames.length === 1 ? ` (${renames[0]?.from} -> ${renames[0]?.to})` : ''}`);
  const files = changes.length - renames.length;
  if (files === 1 && renames.length === 0) {
    const only = changes[0] as PathChange;
    return { text: `${ACTION_WORDS[only.action]} ${only.path}`, files };
  }
  return { text: parts.join(', '), files };
};

export const renderBashRecorded = (r: BashReport): string => {
  const { changes, recorded, invoke, changeset } = r;
  const kept = changes.slice(0, recorded);
  const unkept = kept.filter((c) => !c.kept);
  const { text, files } = summary(changes);
  const over = changes.length > recorded;
  const head = over
    ? `fettle recorded ${recorded} of the ${changes.length} files this command changed (FETTLE_BASH_MAX_FILES=${recorded}): ${text}; the other ${changes.length - recorded} are only listed by name in the record and cannot be restored`
    : `fettle recorded ${plural(files, 'file')} changed by this command: ${text}`;
  const names = unkept
    .slice(0, 3)
    .map((c) => c.path)
    .join(', ');
  const notKept =
    unkept.length > 0
      ? `; ${unkept.length === 1 ? `${names} was` : `${unkept.length} (${names}${unkept.length > 3 ? ', …' : ''}) were`} not kept (too large or not a regular file), so ${unkept.length === 1 ? 'it cannot' : 'they cannot'} be restored`
      : '';
  const overlap = r.overlapped ? '; another Bash call ran at the same time, so some of these may be its' : '';
  const restorable = kept.length - unkept.length;
  const undo = restorable > 0 ? `; undo with: ${invoke} rollback ${changeset}` : '';
  const invalid = r.policyInvalid ? `; no policy rule was applied (${r.policyInvalid})` : '';
  return `${blockedLine(r.blocked ?? [])}${head}${notKept}${overlap}${invalid}${undo}`;
};

/**
 * First, so neither the model nor the person misses it: a shell command changed paths a policy rule keeps the
 * agent from writing. It ran already; fettle recorded it, and the person decides.
 */
export const blockedLine = (blocked: readonly { path: string; rule: string }[]): string => {
  if (blocked.length === 0) return '';
  const shown = blocked
    .slice(0, 3)
    .map((b) => `${b.path} (blocked by policy rule ${b.rule})`)
    .join(', ');
  const more = blocked.length > 3 ? ` and ${blocked.length - 3} more` : '';
  return `This shell command changed ${blocked.length === 1 ? 'a path' : `${blocked.length} paths`} a policy rule blocks the agent from writing: ${shown}${more}. Tell the user; `;
};
