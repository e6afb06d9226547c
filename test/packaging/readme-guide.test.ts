// The README's complete example (the Ray docs guide's scenarios in one app) as written: it type-checks
// against the package's API, synthesizes, and `plan` and `check` on its dist/ say what the README says;
// and the elastic example of docs/constructs.md.
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { check } from '../../src/cli/check';
import { planCommand } from '../../src/cli/plan';
import { parseAllDocuments } from 'yaml';
import { docBlocks, readmeBlocks } from '../support/readme';
import { tmpdir } from '../support/synth';
import { REPO_ROOT } from '../support/upstream';

const HEADING = '## One complete example: the Ray docs guide';
const [BLOCK] = readmeBlocks(HEADING, 'ts');

/** Runs a TypeScript app written against 'cdk8s-kueue-ray' on the repo's sources, writing to `outdir`. */
function runApp(source: string, outdir: string): void {
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
  const modules: Record<string, unknown> = { 'cdk8s-kueue-ray': require('../../src'), 'cdk8s': require('cdk8s') };
  const saved = process.env.CDK8S_OUTDIR;
  process.env.CDK8S_OUTDIR = outdir;
  try {
    new Function('require', 'exports', js)((m: string) => modules[m] ?? require(m), {});
  } finally {
    if (saved === undefined) delete process.env.CDK8S_OUTDIR;
    else process.env.CDK8S_OUTDIR = saved;
  }
}

const ELASTIC_HEADING = '## Elastic workloads: `ElasticRayCluster` and `ElasticRayService`';

test.each([['README.md', HEADING], ['docs/constructs.md', ELASTIC_HEADING]])('%s, %s: it type-checks under strict settings',
  (file, heading) => {
    const dir = fs.mkdtempSync(path.join(REPO_ROOT, 'test', 'packaging', '.readme-guide-'));
    try {
      const main = path.join(dir, 'main.ts');
      fs.writeFileSync(main, docBlocks(file, heading, 'ts')[0]);
      const program = ts.createProgram([main], {
        strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, esModuleInterop: true, skipLibCheck: true,
        moduleResolution: ts.ModuleResolutionKind.Node10, baseUrl: REPO_ROOT, paths: { 'cdk8s-kueue-ray': ['src/index.ts'] },
        noUnusedLocals: true,
      });
      const errors = ts.getPreEmitDiagnostics(program).filter((d) => d.file?.fileName === main || !d.file)
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(errors).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

describe('synthesized', () => {
  let dist: string;
  beforeAll(() => {
    dist = path.join(tmpdir(), 'dist');
    runApp(BLOCK, dist);
  });

  test('one file per chart, numbered in dependency order (the prod job after the dev jobs)', () => {
    expect(fs.readdirSync(dist).filter((f) => f.endsWith('.yaml'))).toEqual(
      ['0000-queues.k8s.yaml', '0001-gang.k8s.yaml', '0002-priority.k8s.yaml', '0003-elastic.k8s.yaml']);
  });

  test('plan dist/ shows gang scheduling and preemption, and admits the elastic objects', () => {
    const plan = JSON.parse(planCommand([dist, '-o', 'json']));
    const outcome = Object.fromEntries(plan.workloads.map((w: any) => [w.name, w.outcome]));
    expect(outcome).toEqual({
      'dev-job-1': 'pending', 'dev-job-2': 'pending', 'prod-job': 'admitted-by-preempting',
      'raycluster-kueue-autoscaler': 'admitted', 'rayservice-kueue-autoscaler': 'admitted',
    });
    expect(plan.workloads.find((w: any) => w.name === 'prod-job').preempted.map((v: any) => v.workload)).toEqual(['RayJob default/dev-job-1']);
    expect(plan.workloads.find((w: any) => w.name === 'dev-job-1').preemptedBy).toEqual(['RayJob default/prod-job']);
    expect(plan.workloads.find((w: any) => w.name === 'dev-job-1').requests).toMatchObject({ cpu: '2.5' });
  });

  test('check dist/ finds no error', async () => {
    let out = '';
    const code = await check([dist], { stdout: (s) => { out += s; }, stderr: (s) => { out += s; } });
    expect(out).toMatch(/check: 0 errors/);
    expect(code).toBe(0);
  });
});

test('on the guide\'s own Kueue v0.13.4 synth refuses the elastic objects, naming the version that fixes it', () => {
  const pinned = BLOCK.replace('const app = new KueueRayApp();',
    'const app = new KueueRayApp();\nKueueRayVersions.use(app, { kueue: KueueVersion.V0_13_4, kubeRay: KubeRayVersion.V1_4_2 });')
    .replace('ClusterQueue, Cohort,', 'ClusterQueue, Cohort, KubeRayVersion, KueueRayVersions, KueueVersion,');
  expect(pinned).toContain('KueueVersion.V0_13_4');
  expect(() => runApp(pinned, path.join(tmpdir(), 'dist'))).toThrow(/ElasticRayCluster|RayCluster default\/raycluster-kueue-autoscaler.*v0\.14/);
});

describe('the elastic example of docs/constructs.md', () => {
  const [elastic] = docBlocks('docs/constructs.md', ELASTIC_HEADING, 'ts');

  test('synthesizes an elastic RayCluster and RayService, admitted as the comment says', () => {
    const dist = path.join(tmpdir(), 'dist');
    const logged: unknown[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((...a: unknown[]) => { logged.push(...a); });
    try {
      runApp(elastic, dist);
    } finally {
      log.mockRestore();
    }
    expect(logged).toEqual([{ cpu: '1.5', memory: '2560Mi' }]);
    const plan = JSON.parse(planCommand([dist, '-o', 'json']));
    expect(Object.fromEntries(plan.workloads.map((w: any) => [`${w.kind}/${w.name}`, w.outcome])))
      .toEqual({ 'RayCluster/notebook-cluster': 'admitted', 'RayService/fruit-service': 'admitted' });
    const objects = fs.readdirSync(dist).flatMap((f) => parseAllDocuments(fs.readFileSync(path.join(dist, f), 'utf8')).map((d) => d.toJS()));
    const cluster = objects.find((o) => o.kind === 'RayCluster');
    expect(cluster.metadata.annotations).toMatchObject({ 'kueue.x-k8s.io/elastic-job': 'true' });
    expect(cluster.spec).toMatchObject({ enableInTreeAutoscaling: true, autoscalerOptions: { idleTimeoutSeconds: 120 }, suspend: true });
    expect(objects.find((o) => o.kind === 'RayService').spec.serveConfigV2).toContain('import_path: app.main:deployment');
  });
});
