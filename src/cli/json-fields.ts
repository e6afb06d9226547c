/**
 * Reading the files' and the cluster's objects, which may hold whatever JSON: a field of a JSON object, or
 * undefined where a step is not one (as `o?.a?.b` reads plain JSON).
 */
import { asWritten, isRecord } from '../policy/json';

/** The value at `keys` inside `v`, or undefined where a step is not a JSON object. */
export function fieldAt(v: unknown, ...keys: readonly string[]): unknown {
  let at = v;
  for (const k of keys) at = isRecord(at) ? at[k] : undefined;
  return at;
}

/**
 * The value at `keys` for a message: a string as written, another value as JSON (never "[object Object]"), and
 * undefined where there is none (null or absent).
 */
export function shownAt(v: unknown, ...keys: readonly string[]): string | undefined {
  const at = fieldAt(v, ...keys);
  return at === undefined || at === null ? undefined : asWritten(at);
}
