// The left column: the pending changes (file, +/-, who made it, how far decided) and the sessions as timelines:
// each turn with the prompt that started it and what was done in it (file writes, shell commands with their
// files, rollbacks, confirms and discards). A pending change opens in place; any other opens on its own.
import type { ReviewChange, ReviewSession, ReviewTurn } from '../../protocol/review/review-data';
import { provenance, shortSession } from './change-view';
import { el } from './dom';
import type { ReviewState } from './state';

export interface SidebarHost {
  open(change: ReviewChange): void;
}

const stat = (c: ReviewChange) =>
  el('span', { class: 'stat' }, [
    el('span', { class: 'add', text: `+${c.added ?? 0}` }),
    el('span', { class: 'del', text: `−${c.removed ?? 0}` }),
  ]);

const STATE: Record<ReviewChange['state'], string> = {
  pending: 'pending',
  expired: 'expired',
  applied: 'confirmed',
  discarded: 'discarded',
  incomplete: 'incomplete',
  failed: 'failed',
};

const stateOf = (c: ReviewChange): string =>
  c.reverts ? 'rollback' : c.tier === 'direct' ? (c.state === 'applied' ? 'written' : STATE[c.state]) : STATE[c.state];

const pendingEntry = (c: ReviewChange, state: ReviewState, host: SidebarHost): HTMLElement => {
  const p = state.progress(c);
  const whole = state.whole(c.id);
  return el('li', {}, [
    el(
      'button',
      { class: 'entry', attrs: { type: 'button', 'data-change': c.id }, on: { click: () => host.open(c) } },
      [
        el('span', { class: 'entry-line' }, [el('span', { class: 'path', text: c.path }), stat(c)]),
        el('span', { class: 'meta', text: provenance(c) || c.id }),
        el('span', { class: 'entry-line' }, [
          c.personOnly ? el('span', { class: 'badge person', text: 'person only' }) : null,
          el('span', {
            class: `progress${p.decided === p.of ? ' done' : ''}`,
            text: whole ? (whole === 'confirm' ? 'all kept' : 'all discarded') : `${p.decided}/${p.of} decided`,
          }),
        ]),
      ],
    ),
  ]);
};

/** A turn's changes as events: one per write or rollback, one per shell command with the files it changed. */
const events = (turn: ReviewTurn): ReviewChange[][] => {
  const out: ReviewChange[][] = [];
  for (const c of turn.changes) {
    const last = out[out.length - 1];
    const head = last?.[0];
    if (head && c.command && head.command === c.command && head.changeset === c.changeset) last.push(c);
    else out.push([c]);
  }
  return out;
};

const fileButton = (c: ReviewChange, host: SidebarHost) =>
  el(
    'button',
    {
      class: `file ${stateOf(c)}`,
      attrs: { type: 'button', 'data-change': c.id, title: `${c.path} (${c.id})` },
      on: { click: () => host.open(c) },
    },
    [el('span', { class: 'path', text: c.path }), stat(c), el('span', { class: 'badge', text: stateOf(c) })],
  );

const eventItem = (group: ReviewChange[], host: SidebarHost): HTMLElement => {
  const head = group[0] as ReviewChange;
  if (head.command)
    return el('li', { class: 'event bash' }, [
      el('code', { class: 'command', text: `$ ${head.command}`, attrs: { title: head.command } }),
      el(
        'ul',
        { class: 'files' },
        group.map((c) => el('li', {}, [fileButton(c, host)])),
      ),
    ]);
  const what = head.reverts ? `Rollback of ${head.reverts}` : head.tier === 'staged' ? 'Staged write' : 'Write';
  return el('li', { class: 'event' }, [el('span', { class: 'what', text: what }), fileButton(head, host)]);
};

const turnItem = (turn: ReviewTurn, host: SidebarHost): HTMLElement =>
  el('li', { class: 'turn' }, [
    el('div', { class: 'turn-head' }, [
      el('span', { text: turn.turn === null ? 'Outside a turn' : `Turn ${turn.turn}` }),
      turn.at ? el('time', { text: new Date(turn.at).toLocaleTimeString(), attrs: { datetime: turn.at } }) : null,
    ]),
    turn.prompt ? el('blockquote', { class: 'prompt', text: turn.prompt, attrs: { title: turn.prompt } }) : null,
    el(
      'ul',
      { class: 'events' },
      events(turn).map((g) => eventItem(g, host)),
    ),
  ]);

const sessionItem = (s: ReviewSession, host: SidebarHost): HTMLElement =>
  el('details', { class: 'session', attrs: { open: '' } }, [
    el('summary', {}, [
      el('span', { text: `Session ${shortSession(s.session)}`, attrs: { title: s.session } }),
      s.agent ? el('span', { class: 'meta', text: s.agent }) : null,
    ]),
    el(
      'ol',
      { class: 'turns' },
      s.turns.map((t) => turnItem(t, host)),
    ),
  ]);

export const renderSidebar = (side: HTMLElement, state: ReviewState, host: SidebarHost): void => {
  const sessions = state.data?.sessions ?? [];
  const parts = [
    el('h2', { class: 'side-title', text: `Pending (${state.pending.length})` }),
    el(
      'ul',
      { class: 'pending-list' },
      state.pending.map((c) => pendingEntry(c, state, host)),
    ),
    el('h2', { class: 'side-title', text: 'Sessions' }),
    sessions.length === 0 ? el('p', { class: 'meta', text: 'No agent session made these changes.' }) : null,
    ...sessions.map((s) => sessionItem(s, host)),
  ];
  side.replaceChildren(...parts.filter((x) => x !== null));
};

/** Updates the pending entries' progress after a decision, leaving the timelines as they are. */
export const refreshPending = (side: HTMLElement, state: ReviewState, host: SidebarHost): void => {
  const list = side.querySelector('.pending-list');
  list?.replaceChildren(...state.pending.map((c) => pendingEntry(c, state, host)));
};
