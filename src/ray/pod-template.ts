// Pod-template merging for the Ray constructs: a user's fragment over the generated template.
import { isRecord } from '../policy/json';

const MERGE_BY_NAME = new Set(['containers', 'initContainers', 'volumes', 'volumeMounts', 'env', 'ports', 'ephemeralContainers']);

/** A list item merged by name: a JSON object with a string `name`. */
function isNamed(x: unknown): x is Record<string, unknown> & { readonly name: string } {
  return isRecord(x) && typeof x.name === 'string';
}

/** `x.name` of a list item of the base, which may be anything. */
function nameOf(x: unknown): unknown {
  return isRecord(x) ? x.name : undefined;
}

/**
 * Deep-merges a user's pod-template fragment over the generated template. Objects merge key by key;
 * lists of named items (containers, volumes, env, ports, ...) merge by `name`, like a strategic merge
 * patch; other lists are replaced. Every field the user gives ends up in the output.
 */
export function mergeTemplate(base: unknown, overlay: unknown, key?: string): unknown {
  if (overlay === undefined) return base;
  if (Array.isArray(overlay)) {
    const items: readonly unknown[] = overlay;
    if (key && MERGE_BY_NAME.has(key) && Array.isArray(base) && items.every(isNamed)) {
      const baseItems: readonly unknown[] = base;
      const out = baseItems.map((b) => {
        const o = items.find((x) => x.name === nameOf(b));
        return o ? mergeTemplate(b, o) : b;
      });
      for (const o of items) if (!baseItems.some((b) => nameOf(b) === o.name)) out.push(o);
      return out;
    }
    return items.map((x) => clone(x));
  }
  if (isRecord(overlay)) {
    const out: Record<string, unknown> = isRecord(base) ? { ...base } : {};
    for (const [k, v] of Object.entries(overlay)) out[k] = mergeTemplate(out[k], v, k);
    return out;
  }
  return overlay;
}

function clone(x: unknown): unknown {
  return x && typeof x === 'object' ? JSON.parse(JSON.stringify(x)) : x;
}

/** Removes undefined values recursively (what cdk8s does at synth), so policy sees the output shape. */
export function compact(x: Record<string, unknown>): Record<string, unknown>;
export function compact(x: unknown): unknown;
export function compact(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(compact);
  if (x && typeof x === 'object') {
    // for-in over own keys, not entries: this copies every manifest, and an array per field was a third of the
    // garbage a synth makes while building.
    const out: Record<string, unknown> = {};
    for (const k in x) {
      if (!Object.prototype.hasOwnProperty.call(x, k)) continue;
      const v = (x as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = compact(v);
    }
    return out;
  }
  return x;
}
