// Who the review page answers, one line per case: its own name and port, its own origin or none, the printed
// token on the page's first load only, then the cookie; anything else is refused with why.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { admit, type PageRequest, sameSecret } from '../../src/core/page-admission';

const token = 'a'.repeat(64);
const port = 4321;
const base: PageRequest = {
  method: 'GET',
  path: '/api/review',
  host: `127.0.0.1:${port}`,
  origin: undefined,
  fetchSite: 'same-origin',
  token: undefined,
  cookie: token,
};
const cases: [string, Partial<PageRequest>, true | RegExp][] = [
  ['the cookie, from the page itself', {}, true],
  ['localhost by name', { host: `localhost:${port}` }, true],
  ['its own origin posting', { method: 'POST', origin: `http://127.0.0.1:${port}` }, true],
  ['the first load, with the token and no cookie', { path: '/', token, cookie: undefined, fetchSite: 'none' }, true],
  ['no host', { host: undefined }, /addressed to no host/],
  ['a rebound name', { host: `attacker.example:${port}` }, /attacker\.example/],
  ['another port', { host: '127.0.0.1:80' }, /not to this page/],
  ['a foreign origin', { method: 'POST', origin: 'http://attacker.example' }, /attacker\.example may not/],
  ['an opaque origin', { origin: 'null' }, /sandboxed or file page/],
  ['a cross-site request', { fetchSite: 'cross-site' }, /cross-site request/],
  ['a same-site request of another port', { fetchSite: 'same-site' }, /same-site request/],
  ['no token, no cookie', { cookie: undefined }, /does not carry the token/],
  ['a wrong cookie', { cookie: 'b'.repeat(64) }, /does not carry the token/],
  ['the token on an API path', { token, cookie: undefined }, /does not carry the token/],
  ['the token on a POST', { method: 'POST', path: '/', token, cookie: undefined }, /does not carry the token/],
  ['a token of another length', { cookie: 'a'.repeat(63) }, /does not carry the token/],
];
for (const [name, change, want] of cases)
  test(`page admission: ${name}`, () => {
    const v = admit({ ...base, ...change }, { port, token });
    if (want === true) assert.equal(v.ok, true, JSON.stringify(v));
    else {
      assert.equal(v.ok, false);
      if (!v.ok) assert.match(v.why, want);
    }
  });

test('the first load sets the cookie; later ones do not', () => {
  assert.deepEqual(admit({ ...base, path: '/', token, cookie: undefined }, { port, token }), {
    ok: true,
    setCookie: true,
  });
  assert.deepEqual(admit(base, { port, token }), { ok: true, setCookie: false });
});

test('secrets compare equal only when equal', () => {
  assert.ok(sameSecret('abc', 'abc'));
  assert.ok(!sameSecret('abc', 'abd'));
  assert.ok(!sameSecret('abc', 'ab'));
});
