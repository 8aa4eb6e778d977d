// What `rollback` is asked to undo, as changes: named targets (ids, changesets, fettle commits, or files, whose
// latest change still in effect is meant), or what an agent session did, in all or since a turn began.
import { resolveName } from '../../core/changeset';
import { FettleError } from '../../errors';
import { readDisk } from '../../io/atomic-write';
import type { Store, Target } from '../../store/store';
import { settledChanges, type Selection, openStore, openTarget } from '../select/open';
import { currentSession, findChange } from '../select/names';
import { inEffect } from '../changes';
import { newestFirst, notFound, type Change } from '../changes';
import type { Context } from '../context';
import { versionsOf, type Versions } from '../chains';
import { pickNext } from './rollback-plan';

/** Of changes recorded in the same second, the one the file shows last (see pickNext). */
const lastOf = async (target: Target, tied: Change[]): Promise<Change> => {
  if (tied.length < 2) return tied[0] as Change;
  const versions = await versionsOf(target.store, tied);
  const disk = await readDisk(target.realPath).catch(() => null);
  return tied[pickNext(tied, disk, new Map(tied.map((c, n) => [c.id, versions[n] as Versions])))] as Change;
};

const latestTo = async (ctx: Context, arg: string): Promise<{ store: Store; change: Change }> => {
  const target = await openTarget(ctx, arg);
  const all = await settledChanges(ctx, target.store);
  const toFile = all.filter((c) => c.fields.path === target.treePath);
  const live = toFile.filter(inEffect);
  const newest = live[0]?.at.getTime();
  if (live.length > 0)
    return {
      store: target.store,
      change: await lastOf(
        target,
        live.filter((c) => c.at.getTime() === newest),
      ),
    };
  if (toFile.length === 0) {
    // The baseline text: the argument names no change, no fettle commit, and no file fettle changed.
    const e = notFound(arg);
    throw new FettleError(e.code, e.message, {
      hint: `fettle has no record of changes to ${target.treePath} either. Run \`fettle log\` to list what fettle recorded.`,
    });
  }
  throw new FettleError(
    'E_NOT_FOUND',
    `No change fettle made to ${target.treePath} is left to roll back (each one is rolled back, or was never written).`,
    {
      hint: `See them with \`fettle log ${target.treePath}\`; undo a rollback by naming its id.`,
    },
  );
};

const sameOr = (known: Store | null, next: Store, arg: string): Store => {
  if (known && known.commonDir !== next.commonDir)
    throw new FettleError(
      'E_USAGE',
      `${arg} is in another repository than the other changes named; roll them back one repository at a time.`,
    );
  return next;
};

/**
 * A changeset id (not also a change id): its members still in effect; null when `arg` names no changeset. One
 * whose members are all undone or were never written refuses, saying so.
 */
const changesetMembers = (all: Change[], arg: string): Change[] | null => {
  const found = resolveName(
    arg,
    all.map((c) => ({ id: c.id, changeset: c.fields.changeset })),
  );
  if (found.kind !== 'changeset') return null;
  const members = all.filter((c) => found.members.includes(c.id));
  // Named by its id, a changeset of rollbacks is undone too (as naming a rollback's own id does).
  const live = members.filter((c) => c.state === 'applied' && !c.revertedBy);
  if (live.length === 0)
    throw new FettleError('E_NOT_FOUND', `No change of changeset ${arg} is left to roll back.`, {
      hint: `Its ${members.length} changes were rolled back already or never written; see them with \`fettle show ${arg}\`.`,
    });
  return live;
};

/** `rollback <target...>`: ids, commits or paths, all in one repository; each change once. */
export const selectTargets = async (ctx: Context, args: string[]): Promise<Selection> => {
  const home = await openStore(ctx);
  const all = await settledChanges(ctx, home);
  let store: Store | null = null;
  const picked = new Map<string, Change>();
  for (const arg of args) {
    const members = changesetMembers(all, arg);
    if (members) {
      store = sameOr(store, home, arg);
      for (const c of members) picked.set(c.id, c);
      continue;
    }
    const found = await findChange(home, all, arg);
    const next = found ? { store: home, change: found } : await latestTo(ctx, arg);
    store = sameOr(store, next.store, arg);
    picked.set(next.change.id, next.change);
  }
  if (!store)
    throw new FettleError(
      'E_USAGE',
      'Name a change id, a fettle commit or a file to roll back, or use --session <id>.',
    );
  return { store, changes: [...picked.values()].sort(newestFirst) };
};

/** `rollback --turn <n> [--session <id>]`: what that session did since turn n began, still in effect. */
export const selectTurn = async (ctx: Context, session: string | undefined, turn: number): Promise<Selection> => {
  const store = await openStore(ctx);
  const all = await settledChanges(ctx, store);
  const named = session ?? (await currentSession(ctx, all));
  if (named === undefined)
    throw new FettleError('E_NOT_FOUND', 'No agent session has changes recorded here.', {
      hint: "Name one with `--session <id>` (`fettle log` shows each change's session).",
    });
  const changes = all.filter((c) => c.fields.session === named && (c.fields.turn ?? 0) >= turn && inEffect(c));
  if (changes.length === 0) {
    throw new FettleError(
      'E_NOT_FOUND',
      `No change session '${named}' made since turn ${turn} began is left to roll back.`,
      { hint: `Run \`fettle log --session ${named}\` to see its changes by turn.` },
    );
  }
  return { store, changes };
};

/** `rollback --session <id>`: every change of that agent session still in effect, newest first. */
export const selectSession = async (ctx: Context, session: string): Promise<Selection> => {
  const store = await openStore(ctx);
  const changes = (await settledChanges(ctx, store)).filter((c) => c.fields.session === session && inEffect(c));
  if (changes.length === 0) {
    throw new FettleError('E_NOT_FOUND', `No change of session '${session}' is left to roll back.`, {
      hint: `Run \`fettle log --session ${session}\` to see what fettle recorded for it.`,
    });
  }
  return { store, changes };
};
