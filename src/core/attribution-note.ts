// The text of a commit's note on refs/notes/fettle: which of the lines the commit added an agent wrote. Written
// for `git log --notes=fettle` as much as for fettle: a header, then per file its path and one line per agent
// call, its line ranges (1-based, in the commit's version of the file) first:
//
//   fettle-attribution v1
//   file src/app.ts
//   3-7,12 claude session=4f2a turn=2 tool=Edit change=k3x9q2mz
//
// A value with a space, quote, `=` or backslash (or a path that would not survive git's cleanup of a note's
// trailing blanks) is written as a JSON string. Lines this version does not know are skipped on reading.
import { type AgentOrigin, sameOrigin, toRanges } from './attribution';

export const NOTE_HEADER = 'fettle-attribution v1';

/** Path -> 1-based line -> the agent call that wrote it. */
export type Attribution = Map<string, Map<number, AgentOrigin>>;

const word = (value: string): string => (/^[^\s"=\\]+$/.test(value) ? value : JSON.stringify(value));
const pathText = (path: string): string =>
  path.trim() === path && !path.startsWith('"') && !/[\n\r]/.test(path) ? path : JSON.stringify(path);

const originText = (o: AgentOrigin): string => {
  const parts = [word(o.agent)];
  if (o.session !== undefined) parts.push(`session=${word(o.session)}`);
  if (o.turn !== undefined) parts.push(`turn=${o.turn}`);
  if (o.tool !== undefined) parts.push(`tool=${word(o.tool)}`);
  parts.push(`change=${word(o.change)}`);
  return parts.join(' ');
};

/** The lines of one file, grouped by the call that wrote them, in the order each call's first line appears. */
const groups = (lines: Map<number, AgentOrigin>): { origin: AgentOrigin; numbers: number[] }[] => {
  const out: { origin: AgentOrigin; numbers: number[] }[] = [];
  for (const n of [...lines.keys()].sort((a, b) => a - b)) {
    const origin = lines.get(n) as AgentOrigin;
    const group = out.find((g) => sameOrigin(g.origin, origin));
    if (group) group.numbers.push(n);
    else out.push({ origin, numbers: [n] });
  }
  return out;
};

/** The note's text; null when no line of the commit is an agent's. */
export const encodeNote = (attribution: Attribution): string | null => {
  const out = [NOTE_HEADER];
  for (const path of [...attribution.keys()].sort()) {
    const lines = attribution.get(path);
    if (!lines || lines.size === 0) continue;
    out.push(`file ${pathText(path)}`);
    for (const g of groups(lines)) {
      const ranges = toRanges(g.numbers).map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`));
      out.push(`${ranges.join(',')} ${originText(g.origin)}`);
    }
  }
  return out.length > 1 ? `${out.join('\n')}\n` : null;
};

/** Words of a line: plain, or JSON strings (which may hold spaces), each optionally after `key=`. */
const tokens = (line: string): string[] | null => {
  const out: string[] = [];
  const re = /\s*((?:[a-z]+=)?(?:"(?:[^"\\]|\\.)*"|[^\s"]+))/y;
  const text = line.trimEnd();
  while (re.lastIndex < text.length) {
    const m = re.exec(text);
    if (!m) return null;
    out.push(m[1] as string);
  }
  return out;
};

const unquote = (value: string): string | null => {
  if (!value.startsWith('"')) return value;
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'string' ? parsed : null;
  } catch {
    return null;
  }
};

const parseRanges = (text: string): number[] | null => {
  const out: number[] = [];
  for (const r of text.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(r);
    if (!m) return null;
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    // A note may come from another clone: a range longer than any file is not one fettle wrote.
    if (a < 1 || b < a || b - a > 1_000_000) return null;
    for (let n = a; n <= b; n++) out.push(n);
  }
  return out;
};

const parseOrigin = (words: string[]): AgentOrigin | null => {
  const agent = unquote(words[0] ?? '');
  if (!agent) return null;
  const o: Partial<AgentOrigin> & { agent: string } = { agent };
  for (const w of words.slice(1)) {
    const eq = w.indexOf('=');
    const value = unquote(w.slice(eq + 1));
    if (eq < 0 || value === null) return null;
    const key = w.slice(0, eq);
    if (key === 'session') o.session = value;
    else if (key === 'tool') o.tool = value;
    else if (key === 'change') o.change = value;
    else if (key === 'turn' && /^\d+$/.test(value)) o.turn = Number(value);
  }
  return o.change ? (o as AgentOrigin) : null;
};

/** A note's attribution; an empty map for text that is not a fettle note. */
export const decodeNote = (text: string): Attribution => {
  const out: Attribution = new Map();
  const lines = text.split('\n');
  if (lines[0]?.trim() !== NOTE_HEADER) return out;
  let file: Map<number, AgentOrigin> | null = null;
  for (const line of lines.slice(1)) {
    if (line.startsWith('file ')) {
      const path = unquote(line.slice(5));
      file = path === null ? null : (out.get(path) ?? new Map());
      if (path !== null && file) out.set(path, file);
      continue;
    }
    const [ranges, ...rest] = tokens(line) ?? [];
    const numbers = ranges ? parseRanges(ranges) : null;
    const origin = parseOrigin(rest);
    if (!file || !numbers || !origin) continue;
    for (const n of numbers) file.set(n, origin);
  }
  for (const [path, lines] of out) if (lines.size === 0) out.delete(path);
  return out;
};

/** post-rewrite's standard input: `<old> <new>[ <extra>]` per line; several olds may share a new (a squash). */
export const parseRewrites = (text: string): Map<string, string[]> => {
  const out = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const [old, next] = line.trim().split(' ');
    if (!old || !next || !/^[0-9a-f]{40,64}$/.test(old) || !/^[0-9a-f]{40,64}$/.test(next)) continue;
    out.set(next, [...(out.get(next) ?? []), old]);
  }
  return out;
};
