// An agent session as one pull request: everything it changed, each file's diff against the bytes the session's
// changes replaced (own-diff.ts), on the user's commit the session started from; pushed as one commit on that base
// (the session's tree, or with `--base head` its changes applied to the base's own files), so the remote's
// branch diffs against the user's commit.
import { parseSessionCommit, type SessionCommitFields } from '../../core/session';
import { FettleError } from '../../errors';
import { writeCommit } from '../../store/objects';
import { readObjects } from '../../store/object-read';
import type { Store } from '../../store/store';
import { leafAt, overlayOf, parentOf, type Leaf } from '../../store/tree-overlay';
import { publishRefusal, pushCommit, type PushBase, type PushOptions, type Pushed } from './review';
import { sessionRef } from '../record/session-ref';
import { plural } from '../../core/plural';
import { ownDiff, treeOnBase, type FileStat, type Run } from './own-diff';

export type { FileStat } from './own-diff';

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
  /** what it changed, run by run (see own-diff.ts) */
  runs: Run[];
  /** files its changes were made on bytes the base does not hold: pushing its tree would publish them */
  foreign: string[];
}

const MAX_COMMITS = 100_000;

/** The session's commits, oldest first: each one's id and fields (another commit ends the walk). */
export const sessionCommits = async (store: Store, tip: string, base: string | null) => {
  const { stdout } = await store.git.run({
    args: [
      'log',
      '--first-parent',
      `--max-count=${MAX_COMMITS}`,
      '--format=%H%n%B%x00',
      tip,
      ...(base ? [`^${base}`] : []),
    ],
  });
  const commits: { oid: string; fields: SessionCommitFields }[] = [];
  for (const entry of stdout.toString('utf8').split('\0')) {
    const [, oid = '', message = ''] = /^\n?([0-9a-f]+)\n([\s\S]*)$/.exec(entry) ?? [];
    const fields = parseSessionCommit(message);
    if (!fields) break;
    commits.push({ oid, fields });
  }
  return commits.reverse();
};

/**
 * The session's runs (see own-diff.ts): a file's run starts at its first change, from the base's version or from
 * the bytes a `found` commit kept, and ends at the next `found` of that file or the tip.
 */
const runsOf = async (store: Store, commits: { oid: string; fields: SessionCommitFields }[], base: string | null) => {
  const marks: { path: string; from: string | null; to: string }[] = [];
  const open = new Map<string, { path: string; from: string | null; to: string }>();
  const found = new Map<string, string>();
  for (const { oid, fields } of commits) {
    const { path, event } = fields;
    if (event === 'found') {
      open.delete(path);
      found.set(path, oid);
      continue;
    }
    const run = open.get(path);
    if (run) run.to = oid;
    else {
      const made = { path, from: found.get(path) ?? base, to: oid };
      found.delete(path);
      open.set(path, made);
      marks.push(made);
    }
  }
  // Each leaf read from the directory holding it, every directory once.
  const specs = [
    ...new Set(marks.flatMap((m) => [m.from, m.to].flatMap((c) => (c ? [`${c}:${parentOf(m.path)}`] : [])))),
  ];
  const objects = await readObjects(store, specs);
  const trees = new Map(specs.map((spec, n) => [spec, objects[n] ?? null]));
  const leaf = (commit: string | null, path: string): Leaf | null => {
    if (!commit) return null;
    const dir = parentOf(path);
    return leafAt(overlayOf([dir], [trees.get(`${commit}:${dir}`) ?? null]), path, store.objectFormat);
  };
  return marks.map((m): Run => ({ path: m.path, from: leaf(m.from, m.path), to: leaf(m.to, m.path) }));
};

/**
 * The session's ref read back: its base, its changes and turns, its runs, the files it changed, the diff. `ref`: a
 * fetched copy of it (fetched.ts) instead of this repository's own.
 */
export const readSessionView = async (
  store: Store,
  session: string,
  color = false,
  ref = sessionRef(session),
): Promise<SessionView> => {
  const [tipObject] = await readObjects(store, [ref]);
  if (tipObject?.type !== 'commit')
    throw new FettleError('E_NOT_FOUND', `No change of session '${session}' landed in this repository.`, {
      hint: 'Run `fettle log` to see the sessions of recorded changes.',
    });
  const tip = tipObject.oid;
  const text = tipObject.body.toString('utf8');
  const base = parseSessionCommit(text.slice(text.indexOf('\n\n') + 2))?.base ?? null;
  const commits = await sessionCommits(store, tip, base);
  const landed = commits.filter((c) => c.fields.event !== 'found');
  const tree = /^tree ([0-9a-f]+)$/m.exec(text)?.[1] ?? '';
  const runs = await runsOf(store, commits, base);
  const { files, diff, foreign } = await ownDiff(store, base, runs, color);
  const turns = [...new Set(landed.map((c) => c.fields.turn).filter((t): t is number => t !== undefined))].sort(
    (a, b) => a - b,
  );
  return { session, ref, tip, tree, base, changes: landed.length, turns, files, diff, runs, foreign };
};

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
  const tree = await treeToPush(store, view, options.base);
  return pushTree(store, { tree, base: view.base, message, when }, target, options);
};

/**
 * The tree a session or changeset is pushed as: its own, or with `--base head` its runs applied to the base's
 * files. Refused when its changes were made on bytes the base does not hold and nobody chose.
 */
export const treeToPush = async (
  store: Store,
  view: { tree: string; base: string | null; runs: Run[]; foreign: string[] },
  base: PushBase | undefined,
): Promise<string> => {
  if (view.foreign.length === 0 || base === 'disk') return view.tree;
  if (base === undefined) throw publishRefusal(view.foreign, view.base);
  return treeOnBase(store, view.base, view.runs);
};
