// Bundles the CLI with esbuild, as CommonJS: `cli.js`, a small entry; `hook.js`, only what the hook path needs;
// `agents.js`, the hook with the other agents' adapters (`fettle hook --agent <name>`); `serve.js`, the resident
// hook server (the same hook path behind HTTP); `mcp.js`, `fettle mcp` with the MCP SDK; `commands.js`, commander
// and every other command. The entry loads one of them, so a hook call never parses commander, the server or the
// SDK, a Claude Code hook call never parses the other agents' code, and no command parses the SDK. Start-up is
// what every agent write pays (docs/PERFORMANCE.md, case 0).
import { build } from 'esbuild';
import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

// Built next to dist/ and swapped in, so a test run using dist/ never sees it half-written.
const next = new URL('../dist-next/', import.meta.url);
const dist = new URL('../dist/', import.meta.url);
rmSync(next, { recursive: true, force: true });

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // Linked maps, read only by the coverage report (scripts/coverage.mjs): Node reads none without --enable-source-maps.
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
  legalComments: 'none',
  // jsonc-parser's main build is UMD, whose run-time requires of its own files a bundle cannot follow.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
};

// cli.ts reads its siblings hook.js and commands.js at run time (through V8's code cache, src/code-cache.ts).
await build({
  ...common,
  entryPoints: {
    cli: 'src/cli.ts',
    hook: 'src/hook/process.ts',
    agents: 'src/hook/agents/process.ts',
    serve: 'src/hook/serve.ts',
    mcp: 'src/mcp/server.ts',
    commands: 'src/commands/index.ts',
  },
  outdir: 'dist-next',
});

// The bin entry needs a shebang and the executable bit.
const cliPath = new URL('cli.js', next);
const body = readFileSync(cliPath, 'utf8');
writeFileSync(cliPath, body.startsWith('#!') ? body : `#!/usr/bin/env node\n${body}`);
chmodSync(cliPath, 0o755);
rmSync(dist, { recursive: true, force: true });
renameSync(next, dist);
