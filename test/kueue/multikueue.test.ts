// GIVEN the MultiKueue example (one manager App, two worker Apps) for every pair where MultiKueue is offered
// THEN every object validates against that version's pinned CRDs, the per-version fields are the right ones,
// no credential is synthesized, AND what would never dispatch is refused at synth naming the version that would.
import { App, Chart } from 'cdk8s';
import {
  ClusterQueue, ElasticRayCluster, ElasticRayService, KubeRayVersion, KueueRayVersions, KueueVersion, LocalQueue, MultiKueue, MultiKueueWorker,
  NamespaceSelector, Quantity, QueuedRayJob, ResourceFlavor, ResourceName,
} from '../../src';
import { buildMultiKueueExample, MULTIKUEUE_WORKERS } from '../../examples/multikueue';
import { TOY_ENTRYPOINT } from '../../examples/toy-job';
import { Inventory, inventoryFromObjects, RULES } from '../../src/policy';
import { kubeRayCapabilities, kueueCapabilities } from '../../src/policy/versions';
import { caseInsensitivePatterns, CrdValidator, crdVersions } from '../support/schema';
import { synthAll, tmpdir } from '../support/synth';
import { KUBERAY_VERSIONS, KUEUE_VERSIONS, validatorFor } from '../support/versions';
import { readKueueCrd } from '../support/upstream';

const MK_PLURALS: Record<string,
  string> = { AdmissionCheck: 'admissionchecks', MultiKueueConfig: 'multikueueconfigs', MultiKueueCluster: 'multikueueclusters' };
const mkValidators = new Map<string, Promise<CrdValidator>>();
function mkValidator(obj: any, kueue: string): Promise<CrdValidator> {
  const version = String(obj.apiVersion).split('/')[1];
  const key = `${kueue} ${obj.kind} ${version}`;
  let v = mkValidators.get(key);
  if (!v) {
    v = readKueueCrd(kueue, MK_PLURALS[obj.kind]).then((t) => {
      const found = crdVersions(t).find((x) => x.version === version);
      if (!found) throw new Error(`${obj.kind} ${obj.apiVersion} is not served by Kueue ${kueue}`);
      return new CrdValidator({ ...found, schema: caseInsensitivePatterns(found.schema) });
    });
    mkValidators.set(key, v);
  }
  return v;
}

const MK_KUEUE = KUEUE_VERSIONS.filter((k) => kueueCapabilities(k).multiKueueRayKinds.length > 0);
const PAIRS = MK_KUEUE.flatMap((k) => KUBERAY_VERSIONS.map((r) => [k, r] as [string, string]));

function objectsOf(app: App): any[] {
  return synthAll(app);
}

describe.each(PAIRS)('MultiKueue example on Kueue %s + KubeRay %s', (kueue, kubeRay) => {
  const ex = buildMultiKueueExample({ outdir: tmpdir(), kueue, kubeRay });
  const manager = objectsOf(ex.manager);
  const workers = Object.fromEntries(Object.entries(ex.workers).map(([n, a]) => [n, objectsOf(a)]));
  const caps = kueueCapabilities(kueue);

  test('every object validates against the pinned CRDs (schema + CEL)', async () => {
    const problems: string[] = [];
    let validated = 0;
    for (const obj of [...manager, ...Object.values(workers).flat()]) {
      const v = MK_PLURALS[obj.kind] ? mkValidator(obj, kueue) : validatorFor(obj, kueue, kubeRay);
      if (!v) {
        expect(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding']).toContain(obj.kind);
        continue;
      }
      const res = (await v).check(obj);
      validated++;
      problems.push(...res.errors.map((e) => `${obj.kind} ${obj.metadata.name}: ${e}`));
      expect(res.celSkipped.filter((s) => !s.endsWith('(transition rule)'))).toEqual([]);
    }
    expect(problems).toEqual([]);
    expect(validated).toBeGreaterThan(10);
  });

  test('the manager: one MultiKueueCluster per worker from a Secret, the config, the check, the queue requires it', () => {
    const clusters = manager.filter((o) => o.kind === 'MultiKueueCluster');
    expect(clusters.map((c) => c.metadata.name)).toEqual([...MULTIKUEUE_WORKERS]);
    for (const c of clusters) {
      const kc = caps.apiVersion === 'kueue.x-k8s.io/v1beta1' ? c.spec.kubeConfig : c.spec.clusterSource.kubeConfig;
      expect(kc).toEqual({ locationType: 'Secret', location: `multikueue-${c.metadata.name}` });
      expect(c.metadata.namespace).toBeUndefined();
    }
    expect(manager.find((o) => o.kind === 'MultiKueueConfig').spec.clusters).toEqual([...MULTIKUEUE_WORKERS]);
    const check = manager.find((o) => o.kind === 'AdmissionCheck');
    expect(check.spec).toEqual({ controllerName: 'kueue.x-k8s.io/multikueue',
      parameters: { apiGroup: 'kueue.x-k8s.io', kind: 'MultiKueueConfig', name: 'multikueue' } });
    const cq = manager.find((o) => o.kind === 'ClusterQueue');
    if (caps.admissionChecksField === 'admissionChecks') {
      expect(cq.spec.admissionChecks).toEqual(['multikueue']);
      expect(cq.spec.admissionChecksStrategy).toBeUndefined();
    } else {
      expect(cq.spec.admissionChecksStrategy).toEqual({ admissionChecks: [{ name: 'multikueue' }] });
      expect(cq.spec.admissionChecks).toBeUndefined();
    }
  });

  test('the manager\'s RayJobs are managed by MultiKueue; no Secret or token is synthesized anywhere', () => {
    const jobs = manager.filter((o) => o.kind === 'RayJob');
    expect(jobs).toHaveLength(2);
    for (const j of jobs) expect(j.spec.managedBy).toBe('kueue.x-k8s.io/multikueue');
    const all = [...manager, ...Object.values(workers).flat()];
    expect(all.filter((o) => o.kind === 'Secret')).toEqual([]);
    expect(JSON.stringify(all)).not.toMatch(/token|kubeconfig:|client-key/i);
  });

  test('each worker: the same queue names and the least-privilege RBAC of its Kueue version', () => {
    const rbac = caps.multiKueueWorkerRbac;
    for (const [name, objs] of Object.entries(workers)) {
      expect(objs.find((o) => o.kind === 'ClusterQueue').metadata.name).toBe('cluster-queue');
      const lq = objs.find((o) => o.kind === 'LocalQueue');
      expect([lq.metadata.namespace, lq.metadata.name, lq.spec.clusterQueue]).toEqual(['default', 'user-queue', 'cluster-queue']);
      expect(objs.filter((o) => o.kind === 'AdmissionCheck' || o.kind === 'RayJob')).toEqual([]);
      const sa = objs.find((o) => o.kind === 'ServiceAccount');
      expect(sa.metadata).toEqual({ name: 'multikueue-manager', namespace: 'kueue-system' });
      const role = objs.find((o) => o.kind === 'ClusterRole');
      const rayPlurals = kueue === 'v0.14.8' ? ['rayjobs', 'rayclusters'] : ['rayjobs', 'rayclusters', 'rayservices'];
      const expected = [
        { apiGroups: ['kueue.x-k8s.io'], resources: ['workloads'], verbs: [...rbac.objectVerbs] },
        { apiGroups: ['kueue.x-k8s.io'], resources: ['workloads/status'], verbs: ['get', 'patch', 'update'] },
        ...(kueue === 'v0.19.2' ? [{ apiGroups: ['kueue.x-k8s.io'], resources: ['clusterqueues', 'localqueues'], verbs: ['get', 'list', 'watch'] }]
          : []),
        { apiGroups: ['ray.io'], resources: rayPlurals, verbs: [...rbac.objectVerbs] },
        { apiGroups: ['ray.io'], resources: rayPlurals.map((p) => `${p}/status`), verbs: ['get'] },
      ];
      expect(role.rules).toEqual(expected);
      // never more than Kueue's own e2e grants: no wildcard, no secrets, no pods
      expect(JSON.stringify(role.rules)).not.toMatch(/"\*"|secrets|"pods"/);
      expect(rbac.objectVerbs.includes('update')).toBe(kueue !== 'v0.14.8');
      const binding = objs.find((o) => o.kind === 'ClusterRoleBinding');
      expect(binding.roleRef.name).toBe(role.metadata.name);
      expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'multikueue-manager', namespace: 'kueue-system' }]);
      expect(role.metadata.name).toContain(name);
    }
  });
});

// A manager App and worker Apps built by hand, for the refusals.
interface SetupOptions { workerQueueName?: string; sameApp?: boolean; workerKueue?: string }
function setup(kueue: string, kubeRay: string, workerQuotaCpu: number[], opts: SetupOptions = {}) {
  const versions = (k: string) => ({ kueue: KueueVersion.of(k), kubeRay: KubeRayVersion.of(kubeRay) });
  const queues = (chart: Chart, cpu: number, lqName = 'user-queue') => {
    const flavor = new ResourceFlavor(chart, 'default-flavor');
    const cq = new ClusterQueue(chart, 'cluster-queue', {
      namespaceSelector: NamespaceSelector.all(),
      resourceGroups: [{ flavors: [{ flavor, quotas: [{ resource: ResourceName.CPU, nominalQuota: Quantity.cpu(cpu) },
        { resource: ResourceName.MEMORY, nominalQuota: Quantity.parse('64Gi') }] }] }],
    });
    return { cq, lq: new LocalQueue(chart, lqName, { namespace: 'default', clusterQueue: cq }) };
  };
  const manager = new App({ outdir: tmpdir() });
  KueueRayVersions.use(manager, versions(kueue));
  const workers = workerQuotaCpu.map((cpu, i) => {
    const app = opts.sameApp ? manager : new App({ outdir: tmpdir() });
    if (!opts.sameApp) KueueRayVersions.use(app, versions(opts.workerKueue ?? kueue));
    const chart = new Chart(app, `w${i + 1}`);
    if (!opts.sameApp) queues(chart, cpu, opts.workerQueueName);
    return new MultiKueueWorker(chart, 'access', { clusterName: `w${i + 1}` });
  });
  const chart = new Chart(manager, 'manager');
  const mk = new MultiKueue(chart, 'mk', { workers });
  const { cq, lq } = queues(chart, 100);
  cq.addAdmissionCheck(mk.admissionCheck);
  return { manager, chart, lq };
}

const oneCpu = { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(2) };
const jobProps = (lq: LocalQueue, replicas = 1) => ({
  queue: lq, entrypoint: TOY_ENTRYPOINT, headGroup: { resources: oneCpu }, workerGroups: [{ groupName: 'w', replicas, resources: oneCpu }],
});

describe('refused at synth: what MultiKueue would never dispatch', () => {
  test('a gang that fits no worker\'s quota names each worker and its limit', () => {
    const { manager, chart, lq } = setup('v0.19.2', 'v1.6.2', [2, 3]);
    new QueuedRayJob(chart, 'big', jobProps(lq, 3)); // 1 + 3 + 0.5 = 4.5 CPU
    expect(() => manager.synth()).toThrow(/the gang fits no worker cluster of AdmissionCheck "mk" \("w1": .*cpu 2.*; "w2": .*cpu 3/);
  });

  test('a gang that fits one worker only is a warning, and synthesizes', () => {
    const { manager, chart, lq } = setup('v0.19.2', 'v1.6.2', [2, 5]);
    const job = new QueuedRayJob(chart, 'mid', jobProps(lq, 2)); // 3.5 CPU
    expect(() => manager.synth()).not.toThrow();
    expect(job.policyWarnings().join('\n')).toMatch(/the gang fits only worker cluster\(s\) "w2"/);
  });

  test('a worker without the same LocalQueue', () => {
    const { manager, chart, lq } = setup('v0.19.2', 'v1.6.2', [8, 8], { workerQueueName: 'other-queue' });
    new QueuedRayJob(chart, 'job', jobProps(lq));
    expect(() => manager.synth()).toThrow(/worker cluster "w1" \(of AdmissionCheck "mk"\): LocalQueue "user-queue" does not exist in namespace "default"/);
  });

  test('a RayService on Kueue < 0.17 names v0.17.0', () => {
    const { manager, chart, lq } = setup('v0.14.8', 'v1.4.2', [8]);
    new ElasticRayService(chart, 'svc', { queue: lq, serveConfig: { applications: [] }, headGroup: { resources: oneCpu },
      workerGroups: [{ groupName: 'w', replicas: 1, minReplicas: 1, maxReplicas: 1, resources: oneCpu }] } as any);
    expect(() => manager.synth()).toThrow(/no MultiKueue adapter for RayService .*choose Kueue >= v0.17.0/s);
  });

  test('a RayService whose KubeRay has no RayService managedBy names v1.6.0', () => {
    const { manager, chart, lq } = setup('v0.17.8', 'v1.5.2', [8]);
    const svc = new ElasticRayService(chart, 'svc', { queue: lq, serveConfig: { applications: [] }, headGroup: { resources: oneCpu },
      workerGroups: [{ groupName: 'w', replicas: 1, minReplicas: 1, maxReplicas: 1, resources: oneCpu }] } as any);
    expect(svc.toManifest().spec.managedBy).toBeUndefined(); // never a field KubeRay 1.5 prunes
    expect(() => manager.synth()).toThrow(/KubeRay v1.5.2 has no RayService managedBy.*KubeRay >= v1.6.0/s);
  });

  test('an ElasticRayService (it always autoscales) on 0.19.2 + 1.6.2 gets managedBy, and is refused for its autoscaler', () => {
    const { manager, chart, lq } = setup('v0.19.2', 'v1.6.2', [8]);
    const svc = new ElasticRayService(chart, 'svc', { queue: lq, serveConfig: { applications: [] }, headGroup: { resources: oneCpu },
      workerGroups: [{ groupName: 'w', replicas: 1, minReplicas: 1, maxReplicas: 1, resources: oneCpu }] } as any);
    expect(svc.toManifest().spec.managedBy).toBe('kueue.x-k8s.io/multikueue');
    expect(() => manager.synth()).toThrow(/an autoscaling elastic RayService cannot be dispatched/);
  });

  test('an autoscaling elastic RayCluster is refused at every version', () => {
    for (const k of ['v0.17.8', 'v0.19.2']) {
      const { manager, chart, lq } = setup(k, 'v1.6.2', [8]);
      new ElasticRayCluster(chart, 'rc', { queue: lq, headGroup: { resources: oneCpu },
        workerGroups: [{ groupName: 'w', replicas: 0, minReplicas: 0, maxReplicas: 2, resources: oneCpu }] } as any);
      // 0.19 refuses it in its webhook (multiKueueElasticAutoscaling); before, the library does (multiKueueDispatch)
      expect(() => manager.synth()).toThrow(k === 'v0.19.2' ? /not supported for a MultiKueue-managed elastic RayCluster/ : /autoscaling elastic RayCluster cannot be dispatched/);
    }
  });

  test('a fixed-size elastic RayCluster (pure rule): replicas synced from 0.19.2, warned before', () => {
    const inv: Inventory = {
      localQueues: [{ namespace: 'default', name: 'q', clusterQueue: 'cq' }],
      clusterQueues: [{ name: 'cq', namespaceSelector: {}, admissionChecks: ['mk'],
        resourceGroups: [{ coveredResources: ['cpu'], flavors: [{ flavor: 'f', resources: [{ resource: 'cpu', nominal: 8000n }] }] }] }],
      cohorts: [], priorityClasses: [], namespaces: [], multiKueueChecks: [{ name: 'mk', clusters: ['w1'] }],
    };
    const rc = {
      apiVersion: 'ray.io/v1', kind: 'RayCluster',
      metadata: { name: 'rc', namespace: 'default', labels: { 'kueue.x-k8s.io/queue-name': 'q' },
        annotations: { 'kueue.x-k8s.io/elastic-job': 'true' } },
      spec: { managedBy: 'kueue.x-k8s.io/multikueue',
        headGroupSpec: { template: { spec: { containers: [{ name: 'h', resources: { requests: { cpu: '1' } } }] } } } },
    };
    for (const [k, warned] of [['v0.17.8', true], ['v0.19.2', false]] as const) {
      const f = RULES.multiKueueDispatch(rc, { kueue: kueueCapabilities(k), kubeRay: kubeRayCapabilities('v1.6.2'), inventory: inv });
      expect(f.filter((x) => x.severity === 'error')).toEqual([]);
      expect(f.some((x) => x.severity === 'warning' && /choose Kueue >= v0.19.2/.test(x.fix))).toBe(warned);
    }
  });

  test('a RayJob on a queue without the check keeps managedBy unset', () => {
    const { manager, chart } = setup('v0.19.2', 'v1.6.2', [8]);
    const flavor = new ResourceFlavor(chart, 'local-flavor');
    const cq = new ClusterQueue(chart, 'local-cq', { resourceGroups: [{ flavors: [{ flavor, quotas: [{ resource: ResourceName.CPU,
      nominalQuota: Quantity.cpu(8) }, { resource: ResourceName.MEMORY, nominalQuota: Quantity.parse('64Gi') }] }] }] });
    const local = new LocalQueue(chart, 'local', { namespace: 'default', clusterQueue: cq });
    const job = new QueuedRayJob(chart, 'job', jobProps(local));
    expect(() => manager.synth()).not.toThrow();
    expect(job.toManifest().spec.managedBy).toBeUndefined();
  });

  test('a RayJob built before its queue gets the MultiKueue check gets managedBy once it is added, the rest of its spec unchanged', () => {
    const { chart } = setup('v0.19.2', 'v1.6.2', [8]);
    const mk = chart.node.findChild('mk') as MultiKueue;
    const flavor = new ResourceFlavor(chart, 'late-flavor');
    const cq = new ClusterQueue(chart, 'late-cq', { resourceGroups: [{ flavors: [{ flavor, quotas: [{ resource: ResourceName.CPU,
      nominalQuota: Quantity.cpu(8) }, { resource: ResourceName.MEMORY, nominalQuota: Quantity.parse('64Gi') }] }] }] });
    const late = new LocalQueue(chart, 'late', { namespace: 'default', clusterQueue: cq });
    const job = new QueuedRayJob(chart, 'job', jobProps(late));
    expect(job.toManifest().spec.managedBy).toBeUndefined();
    cq.addAdmissionCheck(mk.admissionCheck);
    expect(job.toManifest().spec.managedBy).toBe('kueue.x-k8s.io/multikueue');
    // What cdk8s writes (the worker lacks the queue, which the app's validation refuses: not this test's point).
    const synthesized = job.apiObject.toJson();
    expect(synthesized.spec.managedBy).toBe('kueue.x-k8s.io/multikueue');
    // The rest of the spec is the one built before the check was added.
    expect({ ...synthesized.spec, managedBy: undefined }).toEqual({ ...job.toManifest().spec, managedBy: undefined });
  });

  test('construct errors: Kueue 0.13.4, a worker on another Kueue version, a worker in the manager\'s App', () => {
    expect(() => setup('v0.13.4', 'v1.4.2', [8])).toThrow(/MultiKueue from Kueue v0.14.8 .*not v0.13.4/);
    expect(() => setup('v0.19.2', 'v1.6.2', [8], { workerKueue: 'v0.17.8' })).toThrow(/worker "w1" runs Kueue v0.17.8, the manager v0.19.2/);
    expect(() => setup('v0.19.2', 'v1.6.2', [8], { sameApp: true })).toThrow(/worker "w1" is in the manager's App/);
  });
});

describe('the manager\'s inventory read back from its objects (what the webhook and check/plan see)', () => {
  test.each(['v0.14.8',
    'v0.19.2'])('Kueue %s: the check, its clusters and the ClusterQueue\'s admission checks; the rule runs without the workers', (kueue) => {
    const ex = buildMultiKueueExample({ outdir: tmpdir(), kueue, kubeRay: 'v1.6.2' });
    const objs = synthAll(ex.manager);
    const of = (kind: string) => objs.filter((o) => o.kind === kind);
    const inv = inventoryFromObjects(
      { localQueues: of('LocalQueue'), clusterQueues: of('ClusterQueue'), cohorts: [], priorityClasses: of('WorkloadPriorityClass'), namespaces: [] },
      { admissionChecks: of('AdmissionCheck'), multiKueueConfigs: of('MultiKueueConfig') },
    );
    expect(inv.multiKueueChecks).toEqual([{ name: 'multikueue', clusters: ['worker-1', 'worker-2'] }]);
    expect(inv.clusterQueues[0].admissionChecks).toEqual(['multikueue']);
    const ctx = { kueue: kueueCapabilities(kueue), kubeRay: kubeRayCapabilities('v1.6.2'), inventory: inv };
    const [job] = of('RayJob');
    expect(RULES.multiKueueDispatch(job, ctx)).toEqual([]);
    const unmanaged = { ...job, spec: { ...job.spec, managedBy: undefined } };
    expect(RULES.multiKueueDispatch(unmanaged, ctx).map((f) => f.message).join('\n')).toMatch(/Expecting spec.managedBy to be kueue.x-k8s.io\/multikueue/);
    // without the MultiKueue objects the inventory is a single-cluster one, as before
    expect(inventoryFromObjects({ localQueues: [], clusterQueues: [], cohorts: [], priorityClasses: [],
      namespaces: [] })).not.toHaveProperty('multiKueueChecks');
  });
});
