// dist/LICENSES.txt: the notice of every package whose code the bundles copy, as its licence asks of a copy.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { licenceNotices, packageDirOf } from '../../scripts/licenses.mjs';

const DIST = join(__dirname, '..', '..', 'dist');
const NOTICES = readFileSync(join(DIST, 'LICENSES.txt'), 'utf8');

/** For each notice of a package (one per version), the files it is said to be in; each with its licence text. */
const noticesOf = (name: string): string[][] =>
  [...NOTICES.matchAll(/^(\S+) \S+ \([^)]+\), in (.+)\n-+\n(.+)/gm)]
    .filter((m) => m[1] === name && /\S/.test(m[3] ?? ''))
    .map((m) => (m[2] ?? '').split(', '));

for (const [input, dir] of [
  ['src/cli.ts', null],
  ['node_modules/diff/libesm/diff/base.js', 'node_modules/diff'],
  ['node_modules/@shikijs/core/dist/index.mjs', 'node_modules/@shikijs/core'],
  ['node_modules/diff2html/node_modules/diff/lib/index.mjs', 'node_modules/diff2html/node_modules/diff'],
] as const)
  test(`packageDirOf(${input}) is ${dir}`, () => assert.equal(packageDirOf(input), dir));

// The libraries fettle imports itself, each in the file that loads it; their own dependencies come with them.
for (const [name, file] of [
  ['commander', 'commands.js'],
  ['diff', 'hook.js'],
  ['nanoid', 'hook.js'],
  ['jsonc-parser', 'commands.js'],
  ['smol-toml', 'commands.js'],
  ['@modelcontextprotocol/sdk', 'mcp.js'],
  ['hono', 'web.js'],
  ['@hono/node-server', 'web.js'],
  ['open', 'web.js'],
  ['diff2html', 'page/page.js'],
  ['shiki', 'page/highlight.js'],
] as const)
  test(`dist/LICENSES.txt holds ${name}'s licence text, in ${file}`, () => {
    const files = noticesOf(name);
    assert.ok(files.length > 0, `no notice for ${name}`);
    assert.ok(
      files.some((f) => f.includes(file)),
      `${name} is said to be in ${files.join('; ')}`,
    );
  });

// Independently of the build's metafiles: the packages each unminified bundle's own path comments name.
for (const bundle of ['hook.js', 'agents.js', 'serve.js', 'mcp.js', 'commands.js', 'web.js'])
  test(`every package ${bundle} holds has its notice, naming ${bundle}`, () => {
    const text = readFileSync(join(DIST, bundle), 'utf8');
    const names = new Set(
      [...text.matchAll(/^\/\/ node_modules\/((?:@[^/\n]+\/)?[^/\n]+)\//gm)].map((m) => m[1] as string),
    );
    assert.ok(names.size > 0, 'the scan found no package: it is broken');
    for (const name of names)
      assert.ok(
        noticesOf(name).some((f) => f.includes(bundle)),
        `${name} in ${bundle}`,
      );
  });

test('a bundled package without a licence file fails the build, naming it', () => {
  const root = mkdtempSync(join(tmpdir(), 'fettle-licences-'));
  const dir = join(root, 'node_modules', 'bare');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bare', version: '1.0.0', license: 'MIT' }));
  const metafile = { outputs: { 'dist-next/hook.js': { inputs: { [join(dir, 'index.js')]: {} } } } };
  assert.throws(() => licenceNotices([[null, metafile]]), /no licence file for a bundled package: bare \(/);
  writeFileSync(join(dir, 'LICENSE'), 'Permission is hereby granted\n');
  assert.match(
    licenceNotices([[null, metafile]]),
    /^bare 1\.0\.0 \(MIT\), in hook\.js\n-+\nPermission is hereby granted\n/m,
  );
});
