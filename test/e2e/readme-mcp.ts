// docs/AGENTS.md's table of MCP configurations (linked from the README), one row per agent: the code spans of a
// row, in order.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const README = readFileSync(join(__dirname, '..', '..', 'docs', 'AGENTS.md'), 'utf8');

export const readmeMcpRow = (agent: string): string[] => {
  const row = README.split('\n').find((line) => line.startsWith(`| ${agent} | `));
  if (!row) throw new Error(`docs/AGENTS.md has no MCP configuration row for ${agent}`);
  return [...row.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
};
