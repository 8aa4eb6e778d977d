// What `fettle test` runs the command in: the session's test tree, holding the user's working tree (uncommitted
// edits, the agent's direct writes, untracked files, deletions; not ignored files) with the staged changes applied
// as confirm would write them, updated in place on later runs.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { existsSync, lstatSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { agentWrite } from '../helpers/cli';
import { lines, makeRepo, repoAt, type Repo } from '../helpers/repo';
import { T0, fettle, ok, stageWrite, testTreeDir } from '../helpers/stage';

const SESSION = 'session-1';
const env = (repo: Repo) => ({ ...repo.env, FETTLE_NOW: String(T0) });

/** A Write through the hook, as Claude Code runs it; returns the id of the change it staged, if it staged one. */
const write = (repo: Repo, path: string, content: string): string | undefined => {
  const { pre } = agentWrite({ file: repo.path(path), content, cwd: repo.dir, session: SESSION }, env(repo), (p, c) =>
    repo.write(relative(repo.dir, p), c),
  );
  return /Staged change ([0-9a-z]{8})/.exec(pre.json?.hookSpecificOutput?.permissionDecisionReason ?? '')?.[1];
};

/** util.js rewritten whole (staged) to need ./helpers, which the agent created first (a direct write). */
const UTIL = `const { answer } = require('./helpers');\n${lines(30, '// uses the helper, line')}console.log('answer', answer);\n`;

const scene = () => {
  const repo = makeRepo({
    'src/util.js': `${lines(30, '// old util, line')}console.log('old');\n`,
    'src/config.js': "module.exports = 'committed';\n",
    'src/gone.js': 'deleted by the user\n',
    '.gitignore': 'build/\n*.log\n',
  });
  assert.equal(write(repo, 'src/helpers.js', 'exports.answer = 42;\n'), undefined, 'a new file goes straight through');
  const id = write(repo, 'src/util.js', UTIL);
  assert.ok(id, 'the rewrite is staged');
  repo.write('src/config.js', "module.exports = 'edited, not committed';\n");
  unlinkSync(repo.path('src/gone.js'));
  repo.write('notes.txt', 'untracked, not ignored\n');
  repo.write('debug.log', 'ignored\n');
  return { repo, id };
};

const PROBE = [
  'sh',
  '-c',
  'node src/util.js && cat src/config.js notes.txt && ls src && test ! -e debug.log && echo "no debug.log"',
];

test('the reproduction: a staged rewrite needing a helper the agent wrote directly passes, with the user edits', () => {
  const { repo, id } = scene();
  const index = readFileSync(repo.path('.git/index'));
  const head = readFileSync(repo.path('.git/HEAD'));
  const config = readFileSync(repo.path('.git/config'));
  const branch = readFileSync(repo.path('.git/refs/heads/main'));
  const r = fettle(repo, ['test', id, '--', ...PROBE]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    [
      'answer 42',
      "module.exports = 'edited, not committed';",
      'untracked, not ignored',
      'config.js',
      'helpers.js',
      'util.js',
      'no debug.log',
      '',
    ].join('\n'),
    'the helper, the uncommitted edit and the untracked file are there; the deleted and the ignored file are not',
  );
  assert.match(
    r.stderr,
    new RegExp(`^fettle: PASS: .* in the test tree of ${id}; your working tree was not touched\\.$`, 'm'),
  );
  assert.ok(readFileSync(repo.path('.git/index')).equals(index), "the user's index is byte-identical");
  assert.ok(readFileSync(repo.path('.git/HEAD')).equals(head));
  assert.ok(readFileSync(repo.path('.git/config')).equals(config));
  assert.ok(readFileSync(repo.path('.git/refs/heads/main')).equals(branch));
  assert.equal(
    repo.read('src/util.js').toString().includes('old util'),
    true,
    'the working tree still has the old file',
  );
  // What confirm then writes is what the test ran on: same files, same bytes.
  ok(fettle(repo, ['confirm', id]));
  const tree = testTreeDir(repo, SESSION);
  for (const path of ['src/util.js', 'src/helpers.js', 'src/config.js', 'notes.txt', '.gitignore'])
    assert.ok(readFileSync(join(tree, path)).equals(repo.read(path)), path);
  assert.equal(existsSync(join(tree, 'src/gone.js')), false);
});

test('a second run rewrites only what changed; what the last command left is cleaned, ignored output kept', () => {
  const { repo, id } = scene();
  const tree = testTreeDir(repo, SESSION);
  const first = ok(
    fettle(repo, [
      'test',
      id,
      '--',
      'sh',
      '-c',
      'mkdir build && echo out > build/a.o && echo x > stray.txt && echo mangled > src/config.js',
    ]),
  );
  assert.match(
    first.stderr,
    /^fettle: creating the test tree of agent session session-1 \(first use\): checking out your files$/m,
  );
  assert.match(first.stderr, /\(created now, first use\)/);
  const untouched = statSync(join(tree, 'src/helpers.js'));
  repo.write('src/config.js', "module.exports = 'edited again';\n");
  const second = ok(fettle(repo, ['test', id, '--', 'sh', '-c', 'cat src/config.js; ls; cat build/a.o']));
  assert.equal(second.stdout, "module.exports = 'edited again';\nbuild\nnotes.txt\nsrc\nout\n");
  assert.doesNotMatch(second.stderr, /first use/);
  assert.match(second.stderr, /^fettle: removed what the last command left in the test tree: stray\.txt\.$/m);
  assert.match(second.stderr, /\(1 path updated\)/);
  const again = statSync(join(tree, 'src/helpers.js'));
  assert.equal(again.ino, untouched.ino, 'an unchanged file is not rewritten: same inode');
  assert.equal(again.mtimeMs, untouched.mtimeMs, 'and same mtime');
  assert.match(ok(fettle(repo, ['test', id, '--', 'true'])).stderr, /\(up to date\)/);
});

test('--link node_modules makes an ignored dependency visible; a missing target is a clear error', () => {
  const repo = makeRepo({ 'index.js': `${lines(30, '// v1')}`, '.gitignore': 'node_modules\n' });
  // A path, not a bare name: Node would find a bare name by climbing from the test tree (inside .git) to the
  // repository's own node_modules; a path is what tools such as npm's `node_modules/.bin` rely on.
  const id = write(repo, 'index.js', `require('./node_modules/dep');\n${lines(30, '// v2')}`);
  assert.ok(id);
  const run = (args: string[]) => fettle(repo, ['test', id, ...args, '--', 'node', 'index.js']);
  const missing = run(['--link', 'node_modules']);
  assert.equal(missing.code, 2);
  assert.equal(
    missing.stderr,
    `fettle: --link node_modules: ${repo.path('node_modules')} does not exist, so there is nothing to link.\nCreate it in your working tree first (for node_modules: \`npm install\`), or leave out that --link.\n`,
  );
  repo.write('node_modules/dep/index.js', "console.log('dep loaded');\n");
  const without = run([]);
  assert.notEqual(without.code, 0, 'ignored files are not copied');
  assert.match(without.stderr, /Cannot find module '\.\/node_modules\/dep'/);
  const linked = run(['--link', 'node_modules/']);
  assert.equal(linked.code, 0, linked.stderr);
  assert.equal(linked.stdout, 'dep loaded\n');
  const link = join(testTreeDir(repo, SESSION), 'node_modules');
  assert.ok(lstatSync(link).isSymbolicLink(), 'a link to the directory, not a copy');
  // The default from the environment; a path it names that this tree lacks is skipped with a note.
  const byDefault = fettle(repo, ['test', id, '--', 'node', 'index.js'], {
    env: { FETTLE_TEST_LINK: 'node_modules:.venv' },
  });
  assert.equal(byDefault.code, 0, byDefault.stderr);
  assert.match(byDefault.stderr, /^fettle: FETTLE_TEST_LINK: not in your working tree, so not linked: \.venv\.$/m);
  assert.ok(lstatSync(link).isSymbolicLink(), 'kept by the clean of what the last command left');
  const bad = fettle(repo, ['test', id, '--', 'true'], { env: { FETTLE_TEST_LINK: '../outside' } });
  assert.equal(bad.code, 2);
  assert.match(
    bad.stderr,
    /^fettle: FETTLE_TEST_LINK must list paths inside the repository, separated by ':', got '\.\.\/outside': '\.\.\/outside' leaves the repository/,
  );
  const tracked = run(['--link', 'index.js']);
  assert.equal(tracked.code, 2);
  assert.match(tracked.stderr, /^fettle: Cannot link index\.js into the test tree: it is part of the tree under test/);
  ok(fettle(repo, ['test', id, '--', 'true']));
  assert.equal(existsSync(link), false, 'a link no longer asked for is removed (ignored, so git clean kept it)');
  assert.ok(existsSync(repo.path('node_modules/dep/index.js')), 'and only the link: your directory is untouched');
});

/** What a refused confirm said, but where it recorded the failure (protocol/record/failed.ts): a test attempts nothing. */
const reasonOf = (confirmed: { stderr: string }): string => {
  assert.match(confirmed.stderr, /^fettle recorded this failure as [0-9a-z]{8} /m);
  return confirmed.stderr.replace(/^fettle recorded this failure as .*\n/m, '');
};

test('a change confirm would refuse is refused by fettle test with the same reason; a clean merge is tested', () => {
  const repo = makeRepo({ 'a.txt': lines(40) });
  const id = write(repo, 'a.txt', lines(20) + lines(20, 'new', 21));
  assert.ok(id);
  repo.write('a.txt', lines(40).replace('line 30\n', 'user 30\n'));
  const tested = fettle(repo, ['test', id, '--', 'true']);
  const confirmed = fettle(repo, ['confirm', id]);
  assert.equal(tested.code, 5);
  assert.equal(tested.stderr, reasonOf(confirmed), 'word for word what confirm says');
  assert.match(tested.stderr, /those edits overlap the staged ones/);
  repo.write('a.txt', lines(40).replace('line 2\n', 'user 2\n'));
  const merged = ok(fettle(repo, ['test', id, '--', 'cat', 'a.txt']));
  assert.match(
    merged.stderr,
    new RegExp(
      `^fettle: a\\.txt changed after ${id} was staged; the test tree holds the clean three-way merge confirm would write\\.$`,
      'm',
    ),
  );
  ok(fettle(repo, ['confirm', id]));
  assert.equal(merged.stdout, repo.read('a.txt').toString(), 'the bytes confirm wrote');
  const again = write(repo, 'a.txt', lines(40, 'again'));
  assert.ok(again);
  unlinkSync(repo.path('a.txt'));
  const gone = fettle(repo, ['test', again, '--', 'true']);
  assert.equal(gone.code, 5);
  assert.equal(gone.stderr, reasonOf(fettle(repo, ['confirm', again])));
  assert.match(gone.stderr, /a\.txt was deleted after change \w{8} was staged\./);
});

test('a change staged in a linked worktree is tested on that worktree, whichever one fettle test runs in', () => {
  const repo = makeRepo({ 'a.txt': lines(30), 'b.txt': 'main\n' });
  const wt = join(repo.home, 'wt2');
  repo.git('worktree', 'add', '-q', '-b', 'other', wt);
  const other = repoAt(wt, repo.home);
  other.write('b.txt', 'edited in wt2, not committed\n');
  other.commit('wt2 commit');
  other.write('b.txt', 'edited in wt2 again\n');
  const id = stageWrite(repo, 'a.txt', lines(30, 'new'), { cwd: wt });
  const r = ok(fettle(repo, ['test', id, '--', 'sh', '-c', 'head -1 a.txt; cat b.txt; git rev-parse HEAD']));
  assert.equal(r.stdout, `new 1\nedited in wt2 again\n${other.git('rev-parse', 'HEAD')}\n`);
  assert.equal(repo.read('b.txt').toString(), 'main\n');
});
