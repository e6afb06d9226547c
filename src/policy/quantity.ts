/**
 * Kubernetes resource quantities as exact integers of milli-units (bigint), so sums over
 * a thousand pods never drift. Parsing follows k8s.io/apimachinery resource.Quantity:
 * decimal SI suffixes, binary suffixes, and decimal exponents; sub-milli values round up,
 * as the API server does for CPU.
 */
/** The binary suffixes and their factors. */
export const BINARY: Readonly<Record<string, bigint>> = {
  Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n,
};
/** The decimal suffixes and their powers of ten. */
export const DECIMAL_EXP: Readonly<Record<string, number>> = {
  'n': -9, 'u': -6, 'm': -3, '': 0, 'k': 3, 'M': 6, 'G': 9, 'T': 12, 'P': 15, 'E': 18,
};

const QUANTITY_RE = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$/;

/** A resource name → milli-units map. */
export type ResourceMap = Map<string, bigint>;

/** Returns true when `s` is a valid Kubernetes quantity string. */
export function isQuantity(s: unknown): boolean {
  return (typeof s === 'string' && QUANTITY_RE.test(s.trim())) || (typeof s === 'number' && Number.isFinite(s));
}

/**
 * The largest quantity Kubernetes represents: resource.Quantity silently caps larger values at
 * 2^63-1 (of the base unit), so a request above it does not mean what it says.
 */
export const MAX_QUANTITY_UNITS = (1n << 63n) - 1n;
// Kubernetes parses a decimal exponent as an int32 and refuses the quantity otherwise.
const MAX_EXPONENT = 2147483647;
// More significant digits than this cannot change a value between 1m and 2^63-1 (the nano-units
// Kubernetes keeps included), and parsing them as a BigInt costs quadratic time.
const MAX_SIGNIFICANT_DIGITS = 40;

// The same few strings ("1", "2Gi", "500m") repeat across thousands of pods. Only short strings are
// cached: a tenant can write arbitrarily long ones.
const PARSED = new Map<string, bigint>();
const CACHED_KEY_LENGTH = 32;

/** Parses a quantity (string or number) into milli-units. Throws with the offending text on bad input. */
export function parseQuantity(input: string | number): bigint {
  if (typeof input !== 'string' && typeof input !== 'number') {
    throw new Error(`a quantity must be a string or a number, not ${input === null ? 'null' : Array.isArray(input) ? 'a list' : typeof input} `
      + '(examples: 500m, 2, 1.5, 2Gi, 6G)');
  }
  const key = typeof input === 'number' ? `#${input}` : input;
  const hit = PARSED.get(key);
  if (hit !== undefined) return hit;
  const v = parseQuantityUncached(input);
  if (PARSED.size < 10000 && key.length <= CACHED_KEY_LENGTH) PARSED.set(key, v);
  return v;
}

/** A short, safe rendering of user text in an error message. */
function shown(s: string): string {
  return s.length > 40 ? `${s.slice(0, 20)}…${s.slice(-12)} (${s.length} characters)` : s;
}

function parseQuantityUncached(input: string | number): bigint {
  const s = typeof input === 'number' ? numberToString(input) : input.trim();
  const m = QUANTITY_RE.exec(s);
  if (!m) throw new Error(`'${shown(String(input))}' is not a Kubernetes quantity (examples: 500m, 2, 1.5, 2Gi, 6G)`);
  const [, sign, num, suffix = ''] = m;
  const [intPart, fracPart = ''] = num.split('.');
  // Milli-units: value = digits × mult × 10^exp10, with digits stripped of leading and trailing zeros.
  let exp10 = 3 - fracPart.length;
  let mult = 1n;
  if (suffix in BINARY) {
    mult = BINARY[suffix];
  } else if (!(suffix in DECIMAL_EXP)) {
    // An exponent (e3, E-2); a lone "E" is the exa suffix.
    const e = Number(suffix.slice(1));
    if (!(Math.abs(e) <= MAX_EXPONENT)) throw new Error(`'${shown(s)}': the exponent is outside what Kubernetes accepts (a 32-bit integer), so the `
      + 'API server refuses it; write the quantity without such an exponent (examples: 500m, 2, 2Gi, 6G)');
    exp10 += e;
  } else {
    exp10 += DECIMAL_EXP[suffix];
  }
  let digits = ((intPart || '') + fracPart).replace(/^0+/, '');
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  exp10 += trailing;
  if (digits === '') return 0n;
  const tooLarge = () => new Error(`'${shown(s)}' is larger than the largest quantity Kubernetes represents (${MAX_QUANTITY_UNITS}), which it would `
    + 'silently cap; write a smaller quantity (examples: 500m, 2, 2Gi, 6G)');
  // Decimal order of magnitude of the value in milli-units, at most one too high for a binary suffix.
  const order = digits.length - 1 + exp10 + (mult > 1n ? mult.toString().length : 0);
  if (order > 23) throw tooLarge();
  if (digits.length > MAX_SIGNIFICANT_DIGITS) {
    throw new Error(`'${shown(s)}' has ${digits.length} significant digits; Kubernetes keeps at most nano precision, so write it with fewer digits `
      + '(examples: 500m, 2, 1.5, 2Gi)');
  }
  let value: bigint;
  if (order < -1) {
    value = 1n; // below one milli-unit: rounded up, as the API server does for CPU
  } else if (exp10 >= 0) {
    value = BigInt(digits) * mult * 10n ** BigInt(exp10);
  } else {
    const div = 10n ** BigInt(-exp10); // -exp10 < digits.length + 21 here
    value = (BigInt(digits) * mult + div - 1n) / div; // round up to the next milli-unit
  }
  if (value > MAX_QUANTITY_UNITS * 1000n) throw tooLarge();
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
 * Milli-units in one of Kueue's units of `resource`: Kueue keeps cpu in milli-CPU and every other resource in its
 * base unit (resources.Amount, NewRequestsFromResourceList: MilliValue for cpu, Value otherwise).
 */
export function kueueMilliPerUnit(resource: string): bigint {
  return resource === 'cpu' ? 1n : 1000n;
}

/** Resources counted in bytes, whose users write decimal or binary units. */
export function isByteResource(resource: string): boolean {
  return resource === 'memory' || resource.startsWith('hugepages-') || resource === 'ephemeral-storage';
}

/**
 * Formats milli-units for humans: cpu as cores ("2.5"), memory in the largest binary unit that
 * divides it exactly ("4296Mi"), anything else as a plain number.
 */
export function formatQuantity(milli: bigint, resource: string): string {
  if (isByteResource(resource)) {
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

export function sortedResourceNames(map: ReadonlyMap<string, unknown>): string[] {
  const rank = (r: string) => (r === 'cpu' ? 0 : r === 'memory' ? 1 : 2);
  return [...map.keys()].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Adds `b` × `times` into `a` (in place) and returns `a`. */
export function addInto(a: ResourceMap, b: ResourceMap, times = 1n): ResourceMap {
  // Most sums are of one pod: a BigInt product allocates, and × 1 changes nothing.
  if (times === 1n) for (const [k, v] of b) a.set(k, (a.get(k) ?? 0n) + v);
  else for (const [k, v] of b) a.set(k, (a.get(k) ?? 0n) + v * times);
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
  if (list === undefined || list === null) return out;
  if (typeof list !== 'object' || Array.isArray(list)) throw new Error(`${where}: must be a map of resource names to quantities, `
    + `not ${Array.isArray(list) ? 'a list' : typeof list}`);
  // Object.keys, not Object.entries: every admission review parses each container's lists several times.
  for (const k of Object.keys(list)) {
    const v = list[k];
    if (v === undefined || v === null) continue;
    try {
      out.set(k, parseQuantity(v as string | number));
    } catch (e) {
      throw new Error(`${where}.${k}: ${(e as Error).message}`);
    }
  }
  return out;
}

/**
 * A quantity's exact decimal value rounded to a double, as resource.Quantity's AsFloat64Slow gives it
 * (Kueue reads fair-sharing weights so: pkg/cache/scheduler/fair_sharing.go parseFairWeight). Unlike
 * parseQuantity it keeps values below a milli-unit (a weight of 1n is 1e-9). Throws on a non-quantity.
 */
export function quantityToNumber(input: string | number): number {
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) throw new Error(`'${input}' is not a Kubernetes quantity`);
    return input;
  }
  const s = typeof input === 'string' ? input.trim() : input;
  const m = QUANTITY_RE.exec(s);
  if (!m) throw new Error(`'${shown(String(input))}' is not a Kubernetes quantity (examples: 500m, 2, 1.5, 2Gi, 6G)`);
  const [, sign, num, suffix = ''] = m;
  // The decimal text with its power of ten: parseFloat rounds it once, to the nearest double. A binary
  // suffix multiplies by a power of two, which is exact.
  const exp = suffix in BINARY ? 0 : suffix in DECIMAL_EXP ? DECIMAL_EXP[suffix] : Number(suffix.slice(1));
  const v = parseFloat(`${num}e${exp}`) * (suffix in BINARY ? Number(BINARY[suffix]) : 1);
  return sign === '-' ? -v : v;
}
