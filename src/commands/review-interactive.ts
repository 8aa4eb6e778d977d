// `fettle review -i`: the staged changes of a scope, hunk by hunk, in the terminal, as `git add -p` asks: each hunk
// drawn in git's colours (through the pager when it is taller than the screen), one key to answer, `?` for help,
// a comment typed on its own line; nothing is applied until the end, and then everything decided is applied as
// one set, all or nothing (protocol/review/decide-set.ts). Ctrl-C at any point applies nothing.
import { emitKeypressEvents } from 'node:readline';
import { createInterface } from 'node:readline/promises';
import {
  commented,
  decided,
  HELP,
  keyOf,
  press,
  PROMPT_KEYS,
  startWalk,
  summaryLines,
  type Walk,
  type WalkItem,
} from '../core/hunk-walk';
import { plural } from '../core/plural';
import { FettleError } from '../errors';
import { decideSet } from '../protocol/review/decide-set';
import { type ReviewChange, reviewData } from '../protocol/review/review-data';
import { openStore, settledChanges } from '../protocol/select/open';
import { partlyText } from '../render/decided';
import { shellDialect } from '../render/dialect';
import { type Edge, invokeFor, useColor } from './edge';
import { page } from './pager';
import { type RoomOptions, scopeOf } from './review-scope';
import { shownFile } from '../core/shown-path';

const COLOR = { add: '\u001b[32m', del: '\u001b[31m', meta: '\u001b[36m', bold: '\u001b[1m', off: '\u001b[m' };

const paint = (line: string, color: boolean): string => {
  if (!color) return line;
  const c = line.startsWith('+')
    ? COLOR.add
    : line.startsWith('-')
      ? COLOR.del
      : line.startsWith('@@')
        ? COLOR.meta
        : '';
  return c ? `${c}${line}${COLOR.off}` : line;
};

/** One key from a terminal in raw mode: nothing echoed, no Enter needed. */
const readKey = (): Promise<string> =>
  new Promise((resolve) => {
    const stdin = process.stdin;
    emitKeypressEvents(stdin);
    stdin.setRawMode(true);
    stdin.resume();
    stdin.once('keypress', (text: string | undefined, key: { sequence?: string }) => {
      stdin.setRawMode(false);
      stdin.pause();
      resolve(text ?? key.sequence ?? '');
    });
  });

const readLine = async (prompt: string): Promise<string> => {
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  try {
    return await rl.question(prompt);
  } finally {
    rl.close();
  }
};

const itemsOf = (pending: ReviewChange[]): WalkItem[] =>
  pending.flatMap((c) =>
    c.whole || c.hunks.length === 0
      ? [{ change: c.id, path: c.path, hunk: 0, count: 1 }]
      : c.hunks.map((h) => ({ change: c.id, path: c.path, hunk: h.index, count: c.hunks.length })),
  );

/** The hunk the walk is at, drawn: its file and change, then its lines. */
const drawHunk = (edge: Edge, w: Walk, byId: Map<string, ReviewChange>, color: boolean): void => {
  const item = w.items[w.at] as WalkItem;
  const change = byId.get(item.change) as ReviewChange;
  const bold = (t: string) => (color ? `${COLOR.bold}${t}${COLOR.off}` : t);
  const what =
    item.hunk === 0 ? `the whole change (${change.whole ?? 'no hunks'})` : `hunk ${item.hunk} of ${item.count}`;
  const note = w.comments.get(keyOf(item));
  const lines = [
    bold(`${change.path}  change ${change.id}, ${what}`),
    ...(item.hunk === 0 ? [] : (change.hunks[item.hunk - 1]?.diff ?? '').split('\n').map((l) => paint(l, color))),
    ...(note ? [`  comment: ${note}`] : []),
  ];
  const rows = process.stdout.rows ?? 24;
  if (lines.length > rows - 3) page(lines.join('\n'), edge.env, edge.io.out);
  else edge.io.out(lines.join('\n'));
};

const question = (w: Walk): string => {
  const item = w.items[w.at] as WalkItem;
  const verb = item.hunk === 0 ? 'Apply this change' : 'Keep this hunk';
  return `(${w.at + 1}/${w.items.length}) ${verb} [${PROMPT_KEYS}]? `;
};

/** Asks until the person stops (or decides every hunk); the walk as they left it. */
const walkThrough = async (edge: Edge, pending: ReviewChange[]): Promise<Walk> => {
  const color = useColor(edge);
  const byId = new Map(pending.map((c) => [c.id, c]));
  let w = startWalk(itemsOf(pending));
  let drawn = -1;
  while (w.state === 'asking' || w.state === 'help' || w.state === 'comment') {
    if (w.state === 'comment') {
      w = commented(w, await readLine('Comment for the agent (Enter keeps it, empty removes it): '));
      drawn = -1;
      continue;
    }
    if (w.state === 'help') {
      edge.io.out(HELP);
      w = { ...w, state: 'asking' };
    } else if (drawn !== w.at) {
      drawHunk(edge, w, byId, color);
      drawn = w.at;
    }
    process.stdout.write(question(w));
    const key = await readKey();
    process.stdout.write(`${key.length === 1 && key >= ' ' ? key : ''}\n`);
    w = press(w, key);
  }
  return w;
};

/** The walk's decisions and comments as one decision set. */
const setOf = (w: Walk) => {
  const choices = decided(w).map((d) =>
    d.keep.includes(0)
      ? { id: d.change, verdict: 'confirm' as const }
      : d.drop.includes(0)
        ? { id: d.change, verdict: 'discard' as const }
        : { id: d.change, keep: d.keep, drop: d.drop },
  );
  const feedback = [...w.comments].map(([key, text]) => {
    const [change = '', hunk = '0'] = key.split('#');
    const item = w.items.find((i) => keyOf(i) === key);
    return {
      change,
      path: item?.path ?? '',
      kind: w.decisions.get(key) === 'discard' ? ('dropped' as const) : ('comment' as const),
      text,
      hunk: Number(hunk) || undefined,
    };
  });
  return { choices, feedback };
};

export const reviewInteractive = async (
  edge: Edge,
  dir: string | undefined,
  change: string | undefined,
  o: RoomOptions,
): Promise<void> => {
  const { ctx, scope } = await scopeOf(edge, dir, change, o);
  if (!edge.io.terminal)
    throw new FettleError('E_USAGE', 'fettle review -i asks about each hunk in a terminal, and this is not one.', {
      hint: 'Review in the browser with `fettle review --web`, or decide by number with `fettle confirm <id> --hunks 1,3`.',
    });
  const store = await openStore(ctx);
  const { pending } = await reviewData(ctx, store, await settledChanges(ctx, store), scope);
  if (pending.length === 0) {
    edge.io.out('No staged change waits for a decision there.');
    return;
  }
  const w = await walkThrough(edge, pending);
  if (w.state === 'aborted') return edge.io.out('Quit: nothing was applied.');
  const set = setOf(w);
  if (set.choices.length === 0 && set.feedback.length === 0)
    return edge.io.out('Nothing decided: nothing was applied.');
  edge.io.out(
    [
      'Decided:',
      ...summaryLines(w),
      ...(w.comments.size ? [`  ${plural(w.comments.size, 'comment')} for the agent`] : []),
    ].join('\n'),
  );
  process.stdout.write('Apply all of it now, or nothing [y,n]? ');
  const key = await readKey();
  process.stdout.write(`${key === 'y' || key === 'n' ? key : ''}\n`);
  if (key !== 'y') return edge.io.out('Nothing was applied.');
  const { decided: done } = await decideSet(ctx, store, set);
  const dialect = shellDialect(invokeFor(edge, dir));
  for (const d of done)
    edge.io.out(
      d.picked
        ? partlyText(d, dialect)
        : `${d.outcome === 'confirmed' ? 'Applied' : 'Discarded'} ${d.change.id} (${shownFile(d.change.fields)}).`,
    );
};
