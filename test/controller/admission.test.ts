// The admission handlers (pure): validating with the shared policy and tenant rules, mutating with
// documented patches only, and a fuzz test that the webhook decides exactly as the policy does.
import { applyPatch } from 'fast-json-patch';
import { AdmissionConfig, ClusterView, mutateRayObject, validateRayObject } from '../../src/controller/admission';
import { evaluateRayObject, Inventory, parseQuantity } from '../../src/policy';
import { kubeRayCapabilities, kueueCapabilities, SUPPORTED_KUBERAY_VERSIONS, SUPPORTED_KUEUE_VERSIONS } from '../../src/policy/versions';

const q = parseQuantity;
const inventory: Inventory = {
  localQueues: [
    { namespace: 'default', name: 'user-queue', clusterQueue: 'cluster-queue' },
    { namespace: 'team-a', name: 'default', clusterQueue: 'team-a',
      tenant: { allowedPriorityClasses: ['dev-priority'], defaultPriorityClass: 'dev-priority' } },
  ],
  clusterQueues: [
    { name: 'cluster-queue', namespaceSelector: {}, resourceGroups: [{ coveredResources: ['cpu', 'memory'],
      flavors: [{ flavor: 'f', resources: [{ resource: 'cpu', nominal: q('3') }, { resource: 'memory', nominal: q('6G') }] }] }] },
    { name: 'team-a', namespaceSelector: {}, resourceGroups: [{ coveredResources: ['cpu', 'memory'],
      flavors: [{ flavor: 'f', resources: [{ resource: 'cpu', nominal: q('8') }, { resource: 'memory', nominal: q('32Gi') }] }] }] },
  ],
  cohorts: [],
  priorityClasses: [{ name: 'dev-priority', value: 100 }, { name: 'prod-priority', value: 1000 }],
  namespaces: [],
};
const view: ClusterView = { inventory };
const config = (kueue = 'v0.19.2', kuberay = 'v1.6.2', extra: Partial<AdmissionConfig> = {}): AdmissionConfig => ({ kueue: kueueCapabilities(kueue),
  kubeRay: kubeRayCapabilities(kuberay), elasticGate: 'on', ...extra });

const container = (name: string) => ({ name, image: 'rayproject/ray:2.46.0',
  resources: { requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '1', memory: '2Gi' } } });
function rayJob(ns = 'default', labels: Record<string, string> = { 'kueue.x-k8s.io/queue-name': 'user-queue' }): any {
  return {
    apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { name: 'job', namespace: ns, labels },
    spec: {
      entrypoint: 'python x.py', shutdownAfterJobFinishes: true, suspend: true,
      rayClusterSpec: { headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [container('ray-head')] } } },
        workerGroupSpecs: [{ groupName: 'w', replicas: 1, minReplicas: 1, maxReplicas: 1,
          template: { spec: { containers: [container('ray-worker')] } } }] },
    },
  };
}
const review = (object: any, operation = 'CREATE', kind = object?.kind
  ?? 'RayJob') => ({ uid: 'u-1', kind: { group: 'ray.io', version: 'v1', kind }, namespace: object?.metadata?.namespace, operation, object });
const patched = (obj: any, patch?: string) =>
  (patch ? applyPatch(JSON.parse(JSON.stringify(obj)), JSON.parse(Buffer.from(patch, 'base64').toString())).newDocument : obj);

describe('validating', () => {
  test('a RayJob that keeps its cluster is denied with the field and the fix', () => {
    const job = rayJob();
    job.spec.shutdownAfterJobFinishes = false;
    delete job.spec.suspend;
    const { response } = validateRayObject(review(job), config(), view);
    expect(response).toMatchObject({ uid: 'u-1', allowed: false, status: { code: 422, reason: 'Invalid' } });
    expect(response.status!.message).toMatch(/RayJob default\/job: spec.shutdownAfterJobFinishes: a kueue managed job should delete the cluster after finishing .*Fix: set spec.shutdownAfterJobFinishes: true/);
  });

  test('a gang that never fits is denied with the numbers; a valid job is allowed', () => {
    const big = rayJob();
    big.spec.rayClusterSpec.workerGroupSpecs[0] = { ...big.spec.rayClusterSpec.workerGroupSpecs[0], replicas: 2, minReplicas: 2, maxReplicas: 2 };
    expect(validateRayObject(review(big), config(), view).response.status?.message).toMatch(/the gang needs cpu 3.5, memory 6344Mi .* can provide at most cpu 3, memory 5722\.05Mi/);
    expect(validateRayObject(review(rayJob()), config(), view).response).toEqual({ uid: 'u-1', allowed: true });
  });

  test('tenant rules: a priority class the tenant does not allow is denied', () => {
    const job = rayJob('team-a', { 'kueue.x-k8s.io/queue-name': 'default', 'kueue.x-k8s.io/priority-class': 'prod-priority' });
    expect(validateRayObject(review(job), config(), view).response.status?.message).toMatch(/"prod-priority" is not allowed for the tenant of namespace "team-a"/);
  });

  test('soft findings become warnings', () => {
    const job = rayJob();
    delete job.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources;
    const { response } = validateRayObject(review(job), config(), view);
    expect(response.allowed).toBe(true);
    expect(response.warnings?.[0]).toMatch(/Kueue counts 0 for it/);
  });

  test('children of a RayJob/RayService from KubeRay, other kinds and deletes are allowed untouched; from anyone else a child is refused', () => {
    const child = { ...rayJob(), kind: 'RayCluster', metadata: { name: 'c', namespace: 'default', labels: { 'kueue.x-k8s.io/queue-name': 'nope' },
      ownerReferences: [{ apiVersion: 'ray.io/v1', kind: 'RayJob', name: 'job', controller: true }] }, spec: {} };
    const fromKubeRay = { ...review(child, 'CREATE', 'RayCluster'), userInfo: { username: 'system:serviceaccount:kuberay-system:kuberay-operator' } };
    expect(validateRayObject(fromKubeRay, config(), view).response.allowed).toBe(true);
    const fromTenant = { ...review(child, 'CREATE', 'RayCluster'), userInfo: { username: 'alice' } };
    expect(validateRayObject(fromTenant, config(), view).response).toMatchObject({ allowed: false, status: { code: 403, message: expect.stringMatching(/metadata\.ownerReferences: user "alice" may not create a RayCluster controlled by RayJob "job"/) } });
    expect(validateRayObject({ uid: 'x', kind: { group: 'batch', version: 'v1', kind: 'Job' }, operation: 'CREATE', object: {} }, config(),
      view).response.allowed).toBe(true);
    expect(validateRayObject(review(rayJob(), 'DELETE'), config(), view).response.allowed).toBe(true);
  });

  test('a request without uid or object is refused cleanly', () => {
    expect(validateRayObject({ uid: '' } as any, config(), view).response).toMatchObject({ allowed: false, status: { code: 400 } });
    expect(validateRayObject({ uid: 'u', kind: { group: 'ray.io', kind: 'RayJob' }, operation: 'CREATE' }, config(), view).response)
      .toMatchObject({ allowed: false, status: { code: 400, message: 'request.object is missing' } });
  });
});

describe('mutating', () => {
  test('a job in a tenant namespace gets the queue, the default priority and suspend: true', () => {
    const job = rayJob('team-a', {});
    delete job.spec.suspend;
    const { response } = mutateRayObject(review(job), config(), view);
    expect(response.patchType).toBe('JSONPatch');
    const out = patched(job, response.patch);
    expect(out.metadata.labels).toEqual({ 'kueue.x-k8s.io/queue-name': 'default', 'kueue.x-k8s.io/priority-class': 'dev-priority' });
    expect(out.spec.suspend).toBe(true);
    // the defaulted object passes the validating webhook
    expect(validateRayObject(review(out), config(), view).response.allowed).toBe(true);
  });

  test('an object without labels at all still gets them; a labelled one is left alone', () => {
    const bare = rayJob('team-a');
    delete bare.metadata.labels;
    expect(patched(bare, mutateRayObject(review(bare), config(), view).response.patch).metadata.labels['kueue.x-k8s.io/queue-name']).toBe('default');
    const labelled = rayJob('team-a', { 'kueue.x-k8s.io/queue-name': 'other', 'kueue.x-k8s.io/priority-class': 'dev-priority' });
    expect(mutateRayObject(review(labelled), config(), view).response).toEqual({ uid: 'u-1', allowed: true });
  });

  test('a RayJob that only selects an existing cluster gets no queue label and no suspend (Kueue does not manage it; its webhook would suspend it '
    + 'for good); in HTTPMode only', () => {
    const job = { apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { name: 'sel', namespace: 'team-a' },
      spec: { entrypoint: 'x', clusterSelector: { 'ray.io/cluster': 'mine' }, submissionMode: 'HTTPMode' } };
    const out = patched(job, mutateRayObject(review(job), config(), view).response.patch);
    expect(out.metadata.labels?.['kueue.x-k8s.io/queue-name']).toBeUndefined();
    expect(out.spec.suspend).toBeUndefined();
    expect(validateRayObject(review(out), config(), view).response.allowed).toBe(true);
    const submitter = { ...out, spec: { ...out.spec, submissionMode: 'K8sJobMode' } };
    expect(validateRayObject(review(submitter), config(), view).response.status?.message).toMatch(/\[clusterSelectorSubmitter\]/);
  });

  test('a RayService on Kueue >= 0.17 is suspended through rayClusterConfig', () => {
    const svc = { apiVersion: 'ray.io/v1', kind: 'RayService', metadata: { name: 's', namespace: 'team-a' },
      spec: { rayClusterConfig: rayJob().spec.rayClusterSpec } };
    const out = patched(svc, mutateRayObject(review(svc), config(), view).response.patch);
    expect(out.spec.rayClusterConfig.suspend).toBe(true);
    const old = patched(svc, mutateRayObject(review(svc), config('v0.14.8', 'v1.4.2'), view).response.patch);
    expect(old.spec.rayClusterConfig.suspend).toBeUndefined();
  });

  test('what KubeRay creates and non-tenant namespaces are never patched; a tenant\'s child-looking object is', () => {
    const child = { ...rayJob('team-a', {}), kind: 'RayCluster',
      metadata: { name: 'c', namespace: 'team-a', ownerReferences: [{ apiVersion: 'ray.io/v1', kind: 'RayService', name: 's', controller: true }] } };
    const fromKubeRay = { ...review(child, 'CREATE', 'RayCluster'), userInfo: { username: 'system:serviceaccount:kuberay-system:kuberay-operator' } };
    expect(mutateRayObject(fromKubeRay, config(), view).response.patch).toBeUndefined();
    expect(mutateRayObject(review(child, 'CREATE', 'RayCluster'), config(), view).response.patch).toBeDefined();
    expect(mutateRayObject(review(rayJob('elsewhere', {})), config(), view).response.patch).toBeUndefined();
    expect(mutateRayObject(review(rayJob('team-a', {}), 'UPDATE'), config(), view).response.patch).toBeUndefined();
  });

  test('opt-in graceful preemption adds a grace period and a preStop hook where none is set', () => {
    const job = rayJob();
    job.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.terminationGracePeriodSeconds = 5;
    const out = patched(job, mutateRayObject(review(job),
      config('v0.19.2', 'v1.6.2', { gracefulPreemption: { terminationGracePeriodSeconds: 120, preStopSleepSeconds: 30 } }), view).response.patch);
    expect(out.spec.rayClusterSpec.headGroupSpec.template.spec.terminationGracePeriodSeconds).toBe(120);
    expect(out.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.terminationGracePeriodSeconds).toBe(5); // the user's value stays
    expect(out.spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].lifecycle.preStop.exec.command).toEqual(['/bin/sh', '-c', 'sleep 30']);
  });
});

// A small deterministic PRNG, so a failure reproduces.
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

test('fuzz: over 10,000 random AdmissionReviews the webhook never denies what the policy allows, nor allows what it denies', () => {
  const rand = rng(20261130);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const mutators: Array<(o: any) => void> = [
    (o) => { o.spec.shutdownAfterJobFinishes = rand() < 0.5; },
    (o) => { delete o.spec.suspend; },
    (o) => { o.spec.clusterSelector = { 'ray.io/cluster': 'c' }; },
    (o) => { delete o.spec.rayClusterSpec; },
    (o) => { o.metadata.name = 'x'.repeat(Math.floor(rand() * 60) + 1); },
    (o) => { o.metadata.namespace = pick(['default', 'team-a', 'team-b']); },
    (o) => { o.metadata.labels = { ...(o.metadata.labels ?? {}),
      'kueue.x-k8s.io/queue-name': pick(['user-queue', 'default', 'missing', 'Bad Name']) }; },
    (o) => { o.metadata.labels = { ...(o.metadata.labels ?? {}),
      'kueue.x-k8s.io/priority-class': pick(['dev-priority', 'prod-priority', 'ghost']) }; },
    (o) => { o.metadata.annotations = { 'kueue.x-k8s.io/elastic-job': 'true' }; },
    (o) => { if (o.spec.rayClusterSpec) o.spec.rayClusterSpec.enableInTreeAutoscaling = rand() < 0.5; },
    (o) => { o.spec.submissionMode = pick(['K8sJobMode', 'HTTPMode', 'SidecarMode', 'InteractiveMode', 'Bogus']); },
    (o) => { const w = o.spec.rayClusterSpec?.workerGroupSpecs; if (w) w.push(...Array.from({ length: Math.floor(rand() * 20) },
      (_, i) => ({ ...w[0], groupName: `g${i}` }))); },
    (o) => { const w = o.spec.rayClusterSpec?.workerGroupSpecs?.[0]; if (w) w.replicas = Math.floor(rand() * 12); },
    (o) => { const w = o.spec.rayClusterSpec?.workerGroupSpecs?.[0]; if (w) w.groupName = pick(['head', 'submitter', 'W', 'ok']); },
    (o) => { const c = o.spec.rayClusterSpec?.headGroupSpec?.template?.spec?.containers?.[0]; if (c) c.resources = { requests: { cpu: pick(['1', '2',
      '500m', 'lots']) }, limits: { cpu: pick(['1', '100m']) } }; },
    (o) => { o.spec.ttlSecondsAfterFinished = Math.floor(rand() * 20) - 5; },
    (o) => { o.spec.runtimeEnvYAML = pick(['pip: [x]', '- a', '{"a":1}', ': :']); },
    (o) => { o.spec.deletionPolicy = 'DeleteCluster'; },
  ];
  let allowed = 0;
  let denied = 0;
  for (let i = 0; i < 10000; i++) {
    const kueue = pick(SUPPORTED_KUEUE_VERSIONS);
    const kuberay = pick(SUPPORTED_KUBERAY_VERSIONS);
    const cfg = config(kueue, kuberay, { elasticGate: pick(['on', 'off', 'unknown'] as const) });
    const obj = rayJob();
    const n = Math.floor(rand() * 4);
    for (let k = 0; k < n; k++) pick(mutators)(obj);
    const { response } = validateRayObject(review(obj), cfg, view);
    const errors = evaluateRayObject(obj, { kueue: cfg.kueue, kubeRay: cfg.kubeRay, elasticGate: cfg.elasticGate, inventory })
      .filter((f) => f.severity === 'error');
    if (response.allowed !== (errors.length === 0)) {
      throw new Error(`review ${i} (${kueue}/${kuberay}): webhook allowed=${response.allowed}, policy `
        + `errors=${errors.length}: ${JSON.stringify(obj)}`);
    }
    if (response.allowed) allowed++; else denied++;
  }
  // Both outcomes are well represented, so the comparison means something.
  expect(allowed).toBeGreaterThan(1000);
  expect(denied).toBeGreaterThan(1000);
});
