/**
 * The plan: a pure simulation of Kueue's scheduler over queues and Ray workloads (see simulate.ts). Its
 * text and HTML page are formatted outside the policy: src/plan/text.ts and src/cli/plan-output.
 */
export * from './schema';
export { PlanAdmission, PlanInput } from './input';
export { topologyAssignmentOf } from './topology';
export { simulatePlan } from './simulate';
export { DEFAULT_HORIZON_SECONDS, PlanEnd } from './timeline';
export {
  AdmissionFairSharingConfig, DECISION_GATES, DecisionGate, FairSharingStrategy, featureGatesInArgs, KUEUE_MANAGER_IMAGE, KueueConfig,
  KueueConfigSource, kueueConfigNote, kueueConfigOf, kueueManagerOf,
} from './kueue-config';
