// A tool's arguments checked against its JSON Schema (the small subset tool-list.ts uses: objects, strings,
// booleans, integers, arrays). A wrong argument is the model's to correct, so it is said in words naming the
// argument and returned as a tool error (MCP's "input validation errors"), not as a protocol error.

export interface Schema {
  type: 'object' | 'string' | 'boolean' | 'integer' | 'array';
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: false;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  minimum?: number;
  maximum?: number;
}

const kindOf = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : typeof value === 'object'
        ? 'an object'
        : Number.isInteger(value)
          ? 'an integer'
          : `a ${typeof value}`;

const article = (type: Schema['type']): string =>
  type === 'integer' || type === 'array' || type === 'object' ? `an ${type}` : `a ${type}`;

/** The first thing wrong with `value` at `where`, or null. */
export const problem = (schema: Schema, value: unknown, where: string): string | null => {
  const wrongType =
    schema.type === 'integer'
      ? !Number.isSafeInteger(value)
      : schema.type === 'array'
        ? !Array.isArray(value)
        : schema.type === 'object'
          ? typeof value !== 'object' || value === null || Array.isArray(value)
          : typeof value !== schema.type;
  if (wrongType) return `${where} must be ${article(schema.type)}, not ${kindOf(value)}`;
  if (typeof value === 'string' && value.length < (schema.minLength ?? 0)) return `${where} must not be empty`;
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) return `${where} must be at least ${schema.minimum}`;
    if (schema.maximum !== undefined && value > schema.maximum) return `${where} must be at most ${schema.maximum}`;
  }
  if (Array.isArray(value)) {
    if (value.length < (schema.minItems ?? 0)) return `${where} must have at least ${schema.minItems} item(s)`;
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      return `${where} must have at most ${schema.maxItems} items`;
    for (const [n, item] of value.entries()) {
      const wrong = schema.items ? problem(schema.items, item, `${where}[${n}]`) : null;
      if (wrong) return wrong;
    }
  }
  if (schema.type === 'object') return objectProblem(schema, value as Record<string, unknown>, where);
  return null;
};

/** Where a property is, as the model named it: `path`, `files[0].content`. */
const child = (where: string, key: string): string => (where === TOP ? key : `${where}.${key}`);
const TOP = 'the arguments';

const objectProblem = (schema: Schema, value: Record<string, unknown>, where: string): string | null => {
  const properties = schema.properties ?? {};
  for (const key of Object.keys(value)) {
    if (schema.additionalProperties === false && !Object.hasOwn(properties, key))
      return `${where === TOP ? '' : `${where}: `}unknown argument "${key}"; the arguments are ${Object.keys(properties).join(', ')}`;
  }
  for (const key of schema.required ?? []) if (value[key] === undefined) return `${child(where, key)} is required`;
  for (const [key, sub] of Object.entries(properties)) {
    if (value[key] === undefined) continue;
    const wrong = problem(sub, value[key], child(where, key));
    if (wrong) return wrong;
  }
  return null;
};

/** The arguments of a call (absent means none), or what is wrong with them. */
export const checkArguments = (
  schema: Schema,
  args: unknown,
): { ok: true; args: Record<string, unknown> } | { ok: false; why: string } => {
  const given = args ?? {};
  const why = problem(schema, given, TOP);
  return why ? { ok: false, why } : { ok: true, args: given as Record<string, unknown> };
};
