// A real browser for the review page's tests: Debian's chromium (installed by .ci/run; no browser download),
// driven by playwright-core, with every request any page or worker of the context makes, every console error,
// every content-security-policy violation and every dialog recorded for the test to check (a violation inside the
// page's worker, which no page listener sees, the worker tells the page, which logs it as an error). Names other
// than 127.0.0.1 and localhost do not resolve in it, so a request elsewhere fails as well as being recorded.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS } from '../../scripts/chromium-args.mjs';
import { CLI } from './cli';
import { startPty } from './pty';

export const CHROMIUM = process.env.FETTLE_CHROMIUM ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or null. */
export const noBrowser = (): string | null =>
  existsSync(CHROMIUM) ? null : `no chromium at ${CHROMIUM} (apt-get install chromium; .ci/run does)`;

const ARGS = [...CHROMIUM_ARGS, '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost'];

export const launch = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: ARGS });

export interface Watched {
  context: BrowserContext;
  page: Page;
  /** every URL requested by the context's pages and workers */
  requests: string[];
  /** console errors and uncaught exceptions */
  errors: string[];
  /** securitypolicyviolation events: directive and what was blocked */
  violations: string[];
  /** alert, confirm, prompt: none must ever open */
  dialogs: string[];
}

export const watchedPage = async (
  browser: Browser,
  o: { colorScheme?: 'light' | 'dark'; width?: number; height?: number } = {},
): Promise<Watched> => {
  const context = await browser.newContext({
    viewport: { width: o.width ?? 1400, height: o.height ?? 900 },
    colorScheme: o.colorScheme ?? 'light',
  });
  const page = await context.newPage();
  const w: Watched = { context, page, requests: [], errors: [], violations: [], dialogs: [] };
  context.on('request', (r) => w.requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') w.errors.push(m.text());
    if (m.text().startsWith('csp-violation ')) w.violations.push(m.text().slice(14));
  });
  page.on('pageerror', (e) => w.errors.push(`uncaught: ${e.message}`));
  page.on('dialog', (d) => {
    w.dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  await page.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (e) =>
      console.log(`csp-violation ${e.violatedDirective} ${e.blockedURI}`),
    ),
  );
  return w;
};

export interface PageServer {
  url: string;
  origin: string;
  port: number;
  token: string;
  process: ChildProcess;
  /** what it printed */
  output: () => string;
  stop: () => Promise<void>;
}

/** `fettle review --web <args> --no-open` started in `cwd`; resolves with the URL it printed. */
export const startPage = (cwd: string, env: Record<string, string>, args: string[]): Promise<PageServer> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'review', '--web', ...args, '--no-open'], { cwd, env });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no URL printed in 20 s:\n${out}`)), 20_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const m = /(http:\/\/127\.0\.0\.1:(\d+))\/\?token=([0-9a-f]+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout.off('data', read);
      child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
      const stop = async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const gone = new Promise((done) => child.once('exit', done));
        child.kill('SIGTERM');
        await gone;
      };
      resolve({
        url: m[0],
        origin: m[1] as string,
        port: Number(m[2]),
        token: m[3] as string,
        process: child,
        output: () => out,
        stop,
      });
    };
    child.stdout.on('data', read);
    child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.once('exit', (code) => reject(new Error(`fettle review --web exited ${code}:\n${out}`)));
  });

/** Every request of `w` went to the page's own server. */
export const foreignRequests = (w: Watched, origin: string): string[] =>
  w.requests.filter((u) => !u.startsWith(`${origin}/`));

const PRINTED = /(http:\/\/127\.0\.0\.1:(\d+))\/\?token=([0-9a-f]+)/;

/**
 * `fettle review --web <args> --no-open` started as a person starts it, in a real terminal (helpers/pty.ts): what
 * the page applies is then a person's. Resolves with the URL read from the screen.
 */
export const startPageInTerminal = async (
  cwd: string,
  env: Record<string, string>,
  args: string[],
): Promise<Omit<PageServer, 'process'>> => {
  const pty = startPty([process.execPath, CLI, 'review', '--web', ...args, '--no-open'], { cwd, env });
  const m = PRINTED.exec(await pty.waitFor(PRINTED, 20_000)) as RegExpExecArray;
  return {
    url: m[0],
    origin: m[1] as string,
    port: Number(m[2]),
    token: m[3] as string,
    output: () => pty.screen(),
    stop: async () => pty.close(),
  };
};
