/**
 * Kueue's kueue.x-k8s.io/admission-gated-by annotation (util/webhook/validation_admissiongatedby.go, run by
 * jobframework ValidateJobOnCreate and ValidateJobOnUpdate under the AdmissionGatedBy gate: the capability
 * admissionGatedBy in versions.ts). The annotation lists gates, comma-separated, that hold the Workload's
 * admission until their controllers remove them: each gate a domain-prefixed path of at most 63 bytes,
 * none empty or repeated; gates can be removed after creation, never added.
 */
import { RAY_JOB, RAY_KINDS, RayObject } from '../kinds';
import { isDns1123Subdomain } from '../k8s-names';
import { isQueued, isRecord } from '../ray-object';
import { defineRule, Reporter, Rule } from './rule';

export const ADMISSION_GATED_BY_ANNOTATION = 'kueue.x-k8s.io/admission-gated-by';
export const ADMISSION_GATED_BY_FIELD = `metadata.annotations[${ADMISSION_GATED_BY_ANNOTATION}]`;
/** Same as the constraint of a Job's spec.managedBy (MaxGateNameLengthForAdmissionGatedBy). */
const MAX_GATE_NAME_BYTES = 63;
/** apimachinery's httpPathFmt, the path part of a domain-prefixed path. */
const HTTP_PATH = /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;
const NAME_FIX = 'name each gate as a domain-prefixed path of at most 63 characters, e.g. "example.com/my-gate", separated by commas';

/** The annotation's value, "" when absent (Kueue reads an absent annotation as empty). */
function gatedBy(obj: RayObject): string {
  const v = isRecord(obj?.metadata?.annotations) ? obj.metadata.annotations[ADMISSION_GATED_BY_ANNOTATION] : undefined;
  return typeof v === 'string' ? v : '';
}

/** csv.Parse: comma-separated names, the spaces around each trimmed; a blank value lists none. */
export function parseGates(value: string): string[] {
  return value.trim() === '' ? [] : value.split(',').map((g) => g.trim());
}

/** What is wrong with one gate name as IsDomainPrefixedPath and the length limit see it, in words. */
function gateProblems(gate: string): string[] {
  const out: string[] = [];
  const slash = gate.indexOf('/');
  const host = slash < 0 ? '' : gate.slice(0, slash);
  const path = slash < 0 ? '' : gate.slice(slash + 1);
  if (slash <= 0 || path === '') {
    out.push(`gate "${gate}" must be a domain-prefixed path (such as "acme.io/foo")`);
  } else {
    if (!isDns1123Subdomain(host)) {
      out.push(`gate "${gate}": "${host}" is not a DNS-1123 subdomain (a domain such as example.com)`);
    }
    if (!HTTP_PATH.test(path)) out.push(`gate "${gate}": "${path}" is not a valid path (letters, digits and /-._~%!$&'()*+,;=: only)`);
  }
  const bytes = new TextEncoder().encode(gate).length;
  if (bytes > MAX_GATE_NAME_BYTES) out.push(`gate "${gate}" is ${bytes} bytes long, more than ${MAX_GATE_NAME_BYTES}`);
  return out;
}

/** validateAdmissionGatedByAnnotationFormat: every problem of the value, in Kueue's order. */
export function admissionGatedByProblems(value: string): string[] {
  if (value === '') return [];
  const out: string[] = [];
  const seen = new Set<string>();
  for (const gate of parseGates(value)) {
    if (gate === '') {
      out.push(`"${value}" cannot contain empty gate names`);
      continue;
    }
    if (seen.has(gate)) {
      out.push(`duplicate gate name: ${gate}`);
      continue;
    }
    seen.add(gate);
    out.push(...gateProblems(gate));
  }
  return out;
}

/**
 * Whether Kueue's create validation reaches ValidateJobOnCreate: a queued RayJob that selects an existing
 * cluster, or has no rayClusterSpec, is answered before it (rayJobClusterSource covers the errors).
 */
function reachesJobValidation(obj: RayObject, ctx: Parameters<Rule>[1]): boolean {
  if (!RAY_JOB.is(obj) || !isQueued(obj, ctx.kueue)) return true;
  const selector = isRecord(obj.spec?.clusterSelector) && Object.keys(obj.spec.clusterSelector).length > 0;
  return !selector && isRecord(obj.spec?.rayClusterSpec);
}

/** The annotation's format, on every Ray object Kueue's webhook validates (queued or not: ValidateJobOnCreate runs for both). */
export const admissionGatedBy = defineRule({
  name: 'admissionGatedBy', source: 'kueue-webhook', kinds: RAY_KINDS,
  description: 'The kueue.x-k8s.io/admission-gated-by annotation lists distinct domain-prefixed gate names of at most 63 bytes '
    + '(Kueue webhook, 0.19+).',
}, (r, obj, ctx) => {
  if (!ctx.kueue.admissionGatedBy || !reachesJobValidation(obj, ctx)) return r.findings;
  for (const problem of admissionGatedByProblems(gatedBy(obj))) r.error(ADMISSION_GATED_BY_FIELD, `${problem} (Kueue webhook)`, NAME_FIX);
  return r.findings;
});

/** ValidateAdmissionGatedByAnnotationOnUpdate's own checks (the format is the create rule's, which the update runs too). */
export function admissionGatedByOnUpdate(oldObj: RayObject, newObj: RayObject, ctx: Parameters<Rule>[1], r: Reporter): void {
  if (!ctx.kueue.admissionGatedBy) return;
  const before = gatedBy(oldObj), after = gatedBy(newObj);
  if (before === '' && after !== '') {
    r.error(ADMISSION_GATED_BY_FIELD, 'cannot add admission gate after creation (Kueue webhook)',
      `set ${ADMISSION_GATED_BY_ANNOTATION} when creating the object (afterwards gates can only be removed), or recreate it`);
  }
  if (before !== '' && after !== '') {
    const old = parseGates(before);
    const added = parseGates(after).find((g) => !old.includes(g));
    if (added !== undefined) {
      r.error(ADMISSION_GATED_BY_FIELD, `can only remove gates, not add new ones: "${added}" was not a gate before (Kueue webhook)`,
        `keep only gates of "${before}", or recreate the object with the new gate`);
    }
  }
}
