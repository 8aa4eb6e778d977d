// Turns: each user prompt of an agent session starts one (Claude Code's UserPromptSubmit). The count lives in a
// small file per session in fettle's data directory (not in any repository: one session may write to several),
// and every change records the turn it was made in (`Fettle-Turn`), so `fettle log --session` groups by turn and
// `fettle rollback --turn <n>` undoes what the session did since turn n began. Counting a turn is a read and a
// rename: no git process, whatever the session did.
import { readFileSync } from 'node:fs';
import { appendFile, readFile, stat } from 'node:fs/promises';
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

/** The prompts kept, one JSON line per turn, capped: what the review page's timeline shows. */
const promptFile = (dataDir: string, session: string): string => `${turnFile(dataDir, session)}.prompts`;
const PROMPT_CHARS = 4000;

/**
 * A prompt was submitted: the session's next turn starts. Returns its number (the first prompt starts turn 1).
 * The prompt's text is kept beside the count, in fettle's data directory only (no repository, no remote).
 */
export const startTurn = async (
  dataDir: string,
  session: string,
  said?: { prompt: string; at: Date; transcript?: string | undefined },
): Promise<number> => {
  const next = ((await currentTurn(dataDir, session)) ?? 0) + 1;
  const path = turnFile(dataDir, session);
  await makeOwnDir(turnsDir(dataDir));
  await swapFile(path, `${next}\n`);
  if (said !== undefined) {
    const { prompt } = said;
    const text = prompt.length > PROMPT_CHARS ? `${prompt.slice(0, PROMPT_CHARS)}…` : prompt;
    // The client's transcript, where it sends its path: `fettle rewind` finds there where the turn began.
    const where = said.transcript === undefined ? {} : { transcript: said.transcript };
    const line = `${JSON.stringify({ turn: next, at: said.at.getTime(), prompt: text, ...where })}\n`;
    // A lost prompt costs the timeline a line, never the turn: its count is written first.
    await appendFile(promptFile(dataDir, session), line, { mode: 0o600 }).catch(() => undefined);
  }
  return next;
};

export interface KeptPrompt {
  prompt: string;
  at: number;
  /** the client's transcript of the session, where the client sent its path */
  transcript?: string;
}

/** The session's kept prompts by turn (the last one kept for a turn counted twice). */
export const promptsOf = async (dataDir: string, session: string): Promise<Map<number, KeptPrompt>> => {
  const text = await readFile(promptFile(dataDir, session), 'utf8').catch(() => '');
  const prompts = new Map<number, KeptPrompt>();
  for (const line of text.split('\n')) {
    try {
      const p = JSON.parse(line) as { turn?: unknown; prompt?: unknown; at?: unknown; transcript?: unknown };
      const transcript = typeof p.transcript === 'string' ? { transcript: p.transcript } : {};
      if (typeof p.turn === 'number' && typeof p.prompt === 'string')
        prompts.set(p.turn, { prompt: p.prompt, at: typeof p.at === 'number' ? p.at : 0, ...transcript });
    } catch {
      // a torn last line, or none
    }
  }
  return prompts;
};

/** When the session's last prompt was counted (its count file was replaced then); undefined: none was. */
export const lastPromptAt = async (dataDir: string, session: string): Promise<Date | undefined> =>
  stat(turnFile(dataDir, session)).then(
    (s) => s.mtime,
    () => undefined,
  );

/**
 * Of `sessions`, the one whose last prompt is newest: the session a person is working with. Undefined when none
 * of them had a prompt counted (an MCP server's session, a hand-fed payload).
 */
export const lastPrompted = async (dataDir: string, sessions: Iterable<string>): Promise<string | undefined> => {
  let best: { session: string; at: number } | undefined;
  for (const session of new Set(sessions)) {
    const at = (await lastPromptAt(dataDir, session))?.getTime();
    if (at !== undefined && (best === undefined || at > best.at)) best = { session, at };
  }
  return best?.session;
};
