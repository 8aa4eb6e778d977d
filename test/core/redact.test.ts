// Secret redaction (src/core/redact.ts), pure: what a shared prompt keeps and what it loses. Fake secrets are built
// from pieces here, so no scanner mistakes this file for a leak.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redact } from '../../src/core/redact';

const x = (n: number, c = 'a'): string => c.repeat(n);
const AKIA = `AKIA${x(16, 'B')}`;
const GHP = `ghp_${x(36, 'Z')}`;
const KEY = `-----BEGIN RSA PRIVATE KEY-----\n${x(64, 'M')}\n-----END RSA PRIVATE KEY-----`;
const JWT = `eyJ${x(12)}.eyJ${x(12)}.${x(20, 's')}`;

// [what, text in, text out]
const cases: [string, string, string][] = [
  ['plain words stay', 'fix the login bug in auth.ts', 'fix the login bug in auth.ts'],
  ['a word about passwords stays', 'the password field is too short', 'the password field is too short'],
  ['an AWS access key', `use ${AKIA} for s3`, 'use [redacted AWS access key] for s3'],
  ['a GitHub token', `token is ${GHP}`, 'token is [redacted GitHub token]'],
  ['a fine-grained GitHub token', `github_pat_${x(40, '1')}`, '[redacted GitHub token]'],
  ['a GitLab token', `glpat-${x(20, 'q')} ok`, '[redacted GitLab token] ok'],
  ['a Slack token', `xoxb-${x(24, '9')}`, '[redacted Slack token]'],
  ['a Google API key', `key AIza${x(35, 'k')}`, 'key [redacted Google API key]'],
  ['a Stripe key', `sk_live_${x(24, 'p')}`, '[redacted Stripe key]'],
  ['an OpenAI-style key', `OPENAI_API_KEY is sk-proj-${x(30, 'r')}`, 'OPENAI_API_KEY is [redacted API key]'],
  ['an Anthropic key', `sk-ant-${x(40, 'u')}`, '[redacted API key]'],
  ['an npm token', `npm_${x(36, 'n')}`, '[redacted npm token]'],
  ['a JWT', `cookie ${JWT} here`, 'cookie [redacted JWT] here'],
  ['a private key block', `key:\n${KEY}\ndone`, 'key:\n[redacted private key]\ndone'],
  [
    'a password in a URL',
    'clone https://me:hunter22@example.com/r.git',
    'clone https://me:[redacted password in URL]@example.com/r.git',
  ],
  ['a bearer token', `Authorization: Bearer ${x(24, 't')}`, 'Authorization: Bearer [redacted bearer token]'],
  ['an assignment to a secret', 'DB_PASSWORD=s3cr3tvalue please', 'DB_PASSWORD=[redacted secret] please'],
  ['a quoted api_key', `"api_key": "${x(10, 'v')}"`, '"api_key": "[redacted secret]"'],
  ['a short value is not taken for one', 'token=abc', 'token=abc'],
  ['two secrets on a line', `${AKIA} and ${GHP}`, '[redacted AWS access key] and [redacted GitHub token]'],
];

for (const [what, input, output] of cases) test(`redact: ${what}`, () => assert.equal(redact(input).text, output));

test('redact counts what it replaced, by kind', () => {
  assert.deepEqual(redact(`${AKIA} ${AKIA} ${GHP}`).found, { 'AWS access key': 2, 'GitHub token': 1 });
  assert.deepEqual(redact('nothing here').found, {});
});
