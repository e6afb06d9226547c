/**
 * One line per policy rule, for SARIF's rule metadata (GitHub code scanning shows it beside each
 * alert). Keyed by the rule name findings carry; a test fails when a rule of src/policy has none.
 */
export const RULE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  objectShape: 'Fields the policy reads have the types the CRD schema requires.',
  rayJobShutdownAfterFinish: 'A queued RayJob sets shutdownAfterJobFinishes: true, or its quota is never released (Kueue webhook).',
  rayJobClusterSource: 'A queued RayJob has rayClusterSpec and no clusterSelector (Kueue webhook).',
  elasticNeedsKueueVersion: 'Elastic or autoscaling Ray objects need a Kueue version that can admit them.',
  autoscalingOnlyWhenElastic: 'A queued Ray object autoscales only as an elastic job (Kueue webhook).',
  elasticFeatureGate: 'Elastic workloads need the ElasticJobsViaWorkloadSlices feature gate on.',
  elasticRayJobNoSuspend: 'An autoscaling RayJob does not set suspend: true on Kueue 0.14.7 to 0.16.0 (Kueue webhook).',
  workerGroupLimit: 'Worker groups stay within Kueue\'s PodSet limit, the submitter PodSet included.',
  podSetNames: 'Worker group names make valid, distinct PodSet names (not head or submitter).',
  kueueLabelValues: 'The queue-name and priority-class labels are valid object names.',
  rayObjectName: 'Ray object names are DNS-1035 labels short enough for KubeRay (47 or 53 characters).',
  podTemplateContainers: 'Every pod template has containers, the Ray container first.',
  uniqueWorkerGroupNames: 'Worker group names are unique (KubeRay).',
  workerReplicaBounds: 'Worker replicas lie within minReplicas and maxReplicas.',
  rayJobSubmissionMode: 'The RayJob submissionMode exists in the chosen KubeRay and meets its constraints.',
  rayJobLifecycle: 'RayJob lifecycle fields pass KubeRay\'s validation (suspend, TTL, deadlines, backoff, runtime env).',
  rayJobDeletion: 'deletionPolicy or deletionStrategy matches the KubeRay line; deletionRules excludes shutdownAfterJobFinishes.',
  autoscalerConstraints: 'Autoscaler v2 and worker-group suspend constraints of KubeRay.',
  managedByField: 'managedBy takes only KubeRay\'s values, on kinds and versions that have it.',
  containerResources: 'Container requests are parsable, not above limits, and set on Ray containers.',
  rayServiceVersionPair: 'A queued RayService runs on a Kueue and KubeRay pair that works together.',
  underCountedQuota: 'Resources the chosen Kueue does not count toward quota are flagged.',
  queueExists: 'The workload\'s LocalQueue exists in its namespace.',
  clusterQueueAdmitsNamespace: 'The LocalQueue\'s ClusterQueue exists, is active and admits the namespace.',
  priorityClassAllowed: 'The WorkloadPriorityClass exists and the tenant allows it.',
  gangCanEverFit: 'The whole gang can ever fit its ClusterQueue (nominal quota plus borrowing).',
  tenantQueueLabel: 'A Ray object in a tenant namespace carries the tenant\'s queue label.',
  yamlSyntax: 'The file is valid YAML.',
};
