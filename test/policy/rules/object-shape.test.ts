// src/policy/rules/object-shape.ts, the field types and label syntax the API server refuses:
// a refused case (the field, the problem, a fix) and an accepted object for each rule it defines.
import * as rules from '../../../src/policy/rules/object-shape';
import { Accepted, accepts, Case, coversEveryRule, ctx, job, refuses } from './fixtures';

const CASES: Case[] = [
  { rule: 'objectShape', name: 'workerGroupSpecs is a mapping, not a list', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs = { groupName: 'w' }; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs', message: /must be a list, not \{"groupName":"w"\} \(the CRD schema refuses it\)/ },
  { rule: 'objectShape', name: 'replicas written as a string', obj: job((o) => { o.spec.rayClusterSpec.workerGroupSpecs[0].replicas = '3'; }), ctx: ctx(), severity: 'error', field: 'spec.rayClusterSpec.workerGroupSpecs[0].replicas', message: /must be an integer, not 3/ },
  { rule: 'labelSyntax', name: 'label value the API server refuses', obj: job((o) => { o.metadata.labels.team = '-ml'; }), ctx: ctx(), severity: 'error', field: 'metadata.labels[team]', message: /label value "-ml" is invalid/ },
];

const ACCEPTED: Accepted[] = [
  { rule: 'objectShape', name: 'the base RayJob', obj: job(), ctx: ctx() },
  { rule: 'labelSyntax', name: 'label keys and values the API server takes',
    obj: job((o) => { o.metadata.labels.team = 'ml-1'; }), ctx: ctx() },
];

refuses(CASES);
accepts(ACCEPTED);
coversEveryRule(rules, CASES, ACCEPTED);
