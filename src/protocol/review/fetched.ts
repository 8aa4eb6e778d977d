// `fettle fetch`: teammates' shared sessions brought from a remote into refs/fettle/remotes/<remote>/ (one refspec
// naming that namespace alone, from the remote's URL: the person's branches, remote-tracking refs and FETCH_HEAD
// stay as they were), and read back: a fetched session's ref for `review --session`, its prompts for the page.
// What is fetched is only ever read; nothing of it is a change of this repository (changes.ts).
import { sessionName } from '../../core/session';
import { FETCHED_PREFIX, fetchedName, fetchRefspec, parseFetchedRef, refComponent } from '../../core/shared-refs';
import { FettleError } from '../../errors';
import { readObjects } from '../../store/object-read';
import { type Change, listFetchedChanges } from '../changes';
import type { Context } from '../context';
import { sessionRef } from '../record/session-ref';
import { listRefTips } from '../../store/refs';
import type { Store } from '../../store/store';

export interface FetchedSession {
  /** `<remote>/<who>/<session>`, as `review --session` takes it */
  name: string;
  who: string;
  session: string;
  state: 'new' | 'updated';
}

export interface Fetched {
  remote: string;
  url: string;
  /** sessions new or changed since the last fetch */
  sessions: FetchedSession[];
  /** sessions fetched from this remote in all */
  total: number;
}

/** A remote's name and URL: a configured remote keeps its name; a URL or path is named by a ref component of it. */
const remoteOf = async (store: Store, remote: string): Promise<{ name: string; url: string }> => {
  if (remote.startsWith('-')) throw new FettleError('E_USAGE', `'${remote}' is not a remote.`);
  const { code, stdout } = await store.git.run({ args: ['remote', 'get-url', remote], okCodes: [2, 128] });
  const url = code === 0 ? stdout.toString('utf8').trim() : remote;
  if (url.startsWith('-'))
    throw new FettleError('E_USAGE', `remote '${remote}' has the URL '${url}', which git would read as an option.`, {
      hint: 'Check it with `git remote -v`, or fetch from a URL or path given directly.',
    });
  const name = code === 0 && refComponent(remote) === remote ? remote : refComponent(remote);
  return { name, url };
};

const sessionTips = async (store: Store, prefix: string): Promise<Map<string, string>> =>
  new Map(
    (await listRefTips(store, [prefix]))
      .filter((t) => parseFetchedRef(t.ref)?.kind === 'session')
      .map((t) => [t.ref, t.oid]),
  );

export const fetchShared = async (store: Store, remote: string): Promise<Fetched> => {
  const { name, url } = await remoteOf(store, remote);
  const prefix = `${FETCHED_PREFIX}${name}/`;
  const before = await sessionTips(store, prefix);
  const how = ['--no-tags', '--no-write-fetch-head', '--recurse-submodules=no', '--no-auto-gc', '--quiet'];
  await store.git.run({ args: ['fetch', ...how, '--no-auto-maintenance', '--', url, fetchRefspec(name)] });
  const after = await sessionTips(store, prefix);
  const sessions: FetchedSession[] = [];
  for (const [ref, oid] of after) {
    const at = before.get(ref);
    if (at === oid) continue;
    const r = parseFetchedRef(ref);
    if (r) sessions.push({ name: fetchedName(r), who: r.who, session: r.session, state: at ? 'updated' : 'new' });
  }
  return { remote: name, url, sessions, total: after.size };
};

/**
 * The fetched session `name` names (`<remote>/<who>/<session>`, or a session id fetched from one remote and one
 * person alone); null when none was fetched. Two of the same id are named in full.
 */
export const fetchedSessionRef = async (store: Store, name: string): Promise<string | null> => {
  const refs = [...(await sessionTips(store, FETCHED_PREFIX)).keys()];
  const matches = refs.filter((ref) => {
    const r = parseFetchedRef(ref);
    return r !== null && (name.includes('/') ? fetchedName(r) === name : r.session === sessionName(name));
  });
  if (matches.length > 1) {
    const names = matches.map((ref) =>
      fetchedName(parseFetchedRef(ref) as NonNullable<ReturnType<typeof parseFetchedRef>>),
    );
    throw new FettleError('E_USAGE', `Session '${name}' was fetched more than once: ${names.join(', ')}.`, {
      hint: 'Name one in full: `fettle review --session <remote>/<who>/<session>`.',
    });
  }
  return matches[0] ?? null;
};

/** The prompts shared with a fetched session, by turn (none when they were not shared). */
export const fetchedPrompts = async (
  store: Store,
  sessionRef: string,
): Promise<Map<number, { prompt: string; at: number }>> => {
  const prompts = new Map<number, { prompt: string; at: number }>();
  const ref = sessionRef.replace(/\/session$/, '/prompts');
  const [blob] = await readObjects(store, [`${ref}:prompts.jsonl`]);
  if (blob?.type !== 'blob') return prompts;
  for (const line of blob.body.toString('utf8').split('\n')) {
    try {
      const p = JSON.parse(line) as { turn?: unknown; prompt?: unknown; at?: unknown };
      if (typeof p.turn === 'number' && typeof p.prompt === 'string')
        prompts.set(p.turn, { prompt: p.prompt, at: typeof p.at === 'number' ? p.at : 0 });
    } catch {
      // not a line of prompts
    }
  }
  return prompts;
};

/** The ref `review --session` reads: this repository's own session, else a fetched one of that name. */
export const sessionRefFor = async (store: Store, session: string): Promise<string> => {
  const own = sessionRef(session);
  if (!session.includes('/')) {
    const { code } = await store.git.run({ args: ['rev-parse', '-q', '--verify', `${own}^{commit}`], okCodes: [1] });
    if (code === 0) return own;
  }
  return (await fetchedSessionRef(store, session)) ?? own;
};

/** The fetched changes of the session `name` names (as fetchedSessionRef takes it), newest first. */
export const fetchedChangesOf = async (ctx: Context, store: Store, name: string): Promise<Change[]> => {
  const ref = await fetchedSessionRef(store, name);
  if (ref === null) return [];
  const root = ref.replace(/session$/, 'changes/');
  return (await listFetchedChanges(ctx, store)).filter((c) => c.ref.startsWith(root));
};

/** A fetched change by its id (the newest fetched, should two remotes hold it); null when none was. */
export const fetchedChange = async (ctx: Context, store: Store, id: string): Promise<Change | null> =>
  (await listFetchedChanges(ctx, store)).find((c) => c.id === id) ?? null;
