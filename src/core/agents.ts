// The coding agents fettle is installed into, by the name `--agent` takes and records carry (`Fettle-Agent`).

export const AGENTS = ['claude', 'codex', 'gemini', 'cursor'] as const;
export type AgentName = (typeof AGENTS)[number];

export const isAgent = (name: unknown): name is AgentName => AGENTS.some((a) => a === name);

/** How each agent is called in what fettle prints. */
export const AGENT_TITLES: Record<AgentName, string> = {
  claude: 'Claude Code',
  codex: 'Codex CLI',
  gemini: 'Gemini CLI',
  cursor: 'Cursor',
};
