// Reading a change's chain of commits back: which commit holds the bytes it replaced, which holds what it
// wrote, and the base (HEAD when it was recorded). Reads are batched: one `cat-file --batch` per hop for any
// number of changes, so a session's worth of changes costs a handful of git processes, not hundreds.
import { parseRecord, type RecordFields, type RecordKind } from '../core/record-message';
import { FettleError } from '../errors';
import type { Store } from '../store/store';
import { readFiles, readObjects, type FileEntry } from '../store/object-read';
import type { Change } from './changes';
import { diffCommits } from '../store/patch';

/** A chain is before -> proposal/after -> (snapshot) -> applied -> (discarded): a few hops at most. */
const MAX_HOPS = 8;

export interface ChainCommit {
  oid: string;
  parents: string[];
  /** committer time, epoch seconds */
  time: number;
  subject: string;
  message: string;
  fields: RecordFields | null;
}

export const parseCommit = (oid: string, body: Buffer): ChainCommit => {
  const text = body.toString('utf8');
  const split = text.indexOf('\n\n');
  const headers = split < 0 ? text : text.slice(0, split);
  const message = split < 0 ? '' : text.slice(split + 2);
  const parents = [...headers.matchAll(/^parent ([0-9a-f]+)$/gm)].map((m) => m[1] ?? '');
  const time = Number(/^committer .* (\d+) [+-]\d{4}$/m.exec(headers)?.[1] ?? 0);
  return { oid, parents, time, subject: message.split('\n')[0] ?? '', message, fields: parseRecord(message) };
};

/** Commits by oid (or any rev cat-file accepts); null for one that is missing or not a commit. */
export const readCommits = async (store: Store, specs: string[]): Promise<(ChainCommit | null)[]> =>
  (await readObjects(store, specs)).map((o) => (o && o.type === 'commit' ? parseCommit(o.oid, o.body) : null));

export interface Chain {
  /** tip first, down to the `before` record */
  commits: ChainCommit[];
  /** the parent of `before`: HEAD when the change was recorded; null for an unborn HEAD or the private store */
  base: string | null;
}

const kindOf = (c: ChainCommit): RecordKind | undefined => c.fields?.kind;

/** The chains of several tips, walked together: one cat-file per hop. */
export const chainsOf = async (store: Store, tips: string[]): Promise<Chain[]> => {
  const chains: Chain[] = tips.map(() => ({ commits: [], base: null }));
  let frontier = tips.map((oid, n) => ({ n, oid }));
  for (let hop = 0; hop < MAX_HOPS && frontier.length > 0; hop++) {
    const commits = await readCommits(
      store,
      frontier.map((f) => f.oid),
    );
    const next: typeof frontier = [];
    frontier.forEach(({ n }, i) => {
      const commit = commits[i];
      const chain = chains[n];
      if (!commit?.fields || !chain) return; // missing, or past fettle's commits: the chain ends here
      chain.commits.push(commit);
      if (kindOf(commit) === 'before') chain.base = commit.parents[0] ?? null;
      else if (commit.parents[0]) next.push({ n, oid: commit.parents[0] });
    });
    frontier = next;
  }
  return chains;
};

export const chainOf = async (store: Store, tip: string): Promise<Chain> =>
  (await chainsOf(store, [tip]))[0] ?? { commits: [], base: null };

/** The commit holding the bytes the change replaced on disk: a merging confirm's `snapshot`, else `before`. */
export const replacedCommit = (chain: Chain): string => {
  const found = chain.commits.find((c) => kindOf(c) === 'before' || kindOf(c) === 'snapshot');
  if (!found) {
    // Every chain fettle writes starts with one; a commit that only carries fettle's trailers (written by hand,
    // copied, or cut from its parents) is not a change fettle can undo or show.
    const tip = chain.commits[0];
    throw new FettleError(
      'E_UNTRUSTED',
      `commit ${tip?.oid.slice(0, 12) ?? '?'} carries fettle's trailers, but no commit below it records the bytes it replaced; fettle did not write this history, so it cannot undo it.`,
      {
        hint: `See what it is with \`git log -3 ${tip?.oid.slice(0, 12) ?? ''}\`; undo fettle's changes by their ids (\`fettle log\`).`,
      },
    );
  }
  return found.oid;
};

/**
 * The commit holding what the change wrote (or proposes): the tip, or the proposal under a discard marker;
 * undefined for an incomplete change, whose result fettle never saw.
 */
export const writtenCommit = (chain: Chain): string | undefined => {
  const tip = chain.commits[0];
  if (!tip || kindOf(tip) === 'before') return undefined;
  return kindOf(tip) === 'discarded' ? chain.commits[1]?.oid : tip.oid;
};

export interface Versions {
  chain: Chain;
  /** the bytes the change replaced (null: the file did not exist) */
  previous: FileEntry | null;
  /** what the change wrote (null: it removed the file); undefined when fettle never saw the result */
  written: FileEntry | null | undefined;
}

/** Previous and written bytes of each change, in a fixed number of git processes. */
export const versionsOf = async (store: Store, changes: Change[]): Promise<Versions[]> => {
  const chains = await chainsOf(
    store,
    changes.map((c) => c.tip),
  );
  const writtenAt = chains.map(writtenCommit);
  const wants = changes.flatMap((c, n) => {
    const chain = chains[n] as Chain;
    const at = writtenAt[n];
    return [
      { commit: replacedCommit(chain), path: c.fields.path },
      ...(at ? [{ commit: at, path: c.fields.path }] : []),
    ];
  });
  const files = await readFiles(store, wants);
  let i = 0;
  return changes.map((_, n) => {
    const previous = files[i++] ?? null;
    const written = writtenAt[n] ? (files[i++] ?? null) : undefined;
    return { chain: chains[n] as Chain, previous, written };
  });
};

/** The diff of what the change did (or proposes), as `git diff` prints it; empty when fettle never saw its result. */
export const changeDiff = async (store: Store, chain: Chain, color = false): Promise<string> => {
  const written = writtenCommit(chain);
  return written ? diffCommits(store, replacedCommit(chain), written, { color }) : '';
};
