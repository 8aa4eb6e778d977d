// `fettle review --session <id> [--push [remote]] [--branch <name>] [--base head|disk] [--json]`: everything an
// agent session changed, each file against the bytes its changes replaced, on the commit the session started from.
import { FettleError } from '../errors';
import { plural } from '../core/plural';
import { pushTarget } from '../protocol/review/review';
import { readSessionView, pushSession } from '../protocol/review/session-review';
import { openStore } from '../protocol/select/open';
import { sessionRefFor } from '../protocol/review/fetched';
import { contextFor, invokeFor, useColor, type Edge } from './edge';
import { checkPushFlags, choosePushBase, filesAndDiff, printPushed, pushing, type PushFlags } from './review-push';

export const reviewSessionCommand = async (
  edge: Edge,
  dir: string | undefined,
  arg: string | undefined,
  o: PushFlags & { session: string },
): Promise<void> => {
  const ctx = contextFor(edge, dir);
  checkPushFlags(o);
  if (arg !== undefined) throw new FettleError('E_USAGE', 'Name a change or use --session <id>, not both.');
  const { session } = o;
  const store = await openStore(ctx);
  const color = useColor(edge, o.json || pushing(o));
  const view = await readSessionView(store, session, color, await sessionRefFor(store, session));
  if (pushing(o)) {
    const remote = typeof o.push === 'string' ? o.push : 'origin';
    const branch = o.branch ?? `fettle/${view.ref.slice('refs/fettle/'.length)}`;
    await pushTarget(store, { remote, branch });
    const base = await choosePushBase(edge, o, view.foreign, view.base);
    if (base === null) return;
    const pushed = await pushSession(store, view, { remote, branch }, ctx.now(), { force: o.force, base });
    const what = `session ${session} (${plural(view.changes, 'change')} in ${plural(view.files.length, 'file')})`;
    printPushed(edge, o.json, { session }, what, { ...pushed, remote, base: view.base });
    return;
  }
  if (o.json) {
    const { tip, base, changes, turns, files, diff, foreign: notInBase } = view;
    const shown = { session, ref: view.ref, tip, base, changes, turns, files, notInBase, diff };
    edge.io.out(JSON.stringify(shown, null, 2));
    return;
  }
  const turns = view.turns.length === 0 ? '' : `, turns ${view.turns[0]}-${view.turns[view.turns.length - 1]}`;
  const ref = `fettle/${view.ref.slice('refs/fettle/'.length)}`;
  const base = view.base ? view.base.slice(0, 12) : '<base>';
  // With other writers' bytes in between, the tree's diff against the base is not the session's own.
  const withGit = view.foreign.length === 0 ? `git log ${ref}; git diff ${base} ${ref}` : `git log -p ${base}..${ref}`;
  edge.io.page(
    [
      `fettle: agent session ${session}`,
      `${plural(view.changes, 'change')} landed${turns}; base ${view.base ? `${base} (the commit the session started from)` : 'none'}.`,
      ...filesAndDiff(view, view.base),
      `To push it:   ${invokeFor(edge, ctx.cwd)} review --session ${session} --push [remote]`,
      `With git:     ${withGit}`,
    ].join('\n'),
  );
};
