// How Claude Code reads a text file before changing it, and writes it back: the encoding, the byte-order mark and
// the line-ending style. Checked against the client's own code and a real client (docs/HOOK.md, "Byte for byte"):
// - UTF-16LE when the file starts FF FE, else UTF-8; a leading BOM stays in the text as U+FEFF;
// - not text, so not written at all: FE FF (UTF-16BE), a NUL in the first 8,000 bytes, invalid UTF-8;
// - CRLF style when CRLF pairs outnumber bare LFs in the first 4,096 characters, else LF;
// - Edit and NotebookEdit work on the text with every CRLF turned into LF, and write it back in the file's style:
//   with CRLF, every LF becomes CRLF; so the whole file takes its majority style. Write keeps the content's own.
import { isUtf8 } from 'node:buffer';

export type TextEncoding = 'utf8' | 'utf16le';

/** What the client learns from a file's first bytes, without decoding it. */
export type Sniffed = { text: true; encoding: TextEncoding } | { text: false; why: string };

export interface TextFile {
  encoding: TextEncoding;
  /** the decoded text with every CRLF as LF; a BOM stays as a leading U+FEFF */
  text: string;
  /** the style the client writes an edited file back in */
  crlf: boolean;
}

const BOM = '\uFEFF';

/** The client's encoding check: first bytes, then (for UTF-8) NULs early in the file and UTF-8 validity. */
export const sniffText = (bytes: Buffer): Sniffed => {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) {
    // Decoding drops a last odd byte, so the client would write back one byte less: not reproducible.
    return bytes.length % 2 === 0
      ? { text: true, encoding: 'utf16le' }
      : { text: false, why: 'the file starts as UTF-16LE but has an odd number of bytes' };
  }
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff)
    return { text: false, why: 'the file is UTF-16 big-endian, which the tool does not write' };
  if (bytes.subarray(0, 8000).includes(0)) return { text: false, why: 'the file has NUL bytes, so it is not text' };
  return isUtf8(bytes) ? { text: true, encoding: 'utf8' } : { text: false, why: 'the file is not UTF-8 text' };
};

/** CRLF when CRLF pairs outnumber bare LFs in the first 4,096 characters of the decoded text. */
export const isCrlfStyle = (decoded: string): boolean => {
  const head = decoded.slice(0, 4096);
  let crlf = 0;
  let lf = 0;
  for (let i = head.indexOf('\n'); i !== -1; i = head.indexOf('\n', i + 1)) {
    if (i > 0 && head.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
  }
  return crlf > lf;
};

/** The file as the client's Edit and NotebookEdit see it; null when it would refuse to change it. */
export const readTextFile = (bytes: Buffer): TextFile | { why: string } => {
  const sniffed = sniffText(bytes);
  if (!sniffed.text) return { why: sniffed.why };
  const decoded = bytes.toString(sniffed.encoding);
  return { encoding: sniffed.encoding, text: decoded.replaceAll('\r\n', '\n'), crlf: isCrlfStyle(decoded) };
};

/** The bytes the client writes for `text`: in CRLF style every line break is CRLF, then encoded. */
export const encodeText = (text: string, encoding: TextEncoding, crlf: boolean): Buffer =>
  Buffer.from(crlf ? text.replaceAll('\r\n', '\n').split('\n').join('\r\n') : text, encoding);

/** Write puts back a BOM the file had when the new content has none (an empty content stays empty). */
export const keepBom = (previous: string, next: string): string =>
  next !== '' && previous.startsWith(BOM) && !next.startsWith(BOM) ? BOM + next : next;

/**
 * The bytes the client's Write leaves: the content as sent (its own line endings), in the file's encoding, with
 * the file's BOM kept. `old` null: a new file, UTF-8. A file the client would not write over is null.
 */
export const writtenBytes = (content: string, old: Buffer | null): Buffer | { why: string } => {
  if (old === null) return Buffer.from(content, 'utf8');
  const sniffed = sniffText(old);
  if (!sniffed.text) return { why: `${sniffed.why}; the Write tool refuses to replace it` };
  const hadBom =
    sniffed.encoding === 'utf16le' || (old.length >= 3 && old[0] === 0xef && old[1] === 0xbb && old[2] === 0xbf);
  return Buffer.from(hadBom ? keepBom(BOM, content) : content, sniffed.encoding);
};
