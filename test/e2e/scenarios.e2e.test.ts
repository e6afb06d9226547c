// End to end, per buildable Kueue × KubeRay pair, on a real kube-apiserver with the real Kueue and
// KubeRay controllers: synthesize the examples with the library, apply them, and watch Kueue admit,
// hold and preempt. There is no kubelet: pods stay Pending, so RayJobs never reach Running and the
// assertions use Workload conditions, spec.suspend and the RayCluster KubeRay creates or deletes.
import { kubeRayCapabilities, kueueCapabilities } from '../../src/policy/versions';
import { rayServicePair } from '../../src/policy/pair-verdict';
import * as path from 'path';
import { computeGang, parseQuantity, RULES } from '../../src/policy';
import { examples, readManifestDir, supportedScenarios } from '../support/synth';
import { TestCluster } from './support/cluster';
import { cond, isAdmitted, KubeClient, KubeError, objectPath, waitFor } from './support/kube';
import { e2ePairs } from './support/pairs';

const { pairs, skipped } = e2ePairs();
if (skipped) {
  // Outside CI only (e2ePairs throws in CI): say why nothing runs.
  process.stdout.write(`[e2e] skipped: ${skipped}\n`);
}

const RAY = 'ray.io/v1';
const WL_API = (kueue: string) => `kueue.x-k8s.io/${kueueCapabilities(kueue).apiVersion.split('/')[1]}`;



async function workloadsOwnedBy(client: KubeClient, kueue: string, namespace: string, uid: string): Promise<any[]> {
  return (await client.list(WL_API(kueue), 'Workload', namespace)).filter((w) => (w.metadata.ownerReferences ?? []).some((o: any) => o.uid === uid));
}

async function rayClustersOwnedBy(client: KubeClient, namespace: string, uid: string): Promise<any[]> {
  return (await client.list(RAY, 'RayCluster', namespace)).filter((c) => (c.metadata.ownerReferences ?? []).some((o: any) => o.uid === uid));
}

async function createJob(client: KubeClient, job: any): Promise<any> {
  return client.create(JSON.parse(JSON.stringify(job)));
}

function synthToDisk(kueue: string, kubeRay: string, scenarios: any[]): { apply: any[]; create: Record<string, any[]> } {
  const app = examples({ kueue, kubeRay, scenarios });
  app.synth();
  return { apply: Object.values(readManifestDir(app.outdir)).flat(), create: readManifestDir(path.join(app.outdir, 'create')) };
}

/** Kueue's admitted usage per PodSet, in milli-units. */
function admittedUsage(wl: any): Record<string, Record<string, bigint>> {
  const out: Record<string, Record<string, bigint>> = {};
  for (const a of wl.status?.admission?.podSetAssignments ?? []) {
    out[a.name] = Object.fromEntries(Object.entries(a.resourceUsage ?? {}).map(([k, v]) => [k, parseQuantity(v as string)]));
  }
  return out;
}

const describePairs = pairs.length ? describe.each(pairs) : describe.skip.each([['-', '-']]);

describePairs('e2e on Kueue %s + KubeRay %s', (kueue, kubeRay) => {
  let cluster: TestCluster;
  let client: KubeClient;
  const scenarios = kueue === '-' ? [] : supportedScenarios(kueue, kubeRay);
  // The examples app's dist/ exactly as `cdk8s synth` writes it: files read back from disk.
  const dist = kueue === '-' ? { apply: [], create: {} as Record<string, any[]> } : synthToDisk(kueue, kubeRay, scenarios);
  const named = dist.apply;
  const generated = Object.values(dist.create).flat();
  const createOnly = (chart: string) => dist.create[chart];

  // A timed-out wait reports the controllers' recent logs too, so a CI failure can be diagnosed.
  const waitForLogged = <T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs?: number): Promise<T> =>
    waitFor(what, fn, timeoutMs).catch((e: Error) => {
      throw new Error(`${e.message}${cluster.exited() ? `\n--- exited: ${cluster.exited()}` : ''}\n--- process logs ---\n${cluster.logTails(40)}`);
    });

  /**
   * What Kueue and KubeRay did with one Ray object, for a wait on it that timed out: the object's suspend
   * and status, its Workloads' conditions, its events, and each controller's log lines that name it.
   */
  const objectReport = async (kind: string, name: string, uid: string): Promise<string> => {
    const plural = `${kind.toLowerCase()}s`;
    const obj = await client.getOrUndefined(`/apis/ray.io/v1/namespaces/default/${plural}/${name}`).catch(() => undefined);
    const wls = await workloadsOwnedBy(client, kueue, 'default', uid).catch(() => []);
    const events = (await client.list('v1', 'Event', 'default').catch(() => [] as any[]))
      .filter((ev: any) => ev.involvedObject?.name === name || ev.involvedObject?.name?.startsWith(`${name}-`))
      .map((ev: any) => `${ev.lastTimestamp ?? ev.eventTime} ${ev.type} ${ev.reason} ${ev.involvedObject?.kind}/${ev.involvedObject?.name}: `
        + ev.message);
    return [`--- ${kind} ${name}: suspend ${JSON.stringify(obj?.spec?.suspend)}, status ${JSON.stringify(obj?.status ?? null)}`,
      ...wls.map((w) => `--- Workload ${w.metadata.name}: ${JSON.stringify(w.status?.conditions ?? [])}`),
      '--- events', ...events.slice(-20),
      '--- kuberay-operator on it', cluster.logLines('kuberay-operator', name),
      '--- kueue on it', cluster.logLines('kueue', name)].join('\n');
  };
  /** waitForLogged, and on a timeout the report on the object the wait was about. */
  const waitOnObject = <T>(what: string, kind: string, o: { metadata: { name: string; uid: string } }, fn: () => Promise<T | undefined | false>,
    timeoutMs?: number): Promise<T> => waitForLogged(what, fn, timeoutMs).catch(async (e: Error) => {
    throw new Error(`${e.message}\n${await objectReport(kind, o.metadata.name, o.metadata.uid)}`);
  });

  beforeAll(async () => {
    cluster = await TestCluster.start({ kueue, kubeRay });
    client = cluster.client;
  }, 300000);

  afterAll(async () => {
    const pids = cluster?.pids() ?? [];
    await cluster?.stop();
    // Teardown leaves no process behind.
    const leaked = pids.filter((pid) => { try { process.kill(pid, 0); return true; } catch { return false; } });
    expect(leaked).toEqual([]);
  }, 60000);

  // A failed scenario must not leave jobs holding the shared 3 CPU queue for the next one.
  afterEach(async () => {
    if (!client) return;
    for (const j of await client.list(RAY, 'RayJob', 'default')) await client.delete(`/apis/ray.io/v1/namespaces/default/rayjobs/${j.metadata.name}`);
    await waitForLogged('RayJobs of the scenario to be gone', async () => (await client.list(RAY, 'RayJob', 'default')).length === 0, 60000)
      .catch(() => undefined);
  }, 90000);

  test('1. every example applies server-side, after a server dry-run of every object passes', async () => {
    // Namespaces and cluster-scoped queue objects first, as the ordered apply does.
    const rank = (o: any) => (o.kind === 'Namespace' ? 0 : ['ResourceFlavor', 'WorkloadPriorityClass', 'Cohort', 'ClusterQueue'].includes(o.kind) ? 1
      : o.kind === 'LocalQueue' ? 2 : 3);
    const ordered = [...named].sort((a, b) => rank(a) - rank(b));
    for (const o of ordered.filter((x) => x.kind === 'Namespace')) await client.apply(o);
    const dryRunErrors: string[] = [];
    for (const o of ordered) {
      try {
        await client.apply(o, { dryRun: true });
      } catch (e) {
        dryRunErrors.push(`${o.kind} ${o.metadata.name}: ${(e as Error).message}`);
      }
    }
    for (const o of generated) {
      try {
        await client.create(o, true);
      } catch (e) {
        dryRunErrors.push(`${o.kind} ${o.metadata.generateName}*: ${(e as Error).message}`);
      }
    }
    expect(dryRunErrors).toEqual([]);
    for (const o of ordered) await client.apply(o);
    for (const o of ordered) {
      const got = await client.get(objectPath(o));
      expect([o.kind, got.metadata.name]).toEqual([o.kind, o.metadata.name]);
    }
  }, 180000);

  test('2. gang: two 2.5 CPU dev jobs on the 3 CPU queue, one admitted, one held whole until the first is gone', async () => {
    const [a, b] = createOnly('gang-scheduling');
    const j1 = await createJob(client, a);
    const j2 = await createJob(client, b);
    const admitted = await waitForLogged('one of the two Workloads admitted', async () => {
      const w1 = await workloadsOwnedBy(client, kueue, 'default', j1.metadata.uid);
      const w2 = await workloadsOwnedBy(client, kueue, 'default', j2.metadata.uid);
      if (!w1.length || !w2.length) return false;
      const first = w1.some(isAdmitted) ? { job: j1, other: j2 } : w2.some(isAdmitted) ? { job: j2, other: j1 } : undefined;
      return first;
    }, 120000);
    // Kueue counted exactly the gang the library computes for this version (head, worker, submitter).
    const [wl] = (await workloadsOwnedBy(client, kueue, 'default', admitted.job.metadata.uid)).filter(isAdmitted);
    const gang = computeGang(a, kueueCapabilities(kueue));
    const ours = Object.fromEntries(gang.podSets.map((p) => [p.name, Object.fromEntries([...p.total].map(([k, v]) => [k, v]))]));
    expect(admittedUsage(wl)).toEqual(ours);
    // The admitted job is unsuspended and KubeRay creates its RayCluster.
    await waitOnObject('the admitted RayJob to get its RayCluster', 'RayJob', admitted.job,
      async () => (await rayClustersOwnedBy(client, 'default', admitted.job.metadata.uid)).length > 0, 120000);
    // The other stays pending with Kueue's quota reason, suspended, with no RayCluster at all.
    const pending = await waitForLogged('the second Workload to report insufficient quota', async () => {
      const [w] = await workloadsOwnedBy(client, kueue, 'default', admitted.other.metadata.uid);
      const qr = cond(w, 'QuotaReserved');
      return qr?.status === 'False' && /insufficient (unused )?quota/i.test(qr.message) ? w : false;
    }, 60000);
    expect(isAdmitted(pending)).toBe(false);
    const otherJob = await client.get(`/apis/ray.io/v1/namespaces/default/rayjobs/${admitted.other.metadata.name}`);
    expect(otherJob.spec.suspend).toBe(true);
    expect(await rayClustersOwnedBy(client, 'default', admitted.other.metadata.uid)).toEqual([]);
    // The library predicted exactly this: each gang alone fits, two do not.
    expect(RULES.gangCanEverFit(a, { kueue: kueueCapabilities(kueue), kubeRay: kubeRayCapabilities(kubeRay) })).toEqual([]);

    await client.delete(`/apis/ray.io/v1/namespaces/default/rayjobs/${admitted.job.metadata.name}`);
    await waitForLogged('the second Workload to be admitted once the first job is deleted',
      async () => (await workloadsOwnedBy(client, kueue, 'default', admitted.other.metadata.uid)).some(isAdmitted), 120000);
    await waitForLogged('the second RayJob to be unsuspended',
      async () => (await client.get(`/apis/ray.io/v1/namespaces/default/rayjobs/${admitted.other.metadata.name}`)).spec.suspend !== true, 60000);
    await client.delete(`/apis/ray.io/v1/namespaces/default/rayjobs/${admitted.other.metadata.name}`);
    await waitForLogged('the gang jobs to be gone', async () => (await client.list(RAY, 'RayJob', 'default')).length === 0, 60000);
  }, 420000);

  test('3. priority: a prod job preempts the running dev job', async () => {
    const [dev, prod] = createOnly('priority');
    expect(dev.metadata.labels['kueue.x-k8s.io/priority-class']).toBe('dev-priority');
    expect(prod.metadata.labels['kueue.x-k8s.io/priority-class']).toBe('prod-priority');
    const d = await createJob(client, dev);
    await waitForLogged('the dev Workload to be admitted',
      async () => (await workloadsOwnedBy(client, kueue, 'default', d.metadata.uid)).some(isAdmitted), 120000);
    const devCluster = await waitOnObject('the dev RayCluster', 'RayJob', d,
      async () => (await rayClustersOwnedBy(client, 'default', d.metadata.uid))[0], 120000);
    const p = await createJob(client, prod);
    await waitForLogged('the dev Workload to be evicted by preemption', async () => {
      const [w] = await workloadsOwnedBy(client, kueue, 'default', d.metadata.uid);
      const ev = cond(w, 'Evicted');
      const pre = cond(w, 'Preempted');
      return (ev?.status === 'True' && ev.reason === 'Preempted') || pre?.status === 'True' ? w : false;
    }, 120000);
    await waitForLogged('the dev RayJob to be suspended',
      async () => (await client.get(`/apis/ray.io/v1/namespaces/default/rayjobs/${d.metadata.name}`)).spec.suspend === true, 60000);
    await waitForLogged('KubeRay to delete the dev RayCluster',
      async () => (await client.getOrUndefined(`/apis/ray.io/v1/namespaces/default/rayclusters/${devCluster.metadata.name}`)) === undefined, 120000);
    await waitForLogged('the prod Workload to be admitted',
      async () => (await workloadsOwnedBy(client, kueue, 'default', p.metadata.uid)).some(isAdmitted), 120000);
    for (const j of [d, p]) await client.delete(`/apis/ray.io/v1/namespaces/default/rayjobs/${j.metadata.name}`);
    await waitForLogged('the priority jobs to be gone', async () => (await client.list(RAY, 'RayJob', 'default')).length === 0, 60000);
  }, 420000);

  test('4. elastic RayCluster: admitted, scale-up within quota is a new admitted slice, beyond quota stays pending, '
    + 'scale-down releases quota', async () => {
    if (!scenarios.includes('elastic-raycluster')) {
      // The library refuses it at synth (test/examples/schema.test.ts); test 6 shows Kueue refusing the raw object.
      expect(kueueCapabilities(kueue).elasticRayCluster).toBe(false);
      return;
    }
    const path = '/apis/ray.io/v1/namespaces/default/rayclusters/raycluster-kueue-autoscaler';
    const rc = await client.get(path);
    const admittedCount = async (n: number) => (await workloadsOwnedBy(client, kueue, 'default', rc.metadata.uid)).find((w) => isAdmitted(w)
      && w.spec.podSets.find((p: any) => p.name === 'workers')?.count === n && !cond(w, 'Finished'));
    await waitForLogged('the elastic RayCluster to be admitted with 0 workers', () => admittedCount(0), 120000);
    await client.mergePatch(path, { spec: { workerGroupSpecs: [{ ...rc.spec.workerGroupSpecs[0], replicas: 2 }] } });
    const slice = await waitForLogged('a Workload slice with 2 workers to be admitted', () => admittedCount(2), 120000);
    const scaled = { ...rc, spec: { ...rc.spec, workerGroupSpecs: [{ ...rc.spec.workerGroupSpecs[0], replicas: 2 }] } };
    const ours = computeGang(scaled, kueueCapabilities(kueue));
    expect(admittedUsage(slice)).toEqual(Object.fromEntries(ours.podSets.map((p) => [p.name, Object.fromEntries([...p.total])])));
    const cq = `/apis/${WL_API(kueue)}/clusterqueues/ray-cq`;
    const usedCpu = async () => {
      const s = (await client.get(cq)).status;
      const res = (s?.flavorsReservation ?? s?.flavorsUsage ?? [])[0]?.resources?.find((r: any) => r.name === 'cpu');
      return res?.total;
    };
    const before = await waitForLogged('ClusterQueue usage with 2 workers', usedCpu, 30000);
    await client.mergePatch(path, { spec: { workerGroupSpecs: [{ ...rc.spec.workerGroupSpecs[0], replicas: 12, maxReplicas: 12 }] } });
    await waitForLogged('a pending slice for 12 workers (beyond the 8 CPU quota)', async () => {
      const ws = await workloadsOwnedBy(client, kueue, 'default', rc.metadata.uid);
      const w = ws.find((x) => x.spec.podSets.find((p: any) => p.name === 'workers')?.count === 12);
      return w && cond(w, 'QuotaReserved')?.status !== 'True' ? w : false;
    }, 120000);
    expect(await admittedCount(2)).toBeDefined(); // the running slice keeps its quota
    await client.mergePatch(path, { spec: { workerGroupSpecs: [{ ...rc.spec.workerGroupSpecs[0], replicas: 1, maxReplicas: 12 }] } });
    await waitForLogged('scale-down to 1 worker to be reflected in the admitted Workload', () => admittedCount(1), 120000);
    await waitForLogged('ClusterQueue usage to drop after scale-down', async () => {
      const now = await usedCpu();
      return now !== undefined && now !== before && String(now) !== String(before) ? now : false;
    }, 60000);
  }, 600000);

  test('5. elastic RayService is queued and admitted on the pairs that support it', async () => {
    if (!scenarios.includes('elastic-rayservice')) {
      const k = kueueCapabilities(kueue);
      expect(!k.elasticRayService || rayServicePair(k, kubeRayCapabilities(kubeRay)).status === 'broken').toBe(true);
      return;
    }
    const svc = await client.get('/apis/ray.io/v1/namespaces/default/rayservices/rayservice-kueue-autoscaler');
    if (kueueCapabilities(kueue).rayServiceQueueing === 'native') {
      await waitForLogged('the RayService Workload (owned by the RayService) to be admitted',
        async () => (await workloadsOwnedBy(client, kueue, 'default', svc.metadata.uid)).some(isAdmitted), 180000);
      await waitForLogged('rayClusterConfig.suspend to be cleared by Kueue',
        async () => (await client.get('/apis/ray.io/v1/namespaces/default/rayservices/rayservice-kueue-autoscaler'))
          .spec.rayClusterConfig.suspend !== true,
        60000);
    } else {
      // Before 0.17 Kueue queues the RayCluster KubeRay creates for the service (it inherits the label).
      const child = await waitForLogged('the RayService RayCluster', async () => (await rayClustersOwnedBy(client, 'default', svc.metadata.uid))[0],
        180000);
      expect(child.metadata.labels['kueue.x-k8s.io/queue-name']).toBe('ray-lq');
      await waitForLogged('the RayCluster Workload to be admitted',
        async () => (await workloadsOwnedBy(client, kueue, 'default', child.metadata.uid)).some(isAdmitted), 180000);
    }
  }, 420000);

  test('5b. fixed-size RayCluster and RayService: each admitted as one gang of exactly the counted usage, then unsuspended', async () => {
    const k = kueueCapabilities(kueue);
    const fixed: Array<[string, string]> = [['rayclusters', 'raycluster-kueue']];
    if (scenarios.includes('rayservice')) fixed.push(['rayservices', 'rayservice-kueue']);
    else expect(rayServicePair(k, kubeRayCapabilities(kubeRay)).status).toBe('broken');
    for (const [plural, name] of fixed) {
      const obj = await client.get(`/apis/ray.io/v1/namespaces/default/${plural}/${name}`);
      const synthesized = named.find((o) => o.kind === obj.kind && o.metadata.name === name);
      // Before 0.17 Kueue queues the RayCluster KubeRay creates for a RayService (it inherits the label).
      const queued = plural === 'rayservices' && k.rayServiceQueueing !== 'native'
        ? await waitForLogged(`the RayCluster of ${name}`, async () => (await rayClustersOwnedBy(client, 'default', obj.metadata.uid))[0], 180000)
        : obj;
      expect(queued.metadata.labels['kueue.x-k8s.io/queue-name']).toBe('fixed-lq');
      const wl = await waitForLogged(`the Workload of ${name} to be admitted`,
        async () => (await workloadsOwnedBy(client, kueue, 'default', queued.metadata.uid)).find(isAdmitted), 180000);
      // One Workload (no slices): the gang the library computes for this version, whole.
      expect((await workloadsOwnedBy(client, kueue, 'default', queued.metadata.uid)).length).toBe(1);
      const ours = computeGang(synthesized, k);
      expect(admittedUsage(wl)).toEqual(Object.fromEntries(ours.podSets.map((p) => [p.name, Object.fromEntries([...p.total])])));
      await waitForLogged(`${name} to be unsuspended by Kueue`, async () => {
        const now = await client.get(`/apis/ray.io/v1/namespaces/default/${plural}/${name}`);
        return (plural === 'rayclusters' ? now.spec.suspend : now.spec.rayClusterConfig.suspend) !== true;
      }, 60000);
    }
  }, 420000);

  test('6. what the library refuses at synth, applied as raw YAML, is denied by Kueue with the predicted message', async () => {
    const ctx = { kueue: kueueCapabilities(kueue), kubeRay: kubeRayCapabilities(kubeRay) };
    const raw: any = JSON.parse(JSON.stringify(createOnly('gang-scheduling')[0]));
    raw.spec.shutdownAfterJobFinishes = false;
    delete raw.spec.suspend; // only Kueue's rule is left to trip
    const predicted = RULES.rayJobShutdownAfterFinish(raw, ctx);
    expect(predicted.map((f) => f.severity)).toEqual(['error']);
    const denial = await client.create(raw).then(() => undefined, (e: KubeError) => e);
    expect(denial).toBeInstanceOf(KubeError);
    expect(denial!.message).toContain(predicted[0].message.replace(' (Kueue webhook)', ''));

    if (!ctx.kueue.elasticRayCluster) {
      // 0.13.4: an autoscaling RayCluster, which ElasticRayCluster refuses at synth.
      const rc = { apiVersion: RAY, kind: 'RayCluster', metadata: { name: 'raw-elastic', namespace: 'default',
        labels: { 'kueue.x-k8s.io/queue-name': 'user-queue' }, annotations: { 'kueue.x-k8s.io/elastic-job': 'true' } },
      spec: { enableInTreeAutoscaling: true,
        headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0' }] } } } } };
      const f = RULES.elasticNeedsKueueVersion(rc, ctx);
      expect(f[0].message).toContain('a kueue managed job should not use autoscaling');
      const e = await client.create(rc).then(() => undefined, (x: KubeError) => x);
      expect(e?.message).toContain('a kueue managed job should not use autoscaling');
    }
  }, 120000);
});
