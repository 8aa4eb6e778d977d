// The resident server's admission rules, the environment it rebuilds from headers, and who a loopback peer is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { admit, envFromHeaders, envHeader, FORWARDED_ENV, peerUid, type Request } from '../../src/core/hook-server';

const TOKEN = 'ab'.repeat(32);
const PORT = 41234;
const ok: Request = {
  method: 'POST',
  url: '/fettle/hook/PreToolUse',
  headers: { host: `127.0.0.1:${PORT}`, 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
};
const h = ok.headers;

// [label, request, expected verdict: 'ok' | 'no-token' | status of the refusal]
const cases: [string, Request, 'ok' | 'no-token' | number][] = [
  ["Claude Code's own call", ok, 'ok'],
  ['localhost as the host', { ...ok, headers: { ...h, host: `localhost:${PORT}` } }, 'ok'],
  [
    'a charset in the content type',
    { ...ok, headers: { ...h, 'content-type': 'application/json; charset=utf-8' } },
    'ok',
  ],
  ['no Authorization header', { ...ok, headers: { ...h, authorization: undefined } }, 'no-token'],
  ['an empty bearer token', { ...ok, headers: { ...h, authorization: 'Bearer ' } }, 'no-token'],
  ['a wrong token', { ...ok, headers: { ...h, authorization: `Bearer ${'cd'.repeat(32)}` } }, 403],
  ['a token one character short', { ...ok, headers: { ...h, authorization: `Bearer ${TOKEN.slice(1)}` } }, 403],
  ['any Origin (a browser)', { ...ok, headers: { ...h, origin: 'http://127.0.0.1:3000' } }, 403],
  ['another Host (DNS rebinding)', { ...ok, headers: { ...h, host: `evil.example:${PORT}` } }, 403],
  ['the loopback on another port', { ...ok, headers: { ...h, host: '127.0.0.1:80' } }, 403],
  ['no Host', { ...ok, headers: { ...h, host: undefined } }, 403],
  ['a form post (no preflight needed)', { ...ok, headers: { ...h, 'content-type': 'text/plain' } }, 415],
  ['GET', { ...ok, method: 'GET' }, 405],
  ['another path', { ...ok, url: '/' }, 404],
  ['an event name with a slash', { ...ok, url: '/fettle/hook/Pre/../x' }, 404],
];
for (const [label, request, expected] of cases) {
  test(`admit: ${label} -> ${expected}`, () => {
    const a = admit(request, { port: PORT, token: TOKEN });
    const verdict = a.ok ? 'ok' : a.kind === 'no-token' ? 'no-token' : a.status;
    assert.equal(verdict, expected);
  });
}

test('admit refuses everyone when the expected token is not a token', () => {
  const a = admit({ ...ok, headers: { ...h, authorization: 'Bearer x' } }, { port: PORT, token: 'x' });
  assert.equal(a.ok, false);
});

test('envFromHeaders: forwarded variables as the session has them; empty is unset; absent keeps the server own', () => {
  const base = { PATH: '/server/bin', HOME: '/server', FETTLE_REVIEW: 'human', OTHER: 'kept' };
  const env = envFromHeaders(base, {
    [envHeader('PATH')]: '/session/bin',
    [envHeader('FETTLE_REVIEW')]: '',
    [envHeader('FETTLE_WRITE_FLOOR')]: '3',
  });
  assert.deepEqual(env, { PATH: '/session/bin', HOME: '/server', OTHER: 'kept', FETTLE_WRITE_FLOOR: '3' });
  assert.equal(envHeader('FETTLE_WRITE_FLOOR'), 'x-fettle-env-fettle-write-floor');
  assert.ok(FORWARDED_ENV.includes('FETTLE_ON_ERROR'));
});

const PROC = [
  '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
  '   0: 0100007F:A0D2 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 111',
  '   1: 0100007F:A0D2 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 222',
  '   2: 0100007F:C350 0100007F:A0D2 01 00000000:00000000 00:00000000 00000000  1000        0 333',
  '   3: 0A000005:C351 0100007F:A0D2 01 00000000:00000000 00:00000000 00000000    77        0 444',
].join('\n');

// [client port, server port, uid]
const peers: [number, number, number | undefined][] = [
  [0xc350, 0xa0d2, 1000],
  [0xa0d2, 0xc350, 0],
  [0xc351, 0xa0d2, undefined], // not a loopback socket: never taken for the peer
  [0x1234, 0xa0d2, undefined],
];
for (const [client, server, uid] of peers) {
  test(`peerUid: client :${client} to :${server} -> ${uid}`, () => assert.equal(peerUid(PROC, client, server), uid));
}
