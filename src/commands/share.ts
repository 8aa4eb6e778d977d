// `fettle share [remote] [--session <id> | --all] [--with-prompts] [--as <name>] [--json]`: agent sessions pushed to
// a remote under the person's own name, for teammates to `fettle fetch` and review.
import { FettleError } from '../errors';
import { plural } from '../core/plural';
import { shareSessions, type SharedSession } from '../protocol/review/share';
import { currentSession } from '../protocol/select/names';
import { openStore, settledChanges } from '../protocol/select/open';
import { contextFor, invokeFor, type Edge } from './edge';

export interface ShareOptions {
  session?: string | undefined;
  all?: boolean | undefined;
  withPrompts?: boolean | undefined;
  as?: string | undefined;
  json?: boolean | undefined;
}

const promptsText = (s: SharedSession): string =>
  s.prompts === null
    ? 'prompts not shared'
    : `${plural(s.prompts, 'prompt')}${s.redacted > 0 ? ` (${plural(s.redacted, 'secret')} redacted)` : ''}`;

export const shareCommand = async (
  edge: Edge,
  dir: string | undefined,
  remote: string | undefined,
  o: ShareOptions,
): Promise<void> => {
  if (o.session !== undefined && o.all) throw new FettleError('E_USAGE', 'Share one --session or --all, not both.');
  const ctx = contextFor(edge, dir);
  const store = await openStore(ctx);
  const named = o.all ? undefined : (o.session ?? (await currentSession(ctx, await settledChanges(ctx, store))));
  if (!o.all && named === undefined)
    throw new FettleError('E_USAGE', 'Name what to share: --session <id> or --all.', {
      hint: '`fettle log` lists the sessions of recorded changes.',
    });
  const sessions = o.all ? ('all' as const) : [named as string];
  const shared = await shareSessions(ctx, store, {
    remote: remote ?? 'origin',
    who: o.as,
    sessions,
    withPrompts: !!o.withPrompts,
  });
  if (o.json) {
    edge.io.out(JSON.stringify(shared, null, 2));
    return;
  }
  const invoke = invokeFor(edge, dir);
  const lines = shared.sessions.map(
    (s) =>
      `${s.sent ? 'Shared' : 'Already shared'} session ${s.session} (${plural(s.changes, 'change')}, ${promptsText(s)}) as ${s.ref}${s.sent ? '' : '; nothing was sent'}.`,
  );
  const one = shared.sessions.length === 1 ? shared.sessions[0]?.ref.split('/').slice(-2, -1)[0] : undefined;
  if (shared.sessions.some((s) => s.sent))
    lines.push(`Only refs under refs/fettle/shared/${shared.who}/ of ${shared.remote} were written; no branch moved.`);
  lines.push(
    `Teammates: ${invoke} fetch ${shared.remote}, then ${invoke} review --session ${shared.remote}/${shared.who}/${one ?? '<session>'}`,
  );
  edge.io.out(lines.join('\n'));
};
