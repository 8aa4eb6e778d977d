// The validator of fettle's published schemas (src/core/json-schema.ts): the schemas use only the keywords it
// enforces, and each keyword does what JSON Schema says, one case a line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import contract from '../../schema/contract.v1.json';
import policy from '../../schema/policy.v1.json';
import { unknownKeywords, validate, type Schema } from '../../src/core/json-schema';

test('the published schemas use no keyword the validator does not enforce', () => {
  assert.deepEqual(unknownKeywords(policy), []);
  assert.deepEqual(unknownKeywords(contract), []);
  assert.deepEqual(unknownKeywords({ type: 'object', format: 'email' }), ['#/format'], 'the check finds one');
});

const S = (s: Schema) => s;
// [schema, value, the error message or null when valid]
const cases: [Schema, unknown, string | null][] = [
  [S({ type: 'integer' }), 1, null],
  [S({ type: 'integer' }), 1.5, 'must be integer, not number'],
  [S({ type: 'number' }), 1, null],
  [S({ type: ['string', 'null'] }), null, null],
  [S({ const: 1 }), 2, 'must be 1'],
  [S({ enum: ['a', 'b'] }), 'c', 'must be one of "a", "b", not "c"'],
  [S({ minLength: 1 }), '', 'must not be empty'],
  [S({ maxLength: 2 }), 'abc', 'must be at most 2 characters'],
  [S({ pattern: '^a' }), 'ba', 'must match ^a'],
  [S({ minimum: 0, maximum: 1 }), 2, 'must be at most 1'],
  [S({ minItems: 2 }), [1], 'must have at least 2 items'],
  [S({ items: { type: 'string' } }), ['a', 2], 'must be string, not integer'],
  [S({ required: ['a'] }), {}, 'needs "a"'],
  [S({ properties: { a: {} }, additionalProperties: false }), { b: 1 }, 'has "b", which is not one of "a"'],
  [S({ allOf: [{ required: ['a'] }, { required: ['b'] }] }), { a: 1 }, 'needs "b"'],
  [S({ anyOf: [{ type: 'string' }, { type: 'integer' }] }), true, 'must be string, not boolean'],
  [S({ oneOf: [{ type: 'number' }, { type: 'integer' }] }), 1, 'matches more than one form'],
  [S({ not: { type: 'string' } }), 'x', 'must not match the form it has'],
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own keyword
  [S({ if: { required: ['a'] }, then: { required: ['b'] } }), { a: 1 }, 'needs "b"'],
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own keyword
  [S({ if: { required: ['a'] }, then: { required: ['b'] }, else: { required: ['c'] } }), {}, 'needs "c"'],
  [S({ type: 'string', errorMessage: 'must be a name' }), 1, 'must be a name'],
  [S({ $defs: { n: { type: 'integer' } }, items: { $ref: '#/$defs/n' } }), ['x'], 'must be integer, not string'],
  // oneOf told apart by a pinned property: the error of the branch the value's own "op" picks
  [
    S({
      oneOf: [
        { properties: { op: { const: 'a' }, x: { type: 'string' } } },
        { properties: { op: { const: 'b' } }, required: ['y'] },
      ],
    }),
    { op: 'b' },
    'needs "y"',
  ],
  [
    S({ oneOf: [{ properties: { op: { const: 'a' } } }, { properties: { op: { enum: ['b', 'c'] } } }] }),
    { op: 'd' },
    'must be one of "a", "b", "c", not "d"',
  ],
];

for (const [schema, value, expected] of cases) {
  test(`validate ${JSON.stringify(value)} against ${JSON.stringify(schema)}`, () =>
    assert.equal(validate(value, schema)?.message ?? null, expected));
}
