// `cdk8s-kueue-ray check` as a user runs it: the package's bin (the esbuild bundle of `npm run bundle`)
// on files in a temp dir, with its exit codes and its output on stdout/stderr.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { freePort } from '../e2e/support/cluster';
import { bundledBin } from '../support/bundle';
import { tmpdir } from '../support/synth';

let BIN: string;

beforeAll(() => {
  BIN = bundledBin();
}, 180000);

const QUEUES = `apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: cluster-queue
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default-flavor
      resources:
      - name: cpu
        nominalQuota: "3"
      - name: memory
        nominalQuota: 6G
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: user-queue
  namespace: default
spec:
  clusterQueue: cluster-queue
`;

function job(name: string, shutdown: string): string {
  return `apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: ${name}
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  entrypoint: python -c "print(1)"
${shutdown}  rayClusterSpec:
    headGroupSpec:
      template:
        spec:
          containers:
          - name: ray-head
            image: rayproject/ray:2.46.0
            resources:
              requests:
                cpu: "1"
                memory: 2Gi
`;
}

function cli(args: string[], opts: { cwd?: string; input?: string; command?: string[] } = {}): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...(opts.command ?? ['check']), ...args],
    { cwd: opts.cwd, input: opts.input ?? '', encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

describe('the bundled bin', () => {
  let dir: string;
  beforeAll(() => {
    dir = tmpdir();
    fs.mkdirSync(path.join(dir, 'manifests'));
    fs.writeFileSync(path.join(dir, 'manifests', 'queues.yaml'), QUEUES);
    fs.writeFileSync(path.join(dir, 'manifests', 'jobs.yaml'), `${job('good', '  shutdownAfterJobFinishes: true\n')}---\n${job('bad', '')}`);
    fs.writeFileSync(path.join(dir, 'good.yaml'), job('good', '  shutdownAfterJobFinishes: true\n'));
  });

  test('errors: exit 1, compiler-style lines relative to where it runs', () => {
    const { code, out, err } = cli(['manifests'], { cwd: dir });
    expect(err).toBe('');
    expect(code).toBe(1);
    // The bad job is the second document; the missing field is shown at its parent, the spec: key.
    const lines = fs.readFileSync(path.join(dir, 'manifests', 'jobs.yaml'), 'utf8').split('\n');
    const specLine = lines.findIndex((l, i) => i > 20 && l === 'spec:') + 1;
    expect(out).toContain(`manifests/jobs.yaml:${specLine}:1: error: RayJob default/bad: spec.shutdownAfterJobFinishes (not written; shown at spec): `
      + 'a kueue managed job should delete the cluster after finishing');
    expect(out).toMatch(/^check: 1 error, 0 warnings in 2 Ray objects and 2 Kueue objects \(2 files\)/m);
  });

  test('no errors: exit 0', () => {
    const { code, out } = cli(['good.yaml', '--queues=manifests/queues.yaml'], { cwd: dir });
    expect(code).toBe(0);
    expect(out).toMatch(/^check: 0 errors, 0 warnings in 1 Ray object \(1 file\); .* queues from --queues /m);
  });

  test('--output json and sarif parse; the SARIF result names the file relative to the working directory', () => {
    const j = cli(['manifests', '--output=json'], { cwd: dir });
    expect(j.code).toBe(1);
    expect(JSON.parse(j.out).findings.map((f: any) => [f.rule, f.location.file])).toEqual([['rayJobShutdownAfterFinish', 'manifests/jobs.yaml']]);
    const s = cli(['manifests', '--output', 'sarif'], { cwd: dir });
    expect(s.code).toBe(1);
    const log = JSON.parse(s.out);
    expect(log.version).toBe('2.1.0');
    expect(log.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri).toBe('manifests/jobs.yaml');
  });

  test('standard input', () => {
    const { code, out } = cli(['-', '--queues=manifests/queues.yaml'], { cwd: dir, input: job('piped', '') });
    expect(code).toBe(1);
    expect(out).toMatch(/^-:7:1: error: RayJob default\/piped: spec.shutdownAfterJobFinishes/m);
  });

  test('usage errors: exit 2 with the reason in one line and a pointer to --help; a missing file: exit 2 too', () => {
    for (const args of [[], ['good.yaml', '--output=xml'], ['good.yaml', '--kueue-version=v9']]) {
      const { code, out, err } = cli(args, { cwd: dir });
      expect([args, code]).toEqual([args, 2]);
      expect(out).toBe('');
      expect(err).toMatch(/^cdk8s-kueue-ray check: [^\n]+\nSee 'cdk8s-kueue-ray check --help' for usage\.\n$/);
    }
    const missing = cli(['missing.yaml'], { cwd: dir });
    expect([missing.code, missing.out, missing.err]).toEqual([2, '', 'cdk8s-kueue-ray check: missing.yaml: no such file or directory\n']);
    expect(cli(['--help']).code).toBe(0);
  });

  test('the command and plan behave like kubectl: --help on stdout (0), usage errors as text on stderr (2), --fail-on (1)', () => {
    const run = (args: string[]) => cli(args, { cwd: dir, command: [] });
    for (const args of [['--help'], [], ['plan', '--help']]) {
      const r = run(args);
      expect([args, r.code, r.err]).toEqual([args, 0, '']);
      expect(r.out).toMatch(/^usage: cdk8s-kueue-ray /);
    }
    for (const args of [['bogus'], ['plan', '--bogus'], ['plan', 'manifests', '--fail-on=everything'], ['plan', '--kueue-version=v0.9.1']]) {
      const r = run(args);
      expect([args, r.code, r.out]).toEqual([args, 2, '']);
      expect(r.err).toMatch(/^cdk8s-kueue-ray( plan)?: [^\n]+\nSee 'cdk8s-kueue-ray( plan)? --help' for usage\.\n$/);
      expect(r.err).not.toMatch(/^\{/); // text, not a JSON log line
    }
    // The second toy job stays pending on the 3 CPU queue: --fail-on=pending fails the run, with the plan still printed.
    const pending = run(['plan', 'manifests', '--fail-on=pending,never-admissible']);
    expect(pending.code).toBe(1);
    expect(pending.out).toMatch(/^Plan for Kueue v0.19.2/);
    expect(pending.err).toMatch(/--fail-on pending: RayJob default\/\S+ pending/);
    expect(run(['plan', 'manifests']).code).toBe(0);
    // An unreadable input is a failure of the command, reported as text.
    const missing = run(['plan', 'nowhere']);
    expect([missing.code, missing.err]).toEqual([2, expect.stringMatching(/^cdk8s-kueue-ray plan: nowhere: no such file or folder/)]);
  });

  test('a cluster that cannot be reached: exit 2, naming the kubeconfig', async () => {
    const port = await freePort();
    const kc = path.join(dir, 'kubeconfig');
    fs.writeFileSync(kc, `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "https://127.0.0.1:${port}", insecure-skip-tls-verify: true}\nusers:\n- name: u\n  user: {token: t}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n`);
    const { code, out, err } = cli(['good.yaml', `--kubeconfig=${kc}`], { cwd: dir });
    expect(out).toBe('');
    expect(err).toContain(`with the kubeconfig ${kc}`);
    expect(err).toMatch(/ECONNREFUSED|connect/);
    expect(code).toBe(2);
  });

  test('a large report piped to another process is written in full before the exit', () => {
    const many = Array.from({ length: 400 }, (_, i) => job(`bad-${i}`, '')).join('---\n');
    fs.writeFileSync(path.join(dir, 'many.yaml'), many);
    const { code, out } = cli(['many.yaml', '--queues=manifests/queues.yaml', '--output=json'], { cwd: dir });
    expect(code).toBe(1);
    expect(out.length).toBeGreaterThan(200_000);
    expect(JSON.parse(out).summary).toEqual({ errors: 400, warnings: 0, objects: 400, kueueObjects: 0, files: 1 });
  });
});
