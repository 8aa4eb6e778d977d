// A session's state log, pure: the tool calls the hooks saw in one agent session (reads, shell commands, writes),
// one JSON line each, oldest first, and the questions policy rules ask of it ("has it read docs/schema.md", "has
// it run the tests since its last write"). Reading and appending the file: protocol/session-state.ts.

export interface SessionEntry {
  /** the tool as the agent names it (Read, Bash, Write, Edit, apply_patch, ...) */
  t: string;
  /** the path read or written: from the repository's top directory, else absolute */
  p?: string | undefined;
  /** a Bash command line */
  c?: string | undefined;
  /** 1 for a write */
  w?: 1 | undefined;
  /** when, in ms since the epoch */
  at?: number | undefined;
}

/** The longest command line kept: a rule's regex reads its start; a heredoc would fill the log. */
export const COMMAND_CHARS = 2000;

/** One entry as its line (no newline). */
export const entryLine = (e: SessionEntry): string =>
  JSON.stringify({ ...e, ...(e.c !== undefined ? { c: e.c.slice(0, COMMAND_CHARS) } : {}) });

const isEntry = (e: unknown): e is SessionEntry => typeof (e as SessionEntry | null)?.t === 'string';

/**
 * A log's text as entries; a torn or foreign line (a crash mid-append) is skipped. One JSON.parse of the whole log
 * as an array, a third of the cost of one per line; line by line only when a line is torn.
 */
export const parseEntries = (text: string): SessionEntry[] => {
  const body = text.trimEnd();
  if (body === '') return [];
  try {
    const all = JSON.parse(`[${body.replaceAll('\n', ',')}]`) as unknown[];
    if (all.every(isEntry)) return all;
  } catch {
    // a torn or foreign line: read line by line below
  }
  const out: SessionEntry[] = [];
  for (const line of body.split('\n')) {
    try {
      const e = JSON.parse(line) as unknown;
      if (isEntry(e)) out.push(e);
    } catch {
      // torn line
    }
  }
  return out;
};

/** The last lines of a log that fit in `bytes`, whole lines only: what a log past its bound keeps. */
export const keptTail = (text: string, bytes: number): string => {
  if (Buffer.byteLength(text) <= bytes) return text;
  const tail = Buffer.from(text).subarray(-bytes).toString('utf8');
  const start = tail.indexOf('\n');
  return start < 0 ? '' : tail.slice(start + 1);
};

/** Whether the session read a path `path` matches (a tree path, else absolute without its leading '/'). */
export const hasRead = (entries: readonly SessionEntry[], path: RegExp): boolean =>
  entries.some((e) => e.t === 'Read' && e.p !== undefined && path.test(e.p.replace(/^\//, '')));

/** Whether the session ran a command `command` matches after its last write (ever, when it wrote nothing). */
export const ranSinceWrite = (entries: readonly SessionEntry[], command: RegExp): boolean => {
  for (let n = entries.length - 1; n >= 0; n--) {
    const e = entries[n] as SessionEntry;
    if (e.w === 1) return false;
    if (e.c !== undefined && command.test(e.c)) return true;
  }
  return false;
};

/**
 * The lines `next` has that `old` did not, counted: a line the file held n times is added from its n+1th copy
 * (a moved line is not added). Joined by '\n', for an `added` condition.
 */
export const addedLines = (old: string, next: string): string => {
  const have = new Map<string, number>();
  for (const line of old.split('\n')) have.set(line, (have.get(line) ?? 0) + 1);
  const added: string[] = [];
  for (const line of next.split('\n')) {
    const n = have.get(line) ?? 0;
    if (n > 0) have.set(line, n - 1);
    else added.push(line);
  }
  return added.join('\n');
};
