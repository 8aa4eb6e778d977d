// The review page in a real browser (slow: chromium, and `fettle review --web` as a process per test). Each test
// drives the built CLI's page as a person would, mouse or keys, then checks the repository itself: the file's
// bytes, what is still pending, the feedback the agent is given. Every test also checks that the page made no
// request but to its own server, met no policy violation, logged no error and opened no dialog.
// Tier: slow, the review page in a real browser, one page load per scenario (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import {
  foreignRequests,
  launch,
  noBrowser,
  type PageServer,
  startPage,
  startPageInTerminal,
  type Watched,
  watchedPage,
} from '../helpers/browser';
import { runCli } from '../helpers/cli';
import { makeRepo, type Repo } from '../helpers/repo';
import { directWrite, fettle, stageWrite, T0 } from '../helpers/stage';
import {
  BASE,
  HOSTILE_BASE,
  HOSTILE_LINES,
  HOSTILE_NEW,
  HOSTILE_PROMPT,
  SHOT_BASE,
  SHOT_NEW,
  withHunks,
} from './page-fixtures';

const skip = noBrowser() ?? false;
/** Small writes stage too: a three-line change is held for review. */
const STAGE = { FETTLE_WRITE_FLOOR: '1', FETTLE_WRITE_CEIL: '5' };

let browser: Browser;
const servers: Pick<PageServer, 'stop'>[] = [];
before(async () => {
  if (!skip) browser = await launch();
});
after(async () => {
  for (const s of servers) await s.stop();
  await browser?.close();
});

const envOf = (repo: Repo, session?: string) => ({
  ...repo.env,
  FETTLE_NOW: String(T0),
  ...STAGE,
  ...(session ? { FETTLE_SESSION: session } : {}),
});

/** A repository with `file` committed and a change to it staged; the page opened on that change. */
const opened = async (o: {
  file: string;
  base: string;
  next: string;
  session?: string;
  before?: (r: Repo) => void;
  /** what to review; the staged change by default */
  scope?: string[];
}) => {
  const repo = makeRepo({ [o.file]: o.base });
  o.before?.(repo);
  const id = stageWrite(repo, o.file, o.next, { env: envOf(repo, o.session) });
  const server = await startPage(repo.dir, envOf(repo), o.scope ?? [id]);
  servers.push(server);
  const w = await watchedPage(browser);
  await w.page.goto(server.url);
  await w.page.waitForSelector('body[data-ready="1"]');
  await w.page.waitForSelector('.hunk table.diff');
  return { repo, id, server, w };
};

/**
 * What every test ends with: nothing but the page's own server asked, no violation, error or dialog. `refused`: the
 * browser's own line for the one refusal the test provoked (an answer of 409), which the page shows itself.
 */
const clean = async (w: Watched, server: Pick<PageServer, 'origin'>, refused = false) => {
  const errors = w.errors.filter((e) => !(refused && /status of 409 \(Conflict\)/.test(e)));
  assert.deepEqual(foreignRequests(w, server.origin), [], "a request left the page's own server");
  assert.deepEqual(w.violations, [], 'a content-security-policy violation');
  assert.deepEqual(errors, [], 'a console error');
  assert.deepEqual(w.dialogs, [], 'a dialog opened');
  await w.context.close();
};

const saved = (w: Watched) => w.page.waitForFunction(() => document.body.dataset.saving === '0');

const pending = (repo: Repo) =>
  JSON.parse(fettle(repo, ['status', '--json'], { now: T0 }).stdout).pending as {
    id: string;
    reason: string;
    added: number;
    removed: number;
  }[];

describe('the review page in a real browser (slow)', { skip }, () => {
  test('keeping hunks 1 and 3 and applying writes exactly those; hunk 2 stays pending as a change of its own', async () => {
    const { repo, id, server, w } = await opened({ file: 'a.txt', base: BASE, next: withHunks(1, 2, 3) });
    const { page } = w;
    await page.getByRole('button', { name: 'Keep hunk 1 of a.txt' }).click();
    await page.getByRole('button', { name: 'Keep hunk 3 of a.txt' }).click();
    await saved(w);
    // The drafts are the server's: a reload shows them again.
    await page.reload();
    await page.waitForSelector('body[data-ready="1"]');
    const states = await page.locator('.hunk').evaluateAll((hs) => hs.map((h) => (h as HTMLElement).dataset.decision));
    assert.deepEqual(states, ['keep', 'pending', 'keep']);
    // a comment typed but not saved is named before applying, and not sent
    await page.getByRole('button', { name: 'Comment on hunk 2 of a.txt' }).click();
    await page.locator('.comment-box textarea').fill('not saved');
    await page.locator('#apply').click();
    assert.match(
      await page.locator('#ask').innerText(),
      /a\.txt: keep hunks 1, 3; hunk 2 stays pending as a new change[\s\S]*Not sent: 1 comment box/,
    );
    await page.locator('#ask-yes').click();
    const banner = await page.locator('.banner.ok').innerText();
    assert.equal(repo.read('a.txt').toString('utf8'), withHunks(1, 3));
    const left = pending(repo);
    assert.equal(left.length, 1, JSON.stringify(left));
    assert.notEqual(left[0]?.id, id);
    assert.equal(left[0]?.reason, 'split');
    assert.deepEqual([left[0]?.added, left[0]?.removed], [1, 1]);
    assert.match(banner, new RegExp(`hunk 2 left pending as change ${left[0]?.id}`));
    // The change left pending is under review on the page at once, and its one hunk is hunk 2's line.
    await page.waitForSelector(`#c-${left[0]?.id} .hunk table.diff`);
    assert.match(await page.locator(`#c-${left[0]?.id}`).innerText(), /line thirty, rewritten/);
    await clean(w, server);
  });

  test("a comment typed on the page is recorded for the session and reaches the agent's next prompt, once", async () => {
    const session = 'sess-comment';
    const { repo, id, server, w } = await opened({ file: 'a.txt', base: BASE, next: withHunks(1, 2, 3), session });
    const { page } = w;
    const words = 'Please keep the numbering: this line is read by the parser.';
    // the comment points at line 30 of the new side: its number clicked first
    await page.locator(`#h-${id}-2 td.num.new[data-line="30"]`).click();
    await page.getByRole('button', { name: 'Comment on hunk 2 of a.txt' }).click();
    assert.equal(await page.locator('.comment-box .lines-input').inputValue(), '30');
    await page.locator('.comment-box textarea').fill(words);
    await page.getByRole('button', { name: 'Save comment' }).click();
    await saved(w);
    assert.equal(await page.locator('.hunk >> nth=1').locator('.comment-text').innerText(), words);
    assert.equal(await page.locator('.hunk >> nth=1').locator('.comment-where').innerText(), 'On line 30');
    await page.locator('#apply').click();
    await page.locator('#ask-yes').click();
    await page.waitForSelector('.banner.ok');
    assert.match(
      repo.git('log', '--format=%B', `refs/fettle/feedback/${session}`),
      new RegExp(words.replace('.', '\\.')),
    );
    const prompt = () =>
      runCli(['hook'], {
        cwd: repo.dir,
        env: envOf(repo),
        input: JSON.stringify({ session_id: session, hook_event_name: 'UserPromptSubmit', prompt: 'x', cwd: repo.dir }),
      });
    const first = prompt();
    assert.equal(first.code, 0, first.stderr);
    const context = JSON.parse(first.stdout).hookSpecificOutput?.additionalContext as string;
    assert.equal(context.split(words).length - 1, 1, context);
    assert.ok(context.includes(`a.txt line 30 (change ${id}, hunk 2)`), context);
    assert.ok(!prompt().stdout.includes(words), 'the feedback was given twice');
    // Done stops the server.
    const exited = new Promise((done) => server.process.once('exit', done));
    await page.getByRole('button', { name: 'Done' }).click();
    await page.waitForSelector('text=The review is closed');
    await exited;
    await clean(w, server);
  });

  test("a refusal is shown in the server's words, nothing is written, and the decisions stay", async () => {
    const { repo, server, w } = await opened({ file: 'a.txt', base: BASE, next: withHunks(1, 2, 3) });
    const { page } = w;
    // someone edits line 30 meanwhile: hunk 2 no longer applies cleanly
    const edited = BASE.replace('line 30\n', 'line 30, edited by hand\n');
    repo.write('a.txt', edited);
    await page.getByRole('button', { name: 'Keep all of a.txt' }).click();
    await saved(w);
    await page.locator('#apply').click();
    await page.locator('#ask-yes').click();
    const banner = await page.locator('.banner.error').innerText();
    assert.match(banner, /Nothing was applied/);
    assert.match(banner, /a\.txt/);
    assert.match(banner, /Your decisions are kept/);
    assert.equal(repo.read('a.txt').toString('utf8'), edited);
    assert.equal(pending(repo).length, 1);
    assert.equal(await page.locator('.change').getAttribute('data-whole'), 'confirm');
    await clean(w, server, true);
  });

  test('Keep all, then discarding one hunk by keys, keeps the others', async () => {
    const { repo, server, w } = await opened({ file: 'a.txt', base: BASE, next: withHunks(1, 2, 3) });
    const { page } = w;
    for (const k of ['j', 'Shift+Y', 'j', 'x']) await page.keyboard.press(k);
    await saved(w);
    const states = await page.locator('.hunk').evaluateAll((hs) => hs.map((h) => (h as HTMLElement).dataset.decision));
    assert.deepEqual(states, ['keep', 'discard', 'keep']);
    await page.keyboard.press('a');
    await page.waitForSelector('#ask[open]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.banner.ok');
    assert.equal(repo.read('a.txt').toString('utf8'), withHunks(1, 3));
    assert.deepEqual(pending(repo), []);
    await clean(w, server);
  });

  test('a change past its time limit shows as expired, and the person may still apply it', async () => {
    const repo = makeRepo({ 'a.txt': BASE });
    const id = stageWrite(repo, 'a.txt', withHunks(1, 2, 3), { env: envOf(repo) });
    // an hour later: staged changes may be confirmed for 10 minutes; applying one then is a person's, at a terminal
    const server = await startPageInTerminal(repo.dir, { ...envOf(repo), FETTLE_NOW: String(T0 + 3600) }, [id]);
    servers.push(server);
    const w = await watchedPage(browser);
    const { page } = w;
    await page.goto(server.url);
    await page.waitForSelector('.hunk table.diff');
    assert.equal(await page.locator('.change-head .badge.expired').innerText(), 'expired');
    await page.getByRole('button', { name: 'Keep all of a.txt' }).click();
    await saved(w);
    await page.locator('#apply').click();
    assert.match(
      await page.locator('#ask').innerText(),
      /a\.txt: keep all of it \(expired: applied only over the bytes/,
    );
    await page.locator('#ask-yes').click();
    await page.waitForSelector('.banner.ok');
    assert.equal(repo.read('a.txt').toString('utf8'), withHunks(1, 2, 3));
    await clean(w, server);
  });

  test('a file of markup and a prompt of script show as their characters and run nothing', async () => {
    const session = 'sess-hostile';
    const { server, w } = await opened({
      file: 'evil.ts',
      base: HOSTILE_BASE,
      next: HOSTILE_NEW,
      session,
      before: (repo) => {
        const r = runCli(['hook'], {
          cwd: repo.dir,
          env: envOf(repo),
          input: JSON.stringify({
            session_id: session,
            hook_event_name: 'UserPromptSubmit',
            prompt: HOSTILE_PROMPT,
            cwd: repo.dir,
          }),
        });
        assert.equal(r.code, 0, r.stderr);
      },
    });
    const { page } = w;
    // highlighted too: the worker's tokens wrap the same characters
    await page.waitForSelector('.ctn.hl');
    await page.waitForTimeout(300);
    const shown = await page.locator('.ctn[data-side="1"]').allTextContents();
    for (const line of HOSTILE_LINES)
      assert.ok(shown.includes(line), `${line} is not shown as written: ${shown.join('\n')}`);
    assert.equal(await page.locator('.prompt').innerText(), HOSTILE_PROMPT);
    const made = await page.evaluate(() => ({
      img: document.querySelectorAll('img').length,
      svg: document.querySelectorAll('main svg, .side svg').length,
      b: document.querySelectorAll('main b').length,
      scripts: document.querySelectorAll('script').length,
    }));
    assert.deepEqual(made, { img: 0, svg: 0, b: 0, scripts: 1 });
    assert.ok(
      w.requests.some((u) => u.endsWith('/assets/highlight.js')),
      'the worker was started',
    );
    await clean(w, server);
  });

  test('only the page itself is admitted: no token, a foreign origin or a foreign host is refused', async () => {
    const repo = makeRepo({ 'a.txt': BASE });
    const id = stageWrite(repo, 'a.txt', withHunks(1, 2, 3), { env: envOf(repo) });
    const server = await startPage(repo.dir, envOf(repo), [id]);
    servers.push(server);
    const cookie = `fettle_review=${server.token}`;
    const host = `127.0.0.1:${server.port}`;
    const ask = (path: string, headers: Record<string, string>, method = 'GET') =>
      new Promise<{ status: number; headers: Record<string, unknown> }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: server.port, path, method, headers }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
        });
        req.on('error', reject);
        req.end(method === 'POST' ? '{"kind":"whole","change":"' + id + '","decision":"confirm"}' : undefined);
      });
    assert.equal((await ask('/api/review', { Host: host, Cookie: cookie })).status, 200, 'the page itself');
    assert.equal((await ask('/', { Host: host })).status, 403, 'no token');
    assert.equal((await ask('/api/review', { Host: host })).status, 403, 'no cookie');
    assert.equal((await ask(`/?token=${'0'.repeat(64)}`, { Host: host })).status, 403, 'a wrong token');
    assert.equal((await ask('/api/review', { Host: host, Cookie: 'fettle_review=00' })).status, 403, 'a wrong cookie');
    const foreign = { Host: host, Cookie: cookie, Origin: 'http://evil.example', 'Content-Type': 'application/json' };
    assert.equal((await ask('/api/review', foreign)).status, 403, 'a foreign origin');
    assert.equal((await ask('/api/draft', foreign, 'POST')).status, 403, 'a foreign origin posting');
    assert.equal(
      (await ask('/api/review', { Host: `evil.example:${server.port}`, Cookie: cookie })).status,
      403,
      'a foreign host',
    );
    assert.equal(
      (await ask('/api/review', { Host: host, Cookie: cookie, 'Sec-Fetch-Site': 'cross-site' })).status,
      403,
    );
    const first = await ask(`/?token=${server.token}`, { Host: host });
    assert.equal(first.status, 303);
    assert.match(String(first.headers['set-cookie']), /HttpOnly; SameSite=Strict/);
    assert.equal(pending(repo).length, 1, 'nothing refused was applied');
  });

  test('by keys alone: next hunk, keep, discard, undecide, comment, split, help, apply', async () => {
    const { repo, server, w } = await opened({ file: 'a.txt', base: BASE, next: withHunks(1, 2, 3) });
    const { page } = w;
    const key = (k: string) => page.keyboard.press(k);
    await key('j');
    assert.equal(
      await page.evaluate(() => document.activeElement?.id),
      (await page.locator('.hunk').first().getAttribute('id')) ?? '',
    );
    await key('y'); // keeps hunk 1, moves to hunk 2
    await key('x'); // discards hunk 2, moves to hunk 3
    await saved(w);
    const decisions = () =>
      page.locator('.hunk').evaluateAll((hs) => hs.map((h) => (h as HTMLElement).dataset.decision));
    assert.deepEqual(await decisions(), ['keep', 'discard', 'pending']);
    await key('k'); // back to hunk 2
    await key('u'); // undecided again
    await key('c'); // a comment on it: the box has the focus, Esc leaves it, c comes back to it
    await page.keyboard.type('Typed without a mouse');
    await key('Escape');
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('hunk')), true);
    await key('c');
    await key('Control+Enter');
    await saved(w);
    assert.deepEqual(await decisions(), ['keep', 'pending', 'pending']);
    assert.equal(await page.locator('.hunk >> nth=1').locator('.comment-text').innerText(), 'Typed without a mouse');
    await key('s');
    assert.equal(await page.evaluate(() => localStorage.getItem('fettle.review.mode')), 'split');
    await page.waitForSelector('table.diff.split');
    await key('?');
    assert.ok(await page.locator('#help').evaluate((d) => (d as HTMLDialogElement).open));
    await key('Escape');
    assert.ok(!(await page.locator('#help').evaluate((d) => (d as HTMLDialogElement).open)));
    await key('a');
    await page.waitForSelector('#ask[open]');
    await key('Enter');
    await page.waitForSelector('.banner.ok');
    assert.equal(repo.read('a.txt').toString('utf8'), withHunks(1));
    const left = pending(repo);
    assert.deepEqual(
      left.map((c) => [c.reason, c.added, c.removed]),
      [['split', 2, 2]],
    );
    await clean(w, server);
  });

  test('the timeline shows each turn with its prompt, and opens a change that is not pending when asked', async () => {
    const session = 'sess-timeline';
    let written = '';
    const { id, server, w } = await opened({
      file: 'a.txt',
      base: BASE,
      next: withHunks(1, 2, 3),
      session,
      scope: ['--session', session],
      before: (repo) => {
        repo.write('b.txt', 'one\ntwo\n');
        repo.commit('b');
        const prompt = {
          session_id: session,
          hook_event_name: 'UserPromptSubmit',
          prompt: 'Tidy b.txt',
          cwd: repo.dir,
        };
        assert.equal(runCli(['hook'], { cwd: repo.dir, env: envOf(repo), input: JSON.stringify(prompt) }).code, 0);
        const env = { ...repo.env, FETTLE_NOW: String(T0), FETTLE_SESSION: session };
        written = directWrite(repo, 'b.txt', 'one\ntwo, tidied\n', { env });
      },
    });
    const { page } = w;
    assert.match(await page.locator('.turn').first().innerText(), /Turn 1[\s\S]*Tidy b\.txt[\s\S]*b\.txt/);
    // The pending change opens in place; the written one on its own, fetched only now.
    assert.ok(!w.requests.some((u) => u.includes(`/api/change/${written}`)));
    await page.locator(`.turn button[data-change="${written}"]`).click();
    await page.waitForSelector('#viewer:not([hidden]) table.diff');
    assert.ok(w.requests.some((u) => u.endsWith(`/api/change/${written}`)));
    assert.match(await page.locator('#viewer').innerText(), /two, tidied/);
    assert.ok(await page.locator('#review').isHidden());
    await page.keyboard.press('Escape');
    await page.waitForSelector('#viewer', { state: 'hidden' });
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.change), written);
    await page.locator(`.pending-list button[data-change="${id}"]`).click();
    assert.equal(await page.evaluate(() => document.activeElement?.id), `h-${id}-1`);
    await clean(w, server);
  });

  test('a picture of the page for the README (FETTLE_SCREENSHOT=1)', {
    skip: process.env.FETTLE_SCREENSHOT !== '1' && 'set FETTLE_SCREENSHOT=1 to write docs/review-page.png',
  }, async () => {
    const { id, server, w } = await opened({
      file: 'src/limits/bucket.ts',
      base: SHOT_BASE,
      next: SHOT_NEW,
      session: 'a41c09e2-7d1f',
    });
    const { page } = w;
    await page.setViewportSize({ width: 1440, height: 1260 });
    await page.getByRole('button', { name: 'Keep hunk 1 of src/limits/bucket.ts' }).click();
    await page.getByRole('button', { name: 'Keep hunk 2 of src/limits/bucket.ts' }).click();
    // a comment pointing at two lines of the new side, saved; another being written
    await page.locator('#h-' + id + '-3 td.num.new[data-line="36"]').click();
    await page.locator('#h-' + id + '-3 td.num.new[data-line="38"]').click({ modifiers: ['Shift'] });
    await page.getByRole('button', { name: 'Comment on hunk 3 of src/limits/bucket.ts' }).click();
    await page
      .locator('.comment-box textarea')
      .fill('Pass the signal to take() as well: a caller that gives up should not hold a token.');
    await page.getByRole('button', { name: 'Save comment' }).click();
    await page.getByRole('button', { name: 'Comment on hunk 2 of src/limits/bucket.ts' }).click();
    await page
      .locator('.comment-box textarea')
      .fill('Clamp it where the clock is read instead, so take() never sees a negative gap.');
    await saved(w);
    await page.waitForSelector('.ctn.hl');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(__dirname, '..', '..', 'docs', 'review-page.png') });
    await clean(w, server);
  });

  test('changes staged or decided while the page is open are announced, and shown on request', async () => {
    const session = 'sess-watch';
    const { repo, id, server, w } = await opened({
      file: 'a.txt',
      base: BASE,
      next: withHunks(1, 2, 3),
      session,
      scope: ['--session', session],
      before: (r) => {
        r.write('b.txt', BASE);
        r.commit('b');
      },
    });
    const { page } = w;
    assert.equal(await page.locator('#news').isHidden(), true, 'nothing to announce at first');
    // The agent stages another change; a person confirms the first one in a terminal.
    const next = stageWrite(repo, 'b.txt', withHunks(1, 2, 3), { env: envOf(repo, session) });
    assert.equal(fettle(repo, ['confirm', id], { now: T0 }).code, 0);
    // (a glance between the two commands may announce the first alone; the next one says both)
    const both = '1 new change to review; 1 change decided elsewhere since the page loaded.';
    await page.waitForFunction(
      (text) =>
        !(document.getElementById('news') as HTMLElement).hidden &&
        document.querySelector('#news span')?.textContent === text,
      both,
      { timeout: 15_000 },
    );
    // Nothing moved under the person: the page still shows what it showed until asked.
    assert.equal(await page.locator(`#c-${next}`).count(), 0);
    await page.getByRole('button', { name: 'Show them' }).click();
    await page.waitForSelector(`#c-${next} .hunk table.diff`);
    assert.equal(await page.locator(`#c-${id}`).count(), 0, 'the change decided elsewhere is gone');
    assert.equal(await page.locator('#news').isHidden(), true);
    await clean(w, server);
  });
});
