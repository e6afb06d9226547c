// src/policy/rules/multikueue.ts, MultiKueue dispatch of a Ray object:
// a refused case (the field, the problem, a fix) and an accepted object for each rule it defines.
import * as rules from '../../../src/policy/rules/multikueue';
import { Accepted, accepts, Case, coversEveryRule, ctx, job, mkInventory, refuses, service } from './fixtures';

const CASES: Case[] = [
  { rule: 'multiKueueDispatch', name: 'MultiKueue queue without managedBy', obj: job(), ctx: ctx('v0.19.2', 'v1.6.2', { inventory: mkInventory }), severity: 'error', field: 'spec.managedBy', message: /Expecting spec.managedBy to be kueue.x-k8s.io\/multikueue/ },
  { rule: 'multiKueueDispatch', name: 'RayService through MultiKueue before Kueue 0.17', obj: service((o) => { o.spec.rayClusterConfig.enableInTreeAutoscaling = false; }), ctx: ctx('v0.14.8', 'v1.4.2', { inventory: mkInventory }), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /Kueue v0.14.8 has no MultiKueue adapter for RayService .*v0.17.0/ },
  { rule: 'multiKueueDispatch', name: 'worker lacks the LocalQueue', obj: job((o) => { o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'small'; o.spec.managedBy = 'kueue.x-k8s.io/multikueue'; }), ctx: ctx('v0.19.2', 'v1.6.2', { inventory: mkInventory }), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /worker cluster "w1" .*LocalQueue "small" does not exist in namespace "default"/ },
  { rule: 'multiKueueDispatch', name: 'gang fits no worker', obj: job((o) => { o.spec.managedBy = 'kueue.x-k8s.io/multikueue'; o.spec.rayClusterSpec.workerGroupSpecs[0].replicas = 2; }), ctx: ctx('v0.19.2', 'v1.6.2', { inventory: mkInventory }), severity: 'error', field: 'metadata.labels[kueue.x-k8s.io/queue-name]', message: /the gang fits no worker cluster of AdmissionCheck "mk"/ },
  { rule: 'multiKueueDispatch', name: 'managedBy MultiKueue on a queue without the check', obj: job((o) => { o.spec.managedBy = 'kueue.x-k8s.io/multikueue'; o.metadata.labels['kueue.x-k8s.io/queue-name'] = 'held'; }), ctx: ctx('v0.19.2', 'v1.6.2', { inventory: mkInventory }), severity: 'error', field: 'spec.managedBy', message: /has no MultiKueue AdmissionCheck: this cluster's KubeRay skips the object/ },
];

const ACCEPTED: Accepted[] = [
  { rule: 'multiKueueDispatch', name: 'a RayJob with managedBy MultiKueue that fits a worker',
    obj: job((o) => { o.spec.managedBy = 'kueue.x-k8s.io/multikueue'; }), ctx: ctx('v0.19.2', 'v1.6.2', { inventory: mkInventory }) },
  { rule: 'multiKueueDispatch', name: 'a queue without MultiKueue', obj: job(), ctx: ctx() },
];

refuses(CASES);
accepts(ACCEPTED);
coversEveryRule(rules, CASES, ACCEPTED);
