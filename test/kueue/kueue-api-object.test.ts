// The Kueue objects' shared L1 handling: cluster-scoped kinds carry no namespace; names are unique.
import { Chart, Testing } from 'cdk8s';
import { ClusterQueue, Cohort, Quantity, ResourceFlavor, ResourceName, TenantQueue, WorkloadPriorityClass } from '../../src';
import { setup } from '../support/constructs';

describe('Kueue objects', () => {
  test('cluster-scoped objects carry no namespace, even in a namespaced chart', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'c', { namespace: 'team-x' });
    const flavor = new ResourceFlavor(chart, 'f');
    const cq = new ClusterQueue(chart, 'cq',
      { resourceGroups: [{ flavors: [{ flavor, quotas: [{ resource: ResourceName.CPU, nominalQuota: Quantity.cpu(1) }] }] }] });
    new WorkloadPriorityClass(chart, 'p', { value: 1 });
    new Cohort(chart, 'co');
    new TenantQueue(chart, 't', { namespace: 't', clusterQueue: cq });
    const out = chart.toJson();
    for (const o of out.filter((x: any) => ['ResourceFlavor', 'ClusterQueue', 'WorkloadPriorityClass', 'Cohort', 'Namespace'].includes(x.kind))) {
      expect([o.kind, o.metadata.namespace]).toEqual([o.kind, undefined]);
    }
    expect(out.find((o: any) => o.kind === 'LocalQueue').metadata.namespace).toBe('t');
  });

  test('duplicate names are refused at synth', () => {
    const { app, chart } = setup();
    new ResourceFlavor(chart, 'dup', { name: 'default-flavor' });
    expect(() => app.synth()).toThrow(/ResourceFlavor "default-flavor" is also defined at 'c\/default-flavor'/);
  });
});
