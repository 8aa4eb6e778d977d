// The opt-in Read hook, end to end: text files over Claude Code's 256 KB Read limit (or FETTLE_READ_THRESHOLD)
// are served from disk as a page of numbered lines in a deny reason, ending with a `fettle read` command for the
// next page; everything else passes through. Also: install registers exactly the matchers in use.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, SELF } from '../helpers/cli';
import { baseEnv, lines, tempDir, type Repo } from '../helpers/repo';
import { assertSilent, denied, editInput, fettleRefs, hook, readInput, scenario, toolCall } from '../helpers/tools';

const LIMIT = 256 * 1024;
const BIG = lines(30_000); // about 320 KB
const num = (k: number, line: string): string => `${String(k).padStart(6)}\t${line}`;
const read = (repo: Repo, file: string, offset?: number, limit?: number) =>
  hook(repo, 'Read', readInput(repo.path(file), offset, limit));

/** The served page: its range, its numbered lines, and the continuation command (if any). */
const served = (reason: string) => {
  const [head = '', ...rest] = reason.split('\n');
  const range = /: lines (\d+)-(\d+) of (\d+) of (.+)\.$/.exec(head);
  assert.ok(range, head);
  const tail = rest.pop() ?? '';
  return {
    first: Number(range[1]),
    last: Number(range[2]),
    total: Number(range[3]),
    path: range[4],
    body: rest,
    tail,
    next: /Read on with: (.+)$/.exec(tail)?.[1],
  };
};

scenario(
  'a text file over 256 KB: denied with numbered lines and a next-page command that runs as printed',
  { 'big.log': BIG },
  (repo) => {
    const reason = denied(read(repo, 'big.log'));
    assert.ok(reason.length < 10_000, `${reason.length} characters: under the cap on hook output`);
    const page = served(reason);
    assert.deepEqual([page.first, page.total, page.path], [1, 30_000, repo.path('big.log')]);
    assert.deepEqual(
      page.body,
      Array.from({ length: page.last }, (_, i) => num(i + 1, `line ${i + 1}`)),
    );
    assert.match(page.tail, new RegExp(`^Lines ${page.last + 1}-30000 were not shown\\.`));
    assert.match(page.next ?? '', new RegExp(` read .*big\\.log'? --offset ${page.last + 1} --limit 2000$`));
    const out = execFileSync('sh', ['-c', page.next!], { cwd: repo.home, env: repo.env }).toString('utf8').split('\n');
    assert.equal(out[0], num(page.last + 1, `line ${page.last + 1}`));
    assert.equal(out.filter(Boolean).length, 2000);
  },
);

scenario(
  'the next-page command runs as printed for a path with spaces and quotes',
  { "logs/it's a big.log": BIG },
  (repo) => {
    const page = served(denied(read(repo, "logs/it's a big.log", 100, 10)));
    const out = execFileSync('sh', ['-c', page.next!], { cwd: '/', env: repo.env }).toString('utf8');
    assert.equal(out.split('\n')[0], num(110, 'line 110'));
  },
);

scenario(
  'one byte over 256 KB is served',
  { 'edge.txt': Buffer.concat([Buffer.alloc(LIMIT, 0x61), Buffer.from('\n')]) },
  (repo) => {
    const page = served(denied(read(repo, 'edge.txt')));
    assert.deepEqual([page.first, page.last, page.total, page.tail], [1, 1, 1, 'That is the end of the file.']);
  },
);

// [label, offset, limit, first line, last line, ends the file]
const pages: [string, number, number | undefined, number, number, boolean][] = [
  ['offset and limit', 20_000, 5, 20_000, 20_004, false],
  ['the last lines', 29_998, 10, 29_998, 30_000, true],
  ['offset without limit', 29_990, undefined, 29_990, 30_000, true],
];
for (const [label, offset, limit, first, last, end] of pages) {
  scenario(`a large read with ${label}: exactly the requested lines`, { 'big.log': BIG }, (repo) => {
    const page = served(denied(read(repo, 'big.log', offset, limit)));
    assert.deepEqual([page.first, page.last], [first, last]);
    assert.deepEqual(
      page.body,
      Array.from({ length: last - first + 1 }, (_, i) => num(first + i, `line ${first + i}`)),
    );
    if (end) assert.equal(page.tail, 'That is the end of the file.');
    else assert.match(page.next ?? '', new RegExp(`--offset ${last + 1} --limit 2000$`));
  });
}

scenario('an .svg over 256 KB is text: served like any text file', { 'icon.svg': `<svg>\n${BIG}</svg>\n` }, (repo) => {
  const page = served(denied(read(repo, 'icon.svg', 1, 2)));
  assert.deepEqual([page.body, page.total], [[num(1, '<svg>'), num(2, 'line 1')], 30_002]);
});

scenario(
  "a path the policy ignores is left to the tool however large; the policy's other paths are served",
  { 'gen/big.log': BIG, 'big.log': BIG },
  (repo) => {
    repo.write('.fettle/policy.json', JSON.stringify({ version: 1, rules: [{ path: 'gen/**', action: 'ignore' }] }));
    assertSilent(read(repo, 'gen/big.log'));
    assert.equal(served(denied(read(repo, 'big.log'))).first, 1);
  },
);

scenario('an invalid policy leaves a large read to the tool, and says why', { 'big.log': BIG }, (repo) => {
  repo.write('.fettle/policy.json', '{ not json');
  const r = read(repo, 'big.log');
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^fettle: \.fettle\/policy\.json is not a valid fettle policy: .* This Read was not served by fettle\.\n$/,
  );
});

const blob = (size: number, byte = 0x41): Buffer => Buffer.alloc(size, byte);
// [label, file name, content]: Claude Code's own Read handles these.
const passThrough: [string, string, string | Buffer][] = [
  ['a small text file', 'small.txt', lines(100)],
  ['text of exactly 256 KB', 'edge.txt', Buffer.concat([blob(LIMIT - 1, 0x61), Buffer.from('\n')])],
  ['a .png over 256 KB', 'image.png', Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), blob(LIMIT * 2)])],
  ['a .PNG in capitals', 'IMAGE.PNG', Buffer.from(BIG)],
  ['a .jpg', 'photo.jpg', Buffer.from(BIG)],
  ['a .pdf over 256 KB', 'doc.pdf', Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from(BIG)])],
  ['an .ipynb over 256 KB', 'nb.ipynb', JSON.stringify({ cells: [{ cell_type: 'code', source: BIG.split('\n') }] })],
  ['a binary file over 256 KB', 'data.bin', Buffer.concat([Buffer.from(BIG.slice(0, 100)), blob(LIMIT, 0)])],
  ['non-UTF-8 text over 256 KB', 'latin1.txt', Buffer.from(`${BIG}caf\xe9\n`, 'latin1')],
];
for (const [label, file, content] of passThrough) {
  scenario(`Read of ${label}: passes through`, { [file]: content }, (repo) => {
    assertSilent(read(repo, file));
    assertSilent(read(repo, file, 10, 5), 'with offset and limit');
  });
}

// [FETTLE_READ_THRESHOLD, file size in bytes, served]: a file is served when it is larger than the threshold.
const thresholds: [string, number, boolean][] = [
  ['1000', 1001, true],
  ['1000', 1000, false],
  [' 4096 ', 5000, true],
  ['1048576', 400 * 1024, false],
  ['', LIMIT + 1, true],
];
for (const [value, size, serves] of thresholds) {
  scenario(
    `FETTLE_READ_THRESHOLD=${JSON.stringify(value)}: a ${size}-byte text file is ${serves ? 'served' : 'left to the tool'}`,
    { 'f.txt': Buffer.concat([blob(size - 1, 0x61), Buffer.from('\n')]) },
    (repo) => {
      const r = hook(repo, 'Read', readInput(repo.path('f.txt')), { env: { FETTLE_READ_THRESHOLD: value } });
      if (!serves) return assertSilent(r);
      const over = value.trim() ? `FETTLE_READ_THRESHOLD (${value.trim()} bytes)` : "the Read tool's limit";
      const head = `fettle served this read from disk (the file is ${Math.round(size / 1024)} KB, over ${over}): lines 1-1 of 1 of ${repo.path('f.txt')}.`;
      assert.equal(denied(r).split('\n')[0], head);
    },
  );
}

// [FETTLE_READ_THRESHOLD]: not a whole number of bytes, at least 1.
for (const value of ['abc', '0', '-5', '1.5', '256K', '1e6']) {
  scenario(
    `FETTLE_READ_THRESHOLD=${value}: every Read is left to the tool, with a warning naming the variable`,
    { 'small.txt': 'a\n' },
    (repo) => {
      const r = hook(repo, 'Read', readInput(repo.path('small.txt')), { env: { FETTLE_READ_THRESHOLD: value } });
      assert.deepEqual(
        [r.code, r.stdout, r.stderr],
        [
          1,
          '',
          `fettle: FETTLE_READ_THRESHOLD must be a whole number of at least 1, got '${value}'. Fix or unset FETTLE_READ_THRESHOLD (default 262144), then run \`${SELF} info\` to check. This Read was not served by fettle.\n`,
        ],
      );
    },
  );
}

scenario('Read of what is not a readable file passes through: missing, a directory', { 'dir/a.txt': 'a\n' }, (repo) => {
  assertSilent(read(repo, 'missing.log'));
  assertSilent(read(repo, 'dir'));
});

scenario('Read: its PostToolUse answers nothing (it only keeps what the tool showed)', { 'big.log': BIG }, (repo) => {
  assertSilent(hook(repo, 'Read', readInput(repo.path('big.log')), { event: 'PostToolUse' }));
});

scenario('a staged file is read as it is on disk, never as staged', { 'big.log': BIG }, (repo) => {
  const edit = editInput(repo.path('big.log'), lines(50).slice(0, -1), lines(50, 'STAGED').slice(0, -1));
  denied(hook(repo, 'Edit', edit));
  assert.equal(fettleRefs(repo).length, 1, 'the edit was staged');
  const page = served(denied(read(repo, 'big.log', 1, 60)));
  assert.deepEqual(page.body.slice(0, 2), [num(1, 'line 1'), num(2, 'line 2')]);
  assert.doesNotMatch(page.body.join('\n'), /STAGED/);
});

scenario('a file fettle recorded is read as it landed', { 'big.log': BIG }, (repo) => {
  const landed = BIG.replace('line 3\n', 'landed 3\n');
  const run = toolCall(repo, 'Edit', editInput(repo.path('big.log'), 'line 3\n', 'landed 3\n'), () =>
    writeFileSync(repo.path('big.log'), landed),
  );
  assert.ok(run.ran && fettleRefs(repo).length === 1, 'the edit was recorded');
  assert.deepEqual(served(denied(read(repo, 'big.log', 3, 1))).body, [num(3, 'landed 3')]);
});

scenario(
  'a large file that is one long line: the page still fits the hook output cap',
  { 'min.js': `${'x'.repeat(LIMIT + 10)}\n` },
  (repo) => {
    const reason = denied(read(repo, 'min.js'));
    assert.ok(reason.length < 10_000, `${reason.length} characters`);
  },
);

// --- install: exactly the matchers in use ---------------------------------------------------------------

type Settings = { hooks: Record<string, { matcher: string; hooks: { command: string }[] }[]> };
const install = (...args: string[]): Settings => {
  const home = tempDir();
  mkdirSync(join(home, 'work'));
  const r = runCli(['install', ...args], { cwd: join(home, 'work'), env: baseEnv(home) });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')) as Settings;
};
const matchers = (s: Settings): Record<string, (string | undefined)[]> =>
  Object.fromEntries(Object.entries(s.hooks).map(([event, groups]) => [event, groups.map((g) => g.matcher)]));

test('install registers the write tools and Bash on PreToolUse, PostToolUse and PostToolUseFailure, and no Read group', () => {
  assert.deepEqual(matchers(install()), {
    PreToolUse: ['Write|Edit|MultiEdit|NotebookEdit', 'Bash'],
    PostToolUse: ['Write|Edit|MultiEdit|NotebookEdit', 'Bash'],
    PostToolUseFailure: ['Write|Edit|MultiEdit|NotebookEdit', 'Bash'],
    Stop: [undefined],
    SessionEnd: [undefined],
    UserPromptSubmit: [undefined],
  });
});

test('install --read adds a PreToolUse and a PostToolUse group on Read, a PreCompact hook and a SessionStart one after /clear or a compaction, running the same hook command', () => {
  const s = install('--read');
  assert.deepEqual(matchers(s), {
    PreToolUse: ['Write|Edit|MultiEdit|NotebookEdit', 'Bash', 'Read'],
    PostToolUse: ['Write|Edit|MultiEdit|NotebookEdit', 'Bash', 'Read'],
    PostToolUseFailure: ['Write|Edit|MultiEdit|NotebookEdit', 'Bash'],
    Stop: [undefined],
    SessionEnd: [undefined],
    UserPromptSubmit: [undefined],
    PreCompact: [undefined],
    SessionStart: ['clear|compact'],
  });
  const commands = new Set(
    Object.values(s.hooks)
      .flat()
      .flatMap((g) => g.hooks.map((h) => h.command)),
  );
  assert.equal(commands.size, 1);
  assert.match([...commands][0]!, / hook$/);
});
