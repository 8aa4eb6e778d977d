// How a change is named in `log`, `show` and `review`: its state in words, its counts, its JSON row.
import { stat } from '../core/record-message';
import { shortDuration } from '../core/time';
import type { Change } from '../protocol/changes';
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
export const countsText = (c: Change): string => stat(c.fields.added, c.fields.removed) || c.fields.reason || '-';

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
});

/** Who decided a change's latest step, in a word or two (`fettle log`'s DECIDED BY column). */
export const deciderText = (c: Change): string => c.fields.decidedBy ?? '-';

/** What each Fettle-Decided-By value means, for `fettle show`. */
export const DECIDER_TEXT: Record<string, string> = {
  model: "the model (a fettle command run in the agent's shell)",
  person: 'a person (a fettle command run from a terminal)',
  prompt: "a person, at the agent's permission prompt",
  executor: "fettle apply's contract executor",
  threshold: 'the size thresholds (floor, ceil, ratio)',
};

/** Rows padded into columns, two spaces apart; the last column is not padded. */
export const table = (rows: string[][]): string[] => {
  const widths = rows.reduce<number[]>((w, row) => row.map((cell, i) => Math.max(w[i] ?? 0, cell.length)), []);
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

/** What `review` says of a change a contract staged: the contract, and its checks' outcome if they ran. */
export const contractLines = (c: Change, note: string | null): string[] => {
  const f = c.fields;
  if (!f.contract) return [];
  const head = `Contract: ${f.contractPath ?? '?'} (${f.contract.slice(0, 19)}…), applied by fettle apply.`;
  return [head, ...(note ? note.split('\n') : ["Checks: not run (`fettle apply --test` runs the contract's checks)."])];
};
