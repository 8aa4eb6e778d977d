// `fettle policy check <path>`, the rules in `fettle info` and `fettle doctor`, and `fettle write --from` under a
// policy: every rule considered is listed with whether it matched and which one decides; an invalid policy is
// reported, never a stack trace.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { SELF } from '../helpers/cli';
import { generated, lines, makeRepo, tempDir, type Repo } from '../helpers/repo';
import { errorLine, fettle, ok } from '../helpers/stage';
import { fettleRefs } from '../helpers/tools';

const PROJECT = [
  { name: 'migrations', path: 'migrations/**', action: 'stage' },
  { name: 'no-env', path: '.env*', action: 'block', message: 'Secrets are edited by hand.' },
  { path: 'gen/**', action: 'thresholds', floor: 200, ceil: 1000 },
];
const USER = [{ path: 'migrations/**', action: 'ignore' }];

const setup = (): Repo => {
  const repo = makeRepo({ 'a.txt': lines(40), 'migrations/001.sql': lines(40), 'dist/x.js': 'x\n' });
  repo.write('.fettle/policy.json', JSON.stringify({ version: 1, rules: PROJECT }));
  const dir = join(repo.home, '.config', 'fettle');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'policy.json'), JSON.stringify({ version: 1, rules: USER }));
  return repo;
};

test('policy check lists every rule considered, which matched, and the one that decides', () => {
  const repo = setup();
  const out = ok(fettle(repo, ['policy', 'check', 'migrations/002.sql'])).stdout;
  const user = join(repo.home, '.config', 'fettle', 'policy.json');
  assert.deepEqual(out.trimEnd().split('\n'), [
    "Policy files (the repository's, then yours; in a version 2 file every match speaks and the first decides, in a version 1 file the last match decides):",
    '  project  .fettle/policy.json  3 rules',
    `  user     ${user}  1 rule`,
    '',
    'Rules for migrations/002.sql, in the order considered:',
    '  RULE        ACTION      WHEN             MATCH',
    '  migrations  stage       "migrations/**"  matches: decides',
    '  no-env      block       ".env*"          no match',
    '  project#3   thresholds  "gen/**"         no match',
    '  user#1      ignore      "migrations/**"  matches; migrations decides',
    '',
    'Why:',
    '  migrations: path: migrations/002.sql matches migrations/**',
    '  no-env: path: migrations/002.sql does not match .env*',
    '  project#3: path: migrations/002.sql does not match gen/**',
    '  user#1: path: migrations/002.sql matches migrations/**',
    '',
    'migrations/002.sql: decided by policy rule migrations ("migrations/**" in .fettle/policy.json): every change is staged for review, whatever its size.',
  ]);
});

test('policy check: no rule matching, a block, a thresholds rule, and --json', () => {
  const repo = setup();
  const none = ok(fettle(repo, ['policy', 'check', 'src/app.ts'])).stdout;
  assert.match(
    none,
    new RegExp(
      `^src/app\\.ts: no rule matches; the thresholds in force decide \\(floor 10, ceil 80, ratio 0\\.4; see \`${SELF.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} info\`\\)\\.$`,
      'm',
    ),
  );
  assert.match(
    ok(fettle(repo, ['policy', 'check', 'config/.env'])).stdout,
    /: the call is denied, with the rule's message: Secrets are edited by hand\.$/m,
  );
  const json = JSON.parse(ok(fettle(repo, ['policy', 'check', 'gen/api.ts', '--json'])).stdout) as {
    path: string;
    considered: { rule: string; matched: boolean }[];
    decidedBy: { rule: string } | null;
    effect: { kind: string; text: string; thresholds: unknown };
  };
  assert.equal(json.path, 'gen/api.ts');
  assert.deepEqual(
    json.considered.map((c) => [c.rule, c.matched]),
    [
      ['migrations', false],
      ['no-env', false],
      ['project#3', true],
      ['user#1', false],
    ],
  );
  assert.equal(json.decidedBy?.rule, 'project#3');
  assert.deepEqual(json.effect, {
    kind: 'thresholds',
    text: "the rule's thresholds decide: floor 200, ceil 1000, ratio 0.4",
    thresholds: { floor: 200, ceil: 1000, ratio: 0.4 },
  });
});

test('policy check of a repository with an invalid policy reports it, exit 2, no stack trace', () => {
  const repo = setup();
  repo.write('.fettle/policy.json', '{"version": 1, "rules": [{"path": "a", "action": "stage", "floor": 1}]}');
  const r = fettle(repo, ['policy', 'check', 'a']);
  assert.equal(r.code, 2);
  assert.equal(
    errorLine(r),
    '.fettle/policy.json is not a valid fettle policy: rule 1 ("a") has "floor", "ceil" or "ratio", which go only with "action": "thresholds".',
  );
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});

test('info lists the policy files and rules in force; an invalid one is said to block every write', () => {
  const repo = setup();
  const out = ok(fettle(repo, ['info'])).stdout;
  assert.match(out, /^Policy \(path rules; the last that matches decides, the repository's after yours\):$/m);
  assert.match(out, /^ {4}migrations +stage +"migrations\/\*\*"$/m);
  assert.match(out, /^ {4}no-env +block +"\.env\*" +Secrets are edited by hand\.$/m);
  assert.match(out, /^ {4}user#1 +ignore +"migrations\/\*\*"$/m);
  const json = JSON.parse(ok(fettle(repo, ['info', '--json'])).stdout) as { policy: { rules: { rule: string }[] } };
  assert.deepEqual(
    json.policy.rules.map((r) => r.rule),
    ['user#1', 'migrations', 'no-env', 'project#3'],
  );
  repo.write('.fettle/policy.json', '{"version": 1}');
  assert.match(
    ok(fettle(repo, ['info'])).stdout,
    /^ {2}INVALID: \.fettle\/policy\.json is not a valid fettle policy: the file needs "rules"\. Every write is blocked until it is fixed/m,
  );
  const doctor = fettle(repo, ['doctor']);
  assert.equal(doctor.code, 1);
  assert.match(doctor.stdout, /policy.*\.fettle\/policy\.json is not a valid fettle policy: the file needs "rules"/);
});

test('info outside any repository shows only the user file, and makes no store', () => {
  const dir = tempDir();
  const home = tempDir();
  const r = ok(
    fettle(makeRepo(), ['info'], { cwd: dir, env: { HOME: home, XDG_DATA_HOME: join(home, 'data') } }),
  ).stdout;
  assert.match(r, /^ {2}user {5}.*policy\.json {2}\(none\)$/m);
  assert.doesNotMatch(r, /^ {2}project /m);
  assert.match(r, /^ {2}no rules: the thresholds decide every path$/m);
});

test('write --from under a policy: a block refuses the whole set, a stage stages it, an ignored file is written unrecorded', () => {
  const repo = setup();
  repo.write(
    '.fettle/policy.json',
    JSON.stringify({ version: 1, rules: [...PROJECT, { path: 'dist/', action: 'ignore' }] }),
  );
  const blocked = fettle(repo, ['write', '--from', generated({ 'a.txt': 'x\n', '.env': 'K=1\n' }), 'a.txt', '.env']);
  assert.equal(blocked.code, 1);
  assert.match(errorLine(blocked), /^Policy rule no-env .* blocks writing \.env: Secrets are edited by hand\.$/);
  assert.equal(repo.read('a.txt').toString(), lines(40), 'nothing of the set was written');
  const from = generated({
    'a.txt': lines(40).replace('line 1\n', 'one\n'),
    'migrations/001.sql': lines(40).replace('line 2\n', 'two\n'),
    'dist/x.js': 'y\n',
  });
  const r = ok(fettle(repo, ['write', '--from', from, 'a.txt', 'migrations/001.sql', 'dist/x.js']), 3);
  assert.match(r.stdout, /^Staged changeset [0-9a-z]{8}, because one of its files is a large change:$/m);
  assert.match(
    r.stdout,
    /^fettle wrote dist\/x\.js without recording it: policy rule project#4 \("dist\/" in \.fettle\/policy\.json\) ignores it\.$/m,
  );
  assert.equal(repo.read('dist/x.js').toString(), 'y\n');
  assert.equal(repo.read('a.txt').toString(), lines(40), 'staged with the set, not written');
  assert.equal(fettleRefs(repo).length, 2, 'a.txt and the migration, one change each; dist/x.js none');
});

test('policy check of a format 2 call: --tool, --content-file, --command and --session say why each rule held', () => {
  const repo = setup();
  repo.write(
    '.fettle/policy.json',
    JSON.stringify({
      version: 2,
      rules: [
        { name: 'no-console', path: 'src/**', added: 'console\\.log', action: 'block', message: 'Use the logger.' },
        { name: 'todo', content: 'TODO', action: 'note', message: 'File an issue.' },
        { name: 'no-force', tool: 'Bash', command: '--force', action: 'block', message: 'Never force-push.' },
        { name: 'doc-first', path: 'src/**', notRead: 'docs/a.md', action: 'ask', message: 'Read docs/a.md.' },
      ],
    }),
  );
  repo.write('src/app.ts', 'a\n');
  const content = join(repo.home, 'next.ts');
  writeFileSync(content, 'a\nconsole.log(1) // TODO\n');
  const out = ok(fettle(repo, ['policy', 'check', 'src/app.ts', '--tool', 'Edit', '--content-file', content])).stdout;
  assert.match(out, /^Rules for src\/app\.ts \(Edit\), in the order considered:$/m);
  assert.match(out, /^ {2}no-console: path: src\/app\.ts matches src\/\*\*; added: \/console\\\.log\/ matches$/m);
  assert.match(out, /^ {2}no-force: tool: Edit is not one of Bash; command: no command to check$/m);
  assert.match(
    out,
    /^ {2}doc-first: path: src\/app\.ts matches src\/\*\*; notRead: the session has not read docs\/a\.md$/m,
  );
  assert.match(
    out,
    /^The agent is told:\n {2}no-console: Use the logger\.\n {2}todo: File an issue\.\n {2}doc-first: Read/m,
  );
  assert.match(out, /^src\/app\.ts \(Edit\): decided by policy rule no-console /m);
  const state = join(repo.dir, '.git', 'fettle', 'state');
  mkdirSync(state, { recursive: true });
  writeFileSync(join(state, 's1.jsonl'), `${JSON.stringify({ t: 'Read', p: 'docs/a.md' })}\n`);
  const json = JSON.parse(
    ok(fettle(repo, ['policy', 'check', 'src/app.ts', '--tool', 'Write', '--session', 's1', '--json'])).stdout,
  ) as { decidedBy: unknown; considered: { rule: string; why: string[] }[] };
  assert.equal(json.decidedBy, null, 'docs/a.md was read in s1; no content given, so no content rule holds');
  assert.deepEqual(
    json.considered.find((c) => c.rule === 'doc-first')?.why.at(-1),
    'notRead: the session has read docs/a.md',
  );
  const push = ok(fettle(repo, ['policy', 'check', '--command', 'git push --force'])).stdout;
  assert.match(push, /^Rules for the command \(Bash\), in the order considered:$/m);
  assert.match(
    push,
    /: decided by policy rule no-force \(tool="Bash" command="--force" in \.fettle\/policy\.json\): the call is denied/m,
  );
});

test('policy check of a run rule: says the command a write would run; --run runs it; a shell command runs none', () => {
  const repo = setup();
  const marker = join(repo.home, 'ran');
  const run = `touch '${marker}'; grep -q good {file}`;
  repo.write(
    '.fettle/policy.json',
    JSON.stringify({ version: 2, rules: [{ name: 'check', action: 'run', run, onFail: 'stage', timeoutSeconds: 9 }] }),
  );
  const out = ok(fettle(repo, ['policy', 'check', 'a.txt'])).stdout;
  assert.match(out, /^ {2}check +run +every call +matches: runs its command$/m);
  assert.match(
    out,
    /^A write that goes on \(direct, staged or asked about\) first runs, on the files as it would leave them:\n {2}check: `touch '.*'; grep -q good a\.txt` \(failing: stage; timeout 9 s\)$/m,
  );
  assert.equal(existsSync(marker), false, 'without --run nothing runs');
  const failed = fettle(repo, ['policy', 'check', 'a.txt', '--run']);
  assert.equal(failed.code, 1, failed.stderr);
  assert.match(
    failed.stdout,
    /^Ran them:\nPolicy rule check \(every call in \.fettle\/policy\.json\) ran .* failed \(exit 1\)\. It printed nothing\.\n\(stages the write\)$/m,
  );
  assert.equal(existsSync(marker), true);
  const content = join(repo.home, 'next.txt');
  writeFileSync(content, 'good\n');
  const passed = ok(fettle(repo, ['policy', 'check', 'a.txt', '--run', '--content-file', content, '--json'])).stdout;
  const json = JSON.parse(passed) as { runs: unknown[]; ran: { failures: unknown[] } };
  assert.deepEqual(json.runs, [
    {
      rule: 'check',
      command: `touch '${marker}'; grep -q good a.txt`,
      onFail: 'stage',
      timeoutSeconds: 9,
      applies: true,
    },
  ]);
  assert.deepEqual(json.ran, { failures: [] });
  assert.equal(repo.read('a.txt').toString(), lines(40), 'the work tree is untouched');
  const bash = ok(fettle(repo, ['policy', 'check', '--command', 'make'])).stdout;
  assert.match(
    bash,
    /^These run rules do not apply to a shell command: fettle cannot know what a command will write before it runs\.$/m,
  );
});
