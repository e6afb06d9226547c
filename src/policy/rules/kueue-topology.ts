/**
 * Kueue's checks of the Topology-Aware Scheduling annotations on a Ray object's pod templates
 * (pkg/controller/jobframework/tas_validation.go and tas.go, as jobs/raycluster/raycluster_webhook.go and common.go,
 * jobs/rayjob/rayjob_webhook.go and jobs/rayservice/rayservice_webhook.go call them at each supported tag).
 *
 * The webhooks run these checks on CREATE whether or not the object carries a queue name: the call sits
 * outside their `QueueName(job) != ""` block. The head and each worker group's template are checked on
 * their own; the slice-size upper bound and the podset-group-name pairing read the PodSets Kueue builds
 * (head 1 pod, a worker group replicas × numOfHosts, the K8sJobMode submitter 1), and are skipped when
 * building them fails. A RayJob's submitter template is never checked on its own, but takes part in the
 * pairing and can make building the PodSets fail.
 */
import { PolicyContext } from '../context';
import { clusterSpecOf, hasSubmitterPodSet, RAY_CLUSTER, RAY_KINDS, rayKindOf, RayObject } from '../kinds';
import { DNS1123_SUBDOMAIN, DNS1123_SUBDOMAIN_MAX_LENGTH, QUALIFIED_NAME_MAX_LENGTH, QUALIFIED_NAME_PART } from '../k8s-names';
import { isRecord, podTemplatesOf, workerGroupsOf } from '../ray-object';
import { FIRST_KUEUE_VERSION, KueueCapabilities } from '../versions';
import { defineRule, Reporter, RuleRecord } from './rule';

/** Kueue's TAS annotation keys (apis/kueue/v1beta1 and v1beta2 topology_types.go). */
export const TAS_ANNOTATION = {
  required: 'kueue.x-k8s.io/podset-required-topology',
  preferred: 'kueue.x-k8s.io/podset-preferred-topology',
  unconstrained: 'kueue.x-k8s.io/podset-unconstrained-topology',
  sliceRequired: 'kueue.x-k8s.io/podset-slice-required-topology',
  sliceSize: 'kueue.x-k8s.io/podset-slice-size',
  /** Multi-layer slices (0.17+, behind TASMultiLayerTopology). */
  constraints: 'kueue.x-k8s.io/podset-slice-required-topology-constraints',
  groupName: 'kueue.x-k8s.io/podset-group-name',
} as const;

const K = TAS_ANNOTATION;
const TAS_KEYS: readonly string[] = Object.values(K);
const SUFFIX = ' (Kueue webhook)';

type Mode = KueueCapabilities['tasAnnotations'];

/** One PodSet Kueue builds from the object, with the TAS annotations of its template. */
interface PodSetTemplate {
  readonly role: 'head' | 'worker' | 'submitter';
  /** The PodSet name: "head", the lower-cased group name, "submitter". */
  readonly name: string;
  readonly count: number;
  /** The template's metadata.annotations, in this library's notation. */
  readonly path: string;
  /** Its TAS annotations with string values (the only ones Kueue reads). */
  readonly ann: ReadonlyMap<string, string>;
}

/** Counts what was reported, and where, so the rule can tell whether Kueue would list field errors at all. */
interface Sink {
  error(field: string, message: string, fix: string): void;
  readonly count: number;
  readonly fields: ReadonlySet<string>;
}

function sinkFor(r: Reporter, suffix: string): Sink {
  const fields = new Set<string>();
  let count = 0;
  return {
    error(field, message, fix) {
      count++;
      fields.add(field);
      r.error(field, message + suffix, fix);
    },
    get count() {
      return count;
    },
    fields,
  };
}

function tasAnnotationsOf(template: unknown): Map<string, string> {
  const out = new Map<string, string>();
  const a = isRecord(template) && isRecord(template.metadata) ? template.metadata.annotations : undefined;
  if (!isRecord(a)) return out;
  for (const key of TAS_KEYS) {
    if (Object.prototype.hasOwnProperty.call(a, key) && typeof a[key] === 'string') out.set(key, a[key]);
  }
  return out;
}

/** The PodSets in Kueue's order (head, workers, the K8sJobMode submitter), as PodSets() builds them from the spec. */
function podSetsOf(obj: RayObject): PodSetTemplate[] {
  const groups = workerGroupsOf(obj);
  const out: PodSetTemplate[] = [];
  let worker = 0;
  for (const t of podTemplatesOf(obj)) {
    const path = `${t.path}.metadata.annotations`;
    const ann = tasAnnotationsOf(t.template);
    if (t.role === 'head') out.push({ role: 'head', name: 'head', count: 1, path, ann });
    else if (t.role === 'submitter') {
      if (hasSubmitterPodSet(obj)) out.push({ role: 'submitter', name: 'submitter', count: 1, path, ann });
    } else {
      const g = groups[worker++];
      const replicas = typeof g?.replicas === 'number' ? g.replicas : 1;
      const hosts = typeof g?.numOfHosts === 'number' ? g.numOfHosts : 0;
      const name = typeof g?.groupName === 'string' ? g.groupName.toLowerCase() : '';
      out.push({ role: 'worker', name, count: hosts > 1 ? replicas * hosts : replicas, path, ann });
    }
  }
  return out;
}

const GO_BOOLS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False']);

/** strconv.ParseInt(s, 10, 32): the value, or Go's reason. */
function parseInt32(s: string): { value?: number; error?: string } {
  if (!/^[+-]?\d+$/.test(s)) return { error: 'invalid syntax' };
  const v = Number(s);
  return v < -(2 ** 31) || v > 2 ** 31 - 1 ? { error: 'value out of range' } : { value: v };
}

/** strconv.ParseUint(s, 10, 64) succeeds. */
function isUint64(s: string): boolean {
  return /^\d+$/.test(s) && BigInt(s) <= 2n ** 64n - 1n;
}

/** Go's %q of a string, as field errors print values (close enough for ASCII). */
function quote(v: string | number): string {
  return typeof v === 'number' ? String(v) : JSON.stringify(v);
}

function utf8Length(s: string): number {
  let n = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}

const QNAME_MSG = 'must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character '
  + '(e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')';
const DNS_SUBDOMAIN_MSG = 'a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start '
  + 'and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is '
  + '\'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')';

/** apimachinery IsQualifiedName, which metavalidation.ValidateLabelName applies: one message per problem. */
export function qualifiedNameErrors(value: string): string[] {
  const parts = value.split('/');
  if (parts.length > 2) {
    return [`a qualified name ${QNAME_MSG} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  const errs: string[] = [];
  const name = parts.length === 2 ? parts[1] : parts[0];
  if (parts.length === 2) {
    const prefix = parts[0];
    if (!prefix) errs.push('prefix part must be non-empty');
    else {
      if (utf8Length(prefix) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push('prefix part must be no more than 253 characters');
      if (!DNS1123_SUBDOMAIN.test(prefix)) errs.push(`prefix part ${DNS_SUBDOMAIN_MSG}`);
    }
  }
  if (!name) errs.push('name part must be non-empty');
  else if (utf8Length(name) > QUALIFIED_NAME_MAX_LENGTH) errs.push('name part must be no more than 63 characters');
  if (!QUALIFIED_NAME_PART.test(name)) errs.push(`name part ${QNAME_MSG}`);
  return errs;
}

interface Constraint { readonly topology: string; readonly size: number }

/**
 * json.Unmarshal of the constraints annotation into []PodsetSliceRequiredTopologyConstraint: Go matches the
 * field names case-insensitively, reads null as the zero value and refuses any other type.
 */
export function decodeConstraints(text: string): { constraints?: Constraint[]; error?: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { error: (e as Error).message };
  }
  if (v === null) return { constraints: [] };
  if (!Array.isArray(v)) return { error: `cannot unmarshal ${jsonType(v)} into a list of {topology, size}` };
  const out: Constraint[] = [];
  for (const item of v) {
    if (item === null) {
      out.push({ topology: '', size: 0 });
      continue;
    }
    if (!isRecord(item) || Array.isArray(item)) return { error: `cannot unmarshal ${jsonType(item)} into {topology, size}` };
    let topology: unknown = null;
    let size: unknown = null;
    for (const key of Object.keys(item)) {
      if (key.toLowerCase() === 'topology') topology = item[key];
      else if (key.toLowerCase() === 'size') size = item[key];
    }
    if (topology !== null && typeof topology !== 'string') {
      return { error: `cannot unmarshal ${jsonType(topology)} into field topology of type string` };
    }
    if (size !== null && !(typeof size === 'number' && Number.isInteger(size) && size >= -(2 ** 31) && size < 2 ** 31)) {
      return { error: `cannot unmarshal ${jsonType(size)} ${JSON.stringify(size)} into field size of type int32` };
    }
    out.push({ topology: topology ?? '', size: size ?? 0 });
  }
  return { constraints: out };
}

function jsonType(v: unknown): string {
  return Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v;
}

/**
 * Why NewPodSetTopologyRequest(...).Build() fails for the template, making PodSets() fail: the annotation and
 * Go's error. From 0.19 (TASMultiLayerTopology on by default) the constraints annotation is parsed there too.
 */
function buildError(p: PodSetTemplate, mode: Mode): { field: string; message: string } | undefined {
  const has = (k: string) => p.ann.has(k);
  const topology = has(K.required) || has(K.preferred);
  const unconstrained = p.ann.get(K.unconstrained);
  if (!topology && unconstrained !== undefined && !GO_BOOLS.has(unconstrained)) {
    return { field: `${p.path}[${K.unconstrained}]`, message: `strconv.ParseBool: parsing ${quote(unconstrained)}: invalid syntax` };
  }
  const twoLevel = has(K.sliceRequired) && has(K.sliceSize);
  const constraints = mode !== 'slice' && has(K.constraints);
  if (!topology && unconstrained === undefined && !twoLevel && !constraints) return undefined;
  if (mode === 'multi-layer' && constraints) {
    const field = `${p.path}[${K.constraints}]`;
    const d = decodeConstraints(p.ann.get(K.constraints)!);
    if (d.error) return { field, message: `failed to parse multi-layer topology constraints annotation: ${d.error}` };
    const n = d.constraints!.length;
    if (n === 0 || n > 3) return { field, message: `topology constraints must contain between 1 and 3 entries: got ${n}` };
  } else if (twoLevel) {
    const size = p.ann.get(K.sliceSize)!;
    const parsed = parseInt32(size);
    if (parsed.error) return { field: `${p.path}[${K.sliceSize}]`, message: `strconv.ParseInt: parsing ${quote(size)}: ${parsed.error}` };
  }
  return undefined;
}

const FIX_ONE = `keep one of ${K.required}, ${K.preferred} or ${K.unconstrained} on the template`;
const FIX_LABEL = 'name a node label key of the Topology (e.g. cloud.google.com/gce-topology-block or kubernetes.io/hostname)';
const FIX_SIZE_NUMBER = 'give the slice size as a whole number of pods';
const FIX_SLICE_PAIR = `set ${K.sliceRequired} and ${K.sliceSize} together, or neither`;

/** ValidateTASPodSetRequest: the template's annotations on their own. */
function checkPodSetRequest(s: Sink, p: PodSetTemplate, mode: Mode): void {
  const has = (k: string) => p.ann.has(k);
  const key = (k: string) => `${p.path}[${k}]`;
  if ([K.required, K.preferred, K.unconstrained].filter(has).length > 1) {
    s.error(p.path, `Invalid value: must not contain more than one topology annotation: ["${K.required}", "${K.preferred}", "${K.unconstrained}"]`,
      FIX_ONE);
  }
  for (const k of [K.required, K.preferred, K.sliceRequired]) {
    const v = p.ann.get(k);
    if (v !== undefined) for (const msg of qualifiedNameErrors(v)) s.error(key(k), `Invalid value: ${quote(v)}: ${msg}`, FIX_LABEL);
  }
  const group = p.ann.get(K.groupName);
  if (group !== undefined) {
    if (isUint64(group)) {
      s.error(key(K.groupName), `Invalid value: ${quote(group)}: must not be a number`, 'give the group a name with a letter in it, e.g. "group-1"');
    }
    for (const k of [K.sliceSize, K.sliceRequired]) {
      if (has(k)) s.error(key(K.groupName), `Forbidden: may not be set when '${k}' is specified`, `drop ${K.groupName} or the slice annotations`);
    }
    if (!has(K.preferred) && !has(K.required)) {
      s.error(key(K.groupName), `Forbidden: may not be set when neither '${K.preferred}' nor '${K.required}' is specified`,
        `add ${K.required} or ${K.preferred} (the same in both PodSets of the group), or drop ${K.groupName}`);
    }
  }
  const unconstrained = p.ann.get(K.unconstrained);
  if (unconstrained !== undefined && !GO_BOOLS.has(unconstrained)) {
    s.error(key(K.unconstrained), `Invalid value: ${quote(unconstrained)}: must be a boolean value`, 'write "true" or "false"');
  }
  const size = p.ann.get(K.sliceSize);
  if (size !== undefined) {
    const parsed = parseInt32(size);
    if (parsed.error) s.error(key(K.sliceSize), `Invalid value: ${quote(size)}: must be a numeric value`, FIX_SIZE_NUMBER);
    else if (parsed.value! < 1) {
      s.error(key(K.sliceSize), `Invalid value: ${quote(size)}: must be greater than or equal to 1`, 'use a slice size of 1 or more');
    }
  }
  if (has(K.sliceRequired) && size === undefined) {
    s.error(key(K.sliceSize), `Required value: must be set when '${K.sliceRequired}' is specified`, FIX_SLICE_PAIR);
  }
  if (!has(K.sliceRequired) && size !== undefined) {
    s.error(key(K.sliceSize), `Forbidden: may not be set when '${K.sliceRequired}' is not specified`, FIX_SLICE_PAIR);
  }
  if (mode !== 'slice') checkConstraints(s, p, mode);
}

/** validateSliceRequiredTopologyConstraintsAnnotation (0.17+). */
function checkConstraints(s: Sink, p: PodSetTemplate, mode: Mode): void {
  const text = p.ann.get(K.constraints);
  if (text === undefined) return;
  const field = `${p.path}[${K.constraints}]`;
  // TASMultiLayerTopology is Alpha and off by default in 0.17 (on from 0.19): the policy assumes the default.
  if (mode === 'multi-layer-gated') {
    s.error(field, 'Forbidden: the TASMultiLayerTopology feature gate must be enabled to use this annotation',
      'enable --feature-gates=TASMultiLayerTopology=true on kueue-controller-manager (on by default from Kueue '
        + `${FIRST_KUEUE_VERSION.tasMultiLayerTopologyOn}), or use ${K.sliceRequired} with ${K.sliceSize}`);
    return;
  }
  const FIX_EXCLUSIVE = `use either ${K.constraints} or ${K.sliceRequired} with ${K.sliceSize}, not both`;
  for (const k of [K.sliceRequired, K.sliceSize]) {
    if (p.ann.has(k)) s.error(field, `Forbidden: may not be set when '${k}' is specified`, FIX_EXCLUSIVE);
  }
  if (p.ann.has(K.groupName)) {
    s.error(`${p.path}[${K.groupName}]`, `Forbidden: may not be set when '${K.constraints}' is specified`,
      `drop ${K.groupName}, or the multi-layer constraints`);
  }
  const d = decodeConstraints(text);
  if (d.error) {
    s.error(field, `Invalid value: ${quote(text)}: must be a valid JSON array: ${d.error}`,
      'write a JSON list such as [{"topology":"cloud.google.com/gce-topology-block","size":16},{"topology":"kubernetes.io/hostname","size":4}]');
    return;
  }
  const list = d.constraints!;
  if (list.length === 0 || list.length > 3) {
    s.error(field, `Invalid value: ${quote(text)}: topology constraints must contain between 1 and 3 entries`,
      'list 1 to 3 slice layers, coarsest first');
    return;
  }
  const seen = new Map<string, number>();
  list.forEach((c, i) => {
    for (const msg of qualifiedNameErrors(c.topology)) s.error(`${field}[${i}].topology`, `Invalid value: ${quote(c.topology)}: ${msg}`, FIX_LABEL);
    if (c.size < 1) {
      s.error(`${field}[${i}].size`, `Invalid value: ${c.size}: must be greater than or equal to 1`, 'give each layer a size of 1 or more');
    }
  });
  list.forEach((c, i) => {
    const prev = seen.get(c.topology);
    if (prev === undefined) seen.set(c.topology, i);
    else {
      s.error(`${field}[${i}].topology`, `Duplicate value: ${quote(`${c.topology} (also at index ${prev})`)}`,
        'name each topology level once, coarsest first');
    }
  });
  for (let i = 0; i + 1 < list.length; i++) {
    const child = list[i + 1].size;
    if (child > 0 && list[i].size % child !== 0) {
      s.error(`${field}[${i + 1}].size`, `Invalid value: ${child}: must evenly divide the parent layer size ${list[i].size}`,
        'make each layer\'s size a divisor of the size of the layer above it');
    }
  }
}

/** ValidateSliceSizeAnnotationUpperBound, against the PodSet Kueue finds by the template's PodSet name. */
function checkUpperBound(s: Sink, p: PodSetTemplate, count: number, mode: Mode): void {
  const size = p.ann.get(K.sliceSize);
  const fix = `use at most ${count} (the pods of this PodSet), or raise the replicas`;
  if (size !== undefined) {
    const parsed = parseInt32(size);
    const field = `${p.path}[${K.sliceSize}]`;
    // A second "must be a numeric value" on the same field (ValidateTASPodSetRequest gave the first) adds nothing.
    if (parsed.error) {
      if (!s.fields.has(field)) s.error(field, `Invalid value: ${quote(size)}: must be a numeric value`, FIX_SIZE_NUMBER);
      return;
    }
    if (parsed.value! > count) s.error(field, `Invalid value: ${quote(size)}: must not be greater than pod set count ${count}`, fix);
  }
  // 0.17+ checks the first constraint layer too, without asking the gate.
  const text = p.ann.get(K.constraints);
  if (mode === 'slice' || text === undefined) return;
  const first = decodeConstraints(text).constraints?.[0];
  if (first && first.size > count) {
    s.error(`${p.path}[${K.constraints}]`, `Invalid value: ${first.size}: must not be greater than pod set count ${count}`, fix);
  }
}

/** ValidatePodSetGroupingTopology: a podset-group-name joins exactly two PodSets, one of them a single pod, with the same topology. */
function checkGroups(s: Sink, podSets: readonly PodSetTemplate[]): void {
  const groups = new Map<string, PodSetTemplate[]>();
  for (const p of podSets) {
    const name = p.ann.get(K.groupName);
    // Build() sets PodSetGroupName only beside a required or preferred topology.
    if (name === undefined || !(p.ann.has(K.required) || p.ann.has(K.preferred))) continue;
    const list = groups.get(name) ?? [];
    list.push(p);
    groups.set(name, list);
  }
  for (const [name, members] of groups) {
    if (members.length !== 2) {
      for (const p of members) {
        s.error(`${p.path}[${K.groupName}]`,
          `Invalid value: ${quote(name)}: can only define groups of exactly 2 pod sets, got: ${members.length} pod set(s)`,
          'give the group name to exactly two PodSets (e.g. the head and one worker group), or drop it');
      }
      continue;
    }
    const [a, b] = members;
    if (a.count !== 1 && b.count !== 1) {
      const msg = 'can only define groups where at least one pod set has only 1 replica, '
        + `got: ${a.count} replica(s) and ${b.count} replica(s) in the group`;
      for (const p of members) {
        s.error(`${p.path}[${K.groupName}]`, `Invalid value: ${quote(name)}: ${msg}`, 'pair a PodSet of one pod (e.g. the head) with the other');
      }
    }
    // Build() keeps the required topology when both are set; the preferred one only without it.
    const topo = (p: PodSetTemplate) => (p.ann.has(K.required) ? `r:${p.ann.get(K.required)}` : `p:${p.ann.get(K.preferred)}`);
    if (topo(a) !== topo(b)) {
      const msg = (other: PodSetTemplate) => `Invalid value: must specify '${K.required}' or '${K.preferred}' topology consistent with `
        + `'${other.path}' in group '${name}'`;
      const fix = 'give both PodSets of the group the same annotation with the same topology level';
      s.error(a.path, msg(b), fix);
      s.error(b.path, msg(a), fix);
    }
  }
}

/** Runs the webhook's validateTopologyRequest on the PodSets. */
function checkPodSets(r: Reporter, obj: RayObject, ctx: PolicyContext, podSets: readonly PodSetTemplate[]): void {
  const mode = ctx.kueue.tasAnnotations;
  // Before its native integration Kueue checks the RayCluster KubeRay creates for a RayService, with the same templates.
  const kind = rayKindOf(obj)!;
  const s = sinkFor(r, kind.kueueFrameworkFor(ctx.kueue) === kind.kueueFramework ? SUFFIX : ' (Kueue webhook, on the RayCluster KubeRay creates)');
  const failures = podSets.map((p) => buildError(p, mode));
  const built = failures.every((f) => f === undefined);
  // 0.19's RayCluster webhook checks the worker templates in its loop over the built PodSets only.
  const ownPodSets = ctx.kueue.tasRayClusterWorkersNeedPodSets && RAY_CLUSTER.is(obj);
  for (const p of podSets) {
    if (p.role === 'submitter' || (p.role === 'worker' && ownPodSets && !built)) continue;
    checkPodSetRequest(s, p, mode);
  }
  if (built) {
    checkGroups(s, podSets);
    for (const p of podSets) {
      if (p.role === 'submitter') continue;
      const count = ownPodSets ? p.count : (podSets.find((q) => q.name === p.name) ?? p).count;
      checkUpperBound(s, p, count, mode);
    }
  }
  // Without field errors the webhook returns the PodSets error itself, and the object is still refused.
  const failure = failures.find((f) => f !== undefined);
  if (!s.count && failure) {
    s.error(failure.field, `${failure.message}: Kueue cannot build the object's PodSets, so it refuses the object`,
      'fix the annotation\'s value (a boolean, a whole number, or a JSON list of 1 to 3 {topology, size} layers)');
  }
}

/** Kueue's webhook checks the TAS annotations of the pod templates (TopologyAwareScheduling is on by default from 0.14). */
export const topologyAnnotations = defineRule({
  name: 'topologyAnnotations', source: 'kueue-webhook', kinds: RAY_KINDS,
  description: 'Topology-aware scheduling annotations on the pod templates are ones Kueue\'s webhook accepts (Kueue webhook).',
}, (r, obj, ctx) => {
  if (ctx.kueue.tasAnnotations === 'none' || !rayKindOf(obj) || !clusterSpecOf(obj)) return r.findings;
  const podSets = podSetsOf(obj);
  if (podSets.every((p) => p.ann.size === 0)) return r.findings;
  checkPodSets(r, obj, ctx, podSets);
  return r.findings;
});

export const KUEUE_TOPOLOGY_RULES: readonly RuleRecord[] = [topologyAnnotations];
