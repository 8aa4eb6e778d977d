// What `fettle review --web` and `fettle review -i` review: one change or changeset, a session (from a turn on),
// every pending change, or the current session's; and the options both take. Shared by the two commands.
import { FettleError } from '../errors';
import type { ReviewScope } from '../protocol/review/review-data';
import { currentSession } from '../protocol/select/names';
import { openStore, settledChanges } from '../protocol/select/open';
import { contextFor, type Edge } from './edge';

export interface RoomOptions {
  web?: boolean | undefined;
  interactive?: boolean | undefined;
  session?: string | undefined;
  turn?: string | undefined;
  all?: boolean | undefined;
  /** commander's --no-open */
  open?: boolean | undefined;
}

/** Minutes of a quiet page before its server stops (FETTLE_REVIEW_IDLE_MINUTES). */
export const quietMs = (edge: Edge): number => {
  const raw = edge.env.FETTLE_REVIEW_IDLE_MINUTES;
  if (raw === undefined || raw === '') return 30 * 60_000;
  if (!/^\d{1,4}$/.test(raw) || Number(raw) < 1)
    throw new FettleError(
      'E_CONFIG',
      `FETTLE_REVIEW_IDLE_MINUTES must be a whole number of minutes from 1, got '${raw}'.`,
    );
  return Number(raw) * 60_000;
};

const turnOf = (text: string): number => {
  if (!/^[1-9]\d{0,8}$/.test(text))
    throw new FettleError('E_USAGE', `--turn takes a turn number (1 for the first prompt), got '${text}'.`);
  return Number(text);
};

/** What the review is about, as the options say it; one of them, or the current session's pending changes. */
export const scopeOf = async (edge: Edge, dir: string | undefined, change: string | undefined, o: RoomOptions) => {
  const given = [change !== undefined, o.session !== undefined, o.all === true].filter(Boolean).length;
  if (given > 1) throw new FettleError('E_USAGE', 'Review one change, one --session or --all, not several.');
  const ctx = contextFor(edge, dir);
  if (change !== undefined) return { ctx, scope: { id: change } as ReviewScope };
  if (o.all) return { ctx, scope: { all: true } as ReviewScope };
  const turn = o.turn === undefined ? undefined : turnOf(o.turn);
  let session = o.session;
  if (session === undefined) {
    const store = await openStore(ctx);
    session = await currentSession(ctx, await settledChanges(ctx, store));
  }
  if (session === undefined)
    throw new FettleError('E_USAGE', 'Name what to review: a change id, --session <id> or --all.', {
      hint: '`fettle status` lists the pending changes and their sessions.',
    });
  return { ctx, scope: { session, turn } as ReviewScope };
};
