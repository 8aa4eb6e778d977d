// Child programs for jsdiff's cost and fettle's git fallback, on the same generated texts.
import { cpRunner, fail, out } from './helpers.mjs';

/** jsdiff as src/core/diff.ts calls it (structuredPatch, context 3, optional timeout), on generated texts. */
export function diffTexts(lines, mode) {
  const { createHash } = require('crypto');
  const line = (tag, i) => createHash('sha256').update(`${tag}:${i}`).digest('hex');
  const a = [];
  const b = [];
  for (let i = 0; i < lines; i++) {
    a.push(line('old', i));
    b.push(mode === 'rewrite' || i % 100 === 50 ? line('new', i) : line('old', i));
  }
  return [`${a.join('\n')}\n`, `${b.join('\n')}\n`];
}

export function jsdiffCase() {
  const [diffPath, lines, mode, timeout] = process.argv.slice(2);
  const { structuredPatch } = require(diffPath);
  const [a, b] = diffTexts(Number(lines), mode);
  const options = { context: 3 };
  if (timeout !== 'none') options.timeout = Number(timeout);
  const t = performance.now();
  const patch = structuredPatch('a', 'b', a, b, '', '', options);
  const ms = performance.now() - t;
  out({ ms: +ms.toFixed(1), result: patch ? `patch, ${patch.hunks.length} hunk(s)` : 'undefined (gave up)' });
}

/** The fallback of src/protocol/decide/plan.ts: both sides into the object store, then `git diff <blob> <blob>`. */
export function gitDiffCase() {
  const [repo, lines, mode] = process.argv.slice(2);
  const run = cpRunner(repo);
  const [a, b] = diffTexts(Number(lines), mode);
  (async () => {
    const t = performance.now();
    const oa = (await run(['hash-object', '-w', '--stdin'], a)).toString().trim();
    const ob = (await run(['hash-object', '-w', '--stdin'], b)).toString().trim();
    const patch = (await run(['diff', '--no-color', '--no-ext-diff', '--no-textconv', '-U3', oa, ob])).toString();
    return {
      ms: +(performance.now() - t).toFixed(1),
      result: `patch, ${patch.split('\n').filter((l) => l.startsWith('@@')).length} hunk(s)`,
    };
  })().then(out, fail);
}
