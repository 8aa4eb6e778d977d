// Changes only a person may apply: a staged change the agent asked a person about, or any staged change under
// FETTLE_REVIEW=human; and any change past its time to confirm. Who runs the command is decided at its edge
// (core/caller.ts: the agent's marks in the environment, the processes above it, a terminal) and handed down in the
// context. The model and fettle run as the same user, so this is a check the model cannot pass by accident or by
// dropping a variable, not a security boundary: the README's non-guarantees say what still passes.
import { type Caller, deciderOf, notAPerson } from '../../core/caller';
import { FettleError } from '../../errors';
import type { Change } from '../changes';
import type { Context } from '../context';

/** A context that does not say who runs it (the hook's) is nobody's a person. */
const UNSAID: Caller = { who: 'unknown', why: 'was not started by a person' };

export const callerIn = (ctx: Context): Caller => ctx.caller?.() ?? UNSAID;

export const isPerson = (ctx: Context): boolean => callerIn(ctx).who === 'person';

/**
 * Who decides when this command applies, drops or rolls back a change (the Fettle-Decided-By trailer): `model` for
 * an agent's command, `person` for a person's, `script` for a command that shows neither (no terminal).
 */
export const commandDecider = (ctx: Context): 'model' | 'person' | 'script' => deciderOf(callerIn(ctx));

export const needsPerson = (ctx: Context, change: Change): boolean =>
  change.fields.review === 'person' || ctx.config.review === 'human';

/** How a person gets it done, from their own terminal. */
const PERSON_HINT = (id: string) =>
  `A person must run \`fettle confirm ${id}\` in their own terminal, after reviewing it with \`fettle review ${id}\` (or apply it on the page \`fettle review --web ${id}\` opens from there); the agent may only discard it.`;

/** Throws when `change` needs a person and this command is not one's. */
export const requirePerson = (ctx: Context, change: Change): void => {
  const caller = callerIn(ctx);
  if (caller.who === 'person' || !needsPerson(ctx, change)) return;
  const why =
    change.fields.review === 'person'
      ? `the agent asked a person to approve change ${change.id}`
      : 'FETTLE_REVIEW=human is set';
  throw new FettleError(
    'E_PERSON_REQUIRED',
    `Change ${change.id} to ${change.fields.path} needs a person's approval (${why}), and this command ${notAPerson(caller)}. Nothing was written.`,
    { hint: PERSON_HINT(change.id) },
  );
};

/**
 * Applying a change past its time to confirm is a person's (`confirm --expired`, the page's expired apply): the TTL
 * is there so that an agent re-runs its Write rather than applying a proposal it made long ago; a person reviewing
 * slowly is who --expired is for.
 */
export const requirePersonForExpired = (ctx: Context, change: Change): void => {
  const caller = callerIn(ctx);
  if (caller.who === 'person') return;
  throw new FettleError(
    'E_PERSON_REQUIRED',
    `confirm --expired applies a change past its time to confirm, and only a person may do that; this command ${notAPerson(caller)}. Nothing was written.`,
    { hint: `Re-run the Write to stage it again, or drop it with \`fettle discard ${change.id}\`.` },
  );
};
