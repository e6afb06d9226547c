/**
 * What the plan page draws for one usage series, computed here so the page's script only places it:
 * y-axis ticks with labels in the resource's units, the borrowing and lending limit lines, one marker
 * per arrival into the series' queues, and a tooltip per step (merged into at most MAX_STEPS ranges, so
 * 30,000 cycles stay a page a browser opens). Pure.
 */
import { isByteResource } from '../../policy/quantity';
import { describeQuantities, describeQuantity } from '../../policy/quantity-text';
import type { PlanCycle, PlanResult } from '../../policy/plan/schema';

/** Quota use of one ClusterQueue or cohort for one resource (flavors summed), after each cycle: what a chart draws (html.ts builds it). */
export interface PlanUsageSeries {
  readonly kind: 'ClusterQueue' | 'Cohort';
  readonly name: string;
  readonly resource: string;
  /** Nominal quota (sum over flavors; for a cohort, what it pools: its members' lendable quota plus its own). */
  readonly nominal: number;
  /** Usage before the first cycle, then after each cycle (milli-units / 1000). */
  readonly points: readonly number[];
  /** Nominal plus borrowingLimit, when every flavor of the resource sets one. */
  readonly borrowingCeiling?: number;
  /** What the queue keeps for itself (nominal minus lendingLimit), when every flavor of the resource sets one. */
  readonly lendingFloor?: number;
}

/** Steps (cycles) with their own tooltip per chart; more are merged into ranges. */
export const MAX_STEPS = 400;

export interface ChartLine {
  readonly value: number;
  readonly label: string;
}

export interface ChartStep {
  /** Point indexes the step spans (0: before the first cycle). */
  readonly from: number;
  readonly to: number;
  readonly title: string;
}

export interface ChartArrival {
  /** The point before the first cycle that saw the arrival (the last point when none did). */
  readonly point: number;
  readonly title: string;
}

export interface ChartData {
  readonly caption: string;
  readonly usedLabel: string;
  readonly max: number;
  readonly ticks: readonly ChartLine[];
  readonly nominal: ChartLine;
  readonly borrowing?: ChartLine;
  readonly lending?: ChartLine;
  readonly arrivals: readonly ChartArrival[];
  readonly steps: readonly ChartStep[];
}

const milli = (v: number) => BigInt(Math.round(v * 1000));

/** Round tick steps: 1, 2, 5 × 10^k (cpu, counts) or × 2^k of Mi/Gi (bytes), about four per axis. */
function tickStep(max: number, bytes: boolean): number {
  if (bytes) {
    const unit = max >= 2 * 2 ** 30 ? 2 ** 30 : 2 ** 20;
    let step = 1;
    while ((max / unit) / step > 5) step *= 2;
    return step * unit;
  }
  const raw = max / 4;
  const p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * p).find((x) => x >= raw) ?? 10 * p;
}

function ticksOf(max: number, resource: string): ChartLine[] {
  const step = tickStep(max, isByteResource(resource));
  const out: ChartLine[] = [];
  for (let v = 0; v <= max * (1 + 1e-9) && out.length < 12; v += step) out.push({ value: v, label: describeQuantity(milli(v), resource) });
  return out;
}

/** Names of the workloads of `queues` in a list, at most five. */
function names(list: readonly string[], inSeries: (w: string) => boolean): string {
  const mine = list.filter(inSeries);
  return mine.length > 5 ? `${mine.slice(0, 5).join(', ')} and ${mine.length - 5} more` : mine.join(', ');
}

function stepTitle(s: PlanUsageSeries, trace: readonly PlanCycle[], from: number, to: number, inSeries: (w: string) => boolean): string {
  const [used, nominal] = describeQuantities([milli(s.points[to] ?? 0), milli(s.nominal)], s.resource);
  const at = (i: number) => (i === 0 ? 'before the first cycle' : `cycle ${trace[i - 1].cycle} (after arrival ${trace[i - 1].afterArrival})`);
  const cycles = trace.slice(Math.max(0, from - 1), to);
  const admitted = names(cycles.flatMap((c) => c.candidates.filter((e) => e.result === 'admitted').map((e) => e.workload)), inSeries);
  const released = names(cycles.flatMap((c) => c.released), inSeries);
  return `${from === to ? at(to) : `${at(from)} to ${at(to)}`}: ${s.resource} used ${used} of ${nominal}`
    + `${admitted ? `; admitted ${admitted}` : ''}${released ? `; released ${released}` : ''}`;
}

/** For each arrival, the index of the first cycle that ran after it (the trace's length when none did). */
export function firstCycleAfterArrivals(plan: PlanResult): number[] {
  const n = plan.workloads.reduce((a, w) => Math.max(a, w.arrival + 1), 0);
  const out = new Array<number>(n).fill(plan.trace.length);
  // Cycles run in arrival order: walk both backwards.
  let i = plan.trace.length - 1;
  for (let a = n - 1; a >= 0; a--) {
    out[a] = a + 1 < n ? out[a + 1] : plan.trace.length;
    while (i >= 0 && plan.trace[i].afterArrival >= a) out[a] = i--;
  }
  return out;
}

/**
 * The chart of one series: `members` are the ClusterQueues it covers (its own name, or a cohort's
 * queues), `firstCycle` is firstCycleAfterArrivals(plan).
 */
export function chartOf(s: PlanUsageSeries, plan: PlanResult, members: ReadonlySet<string>, firstCycle: readonly number[]): ChartData {
  const last = s.points[s.points.length - 1] ?? 0;
  let peak = 0;
  for (const p of s.points) if (p > peak) peak = p;
  const max = Math.max(s.nominal, s.borrowingCeiling ?? 0, peak) || 1;
  const [usedText, nominalText, borrowingText, lendingText] = describeQuantities(
    [milli(last), milli(s.nominal), milli(s.borrowingCeiling ?? 0), milli(s.lendingFloor ?? 0)], s.resource);
  const cqOf = new Map(plan.workloads.map((w) => [w.workload, w.clusterQueue]));
  const inSeries = (w: string) => members.has(cqOf.get(w) ?? '');
  const arrivals: ChartArrival[] = plan.workloads.filter((w) => w.clusterQueue && members.has(w.clusterQueue)).map((w) => ({
    point: Math.min(firstCycle[w.arrival] ?? plan.trace.length, s.points.length - 1), title: `arrival ${w.arrival}: ${w.workload} (${w.outcome})`,
  }));
  const per = Math.max(1, Math.ceil(s.points.length / MAX_STEPS));
  const steps: ChartStep[] = [];
  for (let from = 0; from < s.points.length; from += per) {
    const to = Math.min(s.points.length - 1, from + per - 1);
    steps.push({ from, to, title: stepTitle(s, plan.trace, from, to, inSeries) });
  }
  return {
    caption: `${s.kind} ${s.name} \u2014 ${s.resource} (nominal ${nominalText})`, usedLabel: `used ${usedText}`, max,
    ticks: ticksOf(max, s.resource),
    nominal: { value: s.nominal, label: `nominal ${nominalText}` },
    ...(s.borrowingCeiling !== undefined ? { borrowing: { value: s.borrowingCeiling, label: `borrowingLimit: up to ${borrowingText}` } } : {}),
    ...(s.lendingFloor !== undefined ? { lending: { value: s.lendingFloor, label: `lendingLimit: keeps ${lendingText}` } } : {}),
    arrivals, steps,
  };
}
