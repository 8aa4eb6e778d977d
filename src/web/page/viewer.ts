// A change from the timelines that is not pending (written, confirmed, discarded, a rollback, a shell command's
// file), shown on its own in place of the review: fetched when asked for, read-only, unified or split as the
// review is. Back (or Esc) returns to the review where it was.
import type { ReviewChange } from '../../protocol/review/review-data';
import { api, Refused } from './api';
import { provenance } from './change-view';
import { button, el } from './dom';
import { type PieceHost, PieceView } from './piece-view';
import { piecesOf } from './pieces';

export class Viewer {
  private pieces: PieceView[] = [];
  private scrollY = 0;
  private shownId: string | undefined;

  constructor(
    private readonly host: PieceHost,
    private readonly pane: HTMLElement,
    private readonly review: HTMLElement,
    private readonly refused: (r: Refused) => void,
  ) {}

  isOpen(): boolean {
    return !this.pane.hidden;
  }

  async show(id: string): Promise<void> {
    let change: ReviewChange;
    try {
      change = (await api.change(id)).change;
    } catch (error) {
      if (error instanceof Refused) this.refused(error);
      return;
    }
    if (!this.isOpen()) this.scrollY = scrollY;
    this.clear();
    this.shownId = id;
    this.pane.replaceChildren(this.head(change), ...this.body(change));
    this.pane.hidden = false;
    this.review.hidden = true;
    scrollTo(0, 0);
    this.pane.focus({ preventScroll: true });
  }

  private head(c: ReviewChange): HTMLElement {
    const state = c.reverts ? `rollback of ${c.reverts}` : c.state;
    return el('header', { class: 'change-head viewer-head' }, [
      button('← Back to the review', () => this.close(), { class: 'back' }),
      el('h2', { class: 'change-path', text: c.path, attrs: { id: 'viewer-title' } }),
      el('span', { class: 'stat' }, [
        el('span', { class: 'add', text: `+${c.added ?? 0}` }),
        el('span', { class: 'del', text: `−${c.removed ?? 0}` }),
      ]),
      el('span', { class: 'badge', text: state }),
      el('span', { class: 'meta', text: [provenance(c), c.id].filter(Boolean).join(' · ') }),
      c.command ? el('code', { class: 'command', text: `$ ${c.command}` }) : null,
    ]);
  }

  private body(c: ReviewChange): HTMLElement[] {
    if (c.hunks.length === 0) return [el('p', { class: 'note', text: 'No text lines to show.' })];
    return c.hunks.map((h) => {
      const pieces = piecesOf(h.diff).map(
        (p) => new PieceView(this.host, p, `view:${c.id}#${h.index}#${p.starts.join(',')}`, c.language),
      );
      this.pieces.push(...pieces);
      return el('article', { class: 'hunk readonly', attrs: { 'aria-label': `Hunk ${h.index} of ${c.path}` } }, [
        el('header', { class: 'hunk-head' }, [
          el('span', { class: 'hunk-title', text: `Hunk ${h.index} of ${c.hunks.length}` }),
          el('code', { class: 'hunk-range', text: h.diff.split('\n', 1)[0] ?? '' }),
        ]),
        el(
          'div',
          { class: 'hunk-body' },
          pieces.map((p) => p.el),
        ),
      ]);
    });
  }

  remode(): void {
    for (const p of this.pieces) p.remode();
  }

  close(): void {
    if (!this.isOpen()) return;
    this.clear();
    this.pane.hidden = true;
    this.review.hidden = false;
    scrollTo(0, this.scrollY);
    document.querySelector<HTMLElement>(`[data-change="${CSS.escape(this.shownId ?? '')}"]`)?.focus();
  }

  private clear(): void {
    for (const p of this.pieces) p.dispose();
    this.pieces = [];
    this.pane.replaceChildren();
  }
}
