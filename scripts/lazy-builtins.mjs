// An esbuild plugin for the bundles a person's glance runs (cli.js, glance.js): Node's own modules that a plain
// `fettle status` or `log` never calls are required on first call instead of when the bundle loads. Loading
// `child_process`, `crypto`, `zlib`, `tty`, `fs/promises` and `net` costs a third of a bare Node start
// (docs/PERFORMANCE.md, case 7), and a bundle requires them all at its top, through the modules that import them.
// Each becomes an ES module of functions that call the real one's, required on the first call of any; esbuild
// drops those nothing imports. Functions and objects only: importing a class or a number fails the build, not a run.
import { createRequire } from 'node:module';

const LAZY = ['child_process', 'crypto', 'zlib', 'tty', 'fs/promises', 'net'];
const own = createRequire(import.meta.url);

/**
 * The module's body, from what the building Node exports (Node >= 20, like every user's): a function per function,
 * and for an object (`crypto.webcrypto`) a stand-in whose reads go to the real one, methods bound to it.
 */
const lazyModule = (name) => {
  const real = own(name);
  const keys = Object.keys(real).filter((key) => /^[a-z]\w*$/.test(key));
  const line = (key) =>
    typeof real[key] === 'function'
      ? `export const ${key} = (...args) => load().${key}(...args);`
      : `export const ${key} = /* @__PURE__ */ new Proxy({}, { get: (_, k) => { const o = load().${key}; const v = o[k]; return typeof v === 'function' ? v.bind(o) : v; } });`;
  // `require(<name>)` without `node:` is not resolved by this plugin again: esbuild leaves it to Node.
  return [
    'let real;',
    `const load = () => (real ??= require(${JSON.stringify(name)}));`,
    ...keys
      .filter((key) => typeof real[key] === 'function' || (typeof real[key] === 'object' && real[key] !== null))
      .map(line),
  ].join('\n');
};

export const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(build) {
    const filter = new RegExp(`^node:(${LAZY.map((m) => m.replace('/', '\\/')).join('|')})$`);
    build.onResolve({ filter }, (args) => ({ path: args.path.slice('node:'.length), namespace: 'lazy-builtin' }));
    build.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
      contents: lazyModule(args.path),
      loader: 'js',
    }));
  },
};
