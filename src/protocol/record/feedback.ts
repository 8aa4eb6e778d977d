// A person's feedback to an agent session: kept in git, and delivered once.
//   - The record: a commit per decision set on refs/fettle/feedback/<session>, each on the one before; its tree
//     holds feedback.json (the items, the decisions), its message the text the agent reads, with one
//     `Fettle-Feedback-For` trailer per change, so `fettle show <id>` and `git log` find it.
//   - The delivery: the same text queued in fettle's data directory under the session's name (no repository: a
//     hook of the session finds it without git), taken by the session's next hook call that can carry context
//     (a prompt, a tool's result) or MCP call, by renaming it (record/call-files.ts), so exactly one reads it.
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DecisionNote, FeedbackItem } from '../../core/feedback';
import { sessionName } from '../../core/session';
import { makeOwnDir } from '../../io/fettle-dir';
import { type CommitSpec, commitId, writeRecord } from '../../store/objects';
import type { Written } from '../../store/publish';
import { listRefs, REF_PREFIX, type RefUpdate } from '../../store/refs';
import type { Store } from '../../store/store';
import { encodeSorted, hashObject, type NewTree } from '../../store/tree-codec';
import { type ClaimedFile, claimFile, openFiles } from './call-files';

export const FEEDBACK_PREFIX = `${REF_PREFIX}feedback/`;
export const feedbackRef = (session: string): string => `${FEEDBACK_PREFIX}${sessionName(session)}`;

export interface FeedbackRecord {
  session: string;
  decisions: DecisionNote[];
  items: FeedbackItem[];
  /** what the agent reads */
  text: string;
}

/** The session's feedback commit, written, and the ref update that adds it (compare-and-swap on the tip read). */
export const feedbackUpdate = async (
  store: Store,
  record: FeedbackRecord,
  when: Date,
): Promise<{ update: RefUpdate; written: Written; commit: string }> => {
  const ref = feedbackRef(record.session);
  const [tip] = await listRefs(store, [ref]);
  const json = Buffer.from(`${JSON.stringify({ decisions: record.decisions, items: record.items }, null, 2)}\n`);
  const blob = hashObject('blob', json, store.objectFormat);
  const body = encodeSorted([{ mode: '100644', name: Buffer.from('feedback.json'), oid: blob }]);
  const tree: NewTree = { oid: hashObject('tree', body, store.objectFormat), body, depth: 0 };
  const ids = [...new Set([...record.decisions, ...record.items].map((x) => x.change))];
  const message = [
    `fettle: feedback to session ${record.session} on ${ids.join(' ')}`,
    '',
    record.text,
    '',
    `Fettle-Session: ${record.session}`,
    ...ids.map((id) => `Fettle-Feedback-For: ${id}`),
    '',
  ].join('\n');
  const spec: CommitSpec = { tree: tree.oid, parents: tip ? [tip.oid] : [], message, when };
  const write = () => writeRecord(store, { blobs: [{ bytes: json, oid: blob }], trees: [tree], commits: [spec] });
  await write();
  const commit = commitId(store, spec);
  const update: RefUpdate = tip ? { op: 'update', ref, oid: commit, old: tip.oid } : { op: 'create', ref, oid: commit };
  return { update, commit, written: { oids: [blob, tree.oid, commit], rewrite: async () => void (await write()) } };
};

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

/** The feedback commits that name `change`, newest first: what `fettle show` prints under it. */
export const feedbackFor = async (store: Store, change: string): Promise<{ text: string; time: number }[]> => {
  const { stdout } = await store.git.run({
    args: ['log', '--format=%ct%x00%B%x01', `--glob=${FEEDBACK_PREFIX}*`, `--grep=^Fettle-Feedback-For: ${change}$`],
    okCodes: [0, 128],
  });
  return stdout
    .toString('utf8')
    .split('\x01')
    .map((chunk) => chunk.replace(/^\n/, ''))
    .filter((chunk) => chunk.includes('\0'))
    .map((chunk) => {
      const [time = '0', message = ''] = chunk.split('\0');
      const body = message.split('\n\n').slice(1, -1).join('\n\n').trim();
      return { text: body, time: Number(time) };
    });
};
