// The review room with the real client: Claude Code stages a large rewrite; a person opens the review page, keeps
// part of it, drops the rest with a comment, and applies; the session's next prompt (`claude -p --resume`) carries
// the person's words to the model, once, and the file holds exactly what was kept.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { CLI } from '../helpers/cli';
import type { Repo } from '../helpers/repo';
import { contextTextIn, text, tool } from './fake-api';
import { e2eRepo, explain, fettle, session } from './session';

const rows = (n: number) => Array.from({ length: n }, (_, k) => `line ${k + 1}`);
const shout = (at: number[]) =>
  `${rows(60)
    .map((l, k) => (at.includes(k + 1) ? l.toUpperCase() : l))
    .join('\n')}\n`;
const ENV = { FETTLE_WRITE_FLOOR: '1', FETTLE_WRITE_CEIL: '5' };
const COMMENT = 'Keep line 30 in lower case: the parser reads it.';

/** `fettle review --web <id> --no-open` started as a person starts it; its URL once printed, and a way to stop it. */
const openPage = (repo: Repo, id: string): Promise<{ url: URL; cookie: string; stop: () => void }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'review', '--web', id, '--no-open'], {
      cwd: repo.dir,
      env: { ...repo.env, ...ENV },
    });
    let out = '';
    child.stdout.on('data', async (chunk: Buffer) => {
      out += chunk;
      const m = /fettle review: (http:\/\/127\.0\.0\.1:\d+\/\?token=([0-9a-f]{64}))/.exec(out);
      if (!m) return;
      const url = new URL(m[1] as string);
      resolve({ url, cookie: `fettle_review=${m[2]}`, stop: () => child.kill() });
    });
    child.once('exit', (code) => reject(new Error(`the page exited (${code}) before printing its URL: ${out}`)));
  });

test('a person keeps part of a staged rewrite through the page, comments on the rest, and the model reads it', async () => {
  const repo = e2eRepo({ 'f.txt': shout([]) });
  const first = await session(
    repo,
    (_req, turn) =>
      [
        [tool('Read', { file_path: repo.path('f.txt') })],
        [tool('Write', { file_path: repo.path('f.txt'), content: shout([3, 30, 55]) })],
      ][turn] ?? [text('done')],
    { env: ENV },
  );
  assert.equal(first.run.code, 0, explain(first));
  const staged = JSON.parse(fettle(repo, 'status', '--json')).pending as { id: string; session: string }[];
  assert.equal(staged.length, 1, explain(first));
  const [{ id, session: sessionId }] = staged as [{ id: string; session: string }];
  assert.equal(repo.read('f.txt').toString(), shout([]), 'nothing written while staged');

  const page = await openPage(repo, id);
  try {
    const call = (path: string, body?: unknown) =>
      fetch(new URL(path, page.url), {
        method: body === undefined ? 'GET' : 'POST',
        headers: { cookie: page.cookie, 'content-type': 'application/json', origin: page.url.origin },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then((r) => r.json() as Promise<Record<string, unknown>>);
    const review = (await call('/api/review')) as { review: { pending: { id: string; hunks: unknown[] }[] } };
    assert.equal(review.review.pending[0]?.hunks.length, 3);
    await call('/api/draft', { kind: 'hunk', change: id, hunk: 1, decision: 'keep' });
    await call('/api/draft', { kind: 'hunk', change: id, hunk: 2, decision: 'discard' });
    await call('/api/draft', { kind: 'hunk', change: id, hunk: 3, decision: 'keep' });
    await call('/api/draft', { kind: 'comment', change: id, hunk: 2, lines: { from: 30, to: 30 }, text: COMMENT });
    const applied = await call('/api/apply', {});
    assert.equal(applied.ok, true, JSON.stringify(applied));
  } finally {
    page.stop();
  }
  assert.equal(repo.read('f.txt').toString(), shout([3, 55]));

  const next = await session(repo, () => [text('understood')], {
    env: ENV,
    args: ['--resume', sessionId],
    prompt: 'What did the reviewer say?',
  });
  assert.equal(next.run.code, 0, explain(next));
  const seen = next.api.turnRequests().map(contextTextIn).join('\n');
  assert.ok(seen.includes(COMMENT), `the model was not shown the comment:\n${seen.slice(-3000)}`);
  assert.match(seen, /f\.txt line 30 \(change [0-9a-z]{8}, hunk 2\)/);
  assert.match(seen, /kept hunks 1, 3 \(now on disk\); dropped hunk 2/);
  const again = await session(repo, () => [text('ok')], { env: ENV, args: ['--resume', sessionId], prompt: 'Next.' });
  const last = again.api.turnRequests().at(-1);
  assert.ok(last && !JSON.stringify(last.body.messages?.at(-1)).includes(COMMENT), 'the comment is delivered once');
});
