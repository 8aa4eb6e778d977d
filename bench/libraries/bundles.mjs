// Which packages each of fettle's bundles holds.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { log } from './log.mjs';
import { PROJECT } from './options.mjs';

export const bundleCheck = async () => {
  let esbuild;
  try {
    esbuild = createRequire(join(PROJECT, 'package.json'))('esbuild');
  } catch {
    log('esbuild is not installed in the project (run npm ci); skipping the bundle check');
    return null;
  }
  const common = {
    absWorkingDir: PROJECT,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    write: false,
    metafile: true,
    logLevel: 'silent',
  };
  const packages = (meta) =>
    [
      ...new Set(
        Object.keys(meta.inputs)
          .filter((f) => f.includes('node_modules/'))
          .map((f) => {
            const parts = f.split('node_modules/').pop().split('/');
            return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
          }),
      ),
    ].sort();
  const describe = (r) => ({ packages: packages(r.metafile), bytes: r.outputFiles[0].contents.length });
  return {
    hook: describe(await esbuild.build({ ...common, entryPoints: ['src/hook/process.ts'] })),
    commands: describe(await esbuild.build({ ...common, entryPoints: ['src/commands/index.ts'] })),
  };
};
