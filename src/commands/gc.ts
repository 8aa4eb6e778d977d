// `fettle gc [--dry-run] [--json]`: the retention policy in full, plus fettle's orphaned files; says what it freed.
import { byteSize } from '../core/byte-size';
import { shortDuration } from '../core/time';
import { createProgress } from '../io/progress';
import { collectGarbage, type GcReport } from '../protocol/upkeep/gc';
import { maintain, type MaintainReport } from '../protocol/upkeep/maintain';
import { openStore } from '../protocol/select/open';
import { contextFor, type Edge } from './edge';
import { plural } from '../core/plural';

const summary = (
  r: GcReport,
  config: { historyMaxAgeSeconds: number; historyMaxCount: number },
  dryRun: boolean,
): string[] => {
  const verb = dryRun ? 'Would remove' : 'Removed';
  const lines: string[] = [];
  if (r.removed.length > 0) {
    const byAge = r.removed.filter((x) => x.why === 'age').length;
    const reasons = [
      byAge && `${byAge} older than ${shortDuration(config.historyMaxAgeSeconds * 1000)}`,
      r.removed.length - byAge && `${r.removed.length - byAge} beyond the newest ${config.historyMaxCount}`,
    ];
    lines.push(
      `${verb} ${plural(r.removed.length, 'change')} from history (${reasons.filter(Boolean).join(', ')}): ${r.removed.map((x) => x.change.id).join(' ')}.`,
    );
  }
  if (r.worktrees.length > 0) {
    const bytes = r.worktrees.reduce((n, w) => n + w.bytes, 0);
    lines.push(
      `${verb} ${plural(r.worktrees.length, 'test tree')} no pending change or recent \`fettle test\` uses, freeing ${byteSize(bytes)}: ${r.worktrees.map((w) => w.name).join(' ')}.`,
    );
  }
  if (r.links.length > 0) lines.push(`${verb} ${plural(r.links.length, 'stale tool-use link file')}.`);
  if (r.bookkeeping.length > 0)
    lines.push(
      `${verb} ${plural(r.bookkeeping.length, 'stale bookkeeping file')} (answers to tool calls, the index of pending changes, idle sessions' state logs and what they read).`,
    );
  if (lines.length === 0) lines.push('Nothing to remove.');
  lines.push(`Kept ${plural(r.kept, 'change')} (${r.pending} pending).`);
  if (r.removed.length > 0 && !dryRun)
    lines.push(
      "The removed changes' objects are now unreachable: they go once older than git's gc.pruneExpire (2 weeks), as git's own gc would drop them.",
    );
  return lines;
};

const packing = (m: MaintainReport): string[] => {
  const lines: string[] = [];
  if (m.locks.includes('packed-refs.lock'))
    lines.push(
      'Removed packed-refs.lock, left by a fettle maintenance killed while it held it: git can delete refs here again.',
    );
  const refLocks = m.locks.filter((l) => l !== 'packed-refs.lock');
  if (refLocks.length > 0)
    lines.push(
      `Removed ${plural(refLocks.length, 'lock file')} under fettle's refs, left by killed processes: ${refLocks.join(' ')}.`,
    );
  if (m.refs && m.refs.pruned > 0)
    lines.push(`Moved ${plural(m.refs.pruned, 'ref')} of fettle's from loose files into packed-refs.`);
  if (m.rolledUp > 0) lines.push(`Rolled ${plural(m.rolledUp, 'small pack')} of fettle's into one.`);
  if (m.before !== m.after) {
    if (m.expired)
      lines.push(
        `Repacked fettle's objects with git's own rules: objects only removed changes reached and older than ${m.expired} are gone.`,
      );
    lines.push(`fettle's packs: ${byteSize(m.before)} -> ${byteSize(m.after)}.`);
  }
  for (const why of m.skipped) lines.push(`Not packed: ${why}.`);
  return lines;
};

export const gcCommand = async (
  edge: Edge,
  dir: string | undefined,
  o: { json?: boolean; dryRun?: boolean; auto?: boolean; expire?: string },
): Promise<void> => {
  const ctx = contextFor(edge, dir);
  const dryRun = o.dryRun ?? false;
  const store = await openStore(ctx);
  // Started by a hook after a write: maintenance only, quietly (retention ran in the hook).
  if (o.auto) {
    await maintain(ctx, store);
    return;
  }
  const progress = createProgress({ write: edge.io.errWrite, tty: edge.io.errTTY, columns: edge.io.columns });
  const report = await collectGarbage(ctx, store, { dryRun, progress });
  const packed = dryRun ? null : await maintain(ctx, store, { full: true, expire: o.expire });
  if (o.json) {
    const removed = report.removed.map((x) => ({
      id: x.change.id,
      path: x.change.fields.path,
      state: x.change.state,
      at: x.change.at.toISOString(),
      why: x.why,
    }));
    edge.io.out(
      JSON.stringify(
        {
          dryRun,
          removed,
          worktrees: report.worktrees,
          links: report.links,
          bookkeeping: report.bookkeeping,
          kept: report.kept,
          pending: report.pending,
          packs: packed,
        },
        null,
        2,
      ),
    );
    return;
  }
  edge.io.out([...summary(report, ctx.config, dryRun), ...(packed ? packing(packed) : [])].join('\n'));
};
