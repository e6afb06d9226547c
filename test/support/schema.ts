/**
 * Validates objects against a CRD's openAPIV3Schema with a real JSON-schema validator (ajv), plus the
 * CRD's CEL rules that can be evaluated without an old object (@bufbuild/cel).
 *
 * Unknown fields are errors here (additionalProperties: false where the schema lists properties and
 * does not preserve unknown fields): the API server would silently prune them, which is exactly the
 * "dropped field" the library must never emit.
 */
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { run as celRun, isCelError } from '@bufbuild/cel';
import { parse as parseYaml } from 'yaml';

export interface CrdVersionSchema {
  readonly group: string;
  readonly kind: string;
  readonly version: string;
  readonly schema: any;
}

export function crdVersions(crdYaml: string): CrdVersionSchema[] {
  const crd = parseYaml(crdYaml);
  return crd.spec.versions.map((v: any) => ({ group: crd.spec.group, kind: crd.spec.names.kind, version: v.name, schema: v.schema.openAPIV3Schema }));
}

/**
 * Patterns with Go's inline (?i) (AdmissionCheck's parameters.kind, prometheus-operator's enums), which
 * JavaScript lacks: spelled out for letter ranges; literal words are then matched case-sensitively (stricter).
 */
export function caseInsensitivePatterns(x: any): any {
  if (Array.isArray(x)) return x.map(caseInsensitivePatterns);
  if (!x || typeof x !== 'object') return x;
  return Object.fromEntries(Object.entries(x).map(([k, v]) => [k,
    k === 'pattern' && typeof v === 'string' && v.startsWith('^(?i)') ? `^${v.slice(5).replace(/a-z/g, 'a-zA-Z')}` : caseInsensitivePatterns(v)]));
}

/** Converts Kubernetes structural-schema extensions to plain JSON schema. */
export function toJsonSchema(s: any, isRoot = true): any {
  if (Array.isArray(s)) return s.map((x) => toJsonSchema(x, false));
  if (!s || typeof s !== 'object') return s;
  const out: any = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'x-kubernetes-validations' || k === 'description') continue;
    if (k === 'properties') {
      out.properties = Object.fromEntries(Object.entries(v as any).map(([pk, pv]) => [pk, toJsonSchema(pv, false)]));
    } else if (k === 'items' || k === 'additionalProperties' || k === 'not') {
      out[k] = typeof v === 'object' ? toJsonSchema(v, false) : v;
    } else if (k === 'allOf' || k === 'anyOf' || k === 'oneOf') {
      out[k] = (v as any[]).map((x) => toJsonSchema(x, false));
    } else {
      out[k] = v;
    }
  }
  if (s['x-kubernetes-int-or-string']) {
    delete out.type;
    if (!out.anyOf) out.anyOf = [{ type: 'integer' }, { type: 'string' }];
  }
  if (out.properties && !s['x-kubernetes-preserve-unknown-fields'] && out.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  if (isRoot && out.properties) {
    // apiVersion/kind/metadata are validated by the API server itself, not by the CRD schema.
    out.properties.metadata = { type: 'object' };
  }
  return out;
}

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
ajv.addFormat('double', { type: 'number', validate: () => true });
ajv.addFormat('float', { type: 'number', validate: () => true });
ajv.addFormat('byte', true);
ajv.addFormat('quantity', true);

export interface SchemaCheck {
  readonly errors: string[];
  /** CEL rules evaluated on values present in the object. */
  readonly celEvaluated: number;
  /** CEL rules skipped (transition rules with oldSelf, or functions the evaluator lacks). */
  readonly celSkipped: string[];
}

export class CrdValidator {
  private readonly validate: ValidateFunction;
  constructor(public readonly crd: CrdVersionSchema) {
    this.validate = ajv.compile(toJsonSchema(crd.schema));
  }

  check(obj: any): SchemaCheck {
    const errors: string[] = [];
    if (obj.apiVersion !== `${this.crd.group}/${this.crd.version}` || obj.kind !== this.crd.kind) {
      errors.push(`apiVersion/kind ${obj.apiVersion}/${obj.kind} is not ${this.crd.group}/${this.crd.version}/${this.crd.kind}`);
    }
    if (!this.validate(obj)) {
      for (const e of this.validate.errors ?? []) errors.push(`${e.instancePath || '/'} ${e.message}`
        + `${e.params && (e.params as any).additionalProperty ? `: ${(e.params as any).additionalProperty}` : ''}`);
    }
    const cel = { evaluated: 0, skipped: [] as string[] };
    walkCel(this.crd.schema, obj, '', errors, cel);
    return { errors, celEvaluated: cel.evaluated, celSkipped: cel.skipped };
  }
}

function walkCel(schema: any, value: any, path: string, errors: string[], cel: { evaluated: number; skipped: string[] }): void {
  if (!schema || value === undefined || value === null) return;
  for (const v of schema['x-kubernetes-validations'] ?? []) {
    const rule: string = v.rule;
    if (/\boldSelf\b/.test(rule)) {
      cel.skipped.push(`${path || '/'}: ${rule} (transition rule)`);
      continue;
    }
    let result: unknown;
    try {
      result = celRun(rule, { self: toCel(value) });
    } catch (e) {
      result = e;
    }
    if (result === true) {
      cel.evaluated++;
    } else if (result === false) {
      cel.evaluated++;
      errors.push(`${path || '/'}: CEL rule failed: ${rule}${v.message ? ` (${v.message})` : ''}`);
    } else {
      cel.skipped.push(`${path || '/'}: ${rule} (${isCelError(result) ? (result as any).message : String(result)})`);
    }
  }
  if (schema.properties && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, s] of Object.entries(schema.properties)) walkCel(s, value[k], `${path}/${k}`, errors, cel);
  }
  if (schema.items && Array.isArray(value)) value.forEach((x, i) => walkCel(schema.items, x, `${path}/${i}`, errors, cel));
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object' && value && typeof value === 'object') {
    for (const [k, x] of Object.entries(value)) if (!schema.properties?.[k]) walkCel(schema.additionalProperties, x, `${path}/${k}`, errors, cel);
  }
}

/** CEL integers are int64: pass whole numbers as bigint so size()/comparisons type-check. */
function toCel(v: any): any {
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (Array.isArray(v)) return v.map(toCel);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toCel(x)]));
  return v;
}
