// Pod-template merging for the Ray constructs: a user's fragment over the generated template.
const MERGE_BY_NAME = new Set(['containers', 'initContainers', 'volumes', 'volumeMounts', 'env', 'ports', 'ephemeralContainers']);

/**
 * Deep-merges a user's pod-template fragment over the generated template. Objects merge key by key;
 * lists of named items (containers, volumes, env, ports, ...) merge by `name`, like a strategic merge
 * patch; other lists are replaced. Every field the user gives ends up in the output.
 */
export function mergeTemplate(base: any, overlay: any, key?: string): any {
  if (overlay === undefined) return base;
  if (Array.isArray(overlay)) {
    if (key && MERGE_BY_NAME.has(key) && Array.isArray(base) && overlay.every((x) => x && typeof x === 'object' && typeof x.name === 'string')) {
      const out = base.map((b: any) => {
        const o = overlay.find((x: any) => x.name === b?.name);
        return o ? mergeTemplate(b, o) : b;
      });
      for (const o of overlay) if (!base.some((b: any) => b?.name === o.name)) out.push(o);
      return out;
    }
    return overlay.map((x) => clone(x));
  }
  if (overlay && typeof overlay === 'object') {
    const out: any = base && typeof base === 'object' && !Array.isArray(base) ? { ...base } : {};
    for (const [k, v] of Object.entries(overlay)) out[k] = mergeTemplate(out[k], v, k);
    return out;
  }
  return overlay;
}

function clone(x: any): any {
  return x && typeof x === 'object' ? JSON.parse(JSON.stringify(x)) : x;
}

/** Removes undefined values recursively (what cdk8s does at synth), so policy sees the output shape. */
export function compact(x: any): any {
  if (Array.isArray(x)) return x.map(compact);
  if (x && typeof x === 'object') {
    const out: any = {};
    for (const [k, v] of Object.entries(x)) if (v !== undefined) out[k] = compact(v);
    return out;
  }
  return x;
}
