// TenantQueue: its namespace, its own or a shared ClusterQueue, and the priority classes it allows.
import { Cohort, Quantity, QueuedRayJob, ResourceName, TenantQueue, WorkloadPriorityClass } from '../../src';
import { setup, head, worker, synth } from '../support/constructs';

describe('TenantQueue', () => {
  test('creates the namespace, its own ClusterQueue limited to it, and records the priority rules', () => {
    const { app, chart, flavor, dev } = setup();
    const prod = new WorkloadPriorityClass(chart, 'prod', { value: 1000 });
    const t = new TenantQueue(chart, 'team-a', {
      namespace: 'team-a', cohort: Cohort.fromCohortName(chart, 'research', 'research'), defaultPriorityClass: dev,
      allowedPriorityClasses: [dev, prod],
      resourceGroups: [{ flavors: [{ flavor, quotas: [
        { resource: ResourceName.CPU, nominalQuota: Quantity.cpu(4) }, { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(8) },
      ] }] }],
    });
    const job = new QueuedRayJob(chart, 'j', { queue: t, entrypoint: 'python x.py', headGroup: head, workerGroups: [worker()] });
    const out = synth(app);
    const ns = out.find((o) => o.kind === 'Namespace');
    expect(ns.metadata).toMatchObject({ name: 'team-a', labels: { 'cdk8s-kueue-ray.io/tenant': 'team-a' } });
    const cq = out.find((o) => o.kind === 'ClusterQueue' && o.metadata.name === 'team-a');
    expect(cq.spec.namespaceSelector).toEqual({ matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['team-a'] }] });
    expect(cq.spec.preemption).toEqual({ withinClusterQueue: 'LowerPriority', reclaimWithinCohort: 'LowerPriority' });
    const lq = out.find((o) => o.kind === 'LocalQueue' && o.metadata.namespace === 'team-a');
    expect(lq.metadata).toMatchObject({ name: 'default',
      annotations: { 'cdk8s-kueue-ray.io/allowed-priority-classes': 'dev,prod', 'cdk8s-kueue-ray.io/default-priority-class': 'dev' } });
    expect(job.toManifest().metadata)
      .toMatchObject({ namespace: 'team-a', labels: { 'kueue.x-k8s.io/queue-name': 'default', 'kueue.x-k8s.io/priority-class': 'dev' } });
  });

  test('the Namespace is written before the tenant\'s namespaced objects, and the tenant adds no node dependency', () => {
    const { chart, flavor } = setup();
    const t = new TenantQueue(chart, 'team-a', { namespace: 'team-a',
      resourceGroups: [{ flavors: [{ flavor, quotas: [{ resource: ResourceName.CPU, nominalQuota: Quantity.cpu(4) }] }] }] });
    const kinds = chart.toJson().filter((o: any) => o.metadata.namespace === 'team-a' || o.kind === 'Namespace').map((o: any) => o.kind);
    expect(kinds).toEqual(['Namespace', 'LocalQueue', 'ResourceQuota', 'NetworkPolicy', 'NetworkPolicy']);
    // Dependencies would make cdk8s resolve each once per chart of the app (bench:synth).
    expect(t.node.findAll().flatMap((c) => c.node.dependencies)).toEqual([]);
  });

  test('a priority class the tenant does not allow is refused at synth', () => {
    const { app, chart, cq, dev } = setup();
    const prod = new WorkloadPriorityClass(chart, 'prod', { value: 1000 });
    const t = new TenantQueue(chart, 'b', { namespace: 'team-b', clusterQueue: cq, allowedPriorityClasses: [dev] });
    new QueuedRayJob(chart, 'j', { queue: t, priorityClass: prod, entrypoint: 'python x.py', headGroup: head });
    expect(() => app.synth()).toThrow(/priority class "prod" is not allowed for the tenant of namespace "team-b" \(allowed: dev\)/);
  });

  test('own-queue options with a shared ClusterQueue are refused instead of ignored', () => {
    const { chart, cq } = setup();
    expect(() => new TenantQueue(chart, 'x', { namespace: 'x', clusterQueue: cq, cohort: Cohort.fromCohortName(chart, 'c-cohort', 'c') })).toThrow(/would be ignored/);
    expect(() => new TenantQueue(chart, 'y', { namespace: 'y' })).toThrow(/exactly one of 'clusterQueue'/);
  });

  test('a TenantQueue gives its default priority class through the queue interface', () => {
    const { chart, cq, dev } = setup();
    const tenant = new TenantQueue(chart, 't', { namespace: 'team-t', clusterQueue: cq, defaultPriorityClass: dev });
    const j = new QueuedRayJob(chart, 'j', { queue: tenant, entrypoint: 'x', headGroup: head });
    expect(j.workloadPriorityClassName).toBe('dev');
    expect(j.toManifest().metadata.labels['kueue.x-k8s.io/priority-class']).toBe('dev');
  });
});
