/**
 * Kueue's quota tree (pkg/cache/scheduler/resource_node.go): ClusterQueues are leaves, Cohorts inner
 * nodes. Every node keeps, per flavor/resource, its subtree quota (what it pools for its parent) and its
 * usage; a node's contribution to its parent is what exceeds the part it keeps for itself (the
 * lendingLimit). The functions mirror Kueue's available / potentialAvailable / addUsage / removeUsage.
 *
 * A flavor/resource is a small integer (the simulator numbers them); a node holds one array slot per
 * flavor/resource. Quantities are integers in a per-resource unit that the simulator picks so that every
 * value and every sum stays exact in a double (below 2^53). Pure.
 */

/** The index of a (flavor, resource) pair in the simulator's table. */
export type FlavorResource = number;

/** No borrowingLimit / lendingLimit set. */
export const NO_LIMIT = -1;

export interface QuotaNode {
  readonly name: string;
  readonly isCohort: boolean;
  /** The flavor/resources this node sets a quota for, in the order they were read. */
  readonly quotaFlavorResources: FlavorResource[];
  readonly nominal: Float64Array;
  /** NO_LIMIT when unset. */
  readonly borrowingLimit: Float64Array;
  /** NO_LIMIT when unset. */
  readonly lendingLimit: Float64Array;
  readonly subtree: Float64Array;
  /** 1 where the node or a descendant sets a quota. */
  readonly inSubtree: Uint8Array;
  readonly usage: Float64Array;
  /**
   * A number no other usage of any node had (from one clock, set by addUsage and removeUsage): what reads only the
   * usage may be kept per version. A change undone exactly may put the versions back (VersionStash).
   */
  usageVersion: number;
  /**
   * On a tree's root (a top cohort, or a ClusterQueue without one): the clock of the last change of any usage in the
   * tree, put back with the versions (VersionStash). Equal numbers, equal usage and admitted workloads in the whole tree
   * (every admission and release changes usage): what reads only the tree may be kept per tree version.
   */
  treeVersion: number;
  parent?: CohortNode;
  /**
   * spec.fairSharing.weight as Kueue reads it (parseFairWeight: AsFloat64Slow, default 1), and in
   * milli-units rounded up (v0.13's integer share divides by weight.MilliValue()).
   */
  fairWeight: number;
  fairWeightMilli: number;
}

export interface CohortNode extends QuotaNode {
  readonly childCohorts: CohortNode[];
  readonly childQueues: QuotaNode[];
}

export interface Quota {
  readonly nominal: number;
  readonly borrowingLimit?: number;
  readonly lendingLimit?: number;
}

/** A node's quota arrays for `size` flavor/resources, all empty, and the default fair-sharing weight. */
type QuotaArrays = Pick<QuotaNode, 'quotaFlavorResources' | 'nominal' | 'borrowingLimit' | 'lendingLimit' | 'subtree' | 'inSubtree' | 'usage'
  | 'usageVersion' | 'treeVersion' | 'fairWeight' | 'fairWeightMilli'>;

export function quotaArrays(size: number): QuotaArrays {
  return {
    quotaFlavorResources: [], nominal: new Float64Array(size),
    borrowingLimit: new Float64Array(size).fill(NO_LIMIT), lendingLimit: new Float64Array(size).fill(NO_LIMIT),
    subtree: new Float64Array(size), inSubtree: new Uint8Array(size), usage: new Float64Array(size), usageVersion: 0, treeVersion: 0,
    fairWeight: 1, fairWeightMilli: 1000,
  };
}

export function setQuota(n: QuotaNode, fr: FlavorResource, quota: Quota): void {
  if (!n.quotaFlavorResources.includes(fr)) n.quotaFlavorResources.push(fr);
  n.nominal[fr] = quota.nominal;
  n.borrowingLimit[fr] = quota.borrowingLimit ?? NO_LIMIT;
  n.lendingLimit[fr] = quota.lendingLimit ?? NO_LIMIT;
}

/** What a node keeps for itself (not lent to its parent): subtree - lendingLimit, when one is set. */
export function localQuota(n: QuotaNode, fr: FlavorResource): number {
  const ll = n.lendingLimit[fr];
  if (ll === NO_LIMIT) return 0;
  const v = n.subtree[fr] - ll;
  return v > 0 ? v : 0;
}

export function localAvailable(n: QuotaNode, fr: FlavorResource): number {
  const v = localQuota(n, fr) - n.usage[fr];
  return v > 0 ? v : 0;
}

/** Capacity usable now, before preempting: local plus what the ancestors can give (may be negative in debt). */
export function availableRaw(n: QuotaNode, fr: FlavorResource): number {
  if (!n.parent) return n.subtree[fr] - n.usage[fr];
  let parentAvailable = availableRaw(n.parent, fr);
  const bl = n.borrowingLimit[fr];
  if (bl !== NO_LIMIT) {
    const lq = localQuota(n, fr);
    const storedInParent = n.subtree[fr] - lq;
    const usedInParent = Math.max(0, n.usage[fr] - lq);
    parentAvailable = Math.min(storedInParent - usedInParent + bl, parentAvailable);
  }
  return localAvailable(n, fr) + parentAvailable;
}

export function available(n: QuotaNode, fr: FlavorResource): number {
  return Math.max(0, availableRaw(n, fr));
}

/** The largest request the node could ever get (all quota of the tree free). */
export function potentialAvailable(n: QuotaNode, fr: FlavorResource): number {
  if (!n.parent) return n.subtree[fr];
  let avail = localQuota(n, fr) + potentialAvailable(n.parent, fr);
  const bl = n.borrowingLimit[fr];
  if (bl !== NO_LIMIT) avail = Math.min(n.subtree[fr] + bl, avail);
  return avail;
}

/** The clock of usage versions: each change gets a number no usage had before. */
let usageClock = 0;

/**
 * The usage versions of nodes about to change for a moment: once the change is undone exactly (removeUsage of what
 * addUsage added, or the reverse, which leave every node's usage as it was), `restore` puts the versions back, so
 * what was kept per version stays valid. Reused: `keep` nodes, change, undo, `restore`.
 */
export class VersionStash {
  private readonly nodes: QuotaNode[] = [];
  private readonly versions: number[] = [];
  private n = 0;

  /** Keeps the versions of `node` and its ancestors (the nodes a change of its usage can reach), and its tree's. */
  keep(node: QuotaNode): void {
    let x: QuotaNode = node;
    for (;;) {
      this.nodes[this.n] = x;
      this.versions[this.n++] = x.usageVersion;
      if (!x.parent) break;
      x = x.parent;
    }
    // The root once more, for its tree version (a negative mark: restore tells the two apart).
    this.nodes[this.n] = x;
    this.versions[this.n++] = -1 - x.treeVersion;
  }

  /** How much is kept: a mark for `restoreTo` and `discardTo`. */
  get mark(): number {
    return this.n;
  }

  /** Puts the kept versions back, the first kept last (a node kept twice gets its version from before both). */
  restore(): void {
    this.restoreTo(0);
  }

  /** Puts back what was kept since `mark` (its changes were undone exactly). */
  restoreTo(mark: number): void {
    for (let i = this.n - 1; i >= mark; i--) {
      const v = this.versions[i];
      if (v < 0) this.nodes[i].treeVersion = -1 - v;
      else this.nodes[i].usageVersion = v;
    }
    this.n = mark;
  }

  /** Forgets what was kept since `mark` (its changes stay, or were not undone exactly: their versions are new). */
  discardTo(mark: number): void {
    this.n = mark;
  }
}

export function addUsage(n: QuotaNode, fr: FlavorResource, val: number): void {
  const la = localAvailable(n, fr);
  n.usage[fr] += val;
  n.usageVersion = ++usageClock;
  if (n.parent && val > la) addUsage(n.parent, fr, val - la);
  else treeChanged(n);
}

export function removeUsage(n: QuotaNode, fr: FlavorResource, val: number): void {
  const storedInParent = n.usage[fr] - localQuota(n, fr);
  n.usage[fr] -= val;
  n.usageVersion = ++usageClock;
  if (storedInParent <= 0 || !n.parent) {
    treeChanged(n);
    return;
  }
  removeUsage(n.parent, fr, Math.min(val, storedInParent));
}

/** The tree of `n` changed: its root's tree version is the clock's (the change just made). */
function treeChanged(n: QuotaNode): void {
  let r = n;
  while (r.parent) r = r.parent;
  r.treeVersion = usageClock;
}

/** A request as parallel lists (flavor/resources and values) into (+1) or out of (-1) the node's usage. */
export function addUsageList(n: QuotaNode, ids: readonly FlavorResource[], values: readonly number[], sign: 1 | -1): void {
  for (let i = 0; i < ids.length; i++) {
    if (sign > 0) addUsage(n, ids[i], values[i]);
    else removeUsage(n, ids[i], values[i]);
  }
}

/** Whether a request fits what the node can take now; unless `borrow`, also within its nominal quota. */
export function fitsRequest(n: QuotaNode, ids: readonly FlavorResource[], values: readonly number[], borrow: boolean): boolean {
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i], v = values[i];
    if ((!borrow && borrowingWith(n, id, v)) || v > available(n, id)) return false;
  }
  return true;
}

/**
 * fitsRequest, and, when topology-aware scheduling asks (`tasFits`), the pods fit the nodes too: the preemptors'
 * test of a set of victims. A plain function rather than a closure per search (a hot path).
 */
export function fitsRequestAndNodes(n: QuotaNode, ids: readonly FlavorResource[], values: readonly number[], borrow: boolean,
  tasFits?: () => boolean): boolean {
  return fitsRequest(n, ids, values, borrow) && (!tasFits || tasFits());
}

export function addUsageMap(n: QuotaNode, usage: ReadonlyMap<FlavorResource, number>, sign: 1 | -1): void {
  for (const fr of usage.keys()) {
    if (sign > 0) addUsage(n, fr, usage.get(fr)!);
    else removeUsage(n, fr, usage.get(fr)!);
  }
}

/** Recomputes subtree quotas from the leaves up (updateCohortResourceNode); usage starts empty. */
export function buildSubtree(root: CohortNode): void {
  initSubtree(root);
  const accumulate = (child: QuotaNode) => {
    for (let fr = 0; fr < child.subtree.length; fr++) {
      if (!child.inSubtree[fr]) continue;
      root.subtree[fr] += child.subtree[fr] - localQuota(child, fr);
      root.inSubtree[fr] = 1;
    }
  };
  for (const c of root.childCohorts) {
    buildSubtree(c);
    accumulate(c);
  }
  for (const q of root.childQueues) {
    initSubtree(q);
    accumulate(q);
  }
}

/** A node's own quotas as its subtree (a ClusterQueue, or a cohort before its children are added). */
export function initSubtree(n: QuotaNode): void {
  n.subtree.fill(0);
  n.inSubtree.fill(0);
  for (const fr of n.quotaFlavorResources) {
    n.subtree[fr] = n.nominal[fr];
    n.inSubtree[fr] = 1;
  }
}

export function withinNominal(n: QuotaNode, frs: readonly FlavorResource[]): boolean {
  for (let i = 0; i < frs.length; i++) if (n.subtree[frs[i]] < n.usage[frs[i]]) return false;
  return true;
}

/** ClusterQueue: usage + val above nominal. Cohort: above its subtree quota. */
export function borrowingWith(n: QuotaNode, fr: FlavorResource, val: number): boolean {
  const cap = n.isCohort ? n.subtree[fr] : n.nominal[fr];
  return cap < n.usage[fr] + val;
}

/**
 * The almost-least-common-ancestors of two nodes of one tree (fair sharing's least_common_ancestor.go): the two
 * children of their lowest common cohort on the way to each (the node itself when its parent is that cohort).
 */
export function almostLcas(a: QuotaNode, b: QuotaNode): readonly [QuotaNode, QuotaNode] {
  // The tree never changes once built, and the fair-sharing searches ask for the same pairs again and again.
  let byB = ALMOST_LCAS.get(a);
  if (!byB) ALMOST_LCAS.set(a, byB = new Map<QuotaNode, readonly [QuotaNode, QuotaNode]>());
  let pair = byB.get(b);
  if (!pair) byB.set(b, pair = computeAlmostLcas(a, b));
  return pair;
}

const ALMOST_LCAS = new WeakMap<QuotaNode, Map<QuotaNode, readonly [QuotaNode, QuotaNode]>>();

function computeAlmostLcas(a: QuotaNode, b: QuotaNode): readonly [QuotaNode, QuotaNode] {
  const ancestorsOfA = new Set<CohortNode>();
  for (let p = a.parent; p; p = p.parent) ancestorsOfA.add(p);
  let lca: CohortNode | undefined;
  for (let p = b.parent; p && !lca; p = p.parent) if (ancestorsOfA.has(p)) lca = p;
  const below = (n: QuotaNode): QuotaNode => {
    let x = n;
    while (x.parent && x.parent !== lca) x = x.parent;
    return x;
  };
  return [below(a), below(b)];
}

export function rootOf(n: QuotaNode): QuotaNode {
  let r: QuotaNode = n;
  while (r.parent) r = r.parent;
  return r;
}

function nodeHeight(n: CohortNode): number {
  let h = Math.min(n.childCohorts.length + n.childQueues.length, 1);
  for (const c of n.childCohorts) h = Math.max(h, nodeHeight(c) + 1);
  return h;
}

/**
 * FindHeightOfLowestSubtreeThatFits: 0 when the request fits the ClusterQueue's nominal quota,
 * else the height of the lowest cohort that has it (the borrowing level); and whether reclaiming
 * from a lower subtree could help. Both in one number, as `height * 2 + (mayReclaim ? 1 : 0)` (called
 * for every flavor/resource of every evaluation: no object): read it with `subtreeHeight` and `subtreeMayReclaim`.
 */
export function heightOfLowestSubtreeThatFits(cq: QuotaNode, fr: FlavorResource, val: number): number {
  if (!borrowingWith(cq, fr, val) || !cq.parent) return cq.parent ? 1 : 0;
  let remaining = val - localAvailable(cq, fr);
  for (let node: CohortNode | undefined = cq.parent; node; node = node.parent) {
    if (!borrowingWith(node, fr, remaining)) return nodeHeight(node) * 2 + (node.parent ? 1 : 0);
    remaining -= localAvailable(node, fr);
  }
  return nodeHeight(rootOf(cq) as CohortNode) * 2;
}

export function subtreeHeight(h: number): number {
  return h >> 1;
}

export function subtreeMayReclaim(h: number): boolean {
  return (h & 1) === 1;
}
