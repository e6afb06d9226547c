// GIVEN the examples app for every supported Kueue × KubeRay pair
// THEN every synthesized object validates against that version's pinned CRD (schema + CEL),
// AND the scenarios the pair cannot run are refused at synth with a message naming the version.
import { SCENARIOS } from '../../examples/app';
import { examples, refusedScenarios, supportedScenarios, synthAll } from '../support/synth';
import { PAIRS, validatorFor } from '../support/versions';

describe.each(PAIRS)('examples on Kueue %s + KubeRay %s', (kueue, kubeRay) => {
  test('every object validates against the pinned CRD schema and CEL rules', async () => {
    const scenarios = supportedScenarios(kueue, kubeRay);
    const objects = synthAll(examples({ kueue, kubeRay, scenarios }));
    const kinds = new Set(objects.map((o) => o.kind));
    // the queues, the three Ray kinds (where supported) and the tenant objects are all there
    for (const k of ['ResourceFlavor', 'ClusterQueue', 'LocalQueue', 'WorkloadPriorityClass', 'Cohort', 'RayJob',
      'Namespace']) expect(kinds).toContain(k);
    if (scenarios.includes('elastic-raycluster')) expect(kinds).toContain('RayCluster');
    if (scenarios.includes('elastic-rayservice')) expect(kinds).toContain('RayService');
    let validated = 0;
    let celEvaluated = 0;
    const problems: string[] = [];
    for (const obj of objects) {
      const v = validatorFor(obj, kueue, kubeRay);
      if (!v) {
        // The only built-in kinds the examples emit: each TenantQueue's Namespace, ResourceQuota and NetworkPolicies.
        expect(['Namespace', 'ResourceQuota', 'NetworkPolicy']).toContain(obj.kind);
        continue;
      }
      const res = (await v).check(obj);
      validated++;
      celEvaluated += res.celEvaluated;
      problems.push(...res.errors.map((e) => `${obj.kind} ${obj.metadata.name ?? obj.metadata.generateName}: ${e}`));
      // every CEL rule we could not evaluate must be a transition rule (needs oldSelf)
      expect(res.celSkipped.filter((s) => !s.endsWith('(transition rule)'))).toEqual([]);
    }
    expect(problems).toEqual([]);
    // One Namespace, one ResourceQuota and two NetworkPolicies per tenant; everything else has a schema.
    expect(validated).toBe(objects.length - 4 * objects.filter((o) => o.kind === 'Namespace').length);
    expect(celEvaluated).toBeGreaterThan(0);
  });

  const refused = refusedScenarios(kueue, kubeRay);
  const refusedList = SCENARIOS.filter((s) => s in refused);
  if (refusedList.length) {
    test.each(refusedList)('scenario %s is refused at synth', (scenario) => {
      const app = examples({ kueue, kubeRay, scenarios: ['queues', scenario] });
      expect(() => app.synth()).toThrow(refused[scenario]!);
    });
  }
});
