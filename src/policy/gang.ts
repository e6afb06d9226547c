/**
 * The gang: the PodSets Kueue builds for a Ray object and the total it must fit into quota,
 * counted exactly as the chosen Kueue version counts them (the accounting capabilities in versions.ts;
 * Kueue pkg/controller/jobs/raycluster/common.go and rayjob_controller.go PodSets).
 *
 * Pure: input is the Kubernetes JSON of a RayJob, RayCluster or RayService.
 */
import { addInto, maxInto, parseQuantity, parseResourceList, ResourceMap } from './quantity';
import { isInteger, isRecord, listOf } from './json';
import {
  clusterSpecOf, ContainerJson, hasSubmitterPodSet, PodSpecJson, RAY_JOB, RayClusterSpecJson, RayObject, rayKindOf, submitterTemplateOf,
  WorkerGroupSpecJson,
} from './kinds';
import { KueueCapabilities } from './versions';

export interface PodSetAccounting {
  /** PodSet name as Kueue writes it (head, lower-cased group name, submitter). */
  readonly name: string;
  /** Where the template lives in the object, e.g. spec.rayClusterSpec.workerGroupSpecs[0]. */
  readonly path: string;
  /** Number of pods. */
  readonly count: number;
  /** Requests of one pod, in milli-units. */
  readonly perPod: ResourceMap;
  /** perPod × count. */
  readonly total: ResourceMap;
  /** Version extras that were added (e.g. "autoscaler sidecar 500m/512Mi"). */
  readonly extras: readonly string[];
}

export interface Gang {
  readonly podSets: readonly PodSetAccounting[];
  readonly total: ResourceMap;
}

export const DEFAULT_SUBMITTER_REQUESTS = { cpu: '500m', memory: '200Mi' } as const;
export const DEFAULT_SUBMITTER_LIMITS = { cpu: '1', memory: '1Gi' } as const;
export const SIDECAR_SUBMITTER_REQUESTS = { cpu: '500m', memory: '200Mi' } as const;
export const REDIS_CLEANUP_REQUESTS = { cpu: '200m', memory: '256Mi' } as const;
export const AUTOSCALER_SIDECAR_REQUESTS = { cpu: '500m', memory: '512Mi' } as const;

/** A container's requests as Kueue counts them: missing requests are filled from limits. */
export function containerRequests(container: ContainerJson | undefined, where: string): ResourceMap {
  const req = parseResourceList(container?.resources?.requests, `${where}.resources.requests`);
  const lim = parseResourceList(container?.resources?.limits, `${where}.resources.limits`);
  for (const [k, v] of lim) if (!req.has(k)) req.set(k, v);
  return req;
}

/**
 * Requests of one pod, per k8s.io/component-helpers resource.PodRequests: regular containers
 * summed, restartable (sidecar) init containers added, each other init container max'ed (on top of
 * the sidecars started before it), plus spec.overhead.
 */
export function podRequests(podSpec: PodSpecJson | undefined, where: string, extraContainers: ResourceMap[] = []): ResourceMap {
  const sum: ResourceMap = new Map();
  const containers = listOf(podSpec?.containers);
  for (let i = 0; i < containers.length; i++) addInto(sum, containerRequests(containers[i], `${where}.containers[${i}]`));
  for (const extra of extraContainers) addInto(sum, extra);
  // Most pods have neither init containers nor overhead: nothing to add, and no maps to build for them.
  const inits = listOf(podSpec?.initContainers);
  if (!inits.length && !isRecord(podSpec?.overhead)) return sum;
  const sidecars: ResourceMap = new Map();
  const initMax: ResourceMap = new Map();
  // Kubernetes max'es the whole running sidecar total in at every init container, which is quadratic in
  // their number (40,000 init containers with distinct resources took minutes). Only the resources the
  // container names can change that max: initMax already holds every other sidecar resource at least
  // at its current total, so updating just those gives the same map, in linear time.
  inits.forEach((c, i) => {
    const r = containerRequests(c, `${where}.initContainers[${i}]`);
    const sidecar = c?.restartPolicy === 'Always';
    if (sidecar) addInto(sidecars, r);
    for (const [k, v] of r) {
      const total = sidecar ? sidecars.get(k)! : (sidecars.get(k) ?? 0n) + v;
      const cur = initMax.get(k);
      if (cur === undefined || total > cur) initMax.set(k, total);
    }
  });
  addInto(sum, sidecars);
  maxInto(sum, initMax);
  addInto(sum, parseResourceList(isRecord(podSpec?.overhead) ? podSpec.overhead : undefined, `${where}.overhead`));
  return sum;
}

function literal(list: Record<string, string>): ResourceMap {
  return new Map(Object.entries(list).map(([k, v]) => [k, parseQuantity(v)]));
}

function times(map: ResourceMap, n: number): ResourceMap {
  return addInto(new Map(), map, BigInt(n));
}

function gcsFaultToleranceEnabled(obj: RayObject, cluster: RayClusterSpecJson): boolean {
  return cluster?.gcsFaultToleranceOptions !== undefined || obj.metadata?.annotations?.['ray.io/ft-enabled'] === 'true';
}

/** Worker-group pod count as Kueue counts it: replicas × numOfHosts. */
export function workerCount(group: WorkerGroupSpecJson | undefined, replicasOverride?: number): number {
  // The CRD defaults replicas to 0 and numOfHosts to 1 before any webhook or controller sees the object.
  // Only integers count (the CRD's int32): a wrong type is objectShape's finding, never a BigInt RangeError.
  const replicas = replicasOverride ?? (isInteger(group?.replicas) ? group.replicas : 0);
  const hosts = isInteger(group?.numOfHosts) && group.numOfHosts > 0 ? group.numOfHosts : 1;
  return replicas * hosts;
}

export interface GangOptions {
  /** Count each worker group at this many replicas instead of `replicas` (e.g. maxReplicas for elastic scale-up). */
  readonly workerReplicas?: (group: WorkerGroupSpecJson) => number | undefined;
}

/** Builds the PodSets and the total request of a Ray object for a Kueue version. */
export function computeGang(obj: RayObject, kueue: KueueCapabilities, opts: GangOptions = {}): Gang {
  const podSets: PodSetAccounting[] = [];
  const cs = clusterSpecOf(obj);
  if (cs) {
    const cluster = cs.spec;
    const headPath = `${cs.path}.headGroupSpec`;
    const headTemplate = cluster.headGroupSpec?.template;
    const extras: string[] = [];
    const extraContainers: ResourceMap[] = [];
    let headSpec = headTemplate?.spec;
    const headContainers = listOf(headSpec?.containers);
    if (kueue.countsRedisCleanup && gcsFaultToleranceEnabled(obj, cluster) && headSpec && headContainers.length) {
      // Redis cleanup job requests are max-merged into the head's Ray container (0.17.6+).
      const merged = maxInto(containerRequests(headContainers[0], `${headPath}.template.spec.containers[0]`), literal(REDIS_CLEANUP_REQUESTS));
      const first = { name: headContainers[0].name, resources: { requests: mapToList(merged) } };
      headSpec = { ...headSpec, containers: [first, ...headContainers.slice(1)] };
      extras.push('GCS fault-tolerance Redis cleanup 200m/256Mi max-merged into the Ray container');
    }
    if (kueue.countsAutoscalerSidecar && cluster.enableInTreeAutoscaling === true) {
      const res = isRecord(cluster.autoscalerOptions?.resources) ? cluster.autoscalerOptions.resources : undefined;
      const sidecar = res ? containerRequests({ resources: res }, `${cs.path}.autoscalerOptions`) : literal(AUTOSCALER_SIDECAR_REQUESTS);
      extraContainers.push(sidecar);
      extras.push(res ? 'autoscaler sidecar (autoscalerOptions.resources)' : 'autoscaler sidecar 500m/512Mi');
    }
    if (RAY_JOB.is(obj) && kueue.countsSidecarSubmitter && obj.spec?.submissionMode === 'SidecarMode') {
      extraContainers.push(literal(SIDECAR_SUBMITTER_REQUESTS));
      extras.push('SidecarMode submitter 500m/200Mi');
    }
    const perPod = podRequests(headSpec, `${headPath}.template.spec`, extraContainers);
    podSets.push({ name: 'head', path: headPath, count: 1, perPod, total: times(perPod, 1), extras });

    listOf(cluster.workerGroupSpecs).forEach((g, i) => {
      const path = `${cs.path}.workerGroupSpecs[${i}]`;
      const per = podRequests(g?.template?.spec, `${path}.template.spec`);
      const count = workerCount(g, opts.workerReplicas?.(g));
      podSets.push({ name: typeof g?.groupName === 'string' ? g.groupName.toLowerCase() : '', path, count, perPod: per, total: times(per, count),
        extras: [] });
    });
  }
  const submitterPath = rayKindOf(obj)?.submitterTemplatePath;
  if (submitterPath && hasSubmitterPodSet(obj)) {
    const tpl = submitterTemplateOf(obj);
    const per = tpl
      ? podRequests(tpl.spec, `${submitterPath}.spec`)
      : literal(DEFAULT_SUBMITTER_REQUESTS);
    podSets.push({ name: 'submitter', path: tpl ? submitterPath : 'spec.submissionMode', count: 1, perPod: per, total: times(per, 1),
      extras: tpl ? [] : ['default submitter 500m/200Mi'] });
  }
  const total: ResourceMap = new Map();
  for (const ps of podSets) addInto(total, ps.total);
  return { podSets, total };
}

/**
 * The total of `computeGang(obj, kueue, { workerReplicas })`, from the gang computeGang built for the same
 * object and Kueue version: only the pod counts change, so no request is parsed again.
 */
export function gangTotalAtReplicas(obj: RayObject, gang: Gang, workerReplicas: (group: WorkerGroupSpecJson) => number | undefined): ResourceMap {
  const cs = clusterSpecOf(obj);
  const groups = cs ? listOf(cs.spec.workerGroupSpecs) : [];
  const total: ResourceMap = new Map();
  // computeGang's order: the head and one PodSet per worker group when there is a cluster spec, then the submitter.
  gang.podSets.forEach((ps, i) => {
    if (cs && i >= 1 && i <= groups.length) addInto(total, ps.perPod, BigInt(workerCount(groups[i - 1], workerReplicas(groups[i - 1]))));
    else addInto(total, ps.total);
  });
  return total;
}

function mapToList(map: ResourceMap): Record<string, string> {
  // fromEntries defines own properties: a resource named "__proto__" stays a resource.
  return Object.fromEntries([...map].map(([k, v]) => [k, `${v}m`]));
}
