// The review page's client for case `page`, a process of its own (it is async; the harness is not): starts
// `fettle review --web <id> --no-open` in the fixture repository, times GET /api/review and POST /api/draft with
// the page's cookie from node, then loads the page in Debian's chromium (playwright-core) `loads` times, each in a
// fresh context, and reads the page's own marks: `fettle:data` (the review's data parsed) and `fettle:first-hunk`
// (the first hunk's lines painted), both from navigation start. Reads a job as JSON on stdin, prints JSON.
//   {cli, repo, env, id, chromium, reviews, drafts, loads}
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../../scripts/chromium-args.mjs';

const job = JSON.parse(readFileSync(0, 'utf8'));
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

const start = () =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [job.cli, 'review', '--web', job.id, '--no-open'], {
      cwd: job.repo,
      env: job.env,
    });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const m = /(http:\/\/127\.0\.0\.1:(\d+))\/\?token=([0-9a-f]+)/.exec(out);
      if (m) resolve({ child, url: m[0], origin: m[1], cookie: `fettle_review=${m[3]}` });
    });
    child.stderr.on('data', (c) => (out += c));
    child.once('exit', (code) => reject(new Error(`fettle review --web exited ${code}: ${out}`)));
  });

const timedCall = (server, method, path, body) =>
  new Promise((resolve, reject) => {
    const t = performance.now();
    const headers = { cookie: server.cookie, ...(body ? { 'content-type': 'application/json' } : {}) };
    const req = request(`${server.origin}${path}`, { method, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) reject(new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`));
        else resolve({ ms: performance.now() - t, text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });

const browserLoads = async (server) => {
  const browser = await chromium.launch({
    executablePath: job.chromium,
    args: CHROMIUM_ARGS,
  });
  const samples = [];
  try {
    for (let i = -1; i < job.loads; i++) {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      const page = await context.newPage();
      await page.goto(server.url);
      await page.waitForSelector('body[data-first-hunk]', { timeout: 60_000 });
      const marks = await page.evaluate(() =>
        Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime])),
      );
      if (i >= 0) samples.push({ data: marks['fettle:data'], firstHunk: marks['fettle:first-hunk'] });
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return samples;
};

const main = async () => {
  const server = await start();
  try {
    // the first GET / with the token sets the cookie (and warms the server as a person's first load does)
    await new Promise((resolve, reject) =>
      request(server.url, { agent }, (res) => res.resume().on('end', resolve))
        .on('error', reject)
        .end(),
    );
    const reviews = [];
    let hunks = 0;
    for (let i = -1; i < job.reviews; i++) {
      const r = await timedCall(server, 'GET', '/api/review');
      if (i >= 0) reviews.push(r.ms);
      hunks = JSON.parse(r.text).review.pending[0]?.hunks.length ?? 0;
    }
    const drafts = [];
    for (let i = -1; i < job.drafts; i++) {
      const decision = i % 2 === 0 ? 'keep' : 'pending';
      const body = JSON.stringify({ kind: 'hunk', change: job.id, hunk: 1 + (i & 7), decision });
      const r = await timedCall(server, 'POST', '/api/draft', body);
      if (i >= 0) drafts.push(r.ms);
    }
    const loads = await browserLoads(server);
    process.stdout.write(JSON.stringify({ hunks, reviews, drafts, loads }));
  } finally {
    server.child.kill('SIGTERM');
  }
};

main().catch((error) => {
  process.stdout.write(JSON.stringify({ failed: String(error?.stack ?? error) }));
});
