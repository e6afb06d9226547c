/**
 * Kueue's kueue.x-k8s.io/admission-gated-by annotation (validation_admissiongatedby.go at v0.17.0 and
 * v0.19.2): the format on create (and on the new object of an update), the add-only-at-creation rule on
 * update, and the AdmissionGatedBy gate's default (on from 0.19) deciding whether the policy applies it.
 */
import { evaluateRayObject, kubeRayCapabilities, kueueCapabilities, PolicyContext } from '../../../src/policy';
import * as rules from '../../../src/policy/rules/kueue-admission-gated-by';
import { kueueWebhookOnUpdate } from '../../../src/policy/rules/kueue-webhook';
import { KUEUE_SITES } from '../../agreement/sites/kueue-sites';
import { clusterSpec, rayCluster, rayJob } from '../../agreement/support/ray-objects';
import * as fx from './fixtures';

const { admissionGatedByProblems, parseGates } = rules;

const KEY = 'kueue.x-k8s.io/admission-gated-by';
const FIELD = `metadata.annotations[${KEY}]`;
const ctx = (kueue = 'v0.19.2'): PolicyContext => ({ kueue: kueueCapabilities(kueue), kubeRay: kubeRayCapabilities('v1.6.2') });

function gated(o: any, value: string | undefined, queued = true): any {
  return {
    ...o, metadata: { ...o.metadata, namespace: 'default', labels: queued ? { 'kueue.x-k8s.io/queue-name': 'user-queue' } : {},
      ...(value === undefined ? {} : { annotations: { [KEY]: value } }) },
  };
}

const gateErrors = (obj: any, kueue = 'v0.19.2') => evaluateRayObject(obj, ctx(kueue))
  .filter((f) => f.rule === 'admissionGatedBy' && f.severity === 'error').map((f) => [f.field, f.message]);

describe('the annotation\'s format (validateAdmissionGatedByAnnotationFormat)', () => {
  test('csv.Parse: commas, spaces trimmed, blank is no gate', () => {
    expect(parseGates(' example.com/a , example.com/b')).toEqual(['example.com/a', 'example.com/b']);
    expect(parseGates('  ')).toEqual([]);
    expect(parseGates('a,,b')).toEqual(['a', '', 'b']);
  });

  test('valid values pass: one gate, several, spaces around them, an absent or empty annotation', () => {
    for (const v of ['example.com/gate', 'example.com/a, kueue.x-k8s.io/b,acme.io/x/y:z', undefined, '']) {
      expect(gateErrors(gated(rayJob('job'), v))).toEqual([]);
    }
  });

  test.each([
    ['an empty gate name', 'example.com/a,', /^"example.com\/a," cannot contain empty gate names \(Kueue webhook\)$/],
    ['a duplicate', 'example.com/a, example.com/a', /^duplicate gate name: example.com\/a \(Kueue webhook\)$/],
    ['no domain prefix', 'my-gate', /gate "my-gate" must be a domain-prefixed path \(such as "acme.io\/foo"\)/],
    ['an empty path', 'example.com/', /must be a domain-prefixed path/],
    ['a host that is not a DNS subdomain', 'Example_Com/gate', /"Example_Com" is not a DNS-1123 subdomain/],
    ['a path with a space', 'example.com/my gate', /"my gate" is not a valid path/],
    ['a gate over 63 bytes', `example.com/${'g'.repeat(52)}`, /is 64 bytes long, more than 63/],
  ])('%s is refused, on the annotation', (_name, value, message) => {
    const errors = gateErrors(gated(rayCluster('c'), value));
    expect(errors).toEqual([[FIELD, expect.stringMatching(message)]]);
  });

  test('63 bytes pass; the length counts bytes, as Go does', () => {
    expect(admissionGatedByProblems(`example.com/${'g'.repeat(51)}`)).toEqual([]);
    expect(admissionGatedByProblems(`example.com/${'é'.repeat(26)}`).join('; ')).toMatch(/64 bytes long/);
  });

  test('every kind, queued or not, is checked (ValidateJobOnCreate runs for both)', () => {
    expect(gateErrors(gated(rayJob('job'), 'nope', false))).toHaveLength(1);
    expect(gateErrors(gated(rayCluster('c'), 'nope', false))).toHaveLength(1);
  });

  test('a queued RayJob Kueue answers before ValidateJobOnCreate (clusterSelector, no rayClusterSpec) is not checked', () => {
    expect(gateErrors(gated(rayJob('job', { clusterSelector: { 'ray.io/cluster': 'x' }, rayClusterSpec: undefined }), 'nope'))).toEqual([]);
    expect(gateErrors(gated(rayJob('job', { rayClusterSpec: undefined }), 'nope'))).toEqual([]);
    expect(gateErrors(gated(rayJob('job', { rayClusterSpec: clusterSpec() }), 'nope'))).toHaveLength(1);
  });

  test('only where the AdmissionGatedBy gate is on by default: 0.19, not 0.17 (Alpha, off) nor before', () => {
    for (const v of ['v0.13.4', 'v0.14.8', 'v0.17.0', 'v0.17.8']) expect(gateErrors(gated(rayJob('job'), 'nope'), v)).toEqual([]);
    expect(gateErrors(gated(rayJob('job'), 'nope'), 'v0.19.2')).toHaveLength(1);
  });
});

describe('updates (ValidateAdmissionGatedByAnnotationOnUpdate)', () => {
  const update = (before: string | undefined, after: string | undefined, kueue = 'v0.19.2') => kueueWebhookOnUpdate(
    gated(rayJob('job'), before), gated(rayJob('job'), after), ctx(kueue)).filter((f) => f.field === FIELD).map((f) => f.message);

  test('removing gates, or the whole annotation, passes', () => {
    expect(update('example.com/a,example.com/b', 'example.com/b')).toEqual([]);
    expect(update('example.com/a', undefined)).toEqual([]);
    expect(update('example.com/a', '')).toEqual([]);
    expect(update('example.com/a', 'example.com/a')).toEqual([]);
  });

  test('adding the annotation after creation is refused', () => {
    expect(update(undefined, 'example.com/a')).toEqual(['cannot add admission gate after creation (Kueue webhook)']);
    expect(update('', 'example.com/a')).toEqual(['cannot add admission gate after creation (Kueue webhook)']);
  });

  test('adding a gate to the list is refused, naming it', () => {
    expect(update('example.com/a', 'example.com/a,example.com/b'))
      .toEqual(['can only remove gates, not add new ones: "example.com/b" was not a gate before (Kueue webhook)']);
  });

  test('not at 0.17 (the gate is off by default)', () => {
    expect(update(undefined, 'example.com/a', 'v0.17.0')).toEqual([]);
  });
});

describe('the six Kueue sites\' mutants (test/agreement/sites/kueue-sites.ts; the e2e sends them to the real webhook)', () => {
  const mappings = KUEUE_SITES.filter((m) => /AdmissionGatedBy/.test(m.match.source) && m.rule);

  test('six sites are mapped to a rule, each with a mutant', () => {
    expect(mappings.map((m) => [m.rule, !!m.mutant])).toEqual([
      ['kueueWebhookOnUpdate', true], ['kueueWebhookOnUpdate', true],
      ['admissionGatedBy', true], ['admissionGatedBy', true], ['admissionGatedBy', true], ['admissionGatedBy', true]]);
  });

  test.each(['v0.19.2', 'v0.17.0'])('at %s the mapped rule refuses each mutant exactly where the gate is on by default', (kueue) => {
    for (const m of mappings) {
      const { object, old } = m.mutant!(kueue);
      const findings = old ? kueueWebhookOnUpdate(old, object, ctx(kueue)) : evaluateRayObject(object, ctx(kueue));
      const refused = findings.some((f) => f.severity === 'error' && f.rule === m.rule && f.field === FIELD);
      expect({ site: m.match.source, refused }).toEqual({ site: m.match.source, refused: m.unreachable?.(kueue) === undefined });
    }
  });
});

// The table: a refused case and an accepted object for each rule src/policy/rules/kueue-admission-gated-by.ts defines.
const CASES: fx.Case[] = [
  { rule: 'admissionGatedBy', name: 'admission-gated-by with an empty gate name', obj: fx.job((o) => { o.metadata.annotations = { 'kueue.x-k8s.io/admission-gated-by': 'example.com/a,,example.com/b' }; }), ctx: fx.ctx(), severity: 'error', field: 'metadata.annotations[kueue.x-k8s.io/admission-gated-by]', message: /cannot contain empty gate names/ },
];

const ACCEPTED: fx.Accepted[] = [
  { rule: 'admissionGatedBy', name: 'two gates, spaces around them',
    obj: fx.job((o) => { o.metadata.annotations = { 'kueue.x-k8s.io/admission-gated-by': 'example.com/a, example.com/b' }; }), ctx: fx.ctx() },
];

fx.refuses(CASES);
fx.accepts(ACCEPTED);
fx.coversEveryRule(rules, CASES, ACCEPTED);
