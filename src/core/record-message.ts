// The commit messages fettle writes, and reading them back. Each change is a short chain of commits on
// refs/fettle/<id>; the tip's `Fettle-Kind` says where the change stands. Written for people reading
// `git log`: a subject line, one sentence of what happened, then trailers.

export type RecordKind =
  | 'before' // the file as it was before the agent's write (parent: HEAD)
  | 'after' // a direct write, as it landed on disk
  | 'proposal' // a staged write, not applied
  | 'applied' // a staged write after `fettle confirm`
  | 'discarded' // a staged write after `fettle discard`
  | 'snapshot' // bytes found on disk before fettle replaced them (edits made outside fettle)
  | 'failed'; // a confirm or apply that failed, and why: its own ref, nothing written (protocol/record/failed.ts)

export type Tier = 'direct' | 'staged';

export interface RecordFields {
  id: string;
  kind: RecordKind;
  tier: Tier;
  path: string;
  /** the absolute path of the file written */
  file: string;
  session?: string | undefined;
  toolUse?: string | undefined;
  tool?: string | undefined;
  /** the agent that made the call (claude, codex, gemini, opencode, cursor, or an MCP client's name) */
  agent?: string | undefined;
  added?: number | undefined;
  removed?: number | undefined;
  /** why the decision was what it was: small, ratio, ceil, new-file, binary, oversize */
  reason?: string | undefined;
  /** extra lines for the body */
  note?: string | undefined;
  /** a rollback: the id of the change it undoes, or the space-separated ids of a file's changes undone at once
   * (`log` derives "rolled back" from it) */
  reverts?: string | undefined;
  /** a staged change only a person may apply: Claude Code asked them (`fettle confirm` from the agent is refused) */
  review?: 'person' | undefined;
  /**
   * When the record was written, in epoch milliseconds: a commit's own time has one-second resolution, and
   * changes made within one second must still sort (and be retired) in the order they were made.
   */
  time?: number | undefined;
  /** the agent turn (user prompt) of the session the change was made in */
  turn?: number | undefined;
  /** the writing process's count of records at this one: orders records written in the same millisecond */
  seq?: number | undefined;
  /**
   * The changeset the change belongs to: changes made as one unit (one command that wrote several files) or
   * decided as one unit share this id, and every command that takes an id takes it for all of them.
   */
  changeset?: string | undefined;
  /** a discarded proposal that a newer one for the same file, from the same session, replaced: the newer one's id */
  supersededBy?: string | undefined;
  /** a change made by a shell command (the Bash tool): the command line, one line, capped */
  command?: string | undefined;
  /** who decided this step of the change (decider.ts): model, person, prompt, policy:<rule>, executor, threshold */
  decidedBy?: string | undefined;
  /** a change a contract made: the hash of the contract's canonical form (`sha256:<hex>`), and its real path */
  contract?: string | undefined;
  contractPath?: string | undefined;
  /** the outcome of the contract's checks in the test tree (`fettle apply --test`) */
  checks?: 'passed' | 'failed' | undefined;
  /** a staged change holding the hunks left pending when part of another was decided: that change's id */
  splitFrom?: string | undefined;
  /**
   * A decision about part of a change: the hunks it took, as `1,3 of 3` (an applied or discarded change: kept or
   * dropped; a rollback: the hunks of the change in Fettle-Reverts it undid, which stays in effect otherwise).
   */
  hunks?: string | undefined;
  /** a `failed` record: what failed, the changes it was asked to apply (space-separated ids), the error's code */
  attempt?: 'confirm' | 'apply' | undefined;
  of?: string | undefined;
  code?: string | undefined;
}

const SUBJECT: Record<RecordKind, string> = {
  before: 'before',
  after: 'write',
  proposal: 'stage',
  applied: 'apply',
  discarded: 'discard',
  snapshot: 'snapshot',
  failed: 'failed',
};

const BODY: Record<RecordKind, string> = {
  before: 'The file as it was on disk before the agent wrote it.',
  after: 'The agent wrote this change directly; its parent holds the previous bytes.',
  proposal: 'Proposed by the agent and held for review: nothing was written to disk.',
  applied: 'The staged change was confirmed and written to disk.',
  discarded: 'The staged change was discarded; the file on disk was not touched.',
  snapshot: 'Bytes found on disk before fettle replaced them, kept so they can be restored.',
  failed: 'An attempt to apply changes failed; nothing of it was written. Why:',
};

/** A rollback is a direct change like any other; its messages say what it undid. */
const ROLLBACK_BODY: Partial<Record<RecordKind, (id: string) => string>> = {
  before: (id) => `The file as it was on disk before fettle rolled back change ${id}.`,
  after: (id) =>
    `fettle rolled back change ${id}, restoring the bytes it had replaced; the parent holds what was on disk before.`,
};

/** A change a shell command made: the bytes before it ran, then what it left. */
const COMMAND_BODY: Partial<Record<RecordKind, string>> = {
  before: 'The file as it was on disk before the Bash command in Fettle-Command ran (no file: the command created it).',
  after:
    'What the Bash command in Fettle-Command left on disk (no file: it deleted it); the parent holds what was there before.',
};

/** A change a contract made (`fettle apply`): fettle's executor wrote it from the contract, not the agent. */
const CONTRACT_BODY: Partial<Record<RecordKind, (path: string, hash: string) => string>> = {
  before: (path) => `The file as it was on disk before the edits of contract ${path}.`,
  proposal: (path, hash) =>
    `Applied from contract ${path} (${hash}) by fettle's executor and held for review: nothing was written to disk.`,
};

/** Trailer values are one line; a path with a newline or quote is written as a JSON string. */
const encodeValue = (value: string): string =>
  /^[^\n\r"\\]*$/.test(value) && value.trim() === value ? value : JSON.stringify(value);
const decodeValue = (value: string): string => {
  if (!value.startsWith('"')) return value;
  try {
    return String(JSON.parse(value));
  } catch {
    return value;
  }
};

export const stat = (added?: number, removed?: number): string =>
  added === undefined ? '' : `+${added} -${removed ?? 0}`;

export const renderRecord = (f: RecordFields): string => {
  const counts = stat(f.added, f.removed);
  // The `before` record holds the old bytes; the counts describe the change that follows it.
  const several = f.reverts?.includes(' ') ? `${f.reverts.split(' ').length} changes` : f.reverts;
  const verb =
    f.reverts && f.kind === 'after'
      ? `roll back ${several} in`
      : f.command !== undefined && f.kind === 'after'
        ? `Bash ${f.reason ?? 'changed'}`
        : f.kind === 'failed'
          ? `${f.attempt ?? 'apply'} failed for`
          : SUBJECT[f.kind];
  const subject = `fettle: ${verb} ${encodeValue(f.path)}${counts && f.kind !== 'before' ? ` (${counts})` : ''}`;
  const trailers: [string, string | undefined][] = [
    ['Fettle-Id', f.id],
    ['Fettle-Kind', f.kind],
    ['Fettle-Tier', f.tier],
    ['Fettle-Path', f.path],
    ['Fettle-File', f.file],
    ['Fettle-Stat', counts || undefined],
    ['Fettle-Reason', f.reason],
    ['Fettle-Tool', f.tool],
    ['Fettle-Agent', f.agent],
    ['Fettle-Session', f.session],
    ['Fettle-Tool-Use', f.toolUse],
    ['Fettle-Command', f.command],
    ['Fettle-Turn', f.turn === undefined ? undefined : String(f.turn)],
    ['Fettle-Changeset', f.changeset],
    ['Fettle-Reverts', f.reverts],
    ['Fettle-Superseded-By', f.supersededBy],
    ['Fettle-Review', f.review],
    ['Fettle-Decided-By', f.decidedBy],
    ['Fettle-Contract', f.contract],
    ['Fettle-Contract-Path', f.contractPath],
    ['Fettle-Checks', f.checks],
    ['Fettle-Split-From', f.splitFrom],
    ['Fettle-Hunks', f.hunks],
    ['Fettle-Attempt', f.attempt],
    ['Fettle-Of', f.of],
    ['Fettle-Error', f.code],
    ['Fettle-Time', f.time === undefined ? undefined : String(f.time)],
    ['Fettle-Seq', f.seq === undefined ? undefined : String(f.seq)],
  ];
  const rollbackBody = f.reverts ? ROLLBACK_BODY[f.kind]?.(f.reverts) : undefined;
  const commandBody = f.command !== undefined ? COMMAND_BODY[f.kind] : undefined;
  const contractBody =
    f.contract !== undefined ? CONTRACT_BODY[f.kind]?.(f.contractPath ?? 'contract', f.contract) : undefined;
  const body = [rollbackBody ?? commandBody ?? contractBody ?? BODY[f.kind], f.note].filter(Boolean).join('\n\n');
  const lines = trailers
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}: ${encodeValue(String(v))}`);
  return `${subject}\n\n${body}\n\n${lines.join('\n')}\n`;
};

/** The lines after the last blank (or whitespace-only) line of a message. */
const lastParagraph = (message: string): string[] => {
  const lines = message.trimEnd().split('\n');
  let start = lines.length;
  while (start > 0 && (lines[start - 1] as string).trim() !== '') start--;
  return lines.slice(start);
};

const TRAILER_KEY = /^Fettle-[A-Za-z-]+$/;
/** A Fettle-Decided-By value: one of the deciders, or a policy rule's label. */
const DECIDER = /^(model|person|script|prompt|executor|threshold|policy:[A-Za-z0-9._#-]{1,80})$/;

/** A change or changeset id: 8 lowercase alphanumerics (protocol/ids.ts draws them). */
export const isChangeId = (value: string): boolean => /^[0-9a-z]{8}$/.test(value);
const LINE_BREAK = /[\r\u2028\u2029]/;

/**
 * What parseRecord makes of a message, versioned: records parsed once are kept by commit id (protocol/tip-cache.ts)
 * under this number. Change it whenever parseRecord reads something new or reads it differently
 * (test/core/record-message.test.ts pins the fields of a record that has every trailer).
 */
export const RECORD_PARSE_VERSION = 2;

/** The trailers records gained over time, each only when present and well formed. */
const laterFields = (fields: Map<string, string>): Partial<RecordFields> => {
  const changeset = fields.get('Fettle-Changeset');
  const supersededBy = fields.get('Fettle-Superseded-By');
  const command = fields.get('Fettle-Command');
  const decidedBy = fields.get('Fettle-Decided-By');
  const contract = fields.get('Fettle-Contract');
  const contractPath = fields.get('Fettle-Contract-Path');
  const checks = fields.get('Fettle-Checks');
  const splitFrom = fields.get('Fettle-Split-From');
  const hunks = fields.get('Fettle-Hunks');
  const attempt = fields.get('Fettle-Attempt');
  const of = fields.get('Fettle-Of');
  const code = fields.get('Fettle-Error');
  return {
    ...(changeset && isChangeId(changeset) ? { changeset } : {}),
    ...(supersededBy && isChangeId(supersededBy) ? { supersededBy } : {}),
    ...(command !== undefined ? { command } : {}),
    ...(decidedBy && DECIDER.test(decidedBy) ? { decidedBy } : {}),
    ...(contract && /^sha256:[0-9a-f]{64}$/.test(contract) ? { contract } : {}),
    ...(contractPath ? { contractPath } : {}),
    ...(checks === 'passed' || checks === 'failed' ? { checks } : {}),
    ...(splitFrom && isChangeId(splitFrom) ? { splitFrom } : {}),
    ...(hunks && /^\d[\d,-]* of \d+$/.test(hunks) ? { hunks } : {}),
    ...(attempt === 'confirm' || attempt === 'apply' ? { attempt } : {}),
    ...(of && of.split(' ').every(isChangeId) ? { of } : {}),
    ...(code && /^E_[A-Z_]{1,40}$/.test(code) ? { code } : {}),
  };
};

/** Read for every change `status` and `log` list (a thousand at a time): string scans, no regex per line. */
export const parseRecord = (message: string): RecordFields | null => {
  const fields = new Map<string, string>();
  // Only the last paragraph holds trailers; nothing earlier (subject, note) can pose as one.
  for (const line of lastParagraph(message)) {
    if (!line.startsWith('Fettle-')) continue;
    const sep = line.indexOf(': ');
    if (sep < 0) continue;
    const key = line.slice(0, sep);
    const value = line.slice(sep + 2);
    if (TRAILER_KEY.test(key) && !LINE_BREAK.test(value)) fields.set(key, decodeValue(value));
  }
  const id = fields.get('Fettle-Id');
  const kind = fields.get('Fettle-Kind') as RecordKind | undefined;
  const path = fields.get('Fettle-Path');
  if (!id || !kind || !path || !Object.hasOwn(SUBJECT, kind)) return null;
  const statMatch = /^\+(\d+) -(\d+)$/.exec(fields.get('Fettle-Stat') ?? '');
  const reverts = fields.get('Fettle-Reverts');
  const review = fields.get('Fettle-Review') === 'person' ? 'person' : undefined;
  const time = /^\d{1,15}$/.test(fields.get('Fettle-Time') ?? '') ? Number(fields.get('Fettle-Time')) : undefined;
  const turn = /^\d{1,9}$/.test(fields.get('Fettle-Turn') ?? '') ? Number(fields.get('Fettle-Turn')) : undefined;
  const seq = /^\d{1,15}$/.test(fields.get('Fettle-Seq') ?? '') ? Number(fields.get('Fettle-Seq')) : undefined;
  return {
    id,
    kind,
    tier: fields.get('Fettle-Tier') === 'staged' ? 'staged' : 'direct',
    path,
    file: fields.get('Fettle-File') ?? path,
    session: fields.get('Fettle-Session'),
    toolUse: fields.get('Fettle-Tool-Use'),
    tool: fields.get('Fettle-Tool'),
    agent: fields.get('Fettle-Agent'),
    added: statMatch ? Number(statMatch[1]) : undefined,
    removed: statMatch ? Number(statMatch[2]) : undefined,
    reason: fields.get('Fettle-Reason'),
    // only when present, so a record without it round-trips to the same object
    ...(reverts ? { reverts } : {}),
    ...(review ? { review } : {}),
    ...(time !== undefined ? { time } : {}),
    ...(seq !== undefined ? { seq } : {}),
    ...(turn !== undefined ? { turn } : {}),
    ...laterFields(fields),
  };
};
