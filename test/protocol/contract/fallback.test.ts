// A contract's fallback rule and its instructions (core/contract.ts, core/contract-report.ts): with
// `"fallback": "report"`, context that proves insufficient is answered with a machine-readable report (stdout, exit
// 1, nothing staged, the failure recorded); without it, the refusal a person reads. Instructions ride with each
// staged change and show in review; they are hashed, the fallback is not.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { contractHash, parseContractJson } from '../../../src/core/contract';
import { makeRepo, type Repo } from '../../helpers/repo';
import { fettle, ok, statusJson } from '../../helpers/stage';

const FILES = {
  'src/a.ts': 'export const a = 1;\nexport const b = 1;\nexport const c = 2;\n',
  'src/b.ts': 'export const x = 1;\nexport const y = 1;\n',
};

const apply = (repo: Repo, contract: object, args: string[] = []) => {
  writeFileSync(join(repo.dir, 'plan.json'), JSON.stringify({ version: 1, scope: ['src/**'], ...contract }));
  return fettle(repo, ['apply', 'plan.json', ...args]);
};

test('report: an anchor that matches nothing and one that matches twice come back as data; nothing is staged', () => {
  const repo = makeRepo(FILES);
  const edits = [
    { op: 'replace', file: 'src/a.ts', anchor: 'export const d = 1;', with: 'x', instructions: 'rename d' },
    { op: 'replace', file: 'src/b.ts', anchor: '= 1;', with: '= 3;' },
  ];
  const r = apply(repo, { fallback: 'report', edits }, ['--json']);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, '');
  const report = JSON.parse(r.stdout);
  assert.equal(report.kind, 'insufficient');
  assert.equal(report.staged, false);
  assert.deepEqual(
    report.missing.map(
      (m: { edit: number; file: string; found: string; anchor: string; instructions: string | null }) => [
        m.edit,
        m.file,
        m.found,
        m.anchor,
        m.instructions,
      ],
    ),
    [
      [1, 'src/a.ts', 'no-match', 'export const d = 1;', 'rename d'],
      [2, 'src/b.ts', 'several-matches', '= 1;', null],
    ],
  );
  assert.ok(report.missing[0].nearest.some((n: { line: number; text: string }) => n.text === 'export const b = 1;'));
  assert.deepEqual(report.missing[1].matches, { lines: [1, 2], count: 2 });
  assert.match(report.recorded, /^fettle recorded this failure as [0-9a-z]{8}/);
  assert.deepEqual(statusJson(repo).pending, []);
  assert.equal(repo.read('src/a.ts').toString(), FILES['src/a.ts']);
  const text = apply(repo, { fallback: 'report', edits });
  assert.equal(text.code, 1);
  assert.match(
    text.stdout,
    /cannot be applied as written; nothing was staged\. What each failed edit lacks:\n {2}edit 1 /,
  );
});

test('refuse (the default): the refusal a person reads, on stderr', () => {
  const repo = makeRepo(FILES);
  const r = apply(repo, { edits: [{ op: 'replace', file: 'src/a.ts', anchor: 'nowhere', with: 'x' }] });
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /cannot be applied as written: an edit fails; nothing was staged/);
});

test('instructions are recorded with the staged change and shown in review', () => {
  const repo = makeRepo(FILES);
  const edits = [
    { op: 'replace', file: 'src/a.ts', anchor: 'const c = 2', with: 'const c = 3', instructions: 'bump c' },
  ];
  const r = ok(apply(repo, { edits }, ['--json']), 3);
  const { changeset, files } = JSON.parse(r.stdout);
  const want = /^Instructions for the edits of src\/a\.ts \(for review; never run\):\n- edit 1 \(replace\): bump c$/m;
  assert.match(ok(fettle(repo, ['review', files[0].id])).stdout, want);
  assert.match(ok(fettle(repo, ['review', changeset])).stdout, want);
});

test('the hash covers instructions, not the fallback', () => {
  const base = { version: 1, scope: ['a'], edits: [{ op: 'delete', file: 'a' }] };
  const hash = (doc: object) => contractHash(parseContractJson(JSON.stringify(doc), 'c.json'));
  assert.equal(hash({ ...base, fallback: 'report' }), hash(base));
  assert.notEqual(hash({ ...base, edits: [{ op: 'delete', file: 'a', instructions: 'why' }] }), hash(base));
  assert.throws(() => hash({ ...base, fallback: 'guess' }), /"fallback" must be "refuse" or "report"/);
});
