// The session a command outside any agent records its changes under, from the ladder in core/session-ladder.ts:
// FETTLE_SESSION, the branch and work tree, the parent process, the directory. Read from files only (no git
// process), so `fettle write` in a script's loop pays a stat and a read or two.
import { ladderSession, type LadderSession } from '../../core/session-ladder';
import { checkoutAt } from '../../store/checkout';
import type { Context } from '../context';

export const commandSession = async (ctx: Context): Promise<LadderSession> => {
  const session = ctx.env.FETTLE_SESSION || undefined;
  if (session) return ladderSession({ session, checkout: null, parent: null, cwd: ctx.cwd });
  const checkout = await checkoutAt(ctx.cwd, ctx.env);
  const parent = checkout ? null : (ctx.parent?.() ?? null);
  return ladderSession({ session, checkout, parent, cwd: ctx.cwd });
};

/**
 * The context a command's records are made in: FETTLE_SESSION set to the ladder's session when the caller set none,
 * so the records, their turn and a command the change runs (a contract's checks) all name one session.
 */
export const inCommandSession = async (ctx: Context): Promise<Context> =>
  ctx.env.FETTLE_SESSION ? ctx : { ...ctx, env: { ...ctx.env, FETTLE_SESSION: (await commandSession(ctx)).id } };
