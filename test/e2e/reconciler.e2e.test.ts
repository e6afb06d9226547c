// The reconciler on the real control plane: a pending RayJob gets an Event and an annotation with
// Kueue's reason and the gang's numbers; the admitted one says so; a preempted one says by whom.
// Two replicas of the shipped image's controller (support/image.ts): only the Lease holder writes.
import * as fs from 'fs';
import { Reconciler } from '../../src/controller/reconciler';
import { kueueCapabilities } from '../../src/policy/versions';
import { tmpdir, examples, synthAll } from '../support/synth';
import { freePort, TestCluster } from './support/cluster';
import { FILES_MOUNT, ImageController, startImageController } from './support/image';
import { makePki } from './support/pki';
import { waitFor } from './support/kube';
import { describeOnPair } from './support/pairs';

const PAIR: [string, string] = ['v0.19.2', 'v1.6.2'];
const describeReconciler = describeOnPair('reconciler', PAIR);

describeReconciler(`reconciler on Kueue ${PAIR[0]} + KubeRay ${PAIR[1]}`, () => {
  let cluster: TestCluster;
  const replicas: Record<string, ImageController> = {};
  /** Replicas a test killed on purpose: their exit code is not checked. */
  const killed = new Set<string>();

  beforeAll(async () => {
    cluster = await TestCluster.start({ kueue: PAIR[0], kubeRay: PAIR[1] });
    for (const o of synthAll(examples({ kueue: PAIR[0], kubeRay: PAIR[1], scenarios: ['queues'] }))) await cluster.client.apply(o);
    await cluster.client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cdk8s-kueue-ray-system' } });
    const pki = makePki(`${tmpdir()}/reconciler-serving`);
    for (const id of ['replica-a', 'replica-b']) {
      replicas[id] = await startImageController({
        name: id,
        args: ['controller', `--kueue-version=${PAIR[0]}`, `--kuberay-version=${PAIR[1]}`, '--namespace=cdk8s-kueue-ray-system',
          `--kubeconfig=${FILES_MOUNT}/kubeconfig`,
          `--tls-cert-file=${FILES_MOUNT}/tls.crt`, `--tls-key-file=${FILES_MOUNT}/tls.key`, '--host=127.0.0.1', `--port=${await freePort()}`],
        files: { kubeconfig: fs.readFileSync(cluster.kubeconfig), 'tls.crt': fs.readFileSync(pki.servingCrt),
          'tls.key': fs.readFileSync(pki.servingKey) },
        env: { POD_NAME: id }, // the Lease identity, as the Deployment passes it
      });
    }
    for (const r of Object.values(replicas)) await r.waitForLog(/"msg":"reconciler started"/, 60000);
  }, 300000);

  afterAll(async () => {
    const live = Object.keys(replicas).filter((id) => !killed.has(id)).map((id) => replicas[id]);
    const codes = await Promise.all(live.map((r) => r.stop()));
    await cluster?.stop();
    expect(codes).toEqual(codes.map(() => 0));
  }, 60000);

  afterEach(async () => {
    for (const j of await cluster.client.list('ray.io/v1', 'RayJob',
      'default')) await cluster.client.delete(`/apis/ray.io/v1/namespaces/default/rayjobs/${j.metadata.name}`);
    await waitFor('jobs gone', async () => (await cluster.client.list('ray.io/v1', 'RayJob', 'default')).length === 0, 60000).catch(() => undefined);
  }, 90000);

  const events = async (name: string) => (await cluster.client.list('v1', 'Event', 'default')).filter((e) => e.involvedObject?.name === name
    && e.source?.component === 'cdk8s-kueue-ray-controller');

  test('exactly one replica holds the Lease', async () => {
    const leaders = () => Object.keys(replicas).filter((id) => replicas[id].output().includes('"msg":"became leader"'));
    await waitFor('a leader', async () => leaders().length === 1, 30000);
    const lease = await cluster.client.get('/apis/coordination.k8s.io/v1/namespaces/cdk8s-kueue-ray-system/leases/cdk8s-kueue-ray-controller');
    expect(lease.spec.holderIdentity).toBe(leaders()[0]);
    await new Promise((r) => setTimeout(r, 6000)); // two renewal rounds: the other replica stays a follower
    expect(leaders()).toEqual([lease.spec.holderIdentity]);
  });

  test('why pending: the held job gets an Event and annotation with the reason and the numbers; the running one is admitted', async () => {
    const jobs = synthAll(examples({ kueue: PAIR[0], kubeRay: PAIR[1], scenarios: ['queues', 'gang-scheduling'] }))
      .filter((o) => o.metadata.generateName);
    const a = await cluster.client.create(jobs[0]);
    await waitFor('the first job admitted', async () => (await events(a.metadata.name)).some((e) => e.reason === 'KueueAdmitted'), 60000);
    const b = await cluster.client.create(jobs[1]);
    const pending = await waitFor('a KueuePending Event on the second job',
      async () => (await events(b.metadata.name)).find((e) => e.reason === 'KueuePending'), 60000);
    expect(pending.message).toMatch(/is pending in queue user-queue: couldn't assign flavors to pod set .*insufficient unused quota for cpu in flavor default-flavor.*; the gang needs cpu 2.5, memory 4296Mi/);
    // The reconciler writes the Event first and then patches the annotation (reconciler.ts: a failed Event is retried
    // rather than hidden by an annotation already written), so the annotation may land a moment after the Event is seen.
    const annotation = await waitFor('the queue-status annotation on the second job', async () => (await cluster.client
      .get(`/apis/ray.io/v1/namespaces/default/rayjobs/${b.metadata.name}`)).metadata.annotations?.['cdk8s-kueue-ray.io/queue-status'], 10000);
    expect(annotation).toMatch(/^pending: /);
    // One Event per state change, however many replicas run.
    expect((await events(b.metadata.name)).filter((e) => e.reason === 'KueuePending')).toHaveLength(1);
  }, 180000);

  test('a Workload Kueue has not looked at yet is not mirrored, so its first real pending state still gets its Event', async () => {
    // Deterministic version of a race seen in CI: the informer's 'add' (no conditions yet) used to
    // write the annotation, and the later 'update' with Kueue's reason then looked already reported.
    // The Reconciler class, driven by hand: it leads its own Lease (another namespace) and runs no
    // informer, so the image's replicas and it never see each other's Workloads (this job has no queue).
    await cluster.client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'reconciler-unit' } });
    const leader = new Reconciler({ kubeconfigFile: cluster.kubeconfig, kueue: kueueCapabilities(PAIR[0]), leaseNamespace: 'reconciler-unit',
      identity: 'by-hand' });
    await (leader as any).tryLead();
    expect(leader.isLeader).toBe(true);
    const job = await cluster.client.create({
      apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { generateName: 'unqueued-', namespace: 'default' },
      spec: { entrypoint: 'x', suspend: true, shutdownAfterJobFinishes: true, rayClusterSpec: { headGroupSpec: { rayStartParams: {},
        template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0' }] } } } } },
    });
    const wl = (conditions: any[]) => ({
      metadata: { name: `rayjob-${job.metadata.name}-x`, namespace: 'default',
        ownerReferences: [{ apiVersion: 'ray.io/v1', kind: 'RayJob', name: job.metadata.name, uid: job.metadata.uid, controller: true }] },
      spec: { queueName: 'user-queue', podSets: [] }, status: { conditions },
    });
    expect(await leader.reconcile(wl([]))).toBeUndefined();
    const untouched = await cluster.client.get(`/apis/ray.io/v1/namespaces/default/rayjobs/${job.metadata.name}`);
    expect(untouched.metadata.annotations?.['cdk8s-kueue-ray.io/queue-status']).toBeUndefined();
    const pendingCondition = { type: 'QuotaReserved', status: 'False', reason: 'Pending',
      message: "couldn't assign flavors to pod set head: insufficient unused quota for cpu in flavor default-flavor",
      lastTransitionTime: new Date().toISOString() };
    expect((await leader.reconcile(wl([pendingCondition])))?.state).toBe('pending');
    expect(await leader.reconcile(wl([pendingCondition]))).toBeDefined(); // again: no second Event
    const evs = (await events(job.metadata.name)).filter((e) => e.reason === 'KueuePending');
    expect(evs).toHaveLength(1);
    expect(evs[0].message).toMatch(/insufficient unused quota for cpu/);
    const annotated = await cluster.client.get(`/apis/ray.io/v1/namespaces/default/rayjobs/${job.metadata.name}`);
    expect(annotated.metadata.annotations['cdk8s-kueue-ray.io/queue-status']).toMatch(/^pending: /);
  });

  test('preempted: the dev job is told it was preempted, and by which workload', async () => {
    const [dev, prod] = synthAll(examples({ kueue: PAIR[0], kubeRay: PAIR[1], scenarios: ['queues', 'priority'] }))
      .filter((o) => o.metadata.generateName);
    const d = await cluster.client.create(dev);
    await waitFor('dev admitted', async () => (await events(d.metadata.name)).some((e) => e.reason === 'KueueAdmitted'), 60000);
    await cluster.client.create(prod);
    const ev = await waitFor('a KueuePreempted Event on the dev job',
      async () => (await events(d.metadata.name)).find((e) => e.reason === 'KueuePreempted'), 90000);
    expect(ev.type).toBe('Warning');
    expect(ev.message).toMatch(/was preempted: Preempted to accommodate a workload \(UID: [0-9a-f-]+, JobUID: [0-9a-f-]+\) due to prioritization in the ClusterQueue/);
  }, 180000);

  test('the API server restarted: the informers resync, a new job is reported, and no Event is written twice', async () => {
    const [dev] = synthAll(examples({ kueue: PAIR[0], kubeRay: PAIR[1], scenarios: ['queues', 'priority'] })).filter((o) => o.metadata.generateName);
    const first = await cluster.client.create(dev);
    await waitFor('the first job reported', async () => (await events(first.metadata.name)).some((e) => e.reason === 'KueueAdmitted'), 60000);
    await cluster.restartApiServer();
    // Jobs are deleted and created again after the restart: the reconciler sees only what its resynced watch delivers.
    await waitFor('the API server to answer again', async () => cluster.client.list('ray.io/v1', 'RayJob', 'default').then(() => true, () => false),
      30000);
    await cluster.client.delete(`/apis/ray.io/v1/namespaces/default/rayjobs/${first.metadata.name}`);
    await waitFor('the first job gone',
      async () => (await cluster.client.getOrUndefined(`/apis/ray.io/v1/namespaces/default/rayjobs/${first.metadata.name}`)) === undefined, 60000);
    const second = await cluster.client.create(dev);
    await waitFor('the job created after the restart reported',
      async () => (await events(second.metadata.name)).some((e) => e.reason === 'KueueAdmitted'), 60000);
    // Every replica relisted after the restart; the Events already written are not written again.
    await new Promise((r) => setTimeout(r, 3000));
    for (const name of [first.metadata.name, second.metadata.name]) {
      const reasons = (await events(name)).map((e) => e.reason);
      expect(reasons.filter((r) => r === 'KueueAdmitted')).toHaveLength(1);
      expect(new Set(reasons).size).toBe(reasons.length);
    }
  }, 240000);

  test('the leader killed: the other replica takes the Lease and reconciles within the lease duration (+ one renewal period), '
    + 'with no duplicate Event', async () => {
    const leasePath = '/apis/coordination.k8s.io/v1/namespaces/cdk8s-kueue-ray-system/leases/cdk8s-kueue-ray-controller';
    const leaderId = (await cluster.client.get(leasePath)).spec.holderIdentity as string;
    const otherId = Object.keys(replicas).find((id) => id !== leaderId)!;
    expect(Object.keys(replicas)).toContain(leaderId);
    const [dev] = synthAll(examples({ kueue: PAIR[0], kubeRay: PAIR[1], scenarios: ['queues', 'priority'] })).filter((o) => o.metadata.generateName);
    const before = await cluster.client.create(dev);
    await waitFor('the leader to report the first job', async () => (await events(before.metadata.name)).some((e) => e.reason === 'KueueAdmitted'),
      60000);
    // SIGKILL: no handler runs, the Lease is not released, as when a node dies.
    process.kill(replicas[leaderId].pid, 'SIGKILL');
    killed.add(leaderId);
    const killedAt = Date.now();
    await cluster.client.delete(`/apis/ray.io/v1/namespaces/default/rayjobs/${before.metadata.name}`);
    const after = await cluster.client.create(dev);
    await waitFor('the other replica to report the new job',
      async () => (await events(after.metadata.name)).some((e) => e.reason === 'KueueAdmitted'), 40000, 100);
    const took = Date.now() - killedAt;
    // The controller's Lease: 15 s, renewed every 5 s; the Event follows Kueue's admission (well under a second here).
    expect(took).toBeLessThan(15000 + 5000 + 3000);
    expect((await cluster.client.get(leasePath)).spec.holderIdentity).toBe(otherId);
    process.stdout.write(`[reconciler] leader ${leaderId} killed; ${otherId} reported a new job ${took} ms later\n`);
    // The new leader re-reconciles every Workload it knows: the annotation keeps it from repeating an Event.
    await new Promise((r) => setTimeout(r, 2000));
    expect((await events(after.metadata.name)).filter((e) => e.reason === 'KueueAdmitted')).toHaveLength(1);
  }, 120000);
});
