// What one Bash command changed, recorded as one changeset: one change per file (its own ref and `before` ->
// `after` chain, as a file tool's write makes), all sharing a `Fettle-Changeset` id and the command line
// (`Fettle-Command`), created in one ref transaction and completed in another. A file whose bytes fettle did
// not keep (over the size cap, not a regular file) is still a change, with reason `not-kept` and both commits
// leaving the path as HEAD has it, so the history says it changed and a rollback says it cannot restore it.
// Past FETTLE_BASH_MAX_FILES files, the rest are listed by name in the first change's record.
import { join } from 'node:path';
import { failpoint } from '../../io/failpoint';
import { commandForRecord } from '../../core/bash-command';
import { renamesOf, type PathChange, type Side } from '../../core/bash-changes';
import { countChanges } from '../../core/diff';
import type { StatusPath } from '../../core/porcelain';
import { readObjects } from '../../store/object-read';
import type { Store } from '../../store/store';
import type { Context } from '../context';
import { newId } from '../ids';
import type { Fields } from '../record/record';
import { recordAfters, recordBefores, type StoredLeaf } from '../record/record-many';
import type { Flight } from './bash-flight';
import type { Snapshot } from './bash-state';

/** Line counts are computed for text files up to this size on both sides (the diff runs in the hook). */
const COUNT_BYTES = 512 * 1024;
/** and for at most this many files of one command */
const COUNT_FILES = 200;
/** The names of files past the limit, listed in the first record, up to this many characters. */
const LISTED_CHARS = 32 * 1024;

export interface BashRecorded {
  changeset: string;
  /** every file the command changed, in path order */
  changes: PathChange[];
  /** the first FETTLE_BASH_MAX_FILES of them, recorded one change each */
  recorded: PathChange[];
  /** another Bash call ran in the same repository at the same time */
  overlapping: Flight[];
  /** paths a policy `block` rule covers that the command changed, with the rule as a person reads it */
  blocked: { path: string; rule: string }[];
}

const stored = (side: Side): StoredLeaf | null => (side.kind === 'blob' ? side.leaf : null);

/** HEAD's entry at the path (what a change whose bytes were not kept leaves there in both commits). */
const headLeaf = (listed: StatusPath | undefined): StoredLeaf | null =>
  listed?.head && listed.head.mode !== '000000' ? listed.head : null;

const UNKEPT: Record<string, string> = {
  'too-large': 'over the size cap (FETTLE_BASH_MAX_FILE_BYTES)',
  'not-a-file': 'not a regular file (a symbolic link or a directory)',
  'not-read': 'one of more files than fettle reads for one command (FETTLE_BASH_MAX_FILES)',
  pruned: 'its previous bytes were pruned by `git gc` while the command ran',
};

const whyUnkept = (c: PathChange): string => {
  const side = c.before.kind === 'unkept' ? c.before : c.after;
  return side.kind === 'unkept' ? (UNKEPT[side.why] ?? side.why) : '';
};

/** `+N -M` for text files small enough, from the blobs (one cat-file for all). */
const countsOf = async (store: Store, changes: PathChange[]): Promise<Map<string, ReturnType<typeof countChanges>>> => {
  const counted = changes.filter((c) => c.kept && c.action !== 'mode').slice(0, COUNT_FILES);
  const oids = counted.flatMap((c) => [stored(c.before)?.oid, stored(c.after)?.oid]);
  const objects = await readObjects(
    store,
    oids.filter((o): o is string => o !== undefined),
  );
  const bodies = new Map(objects.filter((o) => o !== null).map((o) => [o.oid, o.body]));
  const counts = new Map<string, ReturnType<typeof countChanges>>();
  for (const c of counted) {
    const [from, to] = [stored(c.before), stored(c.after)].map((l) => (l ? bodies.get(l.oid) : null));
    if (from === undefined || to === undefined) continue;
    if ((from?.length ?? 0) > COUNT_BYTES || (to?.length ?? 0) > COUNT_BYTES) continue;
    counts.set(c.path, countChanges(from ?? null, to ?? null));
  }
  return counts;
};

const notes = (
  changes: PathChange[],
  recorded: PathChange[],
  extra: string[],
  blocked: { path: string; rule: string }[],
): Map<string, string> => {
  const out = new Map<string, string[]>();
  const add = (path: string, text: string) => out.set(path, [...(out.get(path) ?? []), text]);
  for (const b of blocked)
    add(
      b.path,
      `A policy rule blocks writes to this path (${b.rule}), but a shell command changed it: fettle cannot stop a command, only record what it did.`,
    );
  for (const { from, to } of renamesOf(changes)) {
    add(from, `Renamed to ${to} (the same bytes).`);
    add(to, `Renamed from ${from} (the same bytes).`);
  }
  for (const c of recorded)
    if (!c.kept) add(c.path, `fettle did not keep this file's bytes (${whyUnkept(c)}): it cannot be restored.`);
  const rest = changes.slice(recorded.length);
  const first = recorded[0];
  if (first && rest.length > 0) {
    let listed = '';
    let shown = 0;
    for (const c of rest) {
      if (listed.length + c.path.length > LISTED_CHARS) break;
      listed += `\n  ${c.action} ${c.path}`;
      shown++;
    }
    const more = rest.length > shown ? `\n  … and ${rest.length - shown} more` : '';
    add(
      first.path,
      `The command changed ${changes.length} files; fettle recorded the first ${recorded.length} (FETTLE_BASH_MAX_FILES). These ${rest.length} were not recorded and cannot be restored:${listed}${more}`,
    );
    for (const c of recorded.slice(1))
      add(
        c.path,
        `The command changed ${changes.length} files; the ${rest.length} not recorded are listed in the record of ${first.path}.`,
      );
  }
  const all = new Map<string, string>();
  for (const c of recorded) all.set(c.path, [...(out.get(c.path) ?? []), ...extra].join('\n\n'));
  return all;
};

/**
 * Records `changes` (in path order) as one changeset of `snapshot`'s command. `listed` is the status after the
 * command; `extra` lines go in every record (how it was settled, overlapping calls).
 */
export const recordBash = async (
  ctx: Context,
  store: Store,
  snapshot: Snapshot,
  found: {
    changes: PathChange[];
    listed: Map<string, StatusPath>;
    overlapping: Flight[];
    extra: string[];
    /** Fettle-Decided-By of each path (bash-policy.ts) */
    decidedBy: Map<string, string>;
    blocked: { path: string; rule: string }[];
  },
): Promise<BashRecorded> => {
  const { changes, listed, overlapping, blocked } = found;
  const changeset = newId();
  const recorded = changes.slice(0, ctx.config.bashMaxFiles);
  const counts = await countsOf(store, recorded);
  const noteOf = notes(changes, recorded, found.extra, blocked);
  const fieldsOf = (c: PathChange): Fields => ({
    tier: 'direct',
    path: c.path,
    file: join(snapshot.workTree, ...c.path.split('/')),
    reason: c.kept ? c.action : 'not-kept',
    tool: snapshot.tool ?? 'Bash',
    ...(snapshot.agent === undefined ? {} : { agent: snapshot.agent }),
    session: snapshot.session,
    toolUse: snapshot.toolUse,
    ...(snapshot.turn === undefined ? {} : { turn: snapshot.turn }),
    changeset,
    command: commandForRecord(snapshot.command),
    decidedBy: found.decidedBy.get(c.path),
    ...(counts.get(c.path) ?? {}),
    note: noteOf.get(c.path) || undefined,
  });
  const befores = await recordBefores(
    ctx,
    store,
    recorded.map((c) => ({
      old: null,
      stored: c.kept ? stored(c.before) : headLeaf(listed.get(c.path)),
      fields: fieldsOf(c),
    })),
  );
  await failpoint('bash.befores-recorded');
  await recordAfters(
    ctx,
    store,
    recorded.map((c, n) => ({
      previous: befores[n] as (typeof befores)[number],
      landed: null,
      stored: c.kept ? stored(c.after) : headLeaf(listed.get(c.path)),
      land: c.kept,
    })),
  );
  return { changeset, changes, recorded, overlapping, blocked };
};
