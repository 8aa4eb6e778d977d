// What a Bash command changed, recorded like any write: the protocol once for every edge. Before the command
// (PreToolUse), a snapshot of every path `git status` lists (bash-snapshot.ts); after it (PostToolUse, or
// PostToolUseFailure: a failed command can still have changed files), a second status and the comparison
// (bash-diff.ts), recorded as one changeset (bash-record.ts). A command whose PostToolUse never came (a headless
// run cancels it at exit) is settled at the end of the turn from the disk (bash-settle.ts). Only the
// repository holding the command's directory is looked at; files elsewhere are out of reach.
import { failpoint } from '../../io/failpoint';
import { realpathSync } from 'node:fs';
import type { StatusPaths } from '../../core/porcelain';
import { openStoreAt, commonDirNear, repoNear } from '../../store/locate';
import type { Store } from '../../store/store';
import { workStatus } from '../../store/status';
import type { Context } from '../context';
import { recordBash, type BashRecorded } from './bash-record';
import { findChanges } from './bash-diff';
import { ruleBashChanges } from './bash-policy';
import { snapshotEntries } from './bash-snapshot';
import { readStatCache, writeStatCache } from './bash-cache';
import { dropFlight, endFlight, startFlight, type Flight } from './bash-flight';
import { claimSnapshot, dropSnapshot, saveSnapshot, snapshotPath, takeSnapshot, type Snapshot } from './bash-state';
import { housekeep } from '../retention/housekeeping';
import { currentTurn } from '../turns';

/** A Bash tool call as an edge describes it. */
export interface BashCall {
  command: string;
  /** the shell's directory when the command starts */
  cwd: string;
  session?: string | undefined;
  toolUse?: string | undefined;
  /** the coding agent whose shell runs it (Fettle-Agent) */
  agent?: string | undefined;
  /** the agent's name for its shell tool (Fettle-Tool), when not Bash */
  tool?: string | undefined;
}

export type Before =
  /** the snapshot is kept; `paths`: how many paths it holds */
  | { kind: 'kept'; paths: number }
  /** nothing to do: outside any repository, no tool_use_id to find it by later, or a retried call */
  | { kind: 'skipped'; why: 'outside' | 'no-id' | 'retried' };

const msOf = (ns: bigint): number => Number(ns / 1_000_000n);

/** Before the command: the snapshot of every path git lists (see the file comment). */
export const beforeBash = async (ctx: Context, call: BashCall): Promise<Before> => {
  if (!call.toolUse) return { kind: 'skipped', why: 'no-id' };
  // The files alone say whether there is a repository here: no git process outside one.
  if ((await commonDirNear(call.cwd)) === null) return { kind: 'skipped', why: 'outside' };
  // The resident server knows the repository from an earlier call (no git process); HEAD is not waited for.
  const store = await openStoreAt(call.cwd, ctx.env, ctx.config.dataDir, { resident: ctx.resident, early: true });
  if (store.kind !== 'repo') return { kind: 'skipped', why: 'outside' };
  const path = snapshotPath(ctx.config.dataDir, call.session, call.toolUse);
  const startNs = await claimSnapshot(path);
  if (startNs === null) return { kind: 'skipped', why: 'retried' };
  // The status starts once the claim has fixed startNs (what changes after it is racy), and runs while the
  // small files are read and written.
  const listing = workStatus(store.workTree, ctx.env);
  listing.catch(() => undefined); // awaited below; a failure of the steps before it must not go unhandled
  try {
    const flight: Flight = { session: call.session, toolUse: call.toolUse, start: msOf(startNs) };
    const [, cache, turn] = await Promise.all([
      startFlight(store.commonDir, flight),
      readStatCache(store.commonDir, store.workTree),
      currentTurn(ctx.config.dataDir, call.session),
    ]);
    const status = await listing;
    const limits = { maxBytes: ctx.config.bashMaxFileBytes, maxFiles: ctx.config.bashMaxFiles };
    const kept = await snapshotEntries(store, [...status.paths.values()], { ...limits, startNs, cache });
    await failpoint('bash.snapshot-read');
    const snapshot: Snapshot = {
      version: 1,
      session: call.session,
      toolUse: call.toolUse,
      ...(call.agent === undefined ? {} : { agent: call.agent }),
      ...(call.tool === undefined ? {} : { tool: call.tool }),
      command: call.command,
      turn,
      workTree: store.workTree,
      commonDir: store.commonDir,
      head: status.head,
      startNs: String(startNs),
      startedAt: msOf(startNs),
      entries: kept.entries,
      kept: status.kept,
    };
    await saveSnapshot(path, snapshot);
    await writeStatCache(store.commonDir, store.workTree, kept.cache, cache);
    return { kind: 'kept', paths: kept.entries.length };
  } catch (error) {
    await dropSnapshot(path);
    throw error;
  }
};

export type After =
  | { kind: 'none' }
  | ({ kind: 'recorded'; store: Store; workTree: string; policyInvalid?: string | undefined } & BashRecorded);

const OVERLAP_NOTE = (others: Flight[]): string =>
  `Another Bash call ran in this repository at the same time (${others
    .slice(0, 3)
    .map((o) => `${o.session ? `session ${o.session}, ` : ''}tool use ${o.toolUse}`)
    .join(
      '; ',
    )}${others.length > 3 ? `; and ${others.length - 3} more` : ''}): some of these changes may be its, and some of its may be recorded here.`;

/**
 * Records what `snapshot`'s command changed, as the disk shows it now. `extra`: lines for every record;
 * `exclude`: paths not to record (changes other records already hold).
 */
export const settleSnapshot = async (
  ctx: Context,
  snapshot: Snapshot,
  o: { extra?: string[]; exclude?: (path: string) => boolean; listing?: Promise<StatusPaths> | undefined } = {},
): Promise<After> => {
  if ((await commonDirNear(snapshot.workTree)) === null) return { kind: 'none' }; // the repository went
  const store = await openStoreAt(snapshot.workTree, ctx.env, ctx.config.dataDir, { resident: ctx.resident });
  if (store.kind !== 'repo' || store.workTree !== snapshot.workTree) return { kind: 'none' };
  const flight: Flight = { session: snapshot.session, toolUse: snapshot.toolUse, start: snapshot.startedAt };
  const found = await findChanges(ctx, store, snapshot, o.listing);
  await failpoint('bash.changes-found');
  if (found.changes.length === 0) {
    // Nothing another call records can be this one's: every path it could have changed ended as it began.
    await dropFlight(store.commonDir, flight);
    return { kind: 'none' };
  }
  const overlapping = await endFlight(store.commonDir, flight);
  const changed = o.exclude ? found.changes.filter((c) => !o.exclude?.(c.path)) : found.changes;
  if (changed.length === 0) return { kind: 'none' };
  const ruled = ruleBashChanges(ctx, store, changed);
  const { changes } = ruled;
  if (changes.length === 0) return { kind: 'none' }; // every path under an `ignore` rule
  const extra = [
    ...(o.extra ?? []),
    ...(overlapping.length > 0 ? [OVERLAP_NOTE(overlapping)] : []),
    ...(ruled.invalid ? [`No policy rule was applied, so nothing was left out: ${ruled.invalid}`] : []),
  ];
  const recorded = await recordBash(ctx, store, snapshot, {
    changes,
    listed: found.listed,
    overlapping,
    extra,
    decidedBy: ruled.decidedBy,
    blocked: ruled.blocked,
  });
  await failpoint('bash.recorded');
  await housekeep(ctx, store);
  return { kind: 'recorded', store, workTree: snapshot.workTree, ...recorded, policyInvalid: ruled.invalid };
};

/**
 * The status of the repository holding `dir`, started at once: the command has ended, and the snapshot is
 * almost always of that repository, so the status runs while the snapshot is taken and the store opened.
 */
const statusNear = async (
  ctx: Context,
  dir: string,
): Promise<{ workTree: string; status: Promise<StatusPaths> } | null> => {
  const repo = await repoNear(dir);
  if (!repo) return null;
  const workTree = realpathSync.native(repo.workTree); // as repoNear's calls, without a thread pool's round trip
  const status = workStatus(workTree, ctx.env);
  status.catch(() => undefined); // awaited by the comparison, when the snapshot is of this work tree
  return { workTree, status };
};

/**
 * After the command (PostToolUse, or PostToolUseFailure with its error): what it changed, recorded; nothing when
 * no snapshot was kept for the call (a read-only command, outside a repository) or another process has it.
 */
export const afterBash = async (ctx: Context, call: BashCall, failed?: { error?: string }): Promise<After> => {
  if (!call.toolUse) return { kind: 'none' };
  const near = statusNear(ctx, call.cwd);
  near.catch(() => undefined); // awaited below unless there is no snapshot to compare with
  const claimed = await takeSnapshot(snapshotPath(ctx.config.dataDir, call.session, call.toolUse));
  if (!claimed) return { kind: 'none' };
  try {
    const extra = failed
      ? [`The command failed${failed.error ? `: ${failed.error.split('\n')[0]?.slice(0, 300)}` : ''}.`]
      : [];
    const guess = await near.catch(() => null);
    const listing = guess?.workTree === claimed.value.workTree ? guess.status : undefined;
    const after = await settleSnapshot(ctx, claimed.value, { extra, listing });
    await claimed.release();
    return after;
  } catch (error) {
    await claimed.restore();
    throw error;
  }
};
