// How a change is named in `log`, `show` and `review`: its state in words, its counts, its JSON row, and what
// `review` says of a staged one.
import { plural } from '../core/plural';
import { stat } from '../core/record-message';
import { INSTRUCTIONS_HEAD } from '../core/contract';
import { shortDuration } from '../core/time';
import type { Change } from '../protocol/changes';
import type { BaseMove } from '../protocol/review/review';
import type { Store } from '../store/store';

/** applied / pending / expired / discarded / incomplete, or rolled back or superseded, with the other change's id. */
export const stateText = (c: Change): string => {
  if (c.revertedBy) return `rolled back by ${c.revertedBy}`;
  if (c.state === 'discarded' && c.fields.supersededBy) return `superseded by ${c.fields.supersededBy}`;
  if (c.fields.reverts) {
    const ids = c.fields.reverts.split(' ');
    return `${c.state} (rolls back ${ids.length > 3 ? `${ids.length} changes` : ids.join(', ')})`;
  }
  return c.state;
};

/** `+3 -1`, or the reason there are no counts (new-file, binary, …). */
export const countsText = (c: Change): string =>
  stat(c.fields.added, c.fields.removed) || c.fields.reason || c.fields.code || '-';

export const ago = (now: Date, at: Date): string => `${shortDuration(now.getTime() - at.getTime())} ago`;

export const expiryText = (c: Change, now: Date): string | undefined => {
  if (!c.expiresAt) return undefined;
  const left = c.expiresAt.getTime() - now.getTime();
  return left > 0 ? `expires in ${shortDuration(left)}` : `expired ${shortDuration(-left)} ago`;
};

export const changeJson = (c: Change) => ({
  id: c.id,
  ref: c.ref || null,
  commit: c.tip,
  at: c.at.toISOString(),
  state: c.revertedBy ? 'rolled-back' : c.state,
  rolledBackBy: c.revertedBy ?? null,
  reverts: c.fields.reverts ?? null,
  tier: c.fields.tier,
  kind: c.fields.kind,
  path: c.fields.path,
  file: c.fields.file,
  added: c.fields.added ?? null,
  removed: c.fields.removed ?? null,
  reason: c.fields.reason ?? null,
  session: c.fields.session ?? null,
  agent: c.fields.agent ?? null,
  turn: c.fields.turn ?? null,
  changeset: c.fields.changeset ?? null,
  supersededBy: c.fields.supersededBy ?? null,
  tool: c.fields.tool ?? null,
  toolUse: c.fields.toolUse ?? null,
  command: c.fields.command ?? null,
  /** 'person': only a person may confirm it (Claude Code asked them) */
  review: c.fields.review ?? null,
  /** who decided its latest step: model, person, prompt, policy:<rule>, executor, threshold */
  decidedBy: c.fields.decidedBy ?? null,
  contract: c.fields.contract ?? null,
  contractPath: c.fields.contractPath ?? null,
  checks: c.fields.checks ?? null,
  expiresAt: c.expiresAt?.toISOString() ?? null,
  // a failed confirm or apply: what was attempted, of which changes, the error's code and the reason in full
  ...(c.state === 'failed'
    ? {
        failure: {
          attempt: c.fields.attempt ?? null,
          of: (c.fields.of ?? '').split(' ').filter(Boolean),
          code: c.fields.code ?? null,
          reason: c.fields.note ?? '',
        },
      }
    : {}),
});

/** Who decided a change's latest step, in a word or two (`fettle log`'s DECIDED BY column). */
export const deciderText = (c: Change): string => c.fields.decidedBy ?? '-';

/** What each Fettle-Decided-By value means, for `fettle show`. */
export const DECIDER_TEXT: Record<string, string> = {
  model: 'the model (a fettle command the agent ran, or its MCP tool call)',
  person: 'a person (a fettle command run at a terminal, with no agent above it)',
  script: 'a fettle command with no terminal and no agent seen (a script, or a process that left the agent)',
  prompt: "a person, at the agent's permission prompt",
  executor: "fettle apply's contract executor",
  threshold: 'the size thresholds (floor, ceil, ratio)',
};

/** Rows padded into columns, two spaces apart; the last column is not padded. */
export const table = (rows: string[][]): string[] => {
  // A thousand rows for `log`: one array of widths, updated in place.
  const widths: number[] = [];
  for (const row of rows)
    for (let i = 0; i < row.length; i++) widths[i] = Math.max(widths[i] ?? 0, row[i]?.length ?? 0);
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
};

/** Where `status` and `log` look, said when it is not the repository the user is in. */
export const storeNote = (store: Store): string[] =>
  store.kind === 'private'
    ? [
        `Not in a git repository: showing what fettle recorded for files outside any repository (its private store, ${store.commonDir}).`,
      ]
    : [];

export const storeJson = (store: Store) => ({
  kind: store.kind === 'repo' ? 'repository' : 'private',
  path: store.kind === 'repo' ? store.workTree : store.commonDir,
});
/** ` of changeset <id>`, ` of session <id>`, or nothing: what a decision of several was asked for. */
/** The paragraph a contract's checks left in its proposal's message (contract-checks.ts), if they ran. */
export const checksNoteOf = (messages: string[]): string | null => {
  for (const m of messages) {
    const note = m.split('\n\n').find((p) => /^Checks (passed|failed) in the test tree/.test(p));
    if (note) return note;
  }
  return null;
};

/** The instructions a contract gave for a change's edits, from its chain's messages (contract-records.ts). */
export const instructionsIn = (messages: string[]): string[] => {
  for (const m of messages) {
    const said = m.split('\n\n').find((p) => p.startsWith(INSTRUCTIONS_HEAD));
    if (said) return said.split('\n');
  }
  return [];
};

/** What `review` says of a change a contract staged: the contract, its checks' outcome if they ran, its instructions. */
export const contractLines = (c: Change, note: string | null, instructions: string[] = []): string[] => {
  const f = c.fields;
  if (!f.contract) return [];
  const head = `Contract: ${f.contractPath ?? '?'} (${f.contract.slice(0, 19)}…), applied by fettle apply.`;
  const checks = note ? note.split('\n') : ["Checks: not run (`fettle apply --test` runs the contract's checks)."];
  return [head, ...checks, ...instructions];
};

/** Where a staged change's review starts from, and how far HEAD has moved since. */
export const baseLine = (m: BaseMove, path: string, kind: Store['kind']): string => {
  if (kind === 'private') return 'Base: none (the file is outside any repository).';
  const base = m.base ? `${m.base.slice(0, 12)} (HEAD when it was staged)` : 'no commit (HEAD was unborn)';
  let moved: string;
  if (m.head === m.base) moved = 'HEAD has not moved since';
  else if (!m.head) moved = 'HEAD is unborn now';
  else
    moved = `HEAD has moved ${plural(m.ahead, 'commit')} ahead${m.behind > 0 ? ` and ${m.behind} behind` : ''} since (now ${m.head.slice(0, 12)})`;
  const file = m.fileMoved && m.head !== m.base ? `; ${path} differs on HEAD, so expect a merge` : '';
  return `Base: ${base}; ${moved}${file}.`;
};

/** The commands that decide on, test or push a change under review, as far as its state allows. */
export const nextSteps = (c: Change, invoke: string): string[] => {
  const lines: string[] = [];
  if (c.state === 'pending') lines.push(`To apply it:  ${invoke} confirm ${c.id}`);
  if (c.state === 'expired')
    lines.push(`To apply it:  ${invoke} confirm ${c.id} --expired   (past its time: a person only)`);
  if (c.state === 'pending' || c.state === 'expired') {
    lines.push(`To drop it:   ${invoke} discard ${c.id}`, `To test it:   ${invoke} test ${c.id} -- <command>`);
  }
  lines.push(`To push it:   ${invoke} review ${c.id} --push [remote]`);
  // The proposal's own commit: exactly the proposed change (HEAD against it would add uncommitted edits of the file).
  if (c.state === 'pending' || c.state === 'expired') lines.push(`With git:     git show fettle/${c.id}`);
  return lines;
};

/** A change's review opens with its subject, then its state, when it was staged and by which session. */
export const reviewHeader = (c: Change, subject: string, now: Date): string[] => {
  const state =
    c.state === 'pending'
      ? `pending, ${expiryText(c, now) ?? ''}`
      : c.state === 'expired'
        ? (expiryText(c, now) ?? 'expired')
        : stateText(c);
  const who = c.fields.session ? ` by session ${c.fields.session}` : '';
  return [
    subject,
    `Change ${c.id}: ${state}; staged ${ago(now, c.at)}${who}${c.fields.tool ? ` (${c.fields.tool})` : ''}.`,
  ];
};
