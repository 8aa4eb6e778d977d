// The resident server's admission rules, the environment it rebuilds from headers, and who a loopback peer is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  admit,
  envFromHeaders,
  envHeader,
  FORWARDED_ENV,
  listenerUid,
  PEER_AUTH_HEADER,
  peerUid,
  type Request,
  type ServeAuth,
} from '../../src/core/hook-server';

const TOKEN = 'ab'.repeat(32);
const PORT = 41234;
const ok: Request = {
  method: 'POST',
  url: '/fettle/hook/PreToolUse',
  headers: { host: `127.0.0.1:${PORT}`, 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
};
const h = ok.headers;

// [label, how the server authenticates, request, expected verdict: 'ok' | 'no-token' | status of the refusal]
const PEER = PEER_AUTH_HEADER.toLowerCase(); // as Node hands the server its headers
const peer = { ...h, authorization: undefined, [PEER]: '1' };
const cases: [string, ServeAuth, Request, 'ok' | 'no-token' | number][] = [
  ["Claude Code's own call", 'token', ok, 'ok'],
  ['localhost as the host', 'token', { ...ok, headers: { ...h, host: `localhost:${PORT}` } }, 'ok'],
  [
    'a charset in the content type',
    'token',
    { ...ok, headers: { ...h, 'content-type': 'application/json; charset=utf-8' } },
    'ok',
  ],
  ['no Authorization header', 'token', { ...ok, headers: { ...h, authorization: undefined } }, 'no-token'],
  ['an empty bearer token', 'token', { ...ok, headers: { ...h, authorization: 'Bearer ' } }, 'no-token'],
  ['a wrong token', 'token', { ...ok, headers: { ...h, authorization: `Bearer ${'cd'.repeat(32)}` } }, 403],
  [
    'a token one character short',
    'token',
    { ...ok, headers: { ...h, authorization: `Bearer ${TOKEN.slice(1)}` } },
    403,
  ],
  ['any Origin (a browser)', 'token', { ...ok, headers: { ...h, origin: 'http://127.0.0.1:3000' } }, 403],
  ['another Host (DNS rebinding)', 'token', { ...ok, headers: { ...h, host: `evil.example:${PORT}` } }, 403],
  ['the loopback on another port', 'token', { ...ok, headers: { ...h, host: '127.0.0.1:80' } }, 403],
  ['no Host', 'token', { ...ok, headers: { ...h, host: undefined } }, 403],
  ['a form post (no preflight needed)', 'token', { ...ok, headers: { ...h, 'content-type': 'text/plain' } }, 415],
  ['GET', 'token', { ...ok, method: 'GET' }, 405],
  ['another path', 'token', { ...ok, url: '/' }, 404],
  ['an event name with a slash', 'token', { ...ok, url: '/fettle/hook/Pre/../x' }, 404],
  ['no token, the peer header, where peers are not checked', 'token', { ...ok, headers: peer }, 'no-token'],
  [
    'a wrong token, the peer header, where peers are not checked',
    'token',
    { ...ok, headers: { ...peer, authorization: `Bearer ${'cd'.repeat(32)}` } },
    403,
  ],
  ['no token, from an install whose guards expect a peer check', 'peer', { ...ok, headers: peer }, 'ok'],
  ['the token, where peers are checked', 'peer', ok, 'ok'],
  [
    'no token, from an older install (no peer header)',
    'peer',
    { ...ok, headers: { ...h, authorization: undefined } },
    'no-token',
  ],
  [
    'a wrong token from an older install',
    'peer',
    { ...ok, headers: { ...h, authorization: `Bearer ${'cd'.repeat(32)}` } },
    403,
  ],
  [
    'a stale token, the peer header',
    'peer',
    { ...ok, headers: { ...peer, authorization: `Bearer ${'cd'.repeat(32)}` } },
    'ok',
  ],
  ['the peer header with another value', 'peer', { ...ok, headers: { ...peer, [PEER]: 'yes' } }, 'no-token'],
  [
    'no token, the peer header, any Origin',
    'peer',
    { ...ok, headers: { ...peer, origin: 'http://127.0.0.1:3000' } },
    403,
  ],
  [
    'no token, the peer header, another Host',
    'peer',
    { ...ok, headers: { ...peer, host: `evil.example:${PORT}` } },
    403,
  ],
  [
    'no token, the peer header, a form post',
    'peer',
    { ...ok, headers: { ...peer, 'content-type': 'text/plain' } },
    415,
  ],
  ['no token, the peer header, GET', 'peer', { ...ok, method: 'GET', headers: peer }, 405],
];
for (const [label, auth, request, expected] of cases) {
  test(`admit (${auth}): ${label} -> ${expected}`, () => {
    const a = admit(request, { port: PORT, token: TOKEN, auth });
    const verdict = a.ok ? 'ok' : a.kind === 'no-token' ? 'no-token' : a.status;
    assert.equal(verdict, expected);
  });
}

test('admit refuses everyone when the expected token is not a token', () => {
  const a = admit({ ...ok, headers: { ...h, authorization: 'Bearer x' } }, { port: PORT, token: 'x', auth: 'token' });
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
  '   4: 7F000001:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 555',
  '   5: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 666',
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

// [port, uid of the socket listening on 127.0.0.1 there]
const listeners: [number, number | undefined][] = [
  [0xa0d2, 0],
  [0x1f90, 1000], // the loopback written big-endian
  [0xc350, undefined], // a connection's end, not a listening socket
  [0x0016, undefined], // listening on every address, not on 127.0.0.1
  [0x1234, undefined],
];
for (const [port, uid] of listeners) {
  test(`listenerUid: :${port} -> ${uid}`, () => assert.equal(listenerUid(PROC, port), uid));
}
