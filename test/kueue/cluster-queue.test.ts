// ClusterQueue: the emitted API version, every field, and the quota rules refused at construction or synth.
import { ClusterQueue, Cohort, FungibilityPolicy, NamespaceSelector, Quantity, ResourceFlavor, ResourceName, StopPolicy } from '../../src';
import { setup, synth } from '../support/constructs';

describe('ClusterQueue', () => {
  test.each([['v0.13.4', 'kueue.x-k8s.io/v1beta1', 'cohort'], ['v0.14.8', 'kueue.x-k8s.io/v1beta1', 'cohort'],
    ['v0.17.0', 'kueue.x-k8s.io/v1beta2', 'cohortName'], ['v0.19.2', 'kueue.x-k8s.io/v1beta2', 'cohortName']])(
    'Kueue %s emits %s with spec.%s', (kueue, apiVersion, field) => {
      const { app, chart, flavor } = setup(kueue, 'v1.4.2');
      const cq = new ClusterQueue(chart, 'borrower', {
        cohort: Cohort.fromCohortName(chart, 'pool', 'pool'),
        resourceGroups: [{ flavors: [{
          flavor, quotas: [{ resource: ResourceName.CPU, nominalQuota: Quantity.cpu(1), borrowingLimit: Quantity.cpu(2) }],
        }] }],
      });
      const out = cq.apiObject.toJson();
      expect(out.apiVersion).toBe(apiVersion);
      expect(out.spec[field]).toBe('pool');
      expect(synth(app).every((o) => o.apiVersion !== undefined)).toBe(true);
    });

  test('a fair-sharing weight Kueue refuses is refused at construction, on the ClusterQueue and the Cohort', () => {
    const { chart, flavor } = setup('v0.19.2');
    const groups = [{ flavors: [{ flavor, quotas: [{ resource: ResourceName.CPU, nominalQuota: Quantity.cpu(1) }] }] }];
    expect(() => new ClusterQueue(chart, 'neg', { resourceGroups: groups, fairSharingWeight: -1 }))
      .toThrow(/ClusterQueue 'c\/neg': spec.fairSharing.weight is -1: Kueue refuses a negative weight; use 0/);
    expect(() => new ClusterQueue(chart, 'tiny', { resourceGroups: groups, fairSharingWeight: 1e-10 }))
      .toThrow(/spec.fairSharing.weight is 1e-10: Kueue refuses a weight in \(0, 1n\]/);
    expect(() => new ClusterQueue(chart, 'nan', { resourceGroups: groups, fairSharingWeight: NaN })).toThrow(/spec.fairSharing.weight: 'NaN' is not a Kubernetes quantity/);
    expect(() => new Cohort(chart, 'co', { fairSharingWeight: -0.5 })).toThrow(/Cohort 'c\/co': spec.fairSharing.weight is -0.5/);
    // 0 and small positive weights stay.
    const zero = new ClusterQueue(chart, 'zero', { resourceGroups: groups, fairSharingWeight: 0 });
    expect(zero.apiObject.toJson().spec.fairSharing).toEqual({ weight: '0' });
    expect(new Cohort(chart, 'light', { fairSharingWeight: 1e-6 }).apiObject.toJson().spec.fairSharing).toEqual({ weight: '0.000001' });
  });

  test('fungibility values are checked against the emitted API version', () => {
    const { chart, flavor } = setup('v0.19.2');
    const groups = [{ flavors: [{ flavor, quotas: [{ resource: ResourceName.CPU, nominalQuota: Quantity.cpu(1) }] }] }];
    expect(() => new ClusterQueue(chart, 'x', { resourceGroups: groups, flavorFungibility: { whenCanBorrow: FungibilityPolicy.BORROW } }))
      .toThrow(/whenCanBorrow "Borrow" is not valid for Kueue v0.19.2 .*use FungibilityPolicy.MAY_STOP_SEARCH/);
    const old = setup('v0.14.8');
    expect(() => new ClusterQueue(old.chart, 'x', { resourceGroups: [{ flavors: [{ flavor: old.flavor, quotas: [{ resource: ResourceName.CPU,
      nominalQuota: Quantity.cpu(1) }] }] }], flavorFungibility: { whenCanPreempt: FungibilityPolicy.MAY_STOP_SEARCH } }))
      .toThrow(/whenCanPreempt "MayStopSearch" is not valid for Kueue v0.14.8/);
  });

  test('every ClusterQueue field reaches the output (nothing dropped by the generated L1)', () => {
    const { chart, flavor } = setup();
    const gpu = new ResourceFlavor(chart, 'gpu',
      { nodeLabels: { pool: 'gpu' }, tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists' as any, effect: 'NoSchedule' as any }] });
    const cq = new ClusterQueue(chart, 'full', {
      cohort: new Cohort(chart, 'research', { fairSharingWeight: 2 }),
      namespaceSelector: NamespaceSelector.matchLabels({ team: 'ml' }),
      queueingStrategy: 'StrictFIFO' as any,
      preemption: { withinClusterQueue: 'LowerPriority' as any, reclaimWithinCohort: 'Any' as any, borrowWithinCohort: 'LowerPriority' as any,
        borrowWithinCohortMaxPriorityThreshold: 100 },
      flavorFungibility: { whenCanBorrow: FungibilityPolicy.TRY_NEXT_FLAVOR, whenCanPreempt: FungibilityPolicy.MAY_STOP_SEARCH },
      fairSharingWeight: 3,
      stopPolicy: StopPolicy.HOLD,
      resourceGroups: [
        { flavors: [{ flavor, quotas: [
          { resource: ResourceName.CPU, nominalQuota: Quantity.cpu(2.5), borrowingLimit: Quantity.cpu(1), lendingLimit: Quantity.millicpu(500) },
        ] }] },
      ],
    });
    cq.addResourceGroup({ flavors: [{ flavor: gpu, quotas: [{ resource: ResourceName.NVIDIA_GPU, nominalQuota: Quantity.count(8) }] }] });
    expect(cq.apiObject.toJson().spec).toEqual({
      cohortName: 'research',
      namespaceSelector: { matchLabels: { team: 'ml' } },
      queueingStrategy: 'StrictFIFO',
      preemption: { withinClusterQueue: 'LowerPriority', reclaimWithinCohort: 'Any',
        borrowWithinCohort: { policy: 'LowerPriority', maxPriorityThreshold: 100 } },
      flavorFungibility: { whenCanBorrow: 'TryNextFlavor', whenCanPreempt: 'MayStopSearch' },
      fairSharing: { weight: '3' },
      stopPolicy: 'Hold',
      resourceGroups: [
        { coveredResources: ['cpu'],
          flavors: [{ name: 'default-flavor', resources: [{ name: 'cpu', nominalQuota: '2500m', borrowingLimit: '1', lendingLimit: '500m' }] }] },
        { coveredResources: ['nvidia.com/gpu'], flavors: [{ name: 'gpu', resources: [{ name: 'nvidia.com/gpu', nominalQuota: '8' }] }] },
      ],
    });
    expect(gpu.apiObject.toJson().spec)
      .toEqual({ nodeLabels: { pool: 'gpu' }, tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }] });
  });

  test('quota rules are refused eagerly with the field and the fix', () => {
    const { chart, flavor } = setup();
    const cpu = (extra: object) => [{ flavors: [{ flavor, quotas: [{ resource: ResourceName.CPU, nominalQuota: Quantity.cpu(1), ...extra }] }] }];
    expect(() => new ClusterQueue(chart, 'a', { resourceGroups: cpu({ borrowingLimit: Quantity.cpu(1) }) })).toThrow(/borrowingLimit\/lendingLimit must be nil when cohort is empty/);
    expect(() => new ClusterQueue(chart, 'b', { cohort: Cohort.fromCohortName(chart, 'x-cohort', 'x'), resourceGroups: cpu({ lendingLimit: Quantity.cpu(2) }) })).toThrow(/lendingLimit 2 must be less than or equal to the nominalQuota 1/);
    const other = new ResourceFlavor(chart, 'other');
    expect(() => new ClusterQueue(chart, 'c2', { resourceGroups: [{ flavors: [
      { flavor, quotas: [
        { resource: ResourceName.CPU, nominalQuota: Quantity.cpu(1) }, { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(1) },
      ] },
      { flavor: other, quotas: [{ resource: ResourceName.CPU, nominalQuota: Quantity.cpu(1) }] },
    ] }] })).toThrow(/flavor "other"\) lists resources \[cpu\] but the group covers \[cpu, memory\]/);
    expect(() => Quantity.parse('lots')).toThrow(/'lots' is not a Kubernetes quantity/);
    expect(() => Quantity.cpu(0.0005)).toThrow(/millicore precision/);
  });

  test('a ClusterQueue without quota is refused at synth', () => {
    const { app, chart } = setup();
    new ClusterQueue(chart, 'empty');
    expect(() => app.synth()).toThrow(/spec.resourceGroups is empty, so the queue admits nothing/);
  });
});
