// What the model reads when a policy rule stops a write before the tool runs: a `block` rule's message, or a
// `stage` rule on a write whose result fettle cannot compute. The same text for every agent; each adapter wraps
// it in its own deny.
import { renderBlocked, renderUnstageable } from '../core/messages';
import type { Decided } from '../protocol/write/before';
import { shownTarget } from '../core/shown-path';

type Stopped = Extract<Decided, { kind: 'blocked' | 'unstageable' }>;

export const ruledText = (d: Stopped, tool: string): string =>
  d.kind === 'unstageable'
    ? renderUnstageable({ path: shownTarget(d.target), rule: d.ruleText, why: d.why, tool })
    : renderBlocked({ path: shownTarget(d.target), rule: d.ruleText, message: d.rule.message ?? '', tool });
