// A command hook's call to the resident server, as data: which requests are admitted (every refusal a 4xx, so the
// caller may run the call itself), the call's encoding, and reading the server's answer back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  admitCommand,
  COMMAND_PATH,
  COMMAND_TYPE,
  decodeAnswer,
  decodeCall,
  encodeCall,
  HAND_OFF_MAX,
  parseResponse,
  type CommandRequest,
} from '../../src/core/command-call';
import type { ServeAuth } from '../../src/core/hook-server';

const TOKEN = 'ab'.repeat(32);
const PORT = 41234;
const h = { host: `127.0.0.1:${PORT}`, 'content-type': COMMAND_TYPE };
const req = (over: Partial<CommandRequest> = {}, headers: Record<string, string> = {}): CommandRequest => ({
  method: 'POST',
  url: COMMAND_PATH,
  headers: { ...h, ...headers },
  ...over,
});

// [label, auth, request, expected: 'ok' or the refusal's status]
const admissions: [string, ServeAuth, CommandRequest, 'ok' | number][] = [
  ['peer, no token', 'peer', req(), 'ok'],
  ['token server, the token', 'token', req({}, { authorization: `Bearer ${TOKEN}` }), 'ok'],
  ['token server, no token', 'token', req(), 403],
  ['token server, another token', 'token', req({}, { authorization: `Bearer ${'cd'.repeat(32)}` }), 403],
  ['GET', 'peer', req({ method: 'GET' }), 405],
  ['the HTTP hooks path', 'peer', req({ url: '/fettle/hook/PreToolUse' }), 404],
  ['a browser (Origin)', 'peer', req({}, { origin: 'http://evil.example' }), 403],
  ['another Host (DNS rebinding)', 'peer', req({}, { host: `evil.example:${PORT}` }), 403],
  ['localhost is not the address the hook uses', 'peer', req({}, { host: `localhost:${PORT}` }), 403],
  ['JSON, which a page may send', 'peer', req({}, { 'content-type': 'application/json' }), 415],
  ['a form, which a page may send unasked', 'peer', req({}, { 'content-type': 'text/plain' }), 415],
];
for (const [label, auth, request, expected] of admissions)
  test(`admitCommand: ${label} -> ${expected}`, () => {
    const verdict = admitCommand(request, { port: PORT, token: TOKEN, auth });
    assert.equal(verdict.ok ? 'ok' : verdict.status, expected);
  });

// On the server's Unix socket: [label, auth, request, expected]
const onSocket: [string, ServeAuth, CommandRequest, 'ok' | number][] = [
  ['a token server, no token', 'token', req({}, { host: 'localhost' }), 'ok'],
  ['a peer server, any Host', 'peer', req({}, { host: 'localhost' }), 'ok'],
  ['still no browser (Origin)', 'peer', req({}, { origin: 'http://evil.example' }), 403],
  ['still only the command type', 'token', req({}, { 'content-type': 'application/json' }), 415],
  ['still only the command path', 'token', req({ url: '/fettle/hook/PreToolUse' }), 404],
];
for (const [label, auth, request, expected] of onSocket)
  test(`admitCommand on the socket: ${label} -> ${expected}`, () => {
    const verdict = admitCommand(request, { port: PORT, token: TOKEN, auth, local: true });
    assert.equal(verdict.ok ? 'ok' : verdict.status, expected);
  });

test('a call decodes to what was encoded, its input bytes untouched', () => {
  const input = Buffer.from([0x7b, 0x0a, 0xff, 0x00, 0x0a, 0x7d]);
  const call = { agent: 'codex', cwd: '/r', script: '/x/cli.js', env: { A: '1', N: 'a\nb' }, input };
  assert.deepEqual(decodeCall(encodeCall(call)), call);
  assert.deepEqual(decodeCall(encodeCall({ ...call, agent: undefined })), { ...call, agent: undefined });
});

// [label, body, why it is not a call]
const bad: [string, string, string][] = [
  ['no newline', '{}', 'no header line'],
  ['not JSON', '{x\n', 'a header line that is not JSON'],
  ['a relative cwd', '{"agent":null,"cwd":"r","script":"s","env":{}}\n', 'a cwd that is not absolute'],
  ['an agent that is no name', '{"agent":"../x","cwd":"/r","script":"s","env":{}}\n', 'a bad agent'],
  [
    'an env value that is no string',
    '{"agent":null,"cwd":"/r","script":"s","env":{"A":1}}\n',
    'a bad script or environment',
  ],
];
for (const [label, body, why] of bad)
  test(`decodeCall: ${label}`, () => assert.equal(decodeCall(Buffer.from(body)), why));

test('decodeCall: an input of HAND_OFF_MAX bytes is not handed off', () => {
  const call = { agent: undefined, cwd: '/r', script: 's', env: {}, input: Buffer.alloc(HAND_OFF_MAX) };
  assert.equal(decodeCall(encodeCall(call)), 'an input too large to hand off');
});

const full = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nContent-Length: 5\r\n\r\nhello';
// [label, raw response, status, body (null: not whole)]
const responses: [string, string, number | null, string | null][] = [
  ['whole', full, 200, 'hello'],
  ['cut short', full.slice(0, -2), 200, null],
  ['no length', 'HTTP/1.1 200 OK\r\n\r\nhello', 200, null],
  ['a refusal', 'HTTP/1.1 404 Not Found\r\ncontent-length: 2\r\n\r\n{}', 404, '{}'],
  ['no head yet', 'HTTP/1.1 200 OK\r\ncontent-le', null, null],
  ['not HTTP', 'SSH-2.0-OpenSSH\r\n\r\n', null, null],
];
for (const [label, raw, status, body] of responses)
  test(`parseResponse: ${label}`, () => {
    const r = parseResponse(Buffer.from(raw, 'latin1'));
    assert.deepEqual(r && [r.status, r.body?.toString('latin1') ?? null], status === null ? null : [status, body]);
  });

// [label, text, an answer?]
const answers: [string, string, boolean][] = [
  ['an answer', '{"exitCode":2,"stdout":"","stderr":"x\\n","stops":true}', true],
  ['exit 3', '{"exitCode":3,"stdout":"","stderr":"","stops":false}', false],
  ['no stops', '{"exitCode":0,"stdout":"","stderr":""}', false],
  ["an HTTP hook's answer", '{"decision":"block","reason":"x"}', false],
  ['null', 'null', false],
  ['not JSON', '{', false],
];
for (const [label, text, isAnswer] of answers)
  test(`decodeAnswer: ${label}`, () => assert.equal(decodeAnswer(text) !== null, isAnswer));
