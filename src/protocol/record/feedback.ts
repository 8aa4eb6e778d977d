// A person's feedback to an agent session: kept in git, and delivered once.
//   - The record: a commit per decision set on refs/fettle/feedback/<session>, each on the one before; its tree
//     holds feedback.json (the items, the decisions), its message the text the agent reads, with one
//     `Fettle-Feedback-For` trailer per change, so `fettle show <id>` and `git log` find it.
//   - The delivery: the same text queued for the session (feedback-queue.ts).
import type { DecisionNote, FeedbackItem } from '../../core/feedback';
import { sessionName } from '../../core/session';
import { type CommitSpec, commitId, writeRecord } from '../../store/objects';
import type { Written } from '../../store/publish';
import { listRefs, REF_PREFIX, type RefUpdate } from '../../store/refs';
import type { Store } from '../../store/store';
import { encodeSorted, hashObject, type NewTree } from '../../store/tree-codec';

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
