// A Bash command's changes under the path rules (.fettle/policy.json): the command has run, so fettle records
// rather than stops. A path under `ignore` is not recorded (as for a file tool's write); a path under `block` the
// command changed is recorded, and the model and the person are told so plainly; every record says what decided
// it (Fettle-Decided-By). An invalid policy leaves nothing out.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { agentBash, changesetOf, fettleIn } from '../helpers/bash';
import { makeRepo, type Repo } from '../helpers/repo';

const RULES = [
  { name: 'migrations', path: 'migrations/**', action: 'stage' },
  { name: 'no-env', path: '.env*', action: 'block', message: 'Secrets are edited by hand.' },
  { name: 'generated', path: 'generated/**', action: 'ignore' },
];

const setup = (rules: unknown[] = RULES): Repo => {
  const repo = makeRepo({
    '.fettle/policy.json': JSON.stringify({ version: 1, rules }),
    '.env': 'KEY=1\n',
    'a.txt': 'a\n',
    'migrations/001.sql': 'create\n',
    'generated/out.txt': 'old\n',
  });
  return repo;
};

const COMMAND =
  "echo 'KEY=2' > .env && echo more >> a.txt && echo alter >> migrations/001.sql && echo new > generated/out.txt && echo made > generated/new.txt";

interface Row {
  id: string;
  path: string;
  decidedBy: string | null;
}
const rows = (repo: Repo): Row[] =>
  (JSON.parse(fettleIn(repo, 'log', '--json').stdout) as { changes: Row[] }).changes.sort((x, y) =>
    x.path < y.path ? -1 : 1,
  );

test('ignored paths are not recorded; a blocked path the command changed is recorded and named to the model and the person; each record says what decided it', () => {
  const repo = setup();
  const call = agentBash(repo, COMMAND);
  assert.equal(call.post.code, 0, call.post.stderr);
  assert.deepEqual(
    rows(repo).map((r) => [r.path, r.decidedBy]),
    [
      ['.env', 'policy:no-env'],
      ['a.txt', 'threshold'],
      ['migrations/001.sql', 'policy:migrations'],
    ],
    'generated/** is under an ignore rule: neither file is recorded',
  );
  const changeset = changesetOf(call.line);
  assert.equal(
    call.line?.replace(/undo with: .* rollback/, 'undo with: fettle rollback'),
    `This shell command changed a path a policy rule blocks the agent from writing: .env (blocked by policy rule no-env (".env*" in .fettle/policy.json)). Tell the user; fettle recorded 3 files changed by this command: 3 modified; undo with: fettle rollback ${changeset}`,
  );
  assert.equal(
    call.post.json?.systemMessage,
    'fettle: This shell command changed a path a policy rule blocks the agent from writing: .env (blocked by policy rule no-env (".env*" in .fettle/policy.json)).',
  );
  const env = rows(repo).find((r) => r.path === '.env');
  assert.match(
    fettleIn(repo, 'show', env?.id ?? '?').stdout,
    /A policy rule blocks writes to this path \(no-env .*\), but a shell command changed it/,
  );
  assert.equal(fettleIn(repo, 'rollback', changeset).code, 0);
  assert.deepEqual(
    ['.env', 'a.txt', 'migrations/001.sql', 'generated/out.txt'].map((p) => repo.read(p).toString()),
    ['KEY=1\n', 'a\n', 'create\n', 'new\n'],
    'rollback restores what was recorded; the ignored file keeps what the command wrote',
  );
});

test('a command that changed only ignored paths records nothing and says nothing', () => {
  const repo = setup();
  const call = agentBash(repo, 'echo new > generated/out.txt && echo made > generated/new.txt');
  assert.deepEqual([call.post.code, call.post.stdout, call.line], [0, '', undefined]);
  assert.deepEqual(rows(repo), []);
});

test('without a matching rule a Bash record is decided by the thresholds, as a direct file write is', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const call = agentBash(repo, 'echo more >> a.txt');
  assert.equal(call.post.json?.systemMessage, undefined);
  assert.deepEqual(
    rows(repo).map((r) => [r.path, r.decidedBy]),
    [['a.txt', 'threshold']],
  );
});

test('an invalid policy leaves nothing out: every change is recorded, and the line says no rule was applied', () => {
  const repo = setup();
  const dir = join(repo.home, '.config', 'fettle');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'policy.json'), '{"version": 1, "rules": [');
  const call = agentBash(repo, COMMAND);
  assert.equal(call.post.code, 0, call.post.stderr);
  assert.deepEqual(
    rows(repo).map((r) => r.path),
    ['.env', 'a.txt', 'generated/new.txt', 'generated/out.txt', 'migrations/001.sql'],
  );
  assert.match(
    call.line ?? '',
    /; no policy rule was applied \(.*policy\.json is not a valid fettle policy: it is not JSON \(.*\)\.\); undo with: /,
  );
  assert.match(
    fettleIn(repo, 'show', rows(repo)[0]?.id ?? '?').stdout,
    /^ {2}No policy rule was applied, so nothing was left out: .*policy\.json is not a valid fettle policy/m,
  );
});
