// What a plain `fettle confirm` tells the agent session whose staged change it applied, once, with the session's
// next hook call: a person's (or a script's) confirm is recorded on the session's feedback ref as news; the model's
// own confirm leaves only a reminder that the file changed on disk since it read it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { CLI, runHook } from '../../helpers/cli';
import { lines, makeRepo, type Repo } from '../../helpers/repo';
import { fettle, ok, refOid, stageWrite, T0 } from '../../helpers/stage';

const SESSION = 's-confirm-news';
const ENV = { FETTLE_WRITE_FLOOR: '1', FETTLE_WRITE_CEIL: '5', FETTLE_SESSION: SESSION };
const BASE = lines(40);
const PROPOSAL = lines(20) + lines(20, 'new', 21);

const staged = (): { repo: Repo; id: string } => {
  const repo = makeRepo({ 'f.txt': BASE });
  return { repo, id: stageWrite(repo, 'f.txt', PROPOSAL, { env: ENV }) };
};

/** The context the session's next prompt carries, or '' when there is none. */
const nextPrompt = (repo: Repo): string => {
  const prompt = { session_id: SESSION, hook_event_name: 'UserPromptSubmit', prompt: 'go on', cwd: repo.dir };
  const r = runHook(prompt, { cwd: repo.dir, env: repo.env });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout === '' ? '' : (JSON.parse(r.stdout).hookSpecificOutput.additionalContext as string);
};

test("a confirm that is not the model's is news to the session: delivered once, saying to read again; no ref added", () => {
  const { repo, id } = staged();
  ok(fettle(repo, ['confirm', id], { env: ENV }));
  assert.equal(refOid(repo, `refs/fettle/feedback/${SESSION}`), null, 'no feedback record');
  const context = nextPrompt(repo);
  assert.match(context, new RegExp(`f\\.txt: change ${id} was applied; the file on disk now holds it\\.`));
  assert.match(context, /read them again before editing them/);
  assert.equal(nextPrompt(repo), '', 'delivered once');
});

test("the model's own confirm records nothing for it, and reminds it the file changed on disk", () => {
  const { repo, id } = staged();
  ok(fettle(repo, ['confirm', id], { env: { ...ENV, CLAUDECODE: '1' } }));
  assert.equal(refOid(repo, `refs/fettle/feedback/${SESSION}`), null, 'no feedback record');
  const context = nextPrompt(repo);
  assert.match(
    context,
    /^\[fettle: news of your changes\]\nYour `fettle confirm` applied staged changes on disk:\n- f\.txt: change [0-9a-z]{8}\.\n/,
  );
  assert.match(context, /changed since you last read them: read them again before editing them\.$/);
  assert.equal(nextPrompt(repo), '', 'delivered once');
});

test("four confirms of one session's changes at once all land, and the session is told of each once", async () => {
  const repo = makeRepo({ 'f.txt': BASE, 'g.txt': BASE, 'h.txt': BASE, 'i.txt': BASE });
  const ids = ['f.txt', 'g.txt', 'h.txt', 'i.txt'].map((p) => stageWrite(repo, p, PROPOSAL, { env: ENV }));
  const confirmOf = (id: string) =>
    new Promise<number | null>((done) =>
      spawn(process.execPath, [CLI, 'confirm', id], {
        cwd: repo.dir,
        env: { ...repo.env, FETTLE_NOW: String(T0), ...ENV },
      }).on('close', done),
    );
  assert.deepEqual(await Promise.all(ids.map(confirmOf)), [0, 0, 0, 0]);
  const told = nextPrompt(repo);
  for (const id of ids) assert.equal(told.split(`change ${id} was applied`).length - 1, 1, id);
});
