// Policy rules on the hook path (docs/HOOK.md, "Policy"): .fettle/policy.json and the user's file decide per
// path: `stage` holds even a one-line edit, `direct` lets a 5,000-line rewrite through, `block` denies with the
// rule's message in every mode but plan, `ignore` records nothing, a `thresholds` rule sets its own; the project's
// rule beats the user's; an invalid policy blocks writes with a message naming the file, the rule and the fix.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SELF } from '../helpers/cli';
import { lines, type Repo } from '../helpers/repo';
import { fettle, kinds, ok } from '../helpers/stage';
import {
  denied,
  directNote,
  editInput,
  fettleRefs,
  hook,
  hso,
  landedText,
  scenario,
  show,
  toolCall,
  type Env,
} from '../helpers/tools';

const writePolicy = (repo: Repo, rules: unknown[]) =>
  repo.write('.fettle/policy.json', JSON.stringify({ version: 1, rules }));
const writeUserPolicy = (repo: Repo, rules: unknown[]) => {
  const dir = join(repo.home, '.config', 'fettle');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'policy.json'), JSON.stringify({ version: 1, rules }));
  return join(dir, 'policy.json');
};
const trailer = (repo: Repo, rev: string, key: string): string =>
  repo.git('log', '-1', `--format=%(trailers:key=${key},valueonly)`, rev).trim();
const writeInput = (repo: Repo, file: string, content: string) => ({ file_path: repo.path(file), content });

const RULES = [
  { name: 'migrations', path: 'migrations/**', action: 'stage' },
  { path: 'package-lock.json', action: 'direct' },
  { name: 'no-env', path: '.env*', action: 'block', message: 'Secrets are edited by hand, never by the agent.' },
  { path: 'dist/', action: 'ignore' },
];
const FILES = {
  'migrations/001.sql': lines(40),
  'package-lock.json': lines(5000, 'dep'),
  '.env': 'KEY=1\n',
  'dist/app.js': lines(10),
};

scenario('a one-line Edit under migrations/** with a stage rule is staged, and says which rule', FILES, (repo) => {
  writePolicy(repo, RULES);
  const reason = denied(hook(repo, 'Edit', editInput(repo.path('migrations/001.sql'), 'line 3\n', 'line three\n')));
  assert.match(reason, /^fettle held this write for review: nothing was written to migrations\/001\.sql\.$/m);
  assert.match(
    reason,
    /^Staged change ([0-9a-z]{8}): \+1 -1 to a 40-line file; staged because policy rule migrations \("migrations\/\*\*" in \.fettle\/policy\.json\) stages every change to it\.$/m,
  );
  const id = /Staged change ([0-9a-z]{8})/.exec(reason)?.[1] as string;
  assert.deepEqual(kinds(repo, `refs/fettle/${id}`), ['proposal', 'before']);
  assert.equal(trailer(repo, `fettle/${id}`, 'Fettle-Reason'), 'policy');
  assert.equal(trailer(repo, `fettle/${id}`, 'Fettle-Decided-By'), 'policy:migrations');
  assert.equal(repo.read('migrations/001.sql').toString(), lines(40), 'nothing written');
});

scenario('a new file under a stage rule is staged too, with all its lines', FILES, (repo) => {
  writePolicy(repo, RULES);
  const reason = denied(hook(repo, 'Write', writeInput(repo, 'migrations/002.sql', 'create table t;\n')));
  assert.match(reason, /^Staged change [0-9a-z]{8}: \+1 -0; staged because policy rule migrations /m);
  assert.match(reason, /^\+create table t;$/m);
});

scenario(
  'a 5,000-line lockfile rewrite with a direct rule goes direct, recorded as the rule decided',
  FILES,
  (repo) => {
    writePolicy(repo, RULES);
    const next = lines(5000, 'pinned');
    const run = toolCall(repo, 'Write', writeInput(repo, 'package-lock.json', next), () =>
      writeFileSync(repo.path('package-lock.json'), next),
    );
    assert.deepEqual([run.pre.code, run.pre.stdout], [0, ''], show(run.pre));
    assert.ok(run.ran);
    const [ref] = fettleRefs(repo);
    const id = (ref as string).replace('refs/fettle/', '');
    assert.match(
      hso(run.post)?.additionalContext ?? '',
      directNote('package-lock.json', `${landedText(next)}, +5000 -5000 ~5000`, id),
    );
    assert.deepEqual(kinds(repo, ref as string), ['after', 'before']);
    assert.equal(trailer(repo, ref as string, 'Fettle-Reason'), 'policy');
    assert.equal(trailer(repo, ref as string, 'Fettle-Decided-By'), 'policy:project#2');
  },
);

for (const mode of ['default', 'acceptEdits', 'bypassPermissions', 'auto', 'dontAsk', undefined]) {
  scenario(
    `a block rule on .env* denies with the rule's message in ${mode ?? 'no'} mode; nothing recorded`,
    FILES,
    (repo) => {
      writePolicy(repo, RULES);
      for (const file of ['.env', 'config/.env.local']) {
        const r = hook(repo, 'Write', writeInput(repo, file, 'KEY=2\n'), {
          mode: mode ?? null,
          toolUseId: `t-${file}`,
        });
        assert.equal(
          denied(r),
          `fettle blocked this write: nothing was written to ${file}. Policy rule no-env (".env*" in .fettle/policy.json) blocks it: Secrets are edited by hand, never by the agent. Do not retry the Write; tell the user if the change is needed.`,
        );
      }
      assert.deepEqual(fettleRefs(repo), []);
    },
  );
}

scenario('in plan mode fettle does nothing, a block rule included', FILES, (repo) => {
  writePolicy(repo, RULES);
  const r = hook(repo, 'Write', writeInput(repo, '.env', 'KEY=2\n'), { mode: 'plan' });
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
});

scenario('an ignore rule: fettle does nothing, before or after the tool writes', FILES, (repo) => {
  writePolicy(repo, RULES);
  const next = lines(10, 'rebuilt');
  const run = toolCall(repo, 'Write', writeInput(repo, 'dist/app.js', next), () =>
    writeFileSync(repo.path('dist/app.js'), next),
  );
  assert.deepEqual([run.pre.code, run.pre.stdout, run.post?.code, run.post?.stdout], [0, '', 0, '']);
  assert.deepEqual(fettleRefs(repo), []);
});

scenario(
  "the project's rule beats the user's on the same path; the user's applies where the project has none",
  FILES,
  (repo) => {
    writePolicy(repo, RULES);
    writeUserPolicy(repo, [
      { path: 'migrations/**', action: 'ignore' },
      { name: 'mine', path: '*.txt', action: 'stage' },
    ]);
    repo.write('notes.txt', lines(40));
    assert.match(
      denied(hook(repo, 'Edit', editInput(repo.path('migrations/001.sql'), 'line 3\n', 'x\n'))),
      /policy rule migrations /,
    );
    const notes = denied(hook(repo, 'Edit', editInput(repo.path('notes.txt'), 'line 3\n', 'x\n'), { toolUseId: 't2' }));
    assert.match(
      notes,
      new RegExp(
        `policy rule mine \\("\\*\\.txt" in ${join(repo.home, '.config', 'fettle', 'policy.json').replace(/[.]/g, '\\.')}\\)`,
      ),
    );
  },
);

scenario(
  'a thresholds rule sets its own floor for its paths',
  { 'gen/api.ts': lines(100), 'src/a.ts': lines(100) },
  (repo) => {
    writePolicy(repo, [{ path: 'gen/**', action: 'thresholds', floor: 500, ceil: 1000 }]);
    const rewrite = (file: string) => editInput(repo.path(file), lines(60).slice(0, -1), lines(60, 'new').slice(0, -1));
    const gen = toolCall(repo, 'Edit', rewrite('gen/api.ts'), () => {
      repo.write('gen/api.ts', lines(60, 'new') + lines(40, 'line', 61));
    });
    assert.deepEqual([gen.pre.code, gen.pre.stdout], [0, ''], 'under its own floor of 500: direct');
    const src = hook(repo, 'Edit', rewrite('src/a.ts'), { toolUseId: 't2' });
    assert.match(denied(src), /reach the limit of 80/);
    const [ref] = fettleRefs(repo).filter((r) => kinds(repo, r)[0] === 'after');
    assert.equal(trailer(repo, ref as string, 'Fettle-Decided-By'), 'policy:project#1');
  },
);

scenario('a stage rule in dontAsk mode is refused like a large write: nothing staged', FILES, (repo) => {
  writePolicy(repo, RULES);
  const r = hook(repo, 'Edit', editInput(repo.path('migrations/001.sql'), 'line 3\n', 'x\n'), { mode: 'dontAsk' });
  assert.match(
    denied(r),
    /^fettle refused this write: nothing was written to migrations\/001\.sql and nothing was staged\. It is a change \(\+1 -1 to a 40-line file; policy rule migrations .* stages every change to it\), and in dontAsk mode nobody can review a staged change\./,
  );
  assert.deepEqual(fettleRefs(repo), []);
});

scenario('a stage rule in default mode asks a person', FILES, (repo) => {
  writePolicy(repo, RULES);
  const r = hook(repo, 'Edit', editInput(repo.path('migrations/001.sql'), 'line 3\n', 'x\n'), { mode: 'default' });
  assert.equal(hso(r)?.permissionDecision, 'ask', show(r));
  assert.match(
    hso(r)?.permissionDecisionReason ?? '',
    /^fettle: this is a change to migrations\/001\.sql \(\+1 -1 to a 40-line file; policy rule migrations/,
  );
});

scenario('a stage rule on an Edit fettle cannot compute is denied, never let through unstaged', FILES, (repo) => {
  writePolicy(repo, RULES);
  const r = hook(repo, 'Edit', editInput(repo.path('migrations/001.sql'), 'no such text', 'x'));
  assert.match(
    denied(r),
    /^fettle refused this write: nothing was written to migrations\/001\.sql\. Policy rule migrations .* stages every change to it, and fettle cannot compute this Edit's result exactly \(.*\), so there is nothing it could stage\. Write the whole file with the Write tool instead\.$/,
  );
  assert.deepEqual(fettleRefs(repo), []);
});

const BAD = '{"version": 1, "rules": [{"path": "a", "action": "stage"}, {"path": ".env*", "action": "deny"}]}';

scenario('a malformed policy blocks the write (exit 2), naming the file, the rule and the fix', FILES, (repo) => {
  repo.write('.fettle/policy.json', BAD);
  repo.write('src.txt', lines(3));
  const r = hook(repo, 'Write', writeInput(repo, 'src.txt', 'x\n'));
  assert.equal(r.code, 2, show(r));
  assert.equal(r.stdout, '');
  assert.equal(
    r.stderr.trim(),
    `fettle blocked this write because a policy file is invalid; nothing was written. .fettle/policy.json is not a valid fettle policy: rule 2 (".env*"): "action" must be one of "stage", "direct", "ignore", "block", "thresholds", not "deny". Fix it in .fettle/policy.json (the format: schema/policy.v1.json in fettle's package), then check a path with \`${SELF} policy check <path>\`. To let writes through unprotected until it is fixed, set FETTLE_ON_ERROR=allow.`,
  );
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.deepEqual(fettleRefs(repo), []);
});

scenario(
  'a malformed policy with FETTLE_ON_ERROR=allow lets the write through, unrecorded, and says so (exit 1)',
  FILES,
  (repo) => {
    repo.write('.fettle/policy.json', '{"version": 1, "rules": [');
    repo.write('src.txt', lines(3));
    const env: Env = { FETTLE_ON_ERROR: 'allow' };
    const r = hook(repo, 'Write', writeInput(repo, 'src.txt', 'x\n'), { env });
    assert.equal(r.code, 1, show(r));
    assert.match(
      r.stderr.trim(),
      /^fettle: \.fettle\/policy\.json is not a valid fettle policy: it is not JSON \(.*\)\. .* This write to .*src\.txt is NOT protected \(FETTLE_ON_ERROR=allow\): nothing was recorded\.$/,
    );
    assert.deepEqual(fettleRefs(repo), []);
  },
);

scenario('fettle write follows the policy: block refuses, ignore writes unrecorded, stage stages', FILES, (repo) => {
  writePolicy(repo, RULES);
  const blocked = fettle(repo, ['write', '.env'], { input: 'KEY=3\n' });
  assert.equal(blocked.code, 1);
  assert.equal(
    blocked.stderr.split('\n')[0],
    'fettle: Policy rule no-env (".env*" in .fettle/policy.json) blocks writing .env: Secrets are edited by hand, never by the agent.',
  );
  assert.equal(repo.read('.env').toString(), 'KEY=1\n');
  const ignored = ok(fettle(repo, ['write', 'dist/app.js'], { input: 'built\n' }));
  assert.match(ignored.stdout, /^fettle wrote dist\/app\.js without recording it: policy rule project#4 /);
  assert.equal(repo.read('dist/app.js').toString(), 'built\n');
  assert.deepEqual(fettleRefs(repo), []);
  const staged = ok(
    fettle(repo, ['write', 'migrations/001.sql'], { input: lines(40).replace('line 1\n', 'one\n') }),
    3,
  );
  assert.match(staged.stdout, /staged because policy rule migrations/);
  const invalid = fettle(repo, ['write', 'x.txt'], { input: 'x', env: { XDG_CONFIG_HOME: join(repo.home, 'cfg') } });
  assert.equal(invalid.code, 0, 'a missing user file is no policy');
  repo.write('.fettle/policy.json', BAD);
  const broken = fettle(repo, ['write', 'y.txt'], { input: 'y' });
  assert.equal(broken.code, 2, 'an invalid policy is a configuration error');
  assert.match(broken.stderr, /^fettle: \.fettle\/policy\.json is not a valid fettle policy: rule 2/);
});

scenario(
  'the parse kept between hook calls follows the file: an edit of the same size takes effect, a torn cache is ignored',
  FILES,
  (repo) => {
    let call = 0;
    const edit = () =>
      hook(repo, 'Edit', editInput(repo.path('migrations/001.sql'), 'line 3\n', 'line three\n'), {
        toolUseId: `toolu_cache_${++call}`,
      });
    const cache = join(repo.dir, '.git', 'fettle', 'cache', 'policy-project.json');
    writePolicy(repo, [{ name: 'aaaa', path: 'migrations/**', action: 'stage' }]);
    assert.match(denied(edit()), /policy rule aaaa /);
    assert.match(repo.read('.git/fettle/cache/policy-project.json').toString(), /"label":"aaaa"/);
    // Same size, another name: the file's identity (its modification time) changed, so it is parsed again.
    writePolicy(repo, [{ name: 'bbbb', path: 'migrations/**', action: 'stage' }]);
    assert.match(denied(edit()), /policy rule bbbb /);
    writeFileSync(cache, '{"version":"policy-cache 1","fi');
    assert.match(denied(edit()), /policy rule bbbb /);
    // A cache that names another file or identity is not used, whatever it holds.
    writeFileSync(cache, JSON.stringify({ version: 'policy-cache 1', file: 'elsewhere', key: 'x', layer: {} }));
    assert.match(denied(edit()), /policy rule bbbb /);
    writePolicy(repo, [{ name: 'cccc', path: 'migrations/**', action: 'block', message: 'Not now.' }]);
    assert.match(denied(edit()), /Not now\./);
  },
);
