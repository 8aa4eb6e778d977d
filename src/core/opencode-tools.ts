// What opencode's file tools leave on disk, from the bytes there now, as opencode 1.18's own code does it (its
// `write`, `edit` and `apply_patch` tools, read in the released client):
// - a file is read as UTF-8 text, a leading BOM taken off and remembered; text is written back as UTF-8, with a BOM
//   when the file had one or the new text starts with one;
// - `write` puts the content as given (its own line endings);
// - `edit` turns old and new strings into the file's line-ending style (CRLF when the file holds any CRLF), then
//   replaces an exact match: every one with replaceAll (JavaScript's replaceAll, `$` patterns included), else the
//   only one. Where there is no exact match, or several without replaceAll, opencode tries its fuzzy matchers
//   (trimmed lines, indentation, whitespace...), whose choice fettle does not reproduce: that is "unsure".
// Unsure means fettle records the previous bytes and lets the tool run, as for Claude Code's tools (predict.ts).
import { isUtf8 } from 'node:buffer';

export type Predicted = { exact: true; next: Buffer } | { exact: false; why: string };

const BOM = '\uFEFF';

const withoutBom = (text: string): { bom: boolean; text: string } =>
  text.startsWith(BOM) ? { bom: true, text: text.slice(1) } : { bom: false, text };

const encode = (text: string, bom: boolean): Buffer => Buffer.from(`${bom ? BOM : ''}${withoutBom(text).text}`, 'utf8');

const hasBom = (bytes: Buffer): boolean =>
  bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;

/** `write`: the content, UTF-8, with a BOM when the file or the content had one. */
export const opencodeWrite = (content: string, old: Buffer | null): Buffer => {
  const given = withoutBom(content);
  return encode(given.text, given.bom || (old !== null && hasBom(old)));
};

export interface OpencodeEdit {
  oldString: string;
  newString: string;
  replaceAll: boolean;
}

/** `edit`, where the result is certain (see the file comment). */
export const opencodeEdit = (op: OpencodeEdit, old: Buffer | null): Predicted => {
  if (op.oldString === op.newString)
    return { exact: false, why: 'oldString and newString are the same; the tool refuses' };
  if (old === null) {
    // An empty oldString creates a file that does not exist yet.
    if (op.oldString !== '') return { exact: false, why: 'the file does not exist; the tool refuses' };
    const given = withoutBom(op.newString);
    return { exact: true, next: encode(given.text, given.bom) };
  }
  if (op.oldString === '') return { exact: false, why: 'an empty oldString on an existing file; the tool refuses' };
  // Invalid UTF-8 would be read with replacement characters and written back changed beyond the edit.
  if (!isUtf8(old)) return { exact: false, why: 'the file is not UTF-8 text' };
  const file = withoutBom(old.toString('utf8'));
  const ending = file.text.includes('\r\n') ? '\r\n' : '\n';
  const style = (s: string) => {
    const lf = s.replaceAll('\r\n', '\n');
    return ending === '\n' ? lf : lf.replaceAll('\n', '\r\n');
  };
  const from = style(op.oldString);
  const to = style(op.newString);
  const at = file.text.indexOf(from);
  if (at === -1)
    return { exact: false, why: 'oldString is not in the file as given; opencode then matches it loosely' };
  let text: string;
  if (op.replaceAll) text = file.text.replaceAll(from, to);
  else if (file.text.lastIndexOf(from) !== at)
    return { exact: false, why: 'oldString occurs more than once; opencode then matches it loosely' };
  else text = file.text.slice(0, at) + to + file.text.slice(at + from.length);
  const result = withoutBom(text);
  return { exact: true, next: encode(result.text, file.bom || result.bom) };
};

/**
 * The files an `apply_patch` patch names (added, updated, deleted, and where one is moved to), in order, once
 * each; fettle records them without predicting the patch.
 */
export const patchedFiles = (patch: string): string[] => {
  const files: string[] = [];
  for (const line of patch.split(/\r?\n/)) {
    const match = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/.exec(line);
    const path = match?.[1]?.trim();
    if (path && !files.includes(path)) files.push(path);
  }
  return files;
};
