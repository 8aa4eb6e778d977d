// Numbered lines of a text file, as `cat -n` prints them, for `fettle read` and the large-Read hook.

export interface ReadView {
  text: string;
  /** 1-based numbers of the first and last line shown (last < first when nothing is shown) */
  first: number;
  last: number;
  total: number;
  /** true when maxChars cut the view short of `limit` */
  cut: boolean;
}

export const numberedLines = (
  content: string,
  offset = 1,
  limit = Number.POSITIVE_INFINITY,
  maxChars = Number.POSITIVE_INFINITY,
): ReadView => {
  const lines = content === '' ? [] : content.split('\n');
  if (content.endsWith('\n')) lines.pop();
  const first = Math.max(1, offset);
  const out: string[] = [];
  let size = 0;
  let last = first - 1;
  let cut = false;
  for (let n = first; n <= lines.length && n < first + limit; n++) {
    let line = `${String(n).padStart(6)}\t${lines[n - 1] ?? ''}`;
    if (size + line.length + 1 > maxChars) {
      cut = true;
      if (out.length > 0) break;
      // A single line longer than the page (minified code) is cut, never served whole.
      line = `${line.slice(0, maxChars)} [line cut at ${maxChars} characters]`;
    }
    out.push(line);
    size += line.length + 1;
    last = n;
  }
  return { text: out.join('\n'), first, last, total: lines.length, cut };
};
