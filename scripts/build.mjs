// Bundles the CLI with esbuild. Two CommonJS bundles: `cli.js` holds only what the hook path needs;
// `commands.js` (commander and every non-hook command) is required on demand, so a hook call never
// parses it. Start-up is what every agent write pays (docs/PERFORMANCE.md, case 0).
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
  sourcemap: false,
  logLevel: 'warning',
  legalComments: 'none',
};

await build({
  ...common,
  entryPoints: { cli: 'src/cli.ts', commands: 'src/commands/index.ts' },
  outdir: 'dist-next',
  // cli.ts loads the commands bundle through a runtime require of its sibling file.
  external: ['./commands.js'],
});

// The bin entry needs a shebang and the executable bit.
const cliPath = new URL('cli.js', next);
const body = readFileSync(cliPath, 'utf8');
writeFileSync(cliPath, body.startsWith('#!') ? body : `#!/usr/bin/env node\n${body}`);
chmodSync(cliPath, 0o755);
rmSync(dist, { recursive: true, force: true });
renameSync(next, dist);
