// Which agent an MCP client is, from the name it gives in `initialize` (`clientInfo.name`). Exact names only, as
// each real client sends them (read from the pinned clients' own code; Claude Code's and opencode's are also
// checked against the running clients by test/e2e/mcp-config.test.ts and opencode.test.ts): a name that merely
// contains an agent's name ("my-codex-wrapper", "not-claude") is some other client, recorded by its own name.
//   Claude Code 2.1.330: "claude-code"            Codex CLI 0.169.0: "codex-mcp-client"
//   Gemini CLI 0.61.0:   "gemini-cli-mcp-client"  opencode 1.18.33:  "opencode"
//   Cursor:              "cursor-vscode" (its MCP logs; Cursor does not run in fettle's tests)

/** A client's exact `clientInfo.name` -> the agent name fettle's hook adapters record (Fettle-Agent). */
export const MCP_CLIENTS: Readonly<Record<string, string>> = {
  'claude-code': 'claude',
  'codex-mcp-client': 'codex',
  'gemini-cli-mcp-client': 'gemini',
  opencode: 'opencode',
  'cursor-vscode': 'cursor',
};

/** The longest client name kept. */
const MAX_NAME = 64;

/**
 * The agent a client is: a known client's agent name, else its own name, sanitised to one printable line of at
 * most 64 characters (control characters and line breaks become spaces); undefined when nothing is left.
 */
export const agentOfClient = (name: string | undefined): string | undefined => {
  if (name === undefined) return undefined;
  const known = Object.hasOwn(MCP_CLIENTS, name) ? MCP_CLIENTS[name] : undefined;
  if (known) return known;
  const plain = name
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim()
    .slice(0, MAX_NAME)
    .trim();
  return plain === '' ? undefined : plain;
};
