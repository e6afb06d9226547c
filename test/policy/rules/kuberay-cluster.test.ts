// src/policy/rules/kuberay-cluster.ts, KubeRay's RayCluster spec checks: GCS fault tolerance and Redis, group resources and labels, token auth:
// a refused case (the field, the problem, a fix) and an accepted object for each rule it defines.
import * as rules from '../../../src/policy/rules/kuberay-cluster';
import { Accepted, accepts, Case, coversEveryRule, ctx, job, refuses } from './fixtures';

const CASES: Case[] = [
  // Issue 23's mutants of upstream samples that check let through, each now caught.
  { rule: 'rayClusterConfig', name: 'rayStartParams num-cpus together with the group\'s resources (KubeRay 1.5+)', obj: job((o) => { o.spec.rayClusterSpec.headGroupSpec.rayStartParams = { 'num-cpus': '1' }; o.spec.rayClusterSpec.headGroupSpec.resources = { CPU: '1' }; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.headGroupSpec.resources', message: /set both in resources and in rayStartParams \(num-cpus\)/ },
  { rule: 'rayClusterConfig', name: 'rayStartParams.labels', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].rayStartParams = { labels: 'zone=a' }; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[0].rayStartParams.labels', message: /does not take Ray node labels in rayStartParams/ },
  { rule: 'rayClusterConfig', name: 'a group label key that is not a qualified name', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].labels = { 'zone a': 'x' }; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[0].labels[zone a]', message: /Ray label "zone a": its name part/ },
  { rule: 'rayClusterConfig', name: 'upgradeStrategy in a RayJob\'s cluster spec (KubeRay 1.6)', obj: job((o) => { o.spec.rayClusterSpec.upgradeStrategy = { type: 'Recreate' }; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.upgradeStrategy', message: /refuses the RayCluster it creates for a RayJob/ },
  { rule: 'gcsFaultTolerance', name: 'RAY_REDIS_ADDRESS without GCS fault tolerance', obj: job((o) => { o.spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].env = [{ name: 'RAY_REDIS_ADDRESS', value: 'redis:6379' }]; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].env', message: /RAY_REDIS_ADDRESS turns GCS fault tolerance on implicitly/ },
  { rule: 'rayAuthOptions', name: 'token authentication with a Ray older than 2.52.0', obj: job((o) => { o.spec.rayClusterSpec.authOptions = { mode: 'token' }; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.rayVersion', message: /authOptions.mode token needs Ray >= 2.52.0, not 2.46.0/ },
  { rule: 'gcsFaultTolerance', name: 'ft-enabled annotation with gcsFaultToleranceOptions', obj: job((o) => { o.metadata.annotations = { 'ray.io/ft-enabled': 'true' }; o.spec.rayClusterSpec.gcsFaultToleranceOptions = { redisAddress: 'redis:6379' }; }), ctx: ctx(), severity: 'error', field: 'metadata.annotations[ray.io/ft-enabled]', message: /cannot be combined with gcsFaultToleranceOptions/ },
];

const ACCEPTED: Accepted[] = [
  { rule: 'gcsFaultTolerance', name: 'no GCS fault tolerance and no Redis', obj: job(), ctx: ctx() },
  { rule: 'rayClusterConfig', name: 'rayStartParams without num-cpus or labels', obj: job(), ctx: ctx() },
  { rule: 'rayAuthOptions', name: 'no authOptions', obj: job(), ctx: ctx() },
  { rule: 'rayAuthOptions', name: 'token authentication with Ray 2.52.0',
    obj: job((o) => { o.spec.rayClusterSpec.authOptions = { mode: 'token' }; o.spec.rayClusterSpec.rayVersion = '2.52.0'; }), ctx: ctx() },
  { rule: 'gcsFaultTolerance', name: 'gcsFaultToleranceOptions with a Redis address',
    obj: job((o) => { o.spec.rayClusterSpec.gcsFaultToleranceOptions = { redisAddress: 'redis:6379' }; }), ctx: ctx() },
];

refuses(CASES);
accepts(ACCEPTED);
coversEveryRule(rules, CASES, ACCEPTED);
