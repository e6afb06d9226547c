// A failing input for every policy rule (pure functions, plain Kubernetes JSON in, findings out).
// A test fails when a rule is added to RULES without a case here.
import { Inventory, PolicyContext, RAY_KINDS, RULE_RECORDS, RULES, evaluateRayObject, formatFinding, parseQuantity } from '../../src/policy';
import { kubeRayCapabilities, kueueCapabilities } from '../../src/policy/versions';

const q = parseQuantity;

const inventory: Inventory = {
  localQueues: [
    { namespace: 'default', name: 'user-queue', clusterQueue: 'cluster-queue' },
    { namespace: 'team-a', name: 'default', clusterQueue: 'team-a',
      tenant: { allowedPriorityClasses: ['dev-priority'], defaultPriorityClass: 'dev-priority' } },
    { namespace: 'team-a', name: 'orphan', clusterQueue: 'missing-cq' },
    { namespace: 'team-a', name: 'b-only', clusterQueue: 'team-b' },
    { namespace: 'default', name: 'held', clusterQueue: 'held-cq' },
    { namespace: 'default', name: 'small', clusterQueue: 'small-cq' },
  ],
  clusterQueues: [
    { name: 'cluster-queue', namespaceSelector: {}, resourceGroups: [{ coveredResources: ['cpu', 'memory'],
      flavors: [{ flavor: 'default-flavor', resources: [{ resource: 'cpu', nominal: q('3') }, { resource: 'memory', nominal: q('6G') }] }] }] },
    { name: 'team-a', cohort: 'research',
      namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['team-a'] }] },
      resourceGroups: [{ coveredResources: ['cpu', 'memory'], flavors: [{ flavor: 'default-flavor',
        resources: [{ resource: 'cpu', nominal: q('2'), borrowingLimit: q('2') }, { resource: 'memory', nominal: q('8Gi') }] }] }] },
    { name: 'team-b', cohort: 'research',
      namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['team-b'] }] },
      resourceGroups: [{ coveredResources: ['cpu', 'memory'], flavors: [{ flavor: 'default-flavor',
        resources: [{ resource: 'cpu', nominal: q('4'), lendingLimit: q('3') }, { resource: 'memory', nominal: q('8Gi') }] }] }] },
    { name: 'held-cq', namespaceSelector: {}, stopPolicy: 'Hold', resourceGroups: [{ coveredResources: ['cpu', 'memory'],
      flavors: [{ flavor: 'default-flavor', resources: [{ resource: 'cpu', nominal: q('10') }, { resource: 'memory', nominal: q('10Gi') }] }] }] },
    { name: 'small-cq', namespaceSelector: {}, resourceGroups: [{ coveredResources: ['cpu', 'memory'], flavors: [
      { flavor: 'a', resources: [{ resource: 'cpu', nominal: q('1.5') }, { resource: 'memory', nominal: q('10Gi') }] },
      { flavor: 'b', resources: [{ resource: 'cpu', nominal: q('1.5') }, { resource: 'memory', nominal: q('10Gi') }] },
    ] }] },
  ],
  cohorts: [],
  priorityClasses: [{ name: 'dev-priority', value: 100 }, { name: 'prod-priority', value: 1000 }],
  namespaces: [{ name: 'team-a', labels: { 'kubernetes.io/metadata.name': 'team-a' } }],
};

// A MultiKueue manager: cluster-queue requires the check "mk" of worker "w1", whose queues are the base ones
// without default/user-queue's twin "small" (so a job on "small" has no LocalQueue there).
const mkInventory: Inventory = {
  ...inventory,
  clusterQueues: inventory.clusterQueues.map((c) => (c.name === 'cluster-queue' || c.name === 'small-cq' ? { ...c, admissionChecks: ['mk'] } : c)),
  multiKueueChecks: [{ name: 'mk', clusters: ['w1'] }],
  workerClusters: [{ name: 'w1', inventory: { ...inventory, localQueues: inventory.localQueues.filter((l) => l.name !== 'small') } }],
};

function ctx(kueue = 'v0.19.2', kuberay = 'v1.6.2', extra: Partial<PolicyContext> = {}): PolicyContext {
  return { kueue: kueueCapabilities(kueue), kubeRay: kubeRayCapabilities(kuberay), inventory, ...extra };
}

const container = (name: string, cpu = '1', memory = '2Gi') =>
  ({ name, image: 'rayproject/ray:2.46.0', resources: { requests: { cpu, memory }, limits: { cpu, memory } } });

function clusterSpec(): any {
  return {
    rayVersion: '2.46.0',
    headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [container('ray-head')] } } },
    workerGroupSpecs: [{ groupName: 'small-group', replicas: 1, minReplicas: 1, maxReplicas: 5, rayStartParams: {},
      template: { spec: { containers: [container('ray-worker')] } } }],
  };
}

function job(mut: (o: any) => void = () => {}): any {
  const o: any = {
    apiVersion: 'ray.io/v1', kind: 'RayJob',
    metadata: { name: 'toy', namespace: 'default',
      labels: { 'kueue.x-k8s.io/queue-name': 'user-queue', 'kueue.x-k8s.io/priority-class': 'dev-priority' } },
    spec: { entrypoint: 'python x.py', shutdownAfterJobFinishes: true, suspend: true, rayClusterSpec: clusterSpec() },
  };
  mut(o);
  return o;
}

function elasticCluster(mut: (o: any) => void = () => {}): any {
  const spec = clusterSpec();
  spec.enableInTreeAutoscaling = true;
  spec.workerGroupSpecs[0] = { ...spec.workerGroupSpecs[0], replicas: 0, minReplicas: 0, maxReplicas: 4 };
  const o: any = {
    apiVersion: 'ray.io/v1', kind: 'RayCluster',
    metadata: { name: 'rc', namespace: 'default', labels: { 'kueue.x-k8s.io/queue-name': 'user-queue' },
      annotations: { 'kueue.x-k8s.io/elastic-job': 'true' } },
    spec,
  };
  mut(o);
  return o;
}

function service(mut: (o: any) => void = () => {}): any {
  const spec = clusterSpec();
  spec.enableInTreeAutoscaling = true;
  const o: any = {
    apiVersion: 'ray.io/v1', kind: 'RayService',
    metadata: { name: 'svc', namespace: 'default', labels: { 'kueue.x-k8s.io/queue-name': 'user-queue' },
      annotations: { 'kueue.x-k8s.io/elastic-job': 'true' } },
    spec: { serveConfigV2: 'applications: []', rayClusterConfig: spec },
  };
  mut(o);
  return o;
}

interface Case {
  rule: string;
  name: string;
  obj: any;
  ctx: PolicyContext;
  severity: 'error' | 'warning';
  field: string;
  message: RegExp;
}

const workers = (n: number) => Array.from({ length: n }, (_, i) =>
  ({ groupName: `g${i}`, replicas: 1, minReplicas: 1, maxReplicas: 1, template: { spec: { containers: [container('w', '100m', '100Mi')] } } }));

// Topology-aware scheduling annotations (Kueue's TAS validation), on a template's metadata.
const TAS = {
  req: 'kueue.x-k8s.io/podset-required-topology', pref: 'kueue.x-k8s.io/podset-preferred-topology',
  unc: 'kueue.x-k8s.io/podset-unconstrained-topology', sliceReq: 'kueue.x-k8s.io/podset-slice-required-topology',
  size: 'kueue.x-k8s.io/podset-slice-size', layers: 'kueue.x-k8s.io/podset-slice-required-topology-constraints',
  group: 'kueue.x-k8s.io/podset-group-name',
};
const annotate = (template: any, annotations: Record<string, string>) => { template.metadata = { ...template.metadata, annotations }; };
const tasHead = (a: Record<string, string>) => job((o) => annotate(o.spec.rayClusterSpec.headGroupSpec.template, a));
const tasWorker = (a: Record<string, string>, replicas = 1) => job((o) => {
  o.spec.rayClusterSpec.workerGroupSpecs[0].replicas = replicas;
  annotate(o.spec.rayClusterSpec.workerGroupSpecs[0].template, a);
});
const HEAD_ANN = 'spec.rayClusterSpec.headGroupSpec.template.metadata.annotations';
const WORKER_ANN = 'spec.rayClusterSpec.workerGroupSpecs[0].template.metadata.annotations';

const CASES: Case[] = [
  { rule: 'rayJobShutdownAfterFinish', name: 'cluster kept after finishing', obj: job((o) => { o.spec.shutdownAfterJobFinishes = false; delete o.spec.suspend; }), ctx: ctx(), severity: 'error', field: 'spec.shutdownAfterJobFinishes', message: /a kueue managed job should delete the cluster after finishing/ },
  { rule: 'rayJobClusterSource', name: 'clusterSelector with rayClusterSpec', obj: job((o) => { o.spec.clusterSelector = { 'ray.io/cluster': 'c' }; delete o.spec.suspend; }), ctx: ctx(), severity: 'error', field: 'spec.clusterSelector', message: /should not use an existing cluster/ },
  { rule: 'rayJobClusterSource', name: 'neither clusterSelector nor rayClusterSpec', obj: job((o) => { delete o.spec.rayClusterSpec; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec', message: /rayClusterSpec is required for Kueue-managed jobs/ },
  { rule: 'rayJobClusterSource', name: 'clusterSelector only is ignored by Kueue >= 0.13.7', obj: job((o) => { o.spec.clusterSelector = { 'ray.io/cluster': 'c' }; delete o.spec.rayClusterSpec; delete o.spec.suspend; }), ctx: ctx(), severity: 'warning', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /ignores a RayJob that selects an existing cluster/ },
  { rule: 'rayJobClusterSource', name: 'clusterSelector only is refused by 0.13.4', obj: job((o) => { o.spec.clusterSelector = { 'ray.io/cluster': 'c' }; delete o.spec.rayClusterSpec; delete o.spec.suspend; }), ctx: ctx('v0.13.4', 'v1.4.2'), severity: 'error', field: 'spec.clusterSelector', message: /should not use an existing cluster/ },
  { rule: 'elasticNeedsKueueVersion', name: 'elastic RayCluster on 0.13.4', obj: elasticCluster(), ctx: ctx('v0.13.4', 'v1.4.2'), severity: 'error', field: 'metadata.annotations[kueue.x-k8s.io/elastic-job]', message: /^elastic RayCluster needs Kueue >= v0.14.0/ },
  { rule: 'elasticNeedsKueueVersion', name: 'autoscaling RayJob on 0.13.4', obj: job((o) => { o.spec.rayClusterSpec.enableInTreeAutoscaling = true; }), ctx: ctx('v0.13.4', 'v1.4.2'), severity: 'error', field: 'spec.rayClusterSpec.enableInTreeAutoscaling', message: /elastic RayJob needs Kueue >= v0.14.7/ },
  { rule: 'autoscalingOnlyWhenElastic', name: 'autoscaling RayCluster without the annotation (0.18+ message)', obj: elasticCluster((o) => { delete o.metadata.annotations; }), ctx: ctx(), severity: 'error', field: 'spec.enableInTreeAutoscaling', message: /kueue-managed RayCluster can use autoscaling only as an elastic job/ },
  { rule: 'autoscalingOnlyWhenElastic', name: 'autoscaling RayCluster without the annotation (0.14-0.17 message)', obj: elasticCluster((o) => { delete o.metadata.annotations; }), ctx: ctx('v0.17.8'), severity: 'error', field: 'spec.enableInTreeAutoscaling', message: /can use autoscaling only when the ElasticJobsViaWorkloadSlices feature gate is on/ },
  { rule: 'autoscalingOnlyWhenElastic', name: 'short-term path checks unqueued RayJobs too (0.14.8)', obj: job((o) => { o.metadata.labels = {}; o.spec.rayClusterSpec.enableInTreeAutoscaling = true; delete o.spec.suspend; }), ctx: ctx('v0.14.8', 'v1.4.2'), severity: 'error', field: 'spec.rayClusterSpec.enableInTreeAutoscaling', message: /RayJob should enable workload slicing if autoscaling is enabled/ },
  { rule: 'elasticFeatureGate', name: 'gate declared off', obj: elasticCluster(), ctx: ctx('v0.19.2', 'v1.6.2', { elasticGate: 'off' }), severity: 'error', field: 'metadata.annotations[kueue.x-k8s.io/elastic-job]', message: /feature gate is off/ },
  { rule: 'elasticFeatureGate', name: 'gate unknown where it is off by default', obj: elasticCluster(), ctx: ctx('v0.17.8'), severity: 'warning', field: 'metadata.annotations[kueue.x-k8s.io/elastic-job]', message: /Alpha and off by default on Kueue v0.17.8/ },
  { rule: 'elasticRayJobNoSuspend', name: 'suspended elastic RayJob on the 0.14 short-term path', obj: job((o) => { o.metadata.annotations = { 'kueue.x-k8s.io/elastic-job': 'true' }; o.spec.rayClusterSpec.enableInTreeAutoscaling = true; }), ctx: ctx('v0.14.8', 'v1.4.2'), severity: 'error', field: 'spec.suspend', message: /RayJob should not set suspend to true if autoscaling is enabled/ },
  { rule: 'workerGroupLimit', name: '8 worker groups on 0.17 (webhook cap 7)', obj: elasticCluster((o) => { o.spec.workerGroupSpecs = workers(8); }), ctx: ctx('v0.17.8'), severity: 'error', field: 'spec.workerGroupSpecs', message: /Too many: 8: must have at most 7 items/ },
  { rule: 'workerGroupLimit', name: '7 worker groups + submitter on 0.17 (Workload rejected)', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs = workers(7); }), ctx: ctx('v0.17.8'), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs', message: /= 9 PodSets, above the Workload limit of 8/ },
  { rule: 'workerGroupLimit', name: '18 worker groups on 0.19 (webhook cap 18 PodSets)', obj: elasticCluster((o) => { o.spec.workerGroupSpecs = workers(18); }), ctx: ctx(), severity: 'error', field: 'spec.workerGroupSpecs', message: /Too many: 19: must have at most 18 items/ },
  { rule: 'podSetNames', name: 'worker group named head', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].groupName = 'head'; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[0].groupName', message: /"head" is reserved for the head group/ },
  { rule: 'podSetNames', name: 'worker group named submitter in K8sJobMode', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].groupName = 'submitter'; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[0].groupName', message: /collides with the K8sJobMode submitter PodSet/ },
  { rule: 'podSetNames', name: 'names equal after lower-casing', obj: job((o) => { const w = o.spec.rayClusterSpec.workerGroupSpecs; w.push({ ...w[0], groupName: 'Small-Group' }); }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[1].groupName', message: /give the same PodSet name "small-group"/ },
  { rule: 'kueueLabelValues', name: 'queue name is not a DNS subdomain', obj: job((o) => { o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'User_Queue'; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /is not a valid LocalQueue name/ },
  { rule: 'objectShape', name: 'workerGroupSpecs is a mapping, not a list', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs = { groupName: 'w' }; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs', message: /must be a list, not \{"groupName":"w"\} \(the CRD schema refuses it\)/ },
  { rule: 'objectShape', name: 'replicas written as a string', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].replicas = '3'; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[0].replicas', message: /must be an integer, not 3/ },
  { rule: 'rayObjectName', name: 'RayJob name over 47 characters', obj: job((o) => { o.metadata.name = 'a'.repeat(48); }), ctx: ctx(), severity: 'error', field: 'metadata.name', message: /48 characters; KubeRay refuses RayJob names longer than 47/ },
  { rule: 'rayObjectName', name: 'generateName leaves no room for the suffix', obj: job((o) => { delete o.metadata.name; o.metadata.generateName = 'a'.repeat(43); }), ctx: ctx(), severity: 'error', field: 'metadata.generateName', message: /exceeds KubeRay's 47-character limit/ },
  { rule: 'rayObjectName', name: 'RayCluster name not DNS-1035', obj: elasticCluster((o) => { o.metadata.name = '1cluster'; }), ctx: ctx(), severity: 'error', field: 'metadata.name', message: /is not a DNS-1035 label/ },
  { rule: 'podTemplateContainers', name: 'worker template without containers', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers = []; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers', message: /has no containers/ },
  { rule: 'uniqueWorkerGroupNames', name: 'duplicate groupName', obj: job((o) => { const w = o.spec.rayClusterSpec.workerGroupSpecs; w.push({ ...w[0] }); }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[1].groupName', message: /"small-group" is used twice/ },
  { rule: 'workerReplicaBounds', name: 'replicas above maxReplicas', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].replicas = 6; }), ctx: ctx(), severity: 'warning', field: 'spec.rayClusterSpec.workerGroupSpecs[0].replicas', message: /KubeRay creates 5 pods while Kueue admits quota for 6/ },
  { rule: 'workerReplicaBounds', name: 'replicas below minReplicas runs beyond quota', obj: job((o) => { const g = o.spec.rayClusterSpec.workerGroupSpecs[0]; g.minReplicas = 2; g.replicas = 1; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[0].replicas', message: /KubeRay creates 2 pods while Kueue admits quota for 1, so the cluster runs beyond its quota/ },
  { rule: 'labelSyntax', name: 'label value the API server refuses', obj: job((o) => { o.metadata.labels.team = '-ml'; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[team]', message: /label value "-ml" is invalid/ },
  { rule: 'multiKueueElasticAutoscaling', name: 'autoscaling elastic RayCluster dispatched by MultiKueue', obj: elasticCluster((o) => { o.spec.managedBy = 'kueue.x-k8s.io/multikueue'; }), ctx: ctx('v0.19.2', 'v1.6.2', { elasticGate: 'on' }), severity: 'error', field: 'spec.enableInTreeAutoscaling', message: /not supported for a MultiKueue-managed elastic RayCluster/ },
  { rule: 'rayServiceSpec', name: 'RayService upgradeStrategy.type unknown to KubeRay 1.4', obj: { apiVersion: 'ray.io/v1', kind: 'RayService', metadata: { name: 'svc', namespace: 'default' }, spec: { upgradeStrategy: { type: 'NewClusterWithIncrementalUpgrade' }, rayClusterConfig: { headGroupSpec: { template: { spec: { containers: [container('h')] } } } } } }, ctx: ctx('v0.19.2', 'v1.4.2'), severity: 'error', field: 'spec.upgradeStrategy.type', message: /is not one of NewCluster, None \(KubeRay v1.4.2\)/ },
  // Issue 23's mutants of upstream samples that check let through, each now caught.
  { rule: 'rayClusterConfig', name: 'rayStartParams num-cpus together with the group\'s resources (KubeRay 1.5+)', obj: job((o) => { o.spec.rayClusterSpec.headGroupSpec.rayStartParams = { 'num-cpus': '1' }; o.spec.rayClusterSpec.headGroupSpec.resources = { CPU: '1' }; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.headGroupSpec.resources', message: /set both in resources and in rayStartParams \(num-cpus\)/ },
  { rule: 'rayClusterConfig', name: 'rayStartParams.labels', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].rayStartParams = { labels: 'zone=a' }; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[0].rayStartParams.labels', message: /does not take Ray node labels in rayStartParams/ },
  { rule: 'rayClusterConfig', name: 'a group label key that is not a qualified name', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].labels = { 'zone a': 'x' }; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[0].labels[zone a]', message: /Ray label "zone a": its name part/ },
  { rule: 'rayClusterConfig', name: 'upgradeStrategy in a RayJob\'s cluster spec (KubeRay 1.6)', obj: job((o) => { o.spec.rayClusterSpec.upgradeStrategy = { type: 'Recreate' }; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.upgradeStrategy', message: /refuses the RayCluster it creates for a RayJob/ },
  { rule: 'gcsFaultTolerance', name: 'RAY_REDIS_ADDRESS without GCS fault tolerance', obj: job((o) => { o.spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].env = [{ name: 'RAY_REDIS_ADDRESS', value: 'redis:6379' }]; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].env', message: /RAY_REDIS_ADDRESS turns GCS fault tolerance on implicitly/ },
  { rule: 'rayAuthOptions', name: 'token authentication with a Ray older than 2.52.0', obj: job((o) => { o.spec.rayClusterSpec.authOptions = { mode: 'token' }; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.rayVersion', message: /authOptions.mode token needs Ray >= 2.52.0, not 2.46.0/ },
  { rule: 'autoscalerConstraints', name: 'a negative autoscaler idleTimeoutSeconds (KubeRay 1.6)', obj: elasticCluster((o) => { o.spec.autoscalerOptions = { idleTimeoutSeconds: -1 }; }), ctx: ctx(), severity: 'error', field: 'spec.autoscalerOptions.idleTimeoutSeconds', message: /must be 0 or more, not -1/ },
  { rule: 'rayJobDeletion', name: 'deletion-rule TTLs out of deletion order', obj: job((o) => { o.spec.shutdownAfterJobFinishes = false; o.spec.deletionStrategy = { deletionRules: [{ policy: 'DeleteWorkers', condition: { jobStatus: 'SUCCEEDED', ttlSeconds: 60 } }, { policy: 'DeleteCluster', condition: { jobStatus: 'SUCCEEDED', ttlSeconds: 30 } }] }; }), ctx: ctx(), severity: 'error', field: 'spec.deletionStrategy.deletionRules[1].condition.ttlSeconds', message: /DeleteCluster after 30 s comes before DeleteWorkers after 60 s/ },
  { rule: 'admissionGatedBy', name: 'admission-gated-by with an empty gate name', obj: job((o) => { o.metadata.annotations = { 'kueue.x-k8s.io/admission-gated-by': 'example.com/a,,example.com/b' }; }), ctx: ctx(), severity: 'error', field: 'metadata.annotations[kueue.x-k8s.io/admission-gated-by]', message: /cannot contain empty gate names/ },
  { rule: 'kueueLabelValues', name: 'max-exec-time-seconds of 0', obj: job((o) => { o.metadata.labels['kueue.x-k8s.io/max-exec-time-seconds'] = '0'; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]', message: /must be greater than 0, not 0/ },
  { rule: 'kueueLabelValues', name: 'max-exec-time-seconds not an integer', obj: job((o) => { o.metadata.labels['kueue.x-k8s.io/max-exec-time-seconds'] = '1h'; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]', message: /"1h" is not a whole number of seconds/ },
  { rule: 'rayServiceSpec', name: 'an initializing-timeout annotation that is no duration (KubeRay 1.5+)', obj: service((o) => { o.metadata.annotations = { 'ray.io/initializing-timeout': 'soon' }; }), ctx: ctx(), severity: 'error', field: 'metadata.annotations[ray.io/initializing-timeout]', message: /"soon" is neither a Go duration nor whole seconds/ },
  { rule: 'rayJobShutdownAfterFinish', name: 'no shutdownAfterJobFinishes on a job with deletionRules: the fix does not lead into KubeRay\'s refusal', obj: job((o) => { o.spec.shutdownAfterJobFinishes = false; o.spec.deletionStrategy = { deletionRules: [{ policy: 'DeleteCluster', condition: { jobStatus: 'SUCCEEDED' } }] }; }), ctx: ctx(), severity: 'error', field: 'spec.shutdownAfterJobFinishes', message: /a Kueue-managed RayJob cannot use deletionRules/ },
  { rule: 'workerReplicaBounds', name: 'a worker group of 0 replicas without autoscaling never runs a pod', obj: job((o) => { Object.assign(o.spec.rayClusterSpec.workerGroupSpecs[0], { replicas: 0, minReplicas: 0 }); }), ctx: ctx(), severity: 'warning', field: 'spec.rayClusterSpec.workerGroupSpecs[0].replicas', message: /worker group "small-group" has 0 replicas and autoscaling is off: it never runs a pod/ },
  { rule: 'gcsFaultTolerance', name: 'ft-enabled annotation with gcsFaultToleranceOptions', obj: job((o) => { o.metadata.annotations = { 'ray.io/ft-enabled': 'true' }; o.spec.rayClusterSpec.gcsFaultToleranceOptions = { redisAddress: 'redis:6379' }; }), ctx: ctx(), severity: 'error', field: 'metadata.annotations[ray.io/ft-enabled]', message: /cannot be combined with gcsFaultToleranceOptions/ },
  { rule: 'rayJobDeletion', name: 'DeleteNone with shutdownAfterJobFinishes (KubeRay 1.6)', obj: job((o) => { o.spec.deletionStrategy = { onSuccess: { policy: 'DeleteNone' }, onFailure: { policy: 'DeleteCluster' } }; }), ctx: ctx(), severity: 'error', field: 'spec.deletionStrategy.onSuccess.policy', message: /DeleteNone contradicts shutdownAfterJobFinishes/ },
  { rule: 'workerReplicaBounds', name: 'minReplicas above maxReplicas', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].minReplicas = 9; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[0].minReplicas', message: /minReplicas 9 is above maxReplicas 5/ },
  { rule: 'rayJobSubmissionMode', name: 'SidecarMode on KubeRay 1.4.2', obj: job((o) => { o.spec.submissionMode = 'SidecarMode'; }), ctx: ctx('v0.19.2', 'v1.4.2'), severity: 'error', field: 'spec.submissionMode', message: /SidecarMode needs KubeRay >= v1.5.0/ },
  { rule: 'rayJobSubmissionMode', name: 'SidecarMode with a submitter template', obj: job((o) => { o.spec.submissionMode = 'SidecarMode'; o.spec.submitterPodTemplate = { spec: { containers: [container('s')] } }; }), ctx: ctx(), severity: 'error', field: 'spec.submitterPodTemplate', message: /SidecarMode does not use a submitter pod/ },
  { rule: 'rayJobLifecycle', name: 'suspend without shutdownAfterJobFinishes', obj: job((o) => { o.spec.shutdownAfterJobFinishes = false; }), ctx: ctx(), severity: 'error', field: 'spec.suspend', message: /suspended RayJob needs shutdownAfterJobFinishes: true/ },
  { rule: 'rayJobLifecycle', name: 'runtimeEnvYAML not a mapping', obj: job((o) => { o.spec.runtimeEnvYAML = '- a\n- b'; }), ctx: ctx(), severity: 'error', field: 'spec.runtimeEnvYAML', message: /not a YAML mapping/ },
  { rule: 'rayJobDeletion', name: 'deletionPolicy on KubeRay 1.6 is pruned', obj: job((o) => { o.spec.deletionPolicy = 'DeleteCluster'; }), ctx: ctx(), severity: 'error', field: 'spec.deletionPolicy', message: /has no deletionPolicy: the API server silently prunes it/ },
  { rule: 'rayJobDeletion', name: 'deletionRules with shutdownAfterJobFinishes', obj: job((o) => { o.spec.deletionStrategy = { deletionRules: [] }; }), ctx: ctx(), severity: 'error', field: 'spec.deletionStrategy.deletionRules', message: /cannot be combined with shutdownAfterJobFinishes/ },
  { rule: 'autoscalerConstraints', name: 'autoscaler v2 with restartPolicy Always', obj: elasticCluster((o) => { o.spec.autoscalerOptions = { version: 'v2' }; o.spec.headGroupSpec.template.spec.restartPolicy = 'Always'; }), ctx: ctx(), severity: 'error', field: 'spec.headGroupSpec.template.spec.restartPolicy', message: /autoscaler v2 needs restartPolicy Never or unset/ },
  { rule: 'managedByField', name: 'RayService managedBy before KubeRay 1.6', obj: service((o) => { o.spec.managedBy = 'ray.io/kuberay-operator'; }), ctx: ctx('v0.19.2', 'v1.5.2'), severity: 'error', field: 'spec.managedBy', message: /has no RayService managedBy/ },
  { rule: 'managedByField', name: 'unknown managedBy value', obj: elasticCluster((o) => { o.spec.managedBy = 'me'; }), ctx: ctx(), severity: 'error', field: 'spec.managedBy', message: /managedBy "me" is not one of/ },
  { rule: 'containerResources', name: 'request above limit', obj: job((o) => { o.spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].resources = { requests: { cpu: '2' }, limits: { cpu: '1' } }; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].resources.requests.cpu', message: /request 2 exceeds limit 1/ },
  { rule: 'nonNegativeResources', name: 'a negative CPU request on a worker (issue 40: the object sat suspended with no Workload)', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources.requests.cpu = '-1'; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources.requests.cpu', message: /cpu -1 is negative: the API server refuses the pods KubeRay creates, and Kueue makes no Workload/ },
  { rule: 'planAnnotations', name: 'an expected duration that is no Go duration (issue 43)', obj: job((o) => { o.metadata.annotations = { 'cdk8s-kueue-ray.io/expected-duration': '10 minutes' }; }), ctx: ctx(), severity: 'error', field: 'metadata.annotations[cdk8s-kueue-ray.io/expected-duration]', message: /"10 minutes" is not a Go duration above 0/ },
  { rule: 'containerResources', name: 'Ray container without requests', obj: job((o) => { delete o.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources; }), ctx: ctx(), severity: 'warning', field: 'spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources', message: /no cpu or memory request or limit, so Kueue counts 0/ },
  { rule: 'rayServiceVersionPair', name: 'native RayService with KubeRay 1.4.2 deadlocks', obj: service(), ctx: ctx('v0.19.2', 'v1.4.2'), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /kuberay#4686/ },
  { rule: 'rayServiceVersionPair', name: 'RayCluster-level RayService with KubeRay 1.6 is suspect', obj: service(), ctx: ctx('v0.14.8', 'v1.6.2'), severity: 'warning', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /resets the cluster's suspend/ },
  { rule: 'underCountedQuota', name: 'SidecarMode on 0.17.0', obj: job((o) => { o.spec.submissionMode = 'SidecarMode'; }), ctx: ctx('v0.17.0'), severity: 'warning', field: 'spec.submissionMode', message: /does not count the SidecarMode submitter/ },
  { rule: 'underCountedQuota', name: 'autoscaler sidecar before 0.19', obj: elasticCluster(), ctx: ctx('v0.17.8'), severity: 'warning', field: 'spec.enableInTreeAutoscaling', message: /does not count the autoscaler sidecar/ },
  { rule: 'underCountedQuota', name: 'history-server collector on KubeRay 1.7', obj: elasticCluster((o) => { o.spec.historyServerOptions = { collectorOptions: { image: 'c', env: [{ name: 'STORAGE_BACKEND', value: 'S3' }, { name: 'S3_REGION', value: 'r' }] } }; }), ctx: ctx('v0.19.2', 'v1.7.0'), severity: 'warning', field: 'spec.historyServerOptions.collectorOptions', message: /does not count the history-server collector container .*50m CPU \/ 64Mi/ },
  { rule: 'rayServiceSuspend', name: 'spec.suspend before KubeRay 1.7', obj: service((o) => { o.spec.suspend = true; }), ctx: ctx(), severity: 'error', field: 'spec.suspend', message: /KubeRay v1.6.2 has no RayService spec.suspend/ },
  { rule: 'kubeRayAlphaGates', name: 'networkPolicy without its gate', obj: elasticCluster((o) => { o.spec.networkPolicy = {}; }), ctx: ctx('v0.19.2', 'v1.7.0'), severity: 'warning', field: 'spec.networkPolicy', message: /RayClusterNetworkPolicy feature gate \(alpha\)/ },
  { rule: 'kubeRayClusterFeatures', name: 'worker group priority without autoscaler v2', obj: elasticCluster((o) => { o.spec.rayVersion = '2.56.0'; o.spec.workerGroupSpecs[0].priority = 5; }), ctx: ctx('v0.19.2', 'v1.7.0'), severity: 'error', field: 'spec.workerGroupSpecs[0].priority', message: /priority needs autoscaler v2/ },
  { rule: 'queueExists', name: 'queue missing in the namespace', obj: job((o) => { o.metadata.namespace = 'team-b'; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /LocalQueue "user-queue" does not exist in namespace "team-b" \(it exists in default/ },
  { rule: 'clusterQueueAdmitsNamespace', name: 'ClusterQueue missing', obj: job((o) => { o.metadata.namespace = 'team-a'; o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'orphan'; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /points at ClusterQueue "missing-cq", which does not exist/ },
  { rule: 'clusterQueueAdmitsNamespace', name: 'namespaceSelector excludes the namespace', obj: job((o) => { o.metadata.namespace = 'team-a'; o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'b-only'; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /ClusterQueue "team-b" namespaceSelector .* does not match namespace "team-a"/ },
  { rule: 'clusterQueueAdmitsNamespace', name: 'stopped ClusterQueue', obj: job((o) => { o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'held'; }), ctx: ctx(), severity: 'warning', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /has stopPolicy Hold/ },
  { rule: 'priorityClassAllowed', name: 'priority class missing', obj: job((o) => { o.metadata.labels['kueue.x-k8s.io/priority-class'] = 'urgent'; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/priority-class]', message: /WorkloadPriorityClass "urgent" does not exist/ },
  { rule: 'priorityClassAllowed', name: 'priority class not allowed for the tenant', obj: job((o) => { o.metadata.namespace = 'team-a'; o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'default'; o.metadata.labels['kueue.x-k8s.io/priority-class'] = 'prod-priority'; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/priority-class]', message: /"prod-priority" is not allowed for the tenant of namespace "team-a" \(allowed: dev-priority\)/ },
  { rule: 'clusterSelectorSubmitter', name: 'a clusterSelector RayJob with a submitter pod in a tenant namespace', obj: job((o) => { o.metadata.namespace = 'team-a'; delete o.spec.rayClusterSpec; o.spec.clusterSelector = { 'ray.io/cluster': 'mine' }; }), ctx: ctx(), severity: 'error', field: 'spec.submissionMode', message: /submitter pod K8sJobMode creates would run outside tenant namespace "team-a"'s quota/ },
  { rule: 'podPriorityClassAllowed', name: 'a pod template priorityClassName in a tenant namespace', obj: job((o) => { o.metadata.namespace = 'team-a'; o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'default'; o.spec.rayClusterSpec.headGroupSpec.template.spec.priorityClassName = 'system-cluster-critical'; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.headGroupSpec.template.spec.priorityClassName', message: /pod priority class "system-cluster-critical" is not allowed in tenant namespace "team-a" \(the tenant allows none\)/ },
  { rule: 'multiKueueDispatch', name: 'MultiKueue queue without managedBy', obj: job(), ctx: ctx('v0.19.2', 'v1.6.2', { inventory: mkInventory }), severity: 'error', field: 'spec.managedBy', message: /Expecting spec.managedBy to be kueue.x-k8s.io\/multikueue/ },
  { rule: 'multiKueueDispatch', name: 'RayService through MultiKueue before Kueue 0.17', obj: service((o) => { o.spec.rayClusterConfig.enableInTreeAutoscaling = false; }), ctx: ctx('v0.14.8', 'v1.4.2', { inventory: mkInventory }), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /Kueue v0.14.8 has no MultiKueue adapter for RayService .*v0.17.0/ },
  { rule: 'multiKueueDispatch', name: 'worker lacks the LocalQueue', obj: job((o) => { o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'small'; o.spec.managedBy = 'kueue.x-k8s.io/multikueue'; }), ctx: ctx('v0.19.2', 'v1.6.2', { inventory: mkInventory }), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /worker cluster "w1" .*LocalQueue "small" does not exist in namespace "default"/ },
  { rule: 'multiKueueDispatch', name: 'gang fits no worker', obj: job((o) => { o.spec.managedBy = 'kueue.x-k8s.io/multikueue'; o.spec.rayClusterSpec.workerGroupSpecs[0].replicas = 2; }), ctx: ctx('v0.19.2', 'v1.6.2', { inventory: mkInventory }), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /the gang fits no worker cluster of AdmissionCheck "mk"/ },
  { rule: 'multiKueueDispatch', name: 'managedBy MultiKueue on a queue without the check', obj: job((o) => { o.spec.managedBy = 'kueue.x-k8s.io/multikueue'; o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'held'; }), ctx: ctx('v0.19.2', 'v1.6.2', { inventory: mkInventory }), severity: 'error', field: 'spec.managedBy', message: /has no MultiKueue AdmissionCheck: this cluster's KubeRay skips the object/ },
  { rule: 'gangCanEverFit', name: 'gang above nominal + borrowing', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].replicas = 2; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /the gang needs cpu 3.5, memory 6344Mi \(head 1×\(cpu 1, memory 2Gi\) \+ small-group 2×\(cpu 1, memory 2Gi\) \+ submitter 1×\(cpu 0.5, memory 200Mi\)\), but ClusterQueue "cluster-queue" can provide at most cpu 3, memory 5722\.05Mi \(nominal cpu 3, memory 5722\.05Mi/ },
  { rule: 'gangCanEverFit', name: 'resource not covered by the ClusterQueue', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources.limits['nvidia.com/gpu'] = '1'; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /requests nvidia.com\/gpu, which ClusterQueue "cluster-queue" does not cover/ },
  { rule: 'gangCanEverFit', name: 'fits only by borrowing', obj: job((o) => { o.metadata.namespace = 'team-a'; o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'default'; }), ctx: ctx(), severity: 'warning', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /admitted only by borrowing cpu from cohort "research"/ },
  { rule: 'gangCanEverFit', name: 'a PodSet larger than any single flavor', obj: job((o) => { o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'small'; o.spec.submissionMode = 'HTTPMode'; o.spec.rayClusterSpec.workerGroupSpecs[0].replicas = 2; o.spec.rayClusterSpec.workerGroupSpecs[0].minReplicas = 1; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[0]', message: /PodSet "small-group" needs cpu 2, memory 4Gi \(2 pods\) in one flavor/ },
  { rule: 'gangCanEverFit', name: 'elastic maxReplicas beyond quota', obj: elasticCluster((o) => { o.spec.workerGroupSpecs[0].maxReplicas = 10; }), ctx: ctx(), severity: 'warning', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /at maxReplicas the cluster needs .* scale-ups past the quota stay pending/ },
  // topologyAnnotations: Kueue's TAS validation of the pod templates' annotations, one case per error site.
  { rule: 'topologyAnnotations', name: 'two topology annotations on one template', obj: tasHead({ [TAS.req]: 'rack', [TAS.pref]: 'rack' }), ctx: ctx(), severity: 'error', field: HEAD_ANN, message: /must not contain more than one topology annotation: \[\"kueue.x-k8s.io\/podset-required-topology\"/ },
  { rule: 'topologyAnnotations', name: 'required topology not a label key', obj: tasWorker({ [TAS.req]: 'a/b/c' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.req}]`, message: /Invalid value: \"a\/b\/c\": a qualified name must consist of alphanumeric characters/ },
  { rule: 'topologyAnnotations', name: 'preferred topology not a label key', obj: tasWorker({ [TAS.pref]: 'rack block' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.pref}]`, message: /name part must consist of alphanumeric characters/ },
  { rule: 'topologyAnnotations', name: 'slice topology not a label key', obj: tasWorker({ [TAS.sliceReq]: 'Example.com/rack', [TAS.size]: '1' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.sliceReq}]`, message: /prefix part a lowercase RFC 1123 subdomain/ },
  { rule: 'topologyAnnotations', name: 'numeric group name', obj: tasHead({ [TAS.req]: 'rack', [TAS.group]: '42' }), ctx: ctx(), severity: 'error', field: `${HEAD_ANN}[${TAS.group}]`, message: /Invalid value: \"42\": must not be a number/ },
  { rule: 'topologyAnnotations', name: 'group name with a slice size', obj: tasWorker({ [TAS.req]: 'rack', [TAS.group]: 'g', [TAS.sliceReq]: 'host', [TAS.size]: '1' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.group}]`, message: /Forbidden: may not be set when 'kueue.x-k8s.io\/podset-slice-size' is specified/ },
  { rule: 'topologyAnnotations', name: 'group name with a slice topology', obj: tasWorker({ [TAS.req]: 'rack', [TAS.group]: 'g', [TAS.sliceReq]: 'host', [TAS.size]: '1' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.group}]`, message: /Forbidden: may not be set when 'kueue.x-k8s.io\/podset-slice-required-topology' is specified/ },
  { rule: 'topologyAnnotations', name: 'group name without a required or preferred topology', obj: tasHead({ [TAS.group]: 'g' }), ctx: ctx(), severity: 'error', field: `${HEAD_ANN}[${TAS.group}]`, message: /may not be set when neither 'kueue.x-k8s.io\/podset-preferred-topology' nor/ },
  { rule: 'topologyAnnotations', name: 'unconstrained not a boolean', obj: tasHead({ [TAS.unc]: 'yes' }), ctx: ctx(), severity: 'error', field: `${HEAD_ANN}[${TAS.unc}]`, message: /Invalid value: \"yes\": must be a boolean value/ },
  { rule: 'topologyAnnotations', name: 'slice size not a number', obj: tasWorker({ [TAS.sliceReq]: 'host', [TAS.size]: 'four' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.size}]`, message: /Invalid value: \"four\": must be a numeric value/ },
  { rule: 'topologyAnnotations', name: 'slice size 0', obj: tasWorker({ [TAS.sliceReq]: 'host', [TAS.size]: '0' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.size}]`, message: /Invalid value: \"0\": must be greater than or equal to 1/ },
  { rule: 'topologyAnnotations', name: 'slice topology without a slice size', obj: tasWorker({ [TAS.sliceReq]: 'host' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.size}]`, message: /Required value: must be set when 'kueue.x-k8s.io\/podset-slice-required-topology' is specified/ },
  { rule: 'topologyAnnotations', name: 'slice size without a slice topology', obj: tasWorker({ [TAS.size]: '1' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.size}]`, message: /Forbidden: may not be set when 'kueue.x-k8s.io\/podset-slice-required-topology' is not specified/ },
  { rule: 'topologyAnnotations', name: "slice size above the PodSet's pods", obj: tasWorker({ [TAS.sliceReq]: 'host', [TAS.size]: '3' }, 2), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.size}]`, message: /Invalid value: \"3\": must not be greater than pod set count 2/ },
  { rule: 'topologyAnnotations', name: 'a group of one PodSet', obj: tasHead({ [TAS.req]: 'rack', [TAS.group]: 'g' }), ctx: ctx(), severity: 'error', field: `${HEAD_ANN}[${TAS.group}]`, message: /can only define groups of exactly 2 pod sets, got: 1 pod set\(s\)/ },
  { rule: 'topologyAnnotations', name: 'a group of two multi-pod PodSets', obj: job((o) => { const w = o.spec.rayClusterSpec.workerGroupSpecs; w.push({ ...w[0], groupName: 'big', replicas: 3 }); w[0].replicas = 2; for (const g of w) annotate(g.template = { ...g.template }, { [TAS.req]: 'rack', [TAS.group]: 'g' }); }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.group}]`, message: /at least one pod set has only 1 replica, got: 2 replica\(s\) and 3 replica\(s\) in the group/ },
  { rule: 'topologyAnnotations', name: 'a group with different topologies', obj: job((o) => { annotate(o.spec.rayClusterSpec.headGroupSpec.template, { [TAS.req]: 'rack', [TAS.group]: 'g' }); annotate(o.spec.rayClusterSpec.workerGroupSpecs[0].template, { [TAS.pref]: 'rack', [TAS.group]: 'g' }); }), ctx: ctx(), severity: 'error', field: HEAD_ANN, message: /must specify 'kueue.x-k8s.io\/podset-required-topology' or 'kueue.x-k8s.io\/podset-preferred-topology' topology consistent with 'spec.rayClusterSpec.workerGroupSpecs\[0\].template.metadata.annotations' in group 'g'/ },
  { rule: 'topologyAnnotations', name: 'the submitter paired with the head on another topology', obj: job((o) => { annotate(o.spec.rayClusterSpec.headGroupSpec.template, { [TAS.req]: 'rack', [TAS.group]: 'g' }); o.spec.submitterPodTemplate = { metadata: { annotations: { [TAS.req]: 'block', [TAS.group]: 'g' } }, spec: { containers: [container('s')] } }; }), ctx: ctx(), severity: 'error', field: 'spec.submitterPodTemplate.metadata.annotations', message: /topology consistent with 'spec.rayClusterSpec.headGroupSpec.template.metadata.annotations' in group 'g'/ },
  { rule: 'topologyAnnotations', name: 'a submitter unconstrained value Kueue cannot parse', obj: job((o) => { o.spec.submitterPodTemplate = { metadata: { annotations: { [TAS.unc]: 'maybe' } }, spec: { containers: [container('s')] } }; }), ctx: ctx(), severity: 'error', field: `spec.submitterPodTemplate.metadata.annotations[${TAS.unc}]`, message: /strconv.ParseBool: parsing \"maybe\": invalid syntax: Kueue cannot build the object's PodSets/ },
  { rule: 'topologyAnnotations', name: 'multi-layer constraints with the gate off by default (0.17)', obj: tasWorker({ [TAS.layers]: '[{"topology":"rack","size":1}]' }), ctx: ctx('v0.17.8'), severity: 'error', field: `${WORKER_ANN}[${TAS.layers}]`, message: /Forbidden: the TASMultiLayerTopology feature gate must be enabled to use this annotation/ },
  { rule: 'topologyAnnotations', name: 'multi-layer constraints with a slice topology', obj: tasWorker({ [TAS.layers]: '[{"topology":"rack","size":1}]', [TAS.sliceReq]: 'host', [TAS.size]: '1' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.layers}]`, message: /Forbidden: may not be set when 'kueue.x-k8s.io\/podset-slice-required-topology' is specified/ },
  { rule: 'topologyAnnotations', name: 'multi-layer constraints with a slice size', obj: tasWorker({ [TAS.layers]: '[{"topology":"rack","size":1}]', [TAS.sliceReq]: 'host', [TAS.size]: '1' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.layers}]`, message: /Forbidden: may not be set when 'kueue.x-k8s.io\/podset-slice-size' is specified/ },
  { rule: 'topologyAnnotations', name: 'multi-layer constraints with a group name', obj: tasWorker({ [TAS.layers]: '[{"topology":"rack","size":1}]', [TAS.req]: 'rack', [TAS.group]: 'g' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.group}]`, message: /may not be set when 'kueue.x-k8s.io\/podset-slice-required-topology-constraints' is specified/ },
  { rule: 'topologyAnnotations', name: 'multi-layer constraints not JSON', obj: tasWorker({ [TAS.layers]: 'rack=4' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.layers}]`, message: /Invalid value: \"rack=4\": must be a valid JSON array/ },
  { rule: 'topologyAnnotations', name: 'no multi-layer constraint', obj: tasWorker({ [TAS.layers]: '[]' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.layers}]`, message: /topology constraints must contain between 1 and 3 entries/ },
  { rule: 'topologyAnnotations', name: 'a multi-layer topology not a label key', obj: tasWorker({ [TAS.layers]: '[{"topology":"rack block","size":1}]' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.layers}][0].topology`, message: /Invalid value: \"rack block\": name part must consist/ },
  { rule: 'topologyAnnotations', name: 'a multi-layer size of 0', obj: tasWorker({ [TAS.layers]: '[{"topology":"rack","size":0}]' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.layers}][0].size`, message: /Invalid value: 0: must be greater than or equal to 1/ },
  { rule: 'topologyAnnotations', name: 'a multi-layer topology twice', obj: tasWorker({ [TAS.layers]: '[{"topology":"rack","size":4},{"topology":"rack","size":2}]' }, 4), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.layers}][1].topology`, message: /Duplicate value: \"rack \(also at index 0\)\"/ },
  { rule: 'topologyAnnotations', name: 'a multi-layer size that does not divide its parent', obj: tasWorker({ [TAS.layers]: '[{"topology":"block","size":4},{"topology":"rack","size":3}]' }, 4), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.layers}][1].size`, message: /Invalid value: 3: must evenly divide the parent layer size 4/ },
  { rule: 'topologyAnnotations', name: "a first multi-layer size above the PodSet's pods", obj: tasWorker({ [TAS.layers]: '[{"topology":"block","size":4}]' }, 2), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.layers}]`, message: /Invalid value: 4: must not be greater than pod set count 2/ },
  { rule: 'topologyAnnotations', name: 'a RayService slice size above the worker pods', obj: service((o) => { annotate(o.spec.rayClusterConfig.workerGroupSpecs[0].template, { [TAS.sliceReq]: 'host', [TAS.size]: '2' }); }), ctx: ctx(), severity: 'error', field: `spec.rayClusterConfig.workerGroupSpecs[0].template.metadata.annotations[${TAS.size}]`, message: /must not be greater than pod set count 1 \(Kueue webhook\)/ },
  { rule: 'topologyAnnotations', name: 'before 0.17 the RayCluster KubeRay creates for a RayService is refused', obj: service((o) => { o.spec.rayClusterConfig.enableInTreeAutoscaling = false; annotate(o.spec.rayClusterConfig.headGroupSpec.template, { [TAS.unc]: 'no way' }); }), ctx: ctx('v0.14.8', 'v1.4.2'), severity: 'error', field: `spec.rayClusterConfig.headGroupSpec.template.metadata.annotations[${TAS.unc}]`, message: /must be a boolean value \(Kueue webhook, on the RayCluster KubeRay creates\)/ },
];

describe.each(CASES.map((c) => [c.rule, c.name, c] as const))('%s: %s', (rule, _name, c) => {
  test('reports the field, the problem and a fix', () => {
    const findings = RULES[rule](c.obj, c.ctx);
    const hit = findings.find((f) => f.severity === c.severity && c.message.test(f.message));
    const messages = findings.map((f) => f.message);
    expect({ rule, findings: messages }).toEqual({ rule, findings: expect.arrayContaining([expect.stringMatching(c.message)]) });
    expect(hit).toBeDefined();
    expect(hit!.field).toBe(c.field);
    expect(hit!.fix.length).toBeGreaterThan(10);
    expect(formatFinding(hit!)).toMatch(/^(RayJob|RayCluster|RayService) [a-z0-9-]+\/\S+: /);
  });
});

test('the valid base objects produce no errors on the default pair', () => {
  for (const o of [job(), elasticCluster(), service()]) {
    expect(evaluateRayObject(o, ctx()).filter((f) => f.severity === 'error').map(formatFinding)).toEqual([]);
  }
});

test('external references are not reported as missing', () => {
  const o = job((x) => {
    x.metadata.labels['kueue.x-k8s.io/queue-name'] = 'elsewhere';
    x.metadata.labels['kueue.x-k8s.io/priority-class'] = 'theirs';
  });
  expect(RULES.queueExists(o, ctx('v0.19.2', 'v1.6.2', { external: { localQueue: true } }))).toEqual([]);
  expect(RULES.priorityClassAllowed(o, ctx('v0.19.2', 'v1.6.2', { external: { priorityClass: true } }))).toEqual([]);
});

test('every rule has at least one failing-input case', () => {
  const covered = new Set(CASES.map((c) => c.rule));
  expect(Object.keys(RULES).filter((r) => !covered.has(r))).toEqual([]);
});

test('each case reports only on a kind its rule record lists', () => {
  for (const c of CASES) {
    const record = RULE_RECORDS.find((r) => r.name === c.rule)!;
    expect({ rule: c.rule, kind: c.obj.kind, listed: record.kinds.includes(c.obj.kind) }).toEqual({ rule: c.rule, kind: c.obj.kind, listed: true });
  }
  // A rule on some kinds reports nothing on an object of another kind (the failing inputs, re-kinded).
  for (const c of CASES) {
    const record = RULE_RECORDS.find((r) => r.name === c.rule)!;
    for (const kind of RAY_KINDS.filter((k) => !record.kinds.includes(k))) {
      expect({ rule: c.rule, kind, findings: record.check({ ...c.obj, kind }, c.ctx) }).toEqual({ rule: c.rule, kind, findings: [] });
    }
  }
});

describe('topologyAnnotations', () => {
  const layers = (json: string) => ({ [TAS.layers]: json });
  test.each([
    ['a head and worker group paired on one topology', job((o) => {
      annotate(o.spec.rayClusterSpec.headGroupSpec.template, { [TAS.req]: 'rack', [TAS.group]: 'g' });
      o.spec.rayClusterSpec.workerGroupSpecs[0].replicas = 4;
      annotate(o.spec.rayClusterSpec.workerGroupSpecs[0].template, { [TAS.req]: 'rack', [TAS.group]: 'g' });
    }), ctx()],
    ['a slice size within replicas × numOfHosts', job((o) => {
      const g = o.spec.rayClusterSpec.workerGroupSpecs[0];
      g.replicas = 2;
      g.numOfHosts = 2;
      annotate(g.template, { [TAS.pref]: 'block', [TAS.sliceReq]: 'kubernetes.io/hostname', [TAS.size]: '4' });
    }), ctx()],
    ['valid multi-layer constraints on 0.19',
      tasWorker(layers('[{"topology":"block","size":4},{"topology":"kubernetes.io/hostname","size":2}]'), 4), ctx()],
    ['multi-layer constraints on 0.14, which does not know the annotation', tasWorker(layers('not json')), ctx('v0.14.8', 'v1.4.2')],
    ['any TAS annotation on 0.13, where TopologyAwareScheduling is off by default', tasHead({ [TAS.unc]: 'yes', [TAS.size]: '0' }),
      ctx('v0.13.4', 'v1.4.2')],
    ['a submitter outside K8sJobMode', job((o) => {
      o.spec.submissionMode = 'HTTPMode';
      o.spec.submitterPodTemplate = { metadata: { annotations: { [TAS.unc]: 'maybe' } }, spec: { containers: [container('s')] } };
    }), ctx()],
  ] as const)('accepts %s', (_name, obj, c) => {
    expect(RULES.topologyAnnotations(obj, c).map(formatFinding)).toEqual([]);
  });

  test('the multi-layer annotation: ignored by 0.14, refused by 0.17 (gate off by default), checked by 0.19', () => {
    const obj = tasWorker(layers('[{"topology":"rack","size":2}]'));
    const messages = (v: string) => RULES.topologyAnnotations(obj, ctx(v)).map((f) => f.message);
    expect(messages('v0.14.8')).toEqual([]);
    expect(messages('v0.17.0')).toEqual([expect.stringMatching(/TASMultiLayerTopology feature gate must be enabled/),
      expect.stringMatching(/Invalid value: 2: must not be greater than pod set count 1/)]);
    expect(messages('v0.19.2')).toEqual([expect.stringMatching(/Invalid value: 2: must not be greater than pod set count 1/)]);
  });

  test('Kueue checks the annotations of an object without a queue name too', () => {
    const obj = tasHead({ [TAS.unc]: 'yes' });
    delete obj.metadata.labels['kueue.x-k8s.io/queue-name'];
    expect(RULES.topologyAnnotations(obj, ctx()).map((f) => f.field)).toEqual([`${HEAD_ANN}[${TAS.unc}]`]);
  });

  test('0.19 checks a RayCluster\'s worker templates only once its PodSets build', () => {
    const obj = elasticCluster((o) => {
      annotate(o.spec.headGroupSpec.template, { [TAS.unc]: 'yes' });
      annotate(o.spec.workerGroupSpecs[0].template, { [TAS.req]: 'rack block' });
    });
    const fields = (v: string) => RULES.topologyAnnotations(obj, ctx(v)).map((f) => f.field);
    const head = `spec.headGroupSpec.template.metadata.annotations[${TAS.unc}]`;
    const worker = `spec.workerGroupSpecs[0].template.metadata.annotations[${TAS.req}]`;
    expect(fields('v0.19.2')).toEqual([head]);
    expect(fields('v0.17.8')).toEqual([head, worker]);
  });
});

test('a negative rayClusterDeletionDelaySeconds is the API server\'s refusal (the CRD\'s minimum 0), not KubeRay\'s', () => {
  const found = evaluateRayObject(service((o) => { o.spec.rayClusterDeletionDelaySeconds = -1; }), ctx()).filter((f) => f.severity === 'error');
  expect(found.map((f) => [f.rule, f.source, f.field])).toEqual([['rayServiceSpec', 'kubernetes', 'spec.rayClusterDeletionDelaySeconds']]);
});

test('Kueue checks the prebuilt Workload name and max-exec-time-seconds on every Ray object, queued or not', () => {
  const unqueued = (o: any) => { delete o.metadata.labels['kueue.x-k8s.io/queue-name']; };
  const prebuilt = job((o) => { unqueued(o); o.metadata.annotations = { 'kueue.x-k8s.io/prebuilt-workload-name': `W${'x'.repeat(70)}` }; });
  const maxExec = job((o) => { unqueued(o); o.metadata.labels['kueue.x-k8s.io/max-exec-time-seconds'] = '0'; });
  for (const o of [prebuilt, maxExec]) {
    expect(evaluateRayObject(o, ctx()).filter((f) => f.severity === 'error').map((f) => f.rule)).toContain('kueueLabelValues');
  }
});
