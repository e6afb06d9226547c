/**
 * Topology-aware placement (Kueue's TASFlavorSnapshot.findTopologyAssignment, pkg/cache/scheduler/tas_flavor_snapshot.go
 * at v0.19.2, the same steps at v0.14.8 and v0.17.0): count how many pods (and slices) fit in each domain, find the
 * level and the domains that hold the PodSet (BestFit, or LeastFreeCapacity for unconstrained requests where
 * TASProfileMixed is on), then descend to the leaves, keeping the number of domains small at every level. A failure is
 * Kueue's own message, with the nodes excluded and why. In the flavor assigner's layer: it reads topology.ts and
 * nothing above it. Pure.
 *
 * Not modelled (the plan says so where a workload would need them): leader/worker PodSet groups (podset-group-name),
 * preferred node affinity (TASRespectNodeAffinityPreferred, Alpha) and balanced placement (TASBalancedPlacement, Alpha).
 */
import { NodeFacts, taintString, Toleration, untoleratedTaint } from '../scheduling';
import type { LeafCount, TasFlavor, TopologyDomain } from './topology';

/** A PodSet's topology request, as Kueue builds it from the template's annotations (jobframework NewPodSetTopologyRequest). */
export interface TopologyRequest {
  readonly required?: string;
  readonly preferred?: string;
  readonly unconstrained?: boolean;
  /** The slice layers, outermost first (podset-slice-required-topology with podset-slice-size, or the constraints annotation). */
  readonly slices: ReadonlyArray<{ readonly topology: string; readonly size: number }>;
}

/** One PodSet's TAS request in one flavor (Kueue's TASPodSetRequests). */
export interface TasPodSetRequest {
  readonly podSet: string;
  readonly count: number;
  /** One pod's requests in Kueue's units, with `pods: 1`. */
  readonly perPod: ReadonlyMap<string, number>;
  /** Undefined when TAS is implied (a ClusterQueue of TAS flavors only) and the template asks nothing. */
  readonly request?: TopologyRequest;
  readonly implied: boolean;
  readonly nodeSelector: Readonly<Record<string, string>>;
  readonly tolerations: readonly Toleration[];
  readonly affinity?: (n: NodeFacts) => boolean;
  /**
   * What identifies the request but its count and implied flag (requests, node selector, tolerations, topology
   * request): equal keys place alike on equal usage, so the result is kept per flavor usage version. Undefined: not kept.
   */
  readonly shapeKey?: string;
}

export interface TasOptions {
  /** Every TAS workload gone (WithSimulateEmpty): whether preemption could ever make room. */
  readonly simulateEmpty: boolean;
  /** TASProfileMixed: unconstrained requests use LeastFreeCapacity (on from 0.15), others BestFit. */
  readonly leastFreeForUnconstrained: boolean;
  /** Usage by leaf id already taken by earlier PodSets of the same workload (assumedUsage). */
  readonly assumed?: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

/** A placement: per leaf the pods, in Kueue's order (by level values); or Kueue's reason it does not fit. */
export type TasResult = { readonly placement: LeafCount[]; readonly reason?: undefined }
  | { readonly placement?: undefined; readonly reason: string };

interface Stats {
  totalNodes: number;
  nodeSelector: number;
  affinity: number;
  taints: Map<string, number>;
  resources: Map<string, number>;
}

/** Per-evaluation state (Kueue's domainState), indexed by domain idx. */
class State {
  readonly podCount: Int32Array;
  readonly sliceCount: Int32Array;
  constructor(n: number) {
    this.podCount = new Int32Array(n);
    this.sliceCount = new Int32Array(n);
  }
}

const MAX_INT32 = 2147483647;

/** Whether the PodSet's request names only levels the flavor's Topology has (HasLevel; without it the flavor is skipped). */
export function hasLevel(flavor: TasFlavor, r: TopologyRequest | undefined): boolean {
  const main = levelKey(flavor, r);
  if (main === undefined) return false;
  if (flavor.levelIndex(main) < 0) return false;
  const slice = r?.slices[0]?.topology ?? flavor.lowestLevel();
  if (flavor.levelIndex(slice) < 0) return false;
  return (r?.slices ?? []).every((s) => flavor.levelIndex(s.topology) >= 0);
}

function isSliceOnly(r: TopologyRequest | undefined): boolean {
  return !!r && r.required === undefined && r.preferred === undefined && r.slices.length > 0;
}

function levelKey(flavor: TasFlavor, r: TopologyRequest | undefined): string | undefined {
  if (!r) return undefined;
  if (r.required !== undefined) return r.required;
  if (r.preferred !== undefined) return r.preferred;
  if (isSliceOnly(r)) return flavor.highestLevel();
  if (r.unconstrained) return flavor.lowestLevel();
  return undefined;
}

/**
 * FindFeasibleNodes, where the leaves are nodes: the leaves whose node has a scheduling taint the pod does not tolerate,
 * or does not match its node selector or required affinity (1), counted by cause in `stats`.
 */
function excludedNodes(flavor: TasFlavor, tr: TasPodSetRequest, stats: Stats): Uint8Array {
  const skip = new Uint8Array(flavor.leaves.length);
  stats.totalNodes = flavor.leaves.length;
  if (!flavor.isLowestLevelNode) return skip;
  const tolerations = [...tr.tolerations, ...flavor.tolerations];
  const selector = Object.entries(tr.nodeSelector);
  for (let i = 0; i < flavor.leaves.length; i++) {
    const node = flavor.leafNodes[i]!;
    const taint = node.taints.length ? untoleratedTaint(node.taints, tolerations) : undefined;
    if (taint) {
      const k = taintString(taint);
      stats.taints.set(k, (stats.taints.get(k) ?? 0) + 1);
      skip[i] = 1;
    } else if (selector.length && selector.some(([k, v]) => node.labels[k] !== v)) {
      stats.nodeSelector++;
      skip[i] = 1;
    } else if (tr.affinity && !tr.affinity(node)) {
      stats.affinity++;
      skip[i] = 1;
    }
  }
  return skip;
}

/**
 * CountInWithLimitingResource on every leaf's remaining capacity (free, less the TAS usage unless `simulateEmpty`, less
 * what earlier PodSets took), into `podCount` by domain idx; a leaf that holds no pod is counted under its limiting
 * resource (ties: by name). `skip[i]` leaves (excluded nodes) are left at 0. The hot loop of TAS: it reads the flavor's
 * per-resource arrays, never a map per leaf.
 */
function countPerLeaf(flavor: TasFlavor, perPod: ReadonlyMap<string, number>, opts: TasOptions, skip: Uint8Array, podCount: Int32Array,
  resources: Map<string, number>): void {
  const names: string[] = [], values: number[] = [], free: Array<Float64Array | undefined> = [], used: Array<Float64Array | undefined> = [];
  for (const [r, v] of perPod) {
    const k = flavor.resourceIndex.get(r);
    names.push(r);
    values.push(v);
    free.push(k === undefined ? undefined : flavor.freeByResource[k]);
    used.push(k === undefined || opts.simulateEmpty ? undefined : flavor.usedByResource[k]);
  }
  const assumed = opts.assumed?.size ? opts.assumed : undefined;
  const n = names.length;
  for (let i = 0; i < flavor.leaves.length; i++) {
    if (skip[i]) continue;
    const taken = assumed?.get(flavor.leaves[i].id);
    let result = -1, limiting = '';
    for (let j = 0; j < n; j++) {
      const v = values[j];
      const f = free[j], u = used[j];
      const capacity = (f ? f[i] : 0) - (u ? u[i] : 0) - (taken?.get(names[j]) ?? 0);
      const count = v === 0 ? MAX_INT32 : Math.max(0, Math.min(Math.floor(capacity / v), MAX_INT32));
      if (result < 0 || count < result || (count === result && names[j] < limiting)) {
        result = count;
        limiting = names[j];
      }
    }
    const c = Math.max(result, 0);
    podCount[flavor.leaves[i].idx] = c;
    if (c === 0 && limiting) resources.set(limiting, (resources.get(limiting) ?? 0) + 1);
  }
}

/**
 * findTopologyAssignment for one PodSet without a leader. A request with a shape key is answered from the flavor's memo
 * when the same shape was placed on the same usage (or, simulating empty nodes, on the same nodes) before: heads of
 * one class ask alike, and a pending head asks again every cycle.
 */
export function findTopologyAssignment(flavor: TasFlavor, tr: TasPodSetRequest, opts: TasOptions): TasResult {
  if (tr.shapeKey === undefined || tr.affinity) return place(flavor, tr, opts);
  let key = `${tr.shapeKey}|${tr.count}|${tr.implied ? 1 : 0}|${opts.leastFreeForUnconstrained ? 1 : 0}`;
  if (opts.assumed?.size) {
    for (const [id, used] of opts.assumed) {
      key += `|${id}`;
      for (const [r, v] of used) key += `,${r}=${v}`;
    }
  }
  let memo = flavor.emptyMemo;
  if (!opts.simulateEmpty) {
    if (flavor.memoVersion !== flavor.version) {
      flavor.memo.clear();
      flavor.memoVersion = flavor.version;
    }
    memo = flavor.memo;
  }
  let result = memo.get(key) as TasResult | undefined;
  if (!result) memo.set(key, result = place(flavor, tr, opts));
  return result;
}

function place(flavor: TasFlavor, tr: TasPodSetRequest, opts: TasOptions): TasResult {
  const r = tr.request;
  const count = tr.count;
  let sliceSize = 1;
  if (r?.slices.length) {
    sliceSize = r.slices[0].size;
    if (sliceSize <= 0) return { reason: 'slice topology requested, but slice size not provided' };
  }
  const required = r?.required !== undefined;
  const unconstrained = !!r?.unconstrained || tr.implied || isSliceOnly(r);
  const key = levelKey(flavor, r) ?? (tr.implied ? flavor.lowestLevel() : undefined);
  if (key === undefined) return { reason: 'topology level not specified' };
  const requestedLevel = flavor.levelIndex(key);
  if (requestedLevel < 0) return { reason: `no requested topology level: ${key}` };
  const sliceKey = r?.slices[0]?.topology ?? flavor.lowestLevel();
  const sliceLevel = flavor.levelIndex(sliceKey);
  if (sliceLevel < 0) return { reason: `no requested topology level for slices: ${sliceKey}` };
  if (requestedLevel > sliceLevel) return { reason: `podset slice topology ${sliceKey} is above the podset topology ${key}` };
  // buildSliceSizeAtLevel: the inner slice layers.
  const sliceSizeAtLevel = new Map<number, number>();
  let prevSize = sliceSize, prevLevel = sliceLevel;
  for (const layer of r?.slices.slice(1) ?? []) {
    const inner = flavor.levelIndex(layer.topology);
    if (inner < 0) return { reason: `no requested topology level for additional slice layer: ${layer.topology}` };
    if (inner <= prevLevel) {
      return { reason: `additional slice layer topology ${layer.topology} must be at a lower level than ${flavor.levelKeys[prevLevel]}` };
    }
    if (prevSize % layer.size !== 0) {
      return { reason: `additional slice layer size ${layer.size} must evenly divide parent layer size ${prevSize}` };
    }
    for (let l = prevLevel + 1; l <= inner; l++) sliceSizeAtLevel.set(l, layer.size);
    prevSize = layer.size;
    prevLevel = inner;
  }
  const leastFree = unconstrained && opts.leastFreeForUnconstrained;
  const st = new State(flavor.domainCount);
  const stats: Stats = { totalNodes: 0, nodeSelector: 0, affinity: 0, taints: new Map(), resources: new Map() };

  // Phase 1: fillInCounts.
  countPerLeaf(flavor, tr.perPod, opts, excludedNodes(flavor, tr, stats), st.podCount, stats.resources);
  for (const root of flavor.roots) fillInCountsHelper(root, sliceSize, sliceLevel, 0, sliceSizeAtLevel, st);

  // Phase 2a: the level and the domains that hold the PodSet.
  const found = findLevelWithFitDomains(flavor, requestedLevel, {
    count, sliceSize, required, unconstrained, leastFree, st, stats, slices: r?.slices ?? [],
  });
  if (typeof found === 'string') return { reason: found };
  const fitLevel = found[0];
  let fit = found[1];
  // Phase 2b: descend, level by level.
  fit = updateCountsToMinimum(fit, count, sliceSize, leastFree, true, st);
  let level = fitLevel;
  const last = flavor.domainsPerLevel.length - 1;
  for (; level < Math.min(last, sliceLevel); level++) {
    fit = updateCountsToMinimum(sortedDomains(flavor, fit.flatMap((d) => d.children), leastFree, st), count, sliceSize, leastFree, true, st);
  }
  for (; level < last; level++) {
    let onLevel = sliceSize;
    if (level >= sliceLevel) onLevel = sliceSizeAtLevel.get(level + 1) ?? 1;
    const next: TopologyDomain[] = [];
    for (const d of fit) {
      const lower = sortedDomains(flavor, d.children, leastFree, st);
      if (onLevel > 1) for (const c of lower) st.sliceCount[c.idx] = Math.floor(st.podCount[c.idx] / onLevel);
      next.push(...updateCountsToMinimum(lower, st.podCount[d.idx], onLevel, leastFree, onLevel > 1, st));
    }
    fit = next;
  }
  // buildAssignment: by level values, pods only.
  fit.sort((a, b) => compareLevelValues(flavor, a, b));
  return { placement: fit.filter((d) => st.podCount[d.idx] > 0).map((d) => ({ leafIdx: d.leafIdx, count: st.podCount[d.idx] })) };
}

function fillInCountsHelper(d: TopologyDomain, sliceSize: number, sliceLevel: number, level: number, sliceSizeAtLevel: ReadonlyMap<number, number>,
  st: State): void {
  if (!d.children.length) {
    if (level === sliceLevel) st.sliceCount[d.idx] = Math.floor(st.podCount[d.idx] / sliceSize);
    return;
  }
  let pods = 0, slices = 0;
  const inner = sliceSizeAtLevel.get(level + 1);
  for (const c of d.children) {
    fillInCountsHelper(c, sliceSize, sliceLevel, level + 1, sliceSizeAtLevel, st);
    pods += inner === undefined ? st.podCount[c.idx] : Math.floor(st.podCount[c.idx] / inner) * inner;
    slices += st.sliceCount[c.idx];
  }
  st.podCount[d.idx] = pods;
  st.sliceCount[d.idx] = level === sliceLevel ? Math.floor(pods / sliceSize) : slices;
}

/** compareDomainLevelValues: lexicographic by level values (the flavor's precomputed rank). */
function compareLevelValues(flavor: TasFlavor, a: TopologyDomain, b: TopologyDomain): number {
  return flavor.rank[a.idx] - flavor.rank[b.idx];
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** sortedDomains: slices (descending; ascending for LeastFreeCapacity), then pods ascending, then level values. */
function sortedDomains(flavor: TasFlavor, domains: readonly TopologyDomain[], leastFree: boolean, st: State): TopologyDomain[] {
  return [...domains].sort((a, b) => {
    const sa = st.sliceCount[a.idx], sb = st.sliceCount[b.idx];
    if (sa !== sb) return leastFree ? sa - sb : sb - sa;
    const pa = st.podCount[a.idx], pb = st.podCount[b.idx];
    if (pa !== pb) return pa - pb;
    return compareLevelValues(flavor, a, b);
  });
}

/** findBestFitDomainBy: the first domain with the smallest count ≥ needed, else the first. */
function bestFit(domains: readonly TopologyDomain[], needed: number, counts: Int32Array): TopologyDomain {
  let best = domains[0], bestCount = MAX_INT32, found = false;
  for (const d of domains) {
    const c = counts[d.idx];
    if (c >= needed && c < bestCount) {
      best = d;
      bestCount = c;
      found = true;
    }
  }
  return found ? best : domains[0];
}

interface FitParams {
  readonly count: number;
  readonly sliceSize: number;
  readonly required: boolean;
  readonly unconstrained: boolean;
  readonly leastFree: boolean;
  readonly st: State;
  readonly stats: Stats;
  readonly slices: TopologyRequest['slices'];
}

function findLevelWithFitDomains(flavor: TasFlavor, levelIdx: number, p: FitParams): [number, TopologyDomain[]] | string {
  const { st } = p;
  const domains = [...flavor.domainsPerLevel[levelIdx].values()];
  if (!domains.length) return `no topology domains at level: ${flavor.levelKeys[levelIdx]}`;
  const sorted = sortedDomains(flavor, domains, p.leastFree, st);
  let top = sorted[0];
  const sliceCount = Math.floor(p.count / p.sliceSize);
  if (!p.leastFree && st.sliceCount[top.idx] >= sliceCount) top = bestFit(sorted, sliceCount, st.sliceCount);
  const notFit = (fitCount: number, total: number): string => (p.slices.length > 1
    ? multiLayerNotFitMessage(flavor, levelIdx, p.count, p.slices, st, p.stats) : notFitMessage(flavor, fitCount, total, p.sliceSize, p.stats));
  if (p.leastFree) {
    for (const d of sorted) if (st.sliceCount[d.idx] >= sliceCount) return [levelIdx, [d]];
    if (p.required) return notFit(st.podCount[sorted[sorted.length - 1].idx], sliceCount);
  }
  if (st.sliceCount[top.idx] < sliceCount) {
    if (p.required) return notFit(st.sliceCount[top.idx], sliceCount);
    if (levelIdx > 0 && !p.unconstrained) return findLevelWithFitDomains(flavor, levelIdx - 1, p);
    const results: TopologyDomain[] = [];
    let remaining = sliceCount;
    const rest = sortedDomains(flavor, sorted, p.leastFree, st);
    for (let i = 0; remaining > 0 && i < rest.length; i++) {
      let d = rest[i];
      if (!p.leastFree && st.sliceCount[d.idx] >= remaining) d = bestFit(rest.slice(i), remaining, st.sliceCount);
      results.push(d);
      remaining -= st.sliceCount[d.idx];
    }
    if (remaining > 0) return notFit(sliceCount - remaining, sliceCount);
    return [levelIdx, results];
  }
  return [levelIdx, [top]];
}

/** updateCountsToMinimumGeneric without leaders: take domains in order until `count` pods (or slices) are placed. */
function updateCountsToMinimum(domains: readonly TopologyDomain[], count: number, sliceSize: number, leastFree: boolean, slices: boolean,
  st: State): TopologyDomain[] {
  const result: TopologyDomain[] = [];
  let remaining = slices ? Math.floor(count / sliceSize) : count;
  const primary = slices ? st.sliceCount : st.podCount;
  for (let i = 0; i < domains.length; i++) {
    let d = domains[i];
    if (!leastFree && primary[d.idx] >= remaining) d = bestFit(domains.slice(i), remaining, primary);
    if (primary[d.idx] >= remaining) {
      if (slices) {
        st.podCount[d.idx] = remaining * sliceSize;
        st.sliceCount[d.idx] = remaining;
      } else {
        st.podCount[d.idx] = remaining;
      }
      result.push(d);
      return result;
    }
    if (slices) st.podCount[d.idx] = st.sliceCount[d.idx] * sliceSize;
    remaining -= primary[d.idx];
    result.push(d);
  }
  // Kueue logs "unexpected remainingCount" and places nothing; the counts of fillInCounts make it unreachable.
  return result;
}

function formatReasons(s: Stats): string {
  const reasons: string[] = [];
  if (s.nodeSelector > 0) reasons.push(`nodeSelector: ${s.nodeSelector}`);
  if (s.affinity > 0) reasons.push(`affinity: ${s.affinity}`);
  for (const [k, v] of s.taints) reasons.push(`taint ${JSON.stringify(k)}: ${v}`);
  for (const [k, v] of s.resources) reasons.push(`resource ${JSON.stringify(k)}: ${v}`);
  // Go's slices.Sort: byte order.
  return reasons.sort(cmp).join(', ');
}

function exclusions(s: Stats): string {
  const any = s.nodeSelector > 0 || s.affinity > 0 || s.taints.size > 0 || s.resources.size > 0;
  return any ? `. Total nodes: ${s.totalNodes}; excluded: ${formatReasons(s)}` : '';
}

/** notFitMessage: Kueue's pending message when the PodSet does not fit. */
function notFitMessage(flavor: TasFlavor, fitCount: number, total: number, sliceSize: number, stats: Stats): string {
  const unit = sliceSize === 1 ? 'pod' : 'slice';
  const head = fitCount === 0 ? `topology "${flavor.topologyName}" doesn't allow to fit any of ${total} ${unit}(s)`
    : `topology "${flavor.topologyName}" allows to fit only ${fitCount} out of ${total} ${unit}(s)`;
  return head + exclusions(stats);
}

function multiLayerNotFitMessage(flavor: TasFlavor, levelIdx: number, count: number, layers: TopologyRequest['slices'], st: State,
  stats: Stats): string {
  let out = `topology "${flavor.topologyName}" doesn't allow to fit`;
  let best: TopologyDomain | undefined;
  for (const d of flavor.domainsPerLevel[levelIdx].values()) {
    if (!best || st.sliceCount[d.idx] > st.sliceCount[best.idx] || (st.sliceCount[d.idx] === st.sliceCount[best.idx] && d.id < best.id)) best = d;
  }
  if (!best) return out;
  for (const c of layers) {
    const target = flavor.levelIndex(c.topology);
    if (target < 0) continue;
    out += `; ${slicesIn(best, levelIdx, target, c.size, st)}/${Math.floor(count / c.size)} slice(s) fit on level ${c.topology}`;
  }
  return out + exclusions(stats);
}

function slicesIn(d: TopologyDomain, level: number, target: number, size: number, st: State): number {
  if (level === target) return Math.floor(st.podCount[d.idx] / size);
  let total = 0;
  for (const c of d.children) total += slicesIn(c, level + 1, target, size, st);
  return total;
}
