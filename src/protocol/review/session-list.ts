// `fettle sessions`: the agent sessions that changed files here, each with its agent, its turn, what it changed
// and what still waits for a decision, and the files it shares with another session: where one session's rollback
// meets another's work (history/later-writers.ts) and where a write is told another session came first.
import type { Change } from '../changes';
import type { Context } from '../context';
import { lastPromptAt, currentTurn } from '../turns';

/** A session counts as live while it prompted or wrote within this long. */
export const LIVE_MS = 30 * 60 * 1000;

export interface SessionSummary {
  session: string;
  /** the agent of its newest change (claude, codex, …, or an MCP client's name); null where none was recorded */
  agent: string | null;
  turn: number | null;
  /** its newest prompt or change */
  lastActive: Date;
  live: boolean;
  /** changes that landed (its own rollbacks included) */
  changes: number;
  /** of them, still in effect */
  inEffect: number;
  /** staged changes waiting for a decision (expired ones included) */
  pending: number;
  /** files it changed that another session changed too, with those sessions */
  shared: { path: string; with: string[] }[];
}

const sharedOf = (own: Change[], all: Change[], session: string): SessionSummary['shared'] => {
  const paths = [...new Set(own.map((c) => c.fields.path))].sort();
  return paths.flatMap((path) => {
    const others = new Set<string>();
    for (const c of all) {
      const s = c.fields.session;
      if (s !== undefined && s !== session && c.fields.path === path && c.state !== 'discarded') others.add(s);
    }
    return others.size === 0 ? [] : [{ path, with: [...others].sort() }];
  });
};

/** Every session with a change listed here, the most recently active first. */
export const listSessions = async (ctx: Context, all: Change[]): Promise<SessionSummary[]> => {
  const by = new Map<string, Change[]>();
  for (const c of all) {
    const s = c.fields.session;
    if (s !== undefined) by.set(s, [...(by.get(s) ?? []), c]);
  }
  const now = ctx.now().getTime();
  const rows: SessionSummary[] = [];
  for (const [session, own] of by) {
    const prompted = await lastPromptAt(ctx.config.dataDir, session);
    const wrote = Math.max(...own.map((c) => c.at.getTime()));
    const lastActive = new Date(Math.max(wrote, prompted?.getTime() ?? 0));
    const landed = own.filter((c) => c.state === 'applied');
    rows.push({
      session,
      agent: own.find((c) => c.fields.agent !== undefined)?.fields.agent ?? null,
      turn: (await currentTurn(ctx.config.dataDir, session)) ?? null,
      lastActive,
      live: now - lastActive.getTime() < LIVE_MS,
      changes: landed.length,
      inEffect: landed.filter((c) => !c.revertedBy && !c.fields.reverts).length,
      pending: own.filter((c) => c.state === 'pending' || c.state === 'expired').length,
      shared: sharedOf(own, all, session),
    });
  }
  return rows.sort((a, b) => b.lastActive.getTime() - a.lastActive.getTime());
};
