// Claude Code settings edited as text, so that only what fettle adds or removes changes: the user's layout
// (compact or indented, tabs, CRLF), comments and key order stay byte for byte, and an uninstall after an install
// gives back the very bytes that were there. jsonc-parser (docs/DEPENDENCIES.md) reads the file with comments
// and gives every value's offset; fettle's groups are inserted and removed as text at those offsets.
import { applyEdits, createScanner, type Edit, type Node, type ParseError, parseTree } from 'jsonc-parser';
import { isDeepStrictEqual } from 'node:util';
import { fettleHandlers, isFettleHandler, SettingsShapeError } from '../core/settings';
import type { JsonObject, Json } from '../core/json';

// Comments, as editors of JSONC write them, are read and kept; a trailing comma is refused, as a JSON reader would.
const PARSE = { allowTrailingComma: false, disallowComments: false, allowEmptyContent: false };

/** The settings object, comments allowed; a syntax error or a top level that is not an object throws. */
export const parseSettingsText = (text: string): { root: Node; value: JsonObject } => {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, PARSE);
  const [first] = errors;
  if (first || !root) {
    const line = text.slice(0, first?.offset ?? 0).split('\n').length;
    throw new SyntaxError(`it is not valid JSON (a syntax error on line ${line})`);
  }
  if (root.type !== 'object') throw new SettingsShapeError('the top level is not a JSON object');
  return { root, value: nodeValue(root) as JsonObject };
};

export const nodeValue = (node: Node): Json => {
  if (node.type === 'object')
    return Object.fromEntries(
      (node.children ?? []).map((p) => [p.children?.[0]?.value as string, nodeValue(p.children?.[1] as Node)]),
    );
  if (node.type === 'array') return (node.children ?? []).map(nodeValue);
  return node.value as Json;
};

export interface Layout {
  /** one level of indentation ('  ', '\t', …) */
  unit: string;
  eol: string;
}

/** The file's indentation (its first indented line is one level deep) and line ending; 2 spaces and LF if none. */
export const layoutOf = (text: string): Layout => {
  const first = /\n([ \t]+)\S/.exec(text)?.[1];
  return { unit: first?.startsWith('\t') ? '\t' : first || '  ', eol: text.includes('\r\n') ? '\r\n' : '\n' };
};

/** The whitespace that starts the line `offset` is on. */
const indentAt = (text: string, offset: number): string =>
  /^[ \t]*/.exec(text.slice(text.lastIndexOf('\n', offset - 1) + 1))?.[0] ?? '';

const end = (n: Node): number => n.offset + n.length;
const multiline = (text: string, n: Node): boolean => /\n/.test(text.slice(n.offset, end(n)));

/** The offset of the one comma token in `text` between `from` and `to` (comments skipped). */
const commaBetween = (text: string, from: number, to: number): number => {
  const scanner = createScanner(text.slice(from, to), false);
  // jsonc-parser's SyntaxKind is a const enum, which isolated modules cannot read: CommaToken 5, EOF 17.
  for (let kind: number = scanner.scan(); kind !== 17; kind = scanner.scan())
    if (kind === 5) return from + scanner.getTokenOffset();
  return -1;
};

/**
 * The edits that take one element of an array (or one property of an object) out: with the comma and whitespace
 * that an insertion (below) puts in, so the two are exact inverses; where a comment sits between it and its
 * neighbour, only the element and its comma go, and the comment stays.
 */
export const removal = (text: string, node: Node): Edit[] => {
  const parent = node.parent as Node;
  const siblings = parent.children ?? [];
  const i = siblings.indexOf(node);
  const prev = siblings[i - 1];
  const next = siblings[i + 1];
  const plain = (from: number, to: number) => /^\s*,\s*$/.test(text.slice(from, to));
  const cut = (offset: number, to: number): Edit => ({ offset, length: to - offset, content: '' });
  if (prev) {
    if (plain(end(prev), node.offset)) return [cut(end(prev), end(node))];
    const comma = commaBetween(text, end(prev), node.offset);
    return [cut(comma, comma + 1), cut(node.offset, end(node))];
  }
  if (next) {
    if (plain(end(node), next.offset)) return [cut(node.offset, next.offset)];
    const comma = commaBetween(text, end(node), next.offset);
    return [cut(node.offset, end(node)), cut(comma, comma + 1)];
  }
  // The only one: the brackets close on it again (`[]`, `{}`) unless a comment is inside.
  const inside = text.slice(parent.offset + 1, end(parent) - 1);
  const rest = inside.slice(0, node.offset - parent.offset - 1) + inside.slice(end(node) - parent.offset - 1);
  return /^\s*$/.test(rest) ? [cut(parent.offset + 1, end(parent) - 1)] : [cut(node.offset, end(node))];
};

/** `value` inserted as element `at` of `array`, laid out like its neighbours. */
export const insertion = (text: string, array: Node, at: number, value: Json, layout: Layout): Edit => {
  const items = array.children ?? [];
  if (!multiline(text, array)) {
    const json = JSON.stringify(value);
    const prev = items[at - 1];
    if (prev) return { offset: end(prev), length: 0, content: `,${json}` };
    const first = items[0];
    return first
      ? { offset: first.offset, length: 0, content: `${json},` }
      : { offset: array.offset + 1, length: 0, content: json };
  }
  const neighbour = items[at - 1] ?? items[0];
  const indent = neighbour ? indentAt(text, neighbour.offset) : indentAt(text, array.offset) + layout.unit;
  const json = JSON.stringify(value, null, layout.unit)
    .split('\n')
    .join(layout.eol + indent);
  const prev = items[at - 1];
  if (prev) return { offset: end(prev), length: 0, content: `,${layout.eol}${indent}${json}` };
  const first = items[0];
  if (first) return { offset: first.offset, length: 0, content: `${json},${layout.eol}${indent}` };
  return { offset: array.offset + 1, length: 0, content: `${layout.eol}${indent}${json}${layout.eol}` };
};

/**
 * `key: value` added as the last property of `object`, laid out like its neighbours. Not jsonc-parser's `modify`,
 * whose formatting also re-lays the line before the insertion (a compact `"PreToolUse": [{...}]` came out
 * spread over lines).
 */
export const propertyInsertion = (text: string, object: Node, key: string, value: Json, layout: Layout): Edit => {
  const props = object.children ?? [];
  const last = props[props.length - 1];
  const open = object.offset + 1;
  if (!multiline(text, object) && last) {
    return { offset: end(last), length: 0, content: `, ${JSON.stringify(key)}: ${JSON.stringify(value)}` };
  }
  const indent = last ? indentAt(text, last.offset) : indentAt(text, object.offset) + layout.unit;
  const json = JSON.stringify(value, null, layout.unit)
    .split('\n')
    .join(layout.eol + indent);
  const member = `${JSON.stringify(key)}: ${json}`;
  if (last) return { offset: end(last), length: 0, content: `,${layout.eol}${indent}${member}` };
  // An empty object: `{}` opens onto lines of its own.
  const close = indentAt(text, object.offset);
  return {
    offset: open,
    length: end(object) - 1 - open,
    content: `${layout.eol}${indent}${member}${layout.eol}${close}`,
  };
};

export const find = (root: Node, path: (string | number)[]): Node | undefined => {
  let node: Node | undefined = root;
  for (const key of path) {
    if (!node) return undefined;
    if (node.type === 'object') node = node.children?.find((p) => p.children?.[0]?.value === key)?.children?.[1];
    else if (node.type === 'array' && typeof key === 'number') node = node.children?.[key];
    else return undefined;
  }
  return node;
};

/** The first fettle group or handler left in the file, as the edits that take it out; null when none is. */
const nextRemoval = (text: string): Edit[] | null => {
  const { root } = parseSettingsText(text);
  const hooks = find(root, ['hooks']);
  if (hooks?.type !== 'object') return null;
  for (const property of hooks.children ?? []) {
    const groups = property.children?.[1];
    if (groups?.type !== 'array') continue;
    for (const group of groups.children ?? []) {
      const handlers = find(group, ['hooks']);
      if (handlers?.type !== 'array') continue;
      const ours = (handlers.children ?? []).filter((h) => isFettleHandler(nodeValue(h)));
      if (ours.length === 0) continue;
      if (ours.length < (handlers.children ?? []).length) return removal(text, ours[0] as Node);
      // The whole group is fettle's; an event (or `hooks`) that it leaves empty goes with it.
      if ((groups.children ?? []).length > 1) return removal(text, group);
      if ((hooks.children ?? []).length > 1) return removal(text, property);
      return removal(text, hooks.parent as Node);
    }
  }
  return null;
};

/** The text without any fettle handler; every other byte as it was. */
export const withoutFettle = (text: string): string => {
  let out = text;
  for (let edits = nextRemoval(out); edits; edits = nextRemoval(out)) out = applyEdits(out, edits);
  return out;
};

/**
 * The text with fettle's groups of `target` (settings as core/settings.ts computes them) in place: every group
 * of fettle's is taken out first (unless the file already holds `target`: then it is returned as it is), then each is put where `target` has it, as new properties (laid out by
 * jsonc-parser like the file) or as array elements laid out like their neighbours.
 */
export const withFettle = (text: string, target: JsonObject): string => {
  if (isDeepStrictEqual(parseSettingsText(text).value, target)) return text;
  const layout = layoutOf(text);
  let out = withoutFettle(text);
  const hooks = (target.hooks ?? {}) as Record<string, Json[]>;
  for (const [event, groups] of Object.entries(hooks)) {
    groups.forEach((group, at) => {
      const ours = (group as JsonObject).hooks;
      if (!Array.isArray(ours) || !ours.some(isFettleHandler)) return;
      const { root } = parseSettingsText(out);
      const array = find(root, ['hooks', event]);
      if (array?.type === 'array') out = applyEdits(out, [insertion(out, array, at, group, layout)]);
      else {
        const hooksObject = find(root, ['hooks']);
        const [object, key, value] =
          hooksObject?.type === 'object' ? [hooksObject, event, [group]] : [root, 'hooks', { [event]: [group] }];
        out = applyEdits(out, [propertyInsertion(out, object, key, value, layout)]);
      }
    });
  }
  return out;
};

/** What `fettle doctor` reads: fettle's handlers in a settings text, comments allowed. */
export const handlersIn = (text: string) => fettleHandlers(parseSettingsText(text).value);
