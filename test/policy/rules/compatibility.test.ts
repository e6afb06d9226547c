// src/policy/rules/compatibility.ts, the version pairs that break a Ray kind or under-count its quota:
// a refused case (the field, the problem, a fix) and an accepted object for each rule it defines.
import * as rules from '../../../src/policy/rules/compatibility';
import { Accepted, accepts, Case, coversEveryRule, ctx, elasticCluster, job, refuses, service } from './fixtures';

const CASES: Case[] = [
  { rule: 'rayServiceVersionPair', name: 'native RayService with KubeRay 1.4.2 deadlocks', obj: service(), ctx: ctx('v0.19.2', 'v1.4.2'), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /kuberay#4686/ },
  { rule: 'rayServiceVersionPair', name: 'RayCluster-level RayService with KubeRay 1.6 is suspect', obj: service(), ctx: ctx('v0.14.8', 'v1.6.2'), severity: 'warning', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /resets the cluster's suspend/ },
  { rule: 'underCountedQuota', name: 'SidecarMode on 0.17.0', obj: job((o) => { o.spec.submissionMode = 'SidecarMode'; }), ctx: ctx('v0.17.0'), severity: 'warning', field: 'spec.submissionMode', message: /does not count the SidecarMode submitter/ },
  { rule: 'underCountedQuota', name: 'autoscaler sidecar before 0.19', obj: elasticCluster(), ctx: ctx('v0.17.8'), severity: 'warning', field: 'spec.enableInTreeAutoscaling', message: /does not count the autoscaler sidecar/ },
  { rule: 'underCountedQuota', name: 'history-server collector on KubeRay 1.7', obj: elasticCluster((o) => { o.spec.historyServerOptions = { collectorOptions: { image: 'c', env: [{ name: 'STORAGE_BACKEND', value: 'S3' }, { name: 'S3_REGION', value: 'r' }] } }; }), ctx: ctx('v0.19.2', 'v1.7.0'), severity: 'warning', field: 'spec.historyServerOptions.collectorOptions', message: /does not count the history-server collector container .*50m CPU \/ 64Mi/ },
  { rule: 'rayServiceSuspend', name: 'spec.suspend before KubeRay 1.7', obj: service((o) => { o.spec.suspend = true; }), ctx: ctx(), severity: 'error', field: 'spec.suspend', message: /KubeRay v1.6.2 has no RayService spec.suspend/ },
];

const ACCEPTED: Accepted[] = [
  { rule: 'rayServiceVersionPair', name: 'a RayService on the default pair', obj: service(), ctx: ctx() },
  { rule: 'underCountedQuota', name: 'an autoscaling RayCluster on 0.19, which counts the sidecar', obj: elasticCluster(), ctx: ctx() },
  { rule: 'underCountedQuota', name: 'a K8sJobMode RayJob', obj: job(), ctx: ctx() },
  { rule: 'rayServiceSuspend', name: 'a RayService without spec.suspend', obj: service(), ctx: ctx() },
  { rule: 'underCountedQuota', name: 'SidecarMode on 0.19', obj: job((o) => { o.spec.submissionMode = 'SidecarMode'; }), ctx: ctx() },
  { rule: 'rayServiceVersionPair', name: 'a native RayService with KubeRay 1.5.2', obj: service(), ctx: ctx('v0.19.2', 'v1.5.2') },
];

refuses(CASES);
accepts(ACCEPTED);
coversEveryRule(rules, CASES, ACCEPTED);
