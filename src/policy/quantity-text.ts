/**
 * Quantities for people to read (messages, `check` and `plan` text), not for manifests: a byte count
 * prints in the units its user wrote. Users write memory in decimal units (6G) or binary ones (200Mi);
 * a sum of both is exact in neither, so it prints as its two parts ("8G + 200Mi") instead of a count of
 * KiB no one wrote. Figures compared on one line print in one unit family. JSON keeps formatQuantity's
 * exact Kubernetes notation. Pure.
 */
import { BINARY as BINARY_SUFFIXES, DECIMAL_EXP, formatQuantity, isByteResource, ResourceMap, sortedResourceNames } from './quantity';

type Unit = readonly [string, bigint];
// The parser's units from M and Mi up, largest first (KiB and kB only when nothing coarser is exact).
const DECIMAL: readonly Unit[] = Object.entries(DECIMAL_EXP).filter(([, e]) => e >= 6).map(([u, e]): Unit => [u, 10n ** BigInt(e)])
  .sort((a, b) => (b[1] > a[1] ? 1 : -1));
const BINARY: readonly Unit[] = Object.entries(BINARY_SUFFIXES).filter(([u]) => u !== 'Ki').map(([u, n]): Unit => [u, n])
  .sort((a, b) => (b[1] > a[1] ? 1 : -1));

/** The largest unit of `units` that divides `bytes` (> 0), as "8G"; undefined when none does. */
function inUnit(bytes: bigint, units: readonly Unit[]): string | undefined {
  for (const [u, n] of units) if (bytes % n === 0n) return `${bytes / n}${u}`;
  return undefined;
}

/** x⁻¹ mod m (x odd, m a power of two). */
function inverse(x: bigint, m: bigint): bigint {
  let [r0, r1, s0, s1] = [x % m, m, 1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
  }
  return ((s0 % m) + m) % m;
}

/**
 * `bytes` as a decimal part plus a binary part, both positive, larger units first ("8G + 200Mi"): the
 * binary part is the smallest that leaves a whole number of the decimal unit.
 */
function split(bytes: bigint): string | undefined {
  for (const [, u] of DECIMAL) {
    const n = BigInt(u.toString().length - 1); // u = 2^n * 5^n
    const r = bytes % u;
    for (const [, v] of BINARY) {
      const m = BigInt(v.toString(2).length - 1); // v = 2^m
      // The binary part b = r + k*u with v | b: none unless 2^min(n, m) divides r.
      const low = 1n << (n < m ? n : m);
      if (r % low !== 0n) continue;
      let k = 0n;
      if (m > n) {
        const mod = 1n << (m - n);
        k = ((-(r >> n) % mod + mod) % mod) * inverse(5n ** n, mod) % mod;
      }
      const b = r + k * u;
      if (b > 0n && b < bytes) return `${inUnit(bytes - b, DECIMAL)} + ${inUnit(b, BINARY)}`;
    }
  }
  return undefined;
}

/**
 * A quantity as its user wrote it: cpu and counts as numbers ("2.5"), bytes in the largest exact unit
 * ("4296Mi", "6G"), a sum of decimal and binary amounts as its two parts ("8G + 200Mi"); KiB and kB only
 * when nothing coarser is exact (the user wrote them).
 */
export function describeQuantity(milli: bigint, resource: string): string {
  if (!isByteResource(resource) || milli <= 0n || milli % 1000n !== 0n) return formatQuantity(milli, resource);
  const bytes = milli / 1000n;
  return inUnit(bytes, BINARY) ?? inUnit(bytes, DECIMAL) ?? split(bytes) ?? formatQuantity(milli, resource);
}

type Family = 'binary' | 'decimal';

/** Which family a byte count is exact in, if any ('binary' also for a decimal + binary sum). */
function familyOf(bytes: bigint): Family | undefined {
  if (bytes <= 0n) return undefined;
  if (inUnit(bytes, BINARY)) return 'binary';
  if (inUnit(bytes, DECIMAL)) return 'decimal';
  return split(bytes) ? 'binary' : undefined;
}

/** `bytes` in unit `n` with at most two decimals, rounded to the nearest. */
function approx(bytes: bigint, unit: string, n: bigint): string {
  const hundredths = (bytes * 100n + n / 2n) / n;
  const frac = (hundredths % 100n).toString().padStart(2, '0').replace(/0+$/, '');
  return `${hundredths / 100n}${frac ? `.${frac}` : ''}${unit}`;
}

/**
 * Figures compared on one line ("needs X, Y free of Z"), in one unit family: binary when any of them is
 * binary (or a decimal + binary sum), else decimal. A figure exact in that family prints in its largest
 * exact unit; the others print with two decimals in the smallest unit the exact ones use (Mi or M when
 * none is exact). Figures in no family (what the user wrote in Ki) print as they are.
 */
export function describeQuantities(values: readonly bigint[], resource: string): string[] {
  if (!isByteResource(resource) || values.some((v) => v % 1000n !== 0n)) return values.map((v) => describeQuantity(v, resource));
  const bytes = values.map((v) => v / 1000n);
  const families = bytes.map(familyOf);
  const family: Family | undefined = families.includes('binary') ? 'binary' : families.includes('decimal') ? 'decimal' : undefined;
  if (!family) return values.map((v) => describeQuantity(v, resource));
  const units = family === 'binary' ? BINARY : DECIMAL;
  const unitOf = (b: bigint) => (b > 0n ? units.find(([, n]) => b % n === 0n) : undefined);
  // Approximations use the smallest unit an exact figure uses, so that they compare digit by digit.
  let smallest = units[units.length - 1];
  const exactUnits = bytes.map(unitOf).filter((u): u is Unit => !!u);
  if (exactUnits.length) smallest = exactUnits.reduce((a, u) => (u[1] < a[1] ? u : a));
  return bytes.map((b) => {
    if (b === 0n) return '0';
    const u = unitOf(b);
    return u ? `${b / u[1]}${u[0]}` : approx(b, smallest[0], smallest[1]);
  });
}

/**
 * Resource maps compared in one message ("needs cpu 5, memory 8G + 200Mi, at most cpu 4, memory 6G"):
 * each resource's figures in one family across the maps (describeQuantities); one string per map.
 */
export function describeResourcesCompared(maps: ReadonlyArray<ReadonlyMap<string, bigint>>): string[] {
  const shown = maps.map(() => new Map<string, string>());
  const names = new Set(maps.flatMap((m) => [...m.keys()]));
  for (const r of names) {
    const at = maps.map((m, i) => [i, m.get(r)] as const).filter((x): x is readonly [number, bigint] => x[1] !== undefined);
    describeQuantities(at.map(([, v]) => v), r).forEach((s, j) => shown[at[j][0]].set(r, s));
  }
  return shown.map((m) => sortedResourceNames(m).map((r) => `${r} ${m.get(r)}`).join(', '));
}

/** Formats a whole map for a message, e.g. "cpu 2.5, memory 8G + 200Mi". Resources are listed cpu, memory, then by name. */
export function formatResources(map: ResourceMap): string {
  return sortedResourceNames(map).map((r) => `${r} ${describeQuantity(map.get(r)!, r)}`).join(', ');
}
