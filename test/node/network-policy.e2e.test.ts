// Issue 40, item 3: tenants cannot reach each other's Ray, proved on the real node with NetworkPolicy enforced
// (NodeCluster.up's networkPolicy: kube-router's network-policy controller, test-only). Two TenantQueues,
// team-a and team-b, with their default NetworkPolicies; the installs and the controller as the README applies
// them; team-a runs a RayService (head + one worker, CPU x0.1). A pod of team-b on the Ray image first reaches
// team-a's head with the policies absent (the control: the same probes can fail), then, with them applied,
// tries each door of team-a's head. The legitimate paths are tried too: team-a's own RayJob (KubeRay's operator
// calls its dashboard), the metrics port from the scraper namespace, the Serve port through its Service.
// Every attempt and what it got is printed ([netpol] lines). Default pair only.
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { ApiObject, Chart, Duration, JsonPatch } from 'cdk8s';
import { stringify } from 'yaml';
import { Quantity, QueuedRayJob, QueuedRayService } from '../../src';
import { DEFAULT_KUBERAY_VERSION, DEFAULT_KUEUE_VERSION } from '../../src/policy/versions';
import { nodeImages, rayImages } from '../../scripts/cluster/images';
import { K8S_VERSION, KUBE_ROUTER_VERSION, NodeCluster, NodeState } from '../../scripts/cluster/node-cluster';
import { vendorDir } from '../../scripts/vendor-dir';
import { buildExamples } from '../../examples/app';
import { serveApps } from '../../examples/elastic-rayservice';
import { KUBERAY_SUBMITTER, NodeScale } from '../../examples/node-scale';
import { SharedCohortTenants } from '../../examples/tenants';
import { applyArgv } from '../support/apply-cli';
import { readManifestDir, tmpdir } from '../support/synth';
import { REPO_ROOT } from '../support/upstream';
import { KubeClient, waitFor } from '../e2e/support/kube';
import { describeOnNode, nodeKubectl } from './support';

const run = promisify(execFile);
const NAME = `netpol-${process.pid}`;
const KUEUE = DEFAULT_KUEUE_VERSION;
const KUBERAY = DEFAULT_KUBERAY_VERSION;
const CPU_SCALE = 0.1;
const RAY_IMAGE = 'rayproject/ray:2.46.0';
const SCRAPER_NAMESPACE = 'monitoring';

/** Each TCP port of `host`: connected, refused or timed out, and how long it took (one JSON line). */
const CONNECT = `
import json, socket, sys, time
out = {}
for p in [int(x) for x in sys.argv[2:]]:
    s = socket.socket(); s.settimeout(5); t = time.time()
    try:
        s.connect((sys.argv[1], p)); r = 'connected'
    except socket.timeout:
        r = 'timed out'
    except OSError as e:
        r = 'refused' if isinstance(e, ConnectionRefusedError) else type(e).__name__ + ': ' + str(e)
    finally:
        s.close()
    out[p] = '%s after %.1f s' % (r, time.time() - t)
print(json.dumps(out))
`;
/** An HTTP request; prints `<status> <first 200 chars of the body>` or `error <what>`. */
const HTTP = `
import sys, urllib.request
method, url, body = sys.argv[1], sys.argv[2], (sys.argv[3].encode() if len(sys.argv) > 3 else None)
req = urllib.request.Request(url, data=body, method=method, headers={'content-type': 'application/json'})
try:
    with urllib.request.urlopen(req, timeout=10) as r:
        print(r.status, r.read().decode()[:200].replace('\\n', ' '))
except urllib.error.HTTPError as e:
    print(e.code, e.read().decode()[:200].replace('\\n', ' '))
except Exception as e:
    print('error', type(e).__name__, str(e)[:200])
`;
/** A Ray-client task: prints what the remote task returned, or the error. */
const RAY_CLIENT = `
import sys, ray
try:
    ray.init('ray://%s:10001' % sys.argv[1])
    print('task returned', ray.get(ray.remote(lambda: 'ran in team-a').remote(), timeout=30))
except Exception as e:
    print('error', type(e).__name__, str(e).splitlines()[0][:200] if str(e) else '')
    sys.exit(1)
`;

const describeNode = describeOnNode('network-policy', [`kubelet-${K8S_VERSION}`, `kueue-${KUEUE}`, `kuberay-operator-${KUBERAY}`,
  `kube-router-${KUBE_ROUTER_VERSION}`]);

describeNode(`tenants cannot reach each other's Ray (NetworkPolicy enforced by kube-router ${KUBE_ROUTER_VERSION}; Kueue ${KUEUE} + KubeRay `
  + `${KUBERAY}, Ray 2.46.0, CPU x${CPU_SCALE})`, () => {
  let node: NodeState;
  let client: KubeClient;
  let dist: string;
  let later: string;
  /** team-a's RayService head: name and pod IP. */
  let head: { name: string; ip: string };
  const { env, kubectl } = nodeKubectl(() => node);
  const say = (line: string) => process.stdout.write(`[netpol] ${line}\n`);
  /** `python -c <script> args…` in a pod (each pod's one container), with a time limit; stdout and the exit code. */
  const py = async (ns: string, pod: string, limit: number, script: string, ...args: string[]) => {
    try {
      return { code: 0, out: (await kubectl('exec', '-n', ns, pod, '--', 'timeout', String(limit), 'python', '-c', script, ...args)).trim() };
    } catch (e: any) {
      const out = `${e.stdout ?? ''}`.trim() || `${e.stderr ?? e.message}`.trim().split('\n').pop();
      return { code: typeof e.code === 'number' ? e.code : 1, out };
    }
  };
  const connect = async (ns: string, pod: string, host: string, ports: number[]): Promise<Record<string, string>> =>
    JSON.parse((await py(ns, pod, 60, CONNECT, host, ...ports.map(String))).out!);
  /** kube-router's per-policy chains in the node's filter table. */
  const policyChains = async () => (await run('nsenter', [`--net=/var/run/netns/${node.network.netns}`, '--', 'iptables-save', '-t', 'filter'],
    { maxBuffer: 64 * 1024 * 1024 })).stdout.split('\n').filter((l) => /^:KUBE-NWPLCY-/.test(l)).length;
  const ready = (ns: string, selector: string, what: string) => waitFor(what,
    async () => (await client.list('v1', 'Pod', ns, selector))
      .find((p) => p.status?.phase === 'Running' && (p.status.containerStatuses ?? []).every((c: any) => c.ready)), 600000, 1000);

  beforeAll(async () => {
    process.on('exit', () => { try { NodeCluster.down(NAME); } catch { /* reaped by the next run */ } });
    const t0 = Date.now();
    node = await NodeCluster.up(NAME, { images: [...nodeImages([KUEUE], [KUBERAY]), ...rayImages(['2.46.0'])], owner: process.pid,
      log: () => undefined, networkPolicy: true });
    say(`node up with kube-router in ${node.timings.total.toFixed(1)} s (kube-router healthy ${node.timings['kube-router'].toFixed(1)} s; `
      + `iptables backend of kube-proxy and kube-router: ${fs.readFileSync(path.join(node.dir, 'kube-router-backend'), 'utf8').trim()})`);
    client = KubeClient.fromKubeconfig(node.kubeconfig);

    // The README's app: the installs, the guide's queues, the controller and the two tenants (team-a's example
    // training job left out: team-a runs this suite's small RayService and RayJob instead).
    dist = tmpdir();
    later = tmpdir();
    const vendor = vendorDir('the network-policy suite (the Kueue and KubeRay installs)');
    const app = buildExamples({
      outdir: dist, kueue: KUEUE, kubeRay: KUBERAY, scenarios: ['queues', 'tenants'], cpuScale: CPU_SCALE, controller: {},
      serveApps: 'configmap',
      install: { kueueManifest: path.join(vendor, 'kueue', KUEUE, 'manifests.yaml'),
        kubeRayCrdDir: path.join(vendor, 'kuberay', KUBERAY, 'ray-operator', 'config', 'crd', 'bases') },
    });
    const tenants = app.node.findChild('tenants') as SharedCohortTenants;
    tenants.node.tryRemoveChild('team-a-train');
    const scale = NodeScale.of(CPU_SCALE);
    const service = new Chart(app, 'netpol-team-a-service', { namespace: 'team-a' });
    const apps = serveApps(service, 'configmap', 'serve-apps-netpol');
    (service.node.findChild('serve-apps-netpol') as ApiObject).addJsonPatch(JsonPatch.replace('/metadata/namespace', 'team-a'));
    const headMount = apps.mount('ray-head');
    new QueuedRayService(service, 'team-a-serve', {
      queue: tenants.teamA, rayVersion: '2.46.0', serveConfig: apps.serveConfig,
      headGroup: { resources: scale.resources({ cpu: 1, memory: Quantity.gibibytes(2) }), ...headMount, env: scale.headEnv(headMount.env) },
      workerGroups: [{ groupName: 'small-group', replicas: 1, resources: scale.resources({ cpu: 1, memory: Quantity.gibibytes(1) }),
        ...apps.mount('ray-worker') }],
    });
    const job = new Chart(app, 'netpol-team-a-job', { namespace: 'team-a' });
    // After the tenants (and through them the installs) and the controller, as the README's dist/ orders them.
    for (const c of [service, job]) c.addDependency(tenants, app.node.findChild('controller') as Chart);
    new QueuedRayJob(job, 'team-a-job', {
      queue: tenants.teamA, rayVersion: '2.46.0',
      entrypoint: 'python -c "import ray; ray.init(); print(\'team-a job ran:\', ray.get(ray.remote(lambda: 42).remote()))"',
      headGroup: { resources: scale.resources({ cpu: 1, memory: Quantity.gibibytes(2) }), env: scale.headEnv() },
      workerGroups: [], submitterResources: scale.kubeRayDefault(KUBERAY_SUBMITTER),
      // The cluster outlives the job long enough to read the driver's log from its head (the test below).
      ttlAfterFinished: Duration.seconds(120),
    });
    app.synth();
    // Held back: the NetworkPolicies (applied after the control) and the RayJob (created once they are enforced).
    const files = readManifestDir(dist);
    const policies: any[] = [];
    for (const [chart, objs] of Object.entries(files)) {
      const file = path.join(dist, `${chart}.k8s.yaml`);
      if (chart.endsWith('netpol-team-a-job')) {
        fs.renameSync(file, path.join(later, 'rayjob.yaml'));
        continue;
      }
      // The tenants' policies only: the controller's own NetworkPolicy is applied (and enforced) from the start.
      const tenantPolicy = (o: any) => o.kind === 'NetworkPolicy' && ['team-a', 'team-b'].includes(o.metadata.namespace);
      const kept = objs.filter((o: any) => !tenantPolicy(o));
      policies.push(...objs.filter(tenantPolicy));
      if (kept.length !== objs.length) fs.writeFileSync(file, kept.map((o) => stringify(o)).join('---\n'));
    }
    expect(policies.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort())
      .toEqual(['team-a/tenant-ray-pods', 'team-a/tenant-ray-serve', 'team-b/tenant-ray-pods', 'team-b/tenant-ray-serve']);
    fs.writeFileSync(path.join(later, 'policies.yaml'), policies.map((o) => stringify(o)).join('---\n'));
    // The attacker (a team-b pod on the Ray image: Ray's CLI and client) and the scraper (a pod in `monitoring`).
    const pod = (ns: string, name: string) => ({
      apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels: { 'netpol-probe': name } },
      spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'probe', image: RAY_IMAGE, command: ['sleep', 'infinity'],
        resources: { requests: { cpu: '10m', memory: '128Mi' }, limits: { cpu: '500m', memory: '1Gi' } } }] },
    });
    fs.writeFileSync(path.join(dist, '9999-probes.k8s.yaml'), [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: SCRAPER_NAMESPACE } },
      pod('team-b', 'attacker'), pod(SCRAPER_NAMESPACE, 'scraper')].map((o) => stringify(o)).join('---\n'));
    await run(process.execPath, applyArgv([dist]), { cwd: REPO_ROOT, env: env(), maxBuffer: 64 * 1024 * 1024 });
    const h = await ready('team-a', 'ray.io/node-type=head', 'team-a\'s RayService head Running and ready');
    head = { name: h.metadata.name, ip: h.status.podIP };
    await ready('team-b', 'netpol-probe=attacker', 'the team-b pod ready');
    await ready(SCRAPER_NAMESPACE, 'netpol-probe=scraper', 'the scraper pod ready');
    say(`set-up (node, installs, team-a's RayService head ready) in ${((Date.now() - t0) / 1000).toFixed(1)} s; head ${head.name} at ${head.ip}`);
  }, 1500000);

  afterAll(() => {
    client?.close();
    if (process.env.E2E_KEEP_NODE) {
      say(`kept: KUBECONFIG=${node?.kubeconfig}`);
      return;
    }
    NodeCluster.down(NAME);
    for (const d of [dist, later]) if (d) fs.rmSync(d, { recursive: true, force: true });
  }, 120000);

  test('control, then enforced: team-b reaches team-a\'s dashboard while no policy is applied, and no longer once team-a\'s are', async () => {
    const atStart = await policyChains(); // the controller's own policy

    const before = await connect('team-b', 'attacker', head.ip, [8265]);
    const version = await py('team-b', 'attacker', 30, HTTP, 'GET', `http://${head.ip}:8265/api/version`);
    say(`control (no NetworkPolicy): team-b -> ${head.ip}:8265 ${before[8265]}; GET /api/version: ${version.out}`);
    expect(before[8265]).toMatch(/^connected/);
    expect(version.out).toMatch(/^200 /);

    await kubectl('apply', '--server-side', '-f', path.join(later, 'policies.yaml'));
    const t = Date.now();
    // kube-router writes one chain per policy that selects a pod on the node: team-a's tenant-ray-pods and tenant-ray-serve
    // (team-b has no Ray pods, so its policies select none).
    await waitFor('kube-router\'s chains for team-a\'s policies', async () => (await policyChains()) >= atStart + 2, 60000, 500);
    say(`policies applied; kube-router's policy chains ${atStart} -> ${await policyChains()} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    const after = await connect('team-b', 'attacker', head.ip, [8265]);
    say(`enforced: team-b -> ${head.ip}:8265 ${after[8265]}`);
    expect(after[8265]).not.toMatch(/^connected/);
  }, 180000);

  test('a team-b pod reaches none of team-a\'s head ports (8265, 6379, 10001, 8080), directly or through the head\'s Service', async () => {
    const direct = await connect('team-b', 'attacker', head.ip, [8265, 6379, 10001, 8080]);
    // KubeRay's head Service (headless in v1.6: its name resolves to the head's IP).
    const svc = (await client.list('v1', 'Service', 'team-a')).find((s) => s.metadata.name.endsWith('-head-svc'))!;
    const svcHost = `${svc.metadata.name}.team-a.svc.cluster.local`;
    const viaService = await connect('team-b', 'attacker', svcHost, [8265, 6379, 10001]);
    // The same ports from team-a's own worker (the same namespace may): open, so a refusal above is the policy's.
    const worker = await ready('team-a', 'ray.io/node-type=worker', 'team-a\'s worker Running and ready');
    const own = JSON.parse((await kubectl('exec', '-n', 'team-a', worker.metadata.name, '-c', worker.spec.containers[0].name, '--',
      'python', '-c', CONNECT, head.ip, '8265', '6379', '10001', '8080')).trim());
    for (const [p, r] of Object.entries(direct)) say(`team-b -> head ${head.ip}:${p}: ${r}`);
    for (const [p, r] of Object.entries(viaService)) say(`team-b -> Service ${svcHost} (clusterIP ${svc.spec.clusterIP}):${p}: ${r}`);
    for (const [p, r] of Object.entries(own)) say(`team-a's worker -> head ${head.ip}:${p}: ${r}`);
    for (const r of [...Object.values(direct), ...Object.values(viaService)]) expect(r).not.toMatch(/^connected/);
    for (const r of Object.values(own)) expect(r).toMatch(/^connected/);
  }, 180000);

  test('a team-b pod can run no job on team-a\'s Ray: not by the job API, not by `ray job submit`, not as a Ray-client task', async () => {
    const api = await py('team-b', 'attacker', 30, HTTP, 'POST', `http://${head.ip}:8265/api/jobs/`, JSON.stringify({ entrypoint: 'echo pwned' }));
    say(`team-b POST http://${head.ip}:8265/api/jobs/: ${api.out}`);
    expect(api.out).toMatch(/^error /);
    let submit: { code: number; out?: string };
    try {
      const r = await kubectl('exec', '-n', 'team-b', 'attacker', '--', 'timeout', '60', 'ray', 'job', 'submit', '--address', `http://${head.ip}:8265`,
        '--no-wait', '--', 'echo', 'pwned');
      submit = { code: 0, out: r.trim().split('\n').pop() };
    } catch (e: any) {
      const lines = `${e.stdout ?? ''}\n${e.stderr ?? ''}`.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('command terminated'));
      submit = { code: typeof e.code === 'number' ? e.code : 1, out: lines.slice(-2).join(' | ').slice(0, 300) };
    }
    say(`team-b \`ray job submit --address http://${head.ip}:8265\`: exit ${submit.code}; ${submit.out}`);
    expect(submit.code).not.toBe(0);
    const client10001 = await py('team-b', 'attacker', 90, RAY_CLIENT, head.ip);
    say(`team-b Ray-client task on ray://${head.ip}:10001: exit ${client10001.code}; ${client10001.out}`);
    expect(client10001.code).not.toBe(0);
    expect(client10001.out).not.toContain('task returned');
    // Nothing ran there: the head's job list holds no job (asked from inside team-a's head, which may).
    const jobs = await kubectl('exec', '-n', 'team-a', head.name, '-c', 'ray-head', '--', 'ray', 'job', 'list', '--address', 'http://127.0.0.1:8265');
    say(`team-a's head job list: ${jobs.trim().split('\n').pop()}`);
    expect(jobs).not.toContain('pwned');
  }, 300000);

  test('the legitimate paths: the scraper namespace gets the metrics port; the RayService serves through its Service from team-b', async () => {
    const metrics = await py(SCRAPER_NAMESPACE, 'scraper', 30, HTTP, 'GET', `http://${head.ip}:8080/metrics`);
    say(`${SCRAPER_NAMESPACE}/scraper GET http://${head.ip}:8080/metrics: ${metrics.out!.slice(0, 80)}`);
    expect(metrics.out).toMatch(/^200 /);
    const serveSvc = (await client.list('v1', 'Service', 'team-a')).find((s) => s.metadata.name.endsWith('-serve-svc'))!;
    const url = `http://${serveSvc.metadata.name}.team-a.svc.cluster.local:8000/fruit/`;
    const served = await waitFor('the RayService to serve', async () => {
      const r = await py('team-b', 'attacker', 30, HTTP, 'POST', url, JSON.stringify(['MANGO', 2]));
      return r.out === '200 6' ? r : undefined;
    }, 400000, 5000).catch(async (e) => {
      const last = await py('team-b', 'attacker', 30, HTTP, 'POST', url, JSON.stringify(['MANGO', 2]));
      throw new Error(`${(e as Error).message}; last answer: ${last.out}`);
    });
    say(`team-b POST ${url} ["MANGO", 2]: ${served.out}`);
    expect(served.out).toBe('200 6');
  }, 480000);

  test('team-a\'s own RayJob is admitted, submits and SUCCEEDS (KubeRay\'s operator reaches its dashboard)', async () => {
    const t = Date.now();
    await kubectl('create', '-f', path.join(later, 'rayjob.yaml'));
    const name = (await client.list('ray.io/v1', 'RayJob', 'team-a'))[0].metadata.name;
    const seen: string[] = [];
    const done = await waitFor(`RayJob team-a/${name} to finish`, async () => {
      const j = await client.get(`/apis/ray.io/v1/namespaces/team-a/rayjobs/${name}`);
      const step = `${j.status?.jobDeploymentStatus ?? '-'}/${j.status?.jobStatus ?? '-'}`;
      if (seen[seen.length - 1] !== step) seen.push(step);
      return ['Complete', 'Failed'].includes(j.status?.jobDeploymentStatus) ? j : undefined;
    }, 600000, 2000);
    say(`team-a RayJob ${name}: ${seen.join(' -> ')} in ${((Date.now() - t) / 1000).toFixed(1)} s; dashboard job id ${done.status.jobId}`);
    expect(done.status.jobStatus).toBe('SUCCEEDED');
    // The job's output from the dashboard's own record of it (the driver's whole log), read inside the job's head.
    // Not from the submitter's `ray job logs --follow`: Ray 2.46's tail ends when it finds no new line and then a
    // finished job, so a line written between the two is never sent (ray-project/ray#48701); a driver whose one
    // print is flushed at exit loses it (seen once in local CI on 2026-12-07). The submitter's output is reported.
    const head = (await client.list('v1', 'Pod', 'team-a', `ray.io/cluster=${done.status.rayClusterName},ray.io/node-type=head`))[0];
    const driver = await kubectl('exec', '-n', 'team-a', head.metadata.name, '-c', head.spec.containers[0].name, '--',
      'ray', 'job', 'logs', '--address', 'http://127.0.0.1:8265', done.status.jobId);
    const submitter = await kubectl('logs', '-n', 'team-a', '-l', `batch.kubernetes.io/job-name=${name}`, '--tail=-1').catch(() => '');
    const ran = (text: string) => text.split('\n').find((l) => l.includes('team-a job ran')) ?? '(none)';
    say(`the driver's log: ${ran(driver)}; its submitter's output: ${ran(submitter)}`);
    expect(driver).toContain('team-a job ran: 42');
  }, 660000);
});
