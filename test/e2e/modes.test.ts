// Each permission mode, through the real client: a small Edit and a large Write in one headless session, and the
// outcome the table in docs/HOOK.md promises. fettle's hook runs before the client's own permission decision, so
// staging must never turn a write the client would refuse, or ask about, into one the model can apply.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lines } from '../helpers/repo';
import { A_AND_B, changesIn, e2eRepo, explain, session, smallEditThenLargeWrite } from './session';

interface Expect {
  /** the small Edit lands */
  smallWritten: boolean;
  /** how the large Write ends: its text to the model, and the change fettle keeps (none: nothing staged) */
  large: RegExp;
  largeState: string | null;
  env?: Record<string, string>;
}

const CONFIRM =
  /^PreToolUse:Write hook error: fettle held this write for review: nothing was written to b\.txt\.\nStaged change \w+: .*\nTo apply it, run: .+ confirm \w+$/m;
const PERSON =
  /^fettle: this is a large change to b\.txt \(\+30 -30 to a 30-line file; .*\), so a person must approve it\. It is staged as (\w+): see exactly what it changes with `[^`]* review \1`\. .*If nobody approved it, nothing was written, and fettle drops the change when this turn ends: do not retry it; tell the user/;
const REFUSED =
  /^PreToolUse:Write hook error: fettle refused this write: nothing was written to b\.txt and nothing was staged\./;
const PLAN = /^Cannot write to .*b\.txt while in plan mode\.$/;

// [mode as the client's --permission-mode names it, what fettle sees in permission_mode, the outcome]
const MODES: [string, Expect][] = [
  // `manual` is the client's name for the default mode; hooks see permission_mode "default". -p cannot prompt.
  ['manual', { smallWritten: false, large: PERSON, largeState: 'discarded' }],
  ['acceptEdits', { smallWritten: true, large: CONFIRM, largeState: 'pending' }],
  ['dontAsk', { smallWritten: false, large: REFUSED, largeState: null }],
  ['bypassPermissions', { smallWritten: true, large: CONFIRM, largeState: 'pending' }],
  ['auto', { smallWritten: true, large: PERSON, largeState: 'discarded' }],
  ['plan', { smallWritten: false, large: PLAN, largeState: null }],
  // FETTLE_REVIEW=human: a person approves every large change, whatever the mode; headless, nobody can.
  ['acceptEdits', { smallWritten: true, large: PERSON, largeState: 'discarded', env: { FETTLE_REVIEW: 'human' } }],
];

const runMode = async ([mode, expect]: [string, Expect]) => {
  const repo = e2eRepo(A_AND_B);
  const s = await session(repo, smallEditThenLargeWrite(repo), { mode, ...(expect.env ? { env: expect.env } : {}) });
  const label = `${mode}${expect.env ? ' FETTLE_REVIEW=human' : ''}`;
  const why = `${label}\n${explain(s)}`;
  assert.equal(s.run.code, 0, why);
  const [small, large] = s.api.results().slice(2);
  assert.equal(small?.isError, !expect.smallWritten, why);
  assert.equal(repo.read('a.txt').toString() !== lines(30), expect.smallWritten, why);
  assert.equal(large?.isError, true, why);
  assert.match(large?.text ?? '', expect.large, why);
  assert.equal(repo.read('b.txt').toString(), lines(30), `${label}: the large Write never lands`);
  const changes = changesIn(repo);
  const a = changes.find((c) => c.path === 'a.txt');
  // A small write the client refused leaves no record; one it made is settled as applied.
  assert.equal(a?.state ?? null, expect.smallWritten ? 'applied' : null, why);
  assert.equal(changes.find((c) => c.path === 'b.txt')?.state ?? null, expect.largeState, why);
};

test('every permission mode: the outcome docs/HOOK.md promises, with the real client', async () => {
  // Three sessions at a time: each mostly waits on hook processes.
  for (let i = 0; i < MODES.length; i += 3) await Promise.all(MODES.slice(i, i + 3).map(runMode));
});
