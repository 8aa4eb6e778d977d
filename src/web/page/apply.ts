// The summary bar's work: the counts, Apply (asked first: every draft goes as one decision set, all of it or
// none), what it did (what was applied, and the changes left holding the hunks still undecided), a refusal in
// the server's own words with the drafts kept, and Done, which stops the server.
import { api, type DecidedJson, Refused } from './api';
import { ask } from './dialog';
import { announce, button, byId, el, plural } from './dom';
import type { Review } from './review';
import type { ReviewState } from './state';
import { stopWatching } from './watch';

const list = (ns: number[]) => ns.join(', ');

const hunks = (ns: number[]) => `${ns.length === 1 ? 'hunk' : 'hunks'} ${list(ns)}`;

/** The changes the drafts decide that are past their time limit: a person may still apply them. */
export const expiredDecided = (state: ReviewState) =>
  state.pending.filter((c) => c.state === 'expired' && state.progress(c).decided > 0);

/** What the drafts will do, a line per change (and one for the comments). */
export const planLines = (state: ReviewState): string[] => {
  const lines = state.pending.flatMap((c) => {
    const whole = state.whole(c.id);
    const late =
      c.state === 'expired' ? ' (expired: applied only over the bytes it was staged on, or merged cleanly)' : '';
    if (whole) return [`${c.path}: ${whole === 'confirm' ? 'keep' : 'discard'} all of it${late}`];
    const by = (d: string) => c.hunks.filter((h) => state.decision(c.id, h.index) === d).map((h) => h.index);
    const [keep, drop, rest] = [by('keep'), by('discard'), by('pending')];
    if (keep.length + drop.length === 0) return [];
    const parts = [
      keep.length ? `keep ${hunks(keep)}` : '',
      drop.length ? `discard ${hunks(drop)}` : '',
      rest.length ? `${hunks(rest)} ${rest.length === 1 ? 'stays' : 'stay'} pending as a new change` : '',
    ];
    return [`${c.path}: ${parts.filter(Boolean).join('; ')}${late}`];
  });
  const comments = state.drafts.filter((d) => d.kind === 'comment').length;
  if (comments) lines.push(`${plural(comments, 'comment')} for the agent`);
  return lines;
};

const outcomeLine = (d: DecidedJson): string => {
  const path = d.change.fields.path;
  const p = d.picked;
  if (!p) return `${path} (${d.change.id}): ${d.outcome === 'confirmed' ? 'applied' : 'discarded'}.`;
  const parts = [
    p.keep.length ? `kept hunk${p.keep.length > 1 ? 's' : ''} ${list(p.keep)} of ${p.count}` : '',
    p.drop.length ? `dropped ${list(p.drop)}` : '',
    d.remainder ? `hunk${p.rest.length > 1 ? 's' : ''} ${list(p.rest)} left pending as change ${d.remainder}` : '',
  ];
  const conflicts = d.conflicts ? `; ${plural(d.conflicts, 'conflict')} marked in the file` : '';
  return `${path} (${d.change.id}): ${parts.filter(Boolean).join('; ')}${conflicts}.`;
};

export class Applier {
  private running = false;

  constructor(
    private readonly state: ReviewState,
    private readonly review: Review,
    private readonly reload: (remainders: string[]) => Promise<void>,
  ) {}

  /** An Apply is being asked about or made: what the page shows is about to change by its own doing. */
  busy(): boolean {
    return this.running;
  }

  summary(): void {
    const n = this.state.counts();
    byId('summary').replaceChildren(
      el('span', { text: `${plural(n.changes, 'change')} · ${plural(n.hunks, 'hunk')}` }),
      el('span', { class: 'count keep', text: `${n.keep} kept` }),
      el('span', { class: 'count discard', text: `${n.discard} discarded` }),
      el('span', { class: 'count pending', text: `${n.pending} undecided` }),
      el('span', { class: 'count', text: plural(n.comments, 'comment') }),
    );
    byId<HTMLButtonElement>('apply').disabled = !this.state.hasDrafts() || this.running;
  }

  /** Asks, then applies; `a` and the Apply button both come here, at most one at a time. */
  async ask(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.asked();
    } finally {
      this.running = false;
      this.summary();
    }
  }

  private async asked(): Promise<void> {
    await this.review.sent();
    if (!this.state.hasDrafts()) {
      this.banner('info', 'Nothing to apply yet', ['Keep or discard a hunk (y / x), or leave a comment (c), first.']);
      return;
    }
    const unsaved = this.review.unsaved();
    const answer = await ask({
      title: 'Apply these decisions?',
      lines: [
        ...planLines(this.state),
        ...(unsaved ? [`Not sent: ${plural(unsaved, 'comment box', 'comment boxes')} with text not saved`] : []),
      ],
      check: 'Where a file changed since, apply anyway and mark the conflicts in it',
      note: 'All of it is applied, or none of it.',
      yes: 'Apply',
      no: 'Cancel',
    });
    if (answer) await this.apply(answer.checked, expiredDecided(this.state).length > 0);
  }

  private async apply(withConflicts: boolean, expired: boolean): Promise<void> {
    this.summary();
    try {
      const { outcome } = await api.apply(withConflicts, expired);
      const remainders = outcome.decided.flatMap((d) => (d.remainder ? [d.remainder] : []));
      await this.reload(remainders);
      const lines = outcome.decided.map(outcomeLine);
      this.banner(
        'ok',
        'Applied',
        lines.length ? lines : ['The comments were recorded for the sessions that made the changes.'],
      );
      announce('Applied.');
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      this.refused(error, 'Nothing was applied');
    }
  }

  refused(error: Refused, title = 'Refused'): void {
    const r = error.refusal;
    this.banner('error', title, [r.message, ...(r.hint ? [r.hint] : []), 'Your decisions are kept.']);
  }

  banner(kind: 'ok' | 'error' | 'info', title: string, lines: string[]): void {
    const box = el('div', { class: `banner ${kind}`, attrs: { role: kind === 'error' ? 'alert' : 'status' } }, [
      el('strong', { text: title }),
      ...lines.map((line) => el('p', { text: line })),
    ]);
    box.append(button('Dismiss', () => box.remove(), { class: 'link dismiss', aria: `Dismiss: ${title}` }));
    byId('banners').replaceChildren(box);
    if (kind !== 'info') box.scrollIntoView({ block: 'nearest' });
  }

  async done(): Promise<void> {
    await this.review.sent();
    if (this.state.hasDrafts()) {
      const sure = await ask({
        title: 'Close the review without applying?',
        lines: planLines(this.state),
        note: 'These decisions were not applied; closing forgets them.',
        yes: 'Close the review',
        no: 'Keep reviewing',
      });
      if (!sure) return;
    }
    await stopWatching();
    await api.close().catch(() => undefined);
    document.body.replaceChildren(
      el('main', { class: 'closed' }, [
        el('h1', { text: 'The review is closed' }),
        el('p', { text: 'fettle stopped its server. You may close this tab.' }),
      ]),
    );
  }
}
