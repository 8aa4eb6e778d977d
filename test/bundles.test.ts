// The bundles scripts/build.mjs makes, each with only the libraries its part needs: the hook path (every agent
// write) parses no command-line parser, settings editor or MCP SDK, and no command but `fettle mcp` parses the SDK.
// esbuild, not minifying, names each module it bundles in a `// node_modules/<package>/...` comment.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const DIST = join(__dirname, '..', 'dist');

const packagesIn = (bundle: string): string[] => {
  const text = readFileSync(join(DIST, bundle), 'utf8');
  const names = [...text.matchAll(/^\/\/ node_modules\/((?:@[^/\n]+\/)?[^/\n]+)\//gm)].map((m) => m[1] as string);
  return [...new Set(names)].sort();
};

test('each bundle holds the libraries of its own part only: the MCP SDK in dist/mcp.js alone', () => {
  assert.deepEqual(packagesIn('cli.js'), []);
  assert.deepEqual(packagesIn('hook.js'), ['diff', 'nanoid']);
  assert.deepEqual(packagesIn('agents.js'), ['diff', 'nanoid']);
  assert.deepEqual(packagesIn('commands.js'), ['commander', 'diff', 'jsonc-parser', 'nanoid', 'smol-toml']);
  // `status`, `log` and `git-hook` parse no command-line parser and no other command (commands/glance.ts).
  assert.deepEqual(packagesIn('glance.js'), ['diff', 'nanoid']);
  const commands = [...modulesIn('glance.js')].filter((m) => m.startsWith('src/commands/'));
  assert.deepEqual(commands.sort(), [
    'src/commands/change-view.ts',
    'src/commands/edge.ts',
    'src/commands/git-hook.ts',
    'src/commands/glance.ts',
    'src/commands/log.ts',
    'src/commands/pager.ts',
    'src/commands/process-io.ts',
    'src/commands/status.ts',
  ]);
  const mcp = packagesIn('mcp.js');
  assert.ok(mcp.includes('@modelcontextprotocol/sdk'), mcp.join(' '));
  assert.ok(!mcp.includes('commander') && !mcp.includes('jsonc-parser'), mcp.join(' '));
  // The other agents' adapters, opencode's included, are in dist/agents.js only (`fettle hook --agent <name>`).
  const hook = readFileSync(join(DIST, 'hook.js'), 'utf8');
  assert.ok(!hook.includes('// src/hook/agents/opencode.ts'), 'the opencode adapter is not in the Claude Code hook');
  assert.ok(readFileSync(join(DIST, 'agents.js'), 'utf8').includes('// src/hook/agents/opencode.ts'));
});

/** The source modules a bundle holds, by esbuild's `// src/...` comments. */
const modulesIn = (bundle: string): Set<string> =>
  new Set([...readFileSync(join(DIST, bundle), 'utf8').matchAll(/^\/\/ (src\/\S+\.ts)$/gm)].map((m) => m[1] as string));

test('storage maintenance is in the bundles that run it only: a hook process starts `fettle gc --auto` instead', () => {
  const maintenance = ['src/protocol/upkeep/maintain.ts', 'src/store/pack-refs.ts', 'src/core/packed-refs.ts'];
  // The resident server runs it after its answers, `fettle gc` runs it; a hook process and `fettle mcp` start it.
  for (const bundle of ['serve.js', 'commands.js'])
    for (const m of maintenance) assert.ok(modulesIn(bundle).has(m), `${bundle} holds ${m}`);
  for (const bundle of ['hook.js', 'agents.js', 'mcp.js']) {
    const modules = modulesIn(bundle);
    assert.ok(modules.has('src/protocol/retention/maintain-due.ts'), `${bundle} still tells when maintenance is due`);
    // MCP lists changes as `status` does, reading packed-refs (store/ref-files.ts); it packs nothing
    const packs = bundle === 'mcp.js' ? maintenance.filter((m) => m !== 'src/core/packed-refs.ts') : maintenance;
    for (const m of packs) assert.ok(!modules.has(m), `${bundle} holds ${m}`);
  }
});

test("the review page's code and libraries are in its own bundles only: no other part parses them", () => {
  const page = ['diff2html', 'shiki', '@shikijs/core', 'hono', '@hono/node-server'];
  for (const bundle of ['cli.js', 'hook.js', 'agents.js', 'commands.js', 'glance.js', 'mcp.js', 'serve.js']) {
    const held = packagesIn(bundle).filter((p) => page.includes(p));
    assert.deepEqual(held, [], `${bundle} holds ${held.join(' ')}`);
    const web = [...modulesIn(bundle)].filter((m) => m.startsWith('src/web/'));
    assert.deepEqual(web, [], `${bundle} holds ${web.join(' ')}`);
  }
  // The server's bundle serves the page; it does not hold the page's code or its libraries.
  const server = packagesIn('web.js');
  assert.ok(server.includes('hono'), server.join(' '));
  assert.ok(!server.includes('diff2html') && !server.some((p) => p.includes('shiki')), server.join(' '));
  assert.ok(![...modulesIn('web.js')].some((m) => m.startsWith('src/web/page/')));
});

test("the entry requires at its start only what the thin hook uses; the code cache's modules load with a bundle", () => {
  const text = readFileSync(join(DIST, 'cli.js'), 'utf8');
  const atStart = [...text.matchAll(/^var \w+ = require\("(node:\w+)"\);$/gm)].map((m) => m[1]);
  // node:net too is required on its first call (scripts/lazy-builtins.mjs): a `status` never makes one.
  assert.deepEqual([...new Set(atStart)].sort(), ['node:fs', 'node:os', 'node:path']);
});
