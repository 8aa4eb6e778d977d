// The review page (`fettle review --web`): loads the review, builds the side list and the main column, and
// wires the summary bar, the keys and the dialogs. Every request goes to the page's own server; nothing else is
// loaded from anywhere.
import type { ReviewChange } from '../../protocol/review/review-data';
import { api, Refused } from './api';
import { Applier } from './apply';
import { byId, el } from './dom';
import { Highlighter } from './highlight';
import { bindKeys, KEYS } from './keys';
import { Lazy } from './lazy';
import { Review } from './review';
import { refreshPending, renderSidebar, type SidebarHost } from './sidebar';
import { ReviewState } from './state';
import { Viewer } from './viewer';
import { watchPending } from './watch';

const EXTRA_KEY = 'fettle.review.left-pending';

const state = new ReviewState();
const side = byId('side');
const main = byId('review');
let applier: Applier;

const highlighter = new Highlighter();
/**
 * First paint of a hunk's lines: what the page's speed is measured by (bench/run/cases/page.mjs). A frame is
 * painted after its animation-frame callbacks, so a task queued from one runs once the lines are on screen.
 */
const firstPainted = () =>
  requestAnimationFrame(() =>
    setTimeout(() => {
      performance.mark('fettle:first-hunk');
      document.body.dataset.firstHunk = String(Math.round(performance.now()));
    }),
  );

const review = new Review(state, new Lazy(firstPainted), highlighter, {
  changed: () => {
    applier.summary();
    refreshPending(side, state, sidebar);
  },
  refused: (e) => applier.refused(e),
});
const viewer = new Viewer(review, byId('viewer'), main, (e) => applier.refused(e));
const sidebar: SidebarHost = {
  open: (c: ReviewChange) => {
    if (state.change(c.id)) {
      viewer.close();
      review.goToChange(c.id);
    } else void viewer.show(c.id);
  },
};

/** The changes an Apply left holding undecided hunks: under review too, until decided (kept across reloads). */
const leftPending = (): string[] => {
  try {
    const ids: unknown = JSON.parse(sessionStorage.getItem(EXTRA_KEY) ?? '[]');
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
};

const load = async (remainders: string[] = []): Promise<void> => {
  const { review: data, drafts } = await api.review();
  const known = new Set(data.pending.map((c) => c.id));
  const extra: ReviewChange[] = [];
  for (const id of new Set([...leftPending(), ...remainders]).values()) {
    if (known.has(id)) continue;
    const found = await api.change(id).catch(() => null);
    if (found?.change.decidable) extra.push(found.change);
  }
  sessionStorage.setItem(EXTRA_KEY, JSON.stringify(extra.map((c) => c.id)));
  Object.assign(state, { data, drafts, pending: [...data.pending, ...extra] });
  byId('repo').textContent = data.repository;
  document.title = `fettle review · ${data.repository.split('/').pop() ?? ''}`;
  performance.mark('fettle:data');
  review.render(main);
  renderSidebar(side, state, sidebar);
  applier.summary();
};

applier = new Applier(state, review, load);

const setMode = (mode: 'unified' | 'split') => {
  for (const m of ['unified', 'split'] as const) byId(`mode-${m}`).setAttribute('aria-pressed', String(m === mode));
  review.setMode(mode);
  viewer.remode();
};

const decideCurrent = (decision: 'keep' | 'discard' | 'pending', advance: boolean) => {
  const h = review.currentHunk();
  if (!h || viewer.isOpen()) return;
  review.decide(h, decision);
  if (advance) review.move(1);
};

const wholeCurrent = (decision: 'confirm' | 'discard') => {
  const h = review.currentHunk();
  if (h && !viewer.isOpen()) review.decideWhole(h.change, decision);
};

const helpList = () =>
  byId('help-keys').replaceChildren(
    ...KEYS.map(([keys, what]) =>
      el('tr', {}, [
        el(
          'td',
          {},
          keys.map((k) => el('kbd', { text: k === 'Escape' ? 'Esc' : k })),
        ),
        el('td', { text: what }),
      ]),
    ),
  );

const wire = () => {
  byId('mode-unified').addEventListener('click', () => setMode('unified'));
  byId('mode-split').addEventListener('click', () => setMode('split'));
  byId('apply').addEventListener('click', () => void applier.ask());
  byId('done').addEventListener('click', () => void applier.done());
  byId('help-open').addEventListener('click', () => byId<HTMLDialogElement>('help').showModal());
  byId('help-close').addEventListener('click', () => byId<HTMLDialogElement>('help').close());
  helpList();
  bindKeys({
    next: () => viewer.isOpen() || review.move(1),
    previous: () => viewer.isOpen() || review.move(-1),
    keep: () => decideCurrent('keep', true),
    discard: () => decideCurrent('discard', true),
    undecide: () => decideCurrent('pending', false),
    keepAll: () => wholeCurrent('confirm'),
    discardAll: () => wholeCurrent('discard'),
    comment: () => {
      const h = review.currentHunk();
      if (h && !viewer.isOpen()) review.openComment(h);
    },
    toggleMode: () => setMode(review.mode() === 'split' ? 'unified' : 'split'),
    apply: () => void applier.ask(),
    help: () => byId<HTMLDialogElement>('help').showModal(),
    back: () => viewer.close(),
  });
};

const start = async () => {
  wire();
  setMode(review.mode());
  try {
    await load();
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    applier.refused(error, 'The review could not be loaded');
  }
  document.body.dataset.ready = '1';
  watchPending(
    // the scope's own changes: those an Apply left pending are not in the server's list
    () => (applier.busy() ? null : new Set(state.data?.pending.map((c) => c.id) ?? [])),
    () =>
      load().catch((e) =>
        e instanceof Refused ? applier.refused(e, 'The review could not be loaded') : Promise.reject(e),
      ),
  );
  // the worker starts after the first paint: its start would compete with it
  setTimeout(() => highlighter.begin());
};

void start();
