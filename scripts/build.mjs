// Bundles the CLI with esbuild, as CommonJS: `cli.js`, a small entry; `hook.js`, only what the hook path needs;
// `agents.js`, the hook with the other agents' adapters (`fettle hook --agent <name>`); `serve.js`, the resident
// hook server (the same hook path behind HTTP); `mcp.js`, `fettle mcp` with the MCP SDK; `glance.js`, `fettle
// status` and `fettle log` without commander; `commands.js`, commander and every other command. The entry loads one
// of them, so a hook call never parses commander, the server or the SDK, a Claude Code hook call never parses the
// other agents' code, no command parses the SDK, and a glance parses no other command. Start-up is what every agent
// write pays (docs/PERFORMANCE.md, case 0).
import { build } from 'esbuild';
import {
  appendFileSync,
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { lazyBuiltins } from './lazy-builtins.mjs';
import { licenceNotices } from './licenses.mjs';

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
  // The notices go in one file instead (scripts/licenses.mjs), from the metafile.
  legalComments: 'none',
  metafile: true,
  // jsonc-parser's main build is UMD, whose run-time requires of its own files a bundle cannot follow.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
};

/** Each bundle's metafile, for dist/LICENSES.txt. */
const bundles = [];

// cli.ts reads its siblings hook.js and commands.js at run time (through V8's code cache, src/code-cache.ts).
const main = await build({
  ...common,
  entryPoints: {
    hook: 'src/hook/process.ts',
    agents: 'src/hook/agents/process.ts',
    serve: 'src/hook/serve.ts',
    mcp: 'src/mcp/server.ts',
    commands: 'src/commands/index.ts',
  },
  outdir: 'dist-next',
});
bundles.push([null, main.metafile]);
// The entry and the glance load Node's modules on first use (scripts/lazy-builtins.mjs): a plain `status` calls
// few of them.
const glance = await build({
  ...common,
  entryPoints: { cli: 'src/cli.ts', glance: 'src/commands/glance.ts' },
  outdir: 'dist-next',
  plugins: [lazyBuiltins],
});
bundles.push([null, glance.metafile]);

// The review page's server (`fettle review --web`, and `fettle serve`'s page): hono and the `open` package, in a
// bundle no other command loads. `open` finds the xdg-open it ships beside itself through import.meta.url, which
// a CommonJS bundle does not have: it is defined as the bundle's own URL, and that script is copied beside it.
const web = await build({
  ...common,
  entryPoints: { web: 'src/web/server.ts' },
  outdir: 'dist-next',
  define: { 'import.meta.url': '__fettleBundleUrl' },
  banner: { js: "const __fettleBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
});
bundles.push([null, web.metafile]);
copyFileSync('node_modules/open/xdg-open', new URL('xdg-open', next));
chmodSync(new URL('xdg-open', next), 0o755);

// The page itself, for the browser: its script, its highlighting worker and its style, served only by the web
// bundle from dist/page/ (web/app.ts), under a policy that allows no inline script or style.
if (existsSync('src/web/page/main.ts')) {
  mkdirSync(new URL('page/', next), { recursive: true });
  const page = await build({
    bundle: true,
    platform: 'browser',
    target: 'chrome120',
    format: 'esm',
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
    entryPoints: { page: 'src/web/page/main.ts', highlight: 'src/web/page/highlight-worker.ts' },
    outdir: 'dist-next/page',
    loader: { '.css': 'css' },
  });
  bundles.push([null, page.metafile]);
  for (const file of readdirSync('src/web/page').filter((f) => /\.(html|css|svg)$/.test(f)))
    copyFileSync(join('src/web/page', file), new URL(`page/${file}`, next));
  // The syntax colours as classes, made from the same themes the worker tokenizes with, appended to page.css:
  // one stylesheet, and no style attribute anywhere.
  const theme = await build({
    entryPoints: ['src/web/page/theme-css.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'warning',
  });
  bundles.push(['page/page.css', theme.metafile]);
  const { themeCss } = await import(
    `data:text/javascript;base64,${Buffer.from(theme.outputFiles[0].text).toString('base64')}`
  );
  appendFileSync(new URL('page/page.css', next), `\n${themeCss()}`);
}

writeFileSync(new URL('LICENSES.txt', next), licenceNotices(bundles));

// The bin entry needs a shebang and the executable bit.
const cliPath = new URL('cli.js', next);
const body = readFileSync(cliPath, 'utf8');
writeFileSync(cliPath, body.startsWith('#!') ? body : `#!/usr/bin/env node\n${body}`);
chmodSync(cliPath, 0o755);
rmSync(dist, { recursive: true, force: true });
renameSync(next, dist);
