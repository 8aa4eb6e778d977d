// What a confirm tells each agent session whose staged changes it applied, delivered once with the session's next
// hook or MCP call (record/feedback-queue.ts). A person's or a script's confirm is news to the model, in the words
// a decision on the review page uses (core/feedback.ts). The model's own confirm (through its shell or MCP) is not
// news, but the files it last read changed on disk, so it is reminded to read them again before editing them. Both
// are queued only: a confirm adds no ref beyond its own, and its applied commits say who applied what.
import { type DecisionNote, feedbackText } from '../../core/feedback';
import { plural } from '../../core/plural';
import type { Context } from '../context';
import { queueFeedback } from '../record/feedback-queue';
import type { FilePlan } from './confirm-plan';

const how = (p: FilePlan): string =>
  p.how === 'merged'
    ? ' (merged with edits made on disk since it was staged)'
    : p.how === 'conflicts'
      ? ` (with ${plural(p.conflicts ?? 0, 'conflict region')} marked in it)`
      : '';

/** The reminder for the model that confirmed its own changes: which files changed on disk. */
const reminder = (plans: FilePlan[]): string =>
  [
    'Your `fettle confirm` applied staged changes on disk:',
    ...plans.map((p) => `- ${p.change.fields.path}: change ${p.change.id}${how(p)}.`),
    'These files changed since you last read them: read them again before editing them.',
  ].join('\n');

/**
 * What to deliver once the confirm has landed: per session, the model's own reminder, or anyone else's news in the
 * words a page decision uses. Keyed by the change's tip, so a retried delivery queues it once.
 */
export const confirmFeedback = (ctx: Context, plans: FilePlan[], decidedBy: string): (() => Promise<void>) => {
  const bySession = new Map<string, FilePlan[]>();
  for (const p of plans) {
    const { session } = p.change.fields;
    if (session !== undefined) bySession.set(session, [...(bySession.get(session) ?? []), p]);
  }
  const textOf = (own: FilePlan[]): string =>
    decidedBy === 'model'
      ? reminder(own)
      : feedbackText(
          own.map((p): DecisionNote => ({ change: p.change.id, path: p.change.fields.path, verdict: 'confirmed' })),
          [],
        );
  return async () => {
    for (const [session, own] of bySession)
      await queueFeedback(ctx.config.dataDir, session, `${(own[0] as FilePlan).change.tip}-applied`, textOf(own));
  };
};
