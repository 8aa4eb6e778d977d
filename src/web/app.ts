// The review page's routes. Every request is admitted first (core/page-admission.ts: the page's own name, its own
// origin, the printed URL's token then its cookie); every answer forbids caching, sniffing and referrers, and the
// page itself is served under a policy that allows its own scripts, styles and workers only. Assets are the files
// of the built page found at start, by exact name: no path from a request ever reaches the file system.
//   GET  /                 the page          GET  /api/review   what to review (and the drafts)
//   GET  /assets/<name>    the page's files   GET  /api/change/<id>   one change with its hunks
//   POST /api/draft        one hunk's decision or comment, kept until applied
//   POST /api/apply        the drafts applied as one decision set ({withConflicts?, expired?})
//   POST /api/close        the person is done: the server stops
import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { Hono, type Context as HonoContext, type MiddlewareHandler } from 'hono';
import { admit, COOKIE, PAGE_CSP } from '../core/page-admission';
import { FettleError, toFettleError } from '../errors';
import type { DecisionSet } from '../protocol/review/decide-set';
import type { ReviewChange, ReviewData } from '../protocol/review/review-data';
import { type Draft, Drafts } from './drafts';

export interface PageDeps {
  port: () => number;
  token: string;
  /** the built page's directory (index.html and its assets) */
  assets: string;
  review: () => Promise<ReviewData>;
  change: (id: string) => Promise<ReviewChange>;
  apply: (set: DecisionSet) => Promise<unknown>;
  /** the ids of the changes waiting in the review's scope, sorted: the page asks now and then */
  pulse: () => Promise<string[]>;
  /** a request arrived (the quiet-period timer restarts) */
  touch: () => void;
  close: () => void;
}

const PULSE = '/api/pulse';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** The built page's files, read once: a name a request gives is only ever looked up here. */
const loadAssets = (dir: string, names: string[]): Map<string, { body: Buffer; type: string }> =>
  new Map(
    names.flatMap((name) => {
      try {
        return [
          [name, { body: readFileSync(join(dir, name)), type: TYPES[extname(name)] ?? 'application/octet-stream' }],
        ];
      } catch {
        return [];
      }
    }),
  );

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': PAGE_CSP,
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const cookieOf = (header: string | undefined): string | undefined =>
  header
    ?.split(';')
    .map((p) => p.trim())
    .find((p) => p.startsWith(`${COOKIE}=`))
    ?.slice(COOKIE.length + 1);

/** A FettleError as the page shows it: what happened, and what to do. */
const failure = (c: HonoContext, error: unknown) => {
  const e = toFettleError(error);
  const status = e.code === 'E_USAGE' ? 400 : e.code === 'E_NOT_FOUND' ? 404 : e.code === 'E_INTERNAL' ? 500 : 409;
  return c.json({ ok: false, error: { code: e.code, message: e.message, hint: e.hint ?? null } }, status);
};

const readBody = async (c: HonoContext): Promise<unknown> => {
  if (!(c.req.header('content-type') ?? '').startsWith('application/json'))
    throw new FettleError('E_USAGE', 'the page sends JSON (Content-Type: application/json)');
  try {
    return await c.req.json();
  } catch {
    throw new FettleError('E_USAGE', 'the request body is not valid JSON');
  }
};

/** Every request admitted first (core/page-admission.ts), and every answer under the security headers. */
const admitting =
  (deps: PageDeps): MiddlewareHandler =>
  async (c, next) => {
    const url = new URL(c.req.url);
    // The page's own glance at what is pending is not the person doing something: an open tab alone must not keep
    // the server up past its quiet period.
    if (url.pathname !== PULSE) deps.touch();
    const verdict = admit(
      {
        method: c.req.method,
        path: url.pathname,
        host: c.req.header('host'),
        origin: c.req.header('origin'),
        fetchSite: c.req.header('sec-fetch-site'),
        token: url.searchParams.get('token') ?? undefined,
        cookie: cookieOf(c.req.header('cookie')),
      },
      { port: deps.port(), token: deps.token },
    );
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) c.header(k, v);
    if (!verdict.ok) return c.text(`fettle review: refused: ${verdict.why}.\n`, verdict.status);
    if (verdict.setCookie) {
      c.header('Set-Cookie', `${COOKIE}=${deps.token}; HttpOnly; SameSite=Strict; Path=/`);
      // The token leaves the address bar (and the history) at once.
      return c.redirect('/', 303);
    }
    await next();
  };

/** A route's work, its failure answered as the page shows one. */
const answer = async (c: HonoContext, work: () => Promise<Record<string, unknown>>) => {
  try {
    return c.json({ ok: true, ...(await work()) });
  } catch (error) {
    return failure(c, error);
  }
};

const routeApi = (app: Hono, deps: PageDeps): void => {
  const drafts = new Drafts();
  app.get('/api/review', (c) => answer(c, async () => ({ review: await deps.review(), drafts: drafts.all() })));
  app.get(PULSE, (c) => answer(c, async () => ({ pending: await deps.pulse() })));
  app.get('/api/change/:id', (c) => answer(c, async () => ({ change: await deps.change(c.req.param('id')) })));
  app.post('/api/draft', (c) =>
    answer(c, async () => {
      drafts.put((await readBody(c)) as Draft);
      return { drafts: drafts.all() };
    }),
  );
  app.post('/api/apply', (c) =>
    answer(c, async () => {
      const body = (await readBody(c)) as { withConflicts?: unknown; expired?: unknown };
      // expired: the person applies changes past their time limit, as `fettle confirm --expired` lets a person do
      const set = { ...drafts.decisionSet(body.withConflicts === true), expired: body.expired === true };
      const outcome = await deps.apply(set);
      drafts.clear();
      return { outcome };
    }),
  );
  app.post('/api/close', (c) => {
    setImmediate(deps.close);
    return c.json({ ok: true });
  });
};

export const createPageApp = (deps: PageDeps, assetNames: string[]): Hono => {
  const app = new Hono();
  const assets = loadAssets(deps.assets, assetNames);
  app.use('*', admitting(deps));
  app.get('/', (c) => {
    const page = assets.get('index.html');
    if (!page) return c.text('fettle review: the page was not built (npm run build).\n', 500);
    return c.body(new Uint8Array(page.body), 200, { 'Content-Type': page.type });
  });
  app.get('/assets/:name', (c) => {
    const found = assets.get(c.req.param('name'));
    if (!found) return c.text('not found\n', 404);
    return c.body(new Uint8Array(found.body), 200, { 'Content-Type': found.type });
  });
  routeApi(app, deps);
  app.notFound((c) => c.text('not found\n', 404));
  return app;
};
