// A validator for the part of JSON Schema (draft 2020-12) that fettle's own published schemas use
// (schema/policy.v1.json, schema/contract.v1.json): the files are validated against those very schemas, so the
// schema a person reads in the repository is the one fettle enforces. A general validator (ajv) would add
// ~120 KB and a code generator to the hook's bundle for two small documents; this one interprets the keywords
// below and nothing else, and test/core/json-schema.test.ts fails if a schema uses any other.
//
// `errorMessage` (as ajv-errors spells it) replaces the generic text of a failing subschema with its own.

export type Schema = { [key: string]: unknown };

/** Keywords this validator enforces, or reads as annotations. */
export const SUPPORTED_KEYWORDS = new Set([
  '$schema',
  '$id',
  '$comment',
  '$defs',
  '$ref',
  'title',
  'description',
  'examples',
  'default',
  'errorMessage',
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'minProperties',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
]);

export interface SchemaError {
  /** where in the document: property names and array indexes */
  path: (string | number)[];
  message: string;
}

const typeOf = (v: unknown): string => {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
};

const isType = (v: unknown, t: string): boolean => {
  const actual = typeOf(v);
  return actual === t || (t === 'number' && actual === 'integer');
};

const show = (v: unknown): string => JSON.stringify(v);
const oneOfValues = (values: unknown[]): string =>
  values.length === 1 ? show(values[0]) : `one of ${values.map(show).join(', ')}`;

const isObject = (v: unknown): v is Record<string, unknown> => typeOf(v) === 'object';

/** The values a subschema's property is pinned to (`const`, `enum`): how oneOf branches are told apart. */
const pinned = (schema: Schema, root: Schema): Map<string, unknown[]> => {
  const out = new Map<string, unknown[]>();
  const props = resolve(schema, root).properties;
  if (!isObject(props)) return out;
  for (const [key, sub] of Object.entries(props)) {
    if (!isObject(sub)) continue;
    if ('const' in sub) out.set(key, [sub.const]);
    else if (Array.isArray(sub.enum)) out.set(key, sub.enum);
  }
  return out;
};

const resolve = (schema: Schema, root: Schema): Schema => {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const m = /^#\/\$defs\/([A-Za-z0-9_-]+)$/.exec(ref);
  const defs = root.$defs as Record<string, Schema> | undefined;
  const target = m && defs ? defs[m[1] as string] : undefined;
  if (!target) throw new Error(`schema: unresolvable $ref ${ref}`);
  return { ...target, ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$ref')) };
};

type Path = (string | number)[];

/** One check's state, which each keyword group reads: the resolved schema, where it is, how it fails. */
interface Checking {
  schema: Schema;
  root: Schema;
  path: Path;
  /** a failure of this schema (its errorMessage, if it has one, replaces the message) */
  fail: (message: string, at?: Path) => SchemaError;
  /** a subschema's check, whose error is its own (with its own errorMessage, if it has one) */
  sub: (v: unknown, s: unknown, at: Path) => SchemaError | null;
}

/** A string's length and pattern, a number's bounds. */
const checkScalar = (value: unknown, { schema, fail }: Checking): SchemaError | null => {
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof schema.minLength === 'number' && length < schema.minLength)
      return fail(schema.minLength === 1 ? 'must not be empty' : `must be at least ${schema.minLength} characters`);
    if (typeof schema.maxLength === 'number' && length > schema.maxLength)
      return fail(`must be at most ${schema.maxLength} characters`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value))
      return fail(`must match ${schema.pattern}`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) return fail(`must be at least ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) return fail(`must be at most ${schema.maximum}`);
  }
  return null;
};

/** An array's length, then each item in order. */
const checkItems = (value: unknown, { schema, path, fail, sub }: Checking): SchemaError | null => {
  if (!Array.isArray(value)) return null;
  if (typeof schema.minItems === 'number' && value.length < schema.minItems)
    return fail(schema.minItems === 1 ? 'must not be empty' : `must have at least ${schema.minItems} items`);
  if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
    return fail(`must have at most ${schema.maxItems} items`);
  if (isObject(schema.items))
    for (const [n, item] of value.entries()) {
      const error = sub(item, schema.items, [...path, n]);
      if (error) return error;
    }
  return null;
};

/** An object's required properties, its size, then each property in order: known, unknown, or checked as extra. */
const checkProperties = (value: unknown, { schema, path, fail, sub }: Checking): SchemaError | null => {
  if (!isObject(value)) return null;
  const props = isObject(schema.properties) ? schema.properties : {};
  for (const key of Array.isArray(schema.required) ? (schema.required as string[]) : [])
    if (!Object.hasOwn(value, key)) return fail(`needs "${key}"`);
  if (typeof schema.minProperties === 'number' && Object.keys(value).length < schema.minProperties)
    return fail('must not be empty');
  for (const [key, v] of Object.entries(value)) {
    if (Object.hasOwn(props, key)) {
      const error = sub(v, props[key], [...path, key]);
      if (error) return error;
    } else if (schema.additionalProperties === false) {
      const known = Object.keys(props);
      return fail(`has "${key}", which is not one of ${known.map((k) => `"${k}"`).join(', ')}`);
    } else if (isObject(schema.additionalProperties)) {
      const error = sub(v, schema.additionalProperties, [...path, key]);
      if (error) return error;
    }
  }
  return null;
};

/** allOf, if/then/else, not, anyOf and oneOf, in that order. */
const checkCombined = (value: unknown, { schema, root, path, fail, sub }: Checking): SchemaError | null => {
  for (const part of Array.isArray(schema.allOf) ? (schema.allOf as Schema[]) : []) {
    const error = sub(value, part, path);
    if (error) return error;
  }
  if (isObject(schema.if)) {
    const branch = check(value, schema.if as Schema, root, path) === null ? schema.then : schema.else;
    if (isObject(branch)) {
      const error = sub(value, branch, path);
      if (error) return error;
    }
  }
  if (isObject(schema.not) && check(value, schema.not as Schema, root, path) === null)
    return fail('must not match the form it has');
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const error = checkBranches(value, branches as Schema[], root, path, key === 'oneOf');
    if (error) return fail(error.message, error.path);
  }
  return null;
};

const check = (value: unknown, given: Schema, root: Schema, path: Path): SchemaError | null => {
  const schema = resolve(given, root);
  const fail = (message: string, at = path): SchemaError => ({
    path: at,
    message: typeof schema.errorMessage === 'string' ? schema.errorMessage : message,
  });
  const sub = (v: unknown, s: unknown, at: Path): SchemaError | null => check(v, s as Schema, root, at);
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((t) => isType(value, t))) return fail(`must be ${types.join(' or ')}, not ${typeOf(value)}`);
  }
  if ('const' in schema && show(value) !== show(schema.const)) return fail(`must be ${show(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => show(e) === show(value)))
    return fail(`must be ${oneOfValues(schema.enum)}, not ${show(value)}`);
  const k: Checking = { schema, root, path, fail, sub };
  return checkScalar(value, k) ?? checkItems(value, k) ?? checkProperties(value, k) ?? checkCombined(value, k);
};

/**
 * anyOf / oneOf. When the branches are told apart by a pinned property (`"op": {"const": "replace"}`), the error
 * is the one of the branch the value's own property picks, which is the one its writer meant; when none is
 * picked, the error names the values that property may have.
 */
const checkBranches = (
  value: unknown,
  branches: Schema[],
  root: Schema,
  path: (string | number)[],
  exactlyOne: boolean,
): SchemaError | null => {
  const errors = branches.map((b) => check(value, b, root, path));
  const passed = errors.filter((e) => e === null).length;
  if (passed > 0) return exactlyOne && passed > 1 ? { path, message: 'matches more than one form' } : null;
  if (isObject(value)) {
    const pins = branches.map((b) => pinned(b, root));
    const keys = [...new Set(pins.flatMap((p) => [...p.keys()]))].filter((k) => pins.every((p) => p.has(k)));
    for (const key of keys) {
      const chosen = pins.findIndex((p) => (p.get(key) ?? []).some((v) => show(v) === show(value[key])));
      if (chosen >= 0) return errors[chosen] ?? null;
      const allowed = pins.flatMap((p) => p.get(key) ?? []);
      if (!Object.hasOwn(value, key)) return { path, message: `needs "${key}" (${oneOfValues(allowed)})` };
      return { path: [...path, key], message: `must be ${oneOfValues(allowed)}, not ${show(value[key])}` };
    }
  }
  return errors[0] ?? { path, message: 'matches none of the forms it may take' };
};

/** The first error of `value` against `schema`, or null when it is valid. */
export const validate = (value: unknown, schema: Schema): SchemaError | null => check(value, schema, schema, []);

/** Every keyword `schema` uses that this validator does not know (a test keeps the published schemas inside it). */
export const unknownKeywords = (schema: unknown, at = '#'): string[] => {
  if (!isObject(schema)) return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (!SUPPORTED_KEYWORDS.has(key)) out.push(`${at}/${key}`);
    if (key === 'properties' || key === '$defs') {
      if (isObject(value))
        for (const [name, s] of Object.entries(value)) out.push(...unknownKeywords(s, `${at}/${key}/${name}`));
    } else if (Array.isArray(value) && ['allOf', 'anyOf', 'oneOf'].includes(key)) {
      for (const [n, s] of value.entries()) out.push(...unknownKeywords(s, `${at}/${key}/${n}`));
    } else if (['items', 'not', 'if', 'then', 'else', 'additionalProperties'].includes(key)) {
      out.push(...unknownKeywords(value, `${at}/${key}`));
    }
  }
  return out;
};
