// Where turn n of a Claude Code session began, read from the session's transcript (a JSON line per record, the
// client's private format): the prompt that started it, and the last message before it, at which the client's own
// `--resume <s> --fork-session --resume-session-at <message>` continues. Only what that needs is read, and only from
// the versions and record shapes checked here; anything else is refused with the reason, never guessed.

/** The client versions whose transcripts were read to write this (from the pinned one to the next minor). */
export const CLAUDE_VERSIONS = { from: [2, 1, 330], below: [2, 2, 0] } as const;

export type ForkPoint =
  | {
      ok: true;
      /** the prompt that began the turn, as the transcript holds it */
      prompt: string;
      /** the last message before it (the fork keeps it and everything before); null: the turn began the conversation */
      resumeAt: string | null;
      cwd: string;
      version: string;
    }
  | { ok: false; why: string };

type Rec = Record<string, unknown>;

const isObj = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

const versionOk = (v: string): boolean => {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(v);
  if (!m) return false;
  const n = [Number(m[1]), Number(m[2]), Number(m[3])];
  const cmp = (a: readonly number[]): number => n.reduce((r, x, i) => r || Math.sign(x - (a[i] as number)), 0);
  return cmp(CLAUDE_VERSIONS.from) >= 0 && cmp(CLAUDE_VERSIONS.below) < 0;
};

const range = `${CLAUDE_VERSIONS.from.join('.')} up to ${CLAUDE_VERSIONS.below.join('.')} (not included)`;

/** The records of the conversation chain (those with a uuid), in file order; a torn last line is left out. */
const chainRecords = (text: string): Rec[] | string => {
  const lines = text.split('\n');
  const out: Rec[] = [];
  for (const [n, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch {
      if (n === lines.length - 1) continue;
      return `line ${n + 1} of the transcript is not a JSON record`;
    }
    if (!isObj(rec)) return `line ${n + 1} of the transcript is not a JSON object`;
    if (typeof rec.uuid === 'string') out.push(rec);
  }
  return out;
};

/** A message a person typed: a user record of the main chain holding text, no tool result, not injected. */
const promptText = (r: Rec): string | null => {
  if (r.type !== 'user' || r.isSidechain === true || r.isMeta === true || r.isCompactSummary === true) return null;
  const m = r.message;
  if (!isObj(m) || m.role !== 'user') return null;
  if (typeof m.content === 'string') return m.content;
  if (!Array.isArray(m.content)) return null;
  if (m.content.some((b) => !isObj(b) || b.type === 'tool_result')) return null;
  const texts = m.content.filter((b) => isObj(b) && b.type === 'text' && typeof b.text === 'string');
  return texts.length === 0 ? null : texts.map((b) => (b as Rec).text as string).join('\n');
};

const compaction = (r: Rec): boolean =>
  r.isCompactSummary === true || (r.type === 'system' && r.subtype === 'compact_boundary');

/** fettle keeps a prompt cut at 4000 characters with a trailing ellipsis: compare what it kept. */
export const samePrompt = (kept: string, said: string): boolean =>
  kept === said || (kept.endsWith('…') && kept.length > 1 && said.startsWith(kept.slice(0, -1)));

/** The message the fork resumes at: the nearest user or assistant ancestor of the prompt. */
const messageBefore = (prompt: Rec, byId: Map<string, Rec>): string | null | undefined => {
  let parent = prompt.parentUuid;
  for (let hops = 0; hops < byId.size + 1; hops++) {
    if (parent === null) return null;
    if (typeof parent !== 'string') return undefined;
    const rec = byId.get(parent);
    if (!rec) return undefined;
    if (rec.type === 'user' || rec.type === 'assistant') return parent;
    parent = rec.parentUuid;
  }
  return undefined;
};

/** The index in `recs` of turn `turn`'s prompt, matching fettle's kept prompts in order; or why not. */
const promptIndex = (recs: Rec[], turn: number, kept: ReadonlyMap<number, string>): number | string => {
  if (!kept.has(turn))
    return `fettle kept no prompt for turn ${turn} of this session, so it cannot find where it began`;
  let from = 0;
  let found = -1;
  for (let k = 1; k <= turn; k++) {
    const want = kept.get(k);
    if (want === undefined) continue;
    const at = recs.findIndex((r, i) => i >= from && samePrompt(want, promptText(r) ?? '\u0000'));
    if (at === -1) return `the transcript holds no prompt matching the one fettle counted as turn ${k}`;
    from = at + 1;
    found = at;
  }
  return found;
};

const versionsOf = (recs: Rec[]): string[] | string => {
  const versions = [...new Set(recs.map((r) => r.version))];
  if (versions.some((v) => typeof v !== 'string')) return 'a record of the transcript names no client version';
  const bad = (versions as string[]).filter((v) => !versionOk(v));
  if (bad.length > 0)
    return `it was written by Claude Code ${bad.join(', ')}; fettle reads the transcripts of ${range}`;
  return versions as string[];
};

/** Where turn `turn` of session `session` began; `kept`: fettle's kept prompts by turn. */
export const claudeForkPoint = (
  text: string,
  session: string,
  turn: number,
  kept: ReadonlyMap<number, string>,
): ForkPoint => {
  const recs = chainRecords(text);
  if (typeof recs === 'string') return { ok: false, why: recs };
  if (recs.length === 0) return { ok: false, why: 'the transcript holds no conversation' };
  const versions = versionsOf(recs);
  if (typeof versions === 'string') return { ok: false, why: versions };
  if (recs.some(compaction))
    return { ok: false, why: 'the conversation was compacted, and a fork resumes only after the last compaction' };
  const at = promptIndex(recs, turn, kept);
  if (typeof at === 'string') return { ok: false, why: at };
  const prompt = recs[at] as Rec;
  if (prompt.sessionId !== session) return { ok: false, why: 'the transcript is of another session' };
  if (typeof prompt.cwd !== 'string') return { ok: false, why: "the turn's prompt record names no working directory" };
  const resumeAt = messageBefore(prompt, new Map(recs.map((r) => [r.uuid as string, r])));
  if (resumeAt === undefined) return { ok: false, why: 'the records before the prompt do not chain to it' };
  return {
    ok: true,
    prompt: promptText(prompt) as string,
    resumeAt,
    cwd: prompt.cwd,
    version: prompt.version as string,
  };
};

/** The client's own command that continues from where the turn began, in a new session `fork`, as arguments. */
export const claudeForkArgs = (session: string, fork: string, point: { resumeAt: string | null; prompt: string }) =>
  point.resumeAt === null
    ? ['claude', '--session-id', fork, '-p', point.prompt]
    : [
        'claude',
        '--resume',
        session,
        '--fork-session',
        '--session-id',
        fork,
        '--resume-session-at',
        point.resumeAt,
        '-p',
        point.prompt,
      ];
