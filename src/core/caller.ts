// Who runs a command that decides a change: a person, an agent, or a process fettle cannot tell from the agent's.
// Pure: the edge gathers the signals (the environment, the processes above this one, whether stdin and stdout are a
// terminal) and this decides. A person's command carries no agent's mark in its environment, has no agent's
// process above it, and has a terminal on stdin and stdout; an agent's shell tool gives its commands none. Each
// signal alone is easy to drop (`env -u CLAUDECODE`, `script` for a terminal); passing all three takes a process
// that leaves the agent's process tree and runs fettle in a terminal it makes (the README's non-guarantees).

/** A process above this one, as the system lists it. */
export interface ProcessInfo {
  pid: number;
  /** the name the kernel keeps for it (Linux's comm; empty where unknown) */
  name: string;
  /** its command line (on macOS split on spaces: a path with spaces is cut, which the checks here allow for) */
  argv: readonly string[];
}

export interface CallerSignals {
  env: Readonly<Record<string, string | undefined>>;
  /** the processes above this one, parent first; null where the system does not say */
  ancestors: readonly ProcessInfo[] | null;
  /** stdin and stdout are both a terminal */
  terminal: boolean;
}

/**
 * `via` ends the sentence "this command runs …": `in Claude Code's shell (CLAUDECODE=1)`, `under Claude Code
 * (process 4242, claude)`, `as a tool call of the MCP client claude`. `why` ends "this command …" for a command
 * that shows no agent and is not a person's either.
 */
export type Caller = { who: 'person' } | { who: 'agent'; agent: string; via: string } | { who: 'unknown'; why: string };

interface Agent {
  agent: string;
  /** what it sets in the environment of the commands it runs: a variable and its value, '*' for any */
  marks: [variable: string, value: string][];
  /** its executable's names (a process title, the name it is run by) */
  names: string[];
  /** a directory its script lives in, when a runtime (node, bun) runs it */
  packages: string[];
}

const AGENTS: Agent[] = [
  { agent: 'Claude Code', marks: [['CLAUDECODE', '1']], names: ['claude'], packages: ['@anthropic-ai/claude-code'] },
  {
    agent: 'Codex',
    marks: [
      ['CODEX_SANDBOX', '*'],
      ['CODEX_SANDBOX_NETWORK_DISABLED', '1'],
      ['CODEX_CI', '1'],
    ],
    names: ['codex'],
    packages: ['@openai/codex'],
  },
  { agent: 'Gemini CLI', marks: [['GEMINI_CLI', '1']], names: ['gemini'], packages: ['@google/gemini-cli'] },
  { agent: 'opencode', marks: [['OPENCODE', '1']], names: ['opencode'], packages: ['opencode-ai'] },
  {
    agent: 'Cursor',
    marks: [['CURSOR_AGENT', '1']],
    names: ['cursor-agent'],
    packages: ['cursor-agent', '@cursor/agent'],
  },
];

/** The runtimes an agent's script may run under: its package directory names it then. */
const RUNTIMES = /^(node|nodejs|bun|deno)(\d+(\.\d+)*)?$/;

const base = (path: string): string =>
  (path.split(/[/\\]/).pop() ?? '').toLowerCase().replace(/\.(exe|js|cjs|mjs)$/, '');

/** The agent whose mark this environment carries, and the mark as set (`CLAUDECODE=1`). */
export const markedAgent = (env: CallerSignals['env']): { agent: string; mark: string } | null => {
  for (const a of AGENTS)
    for (const [variable, value] of a.marks) {
      const set = env[variable];
      if (set !== undefined && set !== '' && (value === '*' || set === value))
        return { agent: a.agent, mark: `${variable}=${set}` };
    }
  return null;
};

/** The agent a process is: by its name, the name it was run by, or the package of the script a runtime runs. */
export const agentProcess = (p: ProcessInfo): string | null => {
  const [first = '', ...rest] = p.argv;
  const names = [base(p.name), base(first)];
  const script = RUNTIMES.test(names[0] as string) || RUNTIMES.test(names[1] as string);
  const path = script ? (rest.find((w) => !w.startsWith('-')) ?? '') : '';
  const dirs = `/${path.replace(/\\/g, '/')}`;
  for (const a of AGENTS) {
    if (a.names.some((n) => names.includes(n))) return a.agent;
    if (path !== '' && a.packages.some((pkg) => dirs.includes(`/${pkg}/`))) return a.agent;
  }
  return null;
};

/**
 * Who runs this command (see the file comment); the first sign of an agent decides. Where the processes above
 * cannot be read, nothing is a person's: the check that would have caught a detached agent's `env -u` is missing.
 */
export const callerOf = (s: CallerSignals): Caller => {
  const marked = markedAgent(s.env);
  if (marked) return { who: 'agent', agent: marked.agent, via: `in ${marked.agent}'s shell (${marked.mark})` };
  for (const p of s.ancestors ?? []) {
    const agent = agentProcess(p);
    const name = p.name || base(p.argv[0] ?? '') || '?';
    if (agent) return { who: 'agent', agent, via: `under ${agent} (process ${p.pid}, ${name})` };
  }
  if (s.ancestors === null) return { who: 'unknown', why: 'cannot see the processes it runs under' };
  if (!s.terminal) return { who: 'unknown', why: 'has no terminal on stdin and stdout' };
  return { who: 'person' };
};

/** The Fettle-Decided-By of what a caller decides: `person`, `model`, or `script` (no person or agent seen). */
export const deciderOf = (c: Caller): 'person' | 'model' | 'script' =>
  c.who === 'person' ? 'person' : c.who === 'agent' ? 'model' : 'script';

/** Why a caller is not a person, as the end of "…, and this command …". */
export const notAPerson = (c: Exclude<Caller, { who: 'person' }>): string =>
  c.who === 'agent' ? `runs ${c.via}` : `${c.why}, so fettle cannot tell it from an agent's`;
