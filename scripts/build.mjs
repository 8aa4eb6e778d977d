// Bundles the CLI with esbuild. Two CommonJS bundles: `cli.js` holds only what the hook path needs;
// `commands.js` (commander and every non-hook command) is required on demand, so a hook call never
// parses it. A bundle starts ~20 ms faster than unbundled modules (docs/PERFORMANCE.md).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

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
  outdir: 'dist',
  // cli.ts loads the commands bundle through a runtime require of its sibling file.
  external: ['./commands.js'],
  banner: { js: '' },
});

// The bin entry needs a shebang and the executable bit.
import { readFileSync, writeFileSync, chmodSync } from 'node:fs';
const cliPath = new URL('../dist/cli.js', import.meta.url);
const body = readFileSync(cliPath, 'utf8');
writeFileSync(cliPath, body.startsWith('#!') ? body : `#!/usr/bin/env node\n${body}`);
chmodSync(cliPath, 0o755);
