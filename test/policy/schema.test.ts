// The structural-schema check (pure): defaults, value validations, unknown fields and CEL, on hand-made schemas.
import { applyDefaults, checkSchema, CelEvaluator } from '../../src/policy/schema/structural';

const schema = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' },
    spec: {
      type: 'object', required: ['mode'],
      properties: {
        mode: { type: 'string', enum: ['A', 'B'] },
        replicas: { type: 'integer', format: 'int32', default: 1, minimum: 0 },
        deadline: { type: 'integer', minimum: 1 },
        name: { type: 'string', maxLength: 5, pattern: '^[a-z]+$' },
        port: { 'x-kubernetes-int-or-string': true },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: {} } } },
        items: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], maxItems: 3,
          items: { type: 'object', properties: { name: { type: 'string' }, size: { type: 'integer', default: 0 } } } },
        rule: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } },
          'x-kubernetes-validations': [{ rule: 'self.a <= self.b', message: 'a must not exceed b' }, { rule: 'self.a == oldSelf.a' }] },
      },
    },
  },
};
const obj = (spec: Record<string, unknown>) => ({ apiVersion: 'x/v1', kind: 'X', metadata: { name: 'x', anything: 1 }, spec });
const fields = (o: any, cel?: CelEvaluator) => checkSchema(schema, applyDefaults(schema, o), cel).problems.map((p) => `${p.field}: ${p.message}`);

test('defaults fill absent fields (in list items too) and a null of a non-nullable field is dropped first', () => {
  const d = applyDefaults(schema, obj({ mode: 'A', replicas: null, items: [{ name: 'a' }] }));
  expect(d.spec).toEqual({ mode: 'A', replicas: 1, items: [{ name: 'a', size: 0 }] });
});

test('a valid object has no problem; metadata and an embedded resource\'s apiVersion/kind/metadata are the API server\'s', () => {
  expect(fields(obj({ mode: 'B', port: 'http', labels: { a: 'b' }, extra: { any: { thing: 1 } },
    template: { metadata: { labels: { x: 'y' } }, spec: {} } }))).toEqual([]);
});

test('type, enum, minimum, maxLength, pattern, required, int-or-string, maxItems and list-map keys are each reported at their field', () => {
  expect(fields(obj({ mode: 'C', replicas: -1, deadline: 0, name: 'Abcdef', port: 1.5,
    items: [{ name: 'a' }, { name: 'a' }, { name: 'b' }, { name: 'c' }] }))).toEqual([
    'spec.mode: "C" is not one of "A", "B"',
    'spec.replicas: -1 is below the minimum 0',
    'spec.deadline: 0 is below the minimum 1',
    'spec.name: is longer than 5 characters',
    'spec.name: "Abcdef" does not match ^[a-z]+$',
    'spec.port: must be of type integer or string, not number (1.5)',
    'spec.items: has 4 items, more than 3',
    'spec.items: items 0 and 1 are duplicates (same name)',
  ]);
  expect(fields(obj({}))).toEqual(['spec.mode: is required']);
  expect(fields(obj({ mode: 'A', replicas: '2' }))).toEqual(['spec.replicas: must be of type integer, not string ("2")']);
});

test('unknown fields are refused, except below preserve-unknown-fields and in additionalProperties', () => {
  expect(fields(obj({ mode: 'A', bogus: 1, template: { spec: { nope: true } } }))).toEqual([
    'spec.bogus: is not a field of this version\'s CRD: kubectl\'s strict field validation refuses it (without it, the API server drops it)',
    'spec.template.spec.nope: is not a field of this version\'s CRD: kubectl\'s strict field validation refuses it (without it, the API server '
      + 'drops it)',
  ]);
});

test('CEL rules run through the given evaluator; transition rules and unsupported ones are skipped, not failed', () => {
  const seen: string[] = [];
  const cel: CelEvaluator = (rule, self: any) => {
    seen.push(rule);
    return self.a <= self.b;
  };
  expect(fields(obj({ mode: 'A', rule: { a: 2, b: 1 } }), cel)).toEqual(['spec.rule: a must not exceed b (CEL: self.a <= self.b)']);
  expect(seen).toEqual(['self.a <= self.b']); // oldSelf needs an old object
  const r = checkSchema(schema, obj({ mode: 'A', rule: { a: 1, b: 2 } }), () => ({ unsupported: 'no such function' }));
  expect(r.problems).toEqual([]);
  expect(r.celSkipped).toEqual(['spec.rule: self.a <= self.b (no such function)']);
  expect(checkSchema(schema, obj({ mode: 'A', rule: { a: 1, b: 2 } })).celSkipped).toEqual(['spec.rule: self.a <= self.b']);
});
