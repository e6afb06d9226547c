/**
 * What `cdk8s-kueue-ray check` reports: the schema of `--output json` (these interfaces), and the
 * text rendering. SARIF is in sarif.ts.
 */
import { Finding } from '../policy';

/** Version of the JSON report's schema; raised on an incompatible change. */
// 2: documents are counted from 1 (they were 0-based indexes).
export const CHECK_REPORT_SCHEMA_VERSION = 2;

/** Where something is written: 1-based lines and columns, end exclusive. */
export interface CheckLocation {
  /** The file as given on the command line or found under a given directory ("-": standard input). */
  readonly file: string;
  /** The YAML document's number in the file, counted from 1 like lines. */
  readonly document: number;
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
  /**
   * False when the finding's field is not written in the file (e.g. a missing
   * shutdownAfterJobFinishes): the location is then its nearest written parent, named by `resolvedField`.
   */
  readonly exact: boolean;
  /** The part of the finding's field that is written in the file. */
  readonly resolvedField: string;
}

/** A policy finding (the same fields as at synth and in the webhook) with its place in the files. */
export interface CheckFinding extends Finding {
  readonly location: CheckLocation;
}

export interface CheckedObject {
  /** e.g. "RayJob default/rayjob-sample-*". */
  readonly object: string;
  readonly file: string;
  readonly document: number;
  readonly line: number;
  /** Skipped: owned by a RayJob or RayService (KubeRay creates it; the webhook leaves it alone too). */
  readonly status: 'checked' | 'skipped';
  readonly note?: string;
}

export interface CheckReport {
  readonly schemaVersion: typeof CHECK_REPORT_SCHEMA_VERSION;
  readonly tool: 'cdk8s-kueue-ray check';
  /**
   * The versions and gate the policy ran with, and where each came from: a flag, a Kueue/KubeRay
   * install in the files (the operator images, the manager's feature gates), the cluster's
   * kueue-system/kueue-controller-manager (--kubeconfig), or the default.
   */
  readonly context: {
    readonly kueue: string;
    readonly kueueFrom: 'flag' | 'files' | 'cluster' | 'default';
    readonly kubeRay: string;
    readonly kubeRayFrom: 'flag' | 'files' | 'cluster' | 'default';
    readonly elasticGate: 'on' | 'off' | 'unknown';
    readonly elasticGateFrom: 'flag' | 'files' | 'cluster' | 'default';
    readonly namespace: string;
    /** Where the CRDs the objects were judged against came from; 'none': the CRD schema was not checked. */
    readonly crdSchemaFrom: 'files' | 'crd-dir' | 'package' | 'none';
  };
  /**
   * The queues the cross-object rules saw, and where they came from; null when no source held any
   * (no Kueue queue objects in the files, no --queues, no --kubeconfig): cross-object rules did not run.
   */
  readonly inventory: {
    readonly from: ReadonlyArray<'files' | 'queues' | 'cluster'>;
    readonly localQueues: number;
    readonly clusterQueues: number;
    readonly cohorts: number;
    readonly priorityClasses: number;
    readonly namespaces: number;
  } | null;
  /** Every file read, in order. */
  readonly files: readonly string[];
  /** Every Ray object found, in file order. */
  readonly objects: readonly CheckedObject[];
  /** Sorted by file, line, column. */
  readonly findings: readonly CheckFinding[];
  /** Things the user should know about how the check ran (e.g. cross-object rules skipped). */
  readonly notes: readonly string[];
  /** `objects`: the Ray objects checked; `kueueObjects`: the Kueue objects (their setup rules and API versions are checked too). */
  readonly summary: {
    readonly errors: number; readonly warnings: number; readonly objects: number; readonly kueueObjects: number; readonly files: number;
  };
}

/** The process exit code for a report: 1 with any error, else 0 (warnings alone pass). */
export function exitCodeOf(report: CheckReport): number {
  return report.summary.errors > 0 ? 1 : 0;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Text: one block per finding, compiler style (file:line:col: severity: object: field: message),
 * then the fix and the rule, then a summary line.
 */
const SCHEMA_FROM: Record<CheckReport['context']['crdSchemaFrom'], string> = {
  'files': 'from the files', 'crd-dir': 'from --crd-dir', 'package': 'from the package\'s KubeRay CRDs', 'none': 'not checked',
};

export function renderText(report: CheckReport): string {
  const lines: string[] = [];
  for (const f of report.findings) {
    const l = f.location;
    const where = l.exact || !f.field ? '' : ` (not written; shown at ${l.resolvedField || 'the object'})`;
    lines.push(`${l.file}:${l.line}:${l.column}: ${f.severity}: ${f.object}: ${f.field ? `${f.field}${where}: ` : ''}${f.message}`);
    lines.push(`    fix: ${f.fix}`);
    lines.push(`    rule: ${f.rule} (${f.source})`);
  }
  for (const o of report.objects.filter((x) => x.status === 'skipped')) lines.push(`${o.file}:${o.line}: skipped ${o.object}: ${o.note}`);
  for (const n of report.notes) lines.push(`note: ${n}`);
  const c = report.context;
  const inv = report.inventory;
  const queues = inv
    ? `queues from ${inv.from.map((f) => ({ files: 'the files', queues: '--queues', cluster: 'the cluster' })[f]).join(' + ')} (${plural(inv.localQueues, 'LocalQueue')}, ${plural(inv.clusterQueues, 'ClusterQueue')}, ${plural(inv.cohorts, 'Cohort')}, ${plural(inv.priorityClasses, 'WorkloadPriorityClass').replace(/Classs$/, 'Classes')}, ${plural(inv.namespaces, 'Namespace')})`
    : 'no queues';
  const s = report.summary;
  const kueue = s.kueueObjects ? ` and ${plural(s.kueueObjects, 'Kueue object')}` : '';
  lines.push(`check: ${plural(s.errors, 'error')}, ${plural(s.warnings, 'warning')} in ${plural(s.objects, 'Ray object')}${kueue} `
    + `(${plural(s.files, 'file')}); `
    + `Kueue ${c.kueue} (${c.kueueFrom}), KubeRay ${c.kubeRay} (${c.kubeRayFrom}), elastic gate ${c.elasticGate} (${c.elasticGateFrom}); ${queues}; `
    + `CRD schema ${SCHEMA_FROM[c.crdSchemaFrom]}`);
  return `${lines.join('\n')}\n`;
}

export function renderJson(report: CheckReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
