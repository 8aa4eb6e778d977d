// A commit's attribution as an Agent Trace record (the open format at agent-trace.dev, spec version 0.1.0): per
// file, one conversation per agent session, its line ranges at the commit. The spec has no field for the agent,
// its turns or fettle's change ids: they go under `metadata["dev.fettle"]`, by file and conversation in the same
// order. The record's id is derived from the commit, so exporting a commit twice gives the same record.
import { createHash } from 'node:crypto';
import { type AgentOrigin, toRanges } from './attribution';
import type { Attribution } from './attribution-note';

export const AGENT_TRACE_VERSION = '0.1.0';

export interface TraceRange {
  start_line: number;
  end_line: number;
}

export interface TraceConversation {
  contributor: { type: 'ai' };
  ranges: TraceRange[];
  related?: { type: string; url: string }[];
}

export interface TraceRecord {
  version: string;
  id: string;
  timestamp: string;
  vcs: { type: 'git'; revision: string };
  tool: { name: string; version: string };
  files: { path: string; conversations: TraceConversation[] }[];
  metadata: Record<string, unknown>;
}

/** A UUID (in the shape of version 5) from the revision: stable across exports. */
const uuidOf = (revision: string): string => {
  const h = createHash('sha256').update(`fettle agent-trace ${revision}`).digest('hex');
  const variant = ((Number.parseInt(h[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

interface Conversation {
  agent: string;
  session: string | undefined;
  numbers: number[];
  turns: Set<number>;
  tools: Set<string>;
  changes: Set<string>;
}

const conversationsOf = (lines: Map<number, AgentOrigin>): Conversation[] => {
  const out: Conversation[] = [];
  for (const [n, o] of [...lines].sort((a, b) => a[0] - b[0])) {
    let c = out.find((x) => x.agent === o.agent && x.session === o.session);
    if (!c) {
      c = { agent: o.agent, session: o.session, numbers: [], turns: new Set(), tools: new Set(), changes: new Set() };
      out.push(c);
    }
    c.numbers.push(n);
    if (o.turn !== undefined) c.turns.add(o.turn);
    if (o.tool !== undefined) c.tools.add(o.tool);
    c.changes.add(o.change);
  }
  return out;
};

/** A URI naming a session without claiming a server for it (the spec's `related` needs a URI). */
const sessionUrn = (agent: string, session: string): string =>
  `urn:fettle:session:${encodeURIComponent(agent)}:${encodeURIComponent(session)}`;

export const traceRecord = (o: {
  revision: string;
  /** when the commit was made (RFC 3339) */
  timestamp: string;
  attribution: Attribution;
  fettleVersion: string;
}): TraceRecord => {
  const files: TraceRecord['files'] = [];
  const details: unknown[] = [];
  for (const path of [...o.attribution.keys()].sort()) {
    const conversations = conversationsOf(o.attribution.get(path) ?? new Map());
    if (conversations.length === 0) continue;
    files.push({
      path,
      conversations: conversations.map((c) => ({
        contributor: { type: 'ai' as const },
        ranges: toRanges(c.numbers).map(([start_line, end_line]) => ({ start_line, end_line })),
        ...(c.session === undefined ? {} : { related: [{ type: 'session', url: sessionUrn(c.agent, c.session) }] }),
      })),
    });
    details.push({
      path,
      conversations: conversations.map((c) => ({
        agent: c.agent,
        session: c.session ?? null,
        turns: [...c.turns].sort((a, b) => a - b),
        tools: [...c.tools].sort(),
        changes: [...c.changes].sort(),
      })),
    });
  }
  return {
    version: AGENT_TRACE_VERSION,
    id: uuidOf(o.revision),
    timestamp: o.timestamp,
    vcs: { type: 'git', revision: o.revision },
    tool: { name: 'fettle', version: o.fettleVersion },
    files,
    metadata: { 'dev.fettle': { files: details } },
  };
};
