/**
 * Kueue's quota tree (pkg/cache/scheduler/resource_node.go): ClusterQueues are leaves, Cohorts inner
 * nodes. Every node keeps, per flavor/resource, its subtree quota (what it pools for its parent) and its
 * usage; a node's contribution to its parent is what exceeds the part it keeps for itself (the
 * lendingLimit). The functions mirror Kueue's available / potentialAvailable / addUsage / removeUsage.
 * Quantities are milli-units (bigint). Pure.
 */

/** "flavor/resource": flavor names are DNS subdomains, so "/" cannot be part of one. */
export type FlavorResource = string;

export function frKey(flavor: string, resource: string): FlavorResource {
  return `${flavor}/${resource}`;
}

export function frParts(fr: FlavorResource): { flavor: string; resource: string } {
  const i = fr.indexOf('/');
  return { flavor: fr.slice(0, i), resource: fr.slice(i + 1) };
}

export interface Quota {
  readonly nominal: bigint;
  readonly borrowingLimit?: bigint;
  readonly lendingLimit?: bigint;
}

export interface QuotaNode {
  readonly name: string;
  readonly isCohort: boolean;
  readonly quotas: Map<FlavorResource, Quota>;
  readonly subtree: Map<FlavorResource, bigint>;
  readonly usage: Map<FlavorResource, bigint>;
  parent?: CohortNode;
}

export interface CohortNode extends QuotaNode {
  readonly childCohorts: CohortNode[];
  readonly childQueues: QuotaNode[];
}

const get = (m: Map<string, bigint>, k: string): bigint => m.get(k) ?? 0n;
const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/** What a node keeps for itself (not lent to its parent): subtree - lendingLimit, when one is set. */
export function localQuota(n: QuotaNode, fr: FlavorResource): bigint {
  const ll = n.quotas.get(fr)?.lendingLimit;
  return ll === undefined ? 0n : max(0n, get(n.subtree, fr) - ll);
}

export function localAvailable(n: QuotaNode, fr: FlavorResource): bigint {
  return max(0n, localQuota(n, fr) - get(n.usage, fr));
}

/** Capacity usable now, before preempting: local plus what the ancestors can give (may be negative in debt). */
export function availableRaw(n: QuotaNode, fr: FlavorResource): bigint {
  if (!n.parent) return get(n.subtree, fr) - get(n.usage, fr);
  let parentAvailable = availableRaw(n.parent, fr);
  const bl = n.quotas.get(fr)?.borrowingLimit;
  if (bl !== undefined) {
    const lq = localQuota(n, fr);
    const storedInParent = get(n.subtree, fr) - lq;
    const usedInParent = max(0n, get(n.usage, fr) - lq);
    parentAvailable = min(storedInParent - usedInParent + bl, parentAvailable);
  }
  return localAvailable(n, fr) + parentAvailable;
}

export function available(n: QuotaNode, fr: FlavorResource): bigint {
  return max(0n, availableRaw(n, fr));
}

/** The largest request the node could ever get (all quota of the tree free). */
export function potentialAvailable(n: QuotaNode, fr: FlavorResource): bigint {
  if (!n.parent) return get(n.subtree, fr);
  let avail = localQuota(n, fr) + potentialAvailable(n.parent, fr);
  const bl = n.quotas.get(fr)?.borrowingLimit;
  if (bl !== undefined) avail = min(get(n.subtree, fr) + bl, avail);
  return avail;
}

export function addUsage(n: QuotaNode, fr: FlavorResource, val: bigint): void {
  const la = localAvailable(n, fr);
  n.usage.set(fr, get(n.usage, fr) + val);
  if (n.parent && val > la) addUsage(n.parent, fr, val - la);
}

export function removeUsage(n: QuotaNode, fr: FlavorResource, val: bigint): void {
  const storedInParent = get(n.usage, fr) - localQuota(n, fr);
  n.usage.set(fr, get(n.usage, fr) - val);
  if (storedInParent <= 0n || !n.parent) return;
  removeUsage(n.parent, fr, min(val, storedInParent));
}

export function addUsageMap(n: QuotaNode, usage: Map<FlavorResource, bigint>, sign: 1 | -1): void {
  for (const [fr, v] of usage) {
    if (sign > 0) addUsage(n, fr, v);
    else removeUsage(n, fr, v);
  }
}

/** Recomputes subtree quotas from the leaves up (updateCohortResourceNode); usage starts empty. */
export function buildSubtree(root: CohortNode): void {
  root.subtree.clear();
  for (const [fr, q] of root.quotas) root.subtree.set(fr, q.nominal);
  const accumulate = (child: QuotaNode) => {
    for (const [fr, v] of child.subtree) root.subtree.set(fr, get(root.subtree, fr) + v - localQuota(child, fr));
  };
  for (const c of root.childCohorts) {
    buildSubtree(c);
    accumulate(c);
  }
  for (const q of root.childQueues) {
    q.subtree.clear();
    for (const [fr, quota] of q.quotas) q.subtree.set(fr, quota.nominal);
    accumulate(q);
  }
}

export function withinNominal(n: QuotaNode, frs: Iterable<FlavorResource>): boolean {
  for (const fr of frs) if (get(n.subtree, fr) < get(n.usage, fr)) return false;
  return true;
}

/** ClusterQueue: usage + val above nominal. Cohort: above its subtree quota. */
export function borrowingWith(n: QuotaNode, fr: FlavorResource, val: bigint): boolean {
  const cap = n.isCohort ? get(n.subtree, fr) : (n.quotas.get(fr)?.nominal ?? 0n);
  return cap < get(n.usage, fr) + val;
}

export function quantitiesFitInQuota(n: QuotaNode, req: Map<FlavorResource, bigint>): { fits: boolean; remaining: Map<FlavorResource, bigint> } {
  let fits = true;
  const remaining = new Map<FlavorResource, bigint>();
  for (const [fr, v] of req) {
    if (get(n.subtree, fr) < get(n.usage, fr) + v) fits = false;
    remaining.set(fr, max(0n, v - localAvailable(n, fr)));
  }
  return { fits, remaining };
}

export function* pathToRoot(n: QuotaNode): Generator<CohortNode> {
  for (let p = n.parent; p; p = p.parent) yield p;
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
 * from a lower subtree could help.
 */
export function heightOfLowestSubtreeThatFits(cq: QuotaNode, fr: FlavorResource, val: bigint): { borrow: number; mayReclaim: boolean } {
  if (!borrowingWith(cq, fr, val) || !cq.parent) return { borrow: 0, mayReclaim: !!cq.parent };
  let remaining = val - localAvailable(cq, fr);
  for (const node of pathToRoot(cq)) {
    if (!borrowingWith(node, fr, remaining)) return { borrow: nodeHeight(node), mayReclaim: !!node.parent };
    remaining -= localAvailable(node, fr);
  }
  return { borrow: nodeHeight(rootOf(cq) as CohortNode), mayReclaim: false };
}
