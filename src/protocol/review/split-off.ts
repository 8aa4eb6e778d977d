// What a change decided in part leaves behind: the hunks neither kept nor dropped, staged as a change of their own
// on what the decision wrote (or on the change's base, when nothing was kept), and the note on each record saying
// which hunks went where.
import { hunkListText } from '../../core/hunks';
import { plural } from '../../core/plural';
import type { Change } from '../changes';
import type { Confirmed } from './confirm';
import { type ChangeHunks, type Picked, withHunks } from '../hunks';

/** What a decision did to one change. */
export interface Decided {
  change: Change;
  outcome: 'confirmed' | 'discarded';
  /** a confirm: how the file was brought to it */
  how?: Confirmed['how'] | undefined;
  conflicts?: number | undefined;
  /** decided in part: which hunks, of how many */
  picked?: (Picked & { count: number }) | undefined;
  /** the new staged change holding the hunks left pending */
  remainder?: string | undefined;
}

/** A choice resolved against the change's hunks: whole, or in part with the hunks each side gets. */
export interface Resolved {
  change: Change;
  verdict: 'confirm' | 'discard';
  hunks?: ChangeHunks | undefined;
  picked?: Picked | undefined;
}

/** The hunks' counts, summed: what a record's Fettle-Stat says of part of a change. */
export const counted = (h: ChangeHunks, indexes: number[]) => ({
  added: h.hunks.filter((x) => indexes.includes(x.index)).reduce((s, x) => s + x.added, 0),
  removed: h.hunks.filter((x) => indexes.includes(x.index)).reduce((s, x) => s + x.removed, 0),
});

/** The change a decided-in-part change leaves: its pending hunks, staged on what the decision wrote (or on its base). */
export const remainderItem = (r: Resolved, decidedBy: string) => {
  const h = r.hunks as ChangeHunks;
  const p = r.picked as Picked;
  const mode = h.to?.mode ?? '100644';
  const start = p.keep.length > 0 ? withHunks(h, p.keep) : (h.from?.bytes ?? null);
  const { session, tool, agent, turn, review, changeset, path, file } = r.change.fields;
  const verb =
    p.keep.length > 0
      ? `${plural(p.keep.length, 'other was', 'others were')} applied`
      : `${p.drop.length === 1 ? 'hunk' : 'hunks'} ${hunkListText(p.drop)} ${p.drop.length === 1 ? 'was' : 'were'} dropped`;
  return {
    old: start && { bytes: start, mode: mode === '100755' ? 0o755 : 0o644 },
    fields: {
      tier: 'staged' as const,
      path,
      file,
      ...{ session, tool, agent, turn, review, changeset },
      reason: 'split',
      splitFrom: r.change.id,
      decidedBy,
      note: `${p.rest.length === 1 ? 'Hunk' : 'Hunks'} ${hunkListText(p.rest)} of the ${h.hunks.length} of change ${r.change.id}, left pending when the ${verb}.`,
      ...counted(h, p.rest),
    },
    next: { bytes: withHunks(h, [...p.keep, ...p.rest]), mode },
  };
};

export const noteOf = (r: Resolved, remainder: string | undefined): string => {
  const p = r.picked as Picked;
  const count = r.hunks?.hunks.length ?? 0;
  const which = (list: number[]) => `${list.length === 1 ? 'hunk' : 'hunks'} ${hunkListText(list)}`;
  const taken = r.verdict === 'confirm' ? `kept ${which(p.keep)} of ${count}` : '';
  const dropped = p.drop.length > 0 ? `dropped ${which(p.drop)}${taken ? '' : ` of ${count}`}` : '';
  const rest = remainder ? `the other ${plural(p.rest.length, 'hunk')} stay pending as change ${remainder}` : '';
  const text = [taken, dropped, rest].filter(Boolean).join('; ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
};
