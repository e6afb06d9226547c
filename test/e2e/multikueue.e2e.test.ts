// MultiKueue end to end (issue 13): one manager and two workers, each its own etcd, kube-apiserver, Kueue
// and KubeRay as local processes. The example app is synthesized per cluster and applied; the manager's
// kubeconfig Secrets come from scripts/multikueue-kubeconfig.sh (a real ServiceAccount token, so the
// worker's least-privilege RBAC is what the manager's Kueue really runs with). No kubelet: RayJobs never
// run, the assertions use Workloads, the worker copies and the RayCluster the worker's KubeRay creates.
//
// Pairs: E2E_MULTIKUEUE_PAIRS ("v0.19.2/v1.6.2,..."), else every buildable Kueue version with the Ray adapters
// (v0.14.8, v0.17.0, v0.19.2) with the KubeRay it is tested against; in CI a missing one is an error.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { buildMultiKueueExample } from '../../examples/multikueue';
import { errorsOf, evaluateRayObject, formatFinding, inventoryFromObjects } from '../../src/policy';
import { kubeRayCapabilities, kueueCapabilities } from '../../src/policy/versions';
import { readManifestDir, tmpdir } from '../support/synth';
import { REPO_ROOT } from '../support/upstream';
import { binary, freePort, K8S_VERSION, TestCluster } from './support/cluster';
import { FILES_MOUNT, ImageController, startImageController } from './support/image';
import { makePki } from './support/pki';
import { cond, KubeClient, objectPath, waitFor } from './support/kube';
import { BUILDABLE_KUEUE, e2ePairs } from './support/pairs';

// Every buildable Kueue version with Ray MultiKueue adapters, with the KubeRay it is tested against.
const WANTED = BUILDABLE_KUEUE.filter((k) => kueueCapabilities(k).multiKueueRayKinds.length).map((k) => `${k}/${kueueCapabilities(k).testedKubeRay}`);
const built = e2ePairs();
const pairs: Array<[string, string]> = process.env.E2E_MULTIKUEUE_PAIRS
  ? process.env.E2E_MULTIKUEUE_PAIRS.split(',').map((p) => p.trim().split('/') as [string, string])
  : built.pairs.filter(([k, r]) => WANTED.includes(`${k}/${r}`));
const missing = WANTED.filter((w) => !pairs.some(([k, r]) => `${k}/${r}` === w));
if (!process.env.E2E_MULTIKUEUE_PAIRS && missing.length) {
  const why = built.skipped ?? `the binaries of ${missing.join(', ')} are not built (scripts/testcluster/build.sh)`;
  if (process.env.CI) throw new Error(`MultiKueue e2e cannot run in CI: ${why}`);
  process.stdout.write(`[e2e multikueue] not run for ${missing.join(', ')}: ${why}\n`);
}

const RAY = 'ray.io/v1';
const WORKERS = ['worker-1', 'worker-2'];

const resources = { requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '1', memory: '2Gi' } };
/** A fixed-size RayCluster spec (the library's Ray cluster constructs are elastic, and MultiKueue cannot follow an autoscaler). */
function clusterSpec(): any {
  const template = (name: string) => ({ spec: { containers: [{ name, image: 'rayproject/ray:2.46.0', resources }] } });
  return {
    rayVersion: '2.46.0', headGroupSpec: { rayStartParams: {}, template: template('ray-head') },
    workerGroupSpecs: [{ groupName: 'small-group', replicas: 1, minReplicas: 1, maxReplicas: 1, rayStartParams: {},
      template: template('ray-worker') }],
  };
}
const queued = (kind: string, name: string, spec: any) => ({
  apiVersion: 'ray.io/v1', kind, metadata: { name, namespace: 'default', labels: { 'kueue.x-k8s.io/queue-name': 'user-queue' } }, spec,
});


/** The cluster's admin kubeconfig with its names renamed to `name`, so several merge into one KUBECONFIG. */
function namedKubeconfig(cluster: TestCluster, name: string, dir: string): string {
  const text = fs.readFileSync(cluster.kubeconfig, 'utf8')
    .replace(/current-context: e2e$/m, `current-context: ${name}`)
    .replace(/- name: e2e-admin$/m, `- name: ${name}-admin`).replace(/user: e2e-admin$/m, `user: ${name}-admin`)
    .replace(/- name: e2e$/gm, `- name: ${name}`).replace(/cluster: e2e$/m, `cluster: ${name}`);
  const file = path.join(dir, `${name}.kubeconfig`);
  fs.writeFileSync(file, text, { mode: 0o600 });
  return file;
}

const describePairs = pairs.length ? describe.each(pairs) : describe.skip.each([['-', '-']]);

describePairs('MultiKueue e2e on Kueue %s + KubeRay %s', (kueue, kubeRay) => {
  const clusters: Record<string, TestCluster> = {};
  let manager: KubeClient;
  /** The project's controller (the shipped image) on the manager: its reconciler reports on the manager's workloads. */
  let controller: ImageController | undefined;
  const events = async (name: string) => (await manager.list('v1', 'Event', 'default'))
    .filter((e) => e.involvedObject?.name === name && e.source?.component === 'cdk8s-kueue-ray-controller');
  const wlApi = () => `kueue.x-k8s.io/${kueueCapabilities(kueue).apiVersion.split('/')[1]}`;
  const timings: Record<string, number> = {};
  // The steps build on each other: after a failed one the rest fail at once instead of waiting out their timeouts.
  let failedStep: string | undefined;
  const step = (name: string, fn: () => Promise<void>, ms: number) => test(name, async () => {
    if (failedStep) throw new Error(`not run: step "${failedStep}" failed`);
    try {
      await fn();
    } catch (e) {
      failedStep = name;
      throw e;
    }
  }, ms);
  const logs = () => Object.entries(clusters).map(([n, c]) => `=== ${n}\n${c.logTails(30)}`).join('\n');
  const waitLogged = <T>(what: string, fn: () => Promise<T | undefined | false>, ms = 120000): Promise<T> =>
    waitFor(what, fn, ms, 500).catch((e: Error) => { throw new Error(`${e.message}\n--- process logs ---\n${logs()}`); });

  // The example, synthesized to disk and read back (what `kubectl apply` of dist/ would send).
  const outdir = tmpdir();
  if (kueue !== '-') {
    const ex = buildMultiKueueExample({ outdir, kueue, kubeRay });
    for (const app of [ex.manager, ...Object.values(ex.workers)]) app.synth();
  }
  const dist = (rel: string) => Object.values(readManifestDir(path.join(outdir, rel))).flat();
  const rank = (o: any) => (o.kind === 'Namespace' || o.kind === 'ServiceAccount' ? 0 : o.kind === 'LocalQueue' ? 2 : o.kind === 'RayJob' ? 3 : 1);
  const applyAll = async (client: KubeClient, objs: any[]) => { for (const o of [...objs].sort((a, b) => rank(a) - rank(b))) await client.apply(o); };

  beforeAll(async () => {
    // One after the other: three control planes starting together on 2 cores time out.
    for (const name of ['manager', ...WORKERS]) {
      const t = Date.now();
      clusters[name] = await TestCluster.start({ kueue, kubeRay });
      timings[name] = (Date.now() - t) / 1000;
    }
    manager = clusters.manager.client;
    process.stdout.write(`[e2e multikueue] started manager + ${WORKERS.length} `
      + `workers: ${Object.entries(timings).map(([n, s]) => `${n} ${s.toFixed(1)} s`).join(', ')}\n`);
  }, 900000);

  afterAll(async () => {
    const code = await controller?.stop();
    if (controller) expect(code).toBe(0);
    const pids = Object.values(clusters).flatMap((c) => c.pids());
    for (const c of Object.values(clusters)) await c.stop();
    const leaked = pids.filter((pid) => { try { process.kill(pid, 0); return true; } catch { return false; } });
    expect(leaked).toEqual([]);
  }, 120000);

  step('1. workers get their queues and RBAC; the script makes the manager\'s Secrets; the MultiKueue check turns Active', async () => {
    for (const w of WORKERS) await applyAll(clusters[w].client, dist(`workers/${w}`));
    // kubectl of the test control plane's version, named kubectl for the script.
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'mk-kubectl-'));
    fs.symlinkSync(binary(`kubectl-${K8S_VERSION}`), path.join(bin, 'kubectl'));
    const kdir = fs.mkdtempSync(path.join(os.tmpdir(), 'mk-kubeconfig-'));
    const files = Object.entries(clusters).map(([n, c]) => namedKubeconfig(c, n, kdir));
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, KUBECONFIG: files.join(':') };
    for (const w of WORKERS) {
      const out = execFileSync(path.join(REPO_ROOT, 'scripts', 'multikueue-kubeconfig.sh'),
        ['--worker-context', w, '--manager-context', 'manager', '--cluster', w, '--duration', '2h'], { env, encoding: 'utf8' });
      expect(out).toContain(`Secret kueue-system/multikueue-${w}`);
      expect(out).not.toMatch(/eyJ/); // no token on stdout
    }
    // dry-run shows the Secret's shape without a credential
    const dry = execFileSync(path.join(REPO_ROOT, 'scripts', 'multikueue-kubeconfig.sh'),
      ['--worker-context', 'worker-1', '--manager-context', 'manager', '--cluster', 'worker-1', '--dry-run'], { env, encoding: 'utf8' });
    expect(dry).toContain('<redacted>');
    expect(dry).not.toMatch(/eyJ/);
    fs.rmSync(kdir, { recursive: true, force: true });
    await applyAll(manager, [...dist('manager').filter((o) => o.kind !== 'RayJob')]);
    await waitLogged('every MultiKueueCluster Active', async () => {
      const cs = await manager.list(wlApi(), 'MultiKueueCluster');
      return cs.length === WORKERS.length && cs.every((c) => cond(c, 'Active')?.status === 'True');
    });
    await waitLogged('the AdmissionCheck Active', async () => cond(await manager.get(objectPath({ apiVersion: wlApi(), kind: 'AdmissionCheck',
      metadata: { name: 'multikueue' } })), 'Active')?.status === 'True');
    // Our controller on the manager, as the AdmissionController construct deploys it (reconciler on).
    await manager.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cdk8s-kueue-ray-system' } });
    const pki = makePki(path.join(tmpdir(), 'mk-serving'));
    controller = await startImageController({
      name: `mk-${kueue}`,
      args: ['controller', `--kueue-version=${kueue}`, `--kuberay-version=${kubeRay}`, '--namespace=cdk8s-kueue-ray-system',
        `--kubeconfig=${FILES_MOUNT}/kubeconfig`,
        `--tls-cert-file=${FILES_MOUNT}/tls.crt`, `--tls-key-file=${FILES_MOUNT}/tls.key`, '--host=127.0.0.1', `--port=${await freePort()}`],
      files: { kubeconfig: fs.readFileSync(clusters.manager.kubeconfig), 'tls.crt': fs.readFileSync(pki.servingCrt),
        'tls.key': fs.readFileSync(pki.servingKey) },
      env: { POD_NAME: 'mk-manager' },
    });
    await controller.waitForLog(/"msg":"reconciler started"/, 60000);
  }, 300000);

  const jobs = () => dist('manager').filter((o) => o.kind === 'RayJob');
  // The manager's inventory as the webhook and check/plan read it back from its objects.
  const policyContext = () => {
    const objs = dist('manager');
    const of = (kind: string) => objs.filter((o) => o.kind === kind);
    const inventory = inventoryFromObjects(
      { localQueues: of('LocalQueue'), clusterQueues: of('ClusterQueue'), cohorts: [], priorityClasses: of('WorkloadPriorityClass'), namespaces: [] },
      { admissionChecks: of('AdmissionCheck'), multiKueueConfigs: of('MultiKueueConfig') },
    );
    return { kueue: kueueCapabilities(kueue), kubeRay: kubeRayCapabilities(kubeRay), inventory };
  };
  const workloadOf = async (name: string) => (await manager.list(wlApi(), 'Workload',
    'default')).find((w) => (w.metadata.ownerReferences ?? []).some((o: any) => o.name === name));
  const clusterOf = (wl: any) => wl?.status?.clusterName as string | undefined;

  step('2. a RayJob goes to a worker with room; its KubeRay creates the RayCluster; the manager\'s Workload names the worker; the '
    + 'manager runs nothing', async () => {
    const [a] = jobs();
    await manager.apply(a);
    const wl = await waitLogged('the manager Workload dispatched',
      async () => { const w = await workloadOf(a.metadata.name); return clusterOf(w) ? w : false; });
    const worker = clusterOf(wl)!;
    expect(WORKERS).toContain(worker);
    expect((wl.status.admissionChecks ?? []).find((c: any) => c.name === 'multikueue')?.state).toBe('Ready');
    const wc = clusters[worker].client;
    await waitLogged(`the RayCluster on ${worker}`, async () => (await wc.list(RAY, 'RayCluster', 'default')).length === 1);
    const copy = await wc.get(objectPath(a));
    expect(copy.spec.managedBy).toBeUndefined(); // cleared on the worker, so its KubeRay runs it
    // The manager's KubeRay leaves the original alone: no RayCluster there.
    expect(await manager.list(RAY, 'RayCluster', 'default')).toEqual([]);
    // The reconciler on the manager says where it runs.
    await waitLogged('the KueueAdmitted Event naming the worker', async () => (await events(a.metadata.name))
      .some((e) => e.reason === 'KueueAdmitted' && e.message.includes(`dispatched by MultiKueue to worker cluster ${worker}`)), 60000);
  }, 300000);

  step('3. with that worker full the next RayJob goes to the other worker', async () => {
    const [a, b] = jobs();
    const first = clusterOf(await workloadOf(a.metadata.name));
    await manager.apply(b);
    const wl = await waitLogged('the second Workload dispatched',
      async () => { const w = await workloadOf(b.metadata.name); return clusterOf(w) ? w : false; });
    expect(clusterOf(wl)).not.toBe(first);
    await waitLogged('its RayCluster on the other worker',
      async () => (await clusters[clusterOf(wl)!].client.list(RAY, 'RayCluster', 'default')).length === 1);
  }, 300000);

  step('4. with neither worker having room a third RayJob stays pending on the manager, its check not Ready', async () => {
    const [a] = jobs();
    const third = { ...JSON.parse(JSON.stringify(a)), metadata: { ...a.metadata, name: 'mk-job-3' } };
    await manager.apply(third);
    const wl = await waitLogged('the third Workload to hold quota on the manager',
      async () => { const w = await workloadOf('mk-job-3'); return cond(w, 'QuotaReserved')?.status === 'True' ? w : false; });
    await new Promise((r) => setTimeout(r, 10000)); // time for a (wrong) dispatch
    const again = await workloadOf('mk-job-3');
    expect(clusterOf(again)).toBeUndefined();
    expect(cond(again, 'Admitted')?.status).not.toBe('True');
    const check = (again.status.admissionChecks ?? []).find((c: any) => c.name === 'multikueue');
    expect(check?.state).toBe('Pending');
    process.stdout.write(`[e2e multikueue] pending on the manager: ${JSON.stringify({ admitted: cond(again, 'Admitted'), check })}\n`);
    // The reconciler's Event on the manager says why it waits.
    const ev = await waitLogged('the KueueAdmissionCheckPending Event on the third job', async () => (await events('mk-job-3'))
      .find((e) => e.reason === 'KueueAdmissionCheckPending'), 60000);
    expect(ev.message).toMatch(/waits for admission check multikueue \(Pending.*MultiKueue dispatches it once a worker cluster admits it/);
    expect((await manager.get(objectPath(third))).spec.suspend).toBe(true);
    expect(wl.metadata.name).toBeTruthy();
  }, 300000);

  step('5. deleting a RayJob on the manager removes its copy on the worker', async () => {
    const [a] = jobs();
    const worker = clusterOf(await workloadOf(a.metadata.name))!;
    await manager.delete(objectPath(a));
    await waitLogged(`the copy on ${worker} gone`, async () => (await clusters[worker].client.getOrUndefined(objectPath(a))) === undefined);
    // the freed worker now takes the pending third job
    await waitLogged('the third RayJob dispatched to the freed worker', async () => clusterOf(await workloadOf('mk-job-3')) === worker);
  }, 300000);
  step('6. a RayCluster (managedBy MultiKueue, which the policy requires) is dispatched; deleting it removes the copy', async () => {
    for (const j of await manager.list(RAY, 'RayJob', 'default')) await manager.delete(objectPath(j));
    await waitLogged('the workers free of RayJobs', async () => {
      for (const w of WORKERS) if ((await clusters[w].client.list(RAY, 'RayJob', 'default')).length) return false;
      return true;
    });
    const rc = queued('RayCluster', 'mk-cluster', { ...clusterSpec(), managedBy: 'kueue.x-k8s.io/multikueue' });
    expect(errorsOf(evaluateRayObject(rc, policyContext())).map(formatFinding)).toEqual([]);
    expect(errorsOf(evaluateRayObject({ ...rc, spec: clusterSpec() }, policyContext())).map(formatFinding).join('\n')).toMatch(/Expecting spec.managedBy/);
    await manager.create(rc);
    const wl = await waitLogged('the RayCluster dispatched',
      async () => { const w = await workloadOf('mk-cluster'); return clusterOf(w) ? w : false; });
    const wc = clusters[clusterOf(wl)!].client;
    await waitLogged('the copy admitted on the worker (unsuspended, KubeRay made its head pod)', async () => {
      const copy = await wc.getOrUndefined(objectPath(rc));
      return copy && copy.spec.suspend !== true
        && (await wc.list('v1', 'Pod', 'default')).some((p) => p.metadata.labels?.['ray.io/cluster'] === 'mk-cluster');
    });
    expect((await manager.list('v1', 'Pod', 'default')).filter((p) => p.metadata.labels?.['ray.io/cluster'] === 'mk-cluster')).toEqual([]);
    await manager.delete(objectPath(rc));
    await waitLogged('the RayCluster copy gone', async () => (await wc.getOrUndefined(objectPath(rc))) === undefined);
  }, 300000);

  const rayService = kueue !== '-' && kueueCapabilities(kueue).multiKueueRayKinds.includes('RayService')
    && kubeRayCapabilities(kubeRay).rayServiceManagedBy;
  if (!rayService) {
    step('7. a RayService where MultiKueue or KubeRay cannot dispatch it is refused by the policy, naming the version', async () => {
      const svc = queued('RayService', 'mk-service',
        { managedBy: 'kueue.x-k8s.io/multikueue', rayClusterConfig: clusterSpec(), serveConfigV2: 'applications: []' });
      expect(errorsOf(evaluateRayObject(svc, policyContext())).map(formatFinding).join('\n')).toMatch(/v0\.17\.0|v1\.6\.0/);
    }, 60000);
  }
  // Only where it can dispatch; elsewhere the step above asserts the refusal.
  const dispatchStep = rayService ? step : ((() => undefined) as typeof step);
  dispatchStep('7. a RayService (Kueue >= 0.17, KubeRay >= 1.6) is dispatched; the worker\'s KubeRay creates its RayCluster; deleting '
    + 'it removes the copy', async () => {
    const svc = queued('RayService', 'mk-service', {
      managedBy: 'kueue.x-k8s.io/multikueue', rayClusterConfig: clusterSpec(),
      serveConfigV2: 'applications:\n  - name: app\n    import_path: app:deployment\n    route_prefix: /\n',
    });
    expect(errorsOf(evaluateRayObject(svc, policyContext())).map(formatFinding)).toEqual([]);
    await manager.create(svc);
    const wl = await waitLogged('the RayService dispatched',
      async () => { const w = await workloadOf('mk-service'); return clusterOf(w) ? w : false; });
    const wc = clusters[clusterOf(wl)!].client;
    await waitLogged('the worker\'s KubeRay created the RayService\'s RayCluster', async () => {
      const copy = await wc.getOrUndefined(objectPath(svc));
      return copy && (await wc.list(RAY, 'RayCluster',
        'default')).some((c) => (c.metadata.ownerReferences ?? []).some((o: any) => o.uid === copy.metadata.uid));
    });
    expect(await manager.list(RAY, 'RayCluster', 'default')).toEqual([]);
    await manager.delete(objectPath(svc));
    await waitLogged('the RayService copy gone', async () => (await wc.getOrUndefined(objectPath(svc))) === undefined);
  }, 300000);
});
