// Delivering a person's feedback to an agent session, once: the text queued in fettle's data directory under the
// session's name (no repository: a hook of the session finds it with one readdir, no git), and taken by the
// session's next hook call that can carry context (a prompt, a tool's result) or MCP call, by renaming it
// (call-files.ts), so exactly one call reads it. The record itself is feedback.ts's.
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sessionName } from '../../core/session';
import { makeOwnDir } from '../../io/fettle-dir';
import { type ClaimedFile, claimFile, openFiles } from './call-files';

const queueDir = (dataDir: string, session: string): string => join(dataDir, 'feedback', sessionName(session));

/** Queues the text for the session's next hook or MCP call; `commit` names it, so a retry queues it once. */
export const queueFeedback = async (dataDir: string, session: string, commit: string, text: string) => {
  await makeOwnDir(queueDir(dataDir, session));
  await writeFile(join(queueDir(dataDir, session), `${commit}.json`), JSON.stringify({ text }), { mode: 0o600 });
};

const isQueued = (v: unknown): v is { text: string } =>
  typeof v === 'object' && v !== null && typeof (v as { text?: unknown }).text === 'string';

/**
 * The session's queued feedback, taken: its texts, oldest first, and `release` once the agent has been given them
 * (a process that dies before that leaves them to the next call). Null when there is none: one readdir, no git.
 */
export const takeFeedback = async (
  dataDir: string,
  session: string | undefined,
): Promise<{ text: string; release: () => Promise<void> } | null> => {
  if (!session) return null;
  const dir = queueDir(dataDir, session);
  const names = await readdir(dir).catch(() => [] as string[]);
  if (!names.some((n) => n.endsWith('.json'))) return null;
  const found = (await openFiles(dir, () => true)).sort((a, b) => a.writtenAt - b.writtenAt);
  const taken: ClaimedFile<{ text: string }>[] = [];
  for (const f of found) {
    const claimed = await claimFile(f.path, isQueued);
    if (claimed) taken.push(claimed);
  }
  if (taken.length === 0) return null;
  return {
    text: taken.map((t) => t.value.text).join('\n\n'),
    release: async () => {
      for (const t of taken) await t.release();
    },
  };
};
