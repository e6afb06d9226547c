/** The record of the CRD-schema check (structural.ts), which `check` runs on plain YAML before the rules. */
import { RAY_KINDS } from '../kinds';
import { RuleRecord } from '../rules/rule';
import { checkSchema } from './structural';

export const CRD_SCHEMA_RULE: RuleRecord<typeof checkSchema> = {
  name: 'crdSchema', source: 'kubernetes', kinds: RAY_KINDS, check: checkSchema,
  description: 'The object passes its CRD schema as the API server applies it: defaults, types, enums, minimums, patterns, required fields, '
    + 'CEL rules and no unknown fields.',
};
