// src/policy/rules/kueue-webhook.ts, Kueue's Ray webhooks on create:
// a refused case (the field, the problem, a fix) and an accepted object for each rule it defines.
import { evaluateRayObject } from '../../../src/policy';
import * as rules from '../../../src/policy/rules/kueue-webhook';
import { Accepted, accepts, Case, coversEveryRule, ctx, elasticCluster, job, refuses, workers } from './fixtures';

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
  { rule: 'multiKueueElasticAutoscaling', name: 'autoscaling elastic RayCluster dispatched by MultiKueue', obj: elasticCluster((o) => { o.spec.managedBy = 'kueue.x-k8s.io/multikueue'; }), ctx: ctx('v0.19.2', 'v1.6.2', { elasticGate: 'on' }), severity: 'error', field: 'spec.enableInTreeAutoscaling', message: /not supported for a MultiKueue-managed elastic RayCluster/ },
  { rule: 'kueueLabelValues', name: 'max-exec-time-seconds of 0', obj: job((o) => { o.metadata.labels['kueue.x-k8s.io/max-exec-time-seconds'] = '0'; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]', message: /must be greater than 0, not 0/ },
  { rule: 'kueueLabelValues', name: 'max-exec-time-seconds not an integer', obj: job((o) => { o.metadata.labels['kueue.x-k8s.io/max-exec-time-seconds'] = '1h'; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]', message: /"1h" is not a whole number of seconds/ },
  { rule: 'rayJobShutdownAfterFinish', name: 'no shutdownAfterJobFinishes on a job with deletionRules: the fix does not lead into KubeRay\'s refusal', obj: job((o) => { o.spec.shutdownAfterJobFinishes = false; o.spec.deletionStrategy = { deletionRules: [{ policy: 'DeleteCluster', condition: { jobStatus: 'SUCCEEDED' } }] }; }), ctx: ctx(), severity: 'error', field: 'spec.shutdownAfterJobFinishes', message: /a Kueue-managed RayJob cannot use deletionRules/ },
];

const ACCEPTED: Accepted[] = [
  { rule: 'rayJobShutdownAfterFinish', name: 'a RayJob that deletes its cluster', obj: job(), ctx: ctx() },
  { rule: 'rayJobClusterSource', name: 'a RayJob with rayClusterSpec only', obj: job(), ctx: ctx() },
  { rule: 'elasticNeedsKueueVersion', name: 'an elastic RayCluster on 0.19', obj: elasticCluster(), ctx: ctx() },
  { rule: 'autoscalingOnlyWhenElastic', name: 'an autoscaling RayCluster with the elastic-job annotation',
    obj: elasticCluster(), ctx: ctx() },
  { rule: 'elasticFeatureGate', name: 'the gate declared on',
    obj: elasticCluster(), ctx: ctx('v0.17.8', 'v1.6.2', { elasticGate: 'on' }) },
  { rule: 'elasticRayJobNoSuspend', name: 'an unsuspended elastic RayJob on the 0.14 short-term path',
    obj: job((o) => {
      o.metadata.annotations = { 'kueue.x-k8s.io/elastic-job': 'true' };
      o.spec.rayClusterSpec.enableInTreeAutoscaling = true;
      delete o.spec.suspend;
    }), ctx: ctx('v0.14.8', 'v1.4.2') },
  { rule: 'workerGroupLimit', name: '17 worker groups on 0.19 (18 PodSets with the head)',
    obj: elasticCluster((o) => { o.spec.workerGroupSpecs = workers(17); }), ctx: ctx() },
  { rule: 'podSetNames', name: 'worker group names apart from head and submitter', obj: job(), ctx: ctx() },
  { rule: 'kueueLabelValues', name: 'max-exec-time-seconds of 60',
    obj: job((o) => { o.metadata.labels['kueue.x-k8s.io/max-exec-time-seconds'] = '60'; }), ctx: ctx() },
  { rule: 'multiKueueElasticAutoscaling', name: 'an autoscaling elastic RayCluster not dispatched by MultiKueue',
    obj: elasticCluster(), ctx: ctx() },
  { rule: 'elasticNeedsKueueVersion', name: 'an elastic RayJob on 0.14.8',
    obj: job((o) => {
      o.metadata.annotations = { 'kueue.x-k8s.io/elastic-job': 'true' };
      o.spec.rayClusterSpec.enableInTreeAutoscaling = true;
      delete o.spec.suspend;
    }), ctx: ctx('v0.14.8', 'v1.4.2') },
  { rule: 'podSetNames', name: 'a worker group named submitter in HTTPMode (no submitter PodSet)',
    obj: job((o) => { o.spec.submissionMode = 'HTTPMode'; o.spec.rayClusterSpec.workerGroupSpecs[0].groupName = 'submitter'; }), ctx: ctx() },
  { rule: 'multiKueueElasticAutoscaling', name: 'a RayCluster dispatched by MultiKueue without autoscaling',
    obj: elasticCluster((o) => {
      o.spec.managedBy = 'kueue.x-k8s.io/multikueue';
      o.spec.enableInTreeAutoscaling = false;
      delete o.metadata.annotations;
    }), ctx: ctx() },
];

refuses(CASES);
accepts(ACCEPTED);
coversEveryRule(rules, CASES, ACCEPTED);

test('Kueue checks the prebuilt Workload name and max-exec-time-seconds on every Ray object, queued or not', () => {
  const unqueued = (o: any) => { delete o.metadata.labels['kueue.x-k8s.io/queue-name']; };
  const prebuilt = job((o) => { unqueued(o); o.metadata.annotations = { 'kueue.x-k8s.io/prebuilt-workload-name': `W${'x'.repeat(70)}` }; });
  const maxExec = job((o) => { unqueued(o); o.metadata.labels['kueue.x-k8s.io/max-exec-time-seconds'] = '0'; });
  for (const o of [prebuilt, maxExec]) {
    expect(evaluateRayObject(o, ctx()).filter((f) => f.severity === 'error').map((f) => f.rule)).toContain('kueueLabelValues');
  }
});
