// The hook of an agent other than Claude Code: its adapter turns the agent's input into the write protocol's
// neutral calls and renders the answer in the agent's dialect. An input no adapter understands fails open: the
// tool call goes ahead, unprotected, and one line says so (exit 1: a non-blocking error to every agent here).
import { AGENTS, AGENT_TITLES, type AgentName } from '../../core/agents';
import type { HookEdge } from '../edge';
import { warn, type HookOutcome } from '../outcome';
import type { Obj } from '../payload';
import { runCodex } from './codex';
import { runCursor } from './cursor';
import { runGemini } from './gemini';

export const runAgentHook = (agent: Exclude<AgentName, 'claude'>, data: Obj, edge: HookEdge): Promise<HookOutcome> =>
  agent === 'codex' ? runCodex(data, edge) : agent === 'gemini' ? runGemini(data, edge) : runCursor(data, edge);

const KNOWN = AGENTS.map((a) => AGENT_TITLES[a]).join(', ');

export const unknownAgent = (data: Obj, explicit: string | undefined): HookOutcome => {
  if (explicit !== undefined)
    return warn(
      `fettle: --agent ${explicit} names no agent fettle knows (${AGENTS.join(', ')}); this tool call was not protected by fettle.`,
    );
  const name = data.hook_event_name;
  const event = typeof name === 'string' ? JSON.stringify(name.slice(0, 80)) : 'none';
  return warn(
    `fettle: this hook input comes from no agent fettle knows (hook_event_name ${event}; it knows ${KNOWN}); this tool call was not protected by fettle.`,
  );
};
