// The six ways out of a tenant's quota and priority that a security review found (issue 19), and what
// lies beyond them, as cases any cluster can run: the host-process control plane (test/attack/
// tenants.e2e.test.ts, three version pairs) and the real node, where the controller, Kueue and KubeRay
// run as pods behind their Services (test/node/tenant-escapes.e2e.test.ts). The tenant has edit rights
// in its own namespaces. Each case asserts what Kueue and KubeRay then do (Workloads, RayClusters, on the
// real node pods too), not only the webhook's word.
import * as tls from 'tls';
import { App, Chart } from 'cdk8s';
import {
  AdmissionController, Cohort, KubeRayVersion, KueueRayVersions, KueueVersion, Quantity, ResourceFlavor, ResourceName, TenantQueue,
  WorkloadPriorityClass,
} from '../../../src';
import { tmpdir } from '../../support/synth';
import { KubeClient, KubeError, waitFor } from '../../e2e/support/kube';
import { kueueCapabilities } from '../../../src/policy/versions';

// The default pair, the first native-RayService line, and the last Kueue that reads the queue-name annotation.
export const PAIRS: Array<[KueueVersion, KubeRayVersion]> = [
  [KueueVersion.V0_19_2, KubeRayVersion.V1_6_2], [KueueVersion.V0_17_0, KubeRayVersion.V1_6_2], [KueueVersion.V0_14_8, KubeRayVersion.V1_4_2],
];
export const TENANT = 'mallory';
export const TENANT_NAMESPACES = ['team-a', 'team-b', 'team-c', 'team-d', 'team-e'];
const KUBERAY_USER = 'system:serviceaccount:kuberay-system:kuberay-operator';

/**
 * team-a (4 CPU, allows only dev), team-b (allows dev and prod) in one cohort; team-c a TenantQueue with
 * no priority rules at all; team-d a tenant whose LocalQueue is not named "default".
 */
export function objects(kueue: KueueVersion, kubeRay: KubeRayVersion): { tenants: any[]; controller: any[] } {
  const app = new App({ outdir: tmpdir() });
  KueueRayVersions.use(app, { kueue, kubeRay });
  const chart = new Chart(app, 'tenants');
  const flavor = new ResourceFlavor(chart, 'esc-flavor');
  const dev = new WorkloadPriorityClass(chart, 'esc-dev', { value: 100 });
  const prod = new WorkloadPriorityClass(chart, 'esc-prod', { value: 1000 });
  const cohort = new Cohort(chart, 'esc-cohort');
  const quota = (cpu: number) => [{ flavors: [{ flavor, quotas: [
    { resource: ResourceName.CPU, nominalQuota: Quantity.cpu(cpu) }, { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(32) },
  ] }] }];
  new TenantQueue(chart, 'team-a',
    { namespace: 'team-a', cohort, resourceGroups: quota(4), defaultPriorityClass: dev, allowedPriorityClasses: [dev] });
  new TenantQueue(chart, 'team-b',
    { namespace: 'team-b', cohort, resourceGroups: quota(4), defaultPriorityClass: prod, allowedPriorityClasses: [dev, prod] });
  new TenantQueue(chart, 'team-c', { namespace: 'team-c', resourceGroups: quota(4) });
  new TenantQueue(chart, 'team-d', { namespace: 'team-d', queueName: 'main', resourceGroups: quota(4) });
  // No priority rules and a queue not named "default" (so Kueue's own LocalQueueDefaulting does not queue its objects).
  new TenantQueue(chart, 'team-e', { namespace: 'team-e', queueName: 'main', resourceGroups: quota(4) });
  const controller = new AdmissionController(app, 'controller');
  return { tenants: chart.toJson(), controller: controller.toJson() };
}

const container = (name: string, cpu = '1') =>
  ({ name, image: 'rayproject/ray:2.46.0', resources: { requests: { cpu, memory: '1Gi' }, limits: { cpu, memory: '1Gi' } } });
const clusterSpec = (workers: number) => ({
  headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [container('ray-head')] } } },
  workerGroupSpecs: [{ groupName: 'w', replicas: workers, minReplicas: workers, maxReplicas: workers, rayStartParams: {},
    template: { spec: { containers: [container('ray-worker')] } } }],
});
/** A RayJob as a tenant writes it: no queue label (the mutating webhook adds it). 1 + 1 worker + submitter = 2.5 CPU. */
const rayJob = (ns: string, name: string, extra: { labels?: Record<string, string> } = {}) => ({
  apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { name, namespace: ns, ...(extra.labels ? { labels: extra.labels } : {}) },
  spec: { entrypoint: 'python -c "import time; time.sleep(600)"', shutdownAfterJobFinishes: true, rayClusterSpec: clusterSpec(1) },
});
const rayCluster = (ns: string, name: string, workers = 1, metadata: Record<string, any> = {}) => ({
  apiVersion: 'ray.io/v1', kind: 'RayCluster', metadata: { name, namespace: ns, ...metadata }, spec: clusterSpec(workers),
});

export interface EscapeHarness {
  readonly pair: readonly [string, string];
  /** The cluster admin. */
  admin(): KubeClient;
  /** The tenant (TENANT), with tenantRbac's rights in TENANT_NAMESPACES. */
  tenant(): KubeClient;
  /** Where a pod (or this process) reaches the controller's webhook server, for the slow-body attack. */
  webhook(): { host: string; port: number };
  /** The groups of KubeRay's operator's user on this cluster. */
  readonly kubeRayGroups: readonly string[];
  /** Kueue runs with its pod integration (its release's Configuration does; the host-process harness does not). */
  readonly kueuePodIntegration: boolean;
}

/** Registers the cases in the caller's describe; the harness is read once its beforeAll ran. */
export function escapeCases(h: EscapeHarness): void {
  const PAIR = h.pair;
  const WL = kueueCapabilities(PAIR[0]).apiVersion;
  // Kueue before 0.15 reads the queue name from the annotation too (jobframework QueueNameForObject).
  const readsAnnotation = kueueCapabilities(PAIR[0]).queueNameAnnotation;
  const c = () => h.admin();
  const workloadsOf = async (ns: string, uid: string) =>
    (await c().list(WL, 'Workload', ns)).filter((w) => (w.metadata.ownerReferences ?? []).some((o: any) => o.uid === uid));
  const admitted = (w: any) => (w?.status?.conditions ?? []).some((x: any) => x.type === 'Admitted' && x.status === 'True');
  const childOf = async (ns: string, uid: string) => (await c().list('ray.io/v1', 'RayCluster',
    ns)).find((rc) => (rc.metadata.ownerReferences ?? []).some((o: any) => o.uid === uid && o.controller));
  const refused = (p: Promise<unknown>) => p.then(() => undefined, (e: KubeError) => e);
  /**
   * `refused`, for an object that names a just-created owner: Kueue's mutating webhook looks the owner up in
   * its informer cache, and while that lags the create it refuses with "<owner> not found" before our webhook
   * is asked (seen once, in a cold CI run with both test lanes busy). Tried again, for up to 30 s, while it says so.
   */
  const refusedOnceKueueSees = async (create: () => Promise<unknown>, owner: RegExp) => {
    const deadline = Date.now() + 30000;
    for (;;) {
      const e = await refused(create());
      if (!e || !owner.test(e.message) || Date.now() > deadline) return e;
      await new Promise((r) => setTimeout(r, 500));
    }
  };
  const usage = async (cq: string) => {
    const q = await c().get(`/apis/${WL}/clusterqueues/${cq}`);
    return (q.status?.flavorsUsage ?? []).flatMap((f: any) => f.resources).find((r: any) => r.name === 'cpu')?.total ?? '0';
  };
  /** An admitted tenant RayJob whose RayCluster KubeRay made. */
  const admittedJob = async (ns: string, name: string) => {
    const job = await h.tenant().create(rayJob(ns, name));
    await waitFor(`Kueue to admit ${ns}/${name} and KubeRay to create its RayCluster`, async () => {
      const wl = (await workloadsOf(ns, job.metadata.uid))[0];
      return admitted(wl) && childOf(ns, job.metadata.uid);
    }, 120000);
    return { job, child: (await childOf(ns, job.metadata.uid))! };
  };


  test('1. a RayCluster claiming an admitted RayJob as its controller is refused; the KubeRay-made child cannot be scaled past '
    + 'the admitted pod sets', async () => {
    const { job, child } = await admittedJob('team-a', 'ride');
    // KubeRay created the child as its ServiceAccount: it passed both webhooks without them being called.
    expect(child.metadata.labels['ray.io/originated-from-crd']).toBe('RayJob');
    const rider = rayCluster('team-a', 'rider', 8, {
      labels: { 'kueue.x-k8s.io/queue-name': 'default', 'ray.io/originated-from-crd': 'RayJob' },
      ownerReferences: [{ apiVersion: 'ray.io/v1', kind: 'RayJob', name: job.metadata.name, uid: job.metadata.uid, controller: true,
        blockOwnerDeletion: true }],
    });
    const e = await refused(h.tenant().create(rider));
    expect(e?.status).toBe(403);
    expect(e?.message).toMatch(/user "mallory" may not create a RayCluster controlled by RayJob "ride".*\[rayChildWriter\]/);
    expect(await c().getOrUndefined('/apis/ray.io/v1/namespaces/team-a/rayclusters/rider')).toBeUndefined();
    // Editing KubeRay's child from 1 worker to 6: refused; a label on it is the tenant's to change.
    const path = `/apis/ray.io/v1/namespaces/team-a/rayclusters/${child.metadata.name}`;
    const scaled = await refused(h.tenant().mergePatch(path, { spec: { workerGroupSpecs: [{ ...clusterSpec(6).workerGroupSpecs[0] }] } }));
    expect(scaled?.message).toMatch(/may not change the spec of a RayCluster controlled by RayJob "ride"/);
    expect((await c().get(path)).spec.workerGroupSpecs[0].replicas).toBe(1);
    await h.tenant().mergePatch(path, { metadata: { labels: { note: 'mine' } } });
    // The ClusterQueue counts exactly the job's 2.5 CPU (its status catches up a moment after admission), and no other Workload appeared.
    await waitFor('the ClusterQueue to count the job', async () => (await usage('team-a')) === '2500m', 30000);
    expect((await c().list(WL, 'Workload', 'team-a')).length).toBe(1);
  }, 240000);

  test('2. a pod-template priorityClassName is refused in a tenant namespace; KubeRay\'s origin label no longer skips '
    + 'the priority default', async () => {
    const high = rayJob('team-a', 'critical', { labels: { 'ray.io/originated-from-crd': 'RayJob' } });
    (high.spec.rayClusterSpec.headGroupSpec.template.spec as any).priorityClassName = 'system-cluster-critical';
    const e = await refused(h.tenant().create(high));
    expect(e?.message).toMatch(/spec\.rayClusterSpec\.headGroupSpec\.template\.spec\.priorityClassName: pod priority class "system-cluster-critical" is not allowed in tenant namespace "team-a" \(the tenant allows none\)/);
    const plain = await h.tenant().create(rayJob('team-a', 'origin', { labels: { 'ray.io/originated-from-crd': 'RayJob' } }));
    expect(plain.metadata.labels).toMatchObject({ 'kueue.x-k8s.io/queue-name': 'default', 'kueue.x-k8s.io/priority-class': 'esc-dev' });
    expect(plain.spec.suspend).toBe(true);
    const wl = await waitFor('the Workload of the origin-labelled job', async () => (await workloadsOf('team-a', plain.metadata.uid))[0], 60000);
    expect(wl.spec.priority).toBe(100);
    const prod = await refused(h.tenant().create(rayJob('team-a', 'prod', { labels: { 'kueue.x-k8s.io/priority-class': 'esc-prod' } })));
    expect(prod?.message).toMatch(/priority class "esc-prod" is not allowed for the tenant of namespace "team-a" \(allowed: esc-dev\)/);
    await c().delete('/apis/ray.io/v1/namespaces/team-a/rayjobs/origin');
  }, 180000);

  test('3. the queue-name annotation alone: '
    + `${readsAnnotation ? 'Kueue reads it, so the object is queued as it is'
      : 'the object still gets the label Kueue reads, and an update swapping the label for it is refused'}`, async () => {
    const annotated = await h.tenant().create(rayCluster('team-c', 'annotated', 1, { annotations: { 'kueue.x-k8s.io/queue-name': 'default' } }));
    expect(annotated.metadata.labels?.['kueue.x-k8s.io/queue-name']).toBe(readsAnnotation ? undefined : 'default');
    expect(annotated.spec.suspend).toBe(true);
    await waitFor('Kueue to make a Workload for it', async () => (await workloadsOf('team-c', annotated.metadata.uid))[0], 60000);
    await c().delete('/apis/ray.io/v1/namespaces/team-c/rayclusters/annotated');
    // A pending job in team-d (whose queue is not "default", so Kueue's own webhook does not refuse an
    // empty queue name): hold the queue so it stays suspended, then swap the label for the annotation.
    await c().mergePatch(`/apis/${WL}/clusterqueues/team-d`, { spec: { stopPolicy: 'Hold' } });
    const pending = await h.tenant().create(rayJob('team-d', 'swap'));
    expect(pending.spec.suspend).toBe(true);
    const path = '/apis/ray.io/v1/namespaces/team-d/rayjobs/swap';
    const swap = h.tenant().mergePatch(path,
      { metadata: { labels: { 'kueue.x-k8s.io/queue-name': null }, annotations: { 'kueue.x-k8s.io/queue-name': 'main' } } });
    if (readsAnnotation) {
    // The object stays queued through the annotation: the update is no escape, and passes.
      await swap;
      await waitFor('the job to keep its Workload', async () => (await workloadsOf('team-d', pending.metadata.uid))[0], 30000);
    } else {
      const e = await refused(swap);
      expect(e?.message).toMatch(new RegExp(`admission webhook "vray.cdk8s-kueue-ray.io" denied the request: .*Kueue ${PAIR[0].replace(/\./g, '\\.')} reads the queue name only from the label.*\\[tenantQueueLabel\\]`));
      expect((await c().get(path)).metadata.labels['kueue.x-k8s.io/queue-name']).toBe('main');
    }
    expect((await c().get(path)).spec.suspend).toBe(true);
    await c().mergePatch(`/apis/${WL}/clusterqueues/team-d`, { spec: { stopPolicy: 'None' } });
    await c().delete(path);
  }, 180000);

  test('4. a TenantQueue without priority rules is still a tenant: its plain RayCluster is queued and suspended', async () => {
    const rc = await h.tenant().create(rayCluster('team-e', 'plain'));
    expect(rc.metadata.labels?.['kueue.x-k8s.io/queue-name']).toBe('main');
    expect(rc.spec.suspend).toBe(true);
    await waitFor('Kueue to make its Workload', async () => (await workloadsOf('team-e', rc.metadata.uid))[0], 60000);
    await c().delete('/apis/ray.io/v1/namespaces/team-e/rayclusters/plain');
  }, 120000);

  test('5. a non-controller ownerReference of kind RayJob makes no child: the object is queued in a namespace whose '
    + 'LocalQueue is not "default"', async () => {
    const job = await h.tenant().create(rayJob('team-d', 'owner'));
    const rc = await h.tenant().create(rayCluster('team-d', 'stowaway', 1, {
      ownerReferences: [{ apiVersion: 'ray.io/v1', kind: 'RayJob', name: 'owner', uid: job.metadata.uid }],
    }));
    expect(rc.metadata.labels['kueue.x-k8s.io/queue-name']).toBe('main');
    expect(rc.spec.suspend).toBe(true);
    await waitFor('Kueue to make the stowaway its own Workload', async () => (await workloadsOf('team-d', rc.metadata.uid))[0], 60000);
    await c().delete('/apis/ray.io/v1/namespaces/team-d/rayjobs/owner');
  }, 120000);

  test('6. slow bodies on the webhook port starve no one, and fail-closed validation refuses a disallowed priority throughout', async () => {
    const sockets: tls.TLSSocket[] = [];
    // Six connections declare 4 MiB bodies and send one byte a second (the attack that filled the budget).
    for (let i = 0; i < 6; i++) {
      const s = tls.connect({ ...h.webhook(), rejectUnauthorized: false });
      await new Promise<void>((r) => s.once('secureConnect', () => r()));
      s.on('error', () => undefined);
      s.write(`POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${4 * 1024 * 1024}\r\n\r\n{`);
      sockets.push(s);
    }
    const drip = setInterval(() => { for (const s of sockets) if (!s.destroyed) s.write(' '); }, 1000);
    try {
      let created = 0;
      let refusedPriority = 0;
      let tries = 0;
      const t0 = Date.now();
      for (let i = 0; Date.now() - t0 < 8000; i++) {
        tries++;
        const ok = await h.tenant().create({ ...rayJob('team-b', `busy-${i}`), spec: { ...rayJob('team-b', 'x').spec, suspend: true } })
          .then(() => true, () => false);
        if (ok) created++;
        const bad = await refused(h.tenant().create(rayJob('team-a', `sneak-${i}`, { labels: { 'kueue.x-k8s.io/priority-class': 'esc-prod' } })));
        if (bad?.message.match(/not allowed for the tenant/)) refusedPriority++;
      }
      process.stdout.write(`[tenant-escapes] under 6 slow-body connections: ${created} of ${tries} creates admitted, ${refusedPriority} of ${tries} `
        + 'disallowed priorities refused\n');
      expect(tries).toBeGreaterThan(3);
      expect(created).toBe(tries);
      expect(refusedPriority).toBe(tries);
      // The slow bodies were cut at the body deadline, not held for the whole request timeout.
      await waitFor('the slow connections to be closed by the server', async () => sockets.every((s) => s.destroyed || s.readableEnded), 15000);
    } finally {
      clearInterval(drip);
      for (const s of sockets) s.destroy();
    }
    expect((await c().list('ray.io/v1', 'RayJob', 'team-a')).filter((j) => j.metadata.name.startsWith('sneak-'))).toEqual([]);
    for (const j of (await c().list('ray.io/v1', 'RayJob', 'team-b')).filter((x) => x.metadata.name.startsWith('busy-'))) await c()
      .delete(`/apis/ray.io/v1/namespaces/team-b/rayjobs/${j.metadata.name}`);
  }, 120000);

  test('status writes: a tenant cannot mark its admitted job finished (Kueue would release its quota); KubeRay keeps writing it', async () => {
    const { job } = await admittedJob('team-d', 'finish-early');
    const path = '/apis/ray.io/v1/namespaces/team-d/rayjobs/finish-early/status';
    const e = await refused(h.tenant().mergePatch(path, { status: { jobDeploymentStatus: 'Complete', jobStatus: 'SUCCEEDED' } }));
    expect(e?.message).toMatch(/only KubeRay's operator writes the status of a Ray object.*\[rayStatusWriter\]/);
    const wl = (await workloadsOf('team-d', job.metadata.uid))[0];
    expect((wl.status?.conditions ?? []).some((x: any) => x.type === 'Finished' && x.status === 'True')).toBe(false);
    // KubeRay's status writes are matched out: it moved the job on after admission.
    expect((await c().get(path)).status?.jobDeploymentStatus).toBeTruthy();
    await c().delete('/apis/ray.io/v1/namespaces/team-d/rayjobs/finish-early');
  }, 180000);

  test('beyond the six: RayService variants, the submitter template, generateName and dry runs meet the same rules', async () => {
    const service = (name: string, podPriority?: string) => ({
      apiVersion: 'ray.io/v1', kind: 'RayService', metadata: { name, namespace: 'team-a' },
      spec: { serveConfigV2: 'applications: []', rayClusterConfig: { ...clusterSpec(1), headGroupSpec: { rayStartParams: {},
        template: { spec: { containers: [container('ray-head')], ...(podPriority ? { priorityClassName: podPriority } : {}) } } } } },
    });
    expect((await refused(h.tenant().create(service('svc-critical', 'system-node-critical'))))?.message).toMatch(/spec\.rayClusterConfig\.headGroupSpec\.template\.spec\.priorityClassName: pod priority class "system-node-critical" is not allowed/);
    const svc = await h.tenant().create(service('svc'));
    expect(svc.metadata.labels['kueue.x-k8s.io/queue-name']).toBe('default');
    // A RayCluster claiming the RayService as its controller, by generateName and as a dry run: refused all the same.
    const rider = rayCluster('team-a', 'x', 4,
      { ownerReferences: [{ apiVersion: 'ray.io/v1', kind: 'RayService', name: 'svc', uid: svc.metadata.uid, controller: true }] });
    const generated = { ...rider, metadata: { ...rider.metadata, name: undefined, generateName: 'svc-raycluster-' } };
    const svcUnseen = /RayService\.ray\.io "svc" not found/;
    expect((await refusedOnceKueueSees(() => h.tenant().create(generated), svcUnseen))?.message)
      .toMatch(/may not create a RayCluster controlled by RayService "svc"/);
    expect((await refusedOnceKueueSees(() => h.tenant().create(generated, true), svcUnseen))?.message)
      .toMatch(/may not create a RayCluster controlled by RayService "svc"/);
    // The submitter pod template is a pod template too.
    const submitter = rayJob('team-a', 'submitter');
    (submitter.spec as any).submitterPodTemplate = { spec: { priorityClassName: 'system-cluster-critical', restartPolicy: 'Never',
      containers: [container('ray-job-submitter', '500m')] } };
    expect((await refused(h.tenant().create(submitter)))?.message).toMatch(/spec\.submitterPodTemplate\.spec\.priorityClassName: pod priority class "system-cluster-critical" is not allowed/);
    await c().delete('/apis/ray.io/v1/namespaces/team-a/rayservices/svc');
  }, 120000);

  test('beyond the six: a clusterSelector cannot reach another tenant\'s RayCluster (KubeRay looks in the job\'s own namespace)', async () => {
    const theirs = await c().create(rayCluster('team-b', 'theirs', 1, { labels: { 'kueue.x-k8s.io/queue-name': 'default' } }));
    const selector = (submissionMode: string) => ({
      apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { name: 'borrow', namespace: 'team-d' },
      spec: { entrypoint: 'python -c "print(1)"', clusterSelector: { 'ray.io/cluster': theirs.metadata.name }, submissionMode },
    });
    // Kueue does not queue a RayJob on an existing cluster: a submitter pod of its own would run outside the quota.
    expect((await refused(h.tenant().create(selector('K8sJobMode'))))?.message).toMatch(/\[clusterSelectorSubmitter\]/);
    const job = await h.tenant().create(selector('HTTPMode'));
    expect(job.spec.suspend).toBeFalsy();
    // KubeRay resolves the selector to a name and looks for that RayCluster in team-d only. (team-d, whose
    // queue is not "default": in a namespace with a "default" LocalQueue, Kueue's LocalQueueDefaulting
    // labels and suspends the job, which KubeRay then refuses: see the README.)
    const jobPath = '/apis/ray.io/v1/namespaces/team-d/rayjobs/borrow';
    await waitFor('KubeRay to resolve the selector', async () => (await c().get(jobPath)).status?.rayClusterName === theirs.metadata.name, 60000);
    if (PAIR[1] !== 'v1.4.2') {
      // From 1.5 KubeRay says so in an Event (1.4 only logs it).
      const event = await waitFor('KubeRay to report the selected cluster missing in team-d', async () => (await c().list('v1', 'Event', 'team-d'))
        .find((e) => e.involvedObject?.uid === job.metadata.uid && /team-d\/theirs/.test(e.message ?? '')), 60000);
      expect(event.message).toMatch(/RayCluster team-d\/theirs set in the clusterSelector is not found/);
    }
    await new Promise((r) => setTimeout(r, 3000));
    expect((await c().get(jobPath)).status?.jobDeploymentStatus).not.toBe('Running');
    // The other tenant's cluster is untouched.
    expect((await c().get('/apis/ray.io/v1/namespaces/team-b/rayclusters/theirs')).metadata.ownerReferences).toBeUndefined();
    await c().delete(jobPath);
    await c().delete('/apis/ray.io/v1/namespaces/team-b/rayclusters/theirs');
  }, 120000);

  const bare = h.kueuePodIntegration
    ? 'beyond the six: a bare Pod with a queue label is outside the controller, and Kueue\'s pod integration (on in its release) '
      + 'gates it into a Workload'
    : 'beyond the six: a bare Pod with a queue label is outside the controller and, without Kueue\'s pod integration, outside Kueue (the README says '
      + 'to bound it with a ResourceQuota)';
  test(bare, async () => {
    const pod = await h.tenant().create({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bare', namespace: 'team-a', labels: { 'kueue.x-k8s.io/queue-name': 'default' } },
      spec: { containers: [container('c')] },
    });
    const workloads = async () => (await c().list(WL, 'Workload',
      'team-a')).filter((w) => (w.metadata.ownerReferences ?? []).some((o: any) => o.uid === pod.metadata.uid));
    if (h.kueuePodIntegration) {
      expect(pod.spec.schedulingGates).toEqual(expect.arrayContaining([{ name: 'kueue.x-k8s.io/admission' }]));
      await waitFor('Kueue to make the pod a Workload', async () => (await workloads()).length === 1, 60000);
    } else {
      expect(pod.spec.schedulingGates).toBeUndefined();
      await new Promise((r) => setTimeout(r, 2000));
      expect(await workloads()).toEqual([]);
    }
    await c().delete('/api/v1/namespaces/team-a/pods/bare');
  }, 90000);

  test('KubeRay\'s own writes still pass: its user may create a child and update it', async () => {
    const asKubeRay = c().as(KUBERAY_USER, [...h.kubeRayGroups]);
    const { job } = await admittedJob('team-b', 'kuberay-writes');
    const child = rayCluster('team-b', 'kuberay-made', 1, {
      ownerReferences: [{ apiVersion: 'ray.io/v1', kind: 'RayJob', name: 'kuberay-writes', uid: job.metadata.uid, controller: true }],
    });
    // Impersonation counts as the user (matchConditions see request.userInfo): neither webhook is called.
    await expect(asKubeRay.create(child, true)).resolves.toMatchObject({ metadata: { name: 'kuberay-made' } });
    // The tenant's identical request is refused: the decision is the user's, not the object's.
    expect((await refused(h.tenant().create(child, true)))?.message).toMatch(/\[rayChildWriter\]/);
  }, 180000);
}
