// The kept processes' answers, cut from their stdout (kept.ts): `cat-file --batch-command` answers to reads, the
// end of an `update-ref --stdin` transaction; and HEAD with the trees along a path, read in one request.
import type { Parse } from './kept';

/** `cat-file --batch` answers, one per request: a header line, and for a found object its bytes and a newline. */
export const batchAnswers =
  (count: number, withContent: boolean): Parse =>
  (buf) => {
    let at = 0;
    for (let n = 0; n < count; n++) {
      const eol = buf.indexOf(0x0a, at);
      if (eol < 0) return { need: buf.length + 1 };
      const header = buf.subarray(at, eol).toString('latin1');
      const size = withContent ? /^[0-9a-f]+ \w+ (\d+)$/.exec(header)?.[1] : undefined;
      at = eol + 1 + (size === undefined ? 0 : Number(size) + 1);
      if (at > buf.length) return { need: at };
    }
    return { done: at };
  };

const COMMITTED = Buffer.from('commit: ok\n');
export const transactionDone: Parse = (buf) => {
  const at = buf.indexOf(COMMITTED);
  return at < 0 ? { need: buf.length + 1 } : { done: at + COMMITTED.length };
};

type Read = { oid: string; type: string; body: Buffer } | null;

export interface HeadRead {
  head: string | null;
  /** the trees along the path, under the specs readLevels asks for (`<head>^{tree}:<dir>`) */
  read: Map<string, Read> | undefined;
}

/** Cuts `cat-file --batch` answers into objects (null for a missing one). */
const parseBatch = (buf: Buffer, count: number): Read[] => {
  const out: Read[] = [];
  let at = 0;
  for (let n = 0; n < count; n++) {
    const eol = buf.indexOf(0x0a, at);
    const header = buf.subarray(at, eol).toString('latin1');
    const m = /^([0-9a-f]+) (\w+) (\d+)$/.exec(header);
    if (!m) {
      out.push(null);
      at = eol + 1;
      continue;
    }
    const size = Number(m[3]);
    out.push({ oid: m[1] as string, type: m[2] as string, body: buf.subarray(eol + 1, eol + 1 + size) });
    at = eol + 1 + size + 1;
  }
  return out;
};

/**
 * HEAD's commit and the trees along `dirs` in one request. Each spec resolves HEAD on its own: the trees are
 * kept only if the root one is the commit's tree (a commit made in between would make them another's).
 */
export const headAndLevels = async (
  read: (specs: string[], how: 'contents' | 'info') => Promise<Buffer>,
  dirs: string[],
): Promise<HeadRead> => {
  const prefixes = ['', ...dirs.map((_, n) => dirs.slice(0, n + 1).join('/'))];
  const specs = ['HEAD^{commit}', ...prefixes.map((p) => `HEAD^{tree}:${p}`)];
  const [commit, ...levels] = parseBatch(await read(specs, 'contents'), specs.length);
  if (!commit || commit.type !== 'commit') return { head: null, read: undefined };
  const tree = /^tree ([0-9a-f]+)$/m.exec(commit.body.toString('latin1'))?.[1];
  if (!tree || levels[0]?.oid !== tree) return { head: commit.oid, read: undefined };
  return {
    head: commit.oid,
    read: new Map(prefixes.map((p, n) => [`${commit.oid}^{tree}:${p}`, levels[n] ?? null])),
  };
};
