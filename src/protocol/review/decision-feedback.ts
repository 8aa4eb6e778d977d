// What a decision set tells each agent session whose changes it decided: what became of each (a person's decisions
// are news to the model; its own are not), and every comment, as the model will read them (core/feedback.ts).
import { type DecisionNote, type FeedbackItem, feedbackText } from '../../core/feedback';
import type { Change } from '../changes';
import type { Decided } from './split-off';

/** Per agent session: what was decided about its changes and what the person said, as the agent will read it. */
export const feedbackBySession = (
  decided: Decided[],
  items: FeedbackItem[],
  now: Map<string, Change>,
  decidedBy: string,
) => {
  const bySession = new Map<string, { decisions: DecisionNote[]; items: FeedbackItem[] }>();
  const of = (session: string) => {
    const entry = bySession.get(session) ?? { decisions: [], items: [] };
    bySession.set(session, entry);
    return entry;
  };
  for (const d of decided) {
    const { session, path } = d.change.fields;
    if (session === undefined) continue;
    of(session).decisions.push({
      change: d.change.id,
      path,
      verdict: d.outcome,
      kept: d.picked?.keep,
      dropped: d.picked?.drop,
      count: d.picked?.count,
      remainder: d.remainder,
    });
  }
  for (const item of items) {
    const change = now.get(item.change);
    const session = change?.fields.session;
    if (session !== undefined) of(session).items.push({ ...item, path: item.path || (change?.fields.path ?? '') });
  }
  // The model that decided knows what it did; anyone else's decisions (a person's, a script's) are news to it, and
  // so is anything said.
  return new Map(
    [...bySession]
      .filter(([, e]) => e.items.length > 0 || (decidedBy !== 'model' && e.decisions.length > 0))
      .map(([session, e]) => [session, { session, ...e, text: feedbackText(e.decisions, e.items) }]),
  );
};
