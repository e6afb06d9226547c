/**
 * A CRD's structural schema (openAPIV3Schema) as the API server applies it to a create, generically:
 * defaults first (with nulls of non-nullable fields dropped, as the API server prunes them), then the
 * value validations (type, enum, minimum/maximum, lengths, pattern, items and properties counts,
 * required, list-type uniqueness), the CEL rules of `x-kubernetes-validations` that need no old object,
 * and unknown fields, which kubectl's default strict field validation refuses. Pure: the CEL evaluator
 * is given by the caller.
 */
import { isList, isRecord, listOf } from '../json';

/** Evaluates one CEL rule on `self`: true/false, or a reason it could not (a function the evaluator lacks). */
export type CelEvaluator = (rule: string, self: unknown) => boolean | { readonly unsupported: string };

export interface SchemaProblem {
  /** The field, in the policy's notation (spec.workerGroupSpecs[0].replicas). */
  readonly field: string;
  readonly message: string;
  readonly fix: string;
}

/**
 * The keywords of an openAPIV3Schema node that this module reads, as a CRD's JSON declares them. Read
 * from a CRD file: each node is checked to be a JSON object before it is read, and each keyword where
 * it is used.
 */
export interface StructuralSchema {
  /** Keywords not read here (description, ...). */
  readonly [keyword: string]: unknown;
  readonly type?: string;
  readonly format?: string;
  readonly nullable?: boolean;
  readonly default?: unknown;
  readonly enum?: readonly unknown[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: boolean;
  readonly exclusiveMaximum?: boolean;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minProperties?: number;
  readonly maxProperties?: number;
  readonly required?: readonly string[];
  readonly properties?: Readonly<Record<string, StructuralSchema>>;
  readonly additionalProperties?: StructuralSchema | boolean;
  readonly items?: StructuralSchema;
  readonly allOf?: readonly StructuralSchema[];
  readonly anyOf?: readonly StructuralSchema[];
  readonly oneOf?: readonly StructuralSchema[];
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-embedded-resource'?: boolean;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-list-type'?: string;
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
  readonly 'x-kubernetes-validations'?: ReadonlyArray<{ readonly rule?: string; readonly message?: string }>;
}

/** The parts of a CustomResourceDefinition's spec that crdSchemaOf reads. */
interface CrdSpecJson {
  readonly group?: string;
  readonly names?: { readonly kind?: string };
  readonly versions?: ReadonlyArray<{
    readonly name?: string;
    readonly served?: boolean;
    readonly schema?: { readonly openAPIV3Schema?: StructuralSchema };
  }>;
}

export interface SchemaCheckResult {
  readonly problems: readonly SchemaProblem[];
  /** CEL rules not evaluated: transition rules (oldSelf) and rules the evaluator could not run. */
  readonly celSkipped: readonly string[];
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);
const index = (path: string, i: number) => `${path}[${i}]`;
const clone = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

/**
 * The object with the schema's defaults filled in where a field is absent (a copy; the input is not changed).
 * The copy has the input's type: defaults only fill fields the schema declares (and nulls it does not allow are dropped).
 */
export function applyDefaults<T>(schema: unknown, value: T): T {
  return defaultsAt(asSchema(schema), clone(value), true) as T;
}

/** A JSON object read as a schema node, else undefined (a node of another type is not applied). */
function asSchema(v: unknown): StructuralSchema | undefined {
  return isRecord(v) ? v : undefined;
}

function defaultsAt(schema: StructuralSchema | undefined, value: unknown, root = false): unknown {
  if (!isRecord(schema)) return value;
  if (isRecord(value) && !Array.isArray(value)) {
    if (isRecord(schema.properties)) {
      for (const [k, s] of Object.entries(schema.properties)) {
        if (root && k === 'metadata') continue;
        if (value[k] === null && !s?.nullable) delete value[k];
        if (value[k] === undefined && s?.default !== undefined) value[k] = clone(s.default);
        if (value[k] !== undefined) value[k] = defaultsAt(s, value[k]);
      }
    }
    if (isRecord(schema.additionalProperties)) {
      for (const k of Object.keys(value)) if (!schema.properties?.[k]) value[k] = defaultsAt(schema.additionalProperties, value[k]);
    }
  } else if (Array.isArray(value) && isRecord(schema.items)) {
    return value.map((x) => defaultsAt(schema.items, x));
  }
  return value;
}

const TYPE_FIX: Record<string, string> = {
  integer: 'write a whole number without quotes', number: 'write a number without quotes', boolean: 'write true or false without quotes',
  string: 'quote the value', object: 'write a mapping (key: value)', array: 'write a list (- item)',
};

function typeOf(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(schema: StructuralSchema, v: unknown): boolean {
  if (schema['x-kubernetes-int-or-string']) return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
  const t = schema.type;
  if (!t) return true;
  const actual = typeOf(v);
  return t === actual || (t === 'number' && actual === 'integer');
}

/** Unicode code points, as Go's utf8.RuneCountInString counts for minLength/maxLength. */
const length = (s: string) => [...s].length;

interface Walk {
  readonly problems: SchemaProblem[];
  readonly celSkipped: string[];
  readonly cel?: CelEvaluator;
}

/** Checks `value` against `schema` (after applyDefaults). */
export function checkSchema(schema: unknown, value: unknown, cel?: CelEvaluator): SchemaCheckResult {
  const w: Walk = { problems: [], celSkipped: [], cel };
  walk(asSchema(schema), value, '', w, true);
  return { problems: w.problems, celSkipped: w.celSkipped };
}

function walk(schema: StructuralSchema | undefined, v: unknown, path: string, w: Walk, root = false, embedded = false): void {
  if (!isRecord(schema) || v === undefined) return;
  const at = path;
  const problem = (message: string, fix: string) => w.problems.push({ field: at, message, fix });
  if (v === null) {
    if (!schema.nullable && schema.type) problem(`must be of type ${schema.type}, not null`,
      TYPE_FIX[schema.type] ?? 'give a value or remove the field');
    return;
  }
  if (!typeMatches(schema, v)) {
    const want = schema['x-kubernetes-int-or-string'] ? 'integer or string' : schema.type;
    problem(`must be of type ${want}, not ${typeOf(v)} (${JSON.stringify(v).slice(0, 60)})`, TYPE_FIX[String(schema.type)] ?? `write a ${want}`);
    return;
  }
  scalarChecks(schema, v, problem);
  for (const sub of ['allOf', 'anyOf', 'oneOf'] as const) combinator(schema, sub, v, path, w, problem);
  if (Array.isArray(v)) arrayChecks(schema, v, path, w, problem);
  else if (isRecord(v)) objectChecks(schema, v, path, w, problem, root, embedded);
  celRules(schema, v, path, w, problem);
}

function scalarChecks(schema: StructuralSchema, v: unknown, problem: (m: string, f: string) => void): void {
  if (Array.isArray(schema.enum) && !schema.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(v))) {
    problem(`${JSON.stringify(v)} is not one of ${schema.enum.map((e: unknown) => JSON.stringify(e)).join(', ')}`,
      `use one of ${schema.enum.map((e: unknown) => JSON.stringify(e)).join(', ')}`);
  }
  if (typeof v === 'number') {
    const { minimum: min, maximum: max } = schema;
    if (typeof min === 'number' && (schema.exclusiveMinimum ? v <= min : v < min)) {
      problem(`${v} is below the minimum ${schema.exclusiveMinimum ? '(exclusive) ' : ''}${min}`,
        `use ${schema.exclusiveMinimum ? 'more than' : 'at least'} ${min}`);
    }
    if (typeof max === 'number' && (schema.exclusiveMaximum ? v >= max : v > max)) {
      problem(`${v} is above the maximum ${schema.exclusiveMaximum ? '(exclusive) ' : ''}${max}`,
        `use ${schema.exclusiveMaximum ? 'less than' : 'at most'} ${max}`);
    }
    if (schema.format === 'int32' && (v < -(2 ** 31) || v >= 2 ** 31)) problem(`${v} does not fit a 32-bit integer`, 'use a smaller number');
  }
  if (typeof v === 'string') {
    if (typeof schema.minLength === 'number' && length(v) < schema.minLength) {
      problem(`is shorter than ${schema.minLength} characters`, `give at least ${schema.minLength} characters`);
    }
    if (typeof schema.maxLength === 'number' && length(v) > schema.maxLength) {
      problem(`is longer than ${schema.maxLength} characters`, `shorten it to ${schema.maxLength} characters`);
    }
    if (typeof schema.pattern === 'string') {
      let re: RegExp | undefined;
      try { re = new RegExp(schema.pattern, 'u'); } catch { re = undefined; }
      if (re && !re.test(v)) problem(`${JSON.stringify(v)} does not match ${schema.pattern}`, `write a value matching ${schema.pattern}`);
    }
  }
}

function combinator(schema: StructuralSchema, key: 'allOf' | 'anyOf' | 'oneOf', v: unknown, path: string, w: Walk,
  problem: (m: string, f: string) => void): void {
  const declared = schema[key];
  const subs = isList(declared) ? declared : undefined;
  if (!subs) return;
  const results = subs.map((s) => {
    const sub: Walk = { problems: [], celSkipped: [], cel: w.cel };
    // Value validations only: a combinator's branches do not declare fields, so unknown fields are not theirs to report.
    walk({ ...s, properties: undefined, additionalProperties: undefined, type: s.type }, v, path, sub);
    return sub.problems;
  });
  const ok = results.filter((r: SchemaProblem[]) => r.length === 0).length;
  if (key === 'allOf') for (const r of results) w.problems.push(...r);
  else if (key === 'anyOf' && ok === 0) {
    problem(`matches none of the allowed forms (${results.flat().map((p: SchemaProblem) => p.message).join('; ')})`,
      'write one of the forms the CRD allows');
  }
  else if (key === 'oneOf' && ok !== 1) problem(`must match exactly one of the allowed forms, matches ${ok}`,
    'write one of the forms the CRD allows');
}

function arrayChecks(schema: StructuralSchema, v: readonly unknown[], path: string, w: Walk, problem: (m: string, f: string) => void): void {
  if (typeof schema.minItems === 'number' && v.length < schema.minItems) problem(`has ${v.length} items, fewer than ${schema.minItems}`,
    `give at least ${schema.minItems}`);
  if (typeof schema.maxItems === 'number' && v.length > schema.maxItems) problem(`has ${v.length} items, more than ${schema.maxItems}`,
    `give at most ${schema.maxItems}`);
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'set' || listType === 'map') {
    const keys: readonly string[] = listType === 'map' ? schema['x-kubernetes-list-map-keys'] ?? [] : [];
    const seen = new Map<string, number>();
    v.forEach((x, i) => {
      const id = JSON.stringify(listType === 'map' && isRecord(x) ? keys.map((k) => x[k]) : x);
      if (seen.has(id)) problem(`items ${seen.get(id)} and ${i} are duplicates${keys.length ? ` (same ${keys.join(', ')})` : ''}`,
        'remove one of them');
      else seen.set(id, i);
    });
  }
  const items = schema.items;
  if (isRecord(items)) v.forEach((x, i) => walk(items, x, index(path, i), w, false, !!items['x-kubernetes-embedded-resource']));
}

const EMBEDDED_FIELDS = ['apiVersion', 'kind', 'metadata'];

function objectChecks(schema: StructuralSchema, v: Record<string, unknown>, path: string, w: Walk, problem: (m: string, f: string) => void,
  root: boolean, embedded: boolean): void {
  for (const k of listOf(schema.required)) {
    if (v[k] === undefined) w.problems.push({ field: join(path, k), message: 'is required', fix: `set ${k}` });
  }
  const n = Object.keys(v).length;
  if (typeof schema.minProperties === 'number' && n < schema.minProperties) problem(`has ${n} fields, fewer than ${schema.minProperties}`,
    'add fields');
  if (typeof schema.maxProperties === 'number' && n > schema.maxProperties) problem(`has ${n} fields, more than ${schema.maxProperties}`,
    'remove fields');
  const props = isRecord(schema.properties) ? schema.properties : undefined;
  const extra = schema.additionalProperties;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  for (const [k, x] of Object.entries(v)) {
    // The API server validates the object's metadata (and an embedded resource's) itself.
    if ((root || embedded || schema['x-kubernetes-embedded-resource']) && EMBEDDED_FIELDS.includes(k)) {
      if (props?.[k] && k !== 'metadata') walk(props[k], x, join(path, k), w);
      continue;
    }
    if (props?.[k]) walk(props[k], x, join(path, k), w);
    else if (isRecord(extra)) walk(extra, x, join(path, k), w);
    else if (extra === true || preserve || (!props && extra === undefined)) continue;
    else w.problems.push({ field: join(path, k), message: 'is not a field of this version\'s CRD: kubectl\'s strict field validation refuses it '
      + '(without it, the API server drops it)', fix: `remove ${k}, or choose the version that has it` });
  }
}

function celRules(schema: StructuralSchema, v: unknown, path: string, w: Walk, problem: (m: string, f: string) => void): void {
  for (const r of listOf(schema['x-kubernetes-validations'])) {
    const rule = String((isRecord(r) ? r.rule : undefined) ?? '');
    const message = isRecord(r) ? r.message : undefined;
    if (/\boldSelf\b/.test(rule)) continue; // a transition rule: only an update has an old object
    if (!w.cel) { w.celSkipped.push(`${path || '(the object)'}: ${rule}`); continue; }
    const result = w.cel(rule, v);
    if (result === false) problem(message ? `${String(message)} (CEL: ${rule})` : `fails the CRD's rule ${rule}`,
      'change the field so that the rule holds');
    else if (result !== true) w.celSkipped.push(`${path || '(the object)'}: ${rule} (${result.unsupported})`);
  }
}

/** The openAPIV3Schema of `kind` at `version` in a CustomResourceDefinition object, or undefined. */
export function crdSchemaOf(crd: unknown, group: string, version: string, kind: string): StructuralSchema | undefined {
  // Only a JSON object has a spec (no list or scalar of JSON does).
  const spec: CrdSpecJson | undefined = isRecord(crd) && isRecord(crd.spec) ? crd.spec : undefined;
  if (!spec || spec.group !== group || spec.names?.kind !== kind) return undefined;
  const v = listOf(spec.versions).find((x) => x?.name === version && x?.served !== false);
  return v?.schema?.openAPIV3Schema;
}
