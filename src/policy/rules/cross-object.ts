/**
 * Rules across objects: the workload's queue, its ClusterQueue, priority classes and quota.
 * They need an inventory (from the app at synth, from the cluster in the webhook).
 */
import { ClusterQueueEntry, Inventory, LabelSelector, LocalQueueEntry } from '../context';
import { computeGang, Gang, gangTotalAtReplicas } from '../gang';
import { isInteger } from '../json';
import { RAY_KINDS, skipsKueue, WorkerGroupSpecJson } from '../kinds';
import { ResourceMap, sortedResourceNames } from '../quantity';
import { describeResourcesCompared, formatResources } from '../quantity-text';
import { isElastic, namespaceOf, podTemplatesOf, PRIORITY_CLASS_LABEL, priorityClassOf, QUEUE_NAME_LABEL, queueNameOf,
  usesAutoscaling } from '../ray-object';
import { similarName } from '../similar-names';
import { tenantOf } from '../tenant';
import { defineRule, RuleRecord } from './rule';

const QUEUE_FIELD = `metadata.labels[${QUEUE_NAME_LABEL}]`;
const PRIORITY_FIELD = `metadata.labels[${PRIORITY_CLASS_LABEL}]`;

interface InventoryIndex {
  localQueues: Map<string, LocalQueueEntry>;
  clusterQueues: Map<string, ClusterQueueEntry>;
  capacity: Map<string, Map<string, Map<string, Cap>>>;
}

// Inventories are immutable snapshots: index each once, so a thousand workloads do not rescan it.
const INDEX = new WeakMap<Inventory, InventoryIndex>();

function indexOf(inv: Inventory): InventoryIndex {
  let idx = INDEX.get(inv);
  if (!idx) {
    idx = {
      localQueues: new Map(inv.localQueues.map((q) => [`${q.namespace}/${q.name}`, q])),
      clusterQueues: new Map(inv.clusterQueues.map((q) => [q.name, q])),
      capacity: new Map(),
    };
    INDEX.set(inv, idx);
  }
  return idx;
}

export function findLocalQueue(inv: Inventory, namespace: string, name: string): LocalQueueEntry | undefined {
  // Three rules look up the same queue of an object in a row: the last answer is kept (so at most one older
  // snapshot outlives its replacement, until the next lookup).
  const last = lastQueue;
  if (last && last.inv === inv && last.namespace === namespace && last.name === name) return last.queue;
  const queue = indexOf(inv).localQueues.get(`${namespace}/${name}`);
  lastQueue = { inv, namespace, name, queue };
  return queue;
}

interface QueueLookup {
  readonly inv: Inventory;
  readonly namespace: string;
  readonly name: string;
  readonly queue: LocalQueueEntry | undefined;
}

let lastQueue: QueueLookup | undefined;

export function findClusterQueue(inv: Inventory, name: string): ClusterQueueEntry | undefined {
  return indexOf(inv).clusterQueues.get(name);
}

/** Kubernetes label-selector semantics. */
export function selectorMatches(sel: LabelSelector | null | undefined, labels: Record<string, string>): boolean {
  if (sel === null || sel === undefined) return false; // Kueue: a nil namespaceSelector matches no namespace
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    const vals = e.values ?? [];
    switch (e.operator) {
      case 'In': if (!has || !vals.includes(labels[e.key])) return false; break;
      case 'NotIn': if (has && vals.includes(labels[e.key])) return false; break;
      case 'Exists': if (!has) return false; break;
      case 'DoesNotExist': if (has) return false; break;
      default: return false;
    }
  }
  return true;
}

function selectorKeys(sel: LabelSelector): string[] {
  return [...Object.keys(sel.matchLabels ?? {}), ...(sel.matchExpressions ?? []).map((e) => e.key)];
}

/** The workload's LocalQueue exists in its namespace. */
export const queueExists = defineRule({
  name: 'queueExists', source: 'app', kinds: RAY_KINDS,
  description: 'The workload\'s LocalQueue exists in its namespace.',
}, (r, obj, ctx) => {
  const inv = ctx.inventory;
  const q = queueNameOf(obj, ctx.kueue);
  if (!inv || !q) return r.findings;
  const ns = namespaceOf(obj);
  if (ctx.external?.localQueue) {
    // Defined elsewhere by name: a name one typo away from one of the app's own is more likely a typo.
    const near = ctx.audience === 'tenant' ? undefined : similarName(q, inv.localQueues.filter((lq) => lq.namespace === ns).map((lq) => lq.name));
    if (near) {
      r.warn(QUEUE_FIELD, `LocalQueue "${q}" is not defined in this app, which defines "${near}" in namespace "${ns}": did you mean "${near}"?`,
        `use "${near}", or ignore this if "${q}" is defined elsewhere`);
    }
    return r.findings;
  }
  if (!findLocalQueue(inv, ns, q)) {
    // A tenant must not learn which namespaces hold a queue of that name.
    const elsewhere = ctx.audience === 'tenant' ? [] : inv.localQueues.filter((lq) => lq.name === q).map((lq) => lq.namespace);
    r.error(QUEUE_FIELD,
      `LocalQueue "${q}" does not exist in namespace `
        + `"${ns}"${elsewhere.length ? ` (it exists in ${elsewhere.join(', ')}; a LocalQueue serves only its own namespace)` : ''}: Kueue keeps the `
        + 'workload suspended with no Workload',
      `create LocalQueue ${ns}/${q} (LocalQueue or TenantQueue), put the workload in the queue's namespace, or reference a queue defined elsewhere `
        + 'with LocalQueue.fromLocalQueueName()');
  }
  return r.findings;
});

/** The LocalQueue's ClusterQueue exists and admits the workload's namespace. */
export const clusterQueueAdmitsNamespace = defineRule({
  name: 'clusterQueueAdmitsNamespace', source: 'app', kinds: RAY_KINDS,
  description: 'The LocalQueue\'s ClusterQueue exists, is active and admits the namespace.',
}, (r, obj, ctx) => {
  const inv = ctx.inventory;
  const q = queueNameOf(obj, ctx.kueue);
  if (!inv || !q) return r.findings;
  const ns = namespaceOf(obj);
  const lq = findLocalQueue(inv, ns, q);
  if (!lq) return r.findings;
  const cq = findClusterQueue(inv, lq.clusterQueue);
  if (!cq) {
    if (!ctx.external?.localQueue) {
      r.error(QUEUE_FIELD,
        `LocalQueue ${ns}/${q} points at ClusterQueue "${lq.clusterQueue}", which does not exist: Workloads stay pending (ClusterQueue is inactive)`,
        `create ClusterQueue "${lq.clusterQueue}" or point the LocalQueue at an existing one`);
    }
    return r.findings;
  }
  const known = inv.namespaces.find((n) => n.name === ns);
  const labels = known?.labels ?? { 'kubernetes.io/metadata.name': ns };
  if (!selectorMatches(cq.namespaceSelector, labels)) {
    const onlyName = cq.namespaceSelector && selectorKeys(cq.namespaceSelector).every((k) => k === 'kubernetes.io/metadata.name');
    const msg = cq.namespaceSelector === null || cq.namespaceSelector === undefined
      ? `ClusterQueue "${cq.name}" has no namespaceSelector, which admits no namespace: the Workload stays pending`
      : `ClusterQueue "${cq.name}" namespaceSelector ${JSON.stringify(cq.namespaceSelector)} does not match namespace "${ns}" `
        + `(labels ${JSON.stringify(labels)}): the Workload stays pending`;
    if (known || onlyName || cq.namespaceSelector === null || cq.namespaceSelector === undefined) {
      r.error(QUEUE_FIELD, msg,
        `widen ClusterQueue "${cq.name}" namespaceSelector (namespaceSelector: {} admits every namespace) or label namespace "${ns}" to match`);
    } else {
      r.warn(QUEUE_FIELD, `${msg}; namespace "${ns}" is not defined in this app, so its other labels are unknown`,
        'define the namespace in the app (TenantQueue) or check its labels');
    }
  }
  if (cq.stopPolicy && cq.stopPolicy !== 'None') {
    r.warn(QUEUE_FIELD, `ClusterQueue "${cq.name}" has stopPolicy ${cq.stopPolicy}: it admits no new workloads`,
      'set stopPolicy: None to resume admission');
  }
  return r.findings;
});

/** The priority class exists, and the namespace's tenant allows it (whichever of its queues the object names). */
export const priorityClassAllowed = defineRule({
  name: 'priorityClassAllowed', source: 'app', kinds: RAY_KINDS,
  description: 'The WorkloadPriorityClass exists and the tenant allows it.',
}, (r, obj, ctx) => {
  const inv = ctx.inventory;
  const p = priorityClassOf(obj);
  if (!inv || !p) return r.findings;
  const tenant = tenantOf(inv, namespaceOf(obj));
  const allowed = tenant?.rules.allowedPriorityClasses;
  const near = ctx.external?.priorityClass && ctx.audience !== 'tenant' ? similarName(p, inv.priorityClasses.map((c) => c.name)) : undefined;
  if (near) {
    r.warn(PRIORITY_FIELD, `WorkloadPriorityClass "${p}" is not defined in this app, which defines "${near}": did you mean "${near}"?`,
      `use "${near}", or ignore this if "${p}" is defined elsewhere`);
  }
  if (!ctx.external?.priorityClass && !inv.priorityClasses.some((c) => c.name === p)) {
    const choices = ctx.audience === 'tenant' ? allowed ?? [] : inv.priorityClasses.map((c) => c.name);
    r.error(PRIORITY_FIELD, `WorkloadPriorityClass "${p}" does not exist: Kueue cannot build the Workload and the job stays suspended`,
      `create WorkloadPriorityClass "${p}", use one of ${choices.map((c) => `"${c}"`).join(', ') || '(none defined)'}, or reference one defined `
        + 'elsewhere with WorkloadPriorityClass.fromWorkloadPriorityClassName()');
  }
  if (allowed && allowed.length > 0 && !allowed.includes(p)) {
    r.error(PRIORITY_FIELD,
      `priority class "${p}" is not allowed for the tenant of namespace "${tenant.namespace}" (allowed: ${allowed.join(', ')})`,
      `use one of ${allowed.join(', ')}, or add "${p}" to the TenantQueue's allowedPriorityClasses`);
  }
  return r.findings;
});

/**
 * In a tenant namespace, pod templates name only the PriorityClasses the tenant allows: without a
 * WorkloadPriorityClass label Kueue takes the Workload's priority from them (system-cluster-critical
 * gives 2,000,000,000), and the kube-scheduler preempts other pods by them.
 */
export const podPriorityClassAllowed = defineRule({
  name: 'podPriorityClassAllowed', source: 'app', kinds: RAY_KINDS,
  description: 'In a tenant namespace, pod templates name only the PriorityClasses the tenant allows.',
}, (r, obj, ctx) => {
  const tenant = ctx.inventory ? tenantOf(ctx.inventory, namespaceOf(obj)) : undefined;
  if (!tenant) return r.findings;
  const allowed = tenant.rules.allowedPodPriorityClasses ?? [];
  for (const t of podTemplatesOf(obj)) {
    const name = t.template?.spec?.priorityClassName;
    if (name === undefined || name === '' || allowed.includes(name)) continue;
    r.error(`${t.path}.spec.priorityClassName`,
      `pod priority class ${JSON.stringify(name)} is not allowed in tenant namespace `
        + `"${tenant.namespace}"${allowed.length ? ` (allowed: ${allowed.join(', ')})` : ' (the tenant allows none)'}: Kueue would take the `
        + 'Workload\'s priority from it, and the scheduler would preempt other pods by it',
      `remove priorityClassName and set the label ${PRIORITY_CLASS_LABEL} to an allowed WorkloadPriorityClass, or add the class to the TenantQueue's `
        + 'allowedPodPriorityClasses');
  }
  return r.findings;
});

/**
 * In a tenant namespace, a RayJob on an existing cluster (clusterSelector) submits without a pod of its
 * own: Kueue does not manage such a job, so the submitter pod K8sJobMode makes (with whatever resources
 * its template asks) would run outside the quota.
 */
export const clusterSelectorSubmitter = defineRule({
  name: 'clusterSelectorSubmitter', source: 'app', kinds: ['RayJob'],
  description: 'In a tenant namespace, a RayJob on an existing cluster submits in HTTPMode (its submitter pod would run outside the quota).',
}, (r, obj, ctx) => {
  if (!skipsKueue(obj, ctx.kueue)) return r.findings;
  const tenant = ctx.inventory ? tenantOf(ctx.inventory, namespaceOf(obj)) : undefined;
  const mode = obj.spec?.submissionMode ?? 'K8sJobMode';
  if (!tenant || mode === 'HTTPMode' || mode === 'InteractiveMode') return r.findings;
  r.error('spec.submissionMode',
    `a RayJob on an existing RayCluster (clusterSelector) is not queued by Kueue, so the submitter pod ${mode} creates would run outside tenant `
      + `namespace "${tenant.namespace}"'s quota`,
    'set submissionMode: HTTPMode (the job is submitted to the selected cluster\'s dashboard, with no pod of its own)');
  return r.findings;
});

interface Cap { nominal: bigint; ceiling: bigint }

/** Nominal quota and the most a ClusterQueue can ever use (nominal + borrowing ceiling), per flavor and resource. */
export function clusterQueueCapacity(cq: ClusterQueueEntry, inv: Inventory): Map<string, Map<string, Cap>> {
  const idx = indexOf(inv);
  const cached = idx.capacity.get(cq.name);
  if (cached && idx.clusterQueues.get(cq.name) === cq) return cached;
  const out = new Map<string, Map<string, Cap>>();
  idx.capacity.set(cq.name, out);
  const treeCohorts = cohortTree(cq.cohort, inv);
  const lenders = cq.cohort ? inv.clusterQueues.filter((o) => o.name !== cq.name && o.cohort && treeCohorts.has(o.cohort)) : [];
  const pool = (flavor: string, resource: string): bigint => {
    let sum = 0n;
    for (const o of lenders) {
      for (const g of o.resourceGroups) for (const f of g.flavors) if (f.flavor === flavor) {
        for (const q of f.resources) if (q.resource === resource) sum += q.lendingLimit ?? q.nominal;
      }
    }
    for (const c of inv.cohorts.filter((x) => treeCohorts.has(x.name))) {
      for (const g of c.resourceGroups) for (const f of g.flavors) if (f.flavor === flavor) {
        for (const q of f.resources) if (q.resource === resource) sum += q.nominal;
      }
    }
    return sum;
  };
  for (const g of cq.resourceGroups) {
    for (const f of g.flavors) {
      const m = out.get(f.flavor) ?? new Map<string, Cap>();
      for (const q of f.resources) {
        let borrow = cq.cohort ? pool(f.flavor, q.resource) : 0n;
        if (q.borrowingLimit !== undefined && q.borrowingLimit < borrow) borrow = q.borrowingLimit;
        m.set(q.resource, { nominal: q.nominal, ceiling: q.nominal + borrow });
      }
      out.set(f.flavor, m);
    }
  }
  return out;
}

/** All cohorts sharing a root with `cohort` (the borrowing domain). */
function cohortTree(cohort: string | undefined, inv: Inventory): Set<string> {
  if (!cohort) return new Set();
  const parent = new Map<string, string | undefined>(inv.cohorts.map((c) => [c.name, c.parent]));
  const rootOf = (c: string) => {
    const seen = new Set<string>();
    let cur = c;
    while (parent.get(cur) && !seen.has(cur)) { seen.add(cur); cur = parent.get(cur)!; }
    return cur;
  };
  const root = rootOf(cohort);
  const memberCohorts = inv.clusterQueues.map((q) => q.cohort).filter((c): c is string => !!c);
  const names = new Set<string>([cohort, ...inv.cohorts.map((c) => c.name), ...memberCohorts]);
  return new Set([...names].filter((n) => rootOf(n) === root));
}

function describeGang(g: Gang): string {
  return g.podSets.filter((p) => p.count > 0).map((p) => `${p.name} ${p.count}×(${formatResources(p.perPod)})`).join(' + ');
}

// Inventory entries are immutable snapshots: each ClusterQueue's covered resources are collected once.
const COVERED = new WeakMap<ClusterQueueEntry, ReadonlySet<string>>();

function coveredResources(cq: ClusterQueueEntry): ReadonlySet<string> {
  let covered = COVERED.get(cq);
  if (!covered) COVERED.set(cq, (covered = new Set(cq.resourceGroups.flatMap((g) => g.coveredResources))));
  return covered;
}

/**
 * The first PodSet that fits no single flavor of a resource group (Kueue assigns a PodSet one flavor per
 * resource group), with the message naming what it needs and what each flavor offers.
 */
function podSetMisfit(gang: Gang, cq: ClusterQueueEntry, caps: Map<string, Map<string, Cap>>): { field: string; message: string } | undefined {
  for (const ps of gang.podSets) {
    if (ps.count === 0) continue;
    for (const g of cq.resourceGroups) {
      const rs = [...ps.total.keys()].filter((k) => g.coveredResources.includes(k) && ps.total.get(k)! > 0n);
      if (!rs.length) continue;
      const ceilingOf = (flavor: string, k: string) => caps.get(flavor)?.get(k)?.ceiling ?? 0n;
      if (g.flavors.some((f) => rs.every((k) => ceilingOf(f.flavor, k) >= ps.total.get(k)!))) continue;
      const [needs, ...offers] = describeResourcesCompared([new Map(rs.map((k) => [k, ps.total.get(k)!])),
        ...g.flavors.map((f) => new Map(rs.map((k) => [k, ceilingOf(f.flavor, k)])))]);
      return {
        field: ps.path,
        message: `PodSet "${ps.name}" needs ${needs} (${ps.count} pods) in one flavor, but no flavor of ClusterQueue "${cq.name}" offers that `
          + `even with borrowing (${g.flavors.map((f, i) => `${f.flavor}: ${offers[i]}`).join('; ')}): the Workload can never be admitted`,
      };
    }
  }
  return undefined;
}

/**
 * The gang can ever fit its ClusterQueue: every requested resource is covered, each PodSet fits one
 * flavor, and the total fits nominal + borrowing ceiling. Warns when it fits only by borrowing and
 * when an elastic cluster cannot reach its maxReplicas.
 */
export const gangCanEverFit = defineRule({
  name: 'gangCanEverFit', source: 'kueue-workload', kinds: RAY_KINDS,
  description: 'The whole gang can ever fit its ClusterQueue (nominal quota plus borrowing).',
}, (r, obj, ctx) => {
  const inv = ctx.inventory;
  const q = queueNameOf(obj, ctx.kueue);
  if (!inv || !q) return r.findings;
  const lq = findLocalQueue(inv, namespaceOf(obj), q);
  const cq = lq ? findClusterQueue(inv, lq.clusterQueue) : undefined;
  if (!cq) return r.findings;
  let gang: Gang;
  try {
    gang = computeGang(obj, ctx.kueue);
  } catch {
    return r.findings; // containerResources reports unparsable quantities
  }
  const caps = clusterQueueCapacity(cq, inv);
  const field = QUEUE_FIELD;
  const covered = coveredResources(cq);
  const requested = sortedResourceNames(gang.total).filter((res) => gang.total.get(res)! > 0n);
  const uncovered = requested.filter((res) => !covered.has(res));
  if (uncovered.length) {
    r.error(field, `the gang requests ${uncovered.join(', ')}, which ClusterQueue "${cq.name}" does not cover: the Workload can never be admitted`,
      `add ${uncovered.join(', ')} to a resource group of ClusterQueue "${cq.name}", or remove the request`);
    return r.findings;
  }
  const sumOver = (res: string, pick: (c: Cap) => bigint): bigint => {
    let v = 0n;
    for (const m of caps.values()) {
      const c = m.get(res);
      if (c) v += pick(c);
    }
    return v;
  };
  const misfit = podSetMisfit(gang, cq, caps);
  if (misfit) {
    r.error(misfit.field, misfit.message, 'shrink the PodSet (fewer replicas or smaller pods) or raise that flavor\'s quota');
    return r.findings;
  }
  const nominal: ResourceMap = new Map(requested.map((res) => [res, sumOver(res, (c) => c.nominal)]));
  const ceiling: ResourceMap = new Map(requested.map((res) => [res, sumOver(res, (c) => c.ceiling)]));
  const over = requested.filter((res) => gang.total.get(res)! > ceiling.get(res)!);
  const needs: ResourceMap = new Map(requested.map((k) => [k, gang.total.get(k)!]));
  if (over.length) {
    const [needsText, ceilingText, nominalText] = describeResourcesCompared([needs, ceiling, nominal]);
    r.error(field, `the gang needs ${needsText} (${describeGang(gang)}), `
      + `but ClusterQueue "${cq.name}" can provide at most ${ceilingText} (nominal ${nominalText}`
      + `${cq.cohort ? ` plus borrowing in cohort "${cq.cohort}"` : ', no cohort to borrow from'}): the Workload stays pending forever`,
      `raise the quota of ClusterQueue "${cq.name}" for ${over.join(', ')}, put it in a cohort it can borrow from, or shrink the gang`);
    return r.findings;
  }
  const borrowing = requested.filter((res) => gang.total.get(res)! > nominal.get(res)!);
  if (borrowing.length) {
    const [needsText, nominalText] = describeResourcesCompared([needs, nominal]);
    r.warn(field, `the gang needs ${needsText}, above ClusterQueue "${cq.name}" `
      + `nominal ${nominalText}: it is admitted only by borrowing ${borrowing.join(', ')} from cohort "${cq.cohort}", and can be `
      + 'preempted when lenders reclaim it',
      `raise the nominal quota of ClusterQueue "${cq.name}" if this workload must not depend on borrowing`);
  }
  if (isElastic(obj) && usesAutoscaling(obj)) {
    const maxOf = (g: WorkerGroupSpecJson) => (isInteger(g?.maxReplicas) && g.maxReplicas < 1_000_000 ? g.maxReplicas : undefined);
    const atMax = gangTotalAtReplicas(obj, gang, maxOf);
    const overMax = requested.filter((res) => (atMax.get(res) ?? 0n) > ceiling.get(res)!);
    if (overMax.length) {
      const [atMaxText, ceilingText] = describeResourcesCompared([atMax, ceiling]);
      r.warn(field, `at maxReplicas the cluster needs ${atMaxText}, above what ClusterQueue "${cq.name}" can ever provide `
        + `(${ceilingText}): scale-ups past the quota stay pending with gated pods and no feedback to the autoscaler (kuberay#4846)`,
        `lower maxReplicas or raise the quota of ClusterQueue "${cq.name}"`);
    }
  }
  return r.findings;
});

export const CROSS_OBJECT_RULES: readonly RuleRecord[] = [
  queueExists, clusterQueueAdmitsNamespace, priorityClassAllowed, podPriorityClassAllowed, clusterSelectorSubmitter, gangCanEverFit,
];
