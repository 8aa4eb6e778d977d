// `git blame --porcelain`, read: for each line of the blamed content, the commit that last changed it, the line's
// number and path in that commit, and the commit's author. git prints a commit's details the first time it
// appears only (and its filename again when the commit touched the file under several names).

/** What git blame says of a line; `commit` null for a line not committed yet. */
export interface BlameAnswer {
  commit: string | null;
  /** the line's 1-based number in `path` at `commit` */
  origLine: number;
  path: string;
  author: string;
  /** author time, epoch seconds */
  time: number;
  summary: string;
}

interface CommitDetails {
  author: string;
  time: number;
  summary: string;
  path: string;
}

/** The answers, one per line of the blamed content, in order. `stdout` is git's bytes (latin1 keeps them). */
export const parseBlamePorcelain = (stdout: string): BlameAnswer[] => {
  const details = new Map<string, CommitDetails>();
  const out: BlameAnswer[] = [];
  let current: { commit: string; origLine: number } | null = null;
  for (const line of stdout.split('\n')) {
    if (line.startsWith('\t')) {
      if (!current) continue;
      const d = details.get(current.commit);
      const committed = !/^0+$/.test(current.commit);
      out.push({
        commit: committed ? current.commit : null,
        origLine: current.origLine,
        path: d?.path ?? '',
        author: committed ? (d?.author ?? '') : '',
        time: d?.time ?? 0,
        summary: committed ? (d?.summary ?? '') : '',
      });
      continue;
    }
    const header = /^([0-9a-f]{40,64}) (\d+) \d+(?: \d+)?$/.exec(line);
    if (header) {
      current = { commit: header[1] as string, origLine: Number(header[2]) };
      if (!details.has(current.commit)) details.set(current.commit, { author: '', time: 0, summary: '', path: '' });
      continue;
    }
    const d = current ? details.get(current.commit) : undefined;
    if (!d) continue;
    const space = line.indexOf(' ');
    const [key, value] = space < 0 ? [line, ''] : [line.slice(0, space), line.slice(space + 1)];
    if (key === 'author') d.author = value;
    else if (key === 'author-time') d.time = Number(value);
    else if (key === 'summary') d.summary = value;
    else if (key === 'filename') d.path = value;
  }
  return out;
};
