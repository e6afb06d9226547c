// src/policy/rules/cross-object.ts, the queue, ClusterQueue, priority class and quota a Ray object names, read from the inventory:
// a refused case (the field, the problem, a fix) and an accepted object for each rule it defines.
import { RULES } from '../../../src/policy';
import * as rules from '../../../src/policy/rules/cross-object';
import { Accepted, accepts, Case, coversEveryRule, ctx, elasticCluster, job, refuses } from './fixtures';

const CASES: Case[] = [
  { rule: 'queueExists', name: 'queue missing in the namespace', obj: job((o) => { o.metadata.namespace = 'team-b'; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /LocalQueue "user-queue" does not exist in namespace "team-b" \(it exists in default/ },
  { rule: 'clusterQueueAdmitsNamespace', name: 'ClusterQueue missing', obj: job((o) => { o.metadata.namespace = 'team-a'; o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'orphan'; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /points at ClusterQueue "missing-cq", which does not exist/ },
  { rule: 'clusterQueueAdmitsNamespace', name: 'namespaceSelector excludes the namespace', obj: job((o) => { o.metadata.namespace = 'team-a'; o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'b-only'; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /ClusterQueue "team-b" namespaceSelector .* does not match namespace "team-a"/ },
  { rule: 'clusterQueueAdmitsNamespace', name: 'stopped ClusterQueue', obj: job((o) => { o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'held'; }), ctx: ctx(), severity: 'warning', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /has stopPolicy Hold/ },
  { rule: 'priorityClassAllowed', name: 'priority class missing', obj: job((o) => { o.metadata.labels['kueue.x-k8s.io/priority-class'] = 'urgent'; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/priority-class]', message: /WorkloadPriorityClass "urgent" does not exist/ },
  { rule: 'priorityClassAllowed', name: 'priority class not allowed for the tenant', obj: job((o) => { o.metadata.namespace = 'team-a'; o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'default'; o.metadata.labels['kueue.x-k8s.io/priority-class'] = 'prod-priority'; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/priority-class]', message: /"prod-priority" is not allowed for the tenant of namespace "team-a" \(allowed: dev-priority\)/ },
  { rule: 'clusterSelectorSubmitter', name: 'a clusterSelector RayJob with a submitter pod in a tenant namespace', obj: job((o) => { o.metadata.namespace = 'team-a'; delete o.spec.rayClusterSpec; o.spec.clusterSelector = { 'ray.io/cluster': 'mine' }; }), ctx: ctx(), severity: 'error', field: 'spec.submissionMode', message: /submitter pod K8sJobMode creates would run outside tenant namespace "team-a"'s quota/ },
  { rule: 'podPriorityClassAllowed', name: 'a pod template priorityClassName in a tenant namespace', obj: job((o) => { o.metadata.namespace = 'team-a'; o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'default'; o.spec.rayClusterSpec.headGroupSpec.template.spec.priorityClassName = 'system-cluster-critical'; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.headGroupSpec.template.spec.priorityClassName', message: /pod priority class "system-cluster-critical" is not allowed in tenant namespace "team-a" \(the tenant allows none\)/ },
  { rule: 'gangCanEverFit', name: 'gang above nominal + borrowing', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].replicas = 2; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /the gang needs cpu 3.5, memory 6344Mi \(head 1×\(cpu 1, memory 2Gi\) \+ small-group 2×\(cpu 1, memory 2Gi\) \+ submitter 1×\(cpu 0.5, memory 200Mi\)\), but ClusterQueue "cluster-queue" can provide at most cpu 3, memory 5722\.05Mi \(nominal cpu 3, memory 5722\.05Mi/ },
  { rule: 'gangCanEverFit', name: 'resource not covered by the ClusterQueue', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources.limits['nvidia.com/gpu'] = '1'; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /requests nvidia.com\/gpu, which ClusterQueue "cluster-queue" does not cover/ },
  { rule: 'gangCanEverFit', name: 'fits only by borrowing', obj: job((o) => { o.metadata.namespace = 'team-a'; o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'default'; }), ctx: ctx(), severity: 'warning', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /admitted only by borrowing cpu from cohort "research"/ },
  { rule: 'gangCanEverFit', name: 'a PodSet larger than any single flavor', obj: job((o) => { o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'small'; o.spec.submissionMode = 'HTTPMode'; o.spec.rayClusterSpec.workerGroupSpecs[0].replicas = 2; o.spec.rayClusterSpec.workerGroupSpecs[0].minReplicas = 1; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[0]', message: /PodSet "small-group" needs cpu 2, memory 4Gi \(2 pods\) in one flavor/ },
  { rule: 'gangCanEverFit', name: 'elastic maxReplicas beyond quota', obj: elasticCluster((o) => { o.spec.workerGroupSpecs[0].maxReplicas = 10; }), ctx: ctx(), severity: 'warning', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /at maxReplicas the cluster needs .* scale-ups past the quota stay pending/ },
];

const ACCEPTED: Accepted[] = [
  { rule: 'queueExists', name: 'a RayJob on its namespace\'s LocalQueue', obj: job(), ctx: ctx() },
  { rule: 'clusterQueueAdmitsNamespace', name: 'a tenant RayJob on its own ClusterQueue',
    obj: job((o) => { o.metadata.namespace = 'team-a'; o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'default'; }), ctx: ctx() },
  { rule: 'priorityClassAllowed', name: 'a priority class the app defines', obj: job(), ctx: ctx() },
  { rule: 'podPriorityClassAllowed', name: 'pod templates without priorityClassName', obj: job(), ctx: ctx() },
  { rule: 'clusterSelectorSubmitter', name: 'a RayJob with its own cluster', obj: job(), ctx: ctx() },
  { rule: 'gangCanEverFit', name: 'a gang within the ClusterQueue\'s nominal quota', obj: job(), ctx: ctx() },
  { rule: 'priorityClassAllowed', name: 'a tenant RayJob with a priority class the tenant allows',
    obj: job((o) => { o.metadata.namespace = 'team-a'; o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'default'; }), ctx: ctx() },
  { rule: 'queueExists', name: 'a tenant namespace\'s own LocalQueue',
    obj: job((o) => { o.metadata.namespace = 'team-a'; o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'default'; }), ctx: ctx() },
];

refuses(CASES);
accepts(ACCEPTED);
coversEveryRule(rules, CASES, ACCEPTED);

test('external references are not reported as missing', () => {
  const o = job((x) => {
    x.metadata.labels['kueue.x-k8s.io/queue-name'] = 'elsewhere';
    x.metadata.labels['kueue.x-k8s.io/priority-class'] = 'theirs';
  });
  expect(RULES.queueExists(o, ctx('v0.19.2', 'v1.6.2', { external: { localQueue: true } }))).toEqual([]);
  expect(RULES.priorityClassAllowed(o, ctx('v0.19.2', 'v1.6.2', { external: { priorityClass: true } }))).toEqual([]);
});
