// A Claude Code session of two turns fed hook by hook, with a transcript in the client's shapes: what the
// `fettle rewind` tests start from.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentWrite, runCli, runHook } from './cli';
import { makeRepo, type Repo } from './repo';

export const S = 'sess-rewind-1';
export const A0 = 'line 1\nline 2\n';
export const A1 = 'line 1\nLINE 2\n';
export const A2 = 'ONE\nLINE 2\n';

const record = (repo: Repo, version: string) => {
  const base = { sessionId: S, version, cwd: repo.dir, isSidechain: false };
  const user = (uuid: string, parentUuid: string | null, content: unknown) => ({
    ...base,
    type: 'user',
    uuid,
    parentUuid,
    message: { role: 'user', content },
  });
  const answer = (uuid: string, parentUuid: string) => ({
    ...base,
    type: 'assistant',
    uuid,
    parentUuid,
    message: { role: 'assistant', content: [] },
  });
  return [user('p1', null, 'one'), answer('a1', 'p1'), user('p2', 'a1', 'two'), answer('a2', 'p2')]
    .map((r) => JSON.stringify(r))
    .join('\n');
};

/** Two turns of session S: turn 1 edits a.txt, turn 2 edits it again and creates b.txt. */
export const twoTurns = (version = '2.1.330') => {
  const repo = makeRepo({ 'a.txt': A0 });
  const transcript = join(repo.home, 'transcript.jsonl');
  writeFileSync(transcript, record(repo, version));
  const env = repo.env;
  const write = (file: string, content: string) => writeFileSync(file, content);
  const turn = (prompt: string) =>
    runHook(
      { session_id: S, transcript_path: transcript, cwd: repo.dir, hook_event_name: 'UserPromptSubmit', prompt },
      { cwd: repo.dir, env },
    );
  turn('one');
  agentWrite({ file: repo.path('a.txt'), content: A1, cwd: repo.dir, session: S, toolUseId: 't1' }, env, write);
  turn('two');
  agentWrite({ file: repo.path('a.txt'), content: A2, cwd: repo.dir, session: S, toolUseId: 't2' }, env, write);
  agentWrite({ file: repo.path('b.txt'), content: 'new\n', cwd: repo.dir, session: S, toolUseId: 't3' }, env, write);
  return repo;
};

export const rewind = (repo: Repo, ...args: string[]) => runCli(['rewind', ...args], { cwd: repo.dir, env: repo.env });
export const files = (repo: Repo) => [
  repo.read('a.txt').toString(),
  repo.git('status', '--short', '--', 'b.txt').trim(),
];
export const LATER = [A2, '?? b.txt'];
