// The page's side of the highlighting worker: one piece of a diff at a time, the nearest asked first and anything
// scrolled away dropped (it is asked again when it comes back); answers kept, so a switch between unified and
// split paints at once. Tokens become spans with classes around the text already in the page: a line's
// characters are never re-parsed, and a line whose tokens do not add up to its text stays plain.
import type { TokenJob, TokenReply } from './highlight-types';
import { FONT_CLASSES } from './theme-roles';

export interface HighlightRequest {
  key: string;
  lang: string;
  /** the piece's old and new sides, line by line */
  sides: [string[], string[]];
  near: () => boolean;
  paint: (tokens: number[][][]) => void;
}

export class Highlighter {
  private worker: Worker | null = null;
  private readonly waiting = new Map<string, HighlightRequest>();
  private running: { id: number; request: HighlightRequest } | null = null;
  private readonly done = new Map<string, number[][][] | null>();
  private seq = 0;
  private live = false;

  /** Starts the worker's work: after the first paint, so its start does not delay it. */
  begin(): void {
    this.live = true;
    this.pump();
  }

  request(r: HighlightRequest): void {
    const known = this.done.get(r.key);
    if (known !== undefined) {
      if (known) r.paint(known);
      return;
    }
    if (this.running?.request.key === r.key) return;
    this.waiting.set(r.key, r);
    this.pump();
  }

  private pump(): void {
    if (this.running || !this.live) return;
    for (const [key, r] of this.waiting) {
      this.waiting.delete(key);
      if (!r.near()) continue;
      const job: TokenJob = { id: ++this.seq, lang: r.lang, sides: r.sides.map((s) => s.join('\n')) };
      this.running = { id: job.id, request: r };
      this.start().postMessage(job);
      return;
    }
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    this.worker = new Worker('/assets/highlight.js', { type: 'module', name: 'highlight' });
    this.worker.onmessage = (e: MessageEvent<TokenReply>) => {
      if (e.data.violation) console.error(`highlight worker: refused by the page's policy: ${e.data.violation}`);
      const run = this.running;
      if (!run || run.id !== e.data.id) return;
      this.running = null;
      this.done.set(run.request.key, e.data.sides);
      if (e.data.sides) run.request.paint(e.data.sides);
      this.pump();
    };
    // A worker that cannot start leaves the page plain, never waiting on it.
    this.worker.onerror = (e) => {
      e.preventDefault();
      this.live = false;
      this.running = null;
    };
    return this.worker;
  }
}

const classOf = (role: number, style: number): string => {
  const names = role > 0 ? [`tk${role}`] : [];
  for (const [bit, name] of FONT_CLASSES) if (style & bit) names.push(name);
  return names.join(' ');
};

/** Wraps the line's text (diff2html's word marks included) in token spans; `flat` is [length, role, style]... */
export const paintLine = (ctn: Element, flat: number[]): void => {
  let total = 0;
  for (let i = 0; i < flat.length; i += 3) total += flat[i] ?? 0;
  if (ctn.classList.contains('hl') || total !== (ctn.textContent ?? '').length) return;
  ctn.classList.add('hl');
  const walker = document.createTreeWalker(ctn, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  while (walker.nextNode()) texts.push(walker.currentNode as Text);
  let t = 0;
  let tokenEnd = flat[0] ?? 0;
  let pos = 0;
  for (const text of texts) {
    let node = text;
    let start = pos;
    const end = pos + text.length;
    pos = end;
    while (start < end) {
      while (tokenEnd <= start && t + 3 < flat.length) {
        t += 3;
        tokenEnd += flat[t] ?? 0;
      }
      const cut = Math.min(end, tokenEnd);
      const rest = cut < end ? node.splitText(cut - start) : null;
      const cls = classOf(flat[t + 1] ?? 0, flat[t + 2] ?? 0);
      if (cls) {
        const span = document.createElement('span');
        span.className = cls;
        node.replaceWith(span);
        span.append(node);
      }
      if (!rest) break;
      node = rest;
      start = cut;
    }
  }
};
