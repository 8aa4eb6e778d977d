// One pending change in the main column: its file, what it adds and removes, who made it and when, the decision
// on the whole of it (Keep all / Discard all), its comments, then its hunks.
import type { ReviewChange } from '../../protocol/review/review-data';
import { button, el, plural } from './dom';
import { CHUNK, type ChunkHost, HunkChunk } from './hunk-chunk';
import type { HunkView } from './hunk-view';

export interface ChangeHost extends ChunkHost {
  decideWhole(change: ReviewChange, decision: 'confirm' | 'discard' | 'pending'): void;
  openChangeComment(view: ChangeView): void;
}

/** Who made a change and when, in one line: agent, session, turn, tool. */
export const provenance = (c: ReviewChange): string =>
  [
    c.agent,
    c.session ? `session ${shortSession(c.session)}` : undefined,
    c.turn !== undefined ? `turn ${c.turn}` : undefined,
    c.tool,
  ]
    .filter(Boolean)
    .join(' · ');

export const shortSession = (s: string): string => (s.length > 12 ? `${s.slice(0, 8)}…` : s);

export class ChangeView {
  readonly el: HTMLElement;
  readonly chunks: HunkChunk[] = [];
  readonly comments: HTMLElement;
  private readonly progress: HTMLElement;

  constructor(
    host: ChangeHost,
    readonly change: ReviewChange,
  ) {
    const c = change;
    this.progress = el('span', { class: 'progress' });
    this.comments = el('div', { class: 'comments change-comments' });
    const titleId = `ct-${c.id}`;
    const badges = [
      c.personOnly ? el('span', { class: 'badge person', text: 'person only' }) : null,
      c.state === 'expired' ? el('span', { class: 'badge expired', text: 'expired' }) : null,
      c.splitFrom ? el('span', { class: 'badge', text: `left pending from ${c.splitFrom}` }) : null,
    ];
    this.el = el('section', { class: 'change', attrs: { id: `c-${c.id}`, 'aria-labelledby': titleId } }, [
      el('header', { class: 'change-head' }, [
        el('h2', { class: 'change-path', text: c.path, attrs: { id: titleId, title: c.path } }),
        el('span', { class: 'stat' }, [
          el('span', { class: 'add', text: `+${c.added ?? 0}` }),
          el('span', { class: 'del', text: `−${c.removed ?? 0}` }),
        ]),
        ...badges,
        el('span', { class: 'meta', text: `${provenance(c)} · ${c.id}` }),
        this.progress,
        el('div', { class: 'actions', attrs: { role: 'group', 'aria-label': `Decide all of ${c.path}` } }, [
          button('Keep all', () => host.decideWhole(c, 'confirm'), { aria: `Keep all of ${c.path}` }),
          button('Discard all', () => host.decideWhole(c, 'discard'), { aria: `Discard all of ${c.path}` }),
          button('Clear', () => host.decideWhole(c, 'pending'), { aria: `Clear the decisions on ${c.path}` }),
          button('Comment', () => host.openChangeComment(this), { aria: `Comment on the whole of ${c.path}` }),
        ]),
      ]),
      c.whole ? el('p', { class: 'note', text: `Decided whole only: ${c.whole}` }) : null,
      c.hunks.length === 0 ? el('p', { class: 'note', text: 'No text lines to show (binary or mode change).' }) : null,
      this.comments,
    ]);
    for (let i = 0; i < c.hunks.length; i += CHUNK)
      this.chunks.push(new HunkChunk(host, c, c.hunks.slice(i, i + CHUNK)));
    this.el.append(...this.chunks.map((k) => k.el));
  }

  /** The hunks' views built so far. */
  get hunks(): HunkView[] {
    return this.chunks.flatMap((k) => k.views);
  }

  /** The view of the change's n-th hunk (from 0), built now if it was not. */
  hunk(n: number, build: (chunk: HunkChunk) => void): HunkView | undefined {
    const chunk = this.chunks[Math.floor(n / CHUNK)];
    if (!chunk) return undefined;
    build(chunk);
    return chunk.views[n % CHUNK];
  }

  showProgress(decided: number, of: number, whole: 'confirm' | 'discard' | undefined): void {
    this.progress.textContent = whole
      ? whole === 'confirm'
        ? 'all kept'
        : 'all discarded'
      : `${decided} of ${plural(of, 'hunk')} decided`;
    this.el.dataset.whole = whole ?? '';
  }
}
