// An agent session as one pull request: everything it changed, `git diff <base> fettle/sessions/<name>`, where
// the base is the user's commit the session started from; pushed as one commit on that base (the session's
// tree, the base as its parent), so the remote's branch diffs against the user's commit as exactly that.
import { parseSessionCommit } from '../../core/session';
import { FettleError } from '../../errors';
import { writeCommit } from '../../store/objects';
import { readObjects } from '../../store/object-read';
import type { Store } from '../../store/store';
import { pushCommit, type PushOptions, type Pushed } from './review';
import { sessionRef } from '../record/session-ref';
import { plural } from '../../core/plural';

export interface SessionView {
  session: string;
  ref: string;
  tip: string;
  tree: string;
  /** the user's commit the session started from (null: private store or unborn HEAD) */
  base: string | null;
  /** changes that landed in it (commits on its ref) */
  changes: number;
  turns: number[];
  files: FileStat[];
  diff: string;
}

const MAX_COMMITS = 100_000;

/** The session's ref read back: its base, its changes and turns, the files it changed against the base, the diff. */
export const readSessionView = async (store: Store, session: string, color = false): Promise<SessionView> => {
  const ref = sessionRef(session);
  const [tipObject] = await readObjects(store, [ref]);
  if (tipObject?.type !== 'commit')
    throw new FettleError('E_NOT_FOUND', `No change of session '${session}' landed in this repository.`, {
      hint: 'Run `fettle log` to see the sessions of recorded changes.',
    });
  const tip = tipObject.oid;
  const messages = (
    await store.git.run({
      args: ['log', '--first-parent', `--max-count=${MAX_COMMITS}`, '--format=%B%x00', tip],
    })
  ).stdout
    .toString('utf8')
    .split('\0')
    .map((m) => parseSessionCommit(m.replace(/^\n/, '')))
    .filter((f) => f !== null);
  const base = messages[0]?.base ?? null;
  const tree = /^tree ([0-9a-f]+)$/m.exec(tipObject.body.toString('utf8'))?.[1] ?? '';
  const { files, diff } = await diffView(store, base, tip, color);
  const turns = [...new Set(messages.map((m) => m.turn).filter((t): t is number => t !== undefined))].sort(
    (a, b) => a - b,
  );
  return { session, ref, tip, tree, base, changes: messages.length, turns, files, diff };
};

export interface FileStat {
  path: string;
  added: number | null;
  removed: number | null;
}

/** The files and the diff between the user's commit `base` (null: nothing) and a fettle commit or tree. */
export const diffView = async (
  store: Store,
  base: string | null,
  to: string,
  color = false,
): Promise<{ files: FileStat[]; diff: string }> => {
  const from = base ?? (await emptyTree(store));
  const diffArgs = ['--no-ext-diff', '--no-textconv', '--no-renames', from, to];
  const numstat = (await store.git.text({ args: ['diff', '--numstat', ...diffArgs] })).split('\n').filter(Boolean);
  const files = numstat.map((line) => {
    const [added = '-', removed = '-', ...path] = line.split('\t');
    return {
      path: path.join('\t'),
      added: added === '-' ? null : Number(added),
      removed: removed === '-' ? null : Number(removed),
    };
  });
  const diff = (
    await store.git.run({ args: ['diff', color ? '--color=always' : '--no-color', ...diffArgs] })
  ).stdout.toString('utf8');
  return { files, diff };
};

const emptyTree = (store: Store): Promise<string> =>
  store.git.text({ args: ['hash-object', '-t', 'tree', '--stdin'], input: '' });

/** `tree` as one commit on `base` (none: a root commit), pushed as `branch` of `remote`; no local ref moves. */
export const pushTree = async (
  store: Store,
  o: { tree: string; base: string | null; message: string; when: Date },
  target: { remote: string; branch: string },
  options: PushOptions = {},
): Promise<Pushed> => {
  const commit = await writeCommit(store, o.tree, o.base ? [o.base] : [], o.message, o.when);
  return pushCommit(store, commit, target, options);
};

/** The session as one commit on its base, pushed as `branch` of `remote`; no local ref is created or moved. */
export const pushSession = async (
  store: Store,
  view: SessionView,
  target: { remote: string; branch: string },
  when: Date,
  options: PushOptions = {},
): Promise<Pushed> => {
  const listed = view.files.map((f) => `  ${f.path}`).join('\n');
  const message = `fettle: agent session ${view.session} (${plural(view.changes, 'change')}, ${plural(view.files.length, 'file')})\n\nEverything the agent session changed, on the commit it started from.\n\n${listed}\n`;
  return pushTree(store, { tree: view.tree, base: view.base, message, when }, target, options);
};
