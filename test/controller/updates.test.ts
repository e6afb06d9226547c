// UPDATE reviewed as a transition (src/policy/admission.ts): the cluster's own controllers and a
// deletion are never blocked by a finding the object already had, a lowered quota, a deleted queue
// or a stricter rule; a user's update is denied only for an error it introduced on a field it
// changed. And the final state: a tenant's object ends up with its queue label.
import { AdmissionConfig, ClusterView, validateRayObject } from '../../src/controller/admission';
import { bookkeepingOnlyUpdate, fieldChanged, fieldSegments, Inventory, jsonEqual, parseQuantity, ratchetUpdate } from '../../src/policy';
import { kubeRayCapabilities, kueueCapabilities } from '../../src/policy/versions';

const q = parseQuantity;
const cq = (name: string, cpu: string) => ({ name, namespaceSelector: {}, resourceGroups: [{ coveredResources: ['cpu', 'memory'],
  flavors: [{ flavor: 'f', resources: [{ resource: 'cpu', nominal: q(cpu) }, { resource: 'memory', nominal: q('64Gi') }] }] }] });
const inventory = (cpu = '8', queues = true): Inventory => ({
  localQueues: queues ? [
    { namespace: 'default', name: 'user-queue', clusterQueue: 'cluster-queue' },
    { namespace: 'team-a', name: 'default', clusterQueue: 'cluster-queue',
      tenant: { allowedPriorityClasses: ['dev-priority'], defaultPriorityClass: 'dev-priority' } },
  ] : [],
  clusterQueues: [cq('cluster-queue', cpu)],
  cohorts: [],
  priorityClasses: [{ name: 'dev-priority', value: 100 }, { name: 'prod-priority', value: 1000 }],
  namespaces: [],
});
const view = (inv = inventory()): ClusterView => ({ inventory: inv });
const config: AdmissionConfig = { kueue: kueueCapabilities('v0.19.2'), kubeRay: kubeRayCapabilities('v1.6.2'), elasticGate: 'on' };

const container = (name: string) => ({ name, image: 'rayproject/ray:2.46.0',
  resources: { requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '1', memory: '2Gi' } } });
function rayJob(ns = 'default', labels: Record<string, string> = { 'kueue.x-k8s.io/queue-name': 'user-queue' }, workers = 2): any {
  return {
    apiVersion: 'ray.io/v1', kind: 'RayJob',
    metadata: { name: 'job', namespace: ns, uid: 'job-uid', resourceVersion: '7', labels, finalizers: ['ray.io/rayjob-finalizer'] },
    spec: {
      entrypoint: 'python x.py', shutdownAfterJobFinishes: true, suspend: false,
      rayClusterSpec: { headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [container('ray-head')] } } },
        workerGroupSpecs: [{ groupName: 'w', replicas: workers, minReplicas: workers, maxReplicas: workers,
          template: { spec: { containers: [container('ray-worker')] } } }] },
    },
    status: { jobDeploymentStatus: 'Running' },
  };
}
function elasticCluster(): any {
  return {
    apiVersion: 'ray.io/v1', kind: 'RayCluster', metadata: { name: 'elastic', namespace: 'default',
      labels: { 'kueue.x-k8s.io/queue-name': 'user-queue' }, annotations: { 'kueue.x-k8s.io/elastic-job': 'true' } },
    spec: {
      enableInTreeAutoscaling: true,
      headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [container('ray-head')] } } },
      workerGroupSpecs: [{ groupName: 'w', replicas: 1, minReplicas: 0, maxReplicas: 4,
        template: { spec: { containers: [container('ray-worker')] } } }],
    },
  };
}
const clone = (o: any) => JSON.parse(JSON.stringify(o));
const update = (oldObject: any, object: any, operation = 'UPDATE') => ({ uid: 'u-1', kind: { group: 'ray.io', version: 'v1', kind: object.kind },
  namespace: object.metadata.namespace, operation, object, oldObject });

describe('updates by the cluster\'s own controllers always pass', () => {
  // The job fitted when it was created (3 CPU of 8); then the quota is lowered to 2 CPU.
  const lowered = view(inventory('2'));

  test('the job is now one the webhook would refuse on create', () => {
    const { response } = validateRayObject({ ...update(rayJob(), rayJob()), operation: 'CREATE', oldObject: undefined }, config, lowered);
    expect(response.allowed).toBe(false);
    expect(response.status!.message).toMatch(/the gang needs cpu 3\.5.*can provide at most cpu 2/);
  });

  test('Kueue suspends it (spec.suspend) on preemption: allowed, no rule run', () => {
    const old = rayJob();
    const suspended = clone(old);
    suspended.spec.suspend = true;
    expect(validateRayObject(update(old, suspended), config, lowered)).toEqual({ response: { uid: 'u-1', allowed: true }, findings: [] });
  });

  test('Kueue stops it and restores the pod sets it injected (suspend + nodeSelector): allowed, the old error comes back as a warning', () => {
    const old = rayJob();
    old.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.nodeSelector = { pool: 'a' };
    const stopped = clone(old);
    stopped.spec.suspend = true;
    delete stopped.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.nodeSelector;
    const { response } = validateRayObject(update(old, stopped), config, lowered);
    expect(response.allowed).toBe(true);
    expect(response.warnings?.join('\n')).toMatch(/the gang needs cpu 3\.5.*can provide at most cpu 2/);
  });

  test('KubeRay removes its finalizer after the LocalQueue was deleted: the deletion goes on', () => {
    const old = rayJob();
    old.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    const released = clone(old);
    released.metadata.finalizers = [];
    expect(validateRayObject(update(old, released), config, view(inventory('8', false))).response).toEqual({ uid: 'u-1', allowed: true });
  });

  test('the reconciler writes its queue-status annotation; KubeRay writes status', () => {
    const old = rayJob();
    const annotated = clone(old);
    annotated.metadata.annotations = { 'cdk8s-kueue-ray.io/queue-status': 'pending: insufficient quota' };
    annotated.status = { jobDeploymentStatus: 'Suspended' };
    annotated.metadata.resourceVersion = '8';
    expect(validateRayObject(update(old, annotated), config, lowered).response).toEqual({ uid: 'u-1', allowed: true });
  });

  test('a RayService on Kueue >= 0.17 is suspended through rayClusterConfig.suspend', () => {
    const old = { apiVersion: 'ray.io/v1', kind: 'RayService', metadata: { name: 's', namespace: 'default',
      labels: { 'kueue.x-k8s.io/queue-name': 'user-queue' } }, spec: { rayClusterConfig: { ...rayJob().spec.rayClusterSpec, suspend: false } } };
    const suspended = clone(old);
    suspended.spec.rayClusterConfig.suspend = true;
    expect(bookkeepingOnlyUpdate(old, suspended)).toBe(true);
    expect(validateRayObject(update(old, suspended), config, lowered).response.allowed).toBe(true);
  });

  test('the Ray autoscaler scales an elastic cluster past what the quota can ever give: allowed (Kueue queues the slice)', () => {
    const old = elasticCluster();
    const scaled = clone(old);
    scaled.spec.workerGroupSpecs[0].replicas = 4;
    scaled.spec.workerGroupSpecs[0].scaleStrategy = { workersToDelete: [] };
    expect(bookkeepingOnlyUpdate(old, scaled)).toBe(true);
    expect(validateRayObject(update(old, scaled), config, view(inventory('2'))).response.allowed).toBe(true);
    // A fixed-size cluster's replicas are not the autoscaler's: that is a real spec change.
    const fixed = clone(old);
    fixed.spec.enableInTreeAutoscaling = false;
    const fixedScaled = clone(fixed);
    fixedScaled.spec.workerGroupSpecs[0].replicas = 4;
    expect(bookkeepingOnlyUpdate(fixed, fixedScaled)).toBe(false);
  });

  test('DELETE always passes, whatever the object', () => {
    const broken = rayJob();
    broken.spec.shutdownAfterJobFinishes = false;
    expect(validateRayObject(update(broken, broken, 'DELETE'), config, view(inventory('1', false))).response).toEqual({ uid: 'u-1', allowed: true });
  });
});

describe('user updates: denied only for an error they introduce on a field they change', () => {
  test('a new error on the changed field is denied, with the field and the fix', () => {
    const old = rayJob();
    const bad = clone(old);
    bad.spec.rayClusterSpec.workerGroupSpecs[0].minReplicas = 5;
    const { response } = validateRayObject(update(old, bad), config, view());
    expect(response.allowed).toBe(false);
    expect(response.status!.message).toMatch(/workerGroupSpecs\[0\]\.minReplicas: minReplicas 5 is above maxReplicas 2.*Fix: /);
  });

  test('scaling a fixed gang past the quota is denied (the gang rule counts the pod sets as its cause)', () => {
    const old = rayJob();
    const big = rayJob('default', undefined, 9);
    const { response } = validateRayObject(update(old, big), config, view());
    expect(response.allowed).toBe(false);
    expect(response.status!.message).toMatch(/\[gangCanEverFit\]/);
  });

  test('an error the old object already had does not block an unrelated change, and is reported as a warning', () => {
    const old = rayJob();
    old.spec.rayClusterSpec.workerGroupSpecs[0].minReplicas = 5; // created before the rule existed
    const edited = clone(old);
    edited.spec.entrypoint = 'python y.py';
    const { response, findings } = validateRayObject(update(old, edited), config, view());
    expect(response.allowed).toBe(true);
    expect(response.warnings?.join('\n')).toMatch(/minReplicas 5 is above maxReplicas 2/);
    expect(findings.every((f) => f.severity === 'warning')).toBe(true);
  });

  test('a new error on a field the update did not change is a warning, not a denial', () => {
    const old = rayJob();
    old.spec.submitterPodTemplate = { spec: { restartPolicy: 'Never', containers: [container('submitter')] } };
    const sidecar = clone(old);
    sidecar.spec.submissionMode = 'SidecarMode'; // now spec.submitterPodTemplate (unchanged) is reported
    const { response } = validateRayObject(update(old, sidecar), config, view());
    expect(response.allowed).toBe(true);
    expect(response.warnings?.join('\n')).toMatch(/spec\.submitterPodTemplate: SidecarMode does not use a submitter pod/);
  });

  test('the admission-gated-by annotation is not bookkeeping: a gate added after creation is denied, as Kueue denies it', () => {
    const old = rayJob();
    const gated = clone(old);
    gated.metadata.annotations = { 'kueue.x-k8s.io/admission-gated-by': 'example.com/gate' };
    expect(bookkeepingOnlyUpdate(old, gated)).toBe(false);
    expect(validateRayObject(update(old, gated), config, view()).response.status?.message).toMatch(/cannot add admission gate after creation|admission-gated-by/);
    // Removing a gate is what the gate's controller does: allowed.
    const cleared = clone(gated);
    cleared.metadata.annotations = {};
    expect(validateRayObject(update(gated, cleared), config, view()).response.allowed).toBe(true);
  });

  test('the Kueue labels are not bookkeeping: a priority class the tenant does not allow is denied on update', () => {
    const old = rayJob('team-a', { 'kueue.x-k8s.io/queue-name': 'default', 'kueue.x-k8s.io/priority-class': 'dev-priority' });
    const raised = clone(old);
    raised.metadata.labels['kueue.x-k8s.io/priority-class'] = 'prod-priority';
    expect(bookkeepingOnlyUpdate(old, raised)).toBe(false);
    expect(validateRayObject(update(old, raised), config, view()).response.status?.message).toMatch(/"prod-priority" is not allowed for the tenant of namespace "team-a"/);
  });
});

describe('final state: a tenant\'s object ends up with its queue label', () => {
  test('a tenant RayJob without a queue name (our mutation skipped or undone) is denied on create, with the queue to set', () => {
    const job = rayJob('team-a', {});
    const { response } = validateRayObject({ ...update(job, job), operation: 'CREATE', oldObject: undefined }, config, view());
    expect(response.allowed).toBe(false);
    expect(response.status!.message).toMatch(/RayJob team-a\/job: metadata\.labels\[kueue\.x-k8s\.io\/queue-name\]: namespace "team-a" is a tenant namespace, but the object has no queue name.*Fix: set the label kueue\.x-k8s\.io\/queue-name: default .*\[tenantQueueLabel\]/);
  });

  test('an impostor carrying KubeRay\'s origin label is still checked; a child (controller owner reference) passes only from '
    + 'KubeRay\'s operator', () => {
    const impostor = rayJob('team-a', { 'ray.io/originated-from-crd': 'RayJob' });
    impostor.kind = 'RayCluster';
    impostor.spec = impostor.spec.rayClusterSpec;
    const create = (o: any) => ({ uid: 'u', kind: { group: 'ray.io', version: 'v1', kind: 'RayCluster' }, namespace: 'team-a', operation: 'CREATE',
      object: o });
    expect(validateRayObject(create(impostor), config, view()).response.status?.message).toMatch(/\[tenantQueueLabel\]/);
    const child = clone(impostor);
    child.metadata.ownerReferences = [{ apiVersion: 'ray.io/v1', kind: 'RayJob', name: 'job', uid: 'job-uid', controller: true }];
    expect(validateRayObject(create(child), config, view()).response.status?.message).toMatch(/\[rayChildWriter\]/);
    expect(validateRayObject({ ...create(child), userInfo: { username: 'system:serviceaccount:kuberay-system:kuberay-operator' } }, config,
      view()).response.allowed).toBe(true);
  });

  test('removing the queue label from a tenant object is denied; an object created before the namespace became a tenant may still be edited', () => {
    const old = rayJob('team-a', { 'kueue.x-k8s.io/queue-name': 'default' });
    const unlabelled = clone(old);
    unlabelled.metadata.labels = {};
    expect(validateRayObject(update(old, unlabelled), config, view()).response.status?.message).toMatch(/\[tenantQueueLabel\]/);
    const legacy = rayJob('team-a', {});
    const edited = clone(legacy);
    edited.spec.entrypoint = 'python y.py';
    const { response } = validateRayObject(update(legacy, edited), config, view());
    expect(response.allowed).toBe(true);
    expect(response.warnings?.join('\n')).toMatch(/\[tenantQueueLabel\]/);
  });
});

describe('the pure helpers', () => {
  test('fieldSegments reads dotted paths, indices and bracketed keys holding dots and slashes', () => {
    expect(fieldSegments('spec.rayClusterSpec.workerGroupSpecs[0].template')).toEqual(['spec', 'rayClusterSpec', 'workerGroupSpecs', 0, 'template']);
    expect(fieldSegments('metadata.labels[kueue.x-k8s.io/queue-name]')).toEqual(['metadata', 'labels', 'kueue.x-k8s.io/queue-name']);
  });

  test('fieldChanged compares a path that does not resolve at its longest prefix that does', () => {
    const a = { spec: { resources: { requests: { 'nvidia.com/gpu': '1' } } } };
    const b = { spec: { resources: { requests: { 'nvidia.com/gpu': '2' } } } };
    expect(fieldChanged(a, b, 'spec.resources.requests.nvidia.com/gpu')).toBe(true);
    expect(fieldChanged(a, clone(a), 'spec.resources.requests.nvidia.com/gpu')).toBe(false);
    expect(fieldChanged({ spec: { x: 1 } }, { spec: { x: 1 }, other: 2 }, 'spec.x')).toBe(false);
  });

  test('jsonEqual ignores key order and survives any nesting depth', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: [1] }, { a: { 0: 1 } })).toBe(false);
    expect(jsonEqual({ a: null }, { a: undefined })).toBe(false);
    let x: any = 1;
    let y: any = 1;
    for (let i = 0; i < 200000; i++) { x = [x]; y = [y]; }
    expect(jsonEqual(x, y)).toBe(true);
  });

  test('ratchetUpdate keeps every finding: what it does not deny it returns as a warning', () => {
    const f = (rule: string, field: string) =>
      ({ rule, field, severity: 'error' as const, object: 'RayJob default/job', message: 'm', fix: 'f', source: 'app' as const });
    const old = rayJob();
    const changed = clone(old);
    changed.spec.entrypoint = 'y';
    const v = ratchetUpdate(old, changed, [f('a', 'spec.entrypoint')],
      [f('a', 'spec.entrypoint'), f('b', 'spec.entrypoint'), f('c', 'spec.shutdownAfterJobFinishes')]);
    expect(v.deny.map((x) => x.rule)).toEqual(['b']);
    expect(v.warn.map((x) => x.rule)).toEqual(['a', 'c']);
  });
});
