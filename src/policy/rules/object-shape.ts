/**
 * The types of the fields the policy reads. The API server checks them against the CRD schema only
 * after the mutating webhooks ran, and the policy can be called on anything: a field of the wrong type
 * is a finding here (every other rule reads it as absent), never an exception.
 */
import { clusterSpecOf } from '../gang';
import { isRecord, podTemplatesOf, shown, workerGroupsOf } from '../ray-object';
import { Reporter, Rule } from './rule';

type Kind = 'string' | 'boolean' | 'integer' | 'object' | 'list' | 'string map';

function typeOk(v: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'string': return typeof v === 'string';
    case 'boolean': return typeof v === 'boolean';
    case 'integer': return Number.isInteger(v);
    case 'object': return isRecord(v);
    case 'list': return Array.isArray(v);
    case 'string map': return isRecord(v) && Object.values(v).every((x) => typeof x === 'string');
  }
}

/** A few wrong fields are enough to fix the object; thousands would only grow the denial. */
const MAX_SHAPE_FINDINGS = 20;

export const objectShape: Rule = (obj) => {
  const r = new Reporter('objectShape', obj, 'kubernetes');
  const check = (v: unknown, kind: Kind, field: string): boolean => {
    if (v === undefined || v === null) return false;
    if (typeOk(v, kind)) return true;
    if (r.findings.length < MAX_SHAPE_FINDINGS) {
      r.error(field, `must be ${kind === 'integer' || kind === 'object' ? 'an' : 'a'} ${kind}, not ${shown(v)} (the CRD schema refuses it)`, `write ${field} as ${kind === 'string map' ? 'a mapping of strings to strings' : `a ${kind}`}`);
    }
    return false;
  };
  const md: any = obj.metadata;
  if (check(md, 'object', 'metadata')) {
    for (const f of ['name', 'generateName', 'namespace']) check(md[f], 'string', `metadata.${f}`);
    check(md.labels, 'string map', 'metadata.labels');
    check(md.annotations, 'string map', 'metadata.annotations');
    if (check(md.ownerReferences, 'list', 'metadata.ownerReferences')) {
      md.ownerReferences.forEach((o: unknown, i: number) => check(o, 'object', `metadata.ownerReferences[${i}]`));
    }
  }
  if (obj.spec !== undefined && !check(obj.spec, 'object', 'spec')) return r.findings;
  const spec: any = obj.spec ?? {};
  if (obj.kind === 'RayJob') {
    for (const f of ['submissionMode', 'runtimeEnvYAML', 'entrypoint']) check(spec[f], 'string', `spec.${f}`);
    for (const f of ['suspend', 'shutdownAfterJobFinishes']) check(spec[f], 'boolean', `spec.${f}`);
    for (const f of ['backoffLimit', 'ttlSecondsAfterFinished', 'activeDeadlineSeconds']) check(spec[f], 'integer', `spec.${f}`);
    check(spec.clusterSelector, 'string map', 'spec.clusterSelector');
    check(spec.rayClusterSpec, 'object', 'spec.rayClusterSpec');
    check(spec.submitterPodTemplate, 'object', 'spec.submitterPodTemplate');
  }
  if (obj.kind === 'RayService') check(spec.rayClusterConfig, 'object', 'spec.rayClusterConfig');
  const cs = clusterSpecOf(obj);
  if (cs) {
    check(cs.spec.enableInTreeAutoscaling, 'boolean', `${cs.path}.enableInTreeAutoscaling`);
    check(cs.spec.headGroupSpec, 'object', `${cs.path}.headGroupSpec`);
    if (check(cs.spec.workerGroupSpecs, 'list', `${cs.path}.workerGroupSpecs`)) {
      workerGroupsOf(obj).forEach((g, i) => {
        const p = `${cs.path}.workerGroupSpecs[${i}]`;
        if (!check(g, 'object', p)) return;
        check(g.groupName, 'string', `${p}.groupName`);
        for (const f of ['replicas', 'minReplicas', 'maxReplicas', 'numOfHosts']) check(g[f], 'integer', `${p}.${f}`);
        check(g.suspend, 'boolean', `${p}.suspend`);
      });
    }
  }
  for (const t of podTemplatesOf(obj)) {
    if (!check(t.template, 'object', t.path) || !check(t.template.spec, 'object', `${t.path}.spec`)) continue;
    for (const list of ['containers', 'initContainers'] as const) {
      const field = `${t.path}.spec.${list}`;
      if (!check(t.template.spec[list], 'list', field)) continue;
      t.template.spec[list].forEach((c: any, i: number) => {
        if (!check(c, 'object', `${field}[${i}]`)) return;
        check(c.name, 'string', `${field}[${i}].name`);
        check(c.env, 'list', `${field}[${i}].env`);
        if (check(c.resources, 'object', `${field}[${i}].resources`)) {
          check(c.resources.requests, 'object', `${field}[${i}].resources.requests`);
          check(c.resources.limits, 'object', `${field}[${i}].resources.limits`);
        }
      });
    }
    check(t.template.spec.overhead, 'object', `${t.path}.spec.overhead`);
    check(t.template.spec.restartPolicy, 'string', `${t.path}.spec.restartPolicy`);
  }
  return r.findings;
};

export const OBJECT_SHAPE_RULES: Record<string, Rule> = { objectShape };
