// Where shared sessions live, on a remote and once fetched. A person shares under their own name on the remote
// (refs/fettle/shared/<who>/<session>/…) and a fetch mirrors that whole namespace under
// refs/fettle/remotes/<remote>/…; nothing else on either side is named, so a share never moves a branch or anyone
// else's refs, and a fetch never moves the person's own refs or remote-tracking branches.
import { createHash } from 'node:crypto';

export const SHARED_PREFIX = 'refs/fettle/shared/';
export const FETCHED_PREFIX = 'refs/fettle/remotes/';

/** One ref component from any text (git check-ref-format): letters, digits, `.`, `_`, `-`, `@`; hashed if changed. */
export const refComponent = (raw: string, max = 60): string => {
  let name = raw
    .replace(/[^A-Za-z0-9._@-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/@\{/g, '@-')
    .replace(/^[.-]+/, '')
    .replace(/[.]+$/, '');
  if (name.endsWith('.lock')) name = name.slice(0, -5);
  if (name === '@') name = '';
  if (name === raw && name.length > 0 && name.length <= max) return name;
  const hash = createHash('sha1').update(raw, 'utf8').digest('hex').slice(0, 10);
  return `${name.slice(0, max - 11)}${name ? '-' : ''}${hash}`;
};

/** The refs of one shared session under `root` (the remote's shared/<who>/ or a fetched remotes/<remote>/<who>/). */
export const sessionRefs = (root: string, session: string) => ({
  session: `${root}${session}/session`,
  prompts: `${root}${session}/prompts`,
  change: (id: string) => `${root}${session}/changes/${id}`,
});

export const sharedRoot = (who: string): string => `${SHARED_PREFIX}${who}/`;

/** The refspec a fetch of `remote` uses: the remote's whole shared namespace into its own mirror, forced. */
export const fetchRefspec = (remote: string): string => `+${SHARED_PREFIX}*:${FETCHED_PREFIX}${remote}/*`;

export interface FetchedRef {
  remote: string;
  who: string;
  session: string;
  kind: 'session' | 'prompts' | 'change';
  /** a change's id */
  id?: string;
}

/** What a ref under refs/fettle/remotes/ holds; null for any other ref. */
export const parseFetchedRef = (ref: string): FetchedRef | null => {
  if (!ref.startsWith(FETCHED_PREFIX)) return null;
  const parts = ref.slice(FETCHED_PREFIX.length).split('/');
  const [remote, who, session, kind, id] = parts;
  if (!remote || !who || !session) return null;
  if (parts.length === 4 && (kind === 'session' || kind === 'prompts')) return { remote, who, session, kind };
  if (parts.length === 5 && kind === 'changes' && id) return { remote, who, session, kind: 'change', id };
  return null;
};

/** How a person names a fetched session: `<remote>/<who>/<session>`. */
export const fetchedName = (r: Pick<FetchedRef, 'remote' | 'who' | 'session'>): string =>
  `${r.remote}/${r.who}/${r.session}`;
