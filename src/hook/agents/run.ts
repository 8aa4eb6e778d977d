// The hook of an agent other than Claude Code: its adapter turns the agent's input into the write protocol's
// neutral calls and renders the answer in the agent's dialect. Only the agents bundle holds this (process.ts).
import type { AgentName } from '../../core/agents';
import type { HookEdge } from '../edge';
import type { HookOutcome } from '../outcome';
import type { Obj } from '../payload';
import { runCodex } from './codex';
import { runCursor } from './cursor';
import { runGemini } from './gemini';
import { runOpencode } from './opencode';

export const runAgentHook = (
  agent: Exclude<AgentName, 'claude'> | 'opencode',
  data: Obj,
  edge: HookEdge,
): Promise<HookOutcome> =>
  agent === 'codex'
    ? runCodex(data, edge)
    : agent === 'gemini'
      ? runGemini(data, edge)
      : agent === 'opencode'
        ? runOpencode(data, edge)
        : runCursor(data, edge);
