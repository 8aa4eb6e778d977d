// What `fettle rollback` exits with: nothing to roll back is not a usage error, a refusal has its own code, and a
// dry run exits as the real run would.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EXIT } from '../../src/errors';
import { literal, SELF } from '../helpers/cli';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import { directWrite, fettle, ok, stageWrite, T0 } from '../helpers/stage';

const BASE = lines(40);
const edit = (text: string, n: number, word: string): string => text.replace(`line ${n}\n`, `${word} ${n}\n`);
const codeOf = (stdout: string): string => (JSON.parse(stdout) as { error: { code: string } }).error.code;

// [the change, how it came to have nothing to roll back]
const nothing: [string, (repo: Repo) => string][] = [
  ['already rolled back', (repo) => rolledBack(repo)],
  ['pending', (repo) => stageWrite(repo, 'a.txt', lines(40, 'new'))],
  ['discarded', (repo) => discarded(repo)],
];
const rolledBack = (repo: Repo): string => {
  const id = directWrite(repo, 'a.txt', edit(BASE, 3, 'one'));
  ok(fettle(repo, ['rollback', id]));
  return id;
};
const discarded = (repo: Repo): string => {
  const id = stageWrite(repo, 'a.txt', lines(40, 'new'));
  ok(fettle(repo, ['discard', id]));
  return id;
};

for (const [name, make] of nothing)
  test(`nothing to roll back (${name}) exits 1 with E_NOTHING_TO_ROLL_BACK, not a usage error`, () => {
    const repo = makeRepo({ 'a.txt': BASE });
    const id = make(repo);
    for (const args of [
      ['rollback', id, '--json'],
      ['rollback', id, '--dry-run', '--json'],
    ]) {
      const r = fettle(repo, args);
      assert.equal(r.code, EXIT.failed, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(codeOf(r.stdout), 'E_NOTHING_TO_ROLL_BACK');
    }
  });

test('a dry run that lists refused files exits as the rollback does: 5, a refusal', () => {
  const repo = makeRepo({ 'a.txt': BASE, 'b.txt': BASE });
  const s1 = { env: { FETTLE_SESSION: 's1' }, now: T0 };
  directWrite(repo, 'a.txt', edit(BASE, 3, 'agent'), s1);
  directWrite(repo, 'b.txt', edit(BASE, 3, 'agent'), s1);
  repo.write('a.txt', edit(BASE, 3, 'user'));
  const dry = fettle(repo, ['rollback', '--session', 's1', '--dry-run'], { now: T0 + 10 });
  assert.match(dry.stdout, /^ {2}refused: .*a\.txt changed after fettle wrote it/m);
  // The refusal's way through is spelled for this shell, as the real run's is.
  assert.match(dry.stdout, new RegExp(`\`${literal(SELF)} rollback [0-9a-z]{8} --force\``));
  const real = fettle(repo, ['rollback', '--session', 's1', '--json'], { now: T0 + 10 });
  assert.equal(codeOf(real.stdout), 'E_CONFLICT');
  assert.deepEqual([dry.code, real.code], [EXIT.refused, EXIT.refused]);
  const json = fettle(repo, ['rollback', '--session', 's1', '--dry-run', '--json'], { now: T0 + 10 });
  assert.equal(json.code, EXIT.refused);
  assert.equal((JSON.parse(json.stdout) as { refused: unknown[] }).refused.length, 1);
  ok(fettle(repo, ['rollback', '--session', 's1', '--dry-run', '--force'], { now: T0 + 10 }));
});
