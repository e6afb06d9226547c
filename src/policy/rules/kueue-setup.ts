/**
 * Silent misconfigurations of Kueue's own objects and Configuration: Kueue accepts each, then admits nothing,
 * or runs as if a setting were off (issue 44). `check` runs them on its files' objects, as written; each names
 * the upstream code that decides it (at v0.19.2; the same in v0.14.8 and v0.17.0 unless noted). Pure.
 */
import type { ClusterQueueEntry, Inventory } from '../context';
import { Finding, kubeObjectRef, objectRef } from '../findings';
import { isRecord, stringOf } from '../json';
import type { KueueConfig } from '../plan/kueue-config';
import { parseFairWeight } from '../plan/fair-share';
import { topologyLevelsOf } from '../plan/topology';
import { RAY_KINDS, RayObject } from '../kinds';
import { namespaceOf, podTemplatesOf, queueNameOf } from '../ray-object';
import type { KueueCapabilities } from '../versions';
import type { RuleRecord } from './rule';
import { findClusterQueue, findLocalQueue } from './cross-object';
import { isKueueObject } from './kueue-api-version';
import { TAS_ANNOTATION } from './kueue-topology';

/**
 * What the rules read: every object of the files, the manager's Configuration as Kueue runs it when the files hold it,
 * and the queues as the other cross-object rules read them (check: the files, --queues and the cluster).
 */
export interface KueueSetupInput {
  readonly objects: readonly unknown[];
  readonly inventory?: Inventory;
  readonly config?: KueueConfig;
  readonly kueue: Pick<KueueCapabilities, 'version' | 'queueNameAnnotation'>;
}

/** A finding on the object at `index` of the input. */
export interface PlacedFinding {
  readonly index: number;
  readonly finding: Finding;
}

type Check = (input: KueueSetupInput) => PlacedFinding[];

const CONFIG_KEY = 'controller_manager_config.yaml';

function kindOf(o: unknown): string | undefined {
  return isRecord(o) ? stringOf(o.kind) : undefined;
}

function nameOf(o: unknown): string | undefined {
  return isRecord(o) && isRecord(o.metadata) ? stringOf(o.metadata.name) : undefined;
}

function specOf(o: unknown): Record<string, unknown> {
  return isRecord(o) && isRecord(o.spec) ? o.spec : {};
}

function isKueue(o: unknown, kind: string): boolean {
  return kindOf(o) === kind && isKueueObject(o);
}

/** The objects of one Kueue kind with their index, by name (the first of a name wins, as apply would keep one). */
function byName(objects: readonly unknown[], kind: string): Map<string, { index: number; object: unknown }> {
  const out = new Map<string, { index: number; object: unknown }>();
  objects.forEach((object, index) => {
    const name = nameOf(object);
    if (name !== undefined && isKueue(object, kind) && !out.has(name)) out.set(name, { index, object });
  });
  return out;
}

/** The flavors of a ClusterQueue, each with its resources' nominal quotas (milli). */
function flavorsOf(cq: ClusterQueueEntry): Array<{ flavor: string; nominal: Map<string, bigint> }> {
  return cq.resourceGroups.flatMap((g) => g.flavors.map((f) => ({ flavor: f.flavor, nominal: new Map(f.resources.map((r) => [r.resource,
    r.nominal])) })));
}

/**
 * Admission fair sharing with `usageHalfLifeTime: 0s` (its default): the usage never accumulates (the decay rate is
 * 0: admission_fair_sharing.go calculateAlphaRate, and localqueue_controller.go reconcileConsumedUsage resets it to
 * empty), so every LocalQueue weighs the same and the ClusterQueues that ask for it order as if it were off
 * (kueue#11134).
 */
const afsHalfLifeZero: Check = ({ objects, config }) => {
  if (!config?.admissionFairSharing || config.admissionFairSharing.usageHalfLifeTime !== 0) return [];
  const index = objects.findIndex((o) => kindOf(o) === 'ConfigMap' && isRecord(o) && isRecord(o.data) && typeof o.data[CONFIG_KEY] === 'string');
  if (index < 0) return [];
  const users = [...byName(objects, 'ClusterQueue').entries()]
    .filter(([, cq]) => { const s = specOf(cq.object).admissionScope; return isRecord(s) && s.admissionMode === 'UsageBasedAdmissionFairSharing'; })
    .map(([name]) => name);
  return [{ index, finding: {
    rule: AFS_HALF_LIFE_RULE.name, severity: 'warning', object: kubeObjectRef(objects[index]),
    field: `data[${CONFIG_KEY}].admissionFairSharing.usageHalfLifeTime`,
    message: 'admission fair sharing is on with usageHalfLifeTime 0s, where a LocalQueue\'s usage never accumulates: every LocalQueue weighs '
      + `the same, so ${users.length ? `ClusterQueue${users.length > 1 ? 's' : ''} ${users.map((u) => `"${u}"`).join(', ')} (admissionMode `
      + 'UsageBasedAdmissionFairSharing) order' : 'the ClusterQueues that ask for it order'} their workloads as if it were off (kueue#11134)`,
    fix: 'set usageHalfLifeTime to how long past usage should count, e.g. 168h (a week), or remove the admissionFairSharing section',
    source: 'kueue-workload',
  } }];
};

/**
 * A ClusterQueue with fair-sharing weight 0 that has no nominal quota of some resource: every workload needing it must
 * borrow, and a borrowing ClusterQueue of weight 0 has the largest share there is (fair_sharing.go: DRS.isWeightZero,
 * roundedWeightedShare gives math.MaxInt64), so it is admitted only when no other ClusterQueue of the cohort waits, and its
 * workloads are preempted first.
 */
const zeroWeightBorrower: Check = ({ objects, config, inventory }) => {
  if (!config?.fairSharing || !inventory) return [];
  const out: PlacedFinding[] = [];
  for (const [name, { index, object }] of byName(objects, 'ClusterQueue')) {
    const spec = specOf(object);
    const fair = isRecord(spec.fairSharing) ? spec.fairSharing.weight : undefined;
    const entry = findClusterQueue(inventory, name);
    if (fair === undefined || !entry?.cohort) continue;
    let weight: number;
    try {
      weight = parseFairWeight(fair, `ClusterQueue ${name}`).weight;
    } catch {
      continue; // a weight Kueue refuses is the CRD schema's finding
    }
    if (weight !== 0) continue;
    const flavors = flavorsOf(entry);
    const covered = new Set(flavors.flatMap((f) => [...f.nominal.keys()]));
    const borrowOnly = [...covered].filter((r) => flavors.every((f) => (f.nominal.get(r) ?? 0n) === 0n)).sort();
    if (!borrowOnly.length) continue;
    out.push({ index, finding: {
      rule: ZERO_WEIGHT_BORROWER_RULE.name, severity: 'warning', object: kubeObjectRef(object), field: 'spec.fairSharing.weight',
      message: `fair-sharing weight 0 on a ClusterQueue with no nominal quota of ${borrowOnly.join(', ')}: its workloads that need `
        + `${borrowOnly.length > 1 ? 'them' : 'it'} run only by borrowing, and while it borrows its share is the largest there is, so it is `
        + 'admitted only when no other ClusterQueue of its cohort has a workload waiting, and its workloads are the first preempted',
      fix: `give it a weight above 0 (e.g. 0.1 to rank it last without starving it), or nominal quota of ${borrowOnly.join(', ')}`,
      source: 'kueue-workload',
    } });
  }
  return out;
};

/**
 * A TAS ResourceFlavor (spec.topologyName) whose Topology is not in the files: Kueue marks every ClusterQueue with
 * the flavor inactive (clusterqueue.go: TopologyNotFound, "there is no Topology %q for TAS flavor %q"). With Node
 * objects in the files: a node serves the flavor only with the flavor's node labels and every level's label
 * (util/tas/node.go NodeMatchesFlavor); a flavor no node serves fits nothing.
 */
const tasFlavorTopology: Check = ({ objects }) => {
  const topologies = byName(objects, 'Topology');
  const nodes = objects.filter((o) => kindOf(o) === 'Node' && isRecord(o) && o.apiVersion === 'v1');
  const out: PlacedFinding[] = [];
  for (const [name, { index, object }] of byName(objects, 'ResourceFlavor')) {
    const topologyName = stringOf(specOf(object).topologyName);
    if (topologyName === undefined) continue;
    const topology = topologies.get(topologyName);
    if (!topology) {
      out.push({ index, finding: {
        rule: TAS_FLAVOR_TOPOLOGY_RULE.name, severity: 'warning', object: kubeObjectRef(object), field: 'spec.topologyName',
        message: `Topology "${topologyName}" is not among the files' objects: unless the cluster has it, Kueue marks each ClusterQueue `
          + `using flavor "${name}" inactive (TopologyNotFound: there is no Topology "${topologyName}" for TAS flavor "${name}") and it `
          + 'admits nothing',
        fix: `define Topology "${topologyName}" with the node labels of its levels, or name an existing Topology`, source: 'kueue-workload',
      } });
      continue;
    }
    if (!nodes.length) continue;
    const levels = topologyLevelsOf(topology.object);
    const wanted = isRecord(specOf(object).nodeLabels) ? specOf(object).nodeLabels as Record<string, unknown> : {};
    const labelsOf = (n: unknown) => (isRecord(n) && isRecord(n.metadata) && isRecord(n.metadata.labels) ? n.metadata.labels : {});
    const ofFlavor = nodes.filter((n) => Object.entries(wanted).every(([k, v]) => labelsOf(n)[k] === v));
    const serving = ofFlavor.filter((n) => levels.every((l) => l in labelsOf(n)));
    if (serving.length) continue;
    const missing = levels.filter((l) => !ofFlavor.some((n) => l in labelsOf(n)));
    out.push({ index, finding: {
      rule: TAS_FLAVOR_TOPOLOGY_RULE.name, severity: 'error', object: kubeObjectRef(object), field: 'spec.topologyName',
      message: `no Node of the files serves TAS flavor "${name}": of the ${nodes.length} Nodes, ${ofFlavor.length} carry the flavor's `
        + `nodeLabels, and none of those carries the label of every level of Topology "${topologyName}"`
        + `${missing.length ? ` (${missing.join(', ')} on none)` : ''}, so every workload on the flavor stays pending`,
      fix: `label the nodes with ${missing.length ? missing.join(', ') : 'each level\'s label'}, or list in Topology "${topologyName}" only `
        + 'the levels the nodes carry', source: 'kueue-workload',
    } });
  }
  return out;
};


/**
 * A Ray pod template's TAS annotation naming a level that no Topology of its ClusterQueue's TAS flavors has: Kueue
 * skips each such flavor and the workload stays pending (scheduler/flavorassigner/tas_flavorassigner.go: "Flavor %q does
 * not contain the requested level"; tas_flavor_snapshot.go says "no requested topology level" for a slice level).
 * Read when the object's LocalQueue and ClusterQueue are known, and the files hold its flavors and their Topologies.
 */
const podSetTopologyLevel: Check = ({ objects, kueue, inventory }) => {
  if (!inventory) return [];
  const flavors = byName(objects, 'ResourceFlavor');
  const topologies = byName(objects, 'Topology');
  const out: PlacedFinding[] = [];
  objects.forEach((o, index) => {
    if (!isRecord(o) || o.apiVersion !== 'ray.io/v1' || !RAY_KINDS.includes(kindOf(o) as never)) return;
    const obj = o as RayObject;
    const queue = queueNameOf(obj, kueue);
    const lq = queue !== undefined ? findLocalQueue(inventory, namespaceOf(obj), queue) : undefined;
    const cq = lq?.clusterQueue !== undefined ? findClusterQueue(inventory, lq.clusterQueue) : undefined;
    if (!cq) return;
    const levelSets: string[][] = [];
    const tasFlavors: string[] = [];
    for (const f of flavorsOf(cq)) {
      const topologyName = stringOf(specOf(flavors.get(f.flavor)?.object).topologyName);
      const topology = topologyName !== undefined ? topologies.get(topologyName) : undefined;
      if (topologyName !== undefined && !topology) return; // a Topology the files lack: tasFlavorTopology says so
      if (topology) {
        levelSets.push(topologyLevelsOf(topology.object));
        tasFlavors.push(f.flavor);
      }
    }
    if (!levelSets.length) return;
    const known = new Set(levelSets.flat());
    for (const t of podTemplatesOf(obj)) {
      const ann = isRecord(t.template) && isRecord(t.template.metadata) && isRecord(t.template.metadata.annotations)
        ? t.template.metadata.annotations : {};
      for (const key of [TAS_ANNOTATION.required, TAS_ANNOTATION.preferred, TAS_ANNOTATION.sliceRequired]) {
        const level = stringOf(ann[key]);
        if (level === undefined || known.has(level)) continue;
        out.push({ index, finding: {
          rule: PODSET_TOPOLOGY_LEVEL_RULE.name, severity: 'error', object: objectRef(obj), field: `${t.path}.metadata.annotations[${key}]`,
          message: `level "${level}" is in no Topology of ClusterQueue "${cq.name}"'s TAS flavors (levels: ${[...known].join(', ')}): `
            + `Kueue skips each of them for the PodSet and the workload stays pending (Kueue: Flavor "${tasFlavors[0]}" does not contain the `
            + 'requested level)',
          fix: `name one of ${[...known].join(', ')}, or add level "${level}" to the flavor's Topology`, source: 'kueue-workload',
        } });
      }
    }
  });
  return out;
};

export const AFS_HALF_LIFE_RULE: RuleRecord<Check> = {
  name: 'admissionFairSharingHalfLife', source: 'kueue-workload', kinds: [], check: afsHalfLifeZero,
  description: 'Admission fair sharing is not on with usageHalfLifeTime 0s, where usage never accumulates and it orders nothing.',
};

export const ZERO_WEIGHT_BORROWER_RULE: RuleRecord<Check> = {
  name: 'fairSharingZeroWeight', source: 'kueue-workload', kinds: [], check: zeroWeightBorrower,
  description: 'With fair sharing on, a ClusterQueue that must borrow a resource (no nominal quota of it) has a fair-sharing weight above 0.',
};

export const TAS_FLAVOR_TOPOLOGY_RULE: RuleRecord<Check> = {
  name: 'tasFlavorTopology', source: 'kueue-workload', kinds: [], check: tasFlavorTopology,
  description: 'A TAS ResourceFlavor\'s Topology exists, and some Node carries the flavor\'s node labels and every level of it.',
};

export const PODSET_TOPOLOGY_LEVEL_RULE: RuleRecord<Check> = {
  name: 'podSetTopologyLevel', source: 'kueue-workload', kinds: RAY_KINDS, check: podSetTopologyLevel,
  description: 'A pod template\'s TAS topology annotation names a level of a Topology of its ClusterQueue\'s TAS flavors.',
};

/** The rules on Kueue's own objects and Configuration, in the order check reports them. */
export const KUEUE_SETUP_RULES: readonly RuleRecord<Check>[] = [AFS_HALF_LIFE_RULE, ZERO_WEIGHT_BORROWER_RULE, TAS_FLAVOR_TOPOLOGY_RULE,
  PODSET_TOPOLOGY_LEVEL_RULE];

/** Every finding of the rules above, in their order. */
export function kueueSetupFindings(input: KueueSetupInput): PlacedFinding[] {
  return KUEUE_SETUP_RULES.flatMap((r) => r.check(input));
}
