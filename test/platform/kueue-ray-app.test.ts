// KueueRayApp: charts of generateName objects go to <outdir>/create/ (kubectl create), everything else to
// <outdir>/ (apply), so the apply of <outdir>/ never meets an object without a name.
import * as fs from 'fs';
import * as path from 'path';
import { App, Chart } from 'cdk8s';
import { ClusterQueue, KueueRayApp, LocalQueue, Quantity, QueuedRayJob, ResourceFlavor, ResourceName } from '../../src';
import { applyPlan } from '../../src/cli/apply-plan';
import { readManifestDir, tmpdir } from '../support/synth';

const head = { resources: { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(2) } };

/** Queues in one chart, and `jobs` generateName RayJobs in a chart of their own (plus `named` named ones in it). */
function build(app: App, named = 0): { queues: Chart; jobs: Chart } {
  const queues = new Chart(app, 'queues');
  const flavor = new ResourceFlavor(queues, 'default-flavor');
  const cq = new ClusterQueue(queues, 'cq', { resourceGroups: [{ flavors: [{ flavor, quotas: [
    { resource: ResourceName.CPU, nominalQuota: Quantity.cpu(8) }, { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(16) }] }] }] });
  const lq = new LocalQueue(queues, 'lq', { clusterQueue: cq });
  const jobs = new Chart(app, 'jobs');
  new QueuedRayJob(jobs, 'a', { queue: lq, generateName: 'train-', entrypoint: 'python a.py', headGroup: head });
  new QueuedRayJob(jobs, 'b', { queue: lq, generateName: 'eval-', entrypoint: 'python b.py', headGroup: head });
  for (let i = 0; i < named; i++) new QueuedRayJob(jobs, `n${i}`, { queue: lq, name: `named-${i}`, entrypoint: 'python n.py', headGroup: head });
  return { queues, jobs };
}

test('the generateName chart is written to <outdir>/create/, the rest to <outdir>/, which the ordered apply accepts', () => {
  const outdir = tmpdir();
  const app = new KueueRayApp({ outdir });
  build(app);
  fs.mkdirSync(path.join(outdir, 'create'), { recursive: true });
  fs.writeFileSync(path.join(outdir, 'create', 'stale.k8s.yaml'), 'kind: Stale\n');
  app.synth();
  expect(fs.readdirSync(outdir).sort()).toEqual(['create', 'queues.k8s.yaml']);
  const created = readManifestDir(path.join(outdir, 'create'));
  expect(Object.keys(created)).toEqual(['jobs']);
  expect(created.jobs.map((o: any) => o.metadata.generateName)).toEqual(['train-', 'eval-']);
  const applied = readManifestDir(outdir);
  expect(() => applyPlan(Object.entries(applied).map(([file, objects]) => ({ file, objects })))).not.toThrow();
  // The same app as a plain App: the apply refuses its output.
  const plain = new App({ outdir: tmpdir() });
  build(plain);
  plain.synth();
  expect(() => applyPlan(Object.entries(readManifestDir(plain.outdir)).map(([file, objects]) => ({ file, objects }))))
    .toThrow(/2 object\(s\) have no metadata.name[\s\S]*synthesize with KueueRayApp, which writes such charts to dist\/create\//);
  // The app's charts are all there again after synth (only synth leaves the create charts out).
  expect(app.charts.map((c) => c.node.id).sort()).toEqual(['jobs', 'queues']);
});

test('a chart that mixes generateName and named objects fails synth, naming the chart, the objects and the fix', () => {
  const app = new KueueRayApp({ outdir: tmpdir(), createDir: 'submit' });
  build(app, 1);
  expect(() => app.synth()).toThrow(new RegExp("KueueRayApp: chart 'jobs' mixes objects with metadata.generateName "
    + '\\(RayJob train-\\*, RayJob eval-\\*\\) and named objects \\(RayJob named-0\\).* '
    + 'Fix: put the generateName objects in a chart of their own; it is written to .*submit'));
});

test('createDir must be a folder under outdir', () => {
  for (const bad of ['', '/abs', '../up', '.']) {
    expect(() => new KueueRayApp({ outdir: tmpdir(), createDir: bad })).toThrow(/createDir '.*' must be a folder/);
  }
});
