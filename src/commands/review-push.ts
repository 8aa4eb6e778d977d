// What `review --push` does alike for a change, a changeset and a session (and `pr` for a session): how to push changes made on bytes
// their base does not hold (a person's uncommitted edits, another session's), which a push would publish: said,
// then asked at a terminal, and without a terminal refused unless `--base` chose; and the sentence a push ends with.
import { FettleError } from '../errors';
import type { FileStat } from '../protocol/review/own-diff';
import { publishRefusal, type PushBase, type Pushed } from '../protocol/review/review';
import type { Edge } from './edge';

export interface PushFlags {
  json?: boolean | undefined;
  push?: string | boolean | undefined;
  branch?: string | undefined;
  force?: boolean | undefined;
  base?: string | undefined;
}

export const pushing = (o: PushFlags): boolean => o.push !== undefined && o.push !== false;

/** --force and --base say how to push: they go with --push; --base is head or disk. */
export const checkPushFlags = (o: PushFlags): void => {
  if (o.force && !pushing(o))
    throw new FettleError('E_USAGE', '--force moves an existing branch of a remote: it goes with --push.');
  if (o.base !== undefined && !pushing(o))
    throw new FettleError('E_USAGE', '--base says what a push is made on: it goes with --push.');
  if (o.base !== undefined && o.base !== 'head' && o.base !== 'disk')
    throw new FettleError('E_USAGE', `--base takes head or disk, got '${o.base}'.`);
};

const ANSWERS: Record<string, PushBase> = { h: 'head', head: 'head', d: 'disk', disk: 'disk' };

/**
 * What to push on: `--base` as given, or nothing to choose when every file was made on its base's bytes; else the
 * person is told which files hold other bytes and asked at a terminal. Null: they chose not to push.
 */
export const choosePushBase = async (
  edge: Edge,
  o: PushFlags,
  foreign: readonly string[],
  base: string | null,
): Promise<PushBase | undefined | null> => {
  if (o.base !== undefined) return o.base as PushBase;
  if (foreign.length === 0) return undefined;
  const refusal = publishRefusal(foreign, base);
  if (o.json || !edge.io.ask) throw refusal;
  const at = base ? `commit ${base.slice(0, 12)}` : 'any commit';
  const question = [
    `These files held bytes that are not in ${at} when the changes were made (uncommitted edits, or another session's):`,
    ...foreign.map((f) => `  ${f}`),
    'Pushed as made, the branch would publish those bytes too.',
    'Push the changes alone, on the committed files (h), with those bytes (d), or nothing (n)? [h/d/N] ',
  ].join('\n');
  const answer = await edge.io.ask(question);
  if (answer === null) throw refusal;
  const chosen = ANSWERS[answer.trim().toLowerCase()];
  if (!chosen) edge.io.err('Nothing was pushed.');
  return chosen ?? null;
};

/** What a push did, in a sentence: a new branch, one moved by --force, or one that already held the commit. */
export const pushedText = (what: string, remote: string, p: Pushed, onBase?: string | null): string => {
  const commit = p.commit.slice(0, 12);
  if (p.already) return `Branch ${p.branch} of ${remote} already holds ${what} (commit ${commit}); nothing was pushed.`;
  const how = p.moved
    ? `moved branch ${p.branch} from ${p.moved.slice(0, 12)} to it (--force)`
    : `as branch ${p.branch}`;
  const one = onBase === undefined ? '' : `, one commit on ${onBase ? onBase.slice(0, 12) : 'no base'}`;
  return `Pushed ${what} (commit ${commit}) to ${remote} ${p.moved ? `and ${how}` : how}${one}; open a pull request from it. No local branch was created or changed.`;
};

/** A session or changeset pushed as one commit on its base: JSON, or a sentence. */
export const printPushed = (
  edge: Edge,
  json: boolean | undefined,
  named: Record<string, string>,
  what: string,
  p: Pushed & { remote: string; base: string | null },
): void => {
  if (json) {
    const { remote, url, branch, commit, base, already = false, moved = null } = p;
    edge.io.out(JSON.stringify({ ...named, remote, url, branch, commit, base, already, moved }));
    return;
  }
  edge.io.out(pushedText(what, p.remote, p, p.base));
};

/** The body of a session's or changeset's review: the files with their counts, then the diff. */
export const filesAndDiff = (view: { files: FileStat[]; diff: string; foreign: string[] }, base: string | null) => [
  '',
  `Files changed (${view.files.length}):`,
  ...view.files.map(
    (f) =>
      `  ${f.path}  ${f.added === null ? 'binary' : `+${f.added} -${f.removed}`}${f.parts ? `  (${f.parts} diffs)` : ''}`,
  ),
  ...(view.foreign.length === 0
    ? []
    : [
        '',
        `Made on bytes that are not in ${base ? base.slice(0, 12) : 'any commit'} (uncommitted edits, or another session's): ${view.foreign.join(', ')}.`,
        'Each diff is against the bytes a change replaced; a push asks whether to include those bytes (--base head|disk).',
      ]),
  '',
  view.diff.trimEnd(),
  '',
];
