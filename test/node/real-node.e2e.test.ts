// The examples app applied as a user applies it, to a one-node cluster whose every component runs as a
// pod (scripts/cluster: kubelet on containerd + runc, kube-proxy, CoreDNS, local registries serving the
// images under the references dist/ writes): `npx cdk8s synth`, then the README's `npx cdk8s-kueue-ray apply dist`
// (the bundled bin), unmodified. Default pair only (Kueue v0.19.2 + KubeRay v1.6.2); the host-process control plane keeps
// the version matrix. Ray's own image is the next step: Ray pods may sit in ImagePullBackOff here, and the
// test looks at which pods exist.
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { planMain } from '../../src/cli/plan';
import { PlanResult } from '../../src/policy/plan';
import { DEFAULT_KUBERAY_VERSION, DEFAULT_KUEUE_VERSION } from '../../src/policy/versions';
import { nodeImages } from '../../scripts/cluster/images';
import { K8S_VERSION, NodeCluster, NodeState } from '../../scripts/cluster/node-cluster';
import { applyArgv } from '../support/apply-cli';
import { readManifestDir, tmpdir } from '../support/synth';
import { REPO_ROOT } from '../support/upstream';
import { cond, isAdmitted, KubeClient, waitFor } from '../e2e/support/kube';
import { describeOnNode, nodeKubectl } from './support';

const run = promisify(execFile);
const NAME = `e2e-${process.pid}`;
const KUEUE = DEFAULT_KUEUE_VERSION;
const KUBERAY = DEFAULT_KUBERAY_VERSION;
const SYSTEM = ['kueue-system', 'kuberay-system', 'cdk8s-kueue-ray-system'];
const describeNode = describeOnNode('real-node', [`kubelet-${K8S_VERSION}`, `kueue-${KUEUE}`, `kuberay-operator-${KUBERAY}`]);

describeNode(`real node: dist/ of Kueue ${KUEUE} + KubeRay ${KUBERAY} applied and running as pods`, () => {
  let node: NodeState;
  let client: KubeClient;
  let out: string;
  const { env, kubectl } = nodeKubectl(() => node);
  let applySeconds = 0;

  beforeAll(async () => {
    process.on('exit', () => { try { NodeCluster.down(NAME); } catch { /* reported by the next run's reaping */ } });
    node = await NodeCluster.up(NAME, { images: nodeImages([KUEUE], [KUBERAY]), owner: process.pid, log: () => undefined });
    process.stdout.write(`[real-node] node up in ${node.timings.total.toFixed(1)} s `
      + `(${Object.entries(node.timings).filter(([k]) => k !== 'total').map(([k, v]) => `${k} ${v.toFixed(1)}s`).join(', ')})\n`);
    client = KubeClient.fromKubeconfig(node.kubeconfig);
    // The README's commands: synthesize the examples app (default pair), then the ordered apply.
    out = tmpdir();
    await run('npx', ['cdk8s', 'synth', '--no-check-upgrade', '--output', out],
      { cwd: REPO_ROOT, env: { ...process.env, KUEUE_VERSION: KUEUE, KUBERAY_VERSION: KUBERAY } });
    const t = Date.now();
    await run(process.execPath, applyArgv([out]), { cwd: REPO_ROOT, env: env(), maxBuffer: 64 * 1024 * 1024 });
    applySeconds = (Date.now() - t) / 1000;
    process.stdout.write(`[real-node] apply to every Deployment rolled out: ${applySeconds.toFixed(1)} s\n`);
  }, 900000);

  afterAll(() => {
    client?.close();
    if (process.env.E2E_KEEP_NODE) {
      process.stdout.write(`[real-node] kept: KUBECONFIG=${node?.kubeconfig}\n`);
      return;
    }
    NodeCluster.down(NAME);
    if (out) fs.rmSync(out, { recursive: true, force: true });
  }, 120000);

  const deployments = async () => (await Promise.all(SYSTEM.map((ns) => client.list('apps/v1', 'Deployment', ns)))).flat();
  const systemPods = async () => (await Promise.all(SYSTEM.map((ns) => client.list('v1', 'Pod', ns)))).flat();

  test('every Deployment is Available with all its replicas on the one node, and probes pass without restarts', async () => {
    const deps = await deployments();
    expect(deps.map((d) => `${d.metadata.namespace}/${d.metadata.name}`).sort()).toEqual([
      'cdk8s-kueue-ray-system/cdk8s-kueue-ray-controller', 'kuberay-system/kuberay-operator', 'kueue-system/kueue-controller-manager']);
    for (const d of deps) {
      expect([d.metadata.name, cond(d, 'Available')?.status]).toEqual([d.metadata.name, 'True']);
      expect([d.metadata.name, d.status.readyReplicas]).toEqual([d.metadata.name, d.spec.replicas]);
    }
    // The controller's two replicas share the node (preferred anti-affinity): none Pending.
    expect(deps.find((d) => d.metadata.name === 'cdk8s-kueue-ray-controller').spec.replicas).toBe(2);
    // The installs' nodeSelector and toleration (the examples app's placement) reached the scheduler, which placed them.
    const nodeLabels = (await client.get('/api/v1/nodes')).items[0].metadata.labels;
    for (const d of deps.filter((x) => x.metadata.namespace !== 'cdk8s-kueue-ray-system')) {
      expect([d.metadata.name, d.spec.template.spec.nodeSelector]).toEqual([d.metadata.name, { 'kubernetes.io/os': 'linux' }]);
      expect(d.spec.template.spec.tolerations)
        .toContainEqual({ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' });
    }
    expect(nodeLabels['kubernetes.io/os']).toBe('linux');
    for (const p of await systemPods()) {
      expect([p.metadata.name, p.status.phase]).toEqual([p.metadata.name, 'Running']);
      for (const c of p.status.containerStatuses ?? []) expect([p.metadata.name, c.ready, c.restartCount]).toEqual([p.metadata.name, true, 0]);
    }
  });

  test('the API server reaches Kueue\'s webhooks and ours through their Services, with the certificates each one manages', async () => {
    for (const name of ['kueue-mutating-webhook-configuration', 'kueue-validating-webhook-configuration', 'cdk8s-kueue-ray-mutating',
      'cdk8s-kueue-ray-validating']) {
      const kind = name.includes('mutating') ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
      const cfg = await client.get(`/apis/admissionregistration.k8s.io/v1/${kind}/${name}`);
      for (const w of cfg.webhooks) {
        expect([name, w.name, !!w.clientConfig.service, (w.clientConfig.caBundle ?? '').length > 100]).toEqual([name, w.name, true, true]);
      }
    }
    // Kueue's internal cert rotation wrote its Secret and served with it.
    const secret = await client.get('/api/v1/namespaces/kueue-system/secrets/kueue-webhook-server-cert');
    expect(Buffer.from(secret.data['tls.crt'], 'base64').toString()).toMatch(/BEGIN CERTIFICATE/);
    const train = readManifestDir(out)['0006-tenants'].find((o: any) => o.kind === 'RayJob');
    // Our mutating webhook (tenant namespace): a RayJob without its queue label gets the tenant's default queue.
    const probe = JSON.parse(JSON.stringify(train));
    probe.metadata = { name: 'webhook-probe', namespace: train.metadata.namespace, labels: { 'kueue.x-k8s.io/priority-class': 'dev-priority' } };
    const created = await client.request('POST', `/apis/ray.io/v1/namespaces/${train.metadata.namespace}/rayjobs?dryRun=All`, probe);
    expect(created.status).toBe(201);
    expect(created.body.metadata.labels['kueue.x-k8s.io/queue-name']).toBe('default');
    // Kueue's mutating webhook (its pod, through kueue-webhook-service): a queued RayJob is suspended at create.
    const gang = readManifestDir(path.join(out, 'create'))['gang-scheduling'][0];
    const queued = { ...JSON.parse(JSON.stringify(gang)), metadata: { ...gang.metadata, generateName: undefined, name: 'kueue-webhook-probe' } };
    queued.spec.suspend = false;
    const viaKueue = await client.request('POST', '/apis/ray.io/v1/namespaces/default/rayjobs?dryRun=All', queued);
    expect(viaKueue.status).toBe(201);
    expect(viaKueue.body.spec.suspend).toBe(true);
  });

  test('RBAC as written is enough: no component logs a forbidden', async () => {
    for (const p of await systemPods()) {
      const logs = await kubectl('-n', p.metadata.namespace, 'logs', p.metadata.name, '--all-containers');
      expect(logs.length).toBeGreaterThan(0);
      const forbidden = logs.split('\n').filter((l) => /forbidden/i.test(l));
      expect([p.metadata.name, forbidden]).toEqual([p.metadata.name, []]);
    }
  });

  test('gang: of the guide\'s two toy jobs Kueue admits one; only it has a RayCluster and pods, the other has none and a why-pending Event; plan '
    + '--kubeconfig said so first', async () => {
    const file = path.join(out, 'create', 'gang-scheduling.k8s.yaml');
    // The next minute (--horizon 1m): the toy jobs declare 10 minutes, so on the full timeline the second starts when the first ends.
    const planned: PlanResult = JSON.parse(await planMain([file, '--kubeconfig', node.kubeconfig, '--output', 'json', '--horizon', '1m']));
    const fromFile = (p: PlanResult) => p.workloads.filter((w) => w.name.startsWith('rayjob-sample-'));
    expect(fromFile(planned).map((w) => w.outcome).sort()).toEqual(['admitted', 'pending']);
    const names = (await kubectl('create', '-f', file, '-o', 'name')).trim().split('\n').map((n) => n.replace('rayjob.ray.io/', ''));
    expect(names).toHaveLength(2);
    const job = (n: string) => client.get(`/apis/ray.io/v1/namespaces/default/rayjobs/${n}`);
    const ownedBy = async (kind: string, api: string, uid: string) =>
      (await client.list(api, kind, 'default')).filter((o) => (o.metadata.ownerReferences ?? []).some((r: any) => r.uid === uid));
    const { admitted, pending } = await waitFor('one toy job admitted, the other pending', async () => {
      const jobs = await Promise.all(names.map(job));
      const wls = await Promise.all(jobs.map((j) => ownedBy('Workload', 'kueue.x-k8s.io/v1beta2', j.metadata.uid)));
      const a = jobs.findIndex((_, i) => wls[i].some(isAdmitted));
      if (a < 0 || !wls[1 - a].length) return false;
      return { admitted: jobs[a], pending: jobs[1 - a] };
    }, 180000, 1000);
    const cluster = await waitFor('the admitted job\'s RayCluster', async () => (await ownedBy('RayCluster', 'ray.io/v1', admitted.metadata.uid))[0],
      120000, 1000);
    const podsOf = async (rc: string) => client.list('v1', 'Pod', 'default', `ray.io/cluster=${rc}`);
    const pods = await waitFor('KubeRay\'s head and worker pods of the admitted job', async () => {
      const ps = await podsOf(cluster.metadata.name);
      return ps.length >= 2 ? ps : false;
    }, 120000, 1000);
    expect(pods.map((p) => p.metadata.labels['ray.io/node-type']).sort()).toEqual(['head', 'worker']);
    // The pending job: suspended, no RayCluster, no pod anywhere that names it.
    expect((await job(pending.metadata.name)).spec.suspend).toBe(true);
    expect(await ownedBy('RayCluster', 'ray.io/v1', pending.metadata.uid)).toEqual([]);
    const all = await client.list('v1', 'Pod', 'default');
    expect(all.filter((p) => JSON.stringify(p.metadata).includes(pending.metadata.name))).toEqual([]);
    const ev = await waitFor('the controller\'s why-pending Event', async () => (await client.list('v1', 'Event', 'default'))
      .find((e) => e.involvedObject?.name === pending.metadata.name && e.reason === 'KueuePending'), 120000, 1000);
    expect(ev.message).toMatch(/insufficient (unused )?quota|pending/i);
    // What plan predicted is what Kueue did: one admitted, one pending for quota.
    expect(fromFile(planned).find((w) => w.outcome === 'pending')?.pending?.category).toBe('quota');
    for (const n of names) await client.delete(`/apis/ray.io/v1/namespaces/default/rayjobs/${n}`);
  }, 600000);

  test('re-running the README\'s apply restarts nothing: the admitted team-a job keeps its RayCluster, and no '
    + 'DeletedRayCluster appears', async () => {
    const path_ = '/apis/ray.io/v1/namespaces/team-a/rayjobs/team-a-train';
    const job = await waitFor('team-a-train admitted and given its RayCluster', async () => {
      const j = await client.get(path_);
      return j.spec.suspend !== true && j.status?.rayClusterName ? j : false; // false is omitted (omitempty)
    }, 180000, 1000);
    const rc = await client.get(`/apis/ray.io/v1/namespaces/team-a/rayclusters/${job.status.rayClusterName}`);
    const t = Date.now();
    const again = await run(process.execPath, applyArgv([out]), { cwd: REPO_ROOT, env: env(), maxBuffer: 64 * 1024 * 1024 });
    process.stdout.write(`[real-node] re-apply: ${((Date.now() - t) / 1000).toFixed(1)} s\n${again.stdout}`);
    // Kueue wrote the admitted job's pod sets (its atomic workerGroupSpecs): the job is listed and left alone, not forced.
    expect(again.stdout).toMatch(/left \d+ Ray object\(s\) as they are[^\n]*\n(.*\n)*  RayJob team-a\/team-a-train: \.spec\.rayClusterSpec\.workerGroupSpecs owned by kueue/);
    // Long enough for KubeRay to have acted on a suspend (it deletes the cluster within a reconcile).
    await new Promise((r) => setTimeout(r, 10000));
    const after = await client.get(path_);
    expect(after.spec.suspend).not.toBe(true);
    expect(after.status.rayClusterName).toBe(rc.metadata.name);
    expect((await client.get(`/apis/ray.io/v1/namespaces/team-a/rayclusters/${rc.metadata.name}`)).metadata.uid).toBe(rc.metadata.uid);
    const deleted = (await client.list('v1', 'Event', 'team-a')).filter((e) => e.reason === 'DeletedRayCluster');
    expect(deleted.map((e) => e.message)).toEqual([]);
  }, 400000);

  test('rollout restart of each component completes while RayJob creates keep passing, and the PDB holds', async () => {
    const train = readManifestDir(out)['0006-tenants'].find((o: any) => o.kind === 'RayJob');
    const failures: string[] = [];
    /** The component being restarted when each failure came back. */
    let restarting = '';
    let creates = 0;
    let stop = false;
    const loop = (async () => {
      while (!stop) {
        const probe = JSON.parse(JSON.stringify(train));
        probe.metadata = { ...probe.metadata, name: `restart-probe-${creates}` };
        const r = await client.request('POST', `/apis/ray.io/v1/namespaces/${train.metadata.namespace}/rayjobs?dryRun=All`, probe)
          .catch((e) => ({ status: 0, body: String(e) }));
        creates++;
        if (r.status !== 201) failures.push(`${restarting}: ${r.status} ${JSON.stringify(r.body).slice(0, 400)}`);
        await new Promise((res) => setTimeout(res, 200));
      }
    })();
    try {
      for (const [ns, name] of [['cdk8s-kueue-ray-system', 'cdk8s-kueue-ray-controller'], ['kueue-system', 'kueue-controller-manager'],
        ['kuberay-system', 'kuberay-operator']]) {
        restarting = name;
        await kubectl('-n', ns, 'rollout', 'restart', `deployment/${name}`);
        await kubectl('-n', ns, 'rollout', 'status', `deployment/${name}`, '--timeout=300s');
        if (name === 'cdk8s-kueue-ray-controller') {
          const pdb = await client.get(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/${name}`);
          expect(pdb.status.currentHealthy).toBeGreaterThanOrEqual(pdb.spec.minAvailable);
        }
      }
    } finally {
      stop = true;
      await loop;
    }
    expect(creates).toBeGreaterThan(20);
    // Kueue's webhook server closes its kept-alive connections when its old pod stops (after the install's
    // drainSeconds), and the API server does not resend a POST that met the close: a create sent through
    // such a connection at that instant fails with EOF, or "broken pipe" when the API server's write meets the
    // closed socket first (README, Troubleshooting). The old pod drains past `rollout status`, so the failure
    // can come while the next component (KubeRay) restarts. Seen once each in CI; it is upstream's, so at most
    // one per Kueue restart is tolerated, and said. Anything else fails the test, as does any failure while
    // our controller (two replicas, which close connections gracefully) restarts.
    const kueueClose = (f: string) => /^(kueue-controller-manager|kuberay-operator): /.test(f)
      && /kueue-webhook-service[^"]*\\": (EOF|write tcp [^"]*: write: broken pipe)/.test(f);
    for (const f of failures.filter(kueueClose)) process.stdout.write(`[real-node] Kueue's old pod closed a kept-alive connection: ${f}\n`);
    expect(failures.filter((f) => !kueueClose(f))).toEqual([]);
    expect(failures.filter(kueueClose).length).toBeLessThanOrEqual(1);
  }, 900000);
});
