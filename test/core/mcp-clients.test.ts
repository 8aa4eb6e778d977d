// MCP client names to agents: exact names from the real clients; anything else kept as given, sanitised.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentOfClient } from '../../src/core/mcp-clients';

const CASES: [string | undefined, string | undefined][] = [
  ['claude-code', 'claude'],
  ['codex-mcp-client', 'codex'],
  ['gemini-cli-mcp-client', 'gemini'],
  ['opencode', 'opencode'],
  ['cursor-vscode', 'cursor'],
  ['my-codex-wrapper', 'my-codex-wrapper'],
  ['not-claude', 'not-claude'],
  ['Claude-Code', 'Claude-Code'],
  ['opencode-debug', 'opencode-debug'],
  ['gemini', 'gemini'],
  ['toString', 'toString'],
  ['__proto__', '__proto__'],
  ['  spaced  ', 'spaced'],
  ['two\nlines\r\nhere', 'two lines here'],
  ['bell\u0007and\u0000nul', 'bell and nul'],
  ['sep\u2028arated', 'sep arated'],
  ['x'.repeat(100), 'x'.repeat(64)],
  ['\n\t ', undefined],
  ['', undefined],
  [undefined, undefined],
];

test('agentOfClient: each case on one line', () => {
  for (const [name, agent] of CASES) assert.equal(agentOfClient(name), agent, JSON.stringify(name));
});
