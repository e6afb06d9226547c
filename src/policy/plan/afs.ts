/**
 * Admission fair sharing (Kueue's pkg/util/admissionfairsharing and pkg/cache/queue/afs, v0.19.2): each
 * LocalQueue's usage, which orders the workloads of a ClusterQueue with `admissionScope.admissionMode:
 * UsageBasedAdmissionFairSharing` (the lowest usage first, above priority). Snapshot layer: it reads nothing of the
 * simulator. Pure.
 *
 * - Usage (CalculateUsage): Σ over resource names, in sorted order, of `weight(resource) × amount` (resource weights
 *   default to 1; amounts in the resource's base unit, as Quantity.AsApproximateFloat64 gives them: CPU in cores,
 *   memory in bytes), the consumed history plus the penalties not yet settled, divided by the LocalQueue's
 *   `spec.fairSharing.weight` (default 1; 0 or less gives +Inf, always last).
 * - Entry penalty (scheduler.go updateEntryPenalty): an admission in such a ClusterQueue adds
 *   `α(sampling) × requests` to its LocalQueue at once, so a burst from one queue counts before the next sampling.
 * - Settlement (workload_controller.go updateAfsConsumedUsage), when the workload is admitted: the history is decayed
 *   to now with the LocalQueue's admitted usage, and the penalty folded in; `lastUpdate` is now.
 * - Sampling (localqueue_controller.go reconcileConsumedUsage): `usageSamplingInterval` after the last update, the
 *   history is decayed again: `consumed × (1 − α) + admitted × α`, `α = 1 − 0.5^(elapsed / usageHalfLifeTime)`.
 * - A half-life of 0 resets the history at every reconcile and makes every penalty 0: the usage is always 0 and the
 *   ClusterQueue orders as without admission fair sharing (kueue#11134).
 *
 * Kueue computes in decimal quantities rounded down to 9 decimals (MulByFloat); the plan in doubles, rounded down the
 * same way, so usages agree to about 15 significant digits and only near-ties could order differently.
 */

/** The Configuration's `admissionFairSharing`, in seconds. */
export interface AfsSettings {
  readonly usageHalfLifeTime: number;
  readonly usageSamplingInterval: number;
  readonly resourceWeights: Readonly<Record<string, number>>;
}

/** Amounts by resource name, in the resource's base unit (cores, bytes, counts). */
export type ResourceAmounts = ReadonlyMap<string, number>;

/** One LocalQueue's record (Kueue's UsageLedgerEntry), with the plan clock's seconds. */
export interface LocalQueueUsage {
  /** The decayed history (status.fairSharing.admissionFairSharingStatus.consumedResources). */
  consumed: Map<string, number>;
  /** Entry penalties not settled yet. */
  penalty: Map<string, number>;
  /** When `consumed` was last decayed (status ... lastUpdate), seconds on the plan's clock (negative: before its start). */
  lastUpdate: number;
}

/** Go's cmp.Compare on two usages: NaN below every number and equal to itself. */
export function compareUsage(a: number, b: number): number {
  const an = Number.isNaN(a), bn = Number.isNaN(b);
  if (an || bn) return an && bn ? 0 : an ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Kueue's calculateAlphaRate: 0 with a half-life of 0. */
export function alphaRate(elapsed: number, halfLife: number): number {
  return halfLife === 0 ? 0 : 1 - Math.pow(0.5, elapsed / halfLife);
}

/** resource.MulByFloat: each amount times `f`, rounded down to 9 decimals. */
function mulByFloat(amounts: ResourceAmounts, f: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const [r, v] of amounts) out.set(r, roundDown9(v * f));
  return out;
}

function roundDown9(x: number): number {
  const scaled = x * 1e9;
  // Past 2^53 a double has no decimals left to drop.
  return Math.abs(scaled) >= 2 ** 53 ? x : Math.floor(scaled) / 1e9;
}

/** MergeResourceListKeepSum. */
function sum(a: ResourceAmounts, b: ResourceAmounts): Map<string, number> {
  const out = new Map(a);
  for (const [r, v] of b) out.set(r, (out.get(r) ?? 0) + v);
  return out;
}

/** CalculateDecayedConsumed: `old × (1 − α) + admitted × α`. */
export function decayedConsumed(old: ResourceAmounts, admitted: ResourceAmounts, elapsed: number, halfLife: number): Map<string, number> {
  const alpha = alphaRate(elapsed, halfLife);
  return sum(mulByFloat(old, 1 - alpha), mulByFloat(admitted, alpha));
}

/** Reconciles folded one by one before the rest are folded at once (sampleUntil). */
const EXACT_SAMPLES = 64;

/** The LocalQueues' records of one plan, by "namespace/name". */
export class AfsLedger {
  private readonly entries = new Map<string, LocalQueueUsage>();

  /** `zeroWeightLast`: a weight of 0 gives +Inf (0.19.1 and later); before, usage / 0 (+Inf, or NaN when idle). */
  constructor(readonly settings: AfsSettings, private readonly weights: ReadonlyMap<string, number>, private readonly zeroWeightLast = true) {}

  /** A LocalQueue's persisted status (read from the cluster): its history and when it was last decayed. */
  seed(lq: string, consumed: ResourceAmounts, lastUpdate: number): void {
    // With a half-life of 0, the first reconcile resets the history (localqueue_controller.go).
    const history = this.settings.usageHalfLifeTime === 0 ? new Map<string, number>() : new Map(consumed);
    this.entries.set(lq, { consumed: history, penalty: new Map(), lastUpdate });
  }

  /** The record of a LocalQueue, if it has one. */
  entry(lq: string): Readonly<LocalQueueUsage> | undefined {
    return this.entries.get(lq);
  }

  /** CalculateUsage of a LocalQueue now: 0 without a record (an idle queue). */
  usage(lq: string): number {
    const e = this.entries.get(lq);
    const weight = this.weights.get(lq) ?? 1;
    let usage = 0;
    if (e) {
      const all = sum(e.consumed, e.penalty);
      for (const r of [...all.keys()].sort()) usage += (this.settings.resourceWeights[r] ?? 1) * all.get(r)!;
    }
    if (weight <= 0 && this.zeroWeightLast) return Infinity;
    // Before 0.19.1 Kueue divided by the weight whatever it was: 0/0 is NaN, which compareUsage puts first.
    return usage / weight;
  }

  /**
   * An admission at `now` of a workload requesting `requests`: the entry penalty is pushed and, the workload being
   * admitted at once, settled with the history decayed to now (`admitted`: the LocalQueue's admitted usage, the new
   * workload's included).
   */
  admit(lq: string, now: number, requests: ResourceAmounts, admitted: ResourceAmounts): void {
    const s = this.settings;
    const penalty = mulByFloat(requests, alphaRate(s.usageSamplingInterval, s.usageHalfLifeTime));
    const e = this.entries.get(lq) ?? { consumed: new Map<string, number>(), penalty: new Map<string, number>(), lastUpdate: now };
    const elapsed = Math.max(0, now - e.lastUpdate);
    e.consumed = sum(decayedConsumed(e.consumed, admitted, elapsed, s.usageHalfLifeTime), penalty);
    e.lastUpdate = Math.max(now, e.lastUpdate);
    this.entries.set(lq, e);
  }

  /**
   * The sampling reconciles due up to `now`: each LocalQueue with a record is decayed every `usageSamplingInterval`
   * after its last update, with its admitted usage then (`admittedOf`; it changes only at the plan's events, so it is
   * the same for every reconcile up to `now`). With a half-life of 0 the history is reset instead.
   */
  sampleUntil(now: number, admittedOf: (lq: string) => ResourceAmounts): void {
    const s = this.settings;
    for (const [lq, e] of this.entries) {
      if (e.lastUpdate + s.usageSamplingInterval > now) continue;
      const admitted = admittedOf(lq);
      const due = Math.floor((now - e.lastUpdate) / s.usageSamplingInterval);
      if (s.usageHalfLifeTime === 0) e.consumed = new Map();
      else {
        // One reconcile at a time, as Kueue folds them; past EXACT_SAMPLES, the rest at once (the same admitted usage
        // throughout: n folds leave `old × (1 − α)^n + admitted × (1 − (1 − α)^n)`), so a long quiet stretch stays cheap.
        for (let i = 0; i < Math.min(due, EXACT_SAMPLES); i++) {
          e.consumed = decayedConsumed(e.consumed, admitted, s.usageSamplingInterval, s.usageHalfLifeTime);
        }
        if (due > EXACT_SAMPLES) {
          e.consumed = decayedConsumed(e.consumed, admitted, (due - EXACT_SAMPLES) * s.usageSamplingInterval, s.usageHalfLifeTime);
        }
      }
      e.lastUpdate += due * s.usageSamplingInterval;
    }
  }
}
