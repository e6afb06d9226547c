/*
 * Readers of user-written JSON. The mutating webhook sees objects before the API server checks them
 * against the CRD schema, and a rule may be called on anything: a field of the wrong type reads as
 * absent here, and the objectShape rule reports it.
 */

/**
 * A JSON object (not an array, not null): the one guard for it, in the policy, the CLI and the controller.
 * A caller that also takes a list says so: `Array.isArray(v) || isRecord(v)`.
 */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * `v` when it is a list, else an empty one. A field the CRD declares as a list keeps its item type (the
 * items are still user JSON: readers check what they use); another value gives unknown items.
 */
export function listOf<T>(v: readonly T[] | undefined): readonly T[];
export function listOf(v: unknown): readonly unknown[];
export function listOf(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : [];
}

/**
 * Array.isArray for a value read from JSON, narrowing to a readonly list: a field the CRD declares as a list keeps
 * its item type (Array.isArray's any[] would turn the items into any).
 */
export function isList(v: unknown): v is readonly unknown[] {
  return Array.isArray(v);
}

/** Number.isInteger, as a type guard: a whole number. */
export function isInteger(v: unknown): v is number {
  return Number.isInteger(v);
}

/** `v` when it is a string. */
export function stringOf(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** An own property of a JSON object, never one inherited from Object.prototype ("constructor", "__proto__"). */
export function ownField(o: unknown, key: string): unknown {
  return isRecord(o) && Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined;
}

/** A user value in full, for a message or a key: a string as written, anything else as JSON (never "[object Object]"). */
export function asWritten(v: unknown): string {
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return Array.isArray(v) ? '[…]' : '{…}'; // nested too deep to print
  }
}

/** A user value rendered safely for a message: asWritten, shortened. */
export function shown(v: unknown): string {
  const s = asWritten(v);
  return s.length > 80 ? `${s.slice(0, 60)}…${s.slice(-12)}` : s;
}
