// An agent session as git sees it: a ref name made from the agent's session id, and the commits on that ref
// (one per change that landed in the session). A session commit carries its own trailers, never a change's
// `Fettle-Id`/`Fettle-Kind`, so nothing that reads changes mistakes it for one.
import { createHash } from 'node:crypto';

/** Longest ref component fettle makes from a session id (file systems cap a name at 255 bytes). */
const MAX_NAME = 80;

/**
 * A session id as one valid ref component (git check-ref-format): letters, digits, `.`, `_` and `-`, no `..`,
 * no leading `.` or `-`, no `.lock` ending. An id that had to change gets a short hash of the raw id, so two
 * ids never share a name; Claude Code's UUIDs pass unchanged. The raw id is kept in the `Fettle-Session` trailer.
 */
export const sessionName = (raw: string): string => {
  let name = raw
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[.-]+/, '')
    .replace(/[.]+$/, '');
  if (name.endsWith('.lock')) name = name.slice(0, -5);
  if (name === raw && name.length > 0 && name.length <= MAX_NAME) return name;
  const hash = createHash('sha1').update(raw, 'utf8').digest('hex').slice(0, 10);
  return `${name.slice(0, MAX_NAME - 11)}${name ? '-' : ''}${hash}`;
};

/**
 * A change that landed (`write`, `apply`, `rollback`), or `found`: the bytes the next change of the session replaced,
 * where they were not what the session's tree held (another session's or the person's edits of the file), so each
 * change diffs against the bytes it replaced and nobody else's edits are shown as the session's.
 */
export type SessionEvent = 'write' | 'apply' | 'rollback' | 'found';

export interface SessionCommitFields {
  /** the agent's session id, as the agent sent it */
  session: string;
  /** the change that landed */
  change: string;
  event: SessionEvent;
  path: string;
  /** the user's commit the session started from; absent in the private store and for an unborn HEAD */
  base?: string | undefined;
  /** the agent turn (user prompt) the change was made in */
  turn?: number | undefined;
  added?: number | undefined;
  removed?: number | undefined;
  /** the change a rollback undid */
  reverts?: string | undefined;
  time?: number | undefined;
  seq?: number | undefined;
}

const VERB: Record<SessionEvent, string> = { write: 'write', apply: 'apply', rollback: 'roll back in', found: 'found' };
const oneLine = (value: string): string => (/^[^\n\r"\\]*$/.test(value) ? value : JSON.stringify(value));

export const renderSessionCommit = (f: SessionCommitFields): string => {
  const counts = f.added === undefined ? '' : ` (+${f.added} -${f.removed ?? 0})`;
  const what = f.event === 'rollback' ? 'A rollback' : `Change ${f.change}`;
  const turn = f.turn === undefined ? '' : `, turn ${f.turn}`;
  const said =
    f.event === 'found'
      ? `The bytes change ${f.change} replaced, which agent session ${oneLine(f.session)} did not write.`
      : `${what} landed in agent session ${oneLine(f.session)}${turn}.`;
  const trailers: [string, string | number | undefined][] = [
    ['Fettle-Change', f.change],
    ['Fettle-Event', f.event],
    ['Fettle-Path', oneLine(f.path)],
    ['Fettle-Session', oneLine(f.session)],
    ['Fettle-Turn', f.turn],
    ['Fettle-Reverts', f.reverts],
    ['Fettle-Base', f.base],
    ['Fettle-Time', f.time],
    ['Fettle-Seq', f.seq],
  ];
  const lines = trailers.filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => `${k}: ${v}`);
  return [`fettle: ${VERB[f.event]} ${oneLine(f.path)}${counts}`, '', said, '', ...lines, ''].join('\n');
};

const trailer = (message: string, key: string): string | undefined => {
  const at = message.lastIndexOf(`\n${key}: `);
  if (at < 0) return undefined;
  const start = at + key.length + 3;
  const end = message.indexOf('\n', start);
  const value = message.slice(start, end < 0 ? undefined : end);
  if (!value.startsWith('"')) return value;
  try {
    return String(JSON.parse(value));
  } catch {
    return value;
  }
};

const numberOf = (text: string | undefined): number | undefined =>
  text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : undefined;

/** The fields of a session commit; null for any other message. */
export const parseSessionCommit = (message: string): SessionCommitFields | null => {
  const change = trailer(message, 'Fettle-Change');
  const event = trailer(message, 'Fettle-Event');
  const session = trailer(message, 'Fettle-Session');
  const path = trailer(message, 'Fettle-Path');
  if (
    !change ||
    !session ||
    path === undefined ||
    !(event === 'write' || event === 'apply' || event === 'rollback' || event === 'found')
  )
    return null;
  const stat = /\(\+(\d+) -(\d+)\)$/.exec(message.split('\n')[0] ?? '');
  return {
    session,
    change,
    event,
    path,
    base: trailer(message, 'Fettle-Base'),
    turn: numberOf(trailer(message, 'Fettle-Turn')),
    added: stat ? Number(stat[1]) : undefined,
    removed: stat ? Number(stat[2]) : undefined,
    reverts: trailer(message, 'Fettle-Reverts'),
    time: numberOf(trailer(message, 'Fettle-Time')),
    seq: numberOf(trailer(message, 'Fettle-Seq')),
  };
};
