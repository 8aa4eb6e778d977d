// Turns: each user prompt of an agent session starts one (Claude Code's UserPromptSubmit). The count lives in a
// small file per session in fettle's data directory (not in any repository: one session may write to several),
// and every change records the turn it was made in (`Fettle-Turn`), so `fettle log --session` groups by turn and
// `fettle rollback --turn <n>` undoes what the session did since turn n began. Counting a turn is a read and a
// rename: no git process, whatever the session did.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sessionName } from '../core/session';
import { makeOwnDir } from '../io/fettle-dir';
import { swapFile } from '../io/swap-file';

export const turnsDir = (dataDir: string): string => join(dataDir, 'turns');

const turnFile = (dataDir: string, session: string): string => join(turnsDir(dataDir), sessionName(session));

/** The session's current turn; undefined before its first prompt was counted (or fettle was installed mid-session). */
export const currentTurn = async (dataDir: string, session: string | undefined): Promise<number | undefined> => {
  if (session === undefined) return undefined;
  let text = '';
  // A few bytes, read on every write: synchronously, which costs microseconds where the thread pool's four round
  // trips (open, stat, read, close) cost a fifth of a millisecond.
  try {
    text = readFileSync(turnFile(dataDir, session), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  const turn = /^(\d{1,9})\n?$/.exec(text)?.[1];
  return turn === undefined ? undefined : Number(turn);
};

/** A prompt was submitted: the session's next turn starts. Returns its number (the first prompt starts turn 1). */
export const startTurn = async (dataDir: string, session: string): Promise<number> => {
  const next = ((await currentTurn(dataDir, session)) ?? 0) + 1;
  const path = turnFile(dataDir, session);
  await makeOwnDir(turnsDir(dataDir));
  await swapFile(path, `${next}\n`);
  return next;
};
