// JSON as parsed from settings files and hook payloads, and the one test for a plain object among its values.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** A plain object: not null, not an array. */
export function isObj(value: Json | undefined): value is JsonObject;
export function isObj(value: unknown): value is Record<string, unknown>;
export function isObj(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
