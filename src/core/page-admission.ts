// Who the review page answers: one person on one machine. The server listens on loopback only, and every request
// must also be addressed to it by name (Host: a DNS-rebinding page reaches 127.0.0.1 under a name of its own),
// come from its own pages when a browser says where from (Origin, Sec-Fetch-Site: no other site may post), and
// carry the secret from the printed URL: the URL's `token` once, then a cookie only this origin is sent. Pure: the
// server (web/app.ts) applies it to each request.

export interface PageRequest {
  method: string;
  path: string;
  host: string | undefined;
  origin: string | undefined;
  /** Sec-Fetch-Site, which browsers send and a page cannot forge */
  fetchSite: string | undefined;
  /** the `token` query parameter */
  token: string | undefined;
  /** the value of the page's cookie */
  cookie: string | undefined;
}

export type Admission = { ok: true; setCookie: boolean } | { ok: false; status: 400 | 403; why: string };

export const COOKIE = 'fettle_review';

/** The names the page may be reached by: the loopback address and `localhost`, at its port. */
export const pageHosts = (port: number): string[] => [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];

/** Equal strings, compared in time that does not depend on where they differ. */
export const sameSecret = (a: string, b: string): boolean => {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
};

export const admit = (r: PageRequest, o: { port: number; token: string }): Admission => {
  const hosts = pageHosts(o.port);
  if (!r.host || !hosts.includes(r.host.toLowerCase()))
    return { ok: false, status: 403, why: `the request is addressed to ${r.host ?? 'no host'}, not to this page` };
  if (r.origin !== undefined && r.origin !== 'null' && !hosts.some((h) => r.origin === `http://${h}`))
    return { ok: false, status: 403, why: `a page of ${r.origin} may not use this one` };
  if (r.origin === 'null') return { ok: false, status: 403, why: 'a sandboxed or file page may not use this one' };
  if (r.fetchSite !== undefined && r.fetchSite !== 'same-origin' && r.fetchSite !== 'none')
    return { ok: false, status: 403, why: `a ${r.fetchSite} request may not use this page` };
  if (r.cookie !== undefined && sameSecret(r.cookie, o.token)) return { ok: true, setCookie: false };
  // The URL's token only opens the page itself; everything else needs the cookie it sets.
  if (r.token !== undefined && r.method === 'GET' && r.path === '/' && sameSecret(r.token, o.token))
    return { ok: true, setCookie: true };
  return { ok: false, status: 403, why: 'the request does not carry the token of the URL fettle printed' };
};

/** The Content-Security-Policy of every page: its own scripts, styles and workers only, never inline. */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
