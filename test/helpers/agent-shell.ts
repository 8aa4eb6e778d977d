// The shell scenario every agent's adapter is tested with (hand-fed payloads in test/hook/agents/): a repository
// with a file dirty before the session, a first command that edits with `sed -i`, removes and creates files, a
// second one in a subdirectory in the next turn, and the tree's bytes to compare after `rollback --turn 1`.
import { existsSync, readFileSync } from 'node:fs';
import { runCli } from './cli';
import { lines, makeRepo, type Repo } from './repo';

export const FIRST = "sed -i 's/line 3/LINE 3/' a.txt && rm b.txt && printf 'made by the command\\n' > c.txt";
export const SECOND = "printf 'in sub\\n' > here.txt";
const PATHS = ['a.txt', 'b.txt', 'c.txt', 'sub/k.txt', 'sub/here.txt'];

/** a.txt and b.txt committed, a.txt changed since (bytes that exist nowhere else), sub/k.txt. */
export const shellRepo = (): Repo => {
  const repo = makeRepo({ 'a.txt': lines(30), 'b.txt': lines(30), 'sub/k.txt': 'k\n' });
  repo.write('a.txt', `${lines(30)}dirty before the session\n`);
  return repo;
};

/** Every file the scenario touches: its bytes (hex), or absent. */
export const treeOf = (repo: Repo): Record<string, string> =>
  Object.fromEntries(
    PATHS.map((p) => [p, existsSync(repo.path(p)) ? readFileSync(repo.path(p)).toString('hex') : 'absent']),
  );

export interface ShellRow {
  path: string;
  reason: string | null;
  tool: string | null;
  agent?: string;
  command: string | null;
  changeset: string | null;
  session: string | null;
  turn?: number;
}

/** The records of shell commands, as `fettle log --json` lists them: `path reason tool agent session turn`. */
export const shellRows = (repo: Repo): string[] =>
  (JSON.parse(runCli(['log', '--json'], { cwd: repo.dir, env: repo.env }).stdout).changes as ShellRow[])
    .filter((r) => r.command !== null)
    .map((r) => `${r.path} ${r.reason} ${r.tool} ${r.agent} ${r.session} ${r.turn}`)
    .sort();

/** The line's changeset (`rollback <id>` ends it). */
export const changesetIn = (line: string | undefined): string | undefined =>
  /rollback ([0-9a-z]{8})$/.exec(line ?? '')?.[1];
