/**
 * Topology-aware scheduling's view of the nodes (Kueue's pkg/cache/scheduler tas_topology_tree.go, tas_flavor.go and
 * tas_nodes_cache.go): per TAS ResourceFlavor, the tree of topology domains built from its Topology's levels and the
 * nodes that serve it, each leaf's free capacity (allocatable minus the requests of the non-TAS pods bound to it) and
 * the TAS usage of the admitted workloads. The TAS assigner (tas-assigner.ts) places pods on it. Part of the
 * snapshot's layer: it imports none of the assigner, the preemptor or the cycle. Pure.
 */
import { isRecord, listOf, stringOf } from '../json';
import { podRequests } from '../gang';
import { kueueMilliPerUnit, parseResourceList, ResourceMap } from '../quantity';
import { Taint, taintsOf, Toleration, tolerationsOf } from '../scheduling';

/** Kubernetes' hostname label: a Topology whose lowest level is it has one leaf per node. */
export const HOSTNAME_LABEL = 'kubernetes.io/hostname';
/** The label Kueue puts on the pods it places by TAS (utiltas.IsTAS): their usage is the admitted workloads'. */
export const TAS_POD_LABEL = 'kueue.x-k8s.io/tas';

/** A node as TAS reads it (the stripped node of tas_nodes_cache.go). */
export interface TasNode {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
  /** In Kueue's units (kueueUnits). */
  readonly allocatable: ReadonlyMap<string, number>;
}

/** A resource quantity in Kueue's units (kueueMilliPerUnit), rounded up as resource.Quantity's Value. */
export function kueueUnits(resource: string, milli: bigint): number {
  const per = kueueMilliPerUnit(resource);
  return Number(milli / per + (milli % per > 0n ? 1n : 0n));
}

export function kueueRequests(map: ResourceMap): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of map) out.set(k, kueueUnits(k, v));
  return out;
}

function isConditionTrue(node: Record<string, unknown>, type: string): boolean {
  const status = isRecord(node.status) ? node.status : {};
  return listOf(status.conditions).some((c) => isRecord(c) && c.type === type && c.status === 'True');
}

/**
 * The nodes Kueue's TAS cache keeps (nodesCache.sync): Ready and not unschedulable. A node whose allocatable does not
 * parse is left out, with the reason in `skipped`.
 */
export function tasNodesOf(objects: readonly unknown[], skipped: string[]): TasNode[] {
  const out: TasNode[] = [];
  for (const o of objects) {
    if (!isRecord(o) || o.kind !== 'Node' || !isRecord(o.metadata)) continue;
    const name = stringOf(o.metadata.name);
    if (!name) continue;
    const spec = isRecord(o.spec) ? o.spec : {};
    if (spec.unschedulable === true || !isConditionTrue(o, 'Ready')) continue;
    const labels: Record<string, string> = {};
    if (isRecord(o.metadata.labels)) for (const [k, v] of Object.entries(o.metadata.labels)) if (typeof v === 'string') labels[k] = v;
    let allocatable: ResourceMap;
    try {
      const status = isRecord(o.status) ? o.status : {};
      allocatable = parseResourceList(isRecord(status.allocatable) ? status.allocatable : undefined, `Node ${name}: status.allocatable`);
    } catch (e) {
      skipped.push(`${(e as Error).message}; the node is left out of topology-aware scheduling`);
      continue;
    }
    out.push({ name, labels, taints: taintsOf(spec.taints), allocatable: kueueRequests(allocatable) });
  }
  return out;
}

/** A pod bound to a node that Kueue counts as non-TAS usage (belongsToNonTASCache): its node and its requests. */
export interface BoundPod {
  readonly node: string;
  readonly requests: ReadonlyMap<string, number>;
}

/** The pods of `objects` that Kueue counts as non-TAS usage; a pod whose requests do not parse is left out, with the reason in `skipped`. */
export function boundPodsOf(objects: readonly unknown[], skipped: string[]): BoundPod[] {
  const out: BoundPod[] = [];
  for (const o of objects) {
    if (!isRecord(o) || o.kind !== 'Pod' || !isRecord(o.spec)) continue;
    const node = stringOf(o.spec.nodeName);
    if (!node) continue;
    const phase = isRecord(o.status) ? o.status.phase : undefined;
    if (phase === 'Succeeded' || phase === 'Failed') continue;
    const meta = isRecord(o.metadata) ? o.metadata : {};
    if (isRecord(meta.labels) && Object.prototype.hasOwnProperty.call(meta.labels, TAS_POD_LABEL)) continue;
    try {
      const requests = kueueRequests(podRequests(o.spec, `Pod ${stringOf(meta.namespace) ?? ''}/${stringOf(meta.name) ?? ''}: spec`));
      // Each pod also takes one of the node's pods (tas_non_tas_pod_cache.go addNodeUsage: OnePodRequest).
      requests.set('pods', (requests.get('pods') ?? 0) + 1);
      out.push({ node, requests });
    } catch (e) {
      skipped.push(`${(e as Error).message}; the pod's requests are not taken off its node`);
    }
  }
  return out;
}

export interface TopologyDomain {
  /** Index into the per-evaluation state arrays. */
  readonly idx: number;
  /** Kueue's TopologyDomainID: the level values joined by ",", or the hostname alone for a hostname leaf. */
  readonly id: string;
  readonly levelValues: readonly string[];
  readonly parent?: TopologyDomain;
  readonly children: TopologyDomain[];
  /** Set on a leaf: its index into the leaf arrays. */
  readonly leafIdx: number;
}

/** Where a PodSet's pods go: per leaf, how many. */
export interface LeafCount {
  readonly leafIdx: number;
  readonly count: number;
}

/**
 * The TAS usage by leaf id: one flavor's, or shared by the hostname-level flavors whose usage Kueue aggregates
 * (TASHandleOverlappingFlavors). Each member flavor keeps the same figures in its per-resource arrays.
 */
export class TasUsageStore {
  readonly byId = new Map<string, Map<string, number>>();
  readonly members: TasFlavor[] = [];

  add(id: string, perPod: ReadonlyMap<string, number>, times: number): void {
    let used = this.byId.get(id);
    if (!used) this.byId.set(id, used = new Map<string, number>());
    for (const [r, v] of perPod) used.set(r, (used.get(r) ?? 0) + v * times);
    for (const f of this.members) f.usageChanged(id, perPod, times);
  }
}

export class TasFlavor {
  readonly levelKeys: readonly string[];
  readonly isLowestLevelNode: boolean;
  readonly leaves: TopologyDomain[] = [];
  /** The node of each leaf (hostname leaves only). */
  readonly leafNodes: Array<TasNode | undefined> = [];
  readonly domainsPerLevel: Array<Map<string, TopologyDomain>>;
  readonly roots: TopologyDomain[] = [];
  readonly domainCount: number;
  /** How many nodes serve the flavor (the tree's nodes). */
  readonly nodeCount: number;
  /** Each leaf's index by its id (the hostname, or the level values joined by ","). */
  readonly leafById = new Map<string, number>();
  /** The resources the nodes have, each with its index into the per-resource arrays. */
  readonly resourceIndex = new Map<string, number>();
  /** Per resource (index), per leaf: the free capacity, and the TAS usage (the hot loop reads these, not the maps). */
  readonly freeByResource: Float64Array[] = [];
  readonly usedByResource: Float64Array[] = [];
  /** Each domain's place in Kueue's order by level values (compareDomainLevelValues), by domain idx. */
  readonly rank: Int32Array;
  /** Bumped by every change of the TAS usage on this flavor's leaves: placements computed in one version hold in it. */
  version = 0;
  /** The TAS assigner's placements by request shape, for `memoVersion`; and those on the empty nodes (any version). */
  readonly memo = new Map<string, unknown>();
  memoVersion = -1;
  readonly emptyMemo = new Map<string, unknown>();

  constructor(
    readonly name: string,
    readonly topologyName: string,
    levels: readonly string[],
    readonly tolerations: readonly Toleration[],
    nodes: readonly TasNode[],
    boundPods: readonly BoundPod[],
    /** TAS usage by leaf id: the flavor's own, or shared across flavors (TASHandleOverlappingFlavors). */
    readonly usage: TasUsageStore,
  ) {
    this.levelKeys = levels;
    this.isLowestLevelNode = levels.length > 0 && levels[levels.length - 1] === HOSTNAME_LABEL;
    this.domainsPerLevel = levels.map(() => new Map<string, TopologyDomain>());
    const byId = this.leafById;
    const nodeLeaf = new Map<string, number>();
    const leafValues: string[][] = [];
    // Each leaf's capacity less the non-TAS pods' requests, by resource (kept as the per-resource arrays below).
    const frees: Array<Map<string, number>> = [];
    for (const node of nodes) {
      const values = levels.map((l) => node.labels[l] ?? '');
      const id = this.isLowestLevelNode ? values[values.length - 1] : values.join(',');
      let leafIdx = byId.get(id);
      if (leafIdx === undefined) {
        leafIdx = leafValues.length;
        byId.set(id, leafIdx);
        leafValues.push(values);
        this.leafNodes.push(this.isLowestLevelNode ? node : undefined);
        frees.push(new Map());
      }
      nodeLeaf.set(node.name, leafIdx);
      const free = frees[leafIdx];
      for (const [r, v] of node.allocatable) free.set(r, (free.get(r) ?? 0) + v);
    }
    this.nodeCount = nodes.length;
    for (const p of boundPods) {
      const leafIdx = nodeLeaf.get(p.node);
      if (leafIdx === undefined) continue;
      const free = frees[leafIdx];
      for (const [r, v] of p.requests) free.set(r, (free.get(r) ?? 0) - v);
    }
    this.domainCount = this.buildTree(leafValues);
    this.rank = this.rankDomains();
    for (const free of frees) for (const r of free.keys()) if (!this.resourceIndex.has(r)) this.resourceIndex.set(r, this.resourceIndex.size);
    for (const [r, k] of this.resourceIndex) {
      this.freeByResource[k] = Float64Array.from(frees, (m) => m.get(r) ?? 0);
      this.usedByResource[k] = new Float64Array(frees.length);
    }
    usage.members.push(this);
    for (const [id, used] of usage.byId) this.usageChanged(id, used, 1);
  }

  /** The tree, leaves first, then their ancestors (initialize / initializeHelper); the number of domains. */
  private buildTree(leafValues: readonly string[][]): number {
    let idx = 0;
    const depth = this.levelKeys.length;
    for (let i = 0; i < leafValues.length; i++) {
      const values = leafValues[i];
      const id = this.isLowestLevelNode ? values[depth - 1] : values.join(',');
      const leaf: TopologyDomain = { idx: idx++, id, levelValues: values, children: [], leafIdx: i };
      this.leaves.push(leaf);
      this.domainsPerLevel[depth - 1].set(id, leaf);
      let child = leaf;
      for (let level = depth - 2; level >= 0; level--) {
        const pv = values.slice(0, level + 1);
        const pid = pv.join(',');
        let parent = this.domainsPerLevel[level].get(pid);
        const created = !parent;
        if (!parent) {
          parent = { idx: idx++, id: pid, levelValues: pv, children: [], leafIdx: -1 };
          this.domainsPerLevel[level].set(pid, parent);
        }
        (child as { parent?: TopologyDomain }).parent = parent;
        parent.children.push(child);
        if (!created) break;
        child = parent;
      }
    }
    if (depth > 0) this.roots.push(...this.domainsPerLevel[0].values());
    return idx;
  }

  /**
   * Each domain's place by level values, lexicographic; siblings of a hostname level compare by hostname alone, which
   * the full values give too (their prefixes are equal).
   */
  private rankDomains(): Int32Array {
    const all = this.domainsPerLevel.flatMap((m) => [...m.values()]);
    all.sort((a, b) => {
      const n = Math.min(a.levelValues.length, b.levelValues.length);
      for (let i = 0; i < n; i++) if (a.levelValues[i] !== b.levelValues[i]) return a.levelValues[i] < b.levelValues[i] ? -1 : 1;
      return a.levelValues.length - b.levelValues.length;
    });
    const rank = new Int32Array(this.domainCount);
    all.forEach((d, i) => { rank[d.idx] = i; });
    return rank;
  }

  /** The usage store changed on leaf `id` by `times` × `perPod`: the per-resource arrays follow. */
  usageChanged(id: string, perPod: ReadonlyMap<string, number>, times: number): void {
    const leafIdx = this.leafById.get(id);
    if (leafIdx === undefined) return;
    this.version++;
    for (const [r, v] of perPod) {
      const k = this.resourceIndex.get(r);
      if (k !== undefined) this.usedByResource[k][leafIdx] += v * times;
    }
  }

  lowestLevel(): string {
    return this.levelKeys[this.levelKeys.length - 1];
  }

  highestLevel(): string {
    return this.levelKeys[0];
  }

  levelIndex(key: string): number {
    return this.levelKeys.indexOf(key);
  }

  /** Whether `count` pods of `perPod` fit on a leaf's free capacity less its TAS usage (a resource the nodes lack: none). */
  holds(leafIdx: number, perPod: ReadonlyMap<string, number>, count: number): boolean {
    for (const [r, v] of perPod) {
      if (v <= 0) continue;
      const k = this.resourceIndex.get(r);
      const capacity = k === undefined ? 0 : this.freeByResource[k][leafIdx] - this.usedByResource[k][leafIdx];
      if (Math.floor(capacity / v) < count) return false;
    }
    return true;
  }

  /** Adds (sign 1) or removes (-1) `count` pods of `perPod` (which holds the `pods` resource) on a leaf. */
  addUsage(leafIdx: number, perPod: ReadonlyMap<string, number>, count: number, sign: number): void {
    this.usage.add(this.leaves[leafIdx].id, perPod, sign * count);
  }
}

/**
 * A Workload's status.admission.podSetAssignments[].topologyAssignment as levels and domains: v1beta1 lists the
 * domains; v1beta2 encodes them in slices (per level a universal value or prefix + roots + suffix, pod counts universal
 * or per domain: util/tas/tas_assignment.go valueAtIndex, countAtIndex). Undefined when absent or malformed.
 */
export function topologyAssignmentOf(ta: unknown): { levels: string[]; domains: Array<{ values: string[]; count: number }> } | undefined {
  if (!isRecord(ta)) return undefined;
  const levels = listOf(ta.levels).filter((l): l is string => typeof l === 'string');
  const domains: Array<{ values: string[]; count: number }> = [];
  for (const d of listOf(ta.domains)) {
    if (isRecord(d) && typeof d.count === 'number') domains.push({ values: listOf(d.values).map(String), count: d.count });
  }
  for (const slice of listOf(ta.slices)) {
    if (!isRecord(slice) || typeof slice.domainCount !== 'number') return undefined;
    const perLevel = listOf(slice.valuesPerLevel);
    const counts = isRecord(slice.podCounts) ? slice.podCounts : {};
    for (let i = 0; i < slice.domainCount; i++) {
      const values = perLevel.map((v) => {
        if (!isRecord(v)) return '';
        if (typeof v.universal === 'string') return v.universal;
        const ind = isRecord(v.individual) ? v.individual : {};
        return `${stringOf(ind.prefix) ?? ''}${stringOf(listOf(ind.roots)[i]) ?? ''}${stringOf(ind.suffix) ?? ''}`;
      });
      const count = typeof counts.universal === 'number' ? counts.universal : listOf(counts.individual)[i];
      if (typeof count !== 'number') return undefined;
      domains.push({ values, count });
    }
  }
  return { levels, domains };
}

/** The levels of a Topology object (spec.levels[].nodeLabel). */
export function topologyLevelsOf(topology: unknown): string[] {
  const spec = isRecord(topology) && isRecord(topology.spec) ? topology.spec : {};
  return listOf(spec.levels).map((l) => (isRecord(l) ? stringOf(l.nodeLabel) : undefined)).filter((l): l is string => !!l);
}

/** NodeMatchesFlavor (util/tas/node.go): the flavor's node labels, and a label for every level. */
export function nodeServesFlavor(node: TasNode, nodeLabels: Readonly<Record<string, unknown>>, levels: readonly string[]): boolean {
  for (const [k, v] of Object.entries(nodeLabels)) if (node.labels[k] !== v) return false;
  return levels.every((l) => Object.prototype.hasOwnProperty.call(node.labels, l));
}


/** Where an admitted PodSet's pods are (Kueue's TopologyAssignment), with what each pod uses there. */
export interface TasPlacement {
  readonly podSet: string;
  readonly flavor: TasFlavor;
  /** One pod's requests in Kueue's units, with `pods: 1`. */
  readonly perPod: ReadonlyMap<string, number>;
  readonly placement: readonly LeafCount[];
}

/** Adds (1) or removes (-1) the node usage of a workload's TAS placements. */
export function addTasUsage(placements: readonly TasPlacement[] | undefined, sign: number): void {
  if (!placements) return;
  for (const p of placements) for (const l of p.placement) p.flavor.addUsage(l.leafIdx, p.perPod, l.count, sign);
}

/** What topology-aware scheduling reads besides the queues: the nodes, the pods bound to them, and the version's usage rule. */
export interface TasInputs {
  readonly nodes: readonly TasNode[];
  readonly boundPods: readonly BoundPod[];
  /** TASHandleOverlappingFlavors: hostname-level flavors share their nodes' usage. */
  readonly sharedHostUsage: boolean;
}

/**
 * The TAS flavors (topology-aware scheduling on) into `out`: each ResourceFlavor with spec.topologyName, over the nodes
 * that serve it; one whose Topology is not among `objects` into `missing` (flavor → Topology name).
 */
export function tasFlavorsOf(flavors: ReadonlyMap<string, { readonly spec?: unknown }>, objects: ReadonlyArray<Record<string, unknown>>,
  tas: TasInputs, out: Map<string, TasFlavor>, missing: Map<string, string>): void {
  const topologies = new Map<string, string[]>();
  for (const o of objects) {
    if (o.kind === 'Topology' && isRecord(o.metadata) && typeof o.metadata.name === 'string') topologies.set(o.metadata.name, topologyLevelsOf(o));
  }
  const shared = new TasUsageStore();
  for (const [name, f] of flavors) {
    const spec: Record<string, unknown> = isRecord(f.spec) ? f.spec : {};
    const topologyName = spec.topologyName;
    if (typeof topologyName !== 'string') continue;
    const levels = topologies.get(topologyName);
    if (!levels) {
      missing.set(name, topologyName);
      continue;
    }
    const nodeLabels = isRecord(spec.nodeLabels) ? spec.nodeLabels : {};
    const nodes = tas.nodes.filter((n) => nodeServesFlavor(n, nodeLabels, levels));
    const hostLeaves = levels[levels.length - 1] === HOSTNAME_LABEL;
    out.set(name, new TasFlavor(name, topologyName, levels, tolerationsOf(spec.tolerations), nodes, tas.boundPods,
      tas.sharedHostUsage && hostLeaves ? shared : new TasUsageStore()));
  }
}
