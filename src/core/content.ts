// What kind of content a file holds, decided from its bytes alone.

/** Larger files are not diffed: they are recorded and written directly (the decision rule). */
export const MAX_DIFF_BYTES = 5 * 1024 * 1024;

export type ContentKind = 'text' | 'binary' | 'oversize';

import { isUtf8 } from 'node:buffer';

export const classifyContent = (bytes: Buffer): ContentKind => {
  if (bytes.length > MAX_DIFF_BYTES) return 'oversize';
  // git's heuristic: a NUL in the first 8000 bytes means binary.
  if (bytes.subarray(0, 8000).includes(0)) return 'binary';
  return isUtf8(bytes) ? 'text' : 'binary';
};

/** Lines as a unified diff counts them: a final line without a newline still counts. */
export const countLines = (text: string): number => {
  if (text.length === 0) return 0;
  let lines = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return text.endsWith('\n') ? lines : lines + 1;
};

/** countLines of the bytes, without decoding them (a 5 MB file is not turned into a string to be counted). */
export const countLinesIn = (bytes: Buffer): number => {
  if (bytes.length === 0) return 0;
  let lines = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) lines++;
  return bytes[bytes.length - 1] === 0x0a ? lines : lines + 1;
};

/** Equal bytes, where null (no file) equals only null. */
export const sameBytes = (a: Buffer | null | undefined, b: Buffer | null | undefined): boolean =>
  a == null || b == null ? (a ?? null) === (b ?? null) : a.equals(b);
