// The Ray docs guide on real Ray: the examples app (scaled to this node, EXAMPLES_CPU_SCALE=0.1, and a
// short toy loop) on a one-node cluster whose every component runs as a pod, with Ray's own image built
// here (scripts/ray-image). Each test does what the guide shows a person at a terminal: `kubectl create`
// the jobs, watch Kueue and KubeRay, read the job's output.
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import * as path from 'path';
import { promisify } from 'util';
import { App, Chart } from 'cdk8s';
import { stringify } from 'yaml';
import { KubeRayVersion, KueueRayVersions, KueueVersion, Quantity, ResourceFlavor, ResourceName, TenantQueue } from '../../src';
import { DEFAULT_KUBERAY_VERSION, DEFAULT_KUEUE_VERSION } from '../../src/policy/versions';
import { nodeImages, prometheusModuleVersion, prometheusOperatorVersion, rayImages } from '../../scripts/cluster/images';
import { K8S_VERSION, NodeCluster, NodeState } from '../../scripts/cluster/node-cluster';
import { applyArgv } from '../support/apply-cli';
import { readManifestDir, tmpdir } from '../support/synth';
import { REPO_ROOT } from '../support/upstream';
import { KubeClient, waitFor } from '../e2e/support/kube';
import { busyTasksScript, ElasticRayClusterScenario } from '../../examples/elastic-raycluster';
import { NodeScale } from '../../examples/node-scale';
import { describeOnNode, nodeKubectl } from './support';
import { promApi, promQuery } from './prometheus';
import {
  dashboardTargets, deployPrometheus, findChromium, guideDashboard, hasData, prometheusManifest, rangeQuery, renderDashboard, seen,
} from './guide-observability';
import { ElasticWatch, RayWatch } from './ray-watch';
import { diagnosed } from './job-diagnosis';

const run = promisify(execFile);
const NAME = `guide-${process.pid}`;
const KUEUE = DEFAULT_KUEUE_VERSION;
const KUBERAY = DEFAULT_KUBERAY_VERSION;
const GUIDE_CPU_SCALE = '0.1';
const ITERATIONS = 15;
const RAY = 'ray.io/v1';
/** The pending alert's threshold (EXAMPLES_OBSERVABILITY): short, so it fires while the gang's second job waits (about 55 s). */
const PENDING_SECONDS = '15';
/** Where the dashboard's page and screenshot are written. */
const OUTPUT_DIR = process.env.E2E_OUTPUT_DIR ?? path.join(REPO_ROOT, 'test-output', 'guide');
const chromium = findChromium();
if (!chromium && process.env.CI) throw new Error('CI needs chromium for the guide\'s dashboard screenshot (.ci/run installs it with apt-get)');
/** A JSON POST from the host, through the Service's cluster IP (the host routes the Service range into the node). */
function post(url: string, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
      timeout: 30000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text.trim() }));
    });
    req.on('timeout', () => req.destroy(new Error(`POST ${url}: no answer in 30 s`)));
    req.on('error', reject);
    req.end(data);
  });
}

/**
 * `post`, once the Service routes: a RayService turns Ready when Serve answers on the head, while the Service's
 * path to it (EndpointSlice, kube-proxy's rules, the node's neighbour entry) may converge a moment later: a
 * warm CI run met EHOSTUNREACH right after Ready. Connection errors are tried again for up to 30 s (the wait is
 * printed); any answer, right or wrong, is returned at once.
 */
async function postOnceRoutable(url: string, body: unknown): Promise<{ status: number; body: string }> {
  const t0 = Date.now();
  for (;;) {
    try {
      const r = await post(url, body);
      if (Date.now() - t0 > 1000) process.stdout.write(`[guide] ${url} routable after ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
      return r;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? '';
      if (!['EHOSTUNREACH', 'ECONNREFUSED', 'ECONNRESET', 'ENETUNREACH'].includes(code) || Date.now() - t0 > 30000) throw e;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** The tenant of test 3b: the guide's elastic quota (8 CPU, 16 GiB at the guide's scale) as a TenantQueue of its own. */
const TENANT_NS = 'team-e';

/** Test 3b's objects as the constructs synthesize them: the TenantQueue (its namespace, queues, webhooks' labels) and the guide's elastic RayCluster on it. */
function tenantElastic(): { tenant: any[]; cluster: any[] } {
  const app = new App({ outdir: tmpdir() });
  KueueRayVersions.use(app, { kueue: KueueVersion.of(KUEUE), kubeRay: KubeRayVersion.of(KUBERAY) });
  const scale = NodeScale.of(Number(GUIDE_CPU_SCALE));
  const chart = new Chart(app, 'tenant-elastic-queues');
  const flavor = new ResourceFlavor(chart, 'tenant-elastic-flavor');
  // manageAllWorkloads: false: the Kueue of this node is the guide's (its Configuration manages no namespace whole).
  const tenant = new TenantQueue(chart, TENANT_NS, { namespace: TENANT_NS, manageAllWorkloads: false, resourceGroups: [{ flavors: [{ flavor, quotas: [
    { resource: ResourceName.CPU, nominalQuota: scale.cpu(8) }, { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(16) },
  ] }] }] });
  const cluster = new ElasticRayClusterScenario(app, 'tenant-elastic-raycluster', tenant, scale);
  return { tenant: chart.toJson(), cluster: cluster.toJson() };
}

const describeNode = describeOnNode('guide', [`kubelet-${K8S_VERSION}`, `kueue-${KUEUE}`, `kuberay-operator-${KUBERAY}`,
  `prometheus-${prometheusModuleVersion()}`, `prometheus-operator-${prometheusOperatorVersion()}`,
  `prometheus-config-reloader-${prometheusOperatorVersion()}`]);

describeNode(`the guide on real Ray 2.46.0 (Kueue ${KUEUE} + KubeRay ${KUBERAY}, CPU x${GUIDE_CPU_SCALE})`, () => {
  let node: NodeState;
  let client: KubeClient;
  let base: string;
  let scenarios: string;
  let prom: string;
  let observability: ReturnType<typeof prometheusManifest>;
  const startedAt = Date.now() / 1000;
  /** What /api/v1/alerts answered while the pending alert fired (test 1), for the dashboard page. */
  let firingAlerts: Array<Record<string, string>> = [];
  const { env, kubectl } = nodeKubectl(() => node);
  /** The running test's watches, whose summaries a failure carries with the namespace's state (job-diagnosis.ts). */
  const watches: Array<RayWatch | ElasticWatch> = [];
  const scenario = (body: () => Promise<void>) => diagnosed(() => client, kubectl, 'default', watches, body);
  const synth = async (out: string, examples: string, extra: NodeJS.ProcessEnv = {}) => run('npx',
    ['cdk8s', 'synth', '--no-check-upgrade', '--output', out], {
      cwd: REPO_ROOT, env: { ...process.env, KUEUE_VERSION: KUEUE, KUBERAY_VERSION: KUBERAY, EXAMPLES: examples, EXAMPLES_CPU_SCALE: GUIDE_CPU_SCALE,
        TOY_ITERATIONS: String(ITERATIONS), EXAMPLES_SERVE_APPS: 'configmap', ...extra },
    });
  /** `kubectl create -f` of these objects (written to a file, as a person would save them); the created names. */
  const create = async (objs: any[]): Promise<string[]> => {
    const f = path.join(scenarios, `create-${Date.now()}.yaml`);
    fs.writeFileSync(f, objs.map((o) => stringify(o)).join('---\n'));
    return (await kubectl('create', '-f', f, '-o', 'name')).trim().split('\n').map((n) => n.replace(/^[^/]+\//, ''));
  };
  const createFile = (chart: string) => readManifestDir(path.join(scenarios, 'create'))[chart];
  const jobOutput = async (job: string) => kubectl('logs', '-l', `batch.kubernetes.io/job-name=${job}`, '--tail=-1').catch(() => '');
  const scenarioFile = (suffix: string) => {
    const files = readManifestDir(scenarios);
    return path.join(scenarios, `${Object.keys(files).find((k) => k.endsWith(suffix))}.k8s.yaml`);
  };
  /** What an operator would `kubectl patch`: ray-cq's CPU quota. */
  const setQuota = (cpu: string) => kubectl('patch', 'clusterqueue', 'ray-cq', '--type=json', '-p',
    JSON.stringify([{ op: 'replace', path: '/spec/resourceGroups/0/flavors/0/resources/0/nominalQuota', value: cpu }]));
  const readyHead = (cluster: string) => waitFor(`${cluster}'s head Running and ready`,
    async () => (await client.list('v1', 'Pod', 'default', `ray.io/cluster=${cluster},ray.io/node-type=head`))
      .find((p) => p.status?.phase === 'Running' && (p.status.containerStatuses ?? []).every((c: any) => c.ready)), 400000, 1000);
  const onHead = (head: any, ...args: string[]) => kubectl('exec', head.metadata.name, '-c', head.spec.containers[0].name, '--', ...args);
  // `ray job submit -- python -c <script>`: each word its own argument (Ray quotes every one).
  const submitOnHead = (head: any, id: string, script: string) => onHead(head, 'ray', 'job', 'submit', '--address', 'http://127.0.0.1:8265', '--submission-id', id, '--no-wait', '--', 'python', '-c', script);
  const jobLogsOnHead = (head: any, id: string) => onHead(head, 'ray', 'job', 'logs', '--address', 'http://127.0.0.1:8265', id).catch(() => '');

  beforeAll(async () => {
    process.on('exit', () => { try { NodeCluster.down(NAME); } catch { /* reported by the next run's reaping */ } });
    node = await NodeCluster.up(NAME,
      { images: [...nodeImages([KUEUE], [KUBERAY], { prometheus: true }), ...rayImages(['2.46.0'])], owner: process.pid, log: () => undefined });
    process.stdout.write(`[guide] node up in ${node.timings.total.toFixed(1)} s\n`);
    client = KubeClient.fromKubeconfig(node.kubeconfig);
    // The installs, the guide's queues and the controller, applied as the README applies dist/; each
    // scenario's objects are created by its test, as the guide does.
    base = tmpdir();
    scenarios = tmpdir();
    // With QueueObservability (EXAMPLES_OBSERVABILITY): Kueue's ClusterQueue resource metrics on, and the chart's
    // ServiceMonitors and PrometheusRule, which prometheus-operator configures Prometheus from below.
    await synth(base, 'queues', { EXAMPLES_OBSERVABILITY: PENDING_SECONDS });
    await synth(scenarios, 'queues,gang-scheduling,priority,failing-job,elastic-raycluster,elastic-rayservice');
    const obsFile = Object.keys(readManifestDir(base)).find((k) => k.endsWith('-observability'))!;
    const obsChart = readManifestDir(base)[obsFile];
    fs.renameSync(path.join(base, `${obsFile}.k8s.yaml`), path.join(scenarios, 'observability.yaml'));
    await run(process.execPath, applyArgv([base]), { cwd: REPO_ROOT, env: env(), maxBuffer: 64 * 1024 * 1024 });
    const t0 = Date.now();
    ({ prom, manifest: observability } = await deployPrometheus(obsChart, client, kubectl, scenarios));
    process.stdout.write(`[guide] Prometheus up, every target scraped, in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  }, 900000);

  afterAll(() => {
    client?.close();
    if (process.env.E2E_KEEP_NODE) {
      process.stdout.write(`[guide] kept: KUBECONFIG=${node?.kubeconfig}\n`);
      return;
    }
    NodeCluster.down(NAME);
    for (const d of [base, scenarios]) if (d) fs.rmSync(d, { recursive: true, force: true });
  }, 120000);

  // Each scenario starts from an empty queue: every Ray object deleted and its pods gone.
  afterEach(async () => {
    if (!client) return;
    for (const kind of ['RayService', 'RayJob', 'RayCluster']) {
      for (const o of await client.list(RAY, kind,
        'default')) await client.delete(`/apis/ray.io/v1/namespaces/default/${kind.toLowerCase()}s/${o.metadata.name}`);
    }
    await waitFor('the scenario\'s Ray pods to be gone',
      async () => (await client.list('v1', 'Pod', 'default', 'ray.io/is-ray-node=yes')).length === 0, 180000, 1000);
  }, 240000);

  test('1. gang: one toy job runs to SUCCEEDED while the other has no pods; KubeRay deletes its cluster, then Kueue admits the second, '
    + 'which also SUCCEEDS', scenario(async () => {
    const watch = new RayWatch(client, 'default', 'cluster-queue');
    watches.push(watch);
    // The pending alert of the guide's ClusterQueue, read from Prometheus every 2 s: when it fires, and when it is gone.
    const pendingAlert = 'ALERTS{alertname="KueueRayWorkloadsPending",cluster_queue="cluster-queue"}';
    const alert: { firing?: number; resolved?: number; states: string[] } = { states: [] };
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const states = (await promQuery(prom, pendingAlert).catch(() => [])).map((r) => r.metric.alertstate);
        const state = states.includes('firing') ? 'firing' : states.includes('pending') ? 'pending' : 'none';
        if (alert.states[alert.states.length - 1] !== state) alert.states.push(state);
        if (state === 'firing' && alert.firing === undefined) {
          alert.firing = watch.now();
          firingAlerts = (await promApi(prom, '/api/v1/alerts')).alerts.filter((a: any) => a.state === 'firing').map((a: any) => ({
            alert: a.labels.alertname, state: a.state, cluster_queue: a.labels.cluster_queue ?? '', severity: a.labels.severity ?? '',
            activeAt: a.activeAt, value: a.value, summary: a.annotations.summary ?? '' }));
        }
        if (state === 'none' && alert.firing !== undefined && alert.resolved === undefined) alert.resolved = watch.now();
        await new Promise((r) => setTimeout(r, 2000));
      }
    })();
    try {
      const names = await create(createFile('gang-scheduling'));
      expect(names).toHaveLength(2);
      const [a, b] = names.map((n) => watch.watch(n));
      const first = await waitFor('one toy job admitted, its head and worker Running',
        async () => [a, b].find((r) => r.at['head Running'] && r.at['worker Running']), 300000, 1000);
      const second = first === a ? b : a;
      // The guide's `kubectl get clusterqueues`: 1 reserving, 1 pending, while the first runs.
      expect(watch.queueSteps()).toContain('1 reserving, 1 pending');
      expect(second.at.admitted).toBeUndefined();
      expect(second.runningPods.size).toBe(0);
      expect((await client.list('v1', 'Pod', 'default')).filter((p) => JSON.stringify(p.metadata).includes(second.name))).toEqual([]);
      // The job's output (the submitter's `ray job logs --follow`) shows the loop's progress.
      await waitFor('the toy loop\'s progress in the job output', async () => /iter: 1, ray\.cluster_resources\(\): \{.*'CPU': 2\.0/.test(await jobOutput(first.name)), 240000, 2000);
      await waitFor('the first job SUCCEEDED', async () => first.statuses.includes('SUCCEEDED'), 300000, 1000);
      // shutdownAfterJobFinishes: KubeRay deletes the first job's cluster; Kueue then admits the second.
      await waitFor('the first job\'s RayCluster deleted',
        async () => !(await client.getOrUndefined(`/apis/ray.io/v1/namespaces/default/rayclusters/${first.clusters[0]}`)), 180000, 1000);
      await waitFor('the second job admitted and Running', async () => second.at['head Running'] && second.at['worker Running'], 300000, 1000);
      expect(second.at.admitted).toBeGreaterThanOrEqual(first.at.SUCCEEDED);
      // The pending alert (threshold ${PENDING_SECONDS} s) fired while the second job waited, and is gone once it was admitted.
      expect(alert.firing).toBeLessThan(second.at.admitted);
      await waitFor('the pending alert resolved', async () => alert.resolved, 60000, 1000);
      expect(alert.resolved).toBeGreaterThanOrEqual(second.at.admitted);
      expect(firingAlerts.find((a) => a.alert === 'KueueRayWorkloadsPending')).toMatchObject({ cluster_queue: 'cluster-queue', severity: 'warning' });
      await waitFor('the second job SUCCEEDED', async () => second.statuses.includes('SUCCEEDED'), 300000, 1000);
      // The queue read as the guide shows at each step: both waiting, then 1 and 1, then 1 and 0.
      const steps = watch.queueSteps();
      expect(steps.indexOf('1 reserving, 0 pending')).toBeGreaterThan(steps.indexOf('1 reserving, 1 pending'));
      for (const r of [first, second]) {
        expect(r.statuses).toEqual(expect.arrayContaining(['RUNNING', 'SUCCEEDED']));
        expect(r.statuses).not.toContain('FAILED');
      }
    } finally {
      polling = false;
      await poller;
      await watch.stop();
      process.stdout.write(`[guide] gang timeline\n${watch.timeline()}\nqueue: ${watch.queueSteps().join(' -> ')}\n`
        + `pending alert: ${alert.states.join(' -> ')}, firing at ${alert.firing?.toFixed(1)}, resolved at ${alert.resolved?.toFixed(1)}\n`);
    }
  }), 1200000);

  test('2. priority: a prod job preempts the running dev job; KubeRay deletes dev\'s pods after the graceful-preemption grace, prod SUCCEEDS, then '
    + 'dev runs again and SUCCEEDS', scenario(async () => {
    const watch = new RayWatch(client, 'default', 'cluster-queue');
    watches.push(watch);
    const [devObj, prodObj] = createFile('priority');
    expect(devObj.metadata.labels['kueue.x-k8s.io/priority-class']).toBe('dev-priority');
    try {
      const [devName] = await create([devObj]);
      const dev = watch.watch(devName);
      await waitFor('the dev job Running', async () => dev.at['head Running'] && dev.at['worker Running'] && dev.statuses.includes('RUNNING'), 300000,
        1000);
      const devPods = await client.list('v1', 'Pod', 'default', `ray.io/cluster=${dev.clusters[0]}`);
      // The controller's graceful-preemption defaults (kuberay#5004), as the examples app sets them.
      const head = devPods.find((p) => p.metadata.labels['ray.io/node-type'] === 'head');
      expect(head.spec.terminationGracePeriodSeconds).toBe(60);
      expect(JSON.stringify(head.spec.containers[0].lifecycle?.preStop)).toMatch(/sleep/);
      // Ray's raylet logs "received SIGTERM" when the signal reaches it, a second or two before its container
      // exits. One `kubectl exec` follows the log from before the preemption (tail -F) and returns that line as
      // it is written: a fresh exec every second, as this read before, could fall outside that window on a
      // loaded machine. An exec that ends without it (the container gone) is tried again until the pods are.
      let sigterm = '';
      let stopRead = false;
      const follow = () => kubectl('exec', head.metadata.name, '-c', head.spec.containers[0].name, '--', 'bash', '-c',
        'tail -n +1 -F /tmp/ray/session_latest/logs/raylet.out 2>/dev/null | grep -m1 SIGTERM')
        .catch((e) => String((e as { stdout?: string }).stdout ?? ''));
      const reader = (async () => {
        while (!stopRead && !sigterm.includes('SIGTERM')) {
          sigterm = await follow();
          if (!sigterm.includes('SIGTERM')) await new Promise((r) => setTimeout(r, 1000));
        }
      })();
      const [prodName] = await create([prodObj]);
      const prod = watch.watch(prodName);
      const evictedAt = await waitFor('dev evicted by Kueue', async () => dev.at.evicted, 120000, 500);
      const gone = await waitFor('dev\'s pods deleted by KubeRay', async () => {
        const left = await client.list('v1', 'Pod', 'default', `ray.io/cluster=${dev.clusters[0]}`);
        return left.length === 0 ? watch.now() : false;
      }, 180000, 500);
      stopRead = true;
      await reader;
      const drain = gone - evictedAt;
      process.stdout.write(`[guide] preemption: eviction -> dev pods gone ${drain.toFixed(1)} s (preStop 20 s, grace 60 s); `
        + `raylet: ${sigterm.trim() || '(no SIGTERM line read)'}\n`);
      // The grace was honoured: the pods outlived the 20 s preStop, and were gone before the 60 s grace ran out.
      expect(drain).toBeGreaterThanOrEqual(20);
      expect(drain).toBeLessThan(90);
      // Ray 2.46's raylet: "received SIGTERM ... Raylet graceful shutdown triggered, reason = EXPECTED_TERMINATION".
      expect(sigterm).toMatch(/received SIGTERM/);
      await waitFor('prod SUCCEEDED', async () => prod.statuses.includes('SUCCEEDED'), 400000, 1000);
      expect(prod.at['head Running']).toBeGreaterThan(evictedAt);
      await waitFor('dev admitted again and SUCCEEDED', async () => dev.statuses.includes('SUCCEEDED'), 400000, 1000);
      expect(dev.clusters.length).toBe(2);
      expect(dev.at.SUCCEEDED).toBeGreaterThan(prod.at.SUCCEEDED);
    } finally {
      await watch.stop();
      process.stdout.write(`[guide] priority timeline\n${watch.timeline()}\n`);
    }
  }), 1500000);

  test('3. elastic RayCluster: under busy tasks the autoscaler\'s scale-up is a Workload slice Kueue admits, and idle workers go back to 0; '
    + 'with room for fewer workers than it asks, the slice stays pending and the tasks complete on what was admitted', scenario(async () => {
    await kubectl('apply', '--server-side', '-f', scenarioFile('-elastic-queues'));
    await kubectl('apply', '--server-side', '-f', scenarioFile('-elastic-raycluster'));
    const rcName = 'raycluster-kueue-autoscaler';
    const w = new ElasticWatch(client, 'default', rcName, 'ray-cq');
    watches.push(w);
    const workerPods = () => client.list('v1', 'Pod', 'default', `ray.io/cluster=${rcName},ray.io/node-type=worker`);
    const admittedWith = (n: number) => [...w.slices.values()].find((x) => x.workers === n && x.admitted !== undefined);
    try {
      const head = await readyHead(rcName);
      expect(head.spec.containers.map((c: any) => c.name)).toEqual(['ray-head', 'autoscaler']);
      await waitFor('the first slice (head only) admitted', async () => admittedWith(0), 120000, 1000);
      w.mark('head Running');

      // A. The guide's quota (ray-cq 800m = head 150m + 4 workers of 100m, and room to spare): 20 tasks of
      // one CPU; the head's 2 logical CPUs take 2, the autoscaler asks for the rest, up to maxReplicas 4.
      await submitOnHead(head, 'busy', busyTasksScript(20, 10));
      const submitted = w.mark('A: tasks submitted');
      const asked = await waitFor('the autoscaler asks for workers', async () => w.firstAfter(submitted, (x) => x.replicas > 0), 240000, 1000);
      w.mark('A: scale-up requested', asked.t);
      const scaled = () => [...w.slices.values()].find((x) => x.workers > 0 && x.admitted !== undefined);
      const slice = await waitFor('Kueue admits the scale-up\'s slice', async () => scaled(), 240000, 1000);
      w.mark('A: slice admitted', slice.admitted);
      w.mark('A: worker Running', (await waitFor('a worker Running', async () => w.firstAfter(submitted, (x) => x.running > 0), 400000, 1000)).t);
      expect(slice.workers).toBe(4);
      await waitFor('the busy tasks done', async () => /tasks done on .* 20/.test(await jobLogsOnHead(head, 'busy')), 600000, 3000);
      const done = w.mark('A: tasks done');
      expect(Math.max(...w.samples.map((x) => x.running))).toBe(4);
      // idleTimeoutSeconds 60: the workers go back to minReplicas 0, and the queue's usage to the head's.
      await waitFor('workers back to 0 and gone', async () => w.last?.replicas === 0 && (await workerPods()).length === 0, 400000, 2000);
      expect(w.mark('A: scaled down') - done).toBeGreaterThanOrEqual(50);
      await waitFor('the queue\'s usage back to the head\'s 150m', async () => w.last?.cpu === '150m', 60000, 1000);

      // B. Room for two workers only (400m; three need 450m), as an operator would patch it: 8 tasks make the
      // autoscaler ask for 3 workers in one step. That slice stays pending, no worker starts (KubeRay creates
      // them; Kueue keeps them scheduling-gated), and the tasks complete on the head, which was admitted.
      await setQuota('400m');
      await submitOnHead(head, 'busy-b', busyTasksScript(8, 10));
      const submittedB = w.mark('B: tasks submitted');
      await waitFor('the autoscaler asks for 3 workers', async () => w.firstAfter(submittedB, (x) => x.replicas === 3), 240000, 1000);
      const pending = await waitFor('a 3-worker slice, pending', async () => [...w.slices.values()].find((x) => x.workers === 3), 120000, 1000);
      await waitFor('the tasks done on the head alone', async () => /tasks done on .* 8/.test(await jobLogsOnHead(head, 'busy-b')), 600000, 3000);
      w.mark('B: tasks done');
      expect(pending.admitted).toBeUndefined();
      expect(w.samples.filter((x) => x.t >= submittedB).every((x) => x.running === 0)).toBe(true);
      const gated = (await workerPods()).filter((p) => (p.spec.schedulingGates ?? []).length > 0);
      expect(gated.length).toBeGreaterThan(0);
      expect(w.last?.cpu).toBe('150m');
    } finally {
      await w.stop();
      await setQuota('800m').catch(() => undefined); // the next scenario applies the same ClusterQueue
      process.stdout.write(`[guide] ${w.report('elastic RayCluster timeline')}`);
    }
  }), 1800000);

  test('3b. the elastic RayCluster in a tenant namespace (a TenantQueue, the tenant webhooks in the path): the autoscaler\'s scale-up is a '
    + 'Workload slice Kueue admits, and its scale-down passes, as in default', async () => {
    const objs = tenantElastic();
    const write = (name: string, docs: any[]) => {
      const f = path.join(scenarios, `${name}.yaml`);
      fs.writeFileSync(f, docs.map((o) => stringify(o)).join('---\n'));
      return f;
    };
    await kubectl('apply', '--server-side', '-f', write('tenant-elastic-namespace', objs.tenant.filter((o) => o.kind === 'Namespace')));
    await kubectl('apply', '--server-side', '-f', write('tenant-elastic-queues', objs.tenant.filter((o) => o.kind !== 'Namespace')));
    const rc = objs.cluster.find((o) => o.kind === 'RayCluster');
    // The controller's webhooks judge the tenant's objects once its informers hold the tenant: a dry-run create tells.
    await waitFor(`the controller to see the tenant ${TENANT_NS}`, async () => {
      const r = await client.request('POST', `/apis/ray.io/v1/namespaces/${TENANT_NS}/rayclusters?dryRun=All`,
        { ...rc, metadata: { ...rc.metadata, name: 'probe', labels: {} } });
      return r.status === 201 && r.body.metadata.labels?.['kueue.x-k8s.io/queue-name'] === 'default';
    }, 120000, 1000);
    await kubectl('apply', '--server-side', '-f', write('tenant-elastic-raycluster', objs.cluster));
    const rcName = rc.metadata.name;
    const w = new ElasticWatch(client, TENANT_NS, rcName, TENANT_NS);
    watches.push(w);
    const onTenantHead = (head: any, ...args: string[]) => kubectl('-n', TENANT_NS, 'exec', head.metadata.name, '-c', head.spec.containers[0].name,
      '--', ...args);
    const workerPods = () => client.list('v1', 'Pod', TENANT_NS, `ray.io/cluster=${rcName},ray.io/node-type=worker`);
    try {
      const head = await waitFor(`${rcName}'s head Running and ready in ${TENANT_NS}`,
        async () => (await client.list('v1', 'Pod', TENANT_NS, `ray.io/cluster=${rcName},ray.io/node-type=head`))
          .find((p) => p.status?.phase === 'Running' && (p.status.containerStatuses ?? []).every((c: any) => c.ready)), 400000, 1000);
      await waitFor('the first slice (head only) admitted',
        async () => [...w.slices.values()].find((x) => x.workers === 0 && x.admitted !== undefined), 120000, 1000);
      w.mark('head Running');
      // 8 tasks of one CPU: the head's 2 logical CPUs take 2, the autoscaler asks for workers (up to maxReplicas 4), each a
      // RayCluster update by the head's ServiceAccount that the tenant webhooks judge.
      await onTenantHead(head, 'ray', 'job', 'submit', '--address', 'http://127.0.0.1:8265', '--submission-id', 'busy', '--no-wait', '--',
        'python', '-c', busyTasksScript(8, 10));
      const submitted = w.mark('tasks submitted');
      await waitFor('the autoscaler asks for workers', async () => w.firstAfter(submitted, (x) => x.replicas > 0), 240000, 1000);
      const slice = await waitFor('Kueue admits the scale-up\'s slice', async () => [...w.slices.values()].find((x) => x.workers > 0
        && x.admitted !== undefined), 240000, 1000);
      w.mark('slice admitted', slice.admitted);
      w.mark('worker Running', (await waitFor('a worker Running', async () => w.firstAfter(submitted, (x) => x.running > 0), 400000, 1000)).t);
      await waitFor('the busy tasks done', async () => /tasks done on .* 8/.test(await onTenantHead(head, 'ray', 'job', 'logs', '--address',
        'http://127.0.0.1:8265', 'busy').catch(() => '')), 600000, 3000);
      const done = w.mark('tasks done');
      // idleTimeoutSeconds 60: the autoscaler's scale-down to minReplicas 0 passes the webhooks too, and the quota goes back to the head's.
      await waitFor('workers back to 0 and gone', async () => w.last?.replicas === 0 && (await workerPods()).length === 0, 400000, 2000);
      expect(w.mark('scaled down') - done).toBeGreaterThanOrEqual(50);
      await waitFor('the tenant queue\'s usage back to the head\'s 150m', async () => w.last?.cpu === '150m', 60000, 1000);
      // Nothing the autoscaler did was refused: no FailedToUpdate-style event on the RayCluster from a denied update.
      const events = (await client.list('v1', 'Event', TENANT_NS)).filter((e) => /denied the request/.test(e.message ?? ''));
      expect(events.map((e) => e.message)).toEqual([]);
    } finally {
      await w.stop();
      process.stdout.write(`[guide] ${w.report(`elastic RayCluster timeline in tenant namespace ${TENANT_NS}`)}`);
      await client.delete(`/apis/ray.io/v1/namespaces/${TENANT_NS}/rayclusters/${rcName}`).catch(() => undefined);
      await waitFor('the tenant\'s Ray pods to be gone',
        async () => (await client.list('v1', 'Pod', TENANT_NS, 'ray.io/is-ray-node=yes')).length === 0, 180000, 1000);
    }
  }, 1800000);

  test('4. elastic RayService: the guide\'s two Serve apps answer through the Service; under bounded load workers are added, each a Workload slice, '
    + 'and removed after it', scenario(async () => {
    await kubectl('apply', '--server-side', '-f', scenarioFile('-elastic-queues'));
    await kubectl('apply', '--server-side', '-f', scenarioFile('-elastic-rayservice'));
    const name = 'rayservice-kueue-autoscaler';
    const w = new ElasticWatch(client, 'default', name, 'ray-cq');
    watches.push(w);
    try {
      await waitFor('the RayService Ready', async () => {
        const rs = await client.getOrUndefined(`/apis/ray.io/v1/namespaces/default/rayservices/${name}`);
        return (rs?.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');
      }, 600000, 2000);
      w.mark('ready');
      const svc = await client.get(`/api/v1/namespaces/default/services/${name}-serve-svc`);
      const url = (p: string) => `http://${svc.spec.clusterIP}:8000${p}`;
      expect(await postOnceRoutable(url('/fruit/'), ['MANGO', 2])).toEqual({ status: 200, body: '6' });
      expect(await post(url('/calc/'), ['MUL', 3])).toEqual({ status: 200, body: '15 pizzas please!' });
      const before = w.last!.running;
      expect(before).toBe(1);
      // Bounded load: 8 clients in a loop until Serve's autoscaler has added MangoStand replicas and the
      // Ray autoscaler workers for them (one replica per node), then 20 s more.
      let loading = true;
      let answered = 0;
      let failed = 0;
      const clients = Array.from({ length: 8 }, async () => {
        while (loading) {
          const r = await post(url('/fruit/'), ['MANGO', 1]).catch(() => ({ status: 0, body: '' }));
          if (r.status === 200 && r.body === '3') answered++; else failed++;
        }
      });
      const loadStart = w.mark('load started');
      try {
        w.mark('worker added',
          (await waitFor('a worker added under load', async () => w.firstAfter(loadStart, (x) => x.running > before), 400000, 1000)).t);
        await new Promise((r) => setTimeout(r, 20000));
      } finally {
        loading = false;
        await Promise.all(clients);
      }
      const stopped = w.mark('load stopped');
      process.stdout.write(`[guide] RayService load: ${answered} answered, ${failed} failed\n`);
      expect(answered).toBeGreaterThan(50);
      const peak = Math.max(...w.samples.map((x) => x.running));
      // Each worker count that ran was admitted first, as a slice with at least that many workers.
      const admitted = [...w.slices.values()].filter((x) => x.admitted !== undefined);
      expect(admitted.length).toBeGreaterThanOrEqual(2);
      expect(Math.max(...admitted.map((x) => x.workers))).toBeGreaterThanOrEqual(peak);
      // Back down to minReplicas 1 once idle (Serve's downscale delay, then idleTimeoutSeconds 60).
      await waitFor('workers back to 1', async () => w.now() - stopped > 30 && w.last?.running === before && w.last.replicas === before, 600000,
        2000);
      w.mark('scaled down');
      expect(await post(url('/fruit/'), ['MANGO', 2])).toEqual({ status: 200, body: '6' });
    } finally {
      await w.stop();
      process.stdout.write(`[guide] ${w.report('elastic RayService timeline')}`);
    }
  }), 1800000);

  test('5. a RayJob whose entrypoint exits 1: each retry is a new cluster, it ends FAILED, and Kueue admits the job waiting '
    + 'behind it', scenario(async () => {
    const watch = new RayWatch(client, 'default', 'cluster-queue');
    watches.push(watch);
    try {
      const [failingName] = await create(createFile('failing-job'));
      const failing = watch.watch(failingName);
      await waitFor('the failing job admitted', async () => failing.at.admitted, 180000, 1000);
      const [nextName] = await create([createFile('gang-scheduling')[0]]);
      const next = watch.watch(nextName);
      // What the entrypoint printed, read from the submitter while an attempt runs.
      await waitFor('the failing entrypoint\'s output', async () => /failing on purpose/.test(await jobOutput(failing.name)), 300000, 2000);
      await waitFor('the failing job FAILED', async () => failing.last?.status?.jobDeploymentStatus === 'Failed' || failing.gone, 600000, 1000);
      expect(failing.statuses).toContain('FAILED');
      // backoffLimit 1: two attempts, each its own RayCluster, both counted in the RayJob's status.
      expect(failing.clusters.length).toBe(2);
      expect(failing.last.status.failed).toBe(2);
      expect(next.at.admitted).toBeUndefined();
      await waitFor('the job behind it admitted once the quota is released', async () => next.at.admitted, 300000, 1000);
      expect(next.at.admitted).toBeGreaterThanOrEqual(failing.at.Failed ?? failing.at.FAILED);
      await waitFor('the next job SUCCEEDED', async () => next.statuses.includes('SUCCEEDED'), 400000, 1000);
    } finally {
      await watch.stop();
      process.stdout.write(`[guide] failing-job timeline\n${watch.timeline()}\n`);
    }
  }), 1500000);

  test('6. observability: every target up; the series the rules and the dashboard query exist with the guide\'s queue and namespace; every '
    + 'dashboard query returns data over the scenarios; the dashboard rendered in headless chromium', scenario(async () => {
    // The operator loaded the chart's PrometheusRule: every group of it, with every rule.
    const loaded = (await promApi(prom, '/api/v1/rules')).groups;
    expect(loaded.map((g: any) => `${g.name}: ${g.rules.length}`).sort())
      .toEqual(observability.rules.map((g: any) => `${g.name}: ${g.rules.length}`).sort());
    const targets = (await promApi(prom, '/api/v1/targets')).activeTargets;
    // One target per pod (the controller has two replicas), every one up.
    expect([...new Set(targets.map((t: any) => `${t.labels.job} ${t.labels.namespace} ${t.health}`))].sort()).toEqual([
      'cdk8s-kueue-ray-controller cdk8s-kueue-ray-system up', 'kuberay-operator kuberay-system up',
      'kueue-controller-manager-metrics-service kueue-system up']);
    // Seen at any time since the suite started: KubeRay drops a RayJob's series when it is deleted, after each scenario.
    const window = `${Math.ceil(Date.now() / 1000 - startedAt)}s`;
    const cq = 'cluster_queue="cluster-queue"';
    const flavor = { cluster_queue: 'cluster-queue', flavor: 'default-flavor' };
    const kueueJob = 'kueue-controller-manager-metrics-service';
    const expected: Array<[string, string[], Record<string, string>]> = [
      [`kueue_pending_workloads{${cq}}`, ['cluster_queue'], { cluster_queue: 'cluster-queue' }],
      [`kueue_admitted_workloads_total{${cq}}`, ['cluster_queue'], { cluster_queue: 'cluster-queue' }],
      [`kueue_admitted_active_workloads{${cq}}`, ['cluster_queue'], { cluster_queue: 'cluster-queue' }],
      [`kueue_cluster_queue_resource_usage{${cq},resource="cpu"}`, ['cluster_queue', 'flavor'], flavor],
      [`kueue_cluster_queue_nominal_quota{${cq},resource="cpu"}`, ['cluster_queue', 'flavor'], flavor],
      [`kueue_cluster_queue_borrowing_limit{${cq},resource="cpu"}`, ['cluster_queue', 'flavor'], flavor],
      [`kueue_admission_wait_time_seconds_bucket{${cq}}`, ['cluster_queue'], { cluster_queue: 'cluster-queue' }],
      // Test 2's preemption: prod preempts dev within cluster-queue.
      ['kueue_preempted_workloads_total{preempting_cluster_queue="cluster-queue"}', ['preempting_cluster_queue'],
        { preempting_cluster_queue: 'cluster-queue' }],
      [`kueue_evicted_workloads_total{${cq},reason="Preempted"}`, ['cluster_queue'], { cluster_queue: 'cluster-queue' }],
      ['kuberay_job_deployment_status{namespace="default"}', ['namespace'], { namespace: 'default' }],
      // Test 5's failing job: one series per failed attempt.
      ['kuberay_job_execution_duration_seconds{namespace="default",job_deployment_status=~"Retrying|Failed"}', ['namespace'],
        { namespace: 'default' }],
      [`controller_runtime_webhook_requests_total{job="${kueueJob}",namespace="kueue-system"}`, ['job'], { job: kueueJob }],
      [`controller_runtime_webhook_latency_seconds_bucket{job="${kueueJob}"}`, ['job'], { job: kueueJob }],
      ['kueue_ray_admission_duration_seconds_bucket{job="cdk8s-kueue-ray-controller",namespace="cdk8s-kueue-ray-system"}', ['job'],
        { job: 'cdk8s-kueue-ray-controller' }],
      ['kueue_ray_admission_decisions_total{job="cdk8s-kueue-ray-controller",rule=""}', ['job'], { job: 'cdk8s-kueue-ray-controller' }],
    ];
    const missing: string[] = [];
    for (const [selector, by, labels] of expected) {
      if (!(await seen(prom, selector, by, window)).some((m) => Object.entries(labels).every(([k, v]) => m[k] === v))) missing.push(selector);
    }
    expect(missing).toEqual([]);
    // Exempt, each needing an event the guide does not cause: a review that failed.
    const exempt = ['kueue_ray_admission_errors_total', 'controller_runtime_webhook_requests_total{code=~"5.."}'];
    for (const e of exempt) {
      const found = (await promQuery(prom, `count(last_over_time(${e}[${window}]))`)).length > 0;
      process.stdout.write(`[guide] exempt series ${e}: ${found ? 'seen' : 'not seen'}\n`);
    }

    // The dashboard: the emitted one's queries are the guide dashboard's components row; every query returns data.
    const dashboard = guideDashboard();
    const all = dashboardTargets(dashboard);
    for (const t of dashboardTargets(observability.dashboard)) expect(all.map((x) => x.expr)).toContain(t.expr);
    expect(all.filter((t) => t.expr.includes('$'))).toEqual([]);
    const needsAnEvent = (expr: string) => /< \+Inf|code=~"5\.\."|kueue_ray_admission_errors_total/.test(expr);
    const end = Date.now() / 1000;
    const empty: string[] = [];
    for (const t of all.filter((x) => !needsAnEvent(x.expr))) {
      if (!hasData(await rangeQuery(prom, t.expr, startedAt, end))) empty.push(`${t.panel} / ${t.legend}: ${t.expr}`);
    }
    expect(empty).toEqual([]);
    const exemptQueries = all.filter((x) => needsAnEvent(x.expr)).length;
    process.stdout.write(`[guide] dashboard: ${all.length} queries, ${exemptQueries} need an error or a borrowing limit, the rest returned data\n`);
    if (!chromium) {
      process.stdout.write('[guide] dashboard screenshot skipped: no chromium on this machine (apt-get install chromium)\n');
      return;
    }
    const { png } = await renderDashboard(prom, dashboard, startedAt, end, firingAlerts, OUTPUT_DIR, chromium);
    const bytes = fs.readFileSync(png);
    expect(bytes.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect(bytes.length).toBeGreaterThan(30000);
    process.stdout.write(`[guide] dashboard screenshot: ${png} (${bytes.length} bytes)\n`);
  }), 300000);
});
