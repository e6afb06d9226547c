/**
 * Kueue's dominant resource share (pkg/cache/scheduler/fair_sharing.go): how far a ClusterQueue or Cohort
 * uses more than its subtree quota, as the largest ratio, over resource names, of what it borrows to what
 * its parent could lend, divided by its fair-sharing weight. With fair sharing on, the scheduler admits
 * the lowest share first and preempts from the highest. Snapshot layer: it reads the quota tree only. Pure.
 *
 * Two arithmetics, by version (`drsArithmetic`): up to 0.13 an integer share (`b*1000/lr`, then
 * `*1000/weight.MilliValue()`, at least 1; v0.13.4 pkg/cache/fair_sharing.go), from 0.14 a double
 * (`float64(b)*1000/float64(lr)`, then `/weight`). Ties decide the order, so the doubles are computed as
 * Kueue computes them: the amounts in Kueue's own units (milli-CPU, bytes, counts), the same operations.
 */
import { parseQuantity, quantityToNumber } from '../quantity';
import { CohortNode, FlavorResource, potentialAvailable, QuotaNode, rootOf } from './quota-tree';

export type DrsArithmetic = 'integer' | 'float';

/** A node's share (Kueue's DRS). */
export interface Drs {
  /** The node's fair-sharing weight. */
  readonly weight: number;
  /** float: borrowed × 1000 / lendable of the dominant resource, 0 when nothing is borrowed. integer: unused (0). */
  readonly unweightedRatio: number;
  /**
   * What the scheduler compares: float, PreciseWeightedShare (Infinity for a zero weight that borrows);
   * integer, v0.13's share (Infinity for math.MaxInt).
   */
  readonly share: number;
  /** The dominant resource ('' when none). */
  readonly resource: string;
  /** Some flavor/resource is used beyond the subtree quota. */
  readonly borrowing: boolean;
  /** The flavor/resources used beyond it. */
  readonly borrowed: readonly FlavorResource[];
  readonly arithmetic: DrsArithmetic;
}

/**
 * The shares' view of the flavor/resource table: each flavor/resource's resource, numbered in the alphabetical order of
 * the names (so the lower number is the name Kueue prefers on equal ratios), and per resource the factor from the
 * simulator's unit to Kueue's (resources.Amount).
 */
export interface ShareUnits {
  /** By flavor/resource: its resource's number. */
  readonly resourceIndex: Int32Array;
  /** By resource number: the name, in alphabetical order. */
  readonly resourceNames: readonly string[];
  /** By resource number. */
  readonly kueueScale: Float64Array;
}

/** ShareUnits of a flavor/resource table (the resource of each), with each resource's factor to Kueue's units. */
export function shareUnitsOf(resourceOf: readonly string[], kueueScale: ReadonlyMap<string, number>): ShareUnits {
  const resourceNames = [...new Set(resourceOf)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const id = new Map(resourceNames.map((r, i) => [r, i]));
  return {
    resourceIndex: Int32Array.from(resourceOf.map((r) => id.get(r)!)), resourceNames,
    kueueScale: Float64Array.from(resourceNames.map((r) => kueueScale.get(r) ?? 1)),
  };
}

/**
 * A ClusterQueue's or Cohort's `spec.fairSharing.weight` as Kueue reads it, refusing what Kueue's webhook
 * refuses (pkg/webhooks/common.go validateFairSharing): a negative weight, or one in (0, 1n]. `where` names
 * the object for the error.
 */
export function parseFairWeight(weight: unknown, where: string): { weight: number; milli: number } {
  if (weight === undefined || weight === null) return { weight: 1, milli: 1000 };
  const field = `${where}: spec.fairSharing.weight`;
  if (typeof weight !== 'string' && typeof weight !== 'number') {
    throw new Error(`${field} must be a quantity such as 1, 2 or 0.5, not ${Array.isArray(weight) ? 'a list' : typeof weight}`);
  }
  let value: number;
  let milli: bigint;
  try {
    value = quantityToNumber(weight);
    milli = parseQuantity(weight);
  } catch (e) {
    throw new Error(`${field}: ${(e as Error).message}`);
  }
  if (value < 0) throw new Error(`${field} is ${weight}: Kueue refuses a negative weight; use 0 (never ahead when borrowing) or more`);
  if (value > 0 && value <= 1e-9) {
    throw new Error(`${field} is ${weight}: Kueue refuses a weight in (0, 1n], which collapses the share; use 0 or more than 1n`);
  }
  return { weight: value, milli: Number(milli) };
}

/** The share of a node with nothing borrowed (a root, or within its quota). */
function notBorrowing(n: QuotaNode, arithmetic: DrsArithmetic): Drs {
  // The same for every call on a node (its weight never changes once read): one object per node and arithmetic.
  let known = NOT_BORROWING.get(n);
  if (!known) NOT_BORROWING.set(n, known = {});
  return known[arithmetic] ??= { weight: n.fairWeight, unweightedRatio: 0, share: 0, resource: '', borrowing: false, borrowed: [], arithmetic };
}

const NOT_BORROWING = new WeakMap<QuotaNode, { integer?: Drs; float?: Drs }>();

/** The list of one flavor/resource, by its number. */
const ALONE: Array<readonly FlavorResource[]> = [];

/** Scratch for each call's borrowed amount per resource (a call never runs inside another). */
let borrowedScratch = new Float64Array(8);

/**
 * dominantResourceShare(node, wlReq): the node's share with `request` (simulator units by flavor/resource)
 * added to its usage. A root has share 0.
 */
export function dominantResourceShare(n: QuotaNode, units: ShareUnits, arithmetic: DrsArithmetic,
  request?: ReadonlyMap<FlavorResource, number>): Drs {
  if (request) return computeShare(n, units, arithmetic, request);
  // Without a request the share reads only the node's usage (its quotas and its parent's lendable never change): the
  // searches and the tournament ask again for nodes whose usage has not moved since.
  const known = SHARES.get(n);
  if (known && known.version === n.usageVersion && known.units === units && known.drs.arithmetic === arithmetic) return known.drs;
  const drs = computeShare(n, units, arithmetic, undefined);
  if (known) {
    known.version = n.usageVersion;
    known.units = units;
    known.drs = drs;
  } else SHARES.set(n, { version: n.usageVersion, units, drs });
  return drs;
}

/** The last share computed per node without a request, with the usage version and units it was computed for. */
const SHARES = new WeakMap<QuotaNode, { version: number; units: ShareUnits; drs: Drs }>();

function computeShare(n: QuotaNode, units: ShareUnits, arithmetic: DrsArithmetic, request: ReadonlyMap<FlavorResource, number> | undefined): Drs {
  const parent = n.parent;
  if (!parent) return notBorrowing(n, arithmetic);
  const nres = units.resourceNames.length;
  if (borrowedScratch.length < nres) borrowedScratch = new Float64Array(nres);
  const borrowing = borrowedScratch;
  borrowing.fill(0, 0, nres);
  // Most shares borrow on one flavor/resource: its list is shared, not built per call.
  let borrowed: readonly FlavorResource[] | undefined;
  for (let fr = 0; fr < n.inSubtree.length; fr++) {
    if (!n.inSubtree[fr]) continue;
    const b = (request?.get(fr) ?? 0) + n.usage[fr] - n.subtree[fr];
    if (b > 0) {
      borrowing[units.resourceIndex[fr]] += b;
      borrowed = !borrowed ? (ALONE[fr] ??= Object.freeze([fr])) : [...borrowed, fr];
    }
  }
  if (!borrowed) return notBorrowing(n, arithmetic);
  const lendable = lendableOf(parent, units);
  if (arithmetic === 'integer') return integerShare(n, borrowing, lendable, borrowed, units);
  let ratio = 0;
  let resource = -1;
  // In alphabetical order: on equal ratios the first name stays, as Kueue keeps the alphabetically first.
  for (let r = 0; r < nres; r++) {
    const b = borrowing[r], lr = lendable[r];
    if (!(b > 0) || !(lr > 0)) continue;
    // float64(b)*1000.0/float64(lr) in Kueue's units: exact integers there as here, so the same double.
    const scale = units.kueueScale[r];
    const x = (b * scale * 1000) / (lr * scale);
    if (x > ratio) {
      ratio = x;
      resource = r;
    }
  }
  const share = ratio === 0 ? 0 : n.fairWeight === 0 ? Infinity : ratio / n.fairWeight;
  return { weight: n.fairWeight, unweightedRatio: ratio, share, resource: resource < 0 ? '' : units.resourceNames[resource], borrowing: true,
    borrowed, arithmetic };
}

/** v0.13: integer division throughout, at least 1, math.MaxInt for a zero weight. */
function integerShare(n: QuotaNode, borrowing: Float64Array, lendable: Float64Array, borrowed: readonly FlavorResource[], units: ShareUnits): Drs {
  let drs = -1n;
  let resource = -1;
  for (let r = 0; r < units.resourceNames.length; r++) {
    const b = borrowing[r], lr = lendable[r];
    if (!(b > 0) || !(lr > 0)) continue;
    // The scale to Kueue's units cancels exactly in an integer quotient.
    const x = (BigInt(b) * 1000n) / BigInt(lr);
    if (x > drs) {
      drs = x;
      resource = r;
    }
  }
  let share: number;
  if (n.fairWeight === 0) share = Infinity;
  else {
    // Go's integer division truncates toward zero (drs is -1 when no resource had lendable capacity).
    const dws = (drs * 1000n) / BigInt(n.fairWeightMilli);
    share = Number(dws > 1n ? dws : 1n);
  }
  return { weight: n.fairWeight, unweightedRatio: 0, share, resource: resource < 0 ? '' : units.resourceNames[resource], borrowing: true,
    borrowed, arithmetic: 'integer' };
}

/** Lendable capacity by cohort and resource number: quotas only (potentialAvailable reads no usage), so computed once per cohort. */
const LENDABLE = new WeakMap<CohortNode, Float64Array>();

/** calculateLendable: potentialAvailable of `parent` summed per resource over the root's flavor/resources. */
function lendableOf(parent: CohortNode, units: ShareUnits): Float64Array {
  const known = LENDABLE.get(parent);
  if (known) return known;
  const root = rootOf(parent);
  const out = new Float64Array(units.resourceNames.length);
  for (let fr = 0; fr < root.inSubtree.length; fr++) if (root.inSubtree[fr]) out[units.resourceIndex[fr]] += potentialAvailable(parent, fr);
  LENDABLE.set(parent, out);
  return out;
}

function zeroWeightBorrows(d: Drs): boolean {
  return d.weight === 0 && d.unweightedRatio !== 0;
}

/** CompareDRS: below 0 when `a` goes first for admission (and last for preemption). */
export function compareDrs(a: Drs, b: Drs): number {
  if (a.arithmetic === 'integer') return cmp(a.share, b.share);
  const za = zeroWeightBorrows(a);
  const zb = zeroWeightBorrows(b);
  if (za && zb) return cmp(a.unweightedRatio, b.unweightedRatio);
  if (za) return 1;
  if (zb) return -1;
  return cmp(a.share, b.share);
}

function cmp(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** IsBorrowingOn: the node borrows on a flavor/resource the request asks for. */
export function isBorrowingOn(d: Drs, request: ReadonlyMap<FlavorResource, number> | undefined): boolean {
  for (const fr of d.borrowed) if ((request?.get(fr) ?? 0) > 0) return true;
  return false;
}

/** Kueue's status.fairSharing.weightedShare: the share rounded up; Infinity stands for math.MaxInt64. */
export function roundedWeightedShare(d: Drs): number {
  if (d.arithmetic === 'integer') return d.share;
  return zeroWeightBorrows(d) ? Infinity : Math.ceil(d.share);
}

/** PreciseWeightedShareSerialized: Go's strconv.FormatFloat(share, 'f', -1, 64), the shortest exact digits without an exponent. */
export function formatShare(d: Drs): string {
  const s = d.share;
  if (s === Infinity) return '+Inf';
  const t = String(s);
  if (!t.includes('e')) return t;
  const [mantissa, expText] = t.split('e');
  const neg = mantissa.startsWith('-');
  const m = neg ? mantissa.slice(1) : mantissa;
  const dot = m.indexOf('.');
  const digits = m.replace('.', '');
  const at = (dot === -1 ? m.length : dot) + Number(expText);
  const out = at <= 0 ? `0.${'0'.repeat(-at)}${digits}` : at >= digits.length ? digits + '0'.repeat(at - digits.length)
    : `${digits.slice(0, at)}.${digits.slice(at)}`;
  return (neg ? '-' : '') + out;
}
