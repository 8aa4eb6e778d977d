// The review page's data for a fetched session (fetched.ts): its changes and the prompts shared with it, read
// only; this repository's own changes otherwise.
import type { Context } from '../context';
import { settledChanges } from '../select/open';
import type { Store } from '../../store/store';
import { fetchedChangesOf, fetchedPrompts, fetchedSessionRef } from './fetched';
import { type ReviewData, type ReviewScope, reviewData } from './review-data';

/**
 * What the review page shows for `scope`: this repository's changes, or, for a session none of them belongs to,
 * the fetched one of that name, with the prompts shared with it.
 */
export const reviewOfScope = async (ctx: Context, store: Store, scope: ReviewScope): Promise<ReviewData> => {
  const all = await settledChanges(ctx, store);
  const { session } = scope;
  if (session === undefined || all.some((c) => c.fields.session === session)) return reviewData(ctx, store, all, scope);
  const ref = await fetchedSessionRef(store, session);
  if (ref === null) return reviewData(ctx, store, all, scope);
  const fetched = await fetchedChangesOf(ctx, store, session);
  const prompts = await fetchedPrompts(store, ref);
  const named = fetched[0]?.fields.session ?? session;
  return reviewData(ctx, store, fetched, { ...scope, session: named }, async () => prompts);
};
