// `fettle sessions [--json]`: the agent sessions that changed files here, per agent, the most recently active first,
// each with its turn, its changes, what waits for a decision and the files it shares with another session; the one
// marked `*` is the session `status` and `rollback --turn` act on when no --session is named.
import { plural } from '../core/plural';
import { listSessions, type SessionSummary } from '../protocol/review/session-list';
import { currentSession } from '../protocol/select/names';
import { openStore, settledChanges } from '../protocol/select/open';
import { ago } from './change-view';
import { contextFor, invokeFor, type Edge } from './edge';

const rowText = (s: SessionSummary, current: boolean, now: Date): string[] => {
  const turn = s.turn === null ? 'turns not counted' : `turn ${s.turn}`;
  const changes = `${plural(s.changes, 'change')} (${s.inEffect} in effect)`;
  const pending = s.pending > 0 ? `, ${s.pending} pending` : '';
  const state = s.live ? 'live' : 'idle';
  const head = `${current ? '*' : ' '} ${s.session}  ${turn}, ${changes}${pending}; ${state}, last active ${ago(now, s.lastActive)}`;
  return [head, ...s.shared.map((f) => `      shares ${f.path} with ${f.with.map((w) => `session ${w}`).join(', ')}`)];
};

export const sessionsCommand = async (edge: Edge, dir: string | undefined, o: { json?: boolean }): Promise<void> => {
  const ctx = contextFor(edge, dir);
  const store = await openStore(ctx);
  const all = await settledChanges(ctx, store, edge.io.err);
  const sessions = await listSessions(ctx, all);
  const current = await currentSession(ctx, all);
  if (o.json) {
    const rows = sessions.map((s) => ({
      ...s,
      lastActive: s.lastActive.toISOString(),
      current: s.session === current,
    }));
    edge.io.out(JSON.stringify({ current: current ?? null, sessions: rows }, null, 2));
    return;
  }
  if (sessions.length === 0) {
    edge.io.out('No agent session has changes recorded here.');
    return;
  }
  const now = ctx.now();
  const agents = [...new Set(sessions.map((s) => s.agent ?? 'agent not recorded'))];
  const lines = [
    `${plural(sessions.length, 'agent session')} changed files here; * marks the one commands act on without --session.`,
  ];
  for (const agent of agents) {
    lines.push('', `${agent}:`);
    for (const s of sessions.filter((x) => (x.agent ?? 'agent not recorded') === agent))
      lines.push(...rowText(s, s.session === current, now));
  }
  const invoke = invokeFor(edge, dir);
  lines.push(
    '',
    `See one with \`${invoke} log --session <id>\`; undo its turn with \`${invoke} rollback --turn <n> --session <id>\`.`,
  );
  edge.io.out(lines.join('\n'));
};
