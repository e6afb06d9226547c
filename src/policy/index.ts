/**
 * The policy: pure functions shared by the constructs (synth), the webhook (admission) and the
 * preview CLI. No cdk8s, no I/O.
 */
export * from './admission';
export * from './decide';
export * from './evaluate';
export * from './context';
export * from './findings';
export * from './gang';
export * from './inventory-objects';
export * from './kinds';
export * from './k8s-names';
export * from './kueue-defaults';
export * from './quantity';
export * from './quantity-text';
export * from './ray-object';
export * from './versions';
export * from './pair-verdict';
export * from './modelled-version';
export * from './tenant';
export * from './writers';
export * from './rule-catalog';
export { MAX_FINDINGS_PER_RULE, Rule, RuleRecord } from './rules/rule';
/** @deprecated the one kind list is RAY_KINDS; this name stays for users of the entry point. */
export { RAY_KINDS as ALL_RAY_KINDS } from './kinds';
export * from './rules/compatibility';
export * from './rules/cross-object';
export * from './rules/kuberay-operator';
export * from './rules/kuberay-pod-claims';
export * from './rules/kueue-api-version';
export * from './rules/kueue-unsuspend';
export * from './rules/kueue-webhook';
export * from './rules/multikueue';
export * from './rules/object-shape';
export * from './rules/plan-annotations';
