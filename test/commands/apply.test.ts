// `fettle apply <contract>`: a contract's edits staged as one changeset on the working tree, or nothing staged at
// all (an anchor matching 0 or 2+ times, an edit outside the scope, a blocked path, a file with a staged change
// pending); --dry-run shows the diff and stages nothing; --test runs the checks in the test tree against the staged
// result and records the outcome, which review shows; confirm refuses once the contract no longer hashes the same.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SELF } from '../helpers/cli';
import { lines, type Repo } from '../helpers/repo';
import { errorLine, fettle, ok, stageWrite } from '../helpers/stage';
import { blobAt, fettleRefs, onDisk, scenario } from '../helpers/tools';

const FILES = {
  'src/config.ts': 'export const loadConfig = (path: string) => read(path);\nexport const other = 1;\n',
  'src/index.ts': "import { run } from './run';\n\nrun();\n",
  'README.md': '# app\n',
};

/** A replace, an insert and a new file: the three-file contract. */
const THREE = {
  version: 1,
  title: 'Rename loadConfig',
  scope: ['src/**', 'docs/*.md'],
  edits: [
    { op: 'replace', file: 'src/config.ts', anchor: 'loadConfig', with: 'readConfig' },
    {
      op: 'insert-after',
      file: 'src/index.ts',
      anchor: "import { run } from './run';\n",
      text: "import { readConfig } from './config';\n",
    },
    { op: 'create', file: 'docs/config.md', text: '# Configuration\n\nRead with `readConfig`.\n' },
  ],
};

const AFTER: Record<string, string> = {
  'src/config.ts': 'export const readConfig = (path: string) => read(path);\nexport const other = 1;\n',
  'src/index.ts': "import { run } from './run';\nimport { readConfig } from './config';\n\nrun();\n",
  'docs/config.md': '# Configuration\n\nRead with `readConfig`.\n',
};

/** The contract written outside the work tree (so it is not one of the files it edits), returned as its path. */
const contractAt = (repo: Repo, contract: unknown, name = 'contract.json'): string => {
  const file = join(repo.home, name);
  writeFileSync(file, typeof contract === 'string' ? contract : JSON.stringify(contract, null, 2));
  return file;
};

const changesetOf = (stdout: string): string => {
  const id = /as changeset ([0-9a-z]{8}):/.exec(stdout)?.[1];
  assert.ok(id, stdout);
  return id;
};

interface ChangeRow {
  id: string;
  path: string;
  state: string;
  changeset: string;
  decidedBy: string | null;
  contract: string | null;
  contractPath: string | null;
  checks: string | null;
}
const reviewJson = (repo: Repo, id: string) =>
  JSON.parse(ok(fettle(repo, ['review', id, '--json'])).stdout) as {
    changes: ChangeRow[];
    files: { path: string }[];
    checksNote: string | null;
    diff: string;
  };

scenario('a 3-file contract stages one changeset whose result is exactly the contract', FILES, (repo) => {
  const file = contractAt(repo, THREE);
  const r = ok(fettle(repo, ['apply', file]), 3);
  const set = changesetOf(r.stdout);
  assert.match(
    r.stdout,
    new RegExp(`^To apply it: +${SELF.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} confirm ${set}$`, 'm'),
  );
  // Nothing is written before confirm.
  for (const [path, bytes] of Object.entries(FILES)) assert.equal(onDisk(repo, path)?.toString(), bytes);
  assert.equal(onDisk(repo, 'docs/config.md'), null);
  const view = reviewJson(repo, set);
  assert.deepEqual(view.files.map((f) => f.path).sort(), Object.keys(AFTER).sort());
  assert.equal(view.changes.length, 3);
  for (const c of view.changes) {
    assert.equal(c.changeset, set);
    assert.equal(c.state, 'pending');
    assert.equal(c.decidedBy, 'executor');
    assert.match(c.contract ?? '', /^sha256:[0-9a-f]{64}$/);
    assert.equal(c.contractPath, file);
    assert.equal(c.checks, null);
    // Each proposal holds the file exactly as the contract leaves it.
    assert.equal(blobAt(repo, `refs/fettle/${c.id}`, c.path)?.toString(), AFTER[c.path]);
    // Its commits say the executor applied the contract, as their trailers do; none says the agent did.
    const bodies = repo.git('log', '--format=%b%x00', `refs/fettle/${c.id}`).split('\0');
    assert.equal(
      bodies[0]?.split('\n\n')[0],
      `Applied from contract ${file} (${c.contract}) by fettle's executor and held for review: nothing was written to disk.`,
    );
    assert.doesNotMatch(bodies.join('\n'), /the agent/);
  }
  assert.equal(new Set(view.changes.map((c) => c.contract)).size, 1);
  const shown = ok(fettle(repo, ['review', set])).stdout;
  assert.match(
    shown,
    new RegExp(
      `^Contract: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(sha256:[0-9a-f]{12}…\\), applied by fettle apply\\.$`,
      'm',
    ),
  );
  assert.match(shown, /^Checks: not run/m);
  ok(fettle(repo, ['confirm', set]));
  for (const [path, bytes] of Object.entries(AFTER)) assert.equal(onDisk(repo, path)?.toString(), bytes);
  assert.equal(onDisk(repo, 'README.md')?.toString(), FILES['README.md']);
  // The work tree differs from HEAD by exactly the contract's three files.
  assert.deepEqual(repo.gitBytes('status', '--porcelain').toString().trimEnd().split('\n').sort(), [
    ' M src/config.ts',
    ' M src/index.ts',
    '?? docs/',
  ]);
});

const MULTI = { ...FILES, 'src/config.ts': 'export const loadConfig = (\n  path: string) => read(path);\n' };
scenario('the Markdown form stages the same changes, with the same hash, as its JSON form', MULTI, (repo) => {
  const md = [
    '# Rename loadConfig',
    '',
    'Notes for the reviewer are prose; only the fenced blocks are the contract.',
    '',
    '```fettle-contract',
    JSON.stringify({ version: 1, title: 'Rename loadConfig', scope: THREE.scope }),
    '```',
    '',
    '```replace src/config.ts',
    'export const loadConfig = (',
    '```',
    '',
    '```with',
    'export const readConfig = (',
    '```',
    '',
  ].join('\n');
  const json = {
    ...THREE,
    edits: [
      {
        op: 'replace',
        file: 'src/config.ts',
        anchor: 'export const loadConfig = (\n',
        with: 'export const readConfig = (\n',
      },
    ],
  };
  // A fenced block's text ends with its line break: the JSON form's anchor of the same whole line.
  const viaMd = JSON.parse(ok(fettle(repo, ['apply', '--dry-run', '--json', contractAt(repo, md, 'c.md')])).stdout);
  const viaJson = JSON.parse(ok(fettle(repo, ['apply', '--dry-run', '--json', contractAt(repo, json)])).stdout);
  assert.equal(viaMd.contract.hash, viaJson.contract.hash);
  assert.equal(viaMd.diff, viaJson.diff);
  assert.match(viaMd.diff, /^-export const loadConfig = \($/m);
  assert.match(viaMd.diff, /^\+export const readConfig = \($/m);
});

scenario('--dry-run shows the diff and stages nothing', FILES, (repo) => {
  const refs = fettleRefs(repo);
  const r = ok(fettle(repo, ['apply', '--dry-run', contractAt(repo, THREE)]));
  assert.match(r.stdout, /^fettle apply --dry-run: the contract .* would stage 3 files; nothing was staged\.$/m);
  assert.match(r.stdout, /^-export const loadConfig = \(path: string\) => read\(path\);$/m);
  assert.match(r.stdout, /^\+export const readConfig = \(path: string\) => read\(path\);$/m);
  assert.match(r.stdout, /^\+import \{ readConfig \} from '\.\/config';$/m);
  assert.match(r.stdout, /^\+\+\+ b\/docs\/config\.md$/m);
  assert.deepEqual(fettleRefs(repo), refs);
  for (const [path, bytes] of Object.entries(FILES)) assert.equal(onDisk(repo, path)?.toString(), bytes);
});

/**
 * Runs a contract that must fail: exit 1, E_CONTRACT's message, no change's ref made or moved; one record of the
 * failed attempt is all it adds (protocol/record/failed.ts).
 */
const failsWhole = (repo: Repo, contract: unknown): string => {
  const list = () => repo.git('for-each-ref', 'refs/fettle/').split('\n').filter(Boolean);
  const refs = list();
  const r = fettle(repo, ['apply', contractAt(repo, contract)]);
  assert.equal(r.code, 1, r.stderr);
  const now = list();
  const added = now.filter((l) => !refs.includes(l));
  assert.equal(added.length, 1, 'one record: the failed attempt');
  const ref = (added[0] as string).split('\t')[1] as string;
  assert.match(repo.git('log', '-1', '--format=%B', ref), /^Fettle-Kind: failed$/m);
  assert.deepEqual(
    now.filter((l) => !added.includes(l)),
    refs,
    'no change made or moved',
  );
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  for (const [path, bytes] of Object.entries(FILES)) assert.equal(onDisk(repo, path)?.toString(), bytes);
  return r.stderr;
};

scenario('an anchor that matches twice fails the whole contract with the lines, and stages nothing', FILES, (repo) => {
  stageWrite(repo, 'README.md', lines(40)); // a change of another file: its ref must not move either
  const twice = {
    ...THREE,
    edits: [...THREE.edits, { op: 'insert-before', file: 'src/config.ts', anchor: 'export const', text: '// x\n' }],
  };
  const err = failsWhole(repo, twice);
  assert.match(
    errorLine({ code: 1, stdout: '', stderr: err }),
    /^The contract .*contract\.json cannot be applied as written: an edit fails; nothing was staged\.$/,
  );
  assert.match(
    err,
    /^edit 4 \(insert-before src\/config\.ts\): the anchor "export const" matches 2 times \(lines 1, 2\); it must match exactly once\./m,
  );
  assert.match(err, /^Fix the contract, then see what it does with `.* apply --dry-run .*contract\.json`\.$/m);
});

scenario(
  'an anchor that matches nothing names the edit, the file and the nearest lines with their numbers',
  FILES,
  (repo) => {
    const missing = {
      ...THREE,
      edits: [
        { op: 'replace', file: 'src/config.ts', anchor: 'export const loadconfig = (path) => read(path);', with: 'x' },
        { op: 'replace', file: 'src/index.ts', anchor: 'zzzz qqqq', with: 'y' },
      ],
    };
    const err = failsWhole(repo, missing);
    assert.match(errorLine({ code: 1, stdout: '', stderr: err }), /: 2 edits fail; nothing was staged\.$/);
    assert.match(
      err,
      /^edit 1 \(replace src\/config\.ts\): the anchor "export const loadconfig = \(path\) => read\(path\);" matches nothing\. Nearest lines:\n {4}line 1: "export const loadConfig = \(path: string\) => read\(path\);"$/m,
    );
    assert.match(
      err,
      /^edit 2 \(replace src\/index\.ts\): the anchor "zzzz qqqq" matches nothing, and no line is close to it\.$/m,
    );
  },
);

scenario('an edit outside the scope is rejected, and nothing is staged', FILES, (repo) => {
  const outside = {
    ...THREE,
    edits: [...THREE.edits, { op: 'replace', file: 'README.md', anchor: '# app', with: '# App' }],
  };
  const err = failsWhole(repo, outside);
  assert.match(
    err,
    /cannot be applied as written: an edit is outside its scope \(src\/\*\*, docs\/\*\.md\); nothing was staged\./,
  );
  assert.match(err, /^edit 4 \(replace README\.md\) is outside the scope$/m);
});

scenario('a path a policy rule blocks is refused, and nothing is staged', FILES, (repo) => {
  repo.write(
    '.fettle/policy.json',
    JSON.stringify({
      version: 1,
      rules: [{ name: 'docs', path: 'docs/**', action: 'block', message: 'Docs are written by hand.' }],
    }),
  );
  const err = failsWhole(repo, THREE);
  assert.match(err, /edits paths a policy rule blocks; nothing was staged\./);
  assert.match(err, /^docs\/config\.md: policy rule .*docs.* blocks it: Docs are written by hand\.$/m);
});

scenario('a file with a staged change still pending is refused rather than built on', FILES, (repo) => {
  const pending = stageWrite(repo, 'src/index.ts', lines(40));
  const err = failsWhole(repo, THREE);
  assert.match(
    err,
    new RegExp(
      `^src/index\\.ts has staged change ${pending}: .*confirm ${pending}.* or .*discard ${pending}.* first\\.$`,
      'm',
    ),
  );
});

scenario('a contract edited after staging cannot be confirmed, and applying it again can', FILES, (repo) => {
  const file = contractAt(repo, THREE);
  const set = changesetOf(ok(fettle(repo, ['apply', file]), 3).stdout);
  const edited = { ...THREE, edits: [THREE.edits[0], { ...THREE.edits[2], text: 'other\n' }] };
  writeFileSync(file, JSON.stringify(edited));
  const r = fettle(repo, ['confirm', set]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /^fettle: 3 of 3 changes cannot be confirmed, so none was\. Nothing was written; every change stays pending\.$/m,
  );
  assert.match(
    r.stderr,
    new RegExp(
      `The contract ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} was edited after it was staged, so change [0-9a-z]{8} \\(.*\\) is not what was reviewed`,
    ),
  );
  assert.match(
    r.stderr,
    new RegExp(`discard ${set}\`, then \`.* apply .*contract\\.json\` and review the new changeset`),
  );
  for (const [path, bytes] of Object.entries(FILES)) assert.equal(onDisk(repo, path)?.toString(), bytes);
  // Put back byte for byte in another spelling (key order, spacing): the same contract, so it confirms.
  writeFileSync(file, JSON.stringify({ edits: THREE.edits, scope: THREE.scope, version: 1 }));
  ok(fettle(repo, ['confirm', set]));
  assert.equal(onDisk(repo, 'docs/config.md')?.toString(), AFTER['docs/config.md']);
});

scenario('a contract removed after staging cannot be confirmed; discard still works', FILES, (repo) => {
  const file = contractAt(repo, THREE);
  const set = changesetOf(ok(fettle(repo, ['apply', file]), 3).stdout);
  writeFileSync(file, '');
  const r = fettle(repo, ['confirm', set]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /is no longer a valid contract/);
  ok(fettle(repo, ['discard', set]));
  // What is left under refs/fettle/ is the record of the failed confirm, which history keeps.
  const left = fettleRefs(repo).filter((ref) => ref.startsWith('refs/fettle/'));
  assert.deepEqual(
    left.map((ref) => /^Fettle-Kind: (\w+)$/m.exec(repo.git('log', '-1', '--format=%B', ref))?.[1]),
    ['failed'],
  );
  assert.doesNotMatch(ok(fettle(repo, ['status'])).stdout, /Failed/, 'resolved: the changeset was decided');
});

scenario(
  'apply --test runs the checks in the test tree with the staged files, and review shows the outcome',
  FILES,
  (repo) => {
    const seen = join(repo.home, 'seen.txt');
    const checks = [
      ['sh', '-c', `cat src/config.ts docs/config.md > '${seen}'`],
      ['sh', '-c', 'grep -q readConfig src/index.ts'],
    ];
    const r = ok(fettle(repo, ['apply', '--test', contractAt(repo, { ...THREE, checks })]), 3);
    assert.equal(readFileSync(seen, 'utf8'), `${AFTER['src/config.ts']}${AFTER['docs/config.md']}`);
    assert.match(r.stdout, /^Checks passed in the test tree \(2 commands\):$/m);
    const set = changesetOf(r.stdout);
    const view = reviewJson(repo, set);
    assert.deepEqual(
      view.changes.map((c) => c.checks),
      ['passed', 'passed', 'passed'],
    );
    assert.match(view.checksNote ?? '', /^Checks passed in the test tree /);
    assert.match(view.checksNote ?? '', /^ {2}sh -c 'grep -q readConfig src\/index\.ts': exit 0$/m);
    const shown = ok(fettle(repo, ['review', set])).stdout;
    assert.match(shown, /^Checks passed in the test tree \(fettle apply --test\), with the changeset applied:$/m);
    assert.match(shown, /^ {2}sh -c 'grep -q readConfig src\/index\.ts': exit 0$/m);
    // The user's files are as they were: the checks ran elsewhere.
    for (const [path, bytes] of Object.entries(FILES)) assert.equal(onDisk(repo, path)?.toString(), bytes);
  },
);

scenario(
  'a failing check is recorded with the changeset and exits 4; with --dry-run nothing is staged',
  FILES,
  (repo) => {
    const contract = contractAt(repo, { ...THREE, checks: [['sh', '-c', 'exit 7']] });
    const refs = fettleRefs(repo);
    const dry = fettle(repo, ['apply', '--test', '--dry-run', contract]);
    assert.equal(dry.code, 4, dry.stderr);
    assert.match(dry.stdout, /^ {2}sh -c 'exit 7': exit 7$/m);
    assert.deepEqual(fettleRefs(repo), refs);
    const r = ok(fettle(repo, ['apply', '--test', '--json', contract]), 4);
    const out = JSON.parse(r.stdout) as {
      kind: string;
      changeset: string;
      checks: { outcome: string; results: { code: number }[] };
    };
    assert.deepEqual([out.kind, out.checks.outcome, out.checks.results[0]?.code], ['staged', 'failed', 7]);
    assert.deepEqual(
      reviewJson(repo, out.changeset).changes.map((c) => c.checks),
      ['failed', 'failed', 'failed'],
    );
  },
);

scenario('apply --test of a contract without checks is a usage error', FILES, (repo) => {
  const r = fettle(repo, ['apply', '--test', contractAt(repo, THREE)]);
  assert.equal(r.code, 2);
  assert.match(errorLine(r), /has no "checks" for --test to run\.$/);
});

scenario('a deletion is staged, and confirm removes the file', FILES, (repo) => {
  const del = { version: 1, scope: ['README.md'], edits: [{ op: 'delete', file: 'README.md' }] };
  const set = changesetOf(ok(fettle(repo, ['apply', contractAt(repo, del)]), 3).stdout);
  assert.equal(onDisk(repo, 'README.md')?.toString(), FILES['README.md']);
  ok(fettle(repo, ['confirm', set]));
  assert.equal(onDisk(repo, 'README.md'), null);
});

scenario(
  'a CRLF file stays CRLF: an anchor written with \\n matches its \\r\\n line breaks',
  { 'w.txt': 'one\r\ntwo\r\nthree\r\n' },
  (repo) => {
    const c = {
      version: 1,
      scope: ['*.txt'],
      edits: [{ op: 'insert-after', file: 'w.txt', anchor: 'one\ntwo\n', text: 'two and a half\n' }],
    };
    const set = changesetOf(ok(fettle(repo, ['apply', contractAt(repo, c)]), 3).stdout);
    ok(fettle(repo, ['confirm', set]));
    assert.equal(onDisk(repo, 'w.txt')?.toString(), 'one\r\ntwo\r\ntwo and a half\r\nthree\r\n');
  },
);

scenario('a contract that changes nothing stages nothing', FILES, (repo) => {
  const same = {
    version: 1,
    scope: ['**'],
    edits: [{ op: 'replace', file: 'README.md', anchor: '# app', with: '# app' }],
  };
  const r = ok(fettle(repo, ['apply', contractAt(repo, same)]));
  assert.match(r.stdout, /changes nothing/);
  assert.deepEqual(fettleRefs(repo), []);
});

scenario('an invalid contract is reported with where and what, no stack trace', FILES, (repo) => {
  const r = fettle(repo, [
    'apply',
    contractAt(repo, { version: 1, scope: ['src/**'], edits: [{ op: 'replace', file: 'src/a.ts', anchor: 'x' }] }),
  ]);
  assert.equal(r.code, 1);
  assert.match(errorLine(r), /^.*contract\.json is not a valid fettle contract: edit 1 \(replace src\/a\.ts\)/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
  const none = fettle(repo, ['apply', 'no-such.json']);
  assert.equal(none.code, 2);
  assert.equal(errorLine(none), 'no-such.json: no such contract file.');
});
