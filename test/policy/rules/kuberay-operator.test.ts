// src/policy/rules/kuberay-operator.ts, KubeRay operator checks: names, pod templates, RayJob lifecycle and submission, RayService, autoscaler, resources:
// a refused case (the field, the problem, a fix) and an accepted object for each rule it defines.
import { evaluateRayObject } from '../../../src/policy';
import * as rules from '../../../src/policy/rules/kuberay-operator';
import { Accepted, accepts, Case, container, coversEveryRule, ctx, elasticCluster, job, refuses, service } from './fixtures';

const CASES: Case[] = [
  { rule: 'rayObjectName', name: 'RayJob name over 47 characters', obj: job((o) => { o.metadata.name = 'a'.repeat(48); }), ctx: ctx(), severity: 'error', field: 'metadata.name', message: /48 characters; KubeRay refuses RayJob names longer than 47/ },
  { rule: 'rayObjectName', name: 'generateName leaves no room for the suffix', obj: job((o) => { delete o.metadata.name; o.metadata.generateName = 'a'.repeat(43); }), ctx: ctx(), severity: 'error', field: 'metadata.generateName', message: /exceeds KubeRay's 47-character limit/ },
  { rule: 'rayObjectName', name: 'RayCluster name not DNS-1035', obj: elasticCluster((o) => { o.metadata.name = '1cluster'; }), ctx: ctx(), severity: 'error', field: 'metadata.name', message: /is not a DNS-1035 label/ },
  { rule: 'podTemplateContainers', name: 'worker template without containers', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers = []; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers', message: /has no containers/ },
  { rule: 'uniqueWorkerGroupNames', name: 'duplicate groupName', obj: job((o) => { const w = o.spec.rayClusterSpec.workerGroupSpecs; w.push({ ...w[0] }); }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[1].groupName', message: /"small-group" is used twice/ },
  { rule: 'workerReplicaBounds', name: 'replicas above maxReplicas', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].replicas = 6; }), ctx: ctx(), severity: 'warning', field: 'spec.rayClusterSpec.workerGroupSpecs[0].replicas', message: /KubeRay creates 5 pods while Kueue admits quota for 6/ },
  { rule: 'workerReplicaBounds', name: 'replicas below minReplicas runs beyond quota', obj: job((o) => { const g = o.spec.rayClusterSpec.workerGroupSpecs[0]; g.minReplicas = 2; g.replicas = 1; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[0].replicas', message: /KubeRay creates 2 pods while Kueue admits quota for 1, so the cluster runs beyond its quota/ },
  { rule: 'rayServiceSpec', name: 'RayService upgradeStrategy.type unknown to KubeRay 1.4', obj: { apiVersion: 'ray.io/v1', kind: 'RayService', metadata: { name: 'svc', namespace: 'default' }, spec: { upgradeStrategy: { type: 'NewClusterWithIncrementalUpgrade' }, rayClusterConfig: { headGroupSpec: { template: { spec: { containers: [container('h')] } } } } } }, ctx: ctx('v0.19.2', 'v1.4.2'), severity: 'error', field: 'spec.upgradeStrategy.type', message: /is not one of NewCluster, None \(KubeRay v1.4.2\)/ },
  { rule: 'autoscalerConstraints', name: 'a negative autoscaler idleTimeoutSeconds (KubeRay 1.6)', obj: elasticCluster((o) => { o.spec.autoscalerOptions = { idleTimeoutSeconds: -1 }; }), ctx: ctx(), severity: 'error', field: 'spec.autoscalerOptions.idleTimeoutSeconds', message: /must be 0 or more, not -1/ },
  { rule: 'rayServiceSpec', name: 'an initializing-timeout annotation that is no duration (KubeRay 1.5+)', obj: service((o) => { o.metadata.annotations = { 'ray.io/initializing-timeout': 'soon' }; }), ctx: ctx(), severity: 'error', field: 'metadata.annotations[ray.io/initializing-timeout]', message: /"soon" is neither a Go duration nor whole seconds/ },
  { rule: 'workerReplicaBounds', name: 'a worker group of 0 replicas without autoscaling never runs a pod', obj: job((o) => { Object.assign(o.spec.rayClusterSpec.workerGroupSpecs[0], { replicas: 0, minReplicas: 0 }); }), ctx: ctx(), severity: 'warning', field: 'spec.rayClusterSpec.workerGroupSpecs[0].replicas', message: /worker group "small-group" has 0 replicas and autoscaling is off: it never runs a pod/ },
  { rule: 'workerReplicaBounds', name: 'minReplicas above maxReplicas', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].minReplicas = 9; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[0].minReplicas', message: /minReplicas 9 is above maxReplicas 5/ },
  { rule: 'rayJobSubmissionMode', name: 'SidecarMode on KubeRay 1.4.2', obj: job((o) => { o.spec.submissionMode = 'SidecarMode'; }), ctx: ctx('v0.19.2', 'v1.4.2'), severity: 'error', field: 'spec.submissionMode', message: /SidecarMode needs KubeRay >= v1.5.0/ },
  { rule: 'rayJobSubmissionMode', name: 'SidecarMode with a submitter template', obj: job((o) => { o.spec.submissionMode = 'SidecarMode'; o.spec.submitterPodTemplate = { spec: { containers: [container('s')] } }; }), ctx: ctx(), severity: 'error', field: 'spec.submitterPodTemplate', message: /SidecarMode does not use a submitter pod/ },
  { rule: 'rayJobLifecycle', name: 'suspend without shutdownAfterJobFinishes', obj: job((o) => { o.spec.shutdownAfterJobFinishes = false; }), ctx: ctx(), severity: 'error', field: 'spec.suspend', message: /suspended RayJob needs shutdownAfterJobFinishes: true/ },
  { rule: 'rayJobLifecycle', name: 'runtimeEnvYAML not a mapping', obj: job((o) => { o.spec.runtimeEnvYAML = '- a\n- b'; }), ctx: ctx(), severity: 'error', field: 'spec.runtimeEnvYAML', message: /not a YAML mapping/ },
  { rule: 'autoscalerConstraints', name: 'autoscaler v2 with restartPolicy Always', obj: elasticCluster((o) => { o.spec.autoscalerOptions = { version: 'v2' }; o.spec.headGroupSpec.template.spec.restartPolicy = 'Always'; }), ctx: ctx(), severity: 'error', field: 'spec.headGroupSpec.template.spec.restartPolicy', message: /autoscaler v2 needs restartPolicy Never or unset/ },
  { rule: 'managedByField', name: 'RayService managedBy before KubeRay 1.6', obj: service((o) => { o.spec.managedBy = 'ray.io/kuberay-operator'; }), ctx: ctx('v0.19.2', 'v1.5.2'), severity: 'error', field: 'spec.managedBy', message: /has no RayService managedBy/ },
  { rule: 'managedByField', name: 'unknown managedBy value', obj: elasticCluster((o) => { o.spec.managedBy = 'me'; }), ctx: ctx(), severity: 'error', field: 'spec.managedBy', message: /managedBy "me" is not one of/ },
  { rule: 'containerResources', name: 'request above limit', obj: job((o) => { o.spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].resources = { requests: { cpu: '2' }, limits: { cpu: '1' } }; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].resources.requests.cpu', message: /request 2 exceeds limit 1/ },
  { rule: 'nonNegativeResources', name: 'a negative CPU request on a worker (issue 40: the object sat suspended with no Workload)', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources.requests.cpu = '-1'; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources.requests.cpu', message: /cpu -1 is negative: the API server refuses the pods KubeRay creates, and Kueue makes no Workload/ },
  { rule: 'containerResources', name: 'Ray container without requests', obj: job((o) => { delete o.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources; }), ctx: ctx(), severity: 'warning', field: 'spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources', message: /no cpu or memory request or limit, so Kueue counts 0/ },
];

const ACCEPTED: Accepted[] = [
  { rule: 'rayObjectName', name: 'a RayJob name of 47 characters', obj: job((o) => { o.metadata.name = 'a'.repeat(47); }), ctx: ctx() },
  { rule: 'podTemplateContainers', name: 'templates with their Ray container first', obj: job(), ctx: ctx() },
  { rule: 'uniqueWorkerGroupNames', name: 'two worker groups of different names',
    obj: job((o) => { const w = o.spec.rayClusterSpec.workerGroupSpecs; w.push({ ...w[0], groupName: 'other' }); }), ctx: ctx() },
  { rule: 'workerReplicaBounds', name: 'replicas between minReplicas and maxReplicas', obj: job(), ctx: ctx() },
  { rule: 'rayJobSubmissionMode', name: 'K8sJobMode', obj: job(), ctx: ctx() },
  { rule: 'rayJobLifecycle', name: 'suspend with shutdownAfterJobFinishes', obj: job(), ctx: ctx() },
  { rule: 'rayServiceSpec', name: 'a RayService with serveConfigV2', obj: service(), ctx: ctx() },
  { rule: 'autoscalerConstraints', name: 'an autoscaling RayCluster without autoscalerOptions', obj: elasticCluster(), ctx: ctx() },
  { rule: 'managedByField', name: 'managedBy KubeRay on a RayCluster',
    obj: elasticCluster((o) => { o.spec.managedBy = 'ray.io/kuberay-operator'; }), ctx: ctx() },
  { rule: 'containerResources', name: 'requests equal to limits', obj: job(), ctx: ctx() },
  { rule: 'nonNegativeResources', name: 'a zero CPU request',
    obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources.requests.cpu = '0'; }), ctx: ctx() },
  { rule: 'rayJobSubmissionMode', name: 'SidecarMode on KubeRay 1.6.2', obj: job((o) => { o.spec.submissionMode = 'SidecarMode'; }), ctx: ctx() },
  { rule: 'managedByField', name: 'RayService managedBy on KubeRay 1.6',
    obj: service((o) => { o.spec.managedBy = 'ray.io/kuberay-operator'; }), ctx: ctx() },
  { rule: 'autoscalerConstraints', name: 'autoscaler v2 with restartPolicy Never and idleTimeoutSeconds 0',
    obj: elasticCluster((o) => {
      o.spec.autoscalerOptions = { version: 'v2', idleTimeoutSeconds: 0 };
      o.spec.headGroupSpec.template.spec.restartPolicy = 'Never';
      for (const g of o.spec.workerGroupSpecs) g.template.spec.restartPolicy = 'Never';
    }), ctx: ctx() },
  { rule: 'rayJobLifecycle', name: 'runtimeEnvYAML a mapping', obj: job((o) => { o.spec.runtimeEnvYAML = 'pip: [torch]'; }), ctx: ctx() },
  { rule: 'containerResources', name: 'a GPU given as a limit only',
    obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources.limits['nvidia.com/gpu'] = '1'; }),
    ctx: ctx() },
  { rule: 'podTemplateContainers', name: 'a sidecar after the Ray container',
    obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers.push(container('sidecar')); }), ctx: ctx() },
];

refuses(CASES);
accepts(ACCEPTED);
coversEveryRule(rules, CASES, ACCEPTED);

test('a negative rayClusterDeletionDelaySeconds is the API server\'s refusal (the CRD\'s minimum 0), not KubeRay\'s', () => {
  const found = evaluateRayObject(service((o) => { o.spec.rayClusterDeletionDelaySeconds = -1; }), ctx()).filter((f) => f.severity === 'error');
  expect(found.map((f) => [f.rule, f.source, f.field])).toEqual([['rayServiceSpec', 'kubernetes', 'spec.rayClusterDeletionDelaySeconds']]);
});
