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
