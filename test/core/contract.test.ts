// Contracts, pure (src/core/contract.ts, contract-markdown.ts): both forms read into one contract with one hash;
// the hash covers what the contract does and nothing else; invalid contracts are told where and what.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { canonicalContract, contractHash, outOfScope, parseContractJson, type Contract } from '../../src/core/contract';
import { parseContractMarkdown } from '../../src/core/contract-markdown';
import type { FettleError } from '../../src/errors';

const FIXTURES = join(__dirname, '..', 'fixtures', 'contracts');
const read = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

test('the Markdown and JSON forms of one contract are the same contract, with one hash', () => {
  const json = parseContractJson(read('rename.json'), 'rename.json');
  const md = parseContractMarkdown(read('rename.md'), 'rename.md');
  // The one difference the JSON anchors have: the Markdown blocks end with their line break.
  const asMd: Contract = {
    ...json,
    edits: json.edits.map((e) => (e.op === 'replace' ? { ...e, anchor: `${e.anchor}\n`, with: `${e.with}\n` } : e)),
  };
  assert.deepEqual(md, asMd);
  assert.equal(contractHash(md), contractHash(asMd));
});

test('a Markdown file with CRLF line breaks reads as the same contract', () => {
  const text = read('rename.md');
  assert.deepEqual(parseContractMarkdown(text.replace(/\n/g, '\r\n'), 'x.md'), parseContractMarkdown(text, 'x.md'));
});

test('the hash covers the scope, the edits and the checks: not the spacing, key order or title', () => {
  const base = parseContractJson(read('rename.json'), 'c.json');
  const doc = JSON.parse(read('rename.json')) as Record<string, unknown> & { edits: Record<string, unknown>[] };
  const reordered = {
    checks: doc.checks,
    edits: doc.edits.map((e) => Object.fromEntries(Object.entries(e).reverse())),
    scope: doc.scope,
    version: 1,
    title: 'another title',
  };
  const same = parseContractJson(JSON.stringify(reordered, null, 8), 'c.json');
  assert.equal(contractHash(same), contractHash(base));
  assert.match(contractHash(base), /^sha256:[0-9a-f]{64}$/);
  const edited = structuredClone(doc);
  (edited.edits[0] as { with: string }).with = 'export const readConf = (';
  assert.notEqual(contractHash(parseContractJson(JSON.stringify(edited), 'c.json')), contractHash(base));
  assert.doesNotMatch(canonicalContract(base), /title/);
});

test('outOfScope names the edits no scope glob covers', () => {
  const c = parseContractJson(
    JSON.stringify({
      version: 1,
      scope: ['src/**'],
      edits: [
        { op: 'delete', file: 'src/a.ts' },
        { op: 'delete', file: 'package.json' },
      ],
    }),
    'c.json',
  );
  assert.deepEqual(outOfScope(c), [[1, 'package.json']]);
});

const ok = { version: 1, scope: ['**'], edits: [{ op: 'delete', file: 'a' }] };
const bad = (over: Record<string, unknown>) => JSON.stringify({ ...ok, ...over });

// [the JSON text, what follows "is not a valid fettle contract: "]
const invalidJson: [string, string][] = [
  ['{', "it is not JSON (Expected property name or '}' at line 1, column 2)"],
  [bad({ version: 2 }), '"version" must be 1 (the only version of the contract format)'],
  [bad({ scope: [] }), '"scope" must not be empty'],
  [bad({ edits: [] }), '"edits" must not be empty'],
  [
    bad({ scope: ['[x'] }),
    "scope 1 (\"[x\") is not a glob fettle reads: a '[' is never closed by ']' within its segment",
  ],
  [
    bad({ edits: [{ op: 'rename', file: 'a' }] }),
    'edit 1 (rename a): "op" must be one of "replace", "insert-before", "insert-after", "create", "delete", not "rename"',
  ],
  [bad({ edits: [{ file: 'a' }] }), 'edit 1 (a) needs "op"'],
  [bad({ edits: [{ op: 'replace', file: 'a', anchor: 'x' }] }), 'edit 1 (replace a) needs "with"'],
  [
    bad({ edits: [{ op: 'replace', file: 'a', anchor: '', with: 'y' }] }),
    'edit 1 (replace a): "anchor" must not be empty',
  ],
  [
    bad({ edits: [{ op: 'insert-after', file: 'a', anchor: 'x', text: '' }] }),
    'edit 1 (insert-after a): "text" must not be empty',
  ],
  [
    bad({ edits: [{ op: 'delete', file: 'a', anchor: 'x' }] }),
    'edit 1 (delete a) has "anchor", which is not one of "op", "file", "instructions"',
  ],
  [
    bad({ edits: [{ op: 'delete', file: '/etc/passwd' }] }),
    "edit 1 (delete /etc/passwd): \"file\" must be a path relative to the repository's top directory, with no empty, '.' or '..' part",
  ],
  [
    bad({ edits: [{ op: 'delete', file: 'src/../../x' }] }),
    "edit 1 (delete src/../../x): \"file\" must be a path relative to the repository's top directory, with no empty, '.' or '..' part",
  ],
  [
    bad({ edits: [{ op: 'delete', file: 'sub/.git/config' }] }),
    'edit 1 (delete sub/.git/config) is inside a .git directory, which fettle never writes',
  ],
  [bad({ checks: ['npm test'] }), 'check 1 must be a command as a list of its arguments, e.g. ["npm", "test"]'],
  [
    bad({ extra: true }),
    'the contract has "extra", which is not one of "$schema", "version", "title", "scope", "edits", "fallback", "checks"',
  ],
];

for (const [text, why] of invalidJson) {
  test(`an invalid contract is told what is wrong: ${why.slice(0, 60)}`, () =>
    assert.throws(
      () => parseContractJson(text, 'plan.json'),
      (e: FettleError) => {
        assert.equal(e.code, 'E_CONTRACT');
        assert.equal(e.message, `plan.json is not a valid fettle contract: ${why}.`);
        return true;
      },
    ));
}

const HEAD = '```fettle-contract\n{"version": 1, "scope": ["**"]}\n```\n';
// [the Markdown text, what follows "is not a valid fettle contract: "]
const invalidMd: [string, string][] = [
  [
    '```replace a\nx\n```\n```with\ny\n```\n',
    'it has no ```fettle-contract block: the JSON header with "version", "scope" and (optionally) "checks"',
  ],
  [`${HEAD}${HEAD}`, 'line 4: a second `fettle-contract` block (the first is at line 1)'],
  [`${HEAD}\`\`\`replace a\nx\n\`\`\`\n`, 'line 4: a `replace` block (the anchor) must be followed by a `with` block'],
  [
    `${HEAD}\`\`\`replace a\nx\n\`\`\`\n\`\`\`ts\nnote\n\`\`\`\n\`\`\`with\ny\n\`\`\`\n`,
    'line 4: a `replace` block (the anchor) must be followed by a `with` block',
  ],
  [`${HEAD}\`\`\`replce a\nx\n\`\`\`\n`, 'line 4: `replce` is not a contract block; did you mean `replace`?'],
  [
    `${HEAD}\`\`\`with\ny\n\`\`\`\n`,
    'line 4: a `with` block must follow the edit it belongs to (`replace` for `with`, `insert-…` for `text`)',
  ],
  [`${HEAD}\`\`\`delete a\nnot empty\n\`\`\`\n`, 'line 4: a `delete` block is empty: the file is removed whole'],
  [
    `${HEAD}\`\`\`create\nx\n\`\`\`\n`,
    'line 4: a `create` block names the file after its keyword, e.g. `create src/app.ts`',
  ],
  [`${HEAD}\`\`\`create a\nnever closed\n`, 'line 4: the block opened here (``` create a) is never closed'],
  [
    '```fettle-contract\n{"version": 1, "scope": ["**"], "edits": []}\n```\n',
    'line 1: edits go in fenced blocks of their own (```replace <path>, ```create <path>, ...), not in the header',
  ],
  ['```fettle-contract\n{"version": 1}\n```\n```delete a\n```\n', 'line 1: the contract needs "scope"'],
  [`${HEAD}\`\`\`replace a\n\`\`\`\n\`\`\`with\ny\n\`\`\`\n`, 'line 4: edit 1 (replace a): "anchor" must not be empty'],
];

for (const [text, why] of invalidMd) {
  test(`an invalid Markdown contract is told the line: ${why.slice(0, 60)}`, () =>
    assert.throws(
      () => parseContractMarkdown(text, 'plan.md'),
      (e: FettleError) => {
        assert.equal(e.code, 'E_CONTRACT');
        assert.equal(e.message, `plan.md is not a valid fettle contract: ${why}.`);
        return true;
      },
    ));
}

test('a Markdown path with spaces is a JSON string; other fenced blocks are notes', () => {
  const notes = '```sh\nnpm test\n```\n```txt\nplain\n```\n';
  const c = parseContractMarkdown(`${HEAD}${notes}\`\`\`delete "my file.txt"\n\`\`\`\n`, 'p.md');
  assert.deepEqual(c.edits, [{ op: 'delete', file: 'my file.txt' }]);
});
