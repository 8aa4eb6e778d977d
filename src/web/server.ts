// `fettle review --web`: the review page, served from this process on 127.0.0.1 at a port the system picks, for
// as long as the person uses it. It prints its URL (the token is in it), opens the browser unless told not to,
// and stops when the person presses Done or closes the page, or after a quiet period. Built as a bundle of its
// own (dist/web.js) with the page's assets beside it (dist/page/): the entry loads it only for this command and
// for `fettle serve`, so no hook call or other command parses hono or the page.
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { Context } from '../protocol/context';
import { listChanges } from '../protocol/changes';
import { decideSet } from '../protocol/review/decide-set';
import { fetchedChange } from '../protocol/review/fetched';
import { reviewOfScope } from '../protocol/review/fetched-review';
import { pendingIds, reviewChange, type ReviewScope } from '../protocol/review/review-data';
import { openStore } from '../protocol/select/open';
import { notFound } from '../protocol/changes';
import { createPageApp } from './app';

export interface PageOptions {
  ctx: Context;
  scope: ReviewScope;
  /** open the browser (the `open` package: the platform's own opener) */
  open: boolean;
  /** how long the page may go unused before the server stops, in ms */
  quietMs: number;
  /** a line for the person (the URL, the stop) */
  say: (line: string) => void;
  /** where the built page is: dist/page beside the bundle */
  assets?: string | undefined;
}

/** The files of the built page, by name: what the server may ever send. */
const pageFiles = (dir: string): string[] => {
  try {
    return readdirSync(dir).filter((n) => /^[\w.-]+$/.test(n));
  } catch {
    return [];
  }
};

/**
 * A read started now, while the browser starts, so the page's first request finds it done (or under way); every
 * later call reads afresh, so a reload shows what was staged or decided since.
 */
const firstThenFresh = <T>(read: () => Promise<T>): (() => Promise<T>) => {
  let first: Promise<T> | null = read();
  first.catch(() => undefined);
  return () => {
    const ready = first ?? read();
    first = null;
    return ready;
  };
};

/**
 * Serves the page until the person is done with it; resolves once the server has stopped. What the page applies is
 * decided by whoever ran `fettle review --web` (`ctx.caller`, read at its edge): a person at a terminal with no
 * agent above them, whose terminal alone was shown the token that admits the page; or the agent, or a script, when
 * one started it, since the printed token is then theirs too.
 */
export const runPage = async (o: PageOptions): Promise<void> => {
  const { ctx, scope } = o;
  const store = await openStore(ctx);
  const token = randomBytes(32).toString('hex');
  const assets = o.assets ?? join(__dirname, 'page');
  let port = 0;
  let timer: NodeJS.Timeout | undefined;
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    stop = () => {
      if (timer) clearTimeout(timer);
      server.close(() => resolve());
      server.closeAllConnections();
    };
  });
  const touch = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      o.say(`fettle review: nothing happened on the page for ${Math.round(o.quietMs / 60_000)} min; stopped.`);
      stop();
    }, o.quietMs);
    timer.unref();
  };
  const review = firstThenFresh(async () => reviewOfScope(ctx, store, scope));
  const app = createPageApp(
    {
      port: () => port,
      token,
      assets,
      review,
      // listed, not settled: a glance that writes nothing
      pulse: async () => pendingIds(await listChanges(ctx, store), scope),
      change: async (id) => {
        const change =
          (await listChanges(ctx, store)).find((c) => c.id === id) ?? (await fetchedChange(ctx, store, id));
        if (!change) throw notFound(id);
        return reviewChange(ctx, store, change, true);
      },
      // The person's click, as whoever started the page: the token is printed to them alone (`ctx.caller`).
      apply: (set) => decideSet(ctx, store, set),
      touch,
      close: () => {
        o.say('fettle review: done.');
        stop();
      },
    },
    pageFiles(assets),
  );
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', reject);
  });
  port = (server.address() as AddressInfo).port;
  touch();
  const url = `http://127.0.0.1:${port}/?token=${token}`;
  o.say(`fettle review: ${url}`);
  if (o.open) await openBrowser(url, o.say);
  await stopped;
};

/** The platform's opener; when there is none (a server, a container), the printed URL is the way in. */
const openBrowser = async (url: string, say: (line: string) => void): Promise<void> => {
  try {
    const { default: open } = await import('open');
    const child = await open(url);
    child.once('error', () => say('fettle review: could not open a browser; open the URL above.'));
    child.unref();
  } catch {
    say('fettle review: could not open a browser; open the URL above.');
  }
};
