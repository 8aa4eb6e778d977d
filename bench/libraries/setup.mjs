// Setting up a run: the temp dir's npm install of the measured packages, and where each package resolves.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DEPS, HOME, run, TMP } from './env.mjs';
import { log } from './log.mjs';
import { PACKAGES, PROJECT } from './options.mjs';

export const prepareTempDir = () => {
  mkdirSync(DEPS, { recursive: true });
  mkdirSync(join(HOME, '.config'), { recursive: true });
  writeFileSync(join(DEPS, 'package.json'), '{"name":"fettle-libbench","private":true}\n');
};

export const installPackages = async () => {
  log(`installing ${PACKAGES.join(' ')} into the temp dir`);
  // npm keeps the user's own environment (registry, proxy settings); its cache and logs go to the temp dir
  const npm = await run(
    'npm',
    [
      'install',
      '--prefix',
      DEPS,
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--no-update-notifier',
      '--cache',
      join(TMP, 'npm-cache'),
      ...PACKAGES,
    ],
    { cwd: DEPS, env: process.env },
  );
  if (npm.code !== 0) throw new Error(`npm install failed: ${npm.stderr}`);
  const depReq = createRequire(join(DEPS, 'package.json'));
  const installed = Object.fromEntries(
    ['isomorphic-git', 'simple-git'].map((p) => [
      p,
      JSON.parse(readFileSync(join(DEPS, 'node_modules', p, 'package.json'), 'utf8')).version,
    ]),
  );
  return { depReq, installed };
};

/** The measured packages' entry points: the two from the temp install, fettle's own from the project. */
export const resolveImports = (depReq) => {
  const projReq = createRequire(join(PROJECT, 'package.json'));
  const imports = { 'isomorphic-git': depReq.resolve('isomorphic-git'), 'simple-git': depReq.resolve('simple-git') };
  for (const p of ['commander', 'diff', 'nanoid']) {
    try {
      imports[p] = projReq.resolve(p);
    } catch {
      log(`${p} is not installed in the project (run npm ci); skipping its import cost`);
    }
  }
  return imports;
};

export const projectVersionsOf = (imports) => {
  const projectVersions = {};
  for (const p of ['commander', 'diff', 'nanoid']) {
    if (imports[p]) {
      let dir = dirname(imports[p]);
      while (
        !existsSync(join(dir, 'package.json')) ||
        JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name !== p
      )
        dir = dirname(dir);
      projectVersions[p] = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
    }
  }
  return projectVersions;
};
