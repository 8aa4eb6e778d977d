// FETTLE_AUDIT=1: one line per hook call in the repository's audit log (protocol/record/audit.ts), whatever the call was:
// what the agent asked (event, tool, file, session, tool use, mode), what fettle answered (the permission decision
// and exit code) and why (the decision, the change id, the policy rule). The handlers note what only they know
// in `edge.facts` as they decide; this runs after the answer is decided and never changes it.
import { clockFrom, type Env } from '../config';
import type { Target } from '../store/store';
import { appendAudit, auditDirNear } from '../protocol/record/audit';
import type { After } from '../protocol/write/after';
import type { Before } from '../protocol/write/before';
import type { AuditFacts, HookEdge } from './edge';
import type { HookOutcome } from './outcome';

/** FETTLE_AUDIT as the edge reads it before any configuration is loaded (config.ts validates it for handlers). */
export const auditing = (env: Env): boolean => (env.FETTLE_AUDIT ?? '').trim() === '1';

const located = (target: Target | undefined): AuditFacts => (target ? { commonDir: target.store.commonDir } : {});

/** Notes what the before step decided. */
export const noteBefore = (edge: HookEdge, before: Before): void => {
  if (!edge.facts) return;
  const facts: AuditFacts = { decision: before.kind };
  if ('target' in before) Object.assign(facts, located(before.target));
  if ('id' in before && before.id) facts.id = before.id;
  if (before.kind === 'staged') Object.assign(facts, { review: before.review, reason: before.decision.reason });
  if (before.kind === 'refused') facts.reason = before.decision.reason;
  if ('rule' in before && before.rule)
    facts.rule = typeof before.rule === 'object' ? `policy:${before.rule.label}` : before.rule;
  Object.assign(edge.facts, facts);
};

/** Notes what the after step recorded. */
export const noteAfter = (edge: HookEdge, after: After): void => {
  if (!edge.facts) return;
  Object.assign(edge.facts, { decision: after.kind === 'none' ? 'nothing-open' : 'recorded' });
  if (after.kind === 'recorded') Object.assign(edge.facts, { id: after.id, ...located(after.target) });
};

/** The answer the client gets, in a word. */
const answerOf = (o: HookOutcome): string => {
  if (o.exitCode === 2) return 'block';
  if (o.exitCode === 1) return 'warn';
  if (!o.stdout) return 'pass';
  try {
    const out = JSON.parse(o.stdout) as { hookSpecificOutput?: { permissionDecision?: string } };
    return out.hookSpecificOutput?.permissionDecision ?? 'context';
  } catch {
    return 'context';
  }
};

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Appends the call's line; never throws, never delays the answer by more than a few small file operations. */
export const auditHook = async (raw: string, outcome: HookOutcome, edge: HookEdge): Promise<void> => {
  try {
    let p: Record<string, unknown> = {};
    try {
      const parsed = JSON.parse(raw) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) p = parsed as Record<string, unknown>;
    } catch {
      // an unreadable payload is logged as such
    }
    const input = (p.tool_input ?? {}) as Record<string, unknown>;
    const facts = edge.facts ?? {};
    const commonDir = facts.commonDir ?? (await auditDirNear(str(p.cwd) ?? edge.cwd));
    if (!commonDir) return;
    const { commonDir: _, ...why } = facts;
    appendAudit(commonDir, {
      time: clockFrom(edge.env)().toISOString(),
      event: str(p.hook_event_name) ?? null,
      tool: str(p.tool_name) ?? null,
      file: str(input.file_path) ?? str(input.notebook_path) ?? null,
      session: str(p.session_id) ?? null,
      toolUse: str(p.tool_use_id) ?? null,
      mode: str(p.permission_mode) ?? null,
      answer: answerOf(outcome),
      exit: outcome.exitCode,
      decision: why.decision ?? (Object.keys(p).length === 0 ? 'unreadable' : 'passed-through'),
      ...why,
    });
  } catch {
    // never fails the call it records
  }
};
