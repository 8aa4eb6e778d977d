// What a review shows, as data: the staged changes waiting in a scope (one change or changeset, a session, a
// turn, everything), each with its hunks, and the sessions as timelines of turns (the prompt that started each,
// where the client sent it, and every change made in it: writes, shell commands, rollbacks, confirms). The page
// (`fettle review --web`) and the interactive review read it; the hunks are those every other surface numbers.
import { extname } from 'node:path';
import type { Hunk } from '../../core/hunks';
import type { RecordFields } from '../../core/record-message';
import type { Store } from '../../store/store';
import { type Change, newestFirst } from '../changes';
import type { Context } from '../context';
import { needsPerson } from '../decide/person-review';
import { changeHunks } from '../hunks';
import { promptsOf } from '../turns';

export interface ReviewHunk extends Hunk {
  /** the hunk's lines, from its `@@` line on, as the unified diff prints them */
  diff: string;
}

export interface ReviewChange {
  id: string;
  path: string;
  state: Change['state'];
  tier: RecordFields['tier'];
  at: string;
  session?: string | undefined;
  turn?: number | undefined;
  tool?: string | undefined;
  agent?: string | undefined;
  /** a shell command's line */
  command?: string | undefined;
  changeset?: string | undefined;
  splitFrom?: string | undefined;
  reverts?: string | undefined;
  added?: number | undefined;
  removed?: number | undefined;
  /** the language of its file, by extension, for highlighting (null: plain text) */
  language: string | null;
  /** pending (or expired): a person may decide it here */
  decidable: boolean;
  /** only a person may apply it (the agent asked a person, or FETTLE_REVIEW=human) */
  personOnly: boolean;
  /** why it can only be decided whole, when it can */
  whole?: string | undefined;
  hunks: ReviewHunk[];
}

export interface ReviewTurn {
  turn: number | null;
  prompt?: string | undefined;
  at?: string | undefined;
  /** every change made in the turn, oldest first; hunks only for the staged ones (the rest on demand) */
  changes: ReviewChange[];
}

export interface ReviewSession {
  session: string;
  agent?: string | undefined;
  turns: ReviewTurn[];
}

export interface ReviewData {
  repository: string;
  pending: ReviewChange[];
  sessions: ReviewSession[];
}

export interface ReviewScope {
  /** a change id or changeset id */
  id?: string | undefined;
  session?: string | undefined;
  turn?: number | undefined;
  all?: boolean | undefined;
}

const LANGUAGES: Record<string, string> = {
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'jsx',
  '.json': 'json',
  '.md': 'markdown',
  '.py': 'python',
  '.go': 'go',
  '.rs': 'rust',
  '.css': 'css',
  '.html': 'html',
  '.sh': 'shellscript',
  '.bash': 'shellscript',
  '.yml': 'yaml',
  '.yaml': 'yaml',
};

export const languageOf = (path: string): string | null => LANGUAGES[extname(path).toLowerCase()] ?? null;

/** Cut a unified diff into its hunks' own texts, `@@` line first, in order. */
export const hunkTexts = (diff: string): string[] => {
  const out: string[] = [];
  for (const line of diff.split('\n')) {
    if (line.startsWith('@@ ')) out.push(line);
    else if (out.length > 0 && !line.startsWith('diff ')) out[out.length - 1] += `\n${line}`;
  }
  return out.map((h) => h.replace(/\n$/, ''));
};

/** One change as the review shows it; its hunks read from git (one diff and one cat-file) when `withHunks`. */
export const reviewChange = async (
  ctx: Context,
  store: Store,
  change: Change,
  withHunks: boolean,
): Promise<ReviewChange> => {
  const f = change.fields;
  const decidable = f.tier === 'staged' && (change.state === 'pending' || change.state === 'expired');
  const base: ReviewChange = {
    id: change.id,
    path: f.path,
    state: change.state,
    tier: f.tier,
    at: change.at.toISOString(),
    session: f.session,
    turn: f.turn,
    tool: f.tool,
    agent: f.agent,
    command: f.command,
    changeset: f.changeset,
    splitFrom: f.splitFrom,
    reverts: f.reverts,
    added: f.added,
    removed: f.removed,
    language: languageOf(f.path),
    decidable,
    personOnly: needsPerson(ctx, change),
    hunks: [],
  };
  if (!withHunks || change.state === 'incomplete') return base;
  const h = await changeHunks(store, change);
  const texts = hunkTexts(h.diff);
  return { ...base, whole: h.whole, hunks: h.hunks.map((x, n) => ({ ...x, diff: texts[n] ?? '' })) };
};

const inScope = (c: Change, scope: ReviewScope): boolean =>
  scope.all === true ||
  (scope.id !== undefined && (c.id === scope.id || c.fields.changeset === scope.id)) ||
  (scope.session !== undefined &&
    c.fields.session === scope.session &&
    (scope.turn === undefined || (c.fields.turn ?? 0) >= scope.turn));

const waiting = (c: Change): boolean => c.fields.tier === 'staged' && (c.state === 'pending' || c.state === 'expired');

/** The ids of the staged changes waiting in `scope`: what the page compares to notice changes staged or decided. */
export const pendingIds = (all: Change[], scope: ReviewScope): string[] =>
  all
    .filter((c) => inScope(c, scope) && waiting(c))
    .map((c) => c.id)
    .sort();

/** The review of `scope` from the changes listed (newest first, as listChanges gives them). */
export const reviewData = async (
  ctx: Context,
  store: Store,
  all: Change[],
  scope: ReviewScope,
  promptsFor: (session: string) => Promise<Map<number, { prompt: string; at: number }>> = (session) =>
    promptsOf(ctx.config.dataDir, session),
): Promise<ReviewData> => {
  const chosen = all.filter((c) => inScope(c, scope));
  const pendingChanges = chosen.filter(waiting);
  const pending = [];
  for (const c of [...pendingChanges].sort(newestFirst).reverse())
    pending.push(await reviewChange(ctx, store, c, true));
  const sessions: ReviewSession[] = [];
  for (const session of [...new Set(chosen.map((c) => c.fields.session).filter((s): s is string => !!s))]) {
    const mine = chosen
      .filter((c) => c.fields.session === session)
      .sort(newestFirst)
      .reverse();
    const prompts = await promptsFor(session);
    const turns = new Map<number | null, ReviewChange[]>();
    for (const c of mine) {
      const turn = c.fields.turn ?? null;
      turns.set(turn, [...(turns.get(turn) ?? []), await reviewChange(ctx, store, c, false)]);
    }
    sessions.push({
      session,
      agent: mine.find((c) => c.fields.agent)?.fields.agent,
      turns: [...turns].map(([turn, changes]) => {
        const said = turn === null ? undefined : prompts.get(turn);
        return { turn, prompt: said?.prompt, at: said ? new Date(said.at).toISOString() : undefined, changes };
      }),
    });
  }
  return { repository: store.workTree, pending, sessions };
};
