// What the before step of a write (before.ts) is given and what it decides, as every edge reads it: the tool call
// as an edge describes it, and the outcome (let through, a no-op, staged, refused, blocked or ignored by a rule).
import type { Decision, Thresholds } from '../../core/decide';
import type { RunCheck } from '../../core/messages';
import type { PolicyRule } from '../../core/policy';
import type { WriteCall } from '../../core/tool-call';
import type { DiskFile } from '../../io/atomic-write';
import type { Target } from '../../store/store';
import type { Origin } from '../context';
import type { Plan } from '../decide/plan';
import type { Proposed } from '../decide/predict';

/** A tool call about to write, as an edge describes it. */
export interface ToolWrite {
  call: WriteCall;
  origin: Origin;
  /** the agent's permission mode, when it has one (see core/permission.ts) */
  mode?: string | undefined;
  /** whether the agent's own rules let it write this path without asking (Claude Code's acceptEdits) */
  inProject: boolean;
  /**
   * The tool's result from the bytes on disk, for an agent whose tools do not write as Claude Code's do (predict.ts
   * is Claude Code's); `exact: false` records the previous bytes and lets the tool run.
   */
  predict?: ((old: DiskFile | null) => Proposed) | undefined;
  /**
   * false when the agent cannot ask a person at a prompt (Gemini CLI): a change only a person may apply then waits
   * for their `fettle confirm`, and no after step will settle it
   */
  asks?: boolean | undefined;
}

export type Staged = Extract<Decision, { tier: 'staged' }>;

/** A write held as a staged change, as both the hook's and a script's write report it. */
export interface StagedWrite {
  kind: 'staged';
  target: Target;
  decision: Staged;
  id: string;
  diff: Plan['diff'];
  /** the same session's pending proposal for the file this one replaced */
  supersedes?: string | undefined;
  /** the thresholds that decided it, and the policy rule that staged it (as ruleText() names it) */
  thresholds: Thresholds;
  rule?: string | undefined;
  /** what the failed commands of `run` rules that stage said */
  check?: RunCheck | undefined;
}

/** A write a policy rule decides alone: `block` denies it (with the rule's message), `ignore` leaves it to the tool. */
interface RuledOutBy<Kind extends 'blocked' | 'ignored'> {
  kind: Kind;
  target: Target;
  rule: PolicyRule;
  /** ruleText(): how messages name the rule */
  ruleText: string;
  /** blocked: what every matching rule says, the deciding rule's first */
  feedback?: string[] | undefined;
  /** blocked by an `ask` rule: a person decides at the agent's prompt where it has one, else it is denied */
  ask?: boolean | undefined;
  /** blocked by a `run` rule: what its failed command (and any before it) said */
  check?: string | undefined;
}
/** One member per kind, so a check of `kind` narrows (an interface whose kind is a union would not). */
export type RuledOut = RuledOutBy<'blocked'> | RuledOutBy<'ignored'>;

export type Decided =
  | { kind: 'pass'; target?: Target | undefined; id?: string | undefined } // the tool goes on (recorded as `id`)
  | { kind: 'noop'; target: Target }
  | {
      kind: 'refused';
      target: Target;
      decision: Staged;
      thresholds: Thresholds;
      rule?: string | undefined;
      check?: RunCheck | undefined;
    }
  | RuledOut
  | { kind: 'unstageable'; target: Target; rule: PolicyRule; ruleText: string; why: string; runs?: boolean }
  | (StagedWrite & { review: 'model' | 'person' });

/**
 * What the before step decided, with `remember` to store the edge's rendered answer for this tool call; or, for a
 * call answered before, that answer (`replay`); or nothing, while another process answers it (`duplicate`).
 */
export type Before =
  | (Decided & { remember?: ((answer: string) => Promise<void>) | undefined })
  | { kind: 'replay'; answer: string }
  | { kind: 'duplicate' };
