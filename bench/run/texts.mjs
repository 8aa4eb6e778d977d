// The contents the cases write: small direct edits, rewrites past the staging ceiling, and the big file.
import { SIZES } from './options.mjs';

const DIRECT_LINES = 60;
const STAGED_LINES = 200;
export const directText = (k) =>
  Array.from({ length: DIRECT_LINES }, (_, i) => (i === 30 ? `edited by write ${k}` : `direct line ${i}`)).join('\n') +
  '\n';
export const stagedBase = () => Array.from({ length: STAGED_LINES }, (_, i) => `staged line ${i}`).join('\n') + '\n';
/** Rewrites every line: far past the ceiling (80 changed lines), so always staged. */
export const stagedText = (k) =>
  Array.from({ length: STAGED_LINES }, (_, i) => `rewrite ${k} of line ${i}`).join('\n') + '\n';

/** A text file of about SIZES.bigFile bytes in 50-byte lines; `mode` picks which lines write `k` changes. */
export function bigText(k, mode) {
  const lines = Math.floor(SIZES.bigFile / 50);
  const out = new Array(lines);
  for (let i = 0; i < lines; i++) {
    let line;
    if (mode === 'all') line = `rewrite ${k} puts new text on line ${i}`;
    else if (mode === 'sparse' && i % 100 === 50) line = `changed by write ${k}, line ${i}`;
    else line = `original text of the big file, line ${i}`;
    out[i] = line.padEnd(49, '.').slice(0, 49);
  }
  return `${out.join('\n')}\n`;
}

export function fmtBytes(n) {
  return n >= 1_000_000 ? `${n / 1_000_000} MB` : `${n / 1_000} kB`;
}
