// The main column and what a reader does in it: the pending changes' views, the current hunk (moved by j/k or a
// click), decisions and comments sent to the server as drafts at once (one request at a time, in order, so the
// server's answer to the last one is the page's state), unified or split as remembered.
import type { ReviewChange } from '../../protocol/review/review-data';
import { api, type Draft, Refused } from './api';
import { type ChangeHost, ChangeView } from './change-view';
import { CommentBoxes } from './comment-boxes';
import { commentCard } from './comments';
import type { Mode } from './diff-rows';
import { announce, el } from './dom';
import type { HighlightRequest, Highlighter } from './highlight';
import type { HunkView } from './hunk-view';
import type { Lazy, LazyPiece } from './lazy';
import { type HunkDecision, putDraft, type ReviewState } from './state';

const MODE_KEY = 'fettle.review.mode';
const SAID: Record<HunkDecision, string> = { keep: 'kept', discard: 'discarded', pending: 'undecided' };

export interface ReviewUi {
  /** the drafts changed: counts, the side list */
  changed(): void;
  refused(r: Refused): void;
}

export class Review implements ChangeHost {
  views: ChangeView[] = [];
  /** every hunk under review, in order: its change's view and its place in the change */
  private flat: { view: ChangeView; n: number }[] = [];
  private at: HunkView | undefined;
  private readonly boxes = new CommentBoxes((drafts) => this.send(drafts));
  private queue: Promise<void> = Promise.resolve();
  private inFlight = 0;

  constructor(
    private readonly state: ReviewState,
    private readonly lazy: Lazy,
    private readonly highlighter: Highlighter,
    private readonly ui: ReviewUi,
  ) {}

  mode(): Mode {
    return localStorage.getItem(MODE_KEY) === 'split' ? 'split' : 'unified';
  }
  watch(piece: LazyPiece): void {
    this.lazy.watch(piece);
  }
  unwatch(piece: LazyPiece): void {
    this.lazy.unwatch(piece);
  }
  highlight(r: HighlightRequest): void {
    this.highlighter.request(r);
  }

  /** Builds the views of the pending changes into `main` (hunks as placeholders until near). */
  render(main: HTMLElement): void {
    for (const v of this.views) {
      for (const k of v.chunks) this.lazy.unwatch(k);
      for (const h of v.hunks) h.dispose();
    }
    this.boxes.clear();
    this.views = this.state.pending.map((c) => new ChangeView(this, c));
    this.flat = this.views.flatMap((view) => view.change.hunks.map((_, n) => ({ view, n })));
    this.at = undefined;
    main.replaceChildren(...this.views.map((v) => v.el));
    if (this.views.length === 0)
      main.append(el('p', { class: 'empty', text: 'Nothing is pending here: every change has been decided.' }));
    for (const v of this.views) this.refresh(v.change.id);
    // The first hunks are on screen at once: built now rather than a frame later, when the observer reports.
    const first = this.views[0]?.hunk(0, (chunk) => this.lazy.now(chunk));
    for (const h of first ? (this.views[0]?.hunks.slice(0, 3) ?? []) : []) h.renderNow((p) => this.lazy.now(p));
  }

  /** The decisions and comments of a change, as the state has them now. */
  refresh(id: string): void {
    const v = this.views.find((x) => x.change.id === id);
    if (!v) return;
    const whole = this.state.whole(id);
    const p = this.state.progress(v.change);
    v.showProgress(p.decided, p.of, whole);
    v.comments.replaceChildren(
      ...this.state
        .comments(id, undefined)
        .map((c) =>
          commentCard(c, { edit: () => this.boxes.edit(v, c), remove: () => this.send([{ ...c, text: '' }]) }),
        ),
    );
    this.built(v.hunks);
  }

  built(views: HunkView[]): void {
    for (const h of views) {
      h.show(this.state.decision(h.change.id, h.hunk.index));
      h.showComments(this.state.comments(h.change.id, h.hunk.index), (c) =>
        commentCard(c, { edit: () => this.boxes.edit(h, c), remove: () => this.send([{ ...c, text: '' }]) }),
      );
    }
  }

  current(view: HunkView): void {
    if (this.at === view) return;
    this.at?.el.classList.remove('current');
    this.at = view;
    view.el.classList.add('current');
  }

  currentHunk(): HunkView | undefined {
    return this.at;
  }

  /** Moves to the next (1) or previous (-1) hunk, shows it and gives it the focus. */
  move(step: number): void {
    if (this.flat.length === 0) return;
    const at = this.at;
    const i = at
      ? this.flat.findIndex((s) => s.view.change === at.change && s.n === at.hunk.index - 1)
      : step > 0
        ? -1
        : this.flat.length;
    const slot = this.flat[Math.min(this.flat.length - 1, Math.max(0, i + step))];
    const next = slot?.view.hunk(slot.n, (chunk) => this.lazy.now(chunk));
    if (next) this.goTo(next);
  }

  goTo(view: HunkView): void {
    view.renderNow((p) => this.lazy.now(p));
    this.current(view);
    // below the sticky bars, whatever their height at this width
    const above = [document.querySelector('.topbar'), view.el.closest('.change')?.querySelector('.change-head')];
    const covered = above.reduce((n, e) => n + (e?.getBoundingClientRect().height ?? 0), 0);
    scrollTo({ top: scrollY + view.el.getBoundingClientRect().top - covered - 8 });
    view.el.focus({ preventScroll: true });
  }

  goToChange(id: string): void {
    const v = this.views.find((x) => x.change.id === id);
    const first = v?.hunk(0, (chunk) => this.lazy.now(chunk));
    if (first) this.goTo(first);
    else v?.el.scrollIntoView({ block: 'start' });
  }

  decide(view: HunkView, decision: HunkDecision): void {
    const c = view.change;
    if (c.whole !== undefined) return;
    const whole = this.state.whole(c.id);
    // A decision on one hunk ends the change's whole one: the other hunks keep what it said, one by one.
    const others: Draft[] = whole
      ? c.hunks
          .filter((h) => h.index !== view.hunk.index)
          .map((h) => ({
            kind: 'hunk',
            change: c.id,
            hunk: h.index,
            decision: whole === 'confirm' ? 'keep' : 'discard',
          }))
      : [];
    this.send([...others, { kind: 'hunk', change: c.id, hunk: view.hunk.index, decision }]);
    announce(`Hunk ${view.hunk.index} of ${c.path} ${SAID[decision]}.`);
  }

  decideWhole(c: ReviewChange, decision: 'confirm' | 'discard' | 'pending'): void {
    this.send([{ kind: 'whole', change: c.id, decision }]);
    announce(
      `${c.path}: ${decision === 'confirm' ? 'all kept' : decision === 'discard' ? 'all discarded' : 'cleared'}.`,
    );
  }

  /** Applies the drafts here at once, then sends them one by one; the last answer is the state. */
  send(drafts: Draft[]): void {
    for (const d of drafts) this.state.drafts = putDraft(this.state.drafts, d);
    for (const id of new Set(drafts.map((d) => d.change))) this.refresh(id);
    this.ui.changed();
    this.inFlight++;
    this.queue = this.queue.then(async () => {
      let answer: Draft[] | undefined;
      try {
        for (const d of drafts) answer = (await api.draft(d)).drafts;
      } catch (error) {
        if (error instanceof Refused) this.ui.refused(error);
        // what the server kept is the truth: the page shows it rather than what it sent
        answer = (await api.review().catch(() => null))?.drafts ?? answer;
      }
      if (--this.inFlight === 0 && answer) this.settle(answer);
      document.body.dataset.saving = String(this.inFlight);
    });
    document.body.dataset.saving = String(this.inFlight);
  }

  /** Resolves once every draft sent has its answer (the tests and Apply wait for it). */
  async sent(): Promise<void> {
    await this.queue;
  }

  private settle(drafts: Draft[]): void {
    this.state.drafts = drafts;
    for (const v of this.views) this.refresh(v.change.id);
    this.ui.changed();
  }

  openComment(view: HunkView): void {
    this.boxes.open(view, undefined);
  }

  openChangeComment(view: ChangeView): void {
    this.boxes.open(view, undefined);
  }

  /** Comment boxes holding text not saved: Apply sends only what was saved. */
  unsaved(): number {
    return this.boxes.unsaved();
  }

  setMode(mode: Mode): void {
    localStorage.setItem(MODE_KEY, mode);
    document.body.dataset.mode = mode;
    for (const v of this.views) {
      for (const k of v.chunks) k.estimate(mode);
      for (const h of v.hunks) h.remode();
    }
    if (this.at) this.goTo(this.at);
  }
}
