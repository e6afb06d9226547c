/** Kubernetes' name formats (apimachinery validation.go): pattern and length together, at the boundaries. */
import { Chart, Testing } from 'cdk8s';
import { AdmissionController, KueueRayVersions, KueueVersion, LocalQueue, ResourceName, WorkloadPriorityClass } from '../../src';
import { isDns1035Label, isDns1123Label, isDns1123Subdomain, isQualifiedName } from '../../src/policy/k8s-names';
import { parseServiceAccount } from '../../src/policy/writers';

const label = (n: number) => 'a'.repeat(n);
const subdomain = (n: number) => `${'a'.repeat(n - 4)}.com`;

describe('Kubernetes name formats', () => {
  test.each([
    ['a', true], ['a-1', true], ['1a', true], [label(63), true], [label(64), false], ['', false], ['-a', false], ['a-', false],
    ['A', false], ['a.b', false], ['a_b', false],
  ])('DNS-1123 label %j: %s', (v, ok) => expect(isDns1123Label(v)).toBe(ok));

  test.each([
    ['a', true], ['a.b-c.d', true], [subdomain(253), true], [subdomain(254), false], ['a..b', false], ['a.-b', false], ['.a', false],
    ['a.', false], ['A.b', false], ['a/b', false],
  ])('DNS-1123 subdomain %j: %s', (v, ok) => expect(isDns1123Subdomain(v)).toBe(ok));

  test.each([
    ['a', true], ['a-1', true], ['1a', false], [label(63), true], [label(64), false], ['a.b', false],
  ])('DNS-1035 label %j: %s', (v, ok) => expect(isDns1035Label(v)).toBe(ok));

  test.each([
    ['cpu', true], ['nvidia.com/gpu', true], ['Example.com/x', false], ['example.com/My_Name.v1', true], [`example.com/${label(63)}`, true],
    [`example.com/${label(64)}`, false], [`${subdomain(253)}/x`, true], [`${subdomain(254)}/x`, false], ['/x', false], ['a/b/c', false],
    ['example.com/', false], ['-x', false],
  ])('qualified name %j: %s', (v, ok) => expect(isQualifiedName(v)).toBe(ok));

  test('anything but a string is no name', () => {
    for (const f of [isDns1123Label, isDns1123Subdomain, isDns1035Label, isQualifiedName]) {
      expect(f(undefined)).toBe(false);
      expect(f(7)).toBe(false);
    }
  });
});

describe('every user of a name reads the same facts', () => {
  // The constructs and the CLI's ServiceAccount parser used to retype the patterns, some looser, some without the length.
  test('a WorkloadPriorityClass or LocalQueue name from outside the app is held to the 253-character limit', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'c');
    expect(() => WorkloadPriorityClass.fromWorkloadPriorityClassName(chart, 'w', subdomain(254))).toThrow(/is not a valid name/);
    expect(WorkloadPriorityClass.fromWorkloadPriorityClassName(chart, 'ok', subdomain(253)).workloadPriorityClassName).toBe(subdomain(253));
    expect(() => LocalQueue.fromLocalQueueName(chart, 'q', 'default', subdomain(254))).toThrow(/is not a valid queue name/);
  });

  test('a ServiceAccount name is a DNS-1123 subdomain, not any run of dots and dashes', () => {
    expect(parseServiceAccount('ns/a.b-c', '--flag')).toBe('system:serviceaccount:ns:a.b-c');
    for (const bad of ['ns/a..b', 'ns/a.-b', 'n.s/a', 'ns/a/b', `ns/${subdomain(254)}`]) {
      expect(() => parseServiceAccount(bad, '--flag')).toThrow(/--flag takes NAMESPACE\/NAME/);
    }
    const app = Testing.app();
    KueueRayVersions.use(app, { kueue: KueueVersion.V0_17_8 });
    expect(() => new AdmissionController(app, 'controller', { kubeRayServiceAccount: { namespace: 'ray-ops', name: 'a..b' } }))
      .toThrow(/kubeRayServiceAccount .* is not a ServiceAccount reference/);
  });

  test('a resource name is a qualified name: its name part is at most 63 characters', () => {
    expect(ResourceName.of('example.com/fpga').name).toBe('example.com/fpga');
    expect(() => ResourceName.of(`example.com/${label(64)}`)).toThrow(/not a valid resource name/);
  });
});
