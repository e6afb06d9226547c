/**
 * What a rule reports. Every finding names the object, the field and the fix, so the same text
 * serves a synth error, an admission denial and a preview line.
 */
import { RayObject } from './kinds';

export type Severity = 'error' | 'warning';

/** Who would act on the problem if the library did not catch it first. */
export type FindingSource =
  | 'kueue-webhook' // Kueue's admission webhook denies the object
  | 'kueue-workload' // the object is accepted, but its Workload is rejected or never admitted
  | 'kuberay-operator' // the CRD accepts it, KubeRay then refuses or stalls it
  | 'kubernetes' // the API server rejects or prunes it
  | 'version' // the chosen versions lack a feature or are a known-bad pair
  | 'app'; // the object contradicts other objects of the app (queues, priorities, quota)

export interface Finding {
  /** Name of the rule (a function in src/policy/rules). */
  readonly rule: string;
  readonly severity: Severity;
  /** e.g. "RayJob default/rayjob-sample-*". */
  readonly object: string;
  /** JSON path of the offending field, e.g. "spec.shutdownAfterJobFinishes". */
  readonly field: string;
  readonly message: string;
  readonly fix: string;
  readonly source: FindingSource;
}

/** A human reference to a Ray object: Kind namespace/name (generateName shown as prefix-*). */
export function objectRef(obj: RayObject): string {
  // Only strings are shown: a finding may be about a metadata field of the wrong type.
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const ns = str(obj.metadata?.namespace) ?? 'default';
  const gen = str(obj.metadata?.generateName);
  const name = str(obj.metadata?.name) ?? (gen ? `${gen}*` : '<unnamed>');
  return `${str(obj.kind) ?? '<kind?>'} ${ns}/${name}`;
}

/** A human reference to any Kubernetes object as written: Kind [namespace/]name (cluster-scoped ones have no namespace). */
export function kubeObjectRef(obj: unknown): string {
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const o = typeof obj === 'object' && obj !== null ? obj as { kind?: unknown; metadata?: { namespace?: unknown; name?: unknown } } : {};
  const md = typeof o.metadata === 'object' && o.metadata !== null ? o.metadata : {};
  const ns = str(md.namespace);
  return `${String(o.kind)} ${ns ? `${ns}/` : ''}${str(md.name) ?? '(no name)'}`;
}

export function formatFinding(f: Finding): string {
  return `${f.object}: ${f.field}: ${f.message}. Fix: ${f.fix} [${f.rule}]`;
}

export function errorsOf(findings: readonly Finding[]): Finding[] {
  return findings.filter((f) => f.severity === 'error');
}

export function warningsOf(findings: readonly Finding[]): Finding[] {
  return findings.filter((f) => f.severity === 'warning');
}
