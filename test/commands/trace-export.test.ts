// `fettle trace export`: commits as Agent Trace records, valid against the specification's own JSON Schema
// (test/fixtures/agent-trace, CC BY 4.0), whose ranges name the lines the agent wrote.
// Tier: slow, hook calls, commits and installs through the built CLI, each a process (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { notesSettled } from '../helpers/notes';
import { type Schema, unknownKeywords, validate } from '../../src/core/json-schema';
import { agentWrite, runCli } from '../helpers/cli';
import { lines, makeRepo, type Repo } from '../helpers/repo';

const SCHEMA = JSON.parse(
  readFileSync(join(__dirname, '..', 'fixtures', 'agent-trace', 'trace-record.schema.json'), 'utf8'),
) as Schema;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The schema, by fettle's own validator (core/json-schema.ts), which enforces every keyword this schema uses but
 * `format`; the three formats it names are checked here.
 */
const assertValid = (record: Record<string, unknown>) => {
  assert.equal(validate(record, SCHEMA), null);
  assert.match(String(record.id), UUID);
  assert.match(String(record.timestamp), DATE_TIME);
  const files = record.files as { conversations: { url?: string; related?: { url: string }[] }[] }[];
  for (const c of files.flatMap((f) => f.conversations))
    for (const url of [c.url, ...(c.related ?? []).map((r) => r.url)].filter((u) => u !== undefined))
      assert.ok(URL.canParse(url), url);
};

test('the schema uses no keyword fettle’s validator skips but format', () =>
  assert.deepEqual([...new Set(unknownKeywords(SCHEMA).map((k) => k.slice(k.lastIndexOf('/') + 1)))], ['format']));

const claudeWrites = (repo: Repo, file: string, content: string) =>
  assert.ok(agentWrite({ cwd: repo.dir, file: repo.path(file), content }, repo.env, writeFileSync).written);

const exported = (repo: Repo, ...args: string[]) => {
  const r = runCli(['trace', 'export', ...args], { cwd: repo.dir, env: repo.env });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
};

test('a commit with a note, a range, and a commit with only the records: valid records, the agent lines as ranges', () => {
  const repo = makeRepo({ 'a.txt': lines(10) });
  repo.git('branch', 'start');
  assert.equal(runCli(['install', '--git-hooks'], { cwd: repo.dir, env: repo.env }).code, 0);
  claudeWrites(repo, 'a.txt', lines(10).replace('line 4\n', 'line 4\nnew a\nnew b\n'));
  repo.commit('with a note');
  notesSettled(repo);
  assert.equal(runCli(['uninstall', '--git-hooks'], { cwd: repo.dir, env: repo.env }).code, 0);
  claudeWrites(repo, 'b.txt', 'b 1\nb 2\nb 3\n');
  repo.write('a.txt', `person\n${repo.read('a.txt')}`);
  repo.commit('no note');
  assert.equal(repo.git('notes', '--ref=fettle', 'list').split('\n').length, 1);

  const [head] = exported(repo);
  assert.ok(head);
  assertValid(head);
  const [noted, last] = exported(repo, 'start..main');
  assert.ok(noted && last);
  for (const r of [noted, last]) assertValid(r);
  assert.deepEqual(last, head);
  assert.deepEqual(exported(repo, 'HEAD')[0], head, 'the same commit, the same record (its id included)');

  assert.deepEqual(noted.vcs, { type: 'git', revision: repo.git('rev-parse', 'HEAD~1') });
  assert.deepEqual(noted.files, [
    {
      path: 'a.txt',
      conversations: [
        {
          contributor: { type: 'ai' },
          ranges: [{ start_line: 5, end_line: 6 }],
          related: [{ type: 'session', url: 'urn:fettle:session:claude:session-1' }],
        },
      ],
    },
  ]);
  // HEAD has no note: its record comes from fettle's records, b.txt's three lines; the person's line is not there.
  assert.deepEqual(
    (head.files as { path: string; conversations: { ranges: unknown }[] }[]).map((f) => [
      f.path,
      f.conversations.map((c) => c.ranges),
    ]),
    [['b.txt', [[{ start_line: 1, end_line: 3 }]]]],
  );
});

test('a revision that names nothing, or looks like an option, is refused', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const missing = runCli(['trace', 'export', 'nope'], { cwd: repo.dir, env: repo.env });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /nope: no such commit or range in this repository\./);
  const option = runCli(['trace', 'export', '--', '--output=x'], { cwd: repo.dir, env: repo.env });
  assert.equal(option.code, 2);
  assert.match(option.stderr, /a revision does not start with "-"/);
});
