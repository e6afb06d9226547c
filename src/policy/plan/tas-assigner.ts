/**
 * Topology-aware placement (Kueue's TASFlavorSnapshot.findTopologyAssignment, pkg/cache/scheduler/tas_flavor_snapshot.go
 * at v0.19.2, the same steps at v0.14.8 and v0.17.0): count how many pods (and slices) fit in each domain, find the
 * level and the domains that hold the PodSet (BestFit, or LeastFreeCapacity for unconstrained requests where
 * TASProfileMixed is on), then descend to the leaves, keeping the number of domains small at every level. A failure is
 * Kueue's own message, with the nodes excluded and why. In the flavor assigner's layer: it reads topology.ts and
 * nothing above it. Pure.
 *
 * A PodSet group (podset-group-name: a leader of one pod with its workers) is placed in one call, as Kueue places it:
 * every domain also counts whether it holds the leader and how many workers fit beside it, and the leader goes where
 * the workers can still fit. How Kueue counts that changed in patch releases (LeaderPlacement).
 *
 * Not modelled: preferred node affinity (TASRespectNodeAffinityPreferred, Alpha) and balanced placement
 * (TASBalancedPlacement, Alpha), both off by default.
 */
import { NodeFacts, taintString, Toleration, untoleratedTaint } from '../scheduling';
import { multiLayerNotFitMessage, notFitMessage, Stats } from './tas-messages';
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
  /**
   * The leader of a PodSet group (findLeaderAndWorkers: the PodSet of one pod): placed with these workers, under their
   * topology request, node selector and tolerations (Kueue reads the workers' for both).
   */
  readonly leader?: { readonly podSet: string; readonly perPod: ReadonlyMap<string, number> };
}

/**
 * How Kueue counts a domain's room for a leader with its workers, by release:
 * - `first` (to v0.17.1, v0.18.0-v0.18.5 aside): a parent's room with the leader is its room less the smallest loss
 *   of any child, whether that child holds the leader or not;
 * - `contributors` (v0.17.2): only children that hold the leader count (fillInCountsHelper's
 *   hasWithLeaderCapacityContributor);
 * - `prioritized` (v0.18.6, v0.19.2): as `contributors`, and BestFit skips domains that cannot hold the leader,
 *   LeastFreeCapacity reads the room with the leader, and a domain that holds the leader without leaving the workers
 *   short goes first (prioritizeLeaderDomain).
 */
export type LeaderPlacement = 'first' | 'contributors' | 'prioritized';

export interface TasOptions {
  /** Every TAS workload gone (WithSimulateEmpty): whether preemption could ever make room. */
  readonly simulateEmpty: boolean;
  /** TASProfileMixed: unconstrained requests use LeastFreeCapacity (on from 0.15), others BestFit. */
  readonly leastFreeForUnconstrained: boolean;
  /** Usage by leaf id already taken by earlier PodSets of the same workload (assumedUsage). */
  readonly assumed?: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** How the release places a leader with its workers. @default 'prioritized' (v0.19.2) */
  readonly leaderPlacement?: LeaderPlacement;
}

/**
 * A placement: per leaf the pods, in Kueue's order (by level values), and the leader's leaf for a group; or Kueue's
 * reason it does not fit.
 */
export type TasResult = { readonly placement: LeafCount[]; readonly leader?: LeafCount[]; readonly reason?: undefined }
  | { readonly placement?: undefined; readonly leader?: undefined; readonly reason: string };


/**
 * Per-evaluation state (Kueue's domainState), indexed by domain idx. Without a leader, the counts "with the leader" are
 * the counts and `leaderCount` is 0, so every step below reads as Kueue's without one.
 */
class State {
  readonly podCount: Int32Array;
  readonly sliceCount: Int32Array;
  readonly podCountWithLeader: Int32Array;
  readonly sliceCountWithLeader: Int32Array;
  readonly leaderCount: Int32Array;
  constructor(n: number, readonly leaderPlacement: LeaderPlacement) {
    this.podCount = new Int32Array(n);
    this.sliceCount = new Int32Array(n);
    this.podCountWithLeader = new Int32Array(n);
    this.sliceCountWithLeader = new Int32Array(n);
    this.leaderCount = new Int32Array(n);
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
 * resource (ties: by name). With a leader (fillLeafCounts): `leaderCount` is 1 where the leader fits, and
 * `podCountWithLeader` counts the workers in what it leaves; without, it is `podCount`. `skip[i]` leaves (excluded
 * nodes) are left at 0. The hot loop of TAS: it reads the flavor's per-resource arrays, never a map per leaf.
 */
function countPerLeaf(flavor: TasFlavor, tr: TasPodSetRequest, opts: TasOptions, skip: Uint8Array, st: State, resources: Map<string, number>): void {
  // The workers' resources first (their order decides the limiting one), then the leader's others.
  const names: string[] = [], values: number[] = [], leaderValues: number[] = [];
  const free: Array<Float64Array | undefined> = [], used: Array<Float64Array | undefined> = [];
  const add = (r: string, v: number, leaderV: number) => {
    const k = flavor.resourceIndex.get(r);
    names.push(r);
    values.push(v);
    leaderValues.push(leaderV);
    free.push(k === undefined ? undefined : flavor.freeByResource[k]);
    used.push(k === undefined || opts.simulateEmpty ? undefined : flavor.usedByResource[k]);
  };
  const leader = tr.leader?.perPod;
  for (const [r, v] of tr.perPod) add(r, v, leader?.get(r) ?? 0);
  const nWorker = names.length;
  if (leader) for (const [r, v] of leader) if (!tr.perPod.has(r)) add(r, -1, v);
  const assumed = opts.assumed?.size ? opts.assumed : undefined;
  const n = names.length;
  const capacity = new Float64Array(n);
  for (let i = 0; i < flavor.leaves.length; i++) {
    if (skip[i]) continue;
    const taken = assumed?.get(flavor.leaves[i].id);
    let result = -1, limiting = '';
    for (let j = 0; j < n; j++) {
      const f = free[j], u = used[j];
      capacity[j] = (f ? f[i] : 0) - (u ? u[i] : 0) - (taken?.get(names[j]) ?? 0);
      if (j >= nWorker) continue;
      const count = countIn(capacity[j], values[j]);
      if (result < 0 || count < result || (count === result && names[j] < limiting)) {
        result = count;
        limiting = names[j];
      }
    }
    const c = Math.max(result, 0);
    const idx = flavor.leaves[i].idx;
    st.podCount[idx] = c;
    if (c === 0 && limiting) resources.set(limiting, (resources.get(limiting) ?? 0) + 1);
    if (!leader) {
      st.podCountWithLeader[idx] = c;
      continue;
    }
    let leaderFits = true;
    for (let j = 0; j < n; j++) if (countIn(capacity[j], leaderValues[j]) === 0) leaderFits = false;
    st.leaderCount[idx] = leaderFits ? 1 : 0;
    let withLeader = -1;
    for (let j = 0; j < nWorker; j++) {
      const count = countIn(capacity[j] - (leaderFits ? leaderValues[j] : 0), values[j]);
      if (withLeader < 0 || count < withLeader) withLeader = count;
    }
    st.podCountWithLeader[idx] = Math.max(withLeader, 0);
  }
}

/** How many pods of `v` fit in `capacity` (a resource a pod does not ask for holds any number). */
function countIn(capacity: number, v: number): number {
  return v <= 0 ? MAX_INT32 : Math.max(0, Math.min(Math.floor(capacity / v), MAX_INT32));
}

/**
 * findTopologyAssignment for one PodSet, or a group's workers with their leader. A request with a shape key is answered
 * from the flavor's memo when the same shape was placed on the same usage (or, simulating empty nodes, on the same
 * nodes) before: heads of one class ask alike, and a pending head asks again every cycle.
 */
export function findTopologyAssignment(flavor: TasFlavor, tr: TasPodSetRequest, opts: TasOptions): TasResult {
  if (tr.shapeKey === undefined || tr.affinity) return place(flavor, tr, opts);
  let key = `${tr.shapeKey}|${tr.count}|${tr.implied ? 1 : 0}|${opts.leastFreeForUnconstrained ? 1 : 0}`;
  if (tr.leader) key += `|leader ${[...tr.leader.perPod].join(';')}|${opts.leaderPlacement ?? 'prioritized'}`;
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
  // PodSet grouping validation requires the leader PodSet to have one replica.
  const leaders = tr.leader ? 1 : 0;
  const st = new State(flavor.domainCount, opts.leaderPlacement ?? 'prioritized');
  const stats: Stats = { totalNodes: 0, nodeSelector: 0, affinity: 0, taints: new Map(), resources: new Map() };

  // Phase 1: fillInCounts.
  countPerLeaf(flavor, tr, opts, excludedNodes(flavor, tr, stats), st, stats.resources);
  for (const root of flavor.roots) fillInCountsHelper(root, sliceSize, sliceLevel, 0, sliceSizeAtLevel, leaders > 0, st);

  // Phase 2a: the level and the domains that hold the PodSet.
  const found = findLevelWithFitDomains(flavor, requestedLevel, {
    count, leaders, sliceSize, required, unconstrained, leastFree, st, stats, slices: r?.slices ?? [],
  });
  if (typeof found === 'string') return { reason: found };
  const fitLevel = found[0];
  let fit = found[1];
  // Phase 2b: descend, level by level.
  fit = updateCountsToMinimum(fit, count, leaders, sliceSize, leastFree, true, st);
  let level = fitLevel;
  const last = flavor.domainsPerLevel.length - 1;
  for (; level < Math.min(last, sliceLevel); level++) {
    fit = updateCountsToMinimum(sortedDomains(flavor, fit.flatMap((d) => d.children), leastFree, st), count, leaders, sliceSize, leastFree, true, st);
  }
  for (; level < last; level++) {
    let onLevel = sliceSize;
    if (level >= sliceLevel) onLevel = sliceSizeAtLevel.get(level + 1) ?? 1;
    const next: TopologyDomain[] = [];
    for (const d of fit) {
      const lower = sortedDomains(flavor, d.children, leastFree, st);
      if (onLevel > 1) {
        for (const c of lower) {
          st.sliceCount[c.idx] = Math.floor(st.podCount[c.idx] / onLevel);
          st.sliceCountWithLeader[c.idx] = Math.floor(st.podCountWithLeader[c.idx] / onLevel);
        }
      }
      next.push(...updateCountsToMinimum(lower, st.podCount[d.idx], st.leaderCount[d.idx], onLevel, leastFree, onLevel > 1, st));
    }
    fit = next;
  }
  // buildAssignment: by level values, pods only; the leader where a domain kept it.
  fit.sort((a, b) => compareLevelValues(flavor, a, b));
  const placement = fit.filter((d) => st.podCount[d.idx] > 0).map((d) => ({ leafIdx: d.leafIdx, count: st.podCount[d.idx] }));
  if (!leaders) return { placement };
  return { placement, leader: fit.filter((d) => st.leaderCount[d.idx] > 0).map((d) => ({ leafIdx: d.leafIdx, count: st.leaderCount[d.idx] })) };
}

/**
 * fillInCountsHelper: a parent's counts from its children's. With the leader it holds as many pods as its children
 * less the smallest loss of one child that holds the leader (any child before `contributors`).
 */
function fillInCountsHelper(d: TopologyDomain, sliceSize: number, sliceLevel: number, level: number, sliceSizeAtLevel: ReadonlyMap<number, number>,
  leaderRequired: boolean, st: State): void {
  if (!d.children.length) {
    if (level === sliceLevel) {
      st.sliceCount[d.idx] = Math.floor(st.podCount[d.idx] / sliceSize);
      st.sliceCountWithLeader[d.idx] = Math.floor(st.podCountWithLeader[d.idx] / sliceSize);
    }
    return;
  }
  let pods = 0, slices = 0, leader = 0;
  let contributor = false, minPodLoss = MAX_INT32, minSliceLoss = MAX_INT32;
  const everyChild = !leaderRequired || st.leaderPlacement === 'first';
  const inner = sliceSizeAtLevel.get(level + 1);
  for (const c of d.children) {
    fillInCountsHelper(c, sliceSize, sliceLevel, level + 1, sliceSizeAtLevel, leaderRequired, st);
    const childPods = inner === undefined ? st.podCount[c.idx] : Math.floor(st.podCount[c.idx] / inner) * inner;
    const childWithLeader = inner === undefined ? st.podCountWithLeader[c.idx] : Math.floor(st.podCountWithLeader[c.idx] / inner) * inner;
    pods += childPods;
    slices += st.sliceCount[c.idx];
    if (everyChild || st.leaderCount[c.idx] > 0) {
      contributor = true;
      minPodLoss = Math.min(childPods - childWithLeader, minPodLoss);
      minSliceLoss = Math.min(st.sliceCount[c.idx] - st.sliceCountWithLeader[c.idx], minSliceLoss);
    }
    leader = Math.max(st.leaderCount[c.idx], leader);
  }
  st.podCount[d.idx] = pods;
  let slicesWithLeader = 0;
  st.podCountWithLeader[d.idx] = contributor ? pods - minPodLoss : 0;
  if (contributor) slicesWithLeader = slices - minSliceLoss;
  st.leaderCount[d.idx] = leader;
  if (level === sliceLevel) {
    slices = Math.floor(pods / sliceSize);
    slicesWithLeader = Math.floor(st.podCountWithLeader[d.idx] / sliceSize);
  }
  st.sliceCount[d.idx] = slices;
  st.sliceCountWithLeader[d.idx] = slicesWithLeader;
}

/** compareDomainLevelValues: lexicographic by level values (the flavor's precomputed rank). */
function compareLevelValues(flavor: TasFlavor, a: TopologyDomain, b: TopologyDomain): number {
  return flavor.rank[a.idx] - flavor.rank[b.idx];
}

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

/** sortedDomainsWithLeader: leaders held (descending), then as sortedDomains on the counts with the leader. */
function sortedDomainsWithLeader(flavor: TasFlavor, domains: readonly TopologyDomain[], leastFree: boolean, st: State): TopologyDomain[] {
  return [...domains].sort((a, b) => {
    const la = st.leaderCount[a.idx], lb = st.leaderCount[b.idx];
    if (la !== lb) return lb - la;
    const sa = st.sliceCountWithLeader[a.idx], sb = st.sliceCountWithLeader[b.idx];
    if (sa !== sb) return leastFree ? sa - sb : sb - sa;
    const pa = st.podCountWithLeader[a.idx], pb = st.podCountWithLeader[b.idx];
    if (pa !== pb) return pa - pb;
    return compareLevelValues(flavor, a, b);
  });
}

/**
 * findBestFitDomainBy: the first domain with the smallest count ≥ needed, else the first. From `prioritized`, a
 * domain that cannot hold the `leaders` still to place is passed over. Callers ask only when the first one fits.
 */
function bestFit(domains: readonly TopologyDomain[], needed: number, counts: Int32Array, leaders: number, st: State): TopologyDomain {
  const skipLeaderless = leaders > 0 && st.leaderPlacement === 'prioritized';
  let best = domains[0], bestCount = MAX_INT32, found = false;
  for (const d of domains) {
    if (skipLeaderless && st.leaderCount[d.idx] < leaders) continue;
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
  /** Leaders to place with the pods (0 or 1). */
  readonly leaders: number;
  readonly sliceSize: number;
  readonly required: boolean;
  readonly unconstrained: boolean;
  readonly leastFree: boolean;
  readonly st: State;
  readonly stats: Stats;
  readonly slices: TopologyRequest['slices'];
}

function findLevelWithFitDomains(flavor: TasFlavor, levelIdx: number, p: FitParams): [number, TopologyDomain[]] | string {
  const { st, leaders } = p;
  const domains = [...flavor.domainsPerLevel[levelIdx].values()];
  if (!domains.length) return `no topology domains at level: ${flavor.levelKeys[levelIdx]}`;
  let sorted = sortedDomainsWithLeader(flavor, domains, p.leastFree, st);
  let top = sorted[0];
  const sliceCount = Math.floor(p.count / p.sliceSize);
  // findBestFitDomainForSlices: the counts with the leader when one is to be placed.
  const slicesFor = (l: number) => (l > 0 ? st.sliceCountWithLeader : st.sliceCount);
  if (!p.leastFree && st.sliceCountWithLeader[top.idx] >= sliceCount && st.leaderCount[top.idx] >= leaders) {
    top = bestFit(sorted, sliceCount, slicesFor(leaders), leaders, st);
  }
  const notFit = (fitCount: number, total: number): string => (p.slices.length > 1
    ? multiLayerNotFitMessage(flavor, levelIdx, p.count, p.slices, st, p.stats) : notFitMessage(flavor, fitCount, total, p.sliceSize, p.stats));
  if (p.leastFree) {
    const withLeader = leaders > 0 && st.leaderPlacement === 'prioritized';
    for (const d of sorted) {
      if (withLeader && st.leaderCount[d.idx] < leaders) continue;
      if ((withLeader ? st.sliceCountWithLeader : st.sliceCount)[d.idx] >= sliceCount) return [levelIdx, [d]];
    }
    if (p.required) return notFit(st.podCount[sorted[sorted.length - 1].idx], sliceCount);
  }
  if (st.sliceCountWithLeader[top.idx] < sliceCount || st.leaderCount[top.idx] < leaders) {
    if (p.required) return notFit(st.sliceCount[top.idx], sliceCount);
    if (levelIdx > 0 && !p.unconstrained) return findLevelWithFitDomains(flavor, levelIdx - 1, p);
    const results: TopologyDomain[] = [];
    let remaining = sliceCount;
    let remainingLeaders = leaders;
    if (st.leaderPlacement === 'prioritized') sorted = prioritizeLeaderDomain(sorted, p.count, leaders, p.sliceSize, true, st);
    // The leaders first, from domains that hold one; then the workers by their own counts.
    let i = 0;
    for (; remainingLeaders > 0 && i < sorted.length && st.leaderCount[sorted[i].idx] > 0; i++) {
      let d = sorted[i];
      if (!p.leastFree && st.sliceCountWithLeader[d.idx] >= remaining) {
        d = bestFit(sorted.slice(i), remaining, slicesFor(remainingLeaders), remainingLeaders, st);
      }
      results.push(d);
      remainingLeaders -= st.leaderCount[d.idx];
      remaining -= st.sliceCountWithLeader[d.idx];
    }
    if (remainingLeaders > 0) return notFit(leaders - remainingLeaders, sliceCount);
    const rest = sortedDomains(flavor, sorted.slice(i), p.leastFree, st);
    for (let k = 0; remaining > 0 && k < rest.length; k++) {
      let d = rest[k];
      if (!p.leastFree && st.sliceCount[d.idx] >= remaining) d = bestFit(rest.slice(k), remaining, st.sliceCount, 0, st);
      results.push(d);
      remaining -= st.sliceCount[d.idx];
    }
    if (remaining > 0) return notFit(sliceCount - remaining, sliceCount);
    return [levelIdx, results];
  }
  return [levelIdx, [top]];
}

/**
 * prioritizeLeaderDomain (`prioritized`): the first domain that holds the leaders and whose loss of room for them still
 * leaves the workers enough across the domains goes first.
 */
function prioritizeLeaderDomain(domains: TopologyDomain[], count: number, leaders: number, sliceSize: number, slices: boolean, st: State)
  : TopologyDomain[] {
  if (leaders === 0 || domains.length < 2) return domains;
  const required = slices ? Math.floor(count / sliceSize) : count;
  const primary = slices ? st.sliceCount : st.podCount, withLeader = slices ? st.sliceCountWithLeader : st.podCountWithLeader;
  let available = 0;
  for (const d of domains) available += primary[d.idx];
  for (let i = 0; i < domains.length; i++) {
    const d = domains[i];
    if (st.leaderCount[d.idx] < leaders) continue;
    if (available - (primary[d.idx] - withLeader[d.idx]) < required) continue;
    return i === 0 ? domains : [d, ...domains.slice(0, i), ...domains.slice(i + 1)];
  }
  return domains;
}

/**
 * updateCountsToMinimumGeneric: take domains in order until `count` pods (or slices) and the `leaders` are placed; the
 * leaders first (consumeWithLeadersGeneric), each domain then giving the workers its room beside the leader.
 */
function updateCountsToMinimum(domains: TopologyDomain[], count: number, leaders: number, sliceSize: number, leastFree: boolean, slices: boolean,
  st: State): TopologyDomain[] {
  if (st.leaderPlacement === 'prioritized') domains = prioritizeLeaderDomain(domains, count, leaders, sliceSize, slices, st);
  const result: TopologyDomain[] = [];
  let remaining = slices ? Math.floor(count / sliceSize) : count;
  let remainingLeaders = leaders;
  const primary = slices ? st.sliceCount : st.podCount;
  const withLeader = slices ? st.sliceCountWithLeader : st.podCountWithLeader;
  const unit = slices ? sliceSize : 1;
  for (let i = 0; i < domains.length; i++) {
    let d = domains[i];
    if (remainingLeaders > 0) {
      if (!leastFree && withLeader[d.idx] >= remaining && st.leaderCount[d.idx] >= remainingLeaders) {
        d = bestFit(domains.slice(i), remaining, withLeader, remainingLeaders, st);
      }
      if (withLeader[d.idx] >= remaining && st.leaderCount[d.idx] >= remainingLeaders) {
        primary[d.idx] = remaining;
        st.leaderCount[d.idx] = remainingLeaders;
        st.podCount[d.idx] = remaining * unit;
        result.push(d);
        return result;
      }
      if (withLeader[d.idx] > remaining) withLeader[d.idx] = remaining;
      if (st.leaderCount[d.idx] > remainingLeaders) st.leaderCount[d.idx] = remainingLeaders;
      primary[d.idx] = withLeader[d.idx];
      st.podCount[d.idx] = withLeader[d.idx] * unit;
      remainingLeaders -= st.leaderCount[d.idx];
      remaining -= withLeader[d.idx];
      result.push(d);
      continue;
    }
    if (!leastFree && primary[d.idx] >= remaining) d = bestFit(domains.slice(i), remaining, primary, 0, st);
    st.leaderCount[d.idx] = 0;
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
  // Kueue logs "unexpected remainingCount" and places nothing: with a leader, where a parent's room with the leader
  // overstates what its children hold (`first`), the workload is then admitted with empty topology assignments.
  return [];
}
