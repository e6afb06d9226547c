/**
 * The types of the fields the policy reads. The API server checks them against the CRD schema only
 * after the mutating webhooks ran, and the policy can be called on anything: a field of the wrong type
 * is a finding here (every other rule reads it as absent), never an exception.
 */
import { clusterSpecOf, RAY_KINDS, rayKindOf } from '../kinds';
import { isDns1123Subdomain, LABEL_VALUE_MAX_LENGTH, QUALIFIED_NAME_MAX_LENGTH, QUALIFIED_NAME_PART } from '../k8s-names';
import { isRecord, podTemplatesOf, shown, workerGroupsOf } from '../ray-object';
import { defineRule, RuleRecord } from './rule';

type Kind = 'string' | 'boolean' | 'integer' | 'object' | 'list' | 'string map';

/** What a value of each kind is once typeOk says so (an integer is a number). */
interface KindType {
  readonly string: string;
  readonly boolean: boolean;
  readonly integer: number;
  readonly object: Record<string, unknown>;
  readonly list: readonly unknown[];
  readonly 'string map': Record<string, string>;
}

/** Every value is a string. A loop over keys: Object.values on a map of 200,000 labels costs twice as much. */
function stringValues(v: Record<string, unknown>): boolean {
  for (const k in v) if (typeof v[k] !== 'string') return false;
  return true;
}

function typeOk(v: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'string': return typeof v === 'string';
    case 'boolean': return typeof v === 'boolean';
    case 'integer': return Number.isInteger(v);
    case 'object': return isRecord(v);
    case 'list': return Array.isArray(v);
    case 'string map': return isRecord(v) && stringValues(v);
  }
}

/**
 * The most entries the policy walks in one list (worker groups, containers, init containers, owner
 * references, resources of one container), and the most resource names of one pod. An object the API server accepts (3 MiB) holds up to a
 * million of them, and every rule walks them: several seconds per review against the admission
 * worker's 2 s deadline. Real objects are far below: Kueue admits at most 18 PodSets, a pod has a few
 * containers and resources. A longer list is refused here, and (like any wrong shape) no other rule
 * runs on the object.
 */
export const MAX_LIST_LENGTH = 1000;

/** Entries of a list or map. Own keys counted in a loop: Object.keys would build an array for every resource list. */
function countOf(v: unknown): number {
  if (Array.isArray(v)) return v.length;
  if (!isRecord(v)) return 0;
  let n = 0;
  for (const k in v) if (Object.prototype.hasOwnProperty.call(v, k)) n++;
  return n;
}

const METADATA_STRINGS = ['name', 'generateName', 'namespace'];
const GROUP_INTEGERS = ['replicas', 'minReplicas', 'maxReplicas', 'numOfHosts'];
const RESOURCE_LISTS = ['requests', 'limits'] as const;
const RESOURCE_SUFFIXES = { requests: '.resources.requests', limits: '.resources.limits' } as const;
const CONTAINER_LISTS = ['containers', 'initContainers'] as const;
// Fixes for lists over the limit (owner references, worker groups, a pod's runtime overhead), named so that
// their checks keep to one line: objectShape is at the function size limit of test/source-size.test.ts.
const FIX_OWNERS = 'keep the owners of the object only';
const FIX_GROUPS = 'merge worker groups of the same pod shape (raise replicas instead); Kueue admits at most 18 PodSets';
const FIX_RUNTIME = 'list only the overhead of the pod\'s runtime class';

export const objectShape = defineRule({
  name: 'objectShape', source: 'kubernetes', kinds: RAY_KINDS,
  description: 'Fields the policy reads have the types the CRD schema requires.',
}, (r, obj) => {
  // The field is base + suffix, joined only for a finding: a review checks hundreds of fields, nearly all fine.
  const check = <K extends Kind>(v: unknown, kind: K, base: string, suffix = ''): v is KindType[K] => {
    if (v === undefined || v === null) return false;
    if (typeOk(v, kind)) return true;
    const field = base + suffix;
    // Past the listed few (Reporter), a wrong field is only counted: no message is built for it.
    if (r.full('error')) r.error(field, '', '');
    else r.error(field, `must be ${kind === 'integer' || kind === 'object' ? 'an' : 'a'} ${kind}, not ${shown(v)} (the CRD schema refuses it)`,
      `write ${field} as ${kind === 'string map' ? 'a mapping of strings to strings' : `a ${kind}`}`);
    return false;
  };
  /** False (with a finding) for a list longer than MAX_LIST_LENGTH: its entries are not walked. */
  const bounded = (v: unknown, field: string, fix: string, suffix = ''): boolean => {
    const n = countOf(v);
    if (n <= MAX_LIST_LENGTH) return true;
    r.error(field + suffix, `has ${n} entries, more than the ${MAX_LIST_LENGTH} the admission webhook checks in one list`, fix);
    return false;
  };
  const md: unknown = obj.metadata;
  if (check(md, 'object', 'metadata')) {
    for (const f of METADATA_STRINGS) check(md[f], 'string', 'metadata.', f);
    for (const f of ['labels', 'annotations'] as const) check(md[f], 'string map', 'metadata.', f);
    if (check(md.ownerReferences, 'list', 'metadata.ownerReferences') && bounded(md.ownerReferences, 'metadata.ownerReferences', FIX_OWNERS)) {
      md.ownerReferences.forEach((o: unknown, i: number) => check(o, 'object', `metadata.ownerReferences[${i}]`));
    }
  }
  if (obj.spec !== undefined && !check(obj.spec, 'object', 'spec')) return r.findings;
  const spec: Record<string, unknown> = obj.spec ?? {};
  for (const [f, type] of rayKindOf(obj)?.specFieldTypes ?? []) check(spec[f], type, 'spec.', f);
  const cs = clusterSpecOf(obj);
  let workersBounded = true;
  if (cs) {
    check(cs.spec.enableInTreeAutoscaling, 'boolean', cs.path, '.enableInTreeAutoscaling');
    check(cs.spec.headGroupSpec, 'object', cs.path, '.headGroupSpec');
    if (check(cs.spec.workerGroupSpecs, 'list', `${cs.path}.workerGroupSpecs`)
      && (workersBounded = bounded(cs.spec.workerGroupSpecs, `${cs.path}.workerGroupSpecs`, FIX_GROUPS))) {
      workerGroupsOf(obj).forEach((g, i) => {
        const p = `${cs.path}.workerGroupSpecs[${i}]`;
        if (!check(g, 'object', p)) return;
        check(g.groupName, 'string', p, '.groupName');
        for (const f of GROUP_INTEGERS) check(g[f], 'integer', `${p}.`, f);
        check(g.suspend, 'boolean', p, '.suspend');
      });
    }
  }
  for (const t of podTemplatesOf(obj, { workers: workersBounded })) {
    if (!check(t.template, 'object', t.path) || !check(t.template.spec, 'object', t.path, '.spec')) continue;
    // The pod-request sums keep one entry per resource name: bounded per pod too, not only per container.
    const names = new Set<string>();
    for (const list of CONTAINER_LISTS) {
      const field = `${t.path}.spec.${list}`;
      if (!check(t.template.spec[list], 'list', field)
        || !bounded(t.template.spec[list], field, `a pod needs a few ${list}: move the work into fewer`)) continue;
      t.template.spec[list].forEach((c: unknown, i: number) => {
        const at = `${field}[${i}]`;
        if (!check(c, 'object', at)) return;
        check(c.name, 'string', at, '.name');
        check(c.env, 'list', at, '.env');
        if (check(c.resources, 'object', at, '.resources')) {
          for (const f of RESOURCE_LISTS) {
            const l = c.resources[f];
            if (l === undefined || l === null) continue;
            const suffix = RESOURCE_SUFFIXES[f];
            if (check(l, 'object', at, suffix) && bounded(l, at, 'request only the resources the container uses', suffix)) {
              if (names.size <= MAX_LIST_LENGTH) for (const k in l) names.add(k);
            }
          }
        }
      });
    }
    if (check(t.template.spec.overhead, 'object', t.path, '.spec.overhead')) bounded(t.template.spec.overhead, t.path, FIX_RUNTIME, '.spec.overhead');
    if (names.size > MAX_LIST_LENGTH) {
      r.error(`${t.path}.spec`, `its containers name more than ${MAX_LIST_LENGTH} different resources, `
        + 'the most the admission webhook checks in one pod', 'request only the resources the containers use');
    }
    check(t.template.spec.restartPolicy, 'string', t.path, '.spec.restartPolicy');
  }
  return r.findings;
});

/** Why a label key is invalid (Kubernetes' qualified name: optional DNS-subdomain prefix, 63-character name), or undefined. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && !isDns1123Subdomain(prefix)) return `its prefix "${prefix}" is not a DNS subdomain`;
  if (!name || name.length > QUALIFIED_NAME_MAX_LENGTH || !QUALIFIED_NAME_PART.test(name)) {
    return 'its name part must be 1-63 alphanumeric characters, "-", "_" or ".", starting and ending alphanumeric';
  }
  return undefined;
}

/** Why a label value is invalid (at most 63 characters, alphanumeric with "-", "_", "." inside), or undefined. */
export function labelValueProblem(value: string): string | undefined {
  return value !== '' && (value.length > LABEL_VALUE_MAX_LENGTH || !QUALIFIED_NAME_PART.test(value))
    ? 'its value must be at most 63 characters, alphanumeric, "-", "_" or ".", starting and ending alphanumeric' : undefined;
}

/** Label keys and values the API server accepts (metadata validation runs before any webhook decision is stored). */
export const labelSyntax = defineRule({
  name: 'labelSyntax', source: 'kubernetes', kinds: RAY_KINDS,
  description: 'Label keys and values are valid for the API server.',
}, (r, obj) => {
  const labels = obj.metadata?.labels;
  if (!isRecord(labels)) return r.findings;
  for (const key of Object.keys(labels)) {
    const v = labels[key];
    const keyProblem = labelKeyProblem(key);
    if (keyProblem) r.error(`metadata.labels[${key}]`, `label key "${key}" is invalid: ${keyProblem}`,
      'use a valid label key such as example.com/team');
    if (typeof v === 'string' && labelValueProblem(v)) {
      r.error(`metadata.labels[${key}]`,
        `label value "${v}" is invalid: at most 63 characters, alphanumeric, "-", "_" or ".", starting and ending alphanumeric (the `
          + 'API server refuses it)',
        'use a valid label value');
    }
  }
  return r.findings;
});

export const OBJECT_SHAPE_RULES: readonly RuleRecord[] = [objectShape, labelSyntax];
