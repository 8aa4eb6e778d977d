// A run of a change's hunks that is not built until it comes near the viewport: a placeholder of about their
// height, then their views. A change of five hundred hunks starts as some sixty placeholders, so the page is
// laid out and painted at once; a key that moves into a run builds it on the spot.
import type { ReviewChange, ReviewHunk } from '../../protocol/review/review-data';
import type { Mode } from './diff-rows';
import { el } from './dom';
import { type HunkHost, HunkView } from './hunk-view';
import type { LazyPiece } from './lazy';

export interface ChunkHost extends HunkHost {
  /** views were built: show the state of the drafts on them */
  built(views: HunkView[]): void;
}

/** Hunks per run. */
export const CHUNK = 8;
/** A hunk's header and borders, and a line, in pixels (page.css: .hunk-head, --line-h). */
const HEAD_PX = 36;
const LINE_PX = 20;

export class HunkChunk implements LazyPiece {
  readonly el: HTMLElement = el('div', { class: 'chunk placeholder' });
  rendered = false;
  near = false;
  views: HunkView[] = [];

  constructor(
    private readonly host: ChunkHost,
    private readonly change: ReviewChange,
    readonly hunks: ReviewHunk[],
  ) {
    this.estimate(host.mode());
    host.watch(this);
  }

  /** Its height before it is built (CSSOM: the page's policy allows no style attribute). */
  estimate(mode: Mode): void {
    if (this.rendered) return;
    const rows = (h: ReviewHunk) => (mode === 'split' ? Math.max(h.oldLines, h.newLines) : h.oldLines + h.added);
    const px = this.hunks.reduce((n, h) => n + rows(h) * LINE_PX + HEAD_PX, 0);
    this.el.style.setProperty('--px', `${px}px`);
  }

  render(): void {
    if (this.rendered) return;
    this.rendered = true;
    this.views = this.hunks.map((h) => new HunkView(this.host, this.change, h));
    this.el.replaceChildren(...this.views.map((v) => v.el));
    this.el.classList.remove('placeholder');
    this.el.style.removeProperty('--px');
    this.host.unwatch(this);
    this.host.built(this.views);
  }

  nearAgain(): void {}
}
