// src/policy/rules/kuberay-features.ts, KubeRay's feature gates and the cluster features a version knows:
// a refused case (the field, the problem, a fix) and an accepted object for each rule it defines.
import * as rules from '../../../src/policy/rules/kuberay-features';
import { Accepted, accepts, Case, coversEveryRule, ctx, elasticCluster, refuses } from './fixtures';

const CASES: Case[] = [
  { rule: 'kubeRayAlphaGates', name: 'networkPolicy without its gate', obj: elasticCluster((o) => { o.spec.networkPolicy = {}; }), ctx: ctx('v0.19.2', 'v1.7.0'), severity: 'warning', field: 'spec.networkPolicy', message: /RayClusterNetworkPolicy feature gate \(alpha\)/ },
  { rule: 'kubeRayClusterFeatures', name: 'worker group priority without autoscaler v2', obj: elasticCluster((o) => { o.spec.rayVersion = '2.56.0'; o.spec.workerGroupSpecs[0].priority = 5; }), ctx: ctx('v0.19.2', 'v1.7.0'), severity: 'error', field: 'spec.workerGroupSpecs[0].priority', message: /priority needs autoscaler v2/ },
];

const ACCEPTED: Accepted[] = [
  { rule: 'kubeRayAlphaGates', name: 'no alpha field', obj: elasticCluster(), ctx: ctx('v0.19.2', 'v1.7.0') },
  { rule: 'kubeRayClusterFeatures', name: 'worker groups without a priority', obj: elasticCluster(), ctx: ctx() },
];

refuses(CASES);
accepts(ACCEPTED);
coversEveryRule(rules, CASES, ACCEPTED);
