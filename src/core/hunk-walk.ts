// The interactive review's walk through hunks, as `git add -p` walks them: one question per hunk, a single key per
// answer, nothing applied until the end. Pure: the terminal edge (commands/review-interactive.ts) draws each hunk,
// reads keys and, at the end, applies the decisions as one set.
import { hunkListText } from './hunks';

export type HunkDecision = 'keep' | 'discard';

/** One question: a hunk of a change, or a change that can only be taken whole (`hunk` 0). */
export interface WalkItem {
  change: string;
  path: string;
  hunk: number;
  count: number;
}

export interface Walk {
  items: WalkItem[];
  at: number;
  /** by `change#hunk`; a hunk with none stays pending */
  decisions: Map<string, HunkDecision>;
  comments: Map<string, string>;
  state: 'asking' | 'comment' | 'help' | 'summary' | 'aborted';
}

export const keyOf = (item: Pick<WalkItem, 'change' | 'hunk'>): string => `${item.change}#${item.hunk}`;

export const startWalk = (items: WalkItem[]): Walk => ({
  items,
  at: 0,
  decisions: new Map(),
  comments: new Map(),
  state: items.length > 0 ? 'asking' : 'summary',
});

export const HELP = [
  'y - keep this hunk (apply it)',
  'n - discard this hunk',
  'l - leave this hunk pending (decide later)',
  'a - keep this hunk and the rest of this change',
  'd - discard this hunk and the rest of this change',
  'f - leave the rest of this change pending; go to the next change',
  'k - back to the previous hunk',
  'c - comment on this hunk (the agent reads it)',
  'q - stop here; decide what to apply',
  '? - this help',
  'Ctrl-C - quit, applying nothing',
].join('\n');

/** The keys a question offers, as git prints them. */
export const PROMPT_KEYS = 'y,n,l,a,d,f,k,c,q,?';

const decide = (w: Walk, indexes: number[], d: HunkDecision | null): Map<string, HunkDecision> => {
  const next = new Map(w.decisions);
  for (const i of indexes) {
    const item = w.items[i] as WalkItem;
    if (d) next.set(keyOf(item), d);
    else next.delete(keyOf(item));
  }
  return next;
};

/** The indexes from the current one to the last hunk of its change. */
const restOfChange = (w: Walk): number[] => {
  const change = w.items[w.at]?.change;
  const out: number[] = [];
  for (let i = w.at; i < w.items.length && w.items[i]?.change === change; i++) out.push(i);
  return out;
};

const advance = (w: Walk, to: number): Walk =>
  to >= w.items.length ? { ...w, at: w.items.length, state: 'summary' } : { ...w, at: Math.max(0, to) };

/** One key pressed while a hunk is asked about. */
export const press = (w: Walk, key: string): Walk => {
  if (key === '\u0003' || key === '\u0004') return { ...w, state: 'aborted' };
  if (w.state !== 'asking') return w;
  const rest = restOfChange(w);
  switch (key) {
    case 'y':
      return advance({ ...w, decisions: decide(w, [w.at], 'keep') }, w.at + 1);
    case 'n':
      return advance({ ...w, decisions: decide(w, [w.at], 'discard') }, w.at + 1);
    case 'l':
      return advance({ ...w, decisions: decide(w, [w.at], null) }, w.at + 1);
    case 'a':
      return advance({ ...w, decisions: decide(w, rest, 'keep') }, w.at + rest.length);
    case 'd':
      return advance({ ...w, decisions: decide(w, rest, 'discard') }, w.at + rest.length);
    case 'f':
      return advance(w, w.at + rest.length);
    case 'k':
      return { ...w, at: Math.max(0, w.at - 1) };
    case 'c':
      return { ...w, state: 'comment' };
    case 'q':
      return { ...w, state: 'summary' };
    case '?':
      return { ...w, state: 'help' };
    default:
      return w;
  }
};

/** A comment typed for the current hunk (empty: none), then back to its question. */
export const commented = (w: Walk, text: string): Walk => {
  const comments = new Map(w.comments);
  const item = w.items[w.at];
  if (item && text.trim()) comments.set(keyOf(item), text.trim());
  else if (item) comments.delete(keyOf(item));
  return { ...w, comments, state: 'asking' };
};

/** Per change: the hunks kept and discarded (hunk 0: the whole change), in order. */
export const decided = (w: Walk): { change: string; path: string; keep: number[]; drop: number[] }[] => {
  const out = new Map<string, { change: string; path: string; keep: number[]; drop: number[] }>();
  for (const item of w.items) {
    const d = w.decisions.get(keyOf(item));
    if (!d) continue;
    const entry = out.get(item.change) ?? { change: item.change, path: item.path, keep: [], drop: [] };
    (d === 'keep' ? entry.keep : entry.drop).push(item.hunk);
    out.set(item.change, entry);
  }
  return [...out.values()];
};

/** What will be applied, a line per change, as the question before applying shows it. */
export const summaryLines = (w: Walk): string[] =>
  decided(w).map((d) => {
    const whole = d.keep.includes(0) ? 'keep it whole' : d.drop.includes(0) ? 'discard it whole' : '';
    const parts = [
      d.keep.length && !whole ? `keep ${hunkListText(d.keep)}` : '',
      d.drop.length && !whole ? `discard ${hunkListText(d.drop)}` : '',
      whole,
    ].filter(Boolean);
    return `  ${d.path} (${d.change}): ${parts.join('; ')}`;
  });
