/** Every rule of the policy as a record, the ones run on every Ray object and the ones run elsewhere (pure). */
import { TENANT_QUEUE_LABEL_RULE } from './admission';
import { RULE_RECORDS } from './evaluate';
import { ONLY_KUBERAY_MAKES_RAY_PODS_RULE } from './rules/kuberay-pod-claims';
import { KUEUE_API_VERSION_RULE } from './rules/kueue-api-version';
import { KUEUE_SETUP_RULES } from './rules/kueue-setup';
import { ONLY_KUEUE_UNSUSPENDS_RULE } from './rules/kueue-unsuspend';
import { KUEUE_WEBHOOK_ON_UPDATE_RULE } from './rules/kueue-webhook';
import { CRD_SCHEMA_RULE } from './schema/rule';
import { RuleRecord } from './rules/rule';
import { RAY_CHILD_WRITER_RULE } from './writers';

/**
 * RULE_RECORDS, then the UPDATE rules, the Ray pod labels, the tenant queue label, the child-writer rule, the CRD schema and the
 * Kueue API versions served, the rules on Kueue's own objects and Configuration: every name a policy finding can carry.
 */
export const POLICY_RULE_RECORDS: readonly RuleRecord<unknown>[] = [
  ...RULE_RECORDS, KUEUE_WEBHOOK_ON_UPDATE_RULE, ONLY_KUEUE_UNSUSPENDS_RULE, ONLY_KUBERAY_MAKES_RAY_PODS_RULE, TENANT_QUEUE_LABEL_RULE,
  RAY_CHILD_WRITER_RULE, CRD_SCHEMA_RULE, KUEUE_API_VERSION_RULE, ...KUEUE_SETUP_RULES,
];
