// The licence notices of every package a bundle holds. The bundles copy those packages' code into dist/, and
// their licences (MIT, ISC, BSD, Apache-2.0) ask that a copy carry the notice: dist/LICENSES.txt holds each
// package's name, version, licence and its licence file's text, as esbuild's metafiles name the packages. A
// package with no licence file fails the build rather than shipping without its notice.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The package directory of a bundled input, e.g. node_modules/@shikijs/core (null for the project's own files). */
export const packageDirOf = (input) => {
  const parts = input.split('/');
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return null;
  const scoped = parts[at + 1]?.startsWith('@');
  return parts.slice(0, at + (scoped ? 3 : 2)).join('/');
};

const LICENCE_FILE = /^(licen[cs]e|copying)(\.(md|txt|markdown))?$/i;

const licenceText = (dir) => {
  const file = readdirSync(dir).find((name) => LICENCE_FILE.test(name));
  if (file) return readFileSync(join(dir, file), 'utf8').trim();
  // A package nested in another's node_modules may ship none of its own while its repository's root has one.
  return null;
};

/**
 * dist/LICENSES.txt's text for the packages whose code the builds' outputs hold, each named with the files it is
 * in. `builds` pairs a metafile with the name to give an output written nowhere (a build run for its text).
 */
export const licenceNotices = (builds) => {
  const packages = new Map();
  for (const [unwritten, metafile] of builds)
    for (const [output, { inputs }] of Object.entries(metafile.outputs)) {
      if (output.endsWith('.map')) continue;
      const bundle = output.includes('dist-next/') ? output.slice(output.indexOf('dist-next/') + 10) : unwritten;
      for (const input of Object.keys(inputs)) {
        const dir = packageDirOf(input);
        if (!dir || !existsSync(join(dir, 'package.json'))) continue;
        const entry = packages.get(dir) ?? { bundles: new Set() };
        entry.bundles.add(bundle);
        packages.set(dir, entry);
      }
    }
  const missing = [];
  const sections = [...packages.entries()]
    .map(([dir, { bundles: used }]) => {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      const text = licenceText(dir);
      if (text === null) missing.push(`${pkg.name} (${dir})`);
      const licence = typeof pkg.license === 'string' ? pkg.license : (pkg.license?.type ?? 'unknown');
      const head = `${pkg.name} ${pkg.version} (${licence}), in ${[...used].sort().join(', ')}`;
      return { name: pkg.name, version: pkg.version, text: `${head}\n${'-'.repeat(head.length)}\n${text}\n` };
    })
    .sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
  if (missing.length) throw new Error(`no licence file for a bundled package: ${missing.join(', ')}`);
  const intro =
    'fettle bundles the code of these packages into its dist/ files. Their licences, as each package ships them:\n';
  return `${intro}\n${sections.map((s) => s.text).join('\n')}`;
};
