// The conditions of a policy rule (format 2; a format 1 rule has a path alone), compiled and checked against what
// a tool call offers: the path written, the tool, the content it would leave, the lines it adds, a Bash command
// line, and the session's history (session-log.ts). A rule matches when every condition it has holds; a condition
// on something the call does not offer (the content of a write fettle cannot predict, a command for a file
// write) does not hold. The session's history is read through `history`, and only once a rule's other conditions
// hold: a policy with no state condition never reads it. Pure.
import { compileGlob, matchesGlob, type Glob } from './glob';
import { hasRead, ranSinceWrite, type SessionEntry } from './session-log';

/** The conditions as a format 2 rule writes them. */
export interface RawWhen {
  tool?: string | string[] | undefined;
  content?: string | undefined;
  added?: string | undefined;
  command?: string | undefined;
  read?: string | undefined;
  notRead?: string | undefined;
  ranSinceWrite?: string | undefined;
  notRanSinceWrite?: string | undefined;
}

export const WHEN_KEYS = [
  'tool',
  'content',
  'added',
  'command',
  'read',
  'notRead',
  'ranSinceWrite',
  'notRanSinceWrite',
] as const;
type WhenKey = (typeof WHEN_KEYS)[number];

/** What a call offers the conditions; what it lacks is undefined. */
export interface PolicyFacts {
  /** the path written, from the repository's top directory */
  path?: string | undefined;
  tool?: string | undefined;
  /** the content the write would leave (text only) */
  content?: string | undefined;
  /** the lines it adds, joined by '\n' */
  added?: string | undefined;
  /** a Bash command line */
  command?: string | undefined;
  /** the session's history, oldest first; called at most once per evaluation */
  history?: (() => readonly SessionEntry[]) | undefined;
}

export interface CompiledWhen {
  tools?: Set<string>;
  content?: RegExp;
  added?: RegExp;
  command?: RegExp;
  read?: Glob;
  notRead?: Glob;
  ranSinceWrite?: RegExp;
  notRanSinceWrite?: RegExp;
}

const REGEX_KEYS = ['content', 'added', 'command', 'ranSinceWrite', 'notRanSinceWrite'] as const;
const GLOB_KEYS = ['read', 'notRead'] as const;

/** The conditions compiled, or the first that is not one (its key, and why). */
export const compileWhen = (raw: RawWhen): CompiledWhen | { key: WhenKey; error: string } => {
  const out: CompiledWhen = {};
  if (raw.tool !== undefined) out.tools = new Set(Array.isArray(raw.tool) ? raw.tool : [raw.tool]);
  for (const key of REGEX_KEYS) {
    const source = raw[key];
    if (source === undefined) continue;
    try {
      // multiline for text; a command line is one line as written
      out[key] = new RegExp(source, key === 'content' || key === 'added' ? 'm' : '');
    } catch (error) {
      return { key, error: `is not a regular expression: ${(error as Error).message}` };
    }
  }
  for (const key of GLOB_KEYS) {
    const pattern = raw[key];
    if (pattern === undefined) continue;
    const glob = compileGlob(pattern);
    if ('error' in glob) return { key, error: `is not a glob fettle reads: ${glob.error}` };
    out[key] = glob;
  }
  return out;
};

/** Whether the conditions hold, and for each the reason, when `why` collects them. */
export interface WhenCheck {
  holds: boolean;
  why: string[];
}

const STATE_KEYS = new Set<WhenKey>(['read', 'notRead', 'ranSinceWrite', 'notRanSinceWrite']);

export const hasStateCondition = (when: CompiledWhen): boolean =>
  Object.keys(when).some((k) => STATE_KEYS.has(k as WhenKey));

/** One condition against the facts; `history` reads the session's entries (once, memoized by the caller). */
const checkOne = (
  when: CompiledWhen,
  key: keyof CompiledWhen,
  facts: PolicyFacts,
  history: () => readonly SessionEntry[],
) => {
  switch (key) {
    case 'tools': {
      const tool = facts.tool;
      if (tool === undefined) return { holds: false, why: 'tool: no tool is known' };
      const holds = when.tools?.has(tool) ?? false;
      return { holds, why: `tool: ${tool} ${holds ? 'is' : 'is not'} one of ${[...(when.tools ?? [])].join(', ')}` };
    }
    case 'content':
    case 'added':
    case 'command': {
      const text = facts[key];
      const re = when[key] as RegExp;
      if (text === undefined)
        return { holds: false, why: `${key}: no ${key === 'command' ? 'command' : 'content'} to check` };
      const holds = re.test(text);
      return { holds, why: `${key}: /${re.source}/ ${holds ? 'matches' : 'does not match'}` };
    }
    case 'read':
    case 'notRead': {
      const glob = when[key] as Glob;
      const read = hasRead(history(), glob.regex);
      return {
        holds: key === 'read' ? read : !read,
        why: `${key}: the session has ${read ? '' : 'not '}read ${glob.pattern}`,
      };
    }
    case 'ranSinceWrite':
    case 'notRanSinceWrite': {
      const re = when[key] as RegExp;
      const ran = ranSinceWrite(history(), re);
      const holds = key === 'ranSinceWrite' ? ran : !ran;
      return { holds, why: `${key}: the session has ${ran ? '' : 'not '}run /${re.source}/ since its last write` };
    }
  }
};

/** Cheap conditions first, the session's history last; stops at the first that fails unless `explain`. */
const ORDER: (keyof CompiledWhen)[] = [
  'tools',
  'command',
  'added',
  'content',
  'read',
  'notRead',
  'ranSinceWrite',
  'notRanSinceWrite',
];

/**
 * Whether a rule holds for the call: its glob (null: any path, and a call with no path too) and its conditions.
 * `explain` checks and words every condition; without it the first that fails ends the check.
 */
export const checkRule = (
  glob: Glob | null,
  when: CompiledWhen | undefined,
  facts: PolicyFacts,
  o: { history: () => readonly SessionEntry[]; explain: boolean },
): WhenCheck => {
  const why: string[] = [];
  let holds = true;
  if (glob) {
    const path = facts.path;
    const pathHolds = path !== undefined && matchesGlob(glob, path);
    if (o.explain)
      why.push(
        `path: ${path === undefined ? 'no path' : `${path} ${pathHolds ? 'matches' : 'does not match'} ${glob.pattern}`}`,
      );
    if (!pathHolds) holds = false;
    if (!holds && !o.explain) return { holds, why };
  }
  if (!when) return { holds, why };
  for (const key of ORDER) {
    if (when[key] === undefined) continue;
    const r = checkOne(when, key, facts, o.history);
    if (o.explain) why.push(r.why);
    if (!r.holds) {
      holds = false;
      if (!o.explain) break;
    }
  }
  return { holds, why };
};
