// `fettle review <id|commit> [--push [remote]] [--branch <name>] [--base head|disk] [--json]`: a staged change or a
// changeset as a pull request (`--session` is review-session.ts).
import { FettleError } from '../errors';
import { invocationFor, selfCommand } from '../io/self';
import type { Change } from '../protocol/changes';
import { type Chain, chainOf } from '../protocol/chains';
import { type ChangeHunks, changeHunks } from '../protocol/hunks';
import { baseMove, changeForeign, pushChange, pushTarget, type BaseMove } from '../protocol/review/review';
import { openStore } from '../protocol/select/open';
import { pushChangeset, readChangesetView, type ChangesetView } from '../protocol/review/changeset-review';
import { resolveShown } from '../protocol/review/changesets';
import type { Context } from '../protocol/context';
import type { Store } from '../store/store';
import {
  ago,
  baseLine,
  changeJson,
  checksNoteOf,
  contractLines,
  instructionsIn,
  countsText,
  expiryText,
  nextSteps,
  reviewHeader,
  stateText,
} from './change-view';
import { contextFor, useColor, type Edge } from './edge';
import {
  checkPushFlags,
  choosePushBase,
  filesAndDiff,
  printPushed,
  pushedText,
  pushing,
  type PushFlags,
} from './review-push';
import { plural } from '../core/plural';
import { shownFile } from '../core/shown-path';

/** `review <change> --push`: the proposal pushed as a branch of a remote; JSON, or a sentence. */
const pushChangeReview = async (
  edge: Edge,
  store: Store,
  change: Change,
  chain: Chain,
  o: PushFlags,
): Promise<void> => {
  const remote = typeof o.push === 'string' ? o.push : 'origin';
  const branch = o.branch ?? `fettle/${change.id}`;
  await pushTarget(store, { remote, branch });
  const base = await choosePushBase(edge, o, await changeForeign(store, change, chain), chain.base);
  if (base === null) return;
  const pushed = await pushChange(store, change, chain, { remote, branch }, { force: o.force, base });
  if (o.json) {
    const { url, commit, already = false, moved = null } = pushed;
    edge.io.out(JSON.stringify({ id: change.id, remote, url, branch, commit, already, moved }));
  } else edge.io.out(pushedText(`change ${change.id}`, remote, pushed));
};

/** `review <change> --json`: the change, its title, its base and how HEAD moved since, its checks, its diff. */
/** The diff with each hunk's number beside its `@@` line, as `--hunks` takes them. */
const numbered = (h: ChangeHunks): string => {
  let n = 0;
  const count = h.hunks.length;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the line may start with a colour
  return h.diff.replace(/^((?:\u001b\[[0-9;]*m)?@@ .*)$/gm, (line) => `${line}  hunk ${++n} of ${count}`);
};

const changeReviewJson = (change: Change, chain: Chain, move: BaseMove, h: ChangeHunks) => ({
  ...changeJson(change),
  title: chain.commits[0]?.subject ?? '',
  base: move.base,
  head: move.head,
  ahead: move.ahead,
  behind: move.behind,
  fileChangedOnHead: move.fileMoved,
  checksNote: checksNoteOf(chain.commits.map((k) => k.message)),
  diff: h.diff,
  hunks: h.hunks.map(({ index, oldStart, oldLines, newStart, newLines, header, added, removed }) => ({
    ...{ index, oldStart, oldLines, newStart, newLines, header, added, removed },
  })),
  ...(h.whole ? { whole: h.whole } : {}),
});

/** The instructions each member of a contract's changeset carries, file by file. */
const memberInstructions = async (store: Store, members: Change[]): Promise<string[]> => {
  const chains = await Promise.all(members.filter((c) => c.fields.contract).map((c) => chainOf(store, c.tip)));
  return chains.flatMap((chain) => instructionsIn(chain.commits.map((k) => k.message)));
};

/** `review <change>` for a person, paged: what it is, its base, its contract, its file and diff, what to do next. */
const pageChangeReview = (
  edge: Edge,
  ctx: Context,
  store: Store,
  r: { change: Change; chain: Chain; move: BaseMove; diff: string; color: boolean },
): void => {
  const { change, chain, move, diff, color } = r;
  const messages = chain.commits.map((k) => k.message);
  const invoke = invocationFor(selfCommand(ctx.env, edge.io.script), edge.cwd, store, change.fields.file);
  const bold = (s: string) => (color ? `\u001b[1m${s}\u001b[0m` : s);
  const [title = '', ...rest] = reviewHeader(change, chain.commits[0]?.subject ?? '', ctx.now());
  edge.io.page(
    [
      bold(title),
      ...rest,
      baseLine(move, change.fields.path, store.kind),
      ...contractLines(change, checksNoteOf(messages), instructionsIn(messages)),
      '',
      'Files changed (1):',
      `  ${shownFile(change.fields)}  ${countsText(change)}`,
      '',
      diff.trimEnd(),
      '',
      ...nextSteps(change, invoke),
    ].join('\n'),
  );
};

export const reviewCommand = async (
  edge: Edge,
  dir: string | undefined,
  arg: string | undefined,
  o: PushFlags,
): Promise<void> => {
  const ctx = contextFor(edge, dir);
  checkPushFlags(o);
  if (arg === undefined)
    throw new FettleError('E_USAGE', 'Name a change to review, or use --session <id> for a whole agent session.', {
      hint: 'Run `fettle status` to list pending changes.',
    });
  const store = await openStore(ctx);
  const found = await resolveShown(ctx, store, arg);
  if (found.changeset) return reviewChangeset(edge, ctx, store, found.changeset, o);
  const change = found.change as Change;
  if (change.fields.tier !== 'staged') {
    throw new FettleError(
      'E_USAGE',
      `Change ${change.id} was written directly, not staged; there is nothing to review before it lands.`,
      {
        hint: `See what it did with \`fettle show ${change.id}\`.`,
      },
    );
  }
  const chain = await chainOf(store, change.tip);
  if (pushing(o)) return pushChangeReview(edge, store, change, chain, o);
  const move = await baseMove(store, change, chain);
  const color = useColor(edge, o.json);
  const h = await changeHunks(store, change, { color });
  if (o.json) {
    edge.io.out(JSON.stringify(changeReviewJson(change, chain, move, h), null, 2));
    return;
  }
  pageChangeReview(edge, ctx, store, { change, chain, move, diff: numbered(h), color });
};

/** `review <changeset> --push`: the changeset as one commit on its base, pushed as a branch of a remote. */
const pushChangesetReview = async (edge: Edge, ctx: Context, store: Store, view: ChangesetView, o: PushFlags) => {
  const remote = typeof o.push === 'string' ? o.push : 'origin';
  const target = { remote, branch: o.branch ?? `fettle/${view.id}` };
  await pushTarget(store, target);
  const base = await choosePushBase(edge, o, view.foreign, view.base);
  if (base === null) return;
  const pushed = await pushChangeset(store, view, target, ctx.now(), { force: o.force, base });
  const what = `changeset ${view.id} (${plural(view.files.length, 'file')})`;
  printPushed(edge, o.json, { changeset: view.id }, what, { ...pushed, remote, base: view.base });
};

/** `review <changeset>`: its changes as one diff against the commit they were recorded on; --push as one commit. */
const reviewChangeset = async (
  edge: Edge,
  ctx: Context,
  store: Store,
  set: { id: string; members: Change[] },
  o: PushFlags,
): Promise<void> => {
  const { id } = set;
  const color = useColor(edge, o.json || pushing(o));
  const view = await readChangesetView(store, id, set.members, color);
  // A contract's changes all record the same contract and checks: one member's chain says it for the set.
  const byContract = set.members.find((c) => c.fields.contract);
  const note = byContract ? checksNoteOf((await chainOf(store, byContract.tip)).commits.map((k) => k.message)) : null;
  // Instructions are per file: each member's own chain says them.
  const said = byContract ? await memberInstructions(store, set.members) : [];
  if (pushing(o)) return pushChangesetReview(edge, ctx, store, view, o);
  if (o.json) {
    const { base, tree, files, diff, foreign: notInBase } = view;
    edge.io.out(
      JSON.stringify(
        { changeset: id, base, tree, changes: view.members.map(changeJson), checksNote: note, files, notInBase, diff },
        null,
        2,
      ),
    );
    return;
  }
  const now = ctx.now();
  const invoke = invocationFor(
    selfCommand(ctx.env, edge.io.script),
    edge.cwd,
    store,
    view.shown[0]?.fields.file ?? edge.cwd,
  );
  const open = view.members.filter((c) => c.state === 'pending' || c.state === 'expired');
  const sessions = [...new Set(view.members.map((c) => c.fields.session).filter((s) => s !== undefined))];
  const bold = (s: string) => (color ? `\u001b[1m${s}\u001b[0m` : s);
  const lines = [
    bold(`fettle: changeset ${id} (${plural(view.files.length, 'file')})`),
    `${plural(view.members.length, 'change')}, recorded ${ago(now, view.members[view.members.length - 1]?.at ?? now)}${sessions.length ? ` by session ${sessions.join(', ')}` : ''}:`,
    ...view.members.map(
      (c) =>
        `  ${c.id}  ${shownFile(c.fields)}  ${stateText(c)}${c.state === 'pending' ? `, ${expiryText(c, now) ?? ''}` : ''}`,
    ),
    `Base: ${view.base ? `${view.base.slice(0, 12)} (HEAD when they were recorded)` : 'none'}.`,
    ...[...new Set(view.members.map((c) => c.fields.command).filter((c) => c !== undefined))].map(
      (c) => `Command: ${c}`,
    ),
    ...(byContract ? contractLines(byContract, note, said) : []),
    ...filesAndDiff(view, view.base),
  ];
  if (open.some((c) => c.state === 'pending')) lines.push(`To apply it:  ${invoke} confirm ${id}`);
  if (open.length > 0) lines.push(`To drop it:   ${invoke} discard ${id}`);
  lines.push(`To push it:   ${invoke} review ${id} --push [remote]`);
  edge.io.page(lines.join('\n'));
};
