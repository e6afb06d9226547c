/**
 * One line per policy rule, for SARIF's rule metadata (GitHub code scanning shows it beside each
 * alert). Keyed by the rule name findings carry, from the rule records (src/policy and yamlSyntax).
 */
import { POLICY_RULE_RECORDS } from '../policy';
import { YAML_SYNTAX_RULE } from './yaml-syntax';

export const RULE_DESCRIPTIONS: Readonly<Record<string, string>> = Object.fromEntries(
  [...POLICY_RULE_RECORDS, YAML_SYNTAX_RULE].map((r) => [r.name, r.description]),
);
