// The Markdown form of a contract, for people: code reads as code in fenced blocks instead of JSON-escaped
// strings, and prose around the blocks is free (notes for the reviewer). It means exactly what the JSON form does:
// it is read into the same JSON value and checked by the same schema, so both forms of one contract have one hash.
//
//   ```fettle-contract            the header, JSON: version, scope, checks (and a title); exactly one
//   {"version": 1, "scope": ["src/**"], "checks": [["npm", "test"]]}
//   ```
//   ```replace src/config.ts      the anchor; the next block is what replaces it
//   ```with
//   ```insert-before <path>       (or insert-after) the anchor; the next block is the text inserted
//   ```text
//   ```create <path>              the new file's content
//   ```delete <path>              empty
//
// A block's content is its lines, each with its line break (CommonMark), so an anchor or a text block always ends
// with one: an anchor that must stop mid-line, or a file without a final line break, needs the JSON form. Fences
// are ``` or ~~~, three or more, closed by the same character at least as long, so a longer fence holds a
// shorter one. A path with spaces or quotes is written as a JSON string. Other fenced blocks are notes, but a word
// one or two letters from an edit's keyword is taken for a typo and refused, not silently skipped. The file's own
// line breaks (CRLF) do not matter: the text is read with LF.
import type { Contract } from './contract';
import { contractError, contractFrom } from './contract';
import { nearest } from './nearest';

interface Block {
  /** 1-based line of the opening fence */
  line: number;
  word: string;
  rest: string;
  content: string;
}

const KEYWORDS = ['fettle-contract', 'replace', 'insert-before', 'insert-after', 'create', 'delete', 'with', 'text'];
const OPEN = /^( {0,3})(`{3,}|~{3,})[ \t]*(.*)$/;

/** The fenced blocks of a Markdown text, in order; an unclosed one is an error (`at` names the line). */
const blocksOf = (text: string, fail: (line: number, what: string) => never): Block[] => {
  const lines = text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n/g, '\n')
    .split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = OPEN.exec(lines[i] as string);
    if (!open) continue;
    const [, indent = '', fence = '', info = ''] = open;
    if (fence[0] === '`' && info.includes('`')) continue; // not a fence (CommonMark)
    const close = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`);
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !close.test(lines[j] as string); j++) {
      const line = lines[j] as string;
      const strip = Math.min(indent.length, line.length - line.trimStart().length);
      body.push(line.slice(strip));
    }
    if (j >= lines.length) fail(i + 1, `the block opened here (${fence}${info ? ` ${info}` : ''}) is never closed`);
    const [word = ''] = info.trim().split(/\s+/);
    blocks.push({
      line: i + 1,
      word,
      rest: info.trim().slice(word.length).trim(),
      content: body.map((l) => `${l}\n`).join(''),
    });
    i = j;
  }
  return blocks;
};

/** A block's path: the rest of its info string, or a JSON string for a name with spaces or quotes. */
const pathOf = (b: Block, fail: (line: number, what: string) => never): string => {
  if (b.rest === '')
    fail(b.line, `a \`${b.word}\` block names the file after its keyword, e.g. \`${b.word} src/app.ts\``);
  if (!b.rest.startsWith('"')) return b.rest;
  try {
    const path = JSON.parse(b.rest) as unknown;
    if (typeof path === 'string') return path;
  } catch {
    // said below
  }
  return fail(b.line, `the path ${b.rest} is neither a plain path nor one JSON string`);
};

/** The `fettle-contract` block's JSON object: version, scope, checks (and a title), but no edits. */
const headerOf = (b: Block, fail: (line: number, what: string) => never): Record<string, unknown> => {
  let value: unknown;
  try {
    value = JSON.parse(b.content);
  } catch (error) {
    fail(
      b.line,
      `the \`fettle-contract\` block is not JSON (${(error as Error).message.replace(/, ".*" is not valid JSON$/s, '')})`,
    );
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    fail(b.line, 'the `fettle-contract` block must be a JSON object: version, scope, checks');
  if (Object.hasOwn(value as object, 'edits'))
    fail(
      b.line,
      'edits go in fenced blocks of their own (```replace <path>, ```create <path>, ...), not in the header',
    );
  return value as Record<string, unknown>;
};

/** The next block an edit needs, and the field its content fills. */
const SECOND: Record<string, { word: string; field: 'with' | 'text' }> = {
  replace: { word: 'with', field: 'with' },
  'insert-before': { word: 'text', field: 'text' },
  'insert-after': { word: 'text', field: 'text' },
};

export const parseContractMarkdown = (text: string, source: string): Contract => {
  const fail = (line: number, what: string): never => {
    throw contractError(source, `line ${line}: ${what}`);
  };
  const blocks = blocksOf(text, fail);
  let header: { line: number; value: Record<string, unknown> } | undefined;
  const edits: { line: number; edit: Record<string, unknown> }[] = [];
  for (let n = 0; n < blocks.length; n++) {
    const b = blocks[n] as Block;
    if (!KEYWORDS.includes(b.word)) {
      // `with` and `text` are left out: a typo of one leaves its edit without it, which is refused anyway, and
      // short note languages (`txt`, `ts`) are near them.
      const near = b.word.length >= 4 ? nearest(b.word, KEYWORDS.slice(0, 6)) : undefined;
      if (near) fail(b.line, `\`${b.word}\` is not a contract block; did you mean \`${near}\`?`);
      continue; // a note for the reader
    }
    if (b.word === 'fettle-contract') {
      if (header) fail(b.line, `a second \`fettle-contract\` block (the first is at line ${header.line})`);
      header = { line: b.line, value: headerOf(b, fail) };
      continue;
    }
    if (b.word === 'with' || b.word === 'text')
      fail(
        b.line,
        `a \`${b.word}\` block must follow the edit it belongs to (\`replace\` for \`with\`, \`insert-…\` for \`text\`)`,
      );
    const file = pathOf(b, fail);
    const second = SECOND[b.word];
    if (second) {
      const next = blocks[n + 1];
      if (next?.word !== second.word)
        fail(b.line, `a \`${b.word}\` block (the anchor) must be followed by a \`${second.word}\` block`);
      edits.push({
        line: b.line,
        edit: { op: b.word, file, anchor: b.content, [second.field]: (next as Block).content },
      });
      n++;
    } else if (b.word === 'create') edits.push({ line: b.line, edit: { op: 'create', file, text: b.content } });
    else {
      if (b.content.trim() !== '') fail(b.line, 'a `delete` block is empty: the file is removed whole');
      edits.push({ line: b.line, edit: { op: 'delete', file } });
    }
  }
  if (!header)
    throw contractError(
      source,
      'it has no ```fettle-contract block: the JSON header with "version", "scope" and (optionally) "checks"',
    );
  const found = header;
  const at = (path: (string | number)[]) =>
    path[0] === 'edits' && typeof path[1] === 'number'
      ? `line ${edits[path[1]]?.line ?? found.line}: `
      : `line ${found.line}: `;
  return contractFrom({ ...found.value, edits: edits.map((e) => e.edit) }, source, at);
};
