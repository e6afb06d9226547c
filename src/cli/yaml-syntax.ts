/** The rule of `check` itself: a YAML document it cannot read. */
import type { RuleRecord } from '../policy';
import type { CheckFinding } from './check-report';
import type { SourceError } from './yaml-source';

/** The finding for a document that does not parse (its objects are not checked). */
function yamlSyntaxFinding(e: SourceError): CheckFinding {
  return {
    rule: YAML_SYNTAX_RULE.name, severity: 'error', object: `document ${e.document} of ${e.file}`, field: '', source: YAML_SYNTAX_RULE.source,
    message: `${e.message}: the document cannot be read, so its objects were not checked`, fix: 'fix the YAML syntax at this position',
    location: { file: e.file, document: e.document, ...e.region, exact: true, resolvedField: '' },
  };
}

export const YAML_SYNTAX_RULE: RuleRecord<typeof yamlSyntaxFinding> = {
  name: 'yamlSyntax', source: 'kubernetes', kinds: [],
  description: 'The file is valid YAML.',
  check: yamlSyntaxFinding,
};
