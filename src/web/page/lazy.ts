// Rendering what is near the viewport only: each piece of a diff is a placeholder of about its height until an
// IntersectionObserver says it is within a screen or so of the viewport; then it is rendered in batches, a few
// milliseconds of work per frame, nearest first, so scrolling and typing stay responsive however long the change.

export interface LazyPiece {
  readonly el: Element;
  rendered: boolean;
  /** within the observer's margin of the viewport now */
  near: boolean;
  render(): void;
  /** it came near again, already rendered (e.g. to ask for its highlighting) */
  nearAgain(): void;
}

/** Work per frame before yielding to the browser. */
const BUDGET_MS = 10;

export class Lazy {
  private readonly io: IntersectionObserver;
  private readonly pieces = new WeakMap<Element, LazyPiece>();
  private queue = new Set<LazyPiece>();
  private scheduled = false;
  private firstDone = false;

  constructor(private readonly onFirst: () => void) {
    this.io = new IntersectionObserver((entries) => this.seen(entries), { rootMargin: '1000px 0px' });
  }

  watch(piece: LazyPiece): void {
    this.pieces.set(piece.el, piece);
    this.io.observe(piece.el);
  }

  unwatch(piece: LazyPiece): void {
    this.io.unobserve(piece.el);
    this.queue.delete(piece);
  }

  /** Renders the piece now (it is about to be shown: the reader moved to it). */
  now(piece: LazyPiece): void {
    if (piece.rendered) return;
    this.queue.delete(piece);
    piece.render();
    this.first();
  }

  private seen(entries: IntersectionObserverEntry[]): void {
    for (const e of entries) {
      const piece = this.pieces.get(e.target);
      if (!piece) continue;
      piece.near = e.isIntersecting;
      if (!piece.near) this.queue.delete(piece);
      else if (!piece.rendered) this.queue.add(piece);
      else piece.nearAgain();
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.queue.size === 0) return;
    this.scheduled = true;
    requestAnimationFrame(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    const start = performance.now();
    const order = [...this.queue].sort((a, b) => distance(a.el) - distance(b.el));
    for (const piece of order) {
      if (performance.now() - start > BUDGET_MS) break;
      this.queue.delete(piece);
      if (!piece.rendered && piece.near) piece.render();
    }
    this.first();
    this.schedule();
  }

  private first(): void {
    if (this.firstDone) return;
    this.firstDone = true;
    this.onFirst();
  }
}

/** How far the element is from the viewport's top, in pixels (0 inside it). */
const distance = (el: Element): number => {
  const r = el.getBoundingClientRect();
  if (r.bottom >= 0 && r.top <= innerHeight) return 0;
  return r.top > innerHeight ? r.top - innerHeight : -r.bottom;
};
