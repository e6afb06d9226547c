/**
 * `check --output sarif`: SARIF 2.1.0, one rule per policy rule and one result per finding with the
 * file and region of the offending field, so code scanning (e.g. GitHub's upload-sarif) annotates the
 * lines. Paths under the working directory are written relative to it (code scanning resolves them
 * against the repository root: run `check` from there).
 */
import { toolVersion } from './tool-version';
import * as path from 'path';
import { CheckReport } from './check-report';
import { RULE_DESCRIPTIONS } from './rule-descriptions';

const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
const INFORMATION_URI = 'https://github.com/cdk8s-kueue-ray/cdk8s-kueue-ray';

/** A file as a SARIF artifact URI: relative (forward slashes) under `cwd`, else a file:// URI. */
export function artifactUri(file: string, cwd: string = process.cwd()): string {
  if (file === '-') return 'stdin';
  const abs = path.resolve(cwd, file);
  const rel = path.relative(cwd, abs);
  const encode = (p: string) => p.split(/[\\/]/).map(encodeURIComponent).join('/');
  if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return encode(rel);
  return `file://${encode(abs).replace(/^([^/])/, '/$1')}`;
}

export function sarifLog(report: CheckReport, cwd: string = process.cwd()) {
  const ids = [...new Set([...Object.keys(RULE_DESCRIPTIONS), ...report.findings.map((f) => f.rule)])].sort();
  const index = new Map(ids.map((id, i) => [id, i]));
  const rules = ids.map((id) => ({
    id,
    name: id.charAt(0).toUpperCase() + id.slice(1),
    shortDescription: { text: RULE_DESCRIPTIONS[id] ?? `cdk8s-kueue-ray policy rule ${id}.` },
    helpUri: `${INFORMATION_URI}#checking-plain-yaml`,
  }));
  const results = report.findings.map((f) => {
    const l = f.location;
    return {
      ruleId: f.rule,
      ruleIndex: index.get(f.rule)!,
      level: f.severity,
      message: { text: `${f.object}: ${f.field ? `${f.field}: ` : ''}${f.message}. Fix: ${f.fix}` },
      locations: [{
        physicalLocation: {
          artifactLocation: { uri: artifactUri(l.file, cwd) },
          region: { startLine: l.line, startColumn: l.column, endLine: l.endLine, endColumn: l.endColumn },
        },
        logicalLocations: [{ fullyQualifiedName: f.field ? `${f.object}: ${f.field}` : f.object, kind: 'object' }],
      }],
      properties: { object: f.object, field: f.field, fieldWritten: l.exact, fix: f.fix, source: f.source },
    };
  });
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [{
      tool: { driver: { name: 'cdk8s-kueue-ray', version: toolVersion(), semanticVersion: toolVersion(), informationUri: INFORMATION_URI, rules } },
      columnKind: 'utf16CodeUnits',
      invocations: [{ executionSuccessful: true, toolExecutionNotifications: report.notes.map((n) => ({ message: { text: n }, level: 'note' })) }],
      properties: { context: report.context, summary: report.summary },
      results,
    }],
  };
}

export function renderSarif(report: CheckReport): string {
  return `${JSON.stringify(sarifLog(report), null, 2)}\n`;
}
