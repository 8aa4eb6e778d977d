// What the model reads when a policy rule stops a write before the tool runs: a `block` rule's message, or a
// `stage` rule on a write whose result fettle cannot compute. The same text for every agent; each adapter wraps
// it in its own deny; an `ask` rule's write is asked about where the agent has a prompt (Claude Code), else denied
// with the same text.
import { renderBlocked, renderPolicyAsk, renderRunBlocked, renderUnstageable } from '../core/messages';
import type { Decided } from '../protocol/write/before';
import { shownTarget } from '../core/shown-path';

type Stopped = Extract<Decided, { kind: 'blocked' | 'unstageable' }>;

export const ruledText = (d: Stopped, tool: string): string => {
  const path = shownTarget(d.target);
  if (d.kind === 'unstageable') return renderUnstageable({ path, rule: d.ruleText, why: d.why, tool, runs: d.runs });
  // A `run` rule's failed command: the messages of the rules that speak, if any, follow what it said.
  if (d.check !== undefined) return renderRunBlocked({ path, check: d.check, message: (d.feedback ?? []).join(' ') });
  return renderBlocked({ path, rule: d.ruleText, message: messageOf(d), tool });
};

/** An `ask` rule's write, for an agent that asks a person at its prompt. */
export const askedText = (d: Extract<Stopped, { kind: 'blocked' }>): string =>
  renderPolicyAsk({ path: shownTarget(d.target), rule: d.ruleText, message: messageOf(d) });

/** What the matching rules say, in one answer: the deciding rule's first. */
const messageOf = (d: Extract<Stopped, { kind: 'blocked' }>): string =>
  (d.feedback?.length ? d.feedback : [d.rule.message ?? '']).map((m) => m.trim()).join(' ');
