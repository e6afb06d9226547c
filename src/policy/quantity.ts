/**
 * Kubernetes resource quantities as exact integers of milli-units (bigint), so sums over
 * a thousand pods never drift. Parsing follows k8s.io/apimachinery resource.Quantity:
 * decimal SI suffixes, binary suffixes, and decimal exponents; sub-milli values round up,
 * as the API server does for CPU.
 */

const BINARY: Record<string, bigint> = {
  Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n,
};
const DECIMAL_EXP: Record<string, number> = {
  'n': -9, 'u': -6, 'm': -3, '': 0, 'k': 3, 'M': 6, 'G': 9, 'T': 12, 'P': 15, 'E': 18,
};

const QUANTITY_RE = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$/;

/** A resource name → milli-units map. */
export type ResourceMap = Map<string, bigint>;

/** Returns true when `s` is a valid Kubernetes quantity string. */
export function isQuantity(s: unknown): boolean {
  return (typeof s === 'string' && QUANTITY_RE.test(s.trim())) || (typeof s === 'number' && Number.isFinite(s));
}

// The same few strings ("1", "2Gi", "500m") repeat across thousands of pods.
const PARSED = new Map<string, bigint>();

/** Parses a quantity (string or number) into milli-units. Throws with the offending text on bad input. */
export function parseQuantity(input: string | number): bigint {
  const key = typeof input === 'number' ? `#${input}` : input;
  const hit = PARSED.get(key);
  if (hit !== undefined) return hit;
  const v = parseQuantityUncached(input);
  if (PARSED.size < 10000) PARSED.set(key, v);
  return v;
}

function parseQuantityUncached(input: string | number): bigint {
  const s = typeof input === 'number' ? numberToString(input) : String(input).trim();
  const m = QUANTITY_RE.exec(s);
  if (!m) throw new Error(`'${input}' is not a Kubernetes quantity (examples: 500m, 2, 1.5, 2Gi, 6G)`);
  const [, sign, num, suffix = ''] = m;
  const [intPart, fracPart = ''] = num.split('.');
  const digits = BigInt((intPart || '0') + fracPart);
  let exp10 = 3 - fracPart.length; // milli-units
  let mult = 1n;
  if (suffix in BINARY) {
    mult = BINARY[suffix];
  } else if (/^[eE]/.test(suffix)) {
    exp10 += Number(suffix.slice(1));
  } else {
    exp10 += DECIMAL_EXP[suffix];
  }
  let value = digits * mult;
  if (exp10 >= 0) {
    value *= 10n ** BigInt(exp10);
  } else {
    const div = 10n ** BigInt(-exp10);
    value = (value + div - 1n) / div; // round up to the next milli-unit
  }
  return sign === '-' ? -value : value;
}

function numberToString(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`'${n}' is not a Kubernetes quantity`);
  // Avoid exponent notation from toString for tiny/huge numbers where possible.
  const s = String(n);
  return s.includes('e') ? n.toExponential().replace('e+', 'e') : s;
}

const MI = 1n << 20n;
const GI = 1n << 30n;
const KI = 1n << 10n;

/**
 * Formats milli-units for humans: cpu as cores ("2.5"), memory in the largest binary unit that
 * divides it exactly ("4296Mi"), anything else as a plain number.
 */
export function formatQuantity(milli: bigint, resource: string): string {
  if (resource === 'memory' || resource.startsWith('hugepages-') || resource === 'ephemeral-storage') {
    if (milli % 1000n !== 0n) return `${formatDecimal(milli)}`;
    const bytes = milli / 1000n;
    if (bytes !== 0n && bytes % GI === 0n) return `${bytes / GI}Gi`;
    if (bytes !== 0n && bytes % MI === 0n) return `${bytes / MI}Mi`;
    // Quotas are often written in decimal units (the guide's "6G"): prefer them over odd KiB counts.
    for (const [unit, n] of [['T', 10n ** 12n], ['G', 10n ** 9n], ['M', 10n ** 6n], ['k', 1000n]] as const) {
      if (bytes !== 0n && bytes % n === 0n) return `${bytes / n}${unit}`;
    }
    if (bytes !== 0n && bytes % KI === 0n) return `${bytes / KI}Ki`;
    return `${bytes}`;
  }
  return formatDecimal(milli);
}

function formatDecimal(milli: bigint): string {
  const neg = milli < 0n;
  const a = neg ? -milli : milli;
  const whole = a / 1000n;
  const frac = a % 1000n;
  const f = frac === 0n ? '' : '.' + frac.toString().padStart(3, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${f}`;
}

/** Formats a whole map, e.g. "cpu 2.5, memory 4296Mi". Resources are listed cpu, memory, then by name. */
export function formatResources(map: ResourceMap): string {
  return sortedResourceNames(map).map((r) => `${r} ${formatQuantity(map.get(r)!, r)}`).join(', ');
}

export function sortedResourceNames(map: ResourceMap): string[] {
  const rank = (r: string) => (r === 'cpu' ? 0 : r === 'memory' ? 1 : 2);
  return [...map.keys()].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Adds `b` × `times` into `a` (in place) and returns `a`. */
export function addInto(a: ResourceMap, b: ResourceMap, times = 1n): ResourceMap {
  for (const [k, v] of b) a.set(k, (a.get(k) ?? 0n) + v * times);
  return a;
}

/** Per-resource max of `a` and `b`, into `a`. */
export function maxInto(a: ResourceMap, b: ResourceMap): ResourceMap {
  for (const [k, v] of b) {
    const cur = a.get(k);
    if (cur === undefined || v > cur) a.set(k, v);
  }
  return a;
}

/** Parses a Kubernetes ResourceList ({cpu: "1", memory: "2Gi"}) into a ResourceMap. */
export function parseResourceList(list: Record<string, unknown> | undefined, where: string): ResourceMap {
  const out: ResourceMap = new Map();
  if (!list) return out;
  for (const [k, v] of Object.entries(list)) {
    if (v === undefined || v === null) continue;
    try {
      out.set(k, parseQuantity(v as string | number));
    } catch (e) {
      throw new Error(`${where}.${k}: ${(e as Error).message}`);
    }
  }
  return out;
}
