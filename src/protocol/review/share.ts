// `fettle share`: agent sessions pushed to a remote under the person's own name (core/shared-refs.ts): the
// session's ref, the refs of the changes that landed in it, and with `withPrompts` its prompts, secrets redacted.
// One push with an explicit refspec per ref, to the remote's URL (so no remote-tracking ref moves), atomic, never
// forced: a ref moves only forward from what the remote holds, so nobody's share is overwritten, and git sends
// only the objects the remote lacks, so sharing again sends only what is new.
import { redact } from '../../core/redact';
import { parseSessionCommit, sessionName } from '../../core/session';
import { refComponent, sessionRefs, sharedRoot } from '../../core/shared-refs';
import { FettleError } from '../../errors';
import { GitError } from '../../store/git';
import { writeBlobs, writeCommit } from '../../store/objects';
import { listRefs, listRefTips, REF_PREFIX, type RefRecord, SESSIONS_PREFIX } from '../../store/refs';
import type { Store } from '../../store/store';
import { writeEditedTree } from '../../store/tree-write';
import type { Context } from '../context';
import { promptsOf } from '../turns';
import { remoteTarget } from './review';
import { sessionCommits } from './session-review';

export interface SharedSession {
  /** the agent's session id */
  session: string;
  /** its session ref on the remote */
  ref: string;
  /** changes whose refs went with it */
  changes: number;
  /** prompts shared (null: not shared) and the secrets redacted from them */
  prompts: number | null;
  redacted: number;
  /** false: the remote held all of it already */
  sent: boolean;
}

export interface Shared {
  remote: string;
  url: string;
  who: string;
  sessions: SharedSession[];
}

/** Who shares: `given` (--as), else the person's git identity's email, else their login name. */
export const sharerOf = async (ctx: Context, store: Store, given?: string): Promise<string> => {
  if (given !== undefined) {
    if (refComponent(given) !== given)
      throw new FettleError('E_USAGE', `--as takes a name of letters, digits, '.', '_', '-' or '@', got '${given}'.`);
    return given;
  }
  const config = await store.git.run({ args: ['config', '--get', 'user.email'], okCodes: [1] });
  const email = ctx.env.GIT_AUTHOR_EMAIL || config.stdout.toString('utf8').trim() || ctx.env.EMAIL;
  const who = email || ctx.env.USER || ctx.env.LOGNAME;
  if (!who)
    throw new FettleError('E_USAGE', 'fettle cannot tell whose name to share under.', {
      hint: 'Name yourself with --as <name>, or set your email with `git config --global user.email <address>`.',
    });
  return refComponent(who.trim());
};

/** A session to share: its ref's name and tip, and the raw id its commits carry. */
interface Local {
  name: string;
  tip: string;
  session: string;
  base: string | null;
}

const localSessions = async (store: Store, wanted: string[] | 'all'): Promise<Local[]> => {
  // The tips with their messages in one for-each-ref: each names the raw session id and its base.
  const tips = new Map((await listRefs(store, [SESSIONS_PREFIX])).map((t) => [t.ref.slice(SESSIONS_PREFIX.length), t]));
  const names = wanted === 'all' ? [...tips.keys()] : wanted.map(sessionName);
  const missing = wanted === 'all' ? [] : wanted.filter((s) => !tips.has(sessionName(s)));
  if (missing.length > 0 || names.length === 0)
    throw new FettleError(
      'E_NOT_FOUND',
      missing.length > 0
        ? `No change of session '${missing.join("', '")}' landed in this repository: there is nothing of it to share.`
        : 'No agent session has landed a change in this repository: there is nothing to share.',
      { hint: 'Run `fettle log` to see the sessions of recorded changes.' },
    );
  return names.map((name) => {
    const tip = tips.get(name) as RefRecord;
    const fields = parseSessionCommit(tip.message);
    return { name, tip: tip.oid, session: fields?.session ?? name, base: fields?.base ?? null };
  });
};

/** The session's prompts as one commit (a file of JSON lines, by turn, secrets redacted); null when none are kept. */
const promptsCommit = async (ctx: Context, store: Store, session: string) => {
  const kept = [...(await promptsOf(ctx.config.dataDir, session))].sort(([a], [b]) => a - b);
  if (kept.length === 0) return null;
  let redacted = 0;
  const lines = kept.map(([turn, { prompt, at }]) => {
    const r = redact(prompt);
    redacted += Object.values(r.found).reduce((a, b) => a + b, 0);
    return `${JSON.stringify({ turn, at, prompt: r.text })}\n`;
  });
  const [blob = ''] = await writeBlobs(store, [Buffer.from(lines.join(''), 'utf8')]);
  const tree = await writeEditedTree(store, null, new Map([['prompts.jsonl', { mode: '100644', oid: blob }]]));
  // Dated by its last prompt and made by fettle's fixed identity: the same prompts make the same commit, which a
  // share that finds it on the remote already does not send again.
  const when = new Date(Math.max(0, ...kept.map(([, p]) => p.at)));
  const message = `fettle: the prompts of agent session ${session} (${kept.length}, secrets redacted)\n`;
  return { commit: await writeCommit(store, tree, [], message, when), count: kept.length, redacted };
};

/** What the remote holds under `prefix`, by ref. */
const remoteRefs = async (store: Store, url: string, prefix: string): Promise<Map<string, string>> => {
  const text = await store.git.text({ args: ['ls-remote', '--', url, `${prefix}*`] });
  const refs = new Map<string, string>();
  for (const line of text.split('\n')) {
    const [oid = '', ref = ''] = line.split('\t');
    if (ref.startsWith(prefix)) refs.set(ref, oid);
  }
  return refs;
};

/** The refs one session is shared as: its own, its changes', its prompts'. */
const sessionUpdates = async (
  ctx: Context,
  store: Store,
  s: Local & { root: string; changeTips: Map<string, string>; withPrompts: boolean },
) => {
  const refs = sessionRefs(s.root, s.name);
  const updates = [{ ref: refs.session, oid: s.tip }];
  const ids = new Set((await sessionCommits(store, s.tip, s.base)).map((c) => c.fields.change));
  for (const id of ids) {
    const tip = s.changeTips.get(`${REF_PREFIX}${id}`);
    if (tip) updates.push({ ref: refs.change(id), oid: tip });
  }
  const prompts = s.withPrompts ? await promptsCommit(ctx, store, s.session) : null;
  if (prompts) updates.push({ ref: refs.prompts, oid: prompts.commit });
  const shared = { session: s.session, ref: refs.session, changes: updates.length - (prompts ? 2 : 1) };
  return { updates, shared: { ...shared, prompts: prompts?.count ?? null, redacted: prompts?.redacted ?? 0 } };
};

export const shareSessions = async (
  ctx: Context,
  store: Store,
  o: { remote: string; who?: string | undefined; sessions: string[] | 'all'; withPrompts: boolean },
): Promise<Shared> => {
  // Everything read at once: each is a process of its own, and a share is mostly their start-up.
  const [who, url, locals, changeTips] = await Promise.all([
    sharerOf(ctx, store, o.who),
    remoteTarget(store, o.remote),
    localSessions(store, o.sessions),
    listRefTips(store, [REF_PREFIX]).then((tips) => new Map(tips.map((t) => [t.ref, t.oid]))),
  ]);
  const root = sharedRoot(who);
  const [held, planned] = await Promise.all([
    remoteRefs(store, url, root),
    Promise.all(locals.map((local) => sessionUpdates(ctx, store, { ...local, root, changeTips, ...o }))),
  ]);
  const sessions: SharedSession[] = [];
  const args: string[] = [];
  const specs: string[] = [];
  for (const { updates, shared } of planned) {
    const fresh = updates.filter((u) => held.get(u.ref) !== u.oid);
    for (const u of fresh) {
      // A session's and its changes' refs only grow: a push that is no fast-forward would replace another history
      // shared under the same name, and the remote refuses it. The prompts are one commit, replaced as a whole
      // from the value read: a share of them at the same time is never lost either.
      if (u.ref.endsWith('/prompts')) args.push(`--force-with-lease=${u.ref}:${held.get(u.ref) ?? ''}`);
      specs.push(`${u.oid}:${u.ref}`);
    }
    sessions.push({ ...shared, sent: fresh.length > 0 });
  }
  if (specs.length > 0) await push(store, o.remote, [...args, '--', url, ...specs]);
  return { remote: o.remote, url, who, sessions };
};

/** One atomic push; a ref the remote moved since it was read refuses all of it. */
const push = async (store: Store, remote: string, args: string[]): Promise<void> => {
  const how = ['--atomic', '--no-verify', '--no-follow-tags', '--no-signed', '--recurse-submodules=no', '--quiet'];
  try {
    await store.git.run({ args: ['push', ...how, ...args] });
  } catch (error) {
    if (error instanceof GitError && /stale info|rejected|fetch first|non-fast-forward/i.test(error.stderr))
      throw new FettleError(
        'E_CONFLICT',
        `${remote} holds another history of this session under your name (shared from another clone, or at the same time): nothing was pushed.`,
        {
          cause: error,
          hint: 'Run `fettle fetch` and compare with `fettle review --session <remote>/<you>/<session>`; share under another name with --as <name>.',
        },
      );
    throw error;
  }
};
