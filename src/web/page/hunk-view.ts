// One hunk of a pending change: its header (where it is, what it does, the decision on it, Keep / Discard /
// Comment), its lines rendered piece by piece as they come near the viewport, and the comments left on it. A
// reader may pick lines of its new side (click a number, shift-click another) for a comment to point at.
import type { ReviewChange, ReviewHunk } from '../../protocol/review/review-data';
import type { CommentDraft } from './api';
import { button, el } from './dom';
import type { LazyPiece } from './lazy';
import { type PieceHost, PieceView } from './piece-view';
import { piecesOf } from './pieces';
import type { HunkDecision } from './state';

export interface HunkHost extends PieceHost {
  decide(view: HunkView, decision: HunkDecision): void;
  openComment(view: HunkView): void;
  current(view: HunkView): void;
}

const LABEL: Record<HunkDecision, string> = { keep: 'Kept', discard: 'Discarded', pending: 'Undecided' };

export class HunkView {
  readonly el: HTMLElement;
  readonly comments: HTMLElement;
  private readonly badge: HTMLElement;
  private readonly keep: HTMLButtonElement;
  private readonly discard: HTMLButtonElement;
  private readonly pieces: PieceView[];
  /** lines of the new side picked for a comment */
  lines: { from: number; to: number } | undefined;

  constructor(
    host: HunkHost,
    readonly change: ReviewChange,
    readonly hunk: ReviewHunk,
  ) {
    const n = hunk.index;
    const title = `Hunk ${n} of ${change.hunks.length}`;
    const whole = change.whole !== undefined;
    this.badge = el('span', { class: 'badge state', text: LABEL.pending });
    this.keep = button('Keep', () => host.decide(this, this.toggled('keep')), {
      class: 'keep',
      aria: `Keep hunk ${n} of ${change.path}`,
    });
    this.discard = button('Discard', () => host.decide(this, this.toggled('discard')), {
      class: 'discard',
      aria: `Discard hunk ${n} of ${change.path}`,
    });
    for (const b of [this.keep, this.discard]) b.disabled = whole;
    const body = el('div', { class: 'hunk-body', on: { click: (e) => this.pick(e) } });
    this.comments = el('div', { class: 'comments' });
    this.el = el('article', {
      class: 'hunk',
      attrs: { id: `h-${change.id}-${n}`, tabindex: '-1', 'aria-label': `${title}, ${change.path}` },
      on: { focusin: () => host.current(this), click: () => host.current(this) },
    });
    this.el.append(
      el('header', { class: 'hunk-head' }, [
        el('span', { class: 'hunk-title', text: title }),
        el('code', { class: 'hunk-range', text: rangeText(hunk) }),
        hunk.header ? el('code', { class: 'hunk-fn', text: hunk.header }) : null,
        el('span', { class: 'stat' }, [
          el('span', { class: 'add', text: `+${hunk.added}` }),
          el('span', { class: 'del', text: `−${hunk.removed}` }),
        ]),
        this.badge,
        el('div', { class: 'actions', attrs: { role: 'group', 'aria-label': `Decide hunk ${n}` } }, [
          this.keep,
          this.discard,
          button('Comment', () => host.openComment(this), { aria: `Comment on hunk ${n} of ${change.path}` }),
        ]),
      ]),
      body,
      this.comments,
    );
    this.pieces = piecesOf(hunk.diff).map(
      (piece) =>
        new PieceView(host, piece, `${change.id}#${n}#${piece.starts.join(',')}`, change.language, () =>
          this.showLines(),
        ),
    );
    body.append(...this.pieces.map((p) => p.el));
  }

  private toggled(d: 'keep' | 'discard'): HunkDecision {
    return this.el.dataset.decision === d ? 'pending' : d;
  }

  /** Unified or split: every piece is rendered anew as it comes near. */
  remode(): void {
    for (const p of this.pieces) p.remode();
  }

  /** Stops watching its pieces: the view is being replaced. */
  dispose(): void {
    for (const p of this.pieces) p.dispose();
  }

  /** Renders its first pieces now (the reader jumped here). */
  renderNow(render: (p: LazyPiece) => void): void {
    for (const p of this.pieces.slice(0, 2)) render(p);
  }

  show(decision: HunkDecision): void {
    this.el.dataset.decision = decision;
    this.badge.textContent = LABEL[decision];
    this.keep.setAttribute('aria-pressed', String(decision === 'keep'));
    this.discard.setAttribute('aria-pressed', String(decision === 'discard'));
  }

  showComments(list: CommentDraft[], render: (c: CommentDraft) => HTMLElement): void {
    this.comments.replaceChildren(...list.map(render));
  }

  /** A click on a number of the new side picks that line; with shift, the lines from the one picked before. */
  private pick(e: MouseEvent): void {
    const cell = (e.target as Element).closest<HTMLElement>('td.num.new[data-line]');
    if (!cell) return;
    const line = Number(cell.dataset.line);
    const from = e.shiftKey && this.lines ? Math.min(this.lines.from, line) : line;
    const to = e.shiftKey && this.lines ? Math.max(this.lines.to, line) : line;
    this.lines =
      this.lines && !e.shiftKey && this.lines.from === line && this.lines.to === line ? undefined : { from, to };
    this.showLines();
  }

  showLines(): void {
    for (const cell of this.el.querySelectorAll<HTMLElement>('td.num.new[data-line]')) {
      const n = Number(cell.dataset.line);
      cell.closest('tr')?.classList.toggle('picked', !!this.lines && n >= this.lines.from && n <= this.lines.to);
    }
  }

  /** The new side's line range of the hunk, for checking a range typed by hand. */
  newRange(): { from: number; to: number } {
    return { from: this.hunk.newStart, to: this.hunk.newStart + Math.max(0, this.hunk.newLines - 1) };
  }
}

const rangeText = (h: ReviewHunk): string => `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`;
