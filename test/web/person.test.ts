// The review page's Apply is decided by whoever started `fettle review --web`: a person in their terminal (the
// token was printed there alone), recorded as `person`; a page started with no terminal (a script, or an agent that
// detached) is no person's, so what only a person may apply is refused there. Spoken to as the page speaks, over
// HTTP: no browser needed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startPage, startPageInTerminal } from '../helpers/browser';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import { stageWrite, T0 } from '../helpers/stage';

const HUMAN = { FETTLE_REVIEW: 'human' };
const envOf = (repo: Repo) => ({ ...repo.env, ...HUMAN, FETTLE_NOW: String(T0) });

const staged = () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  return { repo, id: stageWrite(repo, 'a.txt', lines(30, 'new'), { env: HUMAN }) };
};

/** Applies `id` whole through the page at `url` (its token once, then its cookie); the answer's status and body. */
const applyThrough = async (url: string, id: string) => {
  const page = new URL(url);
  const opened = await fetch(page, { redirect: 'manual' });
  const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const post = (path: string, body: unknown) =>
    fetch(new URL(path, page.origin), {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', origin: page.origin },
      body: JSON.stringify(body),
    });
  assert.equal((await post('/api/draft', { kind: 'whole', change: id, decision: 'confirm' })).status, 200);
  const applied = await post('/api/apply', {});
  return { status: applied.status, body: (await applied.json()) as { ok: boolean; error?: { message: string } } };
};

test('a page a person started in their terminal: Apply writes the change, decided by a person', async () => {
  const { repo, id } = staged();
  const server = await startPageInTerminal(repo.dir, envOf(repo), [id]);
  try {
    const r = await applyThrough(server.url, id);
    assert.equal(r.status, 200, JSON.stringify(r.body));
  } finally {
    await server.stop();
  }
  assert.equal(repo.read('a.txt').toString(), lines(30, 'new'));
  assert.match(repo.git('log', '-1', '--format=%B', `refs/fettle/${id}`), /^Fettle-Decided-By: person$/m);
});

test('a page started with no terminal: Apply of what only a person may apply is refused (409), nothing written', async () => {
  const { repo, id } = staged();
  const server = await startPage(repo.dir, envOf(repo), [id]);
  try {
    const r = await applyThrough(server.url, id);
    assert.equal(r.status, 409);
    assert.equal(
      r.body.error?.message,
      `Change ${id} to a.txt needs a person's approval (FETTLE_REVIEW=human is set), and this command has no terminal on stdin and stdout, so fettle cannot tell it from an agent's. Nothing was written.`,
    );
  } finally {
    await server.stop();
  }
  assert.equal(repo.read('a.txt').toString(), lines(30));
});
