// The hook of the other agents, a bundle of its own (dist/agents.js): Claude Code's hook process with the agents'
// adapters. cli.ts loads it for `fettle hook --agent <name>` (which `install --agent` writes) when the name is not
// claude, so the bundle every Claude Code write loads (dist/hook.js) carries none of their code.
import { runHookProcess as runHook } from '../process';

export { autostartServer } from '../process';
import { runAgentHook } from './run';

export const runHookProcess = (agent?: string, _adapters?: undefined, read?: () => Promise<Buffer>): Promise<void> =>
  runHook(agent, runAgentHook, read);
