/**
 * Reviewed, intended differences between the policy and an upstream oracle. Each entry is one line of
 * reason and names the finding's real source. Keep it short: every entry is a place where a user may
 * see the library and the cluster answer differently.
 */
import { compareVersions, FindingSource } from '../../src/policy';
import type { Case } from './support/compare';

export type Oracle = 'kubernetes' | 'kueue-webhook' | 'kueue-webhook-update' | 'kuberay' | 'kueue-workload';

export interface AllowedDifference {
  readonly id: string;
  readonly oracle: Oracle;
  /** Who really acts on the object (the finding's source). */
  readonly source: FindingSource;
  readonly reason: string;
  readonly matches: (c: Case) => boolean;
}

/** Rules about pod template content that the API server checks on the Pod, not on the Ray object. */
const POD_LEVEL_RULES = new Set(['podTemplateContainers', 'containerResources', 'nonNegativeResources']);

export const ALLOWED_DIFFERENCES: readonly AllowedDifference[] = [
  {
    id: 'unknown-fields',
    oracle: 'kubernetes',
    source: 'kubernetes',
    reason: 'the API server prunes fields its CRD does not define; kubectl refuses them first (server-side field validation is Strict by default) '
      + 'and the typed constructs cannot write them, so the webhook does not carry the CRD schemas',
    matches: (c) => c.theirs.denied && c.theirs.message.startsWith('pruned: ') && !c.ours.some((f) => f.severity === 'error'),
  },
  {
    id: 'pod-level',
    oracle: 'kubernetes',
    source: 'kubernetes',
    reason: 'the API server checks these on the Pods KubeRay creates, not on the Ray object: the object would be accepted and never get its pods, so '
      + 'the policy refuses it first',
    matches: (c) => !c.theirs.denied && c.ours.every((f) => f.severity !== 'error' || POD_LEVEL_RULES.has(f.rule)),
  },
  ...(['kueue-webhook', 'kueue-webhook-update'] as const).map((oracle): AllowedDifference => ({
    id: 'kueue-head-without-containers',
    oracle,
    source: 'kuberay-operator',
    reason: "Kueue's webhook fails on a head template without containers (a RayJob's: index out of range; from 0.19 with GCS fault tolerance on any "
      + "kind: \"cannot account for Redis cleanup resources\"); the policy refuses it as KubeRay's rule (the Ray container comes first)",
    matches: (c) => {
      const o = c.object;
      const cluster = o?.kind === 'RayJob' ? o.spec?.rayClusterSpec : o?.kind === 'RayService' ? o.spec?.rayClusterConfig : o?.spec;
      const containers = cluster?.headGroupSpec?.template?.spec?.containers;
      return c.theirs.denied && Array.isArray(containers) && containers.length === 0
        && (/head pod template must include the Ray container/.test(c.theirs.message) || (o?.kind === 'RayJob' && /index out of range/.test(c.theirs.message)));
    },
  })),
  ...(['kueue-webhook', 'kueue-webhook-update'] as const).map((oracle): AllowedDifference => ({
    id: 'rayservice-through-raycluster',
    oracle,
    source: 'kueue-webhook',
    reason: "before 0.17 Kueue queues a RayService through the RayCluster KubeRay creates from it (labels copied): Kueue's webhook refuses that "
      + 'RayCluster and the service never runs, so the policy refuses the RayService itself',
    matches: (c) => c.object?.kind === 'RayService' && compareVersions(c.kueue, 'v0.17.0') < 0 && !c.theirs.denied,
  })),
  {
    id: 'unknown-submission-mode',
    oracle: 'kuberay',
    source: 'kuberay-operator',
    reason: "KubeRay's validation lets an unknown submissionMode through (SidecarMode before 1.5, or a typo); its reconciler has no branch for it, "
      + 'so no submitter runs and the job stalls',
    matches: (c) => !c.theirs.denied && c.ours.filter((f) => f.severity === 'error').every((f) => f.rule === 'rayJobSubmissionMode'),
  },
  {
    id: 'multikueue-manager-skips',
    oracle: 'kuberay',
    source: 'kuberay-operator',
    reason: "KubeRay on a MultiKueue manager skips an object managed by kueue.x-k8s.io/multikueue; the worker's KubeRay validates the copy it runs, "
      + 'so the policy checks it before dispatch',
    matches: (c) => !c.theirs.denied && c.theirs.message.startsWith('not validated')
      && JSON.stringify(c.object?.spec ?? {}).includes('"managedBy":"kueue.x-k8s.io/multikueue"'),
  },
  {
    id: 'quota-mismatch',
    oracle: 'kueue-workload',
    source: 'kueue-workload',
    reason: 'Kueue admits the Workload for a pod count other than what KubeRay runs (replicas below minReplicas, a negative numOfHosts): the cluster '
      + 'runs beyond its quota or frees quota it uses, so the policy refuses it; checked: the admitted PodSet carries the count the finding names',
    matches: (c) => !c.theirs.denied && c.ours.filter((f) => f.severity === 'error').every((f) => {
      const claimed = /Kueue admits quota for (-?\d+)/.exec(f.message)?.[1];
      const group = /workerGroupSpecs\[(\d+)\]/.exec(f.field)?.[1];
      const spec = c.object?.kind === 'RayJob' ? c.object.spec?.rayClusterSpec : c.object?.kind === 'RayService' ? c.object.spec?.rayClusterConfig
        : c.object?.spec;
      const name = group !== undefined ? String(spec?.workerGroupSpecs?.[Number(group)]?.groupName ?? '').toLowerCase() : undefined;
      return f.rule === 'workerReplicaBounds' && claimed !== undefined && name !== undefined && c.theirs.message.includes(`${name}=${claimed}`);
    }),
  },
];
