// The failed state of the edit pipeline: a confirm or an apply that fails leaves a record of the attempt and its
// reason on its own ref (refs/fettle/<id>, Fettle-Kind: failed), so `status` and `log` still show it after the
// message scrolled away, and a model that asked for it finds out in a later turn. The record changes no file and
// belongs to no changeset or session: it names the changes it was asked to apply (Fettle-Of), or the contract.
// A failure is open while what it was asked to do is still undone (unresolved, below). Bad input is not an
// attempt (an unknown id, a bad option, an expired change without --expired): only a pipeline that ran and failed.
import { renderRecord, type RecordFields } from '../../core/record-message';
import { FettleError, toFettleError } from '../../errors';
import type { Store } from '../../store/store';
import { writeBatch } from '../../store/objects';
import { changeRef } from '../../store/refs';
import { publish, type Written } from '../../store/publish';
import { hashObject } from '../../store/tree-codec';
import type { Change } from '../changes';
import type { Context } from '../context';
import { commandDecider } from '../decide/person-review';
import { newId, stamp } from '../ids';

/** What was attempted: a confirm of staged changes, or an apply of a contract (its real path and hash). */
export type Attempt =
  | { attempt: 'confirm'; changes: Change[] }
  | { attempt: 'apply'; contract: { path: string; treePath: string | undefined; hash: string } };

/** The errors a pipeline that ran can end in; the rest are bad input, answered on the spot. */
const FAILURES = new Set([
  'E_CONFLICT',
  'E_LOCKED',
  'E_IO',
  'E_GIT',
  'E_INTERNAL',
  'E_TOO_LARGE',
  'E_UNTRUSTED',
  'E_BLOCKED',
  'E_CONTRACT',
  'E_FORBIDDEN_PATH',
]);

/** The reason as the record keeps it: the message and its hint, capped (a conflict list can be long). */
const REASON_MAX_CHARS = 4000;
const reasonOf = (e: FettleError): string => [e.message, e.hint].filter(Boolean).join('\n').slice(0, REASON_MAX_CHARS);

const fieldsOf = (a: Attempt, e: FettleError, id: string, decidedBy: string): RecordFields => {
  const base = { id, kind: 'failed' as const, tier: 'staged' as const, attempt: a.attempt, code: e.code };
  const note = reasonOf(e);
  if (a.attempt === 'apply') {
    const { path, treePath, hash } = a.contract;
    return { ...base, path: treePath ?? path, file: path, contract: hash, contractPath: path, note, decidedBy };
  }
  const [first] = a.changes as [Change];
  const of = a.changes.map((c) => c.id).join(' ');
  return { ...base, path: first.fields.path, file: first.fields.file, of, note, decidedBy };
};

/**
 * The failure's commit: a root with an empty tree. It changes no file, and a chain read from it never runs on into
 * the change it names (Fettle-Of says which), whose own history stays its own.
 */
const commitOf = async (ctx: Context, store: Store, fields: RecordFields): Promise<Written & { commit: string }> => {
  const when = ctx.now();
  const message = renderRecord({ ...fields, ...stamp(when) });
  const body = Buffer.alloc(0);
  const empty = { oid: hashObject('tree', body, store.objectFormat), body, depth: 0 };
  const write = async () =>
    (await writeBatch(store, [empty], [{ tree: empty.oid, parents: [], message, when }]))[0] as string;
  const commit = await write();
  // A prune between this write and the ref's creation takes the commit: publish writes it again (store/publish.ts).
  return { commit, oids: [empty.oid, commit], rewrite: async () => void (await write()) };
};

/**
 * Records a failed attempt; returns what to tell the person: where the record is, or why it could not be made
 * (never thrown: the failure being recorded is what the caller reports).
 */
export const recordFailure = async (ctx: Context, store: Store, attempt: Attempt, e: FettleError): Promise<string> => {
  const id = newId();
  try {
    const fields = fieldsOf(attempt, e, id, commandDecider(ctx));
    const written = await commitOf(ctx, store, fields);
    const ref = { op: 'create' as const, ref: changeRef(id), oid: written.commit };
    await publish(store, [ref], `fettle: ${attempt.attempt} failed`, written);
    return `fettle recorded this failure as ${id} (\`fettle show ${id}\`); \`fettle status\` lists it until it is resolved.`;
  } catch (why) {
    return `fettle could not record this failure: ${toFettleError(why).message}`;
  }
};

/** Runs `run`; when it fails as a pipeline does, records the failure and rethrows it, its hint naming the record. */
export const recordingFailure = async <T>(
  ctx: Context,
  store: Store,
  attempt: Attempt | undefined,
  run: () => Promise<T>,
): Promise<T> => {
  try {
    return await run();
  } catch (error) {
    const e = toFettleError(error);
    if (!attempt || !FAILURES.has(e.code) || store.kind !== 'repo') throw error;
    if (attempt.attempt === 'confirm' && attempt.changes.length === 0) throw error;
    const said = await recordFailure(ctx, store, attempt, e);
    throw new FettleError(e.code, e.message, { cause: error, hint: [e.hint, said].filter(Boolean).join('\n') });
  }
};

/**
 * The failures still open, newest first: a confirm's while one of its changes is still waiting; a contract's until
 * a later apply of the same contract staged something or failed again (the newer failure is the one shown).
 */
export const unresolved = (changes: readonly Change[]): Change[] => {
  const byId = new Map(changes.map((c) => [c.id, c]));
  const waiting = (id: string) => {
    const s = byId.get(id)?.state;
    return s === 'pending' || s === 'expired';
  };
  const seen = new Set<string>();
  const open: Change[] = [];
  // newest first, so the first failure or staged change seen for a contract is its latest word
  for (const c of changes) {
    if (c.state !== 'failed') {
      if (c.fields.contractPath && c.fields.contract) seen.add(c.fields.contractPath);
      continue;
    }
    if (c.fields.attempt === 'confirm') {
      const of = (c.fields.of ?? '').split(' ').filter(Boolean);
      if (of.some(waiting) && !of.some((id) => seen.has(id))) open.push(c);
      for (const id of of) seen.add(id);
    } else if (c.fields.contractPath && !seen.has(c.fields.contractPath)) {
      open.push(c);
      seen.add(c.fields.contractPath);
    }
  }
  return open;
};
