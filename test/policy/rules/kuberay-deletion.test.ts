// src/policy/rules/kuberay-deletion.ts, KubeRay's RayJob deletion policy and rules:
// a refused case (the field, the problem, a fix) and an accepted object for each rule it defines.
import * as rules from '../../../src/policy/rules/kuberay-deletion';
import { Accepted, accepts, Case, coversEveryRule, ctx, job, refuses } from './fixtures';

const CASES: Case[] = [
  { rule: 'rayJobDeletion', name: 'deletion-rule TTLs out of deletion order', obj: job((o) => { o.spec.shutdownAfterJobFinishes = false; o.spec.deletionStrategy = { deletionRules: [{ policy: 'DeleteWorkers', condition: { jobStatus: 'SUCCEEDED', ttlSeconds: 60 } }, { policy: 'DeleteCluster', condition: { jobStatus: 'SUCCEEDED', ttlSeconds: 30 } }] }; }), ctx: ctx(), severity: 'error', field: 'spec.deletionStrategy.deletionRules[1].condition.ttlSeconds', message: /DeleteCluster after 30 s comes before DeleteWorkers after 60 s/ },
  { rule: 'rayJobDeletion', name: 'DeleteNone with shutdownAfterJobFinishes (KubeRay 1.6)', obj: job((o) => { o.spec.deletionStrategy = { onSuccess: { policy: 'DeleteNone' }, onFailure: { policy: 'DeleteCluster' } }; }), ctx: ctx(), severity: 'error', field: 'spec.deletionStrategy.onSuccess.policy', message: /DeleteNone contradicts shutdownAfterJobFinishes/ },
  { rule: 'rayJobDeletion', name: 'deletionPolicy on KubeRay 1.6 is pruned', obj: job((o) => { o.spec.deletionPolicy = 'DeleteCluster'; }), ctx: ctx(), severity: 'error', field: 'spec.deletionPolicy', message: /has no deletionPolicy: the API server silently prunes it/ },
  { rule: 'rayJobDeletion', name: 'deletionRules with shutdownAfterJobFinishes', obj: job((o) => { o.spec.deletionStrategy = { deletionRules: [] }; }), ctx: ctx(), severity: 'error', field: 'spec.deletionStrategy.deletionRules', message: /cannot be combined with shutdownAfterJobFinishes/ },
];

const ACCEPTED: Accepted[] = [
  { rule: 'rayJobDeletion', name: 'shutdownAfterJobFinishes without a deletionStrategy', obj: job(), ctx: ctx() },
  { rule: 'rayJobDeletion', name: 'deletion rules in TTL order without shutdownAfterJobFinishes (KubeRay 1.6)',
    obj: job((o) => {
      o.spec.shutdownAfterJobFinishes = false;
      delete o.spec.suspend;
      o.spec.deletionStrategy = { deletionRules: [{ policy: 'DeleteWorkers', condition: { jobStatus: 'SUCCEEDED', ttlSeconds: 0 } },
        { policy: 'DeleteCluster', condition: { jobStatus: 'SUCCEEDED', ttlSeconds: 60 } }] };
    }), ctx: ctx() },
];

refuses(CASES);
accepts(ACCEPTED);
coversEveryRule(rules, CASES, ACCEPTED);
