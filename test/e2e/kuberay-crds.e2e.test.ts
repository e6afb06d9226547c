/**
 * KubeRay v1.7.0 (modelled, not run: its operator is never built) against a real API server: etcd and kube-apiserver with
 * v1.7.0's vendored CRDs, no controllers. Every Ray object of v1.7.0's own samples is accepted by a server-side dry-run
 * create with nothing pruned, and check's CRD-schema verdict agrees with the API server's on the same objects and on
 * mutants of the fields 1.7 adds (RayService spec.suspend, the GCS backend enum, networkPolicy's mode, worker priority).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseAllDocuments, stringify } from 'yaml';
import { vendorDir } from '../../scripts/vendor-dir';
import { runCheck } from '../../src/cli/check';
import { prunedPaths } from '../agreement/support/compare';
import { cacheDir } from '../support/upstream';
import { TestCluster, ETCD_VERSION, K8S_VERSION } from './support/cluster';

const KUBERAY = 'v1.7.0';
const VENDOR = vendorDir('the KubeRay v1.7.0 CRD test');
const SAMPLES = path.join(VENDOR, 'kuberay', KUBERAY, 'corpus', 'ray-operator', 'config', 'samples');
const CRDS = path.join(VENDOR, 'kuberay', KUBERAY, 'ray-operator', 'config', 'crd', 'bases');
const RAY_KINDS = ['RayCluster', 'RayJob', 'RayService'];

const needed = [`etcd-${ETCD_VERSION}`, `kube-apiserver-${K8S_VERSION}`, `kube-controller-manager-${K8S_VERSION}`]
  .filter((b) => !fs.existsSync(path.join(cacheDir(), 'bin', b)));
if (needed.length) {
  const why = `the test control plane is not built (${needed.join(', ')} missing); run scripts/testcluster/build.sh`;
  if (process.env.CI) throw new Error(`kuberay-crds e2e in CI: ${why}`);
  process.stdout.write(`[e2e] KubeRay ${KUBERAY} CRDs: skipped, ${why}\n`);
}

function samples(): Array<{ file: string; object: any }> {
  return fs.readdirSync(SAMPLES).filter((f) => f.endsWith('.yaml')).sort().flatMap((file) =>
    parseAllDocuments(fs.readFileSync(path.join(SAMPLES, file), 'utf8')).map((d) => d.toJS())
      .filter((o) => o?.apiVersion === 'ray.io/v1' && RAY_KINDS.includes(o.kind)).map((object) => ({ file, object })));
}

const service = () => JSON.parse(JSON.stringify(samples().find((s) => s.object.kind === 'RayService')!.object));
const cluster = () => JSON.parse(JSON.stringify(samples().find((s) => s.file === 'ray-cluster.complete.yaml')!.object));
const MUTANTS: Array<[string, () => any, boolean]> = [
  ['RayService spec.suspend: true (new in 1.7)', () => { const o = service(); o.spec.suspend = true; return o; }, true],
  ['RayService spec.suspend as a string', () => { const o = service(); o.spec.suspend = 'yes'; return o; }, false],
  ['gcsFaultToleranceOptions.backend outside its enum',
    () => { const o = cluster(); o.spec.gcsFaultToleranceOptions = { backend: 'etcd' }; return o; }, false],
  ['networkPolicy.mode outside its enum', () => { const o = cluster(); o.spec.networkPolicy = { mode: 'AllowAll' }; return o; }, false],
  ['worker group priority as a string', () => { const o = cluster(); o.spec.workerGroupSpecs[0].priority = 'high'; return o; }, false],
  ['a field 1.7 does not have', () => { const o = cluster(); o.spec.historyServer = { enabled: true }; return o; }, false],
];

(needed.length ? describe.skip : describe)(`KubeRay ${KUBERAY} CRDs on a real API server (modelled, not run)`, () => {
  let tc: TestCluster;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kuberay-crds-'));
  beforeAll(async () => {
    tc = await TestCluster.start({ kueue: 'v0.19.2', kubeRay: KUBERAY, controllers: false });
    await tc.client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'crds' } });
  }, 300000);
  afterAll(async () => {
    await tc?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60000);

  /** The API server's verdict on a dry-run create: accepted with nothing pruned, or why not. */
  async function server(obj: any): Promise<{ ok: boolean; why: string }> {
    // A null field (a bare `metadata:` in YAML) is dropped by the API server, which is no pruning: compare without it.
    const o = JSON.parse(JSON.stringify(obj, (_k, v) => (v === null ? undefined : v)));
    o.metadata = { ...o.metadata, namespace: 'crds', name: o.metadata.name ?? `${o.metadata.generateName}x7k2q` };
    delete o.metadata.generateName;
    const r = await tc.client.request('POST', `/apis/ray.io/v1/namespaces/crds/${o.kind.toLowerCase()}s?dryRun=All`, o);
    if (r.status >= 300) return { ok: false, why: String(r.body?.message ?? r.body).slice(0, 300) };
    const pruned = prunedPaths(o, r.body);
    return { ok: !pruned.length, why: pruned.length ? `pruned ${pruned.join(', ')}` : '' };
  }

  /** check's CRD-schema errors on each object, from the same CRD folder: one run over all (loading the CRDs costs seconds). */
  async function ours(objs: ReadonlyArray<{ name: string; obj: any }>): Promise<string[][]> {
    const files = objs.map(({ name, obj }, i) => {
      const file = path.join(dir, `${i}-${name.replace(/\W+/g, '-')}.yaml`);
      fs.writeFileSync(file, stringify(obj));
      return file;
    });
    const report = await runCheck({ files, kubeRayVersion: KUBERAY, crdDirs: [CRDS], output: 'json' });
    return files.map((file) => report.findings.filter((f) => path.resolve(f.location.file) === path.resolve(file) && f.rule === 'crdSchema'
      && f.severity === 'error').map((f) => `${f.field}: ${f.message}`));
  }

  test('every Ray object of its own samples is accepted whole, and check finds no CRD-schema error in it', async () => {
    const all = samples();
    expect(all.length).toBeGreaterThanOrEqual(80);
    const errors = await ours(all.map(({ file, object }) => ({ name: `${file}-${object.metadata.name ?? object.metadata.generateName}`,
      obj: object })));
    const disagreements: string[] = [];
    for (const [i, { file, object }] of all.entries()) {
      const verdict = await server(object);
      if (!verdict.ok || errors[i].length) {
        disagreements.push(`${file} ${object.kind}: server ${verdict.ok ? 'accepts' : verdict.why}; check: ${errors[i].join('; ')}`);
      }
    }
    expect(disagreements).toEqual([]);
  }, 300000);

  test('the mutants of the fields 1.7 adds: the API server and check agree on each', async () => {
    const made = MUTANTS.map(([name, make, accepted]) => ({ name, obj: make(), accepted }));
    const errors = await ours(made);
    const got: Array<{ mutant: string; server: boolean; check: boolean }> = [];
    for (const [i, m] of made.entries()) got.push({ mutant: m.name, server: (await server(m.obj)).ok, check: errors[i].length === 0 });
    expect(got).toEqual(made.map((m) => ({ mutant: m.name, server: m.accepted, check: m.accepted })));
  }, 120000);
});
