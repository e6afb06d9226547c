// `cdk8s-kueue-ray check` on YAML files: which findings, where (file:line:col), with which queues,
// versions and gate, and the exit code; the JSON report and the SARIF log (validated against the
// SARIF 2.1.0 JSON schema Microsoft's SARIF SDK ships in @microsoft/jest-sarif).
import * as fs from 'fs';
import * as path from 'path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { check, CheckDependencies, parseCheckArgs, runCheck } from '../../src/cli/check';
import { CheckReport, renderText } from '../../src/cli/check-report';
import { parsePlanArgs } from '../../src/cli/plan';
import { RULE_DESCRIPTIONS } from '../../src/cli/rule-descriptions';
import { artifactUri, sarifLog } from '../../src/cli/sarif';
import { RULES } from '../../src/policy';
import { REPO_ROOT } from '../support/upstream';
import { tmpdir, tmpFiles } from '../support/synth';
import { toyRayClusterSpecYaml } from '../support/toy-job';
import { UsageError } from '../../src/cli/yaml-source';

const QUEUES = `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cluster-queue}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default-flavor
      resources:
      - {name: cpu, nominalQuota: "3"}
      - {name: memory, nominalQuota: 6G}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue, namespace: default}
spec: {clusterQueue: cluster-queue}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: dev-priority}
value: 100
`;

/** The toy RayJob; `extra` lines go under metadata.labels, `spec` replaces the lifecycle lines. */
function rayJob(opts: { name?: string; labels?: string[]; lifecycle?: string[]; workerCpu?: string; namespace?: string } = {}): string {
  const labels = opts.labels ?? ['kueue.x-k8s.io/queue-name: user-queue'];
  return `apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: ${opts.name ?? 'toy'}
${opts.namespace ? `  namespace: ${opts.namespace}\n` : ''}${labels.length ? `  labels:\n${labels.map((l) => `    ${l}\n`).join('')}` : ''}spec:
  entrypoint: python -c "print(1)"
${(opts.lifecycle ?? ['shutdownAfterJobFinishes: true']).map((l) => `  ${l}\n`).join('')}${toyRayClusterSpecYaml(opts.workerCpu)}`;
}

const files = tmpFiles;

/** Runs the command as main.ts does and captures what it prints. */
async function run(argv: string[], deps: CheckDependencies = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await check(argv, { stdout: (s) => { out += s; }, stderr: (s) => { err += s; } }, deps);
  return { code, out, err };
}

const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe('findings and where they are', () => {
  test('an error points at the offending field; exit 1', async () => {
    const job = rayJob({ lifecycle: ['shutdownAfterJobFinishes: false'] });
    const dir = files({ 'queues.yaml': QUEUES, 'jobs/job.yaml': job });
    const { code, out } = await run([dir]);
    expect(code).toBe(1);
    const file = path.join(dir, 'jobs', 'job.yaml');
    expect(out).toContain(`${file}:${lineOf(job, 'shutdownAfterJobFinishes')}:3: error: RayJob default/toy: spec.shutdownAfterJobFinishes: a kueue `
      + 'managed job should delete the cluster after finishing');
    expect(out).toMatch(/ {4}fix: set spec.shutdownAfterJobFinishes: true/);
    expect(out).toMatch(/ {4}rule: rayJobShutdownAfterFinish \(kueue-webhook\)/);
    expect(out).toMatch(new RegExp('check: 1 error, 0 warnings in 1 Ray object and 4 Kueue objects \\(2 files\\); Kueue v0.19.2 \\(default\\), '
      + 'KubeRay v1.6.2 \\(default\\), elastic gate unknown \\(default\\); queues from the files \\(1 LocalQueue, 1 ClusterQueue'));
  });

  test('an absent field points at its nearest written parent, and says so', async () => {
    const job = rayJob({ lifecycle: [] });
    const dir = files({ 'all.yaml': `${QUEUES}---\n${job}` });
    const r = await runCheck({ files: [dir], output: 'json' });
    const f = r.findings.find((x) => x.rule === 'rayJobShutdownAfterFinish')!;
    expect(f.location).toMatchObject({ exact: false, resolvedField: 'spec', column: 1 });
    const allText = `${QUEUES}---\n${job}`;
    expect(allText.split('\n')[f.location.line - 1]).toBe('spec:');
    expect(renderText(r)).toContain('spec.shutdownAfterJobFinishes (not written; shown at spec): ');
  });

  test('a cross-object finding on a label points at the label; the queue objects come from the same files', async () => {
    const job = rayJob({ labels: ['kueue.x-k8s.io/queue-name: user-queue', 'kueue.x-k8s.io/priority-class: gold'] });
    const dir = files({ 'q.yaml': QUEUES, 'j.yaml': job });
    const r = await runCheck({ files: [dir], output: 'text' });
    const f = r.findings.find((x) => x.rule === 'priorityClassAllowed')!;
    expect(f.severity).toBe('error');
    expect(f.location).toMatchObject({ file: path.join(dir, 'j.yaml'), line: lineOf(job, 'priority-class: gold'), column: 5, exact: true });
  });

  test('a gang that can never fit: error on the queue label with the numbers; a PodSet too big for any flavor: error '
    + 'on the worker group', async () => {
    const job = rayJob({ workerCpu: '2' });
    const dir = files({ 'q.yaml': QUEUES, 'j.yaml': job });
    const f = (await runCheck({ files: [dir], output: 'text' })).findings.find((x) => x.rule === 'gangCanEverFit')!;
    expect(f.message).toMatch(/the gang needs cpu 3.5, .* can provide at most cpu 3, /);
    expect(f.location).toMatchObject({ line: lineOf(job, 'queue-name: user-queue'), exact: true });
    const big = rayJob({ workerCpu: '4' });
    const dir2 = files({ 'q.yaml': QUEUES, 'j.yaml': big });
    const g = (await runCheck({ files: [dir2], output: 'text' })).findings.find((x) => x.rule === 'gangCanEverFit')!;
    expect(g.message).toMatch(/PodSet "small-group" needs cpu 4/);
    expect(g.field).toBe('spec.rayClusterSpec.workerGroupSpecs[0]');
    expect(g.location).toMatchObject({ line: lineOf(big, 'groupName: small-group'), column: 7, exact: true });
  });

  test('warnings alone exit 0', async () => {
    // Fits only by borrowing: a warning. Two ClusterQueues in a cohort, the job's one has 1 CPU nominal.
    const q = QUEUES.replace('namespaceSelector: {}', 'namespaceSelector: {}\n  cohortName: c').replace('nominalQuota: "3"', 'nominalQuota: "1"')
      + '---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: lender}\nspec:\n  cohortName: c\n  namespaceSelector: {}\n  '
      + 'resourceGroups:\n  - coveredResources: [cpu, memory]\n    flavors:\n    - name: default-flavor\n      resources:\n      - {name: cpu, '
      + 'nominalQuota: "8"}\n      - {name: memory, nominalQuota: 16Gi}\n';
    const dir = files({ 'q.yaml': q, 'j.yaml': rayJob() });
    const { code, out } = await run([dir]);
    expect(out).toMatch(/warning: RayJob default\/toy: metadata.labels\[kueue.x-k8s.io\/queue-name\]: the gang needs .* only by borrowing cpu/);
    expect(out).toMatch(/check: 0 errors, 1 warning/);
    expect(code).toBe(0);
  });

  test('a clean object: no findings, exit 0', async () => {
    const dir = files({ 'q.yaml': QUEUES, 'j.yaml': rayJob() });
    const { code, out } = await run([dir]);
    expect(code).toBe(0);
    expect(out).toMatch(/^check: 0 errors, 0 warnings in 1 Ray object/m);
  });

  test('without any queues the cross-object rules do not run, and a note says so', async () => {
    const dir = files({ 'j.yaml': rayJob({ labels: ['kueue.x-k8s.io/queue-name: nowhere'] }) });
    const r = await runCheck({ files: [dir], output: 'text' });
    expect(r.inventory).toBeNull();
    expect(r.findings).toEqual([]);
    expect(r.notes.join('\n')).toMatch(/no queues: .* the cross-object rules .* did not run/);
  });

  test('--queues gives the queues; a missing LocalQueue is then an error', async () => {
    const q = files({ 'queues.yaml': QUEUES });
    const dir = files({ 'j.yaml': rayJob({ labels: ['kueue.x-k8s.io/queue-name: nowhere'] }) });
    const r = await runCheck({ files: [dir], queues: [q], output: 'text' });
    expect(r.inventory).toMatchObject({ from: ['queues'], localQueues: 1, clusterQueues: 1, priorityClasses: 1 });
    expect(r.findings.map((f) => f.rule)).toEqual(['queueExists']);
    expect(r.findings[0].message).toMatch(/LocalQueue "nowhere" does not exist in namespace "default"/);
  });

  test('--kubeconfig queues merge under --queues and the files (the files win)', async () => {
    const calls: string[] = [];
    // The cluster's ClusterQueue has 1 CPU; the file's has 3: the file's is used.
    const cq = (cpu: string) => ({ apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ClusterQueue', metadata: { name: 'cluster-queue' }, spec: {
      namespaceSelector: {}, resourceGroups: [{ coveredResources: ['cpu', 'memory'],
        flavors: [{ name: 'default-flavor', resources: [{ name: 'cpu', nominalQuota: cpu }, { name: 'memory', nominalQuota: '6G' }] }] }],
    } });
    const lq = { apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'LocalQueue', metadata: { name: 'user-queue', namespace: 'default' },
      spec: { clusterQueue: 'cluster-queue' } };
    const deps: CheckDependencies = {
      cluster: (k) => ({
        install: async () => ({ objects: [], notes: [] }),
        queues: async (v) => {
          calls.push(`${k} ${v}`);
          return { objects: { localQueues: [lq], clusterQueues: [cq('1')], cohorts: [], priorityClasses: [], namespaces: [] },
            notes: ['the cluster serves no cohorts: taken as none'] };
        },
      }),
    };
    const onlyJob = files({ 'j.yaml': rayJob() });
    const live = await runCheck({ files: [onlyJob], kubeconfig: '/k', output: 'text', kueueVersion: 'v0.13.4' }, deps);
    expect(calls).toEqual(['/k kueue.x-k8s.io/v1beta1']);
    expect(live.inventory?.from).toEqual(['cluster']);
    expect(live.findings.map((f) => f.rule)).toEqual(['gangCanEverFit']);
    expect(live.notes).toContain('the cluster serves no cohorts: taken as none');
    const withFile = files({ 'j.yaml': rayJob(), 'cq.yaml': JSON.stringify(cq('3')) });
    const merged = await runCheck({ files: [withFile], kubeconfig: '/k', output: 'text' }, deps);
    expect(merged.inventory?.from).toEqual(['cluster', 'files']);
    expect(merged.findings).toEqual([]);
  });

  test('--kubeconfig: the Kueue version and gate from the cluster\'s manager, unless the files or flags say otherwise', async () => {
    const manager = (tag: string, gate: string) => ({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'kueue-controller-manager', namespace: 'kueue-system' },
      spec: { template: { spec: { containers: [{ name: 'manager', image: `registry.k8s.io/kueue/kueue:${tag}`,
        args: [`--feature-gates=ElasticJobsViaWorkloadSlices=${gate}`] }] } } },
    });
    const versions: string[] = [];
    const deps = (tag: string, gate: string): CheckDependencies => ({
      cluster: () => ({
        install: async () => ({ objects: [manager(tag, gate)], notes: [] }),
        queues: async (v) => {
          versions.push(v);
          return { objects: { localQueues: [], clusterQueues: [], cohorts: [], priorityClasses: [], namespaces: [] }, notes: [] };
        },
      }),
    });
    const dir = files({ 'j.yaml': rayJob() });
    const live = await runCheck({ files: [dir], kubeconfig: '/k', output: 'text' }, deps('v0.14.8', 'true'));
    expect(live.context)
      .toMatchObject({ kueue: 'v0.14.8', kueueFrom: 'cluster', elasticGate: 'on', elasticGateFrom: 'cluster', kubeRayFrom: 'default' });
    expect(versions).toEqual(['kueue.x-k8s.io/v1beta1']);
    // A patch that is not modelled runs as the modelled patch of its minor, as plan and the flags map it.
    const patch = await runCheck({ files: [dir], kubeconfig: '/k', output: 'text' }, deps('v0.14.9', 'true'));
    expect(patch.context).toMatchObject({ kueue: 'v0.14.8', kueueFrom: 'cluster', elasticGate: 'on', elasticGateFrom: 'cluster' });
    expect(patch.notes).toContain('Kueue v0.14.9 is not modelled itself: it runs as v0.14.8, the modelled patch of v0.14 closest below it '
      + '(modelled: v0.14.8)');
    const unsupported = await runCheck({ files: [dir], kubeconfig: '/k', output: 'text' }, deps('v0.12.0', 'false'));
    expect(unsupported.context).toMatchObject({ kueue: 'v0.19.2', kueueFrom: 'default', elasticGate: 'off', elasticGateFrom: 'cluster' });
    expect(unsupported.notes).toContain('the cluster runs Kueue v0.12.0, which check does not support: the check ran for the default instead');
    const flagged = await runCheck({ files: [dir], kubeconfig: '/k', output: 'text', kueueVersion: 'v0.17.8', elasticGate: 'unknown' },
      deps('v0.14.8', 'true'));
    expect(flagged.context).toMatchObject({ kueue: 'v0.17.8', kueueFrom: 'flag', elasticGate: 'unknown', elasticGateFrom: 'flag' });
    expect(flagged.notes).toContain('the cluster runs Kueue v0.14.8, but the check ran for v0.17.8 (the flag)');
  });

  test('objects without a namespace get --namespace, as kubectl apply -n does', async () => {
    const lq = QUEUES.replace('{name: user-queue, namespace: default}', '{name: user-queue}');
    const dir = files({ 'q.yaml': lq, 'j.yaml': rayJob() });
    const r = await runCheck({ files: [dir], output: 'text', namespace: 'team-x' });
    expect(r.objects.map((o) => o.object)).toEqual(['RayJob team-x/toy']);
    expect(r.findings).toEqual([]);
  });

  test('a tenant namespace: the object is checked with the labels the mutating webhook adds', async () => {
    const tenant = QUEUES.replace('metadata: {name: user-queue, namespace: default}',
      'metadata:\n  name: user-queue\n  namespace: default\n  annotations:\n    cdk8s-kueue-ray.io/allowed-priority-classes: dev-priority\n    '
        + 'cdk8s-kueue-ray.io/default-priority-class: dev-priority');
    const dir = files({ 'q.yaml': tenant, 'j.yaml': rayJob({ labels: [], lifecycle: [] }) });
    const r = await runCheck({ files: [dir], output: 'text' });
    expect(r.objects[0].note)
      .toBe('checked with the labels the controller\'s mutating webhook adds in this tenant namespace: kueue.x-k8s.io/queue-name: user-queue, '
        + 'kueue.x-k8s.io/priority-class: dev-priority');
    // Queued by the webhook, so Kueue's rules apply: the missing shutdownAfterJobFinishes is an error.
    expect(r.findings.map((f) => f.rule)).toContain('rayJobShutdownAfterFinish');
    expect(r.findings.map((f) => f.rule)).not.toContain('tenantQueueLabel');
  });

  test('objects KubeRay creates for a RayJob (controller owner reference) are skipped; a plain owner reference is checked', async () => {
    const owned = rayJob({ lifecycle: [] }).replace('kind: RayJob', 'kind: RayCluster').replace('  name: toy\n',
      '  name: toy\n  ownerReferences:\n  - {apiVersion: ray.io/v1, kind: RayJob, name: toy, uid: u, controller: true}\n');
    const dir = files({ 'q.yaml': QUEUES, 'c.yaml': owned });
    const { code, out } = await run([dir]);
    expect(code).toBe(0);
    expect(out).toMatch(/c\.yaml:1: skipped RayCluster default\/toy: controlled by RayJob "toy": KubeRay creates it from its owner/);
    // Without controller: true Kueue manages the object itself (IsOwnerManagedByKueueForObject), so check does too.
    const plain = files({ 'q.yaml': QUEUES, 'c.yaml': owned.replace(', controller: true', '') });
    expect((await run([plain])).out).not.toMatch(/skipped/);
  });

  test('a YAML syntax error is an error finding at its position; the other documents are checked', async () => {
    const dir = files({ 'bad.yaml': 'kind: RayJob\nmetadata:\n  name: a\n  name: b\n', 'q.yaml': QUEUES, 'j.yaml': rayJob({ lifecycle: [] }) });
    const r = await runCheck({ files: [dir], output: 'text' });
    const syntax = r.findings.find((f) => f.rule === 'yamlSyntax')!;
    expect(syntax.location).toMatchObject({ file: path.join(dir, 'bad.yaml'), line: 4 });
    expect(r.findings.map((f) => f.rule)).toContain('rayJobShutdownAfterFinish');
  });

  test('quantities print in the units written, and a gang compared with a 6G quota in one unit family', async () => {
    const job = rayJob().replace(/memory: 2Gi/g, 'memory: 5G').replace(/(ray-worker[\s\S]*?)memory: 5G/g, '$1memory: 1000Mi');
    const { out } = await run([files({ 'q.yaml': QUEUES, 'j.yaml': job })]);
    expect(out).toMatch(/head 1×\(cpu 1, memory 5G\) \+ small-group 1×\(cpu 1, memory 1000Mi\)/);
    // 5G + 1000Mi + the submitter's 200Mi (6111347Ki) against 6G: both in Mi.
    expect(out).toMatch(/the gang needs cpu 2\.5, memory 5968\.37Mi .*can provide at most cpu 3, memory 5722\.05Mi/);
    expect(out).not.toMatch(/[0-9]Ki\b/);
  });

  test('documents are counted from 1, like lines, in the text and the JSON', async () => {
    const dir = files({ 'two.yaml': `${rayJob({ lifecycle: [] })}---\nkind: RayJob\nmetadata:\n  name: a\n  name: b\n` });
    const r = await runCheck({ files: [dir], output: 'json' });
    expect(r.findings.find((f) => f.rule === 'yamlSyntax')).toMatchObject({ object: `document 2 of ${path.join(dir, 'two.yaml')}`,
      location: { document: 2 } });
    expect(r.objects).toEqual([expect.objectContaining({ object: 'RayJob default/toy', document: 1 })]);
  });

  test('versions and the elastic gate come from a Kueue install in the files unless flags say otherwise', async () => {
    const install = `apiVersion: apps/v1
kind: Deployment
metadata: {name: kueue-controller-manager, namespace: kueue-system}
spec:
  template:
    spec:
      containers:
      - name: manager
        image: registry.k8s.io/kueue/kueue:v0.14.8
        args: [--config=/controller_manager_config.yaml, "--feature-gates=ElasticJobsViaWorkloadSlices=false"]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: kuberay-operator}
spec:
  template:
    spec:
      containers:
      - {name: kuberay-operator, image: quay.io/kuberay/operator:v1.4.2}
`;
    const elastic = `apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: el
  labels: {kueue.x-k8s.io/queue-name: user-queue}
  annotations: {kueue.x-k8s.io/elastic-job: "true"}
spec:
  headGroupSpec:
    template:
      spec:
        containers:
        - {name: ray-head, image: rayproject/ray:2.46.0, resources: {requests: {cpu: "1", memory: 1Gi}}}
`;
    // The queues as Kueue v0.14.8 serves them (v1beta2 only from 0.15: kueueApiVersionServed).
    const dir = files({ 'install.yaml': install, 'q.yaml': QUEUES.replace(/kueue\.x-k8s\.io\/v1beta2/g, 'kueue.x-k8s.io/v1beta1'), 'c.yaml': elastic });
    const r = await runCheck({ files: [dir], output: 'text' });
    expect(r.context)
      .toMatchObject({ kueue: 'v0.14.8', kueueFrom: 'files', kubeRay: 'v1.4.2', kubeRayFrom: 'files', elasticGate: 'off', elasticGateFrom: 'files' });
    expect(r.findings.map((f) => [f.rule, f.severity])).toEqual([['elasticFeatureGate', 'error']]);
    expect(r.findings[0].location.line).toBe(lineOf(elastic, 'elastic-job'));
    const flagged = await runCheck({ files: [dir], output: 'text', kueueVersion: 'v0.19.2', elasticGate: 'on' });
    expect(flagged.context).toMatchObject({ kueue: 'v0.19.2', kueueFrom: 'flag', elasticGate: 'on', elasticGateFrom: 'flag' });
    expect(flagged.findings).toEqual([]);
    expect(flagged.notes).toContain('the files install Kueue v0.14.8, but the check ran for v0.19.2 (the flag)');
    // The manager without a gate value: the version's default (off on 0.14.8, on from 0.18).
    const noGate = files({ 'install.yaml': install.replace(', "--feature-gates=ElasticJobsViaWorkloadSlices=false"', ''), 'q.yaml': QUEUES,
      'c.yaml': elastic });
    expect((await runCheck({ files: [noGate], output: 'text' })).context).toMatchObject({ elasticGate: 'off', elasticGateFrom: 'files' });
  });

  test('metadata of the wrong type is reported, not papered over', async () => {
    const dir = files({ 'q.yaml': QUEUES, 'j.yaml': 'apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: just-a-string\nspec: {}\n' });
    const r = await runCheck({ files: [dir], output: 'text' });
    // The CRD schema, where the package carries it, also refuses `spec: {}` (no headGroupSpec): that finding is on spec.
    expect(r.findings.filter((f) => f.rule !== 'crdSchema').map((f) => [f.rule, f.field, f.location.line])).toEqual([['objectShape', 'metadata', 3]]);
    expect(r.findings.filter((f) => f.rule === 'crdSchema').every((f) => f.field.startsWith('spec'))).toBe(true);
  });

  test('standard input', async () => {
    const r = await runCheck({ files: ['-'], output: 'text' }, { stdin: () => `${QUEUES}---\n${rayJob({ lifecycle: [] })}` });
    expect(r.findings.map((f) => [f.rule, f.location.file])).toContainEqual(['rayJobShutdownAfterFinish', '-']);
  });
});

describe('usage', () => {
  test.each([
    [[], /no FILES given/],
    [['x.yaml', '--output=xml'], /--output takes text, json or sarif, got 'xml'/],
    [['x.yaml', '--kueue-version=v0.9.0'], /--kueue-version: Kueue v0.9.0 is not modelled: choose a patch of v0.13, v0.14, v0.17, v0.19/],
    [['x.yaml', '--kuberay-version=latest'], /--kuberay-version: KubeRay version 'latest' is not a version like v1.7.0/],
    [['EMPTY'], /no YAML file was found .*: nothing to check\. .* or --allow-empty when an empty input is expected/],
    [['x.yaml', '--elastic-gate=maybe'], /--elastic-gate takes on, off or unknown/],
    [['x.yaml', '--colour=yes'], /unknown flag '--colour'; known: -f, --filename, -o, --output, -n, --namespace, .*, --allow-empty, --verbose, -h, --help/],
    [['x.yaml', '--output'], /--output needs a value/],
    [['EMPTY', '--kubeconfig=/nonexistent/kubeconfig'], /--kubeconfig \/nonexistent\/kubeconfig: no such file/],
  ])('%j: exit 2 with the reason', async (argv, message) => {
    const { code, out, err } = await run((argv as string[]).map((a) => (a === 'EMPTY' ? tmpdir() : a)));
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toMatch(message);
  });

  test('files without a Ray object are an error unless --allow-empty; --queues without queues is one too', async () => {
    const dir = files({ 'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n' });
    const empty = await run([dir]);
    expect([empty.code, empty.err]).toEqual([2, expect.stringMatching(/cm\.yaml holds no Ray object .*nothing to check/)]);
    const allowed = await run([dir, '--allow-empty']);
    expect(allowed.code).toBe(0);
    expect(allowed.out).toMatch(/note: .*cm\.yaml holds no Ray object/);
    const jobs = files({ 'j.yaml': rayJob() });
    const noQueues = await run([jobs, `--queues=${dir}`]);
    expect(noQueues.code).toBe(2);
    expect(noQueues.err).toMatch(/--queues .*: no LocalQueue, ClusterQueue, Cohort or WorkloadPriorityClass in it/);
  });

  test('a version flag takes any patch of a modelled minor, with or without the v, and says which modelled patch it runs as', async () => {
    expect(parseCheckArgs(['a', '--kueue-version=0.19.1', '--kuberay-version=v1.6.2'])).toMatchObject({ kueueVersion: 'v0.19.2',
      kubeRayVersion: 'v1.6.2',
      versionNotes: ['Kueue v0.19.1 is not modelled itself: it runs as v0.19.2, the modelled patch of v0.19 closest above it (modelled: v0.19.2)'] });
    expect(parseCheckArgs(['a', '--kueue-version=v0.17.5'])).toMatchObject({ kueueVersion: 'v0.17.0' });
    expect(parseCheckArgs(['a', '--kueue-version=v0.17.9'])).toMatchObject({ kueueVersion: 'v0.17.8' });
    const dir = files({ 'j.yaml': rayJob() });
    const r = await run([dir, '--kuberay-version=1.5.0']);
    expect(r.out).toMatch(/note: KubeRay v1.5.0 is not modelled itself: it runs as v1.5.2/);
    expect(r.out).toMatch(/KubeRay v1\.5\.2 \(flag\)/);
  });

  test('a cluster that cannot be reached: exit 2, naming the kubeconfig', async () => {
    const dir = files({ 'j.yaml': rayJob() });
    const refused = async (): Promise<never> => { throw new Error('cannot read localqueues with the kubeconfig /k: connect ECONNREFUSED'); };
    const { code, err } = await run([dir, '--kubeconfig=/k'], { cluster: () => ({ install: refused, queues: refused }) });
    expect(code).toBe(2);
    expect(err).toMatch(/kubeconfig \/k: connect ECONNREFUSED/);
  });

  test('--help prints the usage, exit 0; flags take "--x=v" and "--x v"; --queues repeats and takes commas', async () => {
    const h = await run(['--help']);
    expect(h.code).toBe(0);
    expect(h.out).toMatch(/^usage: cdk8s-kueue-ray check FILE\|DIR\|- /);
    expect(h.out).toMatch(/KubeRay v1.4.2, v1.5.2, v1.6.2, v1.7.0 \(modelled, not run\);/);
    // check and plan take the modelled-only version like any other.
    expect(parseCheckArgs(['a', '--kuberay-version=1.7.0'])).toMatchObject({ kubeRayVersion: 'v1.7.0', versionNotes: [] });
    expect(parsePlanArgs(['a', '--kuberay-version', 'v1.7.0'])).toMatchObject({ kubeRay: 'v1.7.0', versionNotes: [] });
    // An unmodelled version is refused by both with the same message, naming the flag.
    const thrown = (parse: () => unknown) => { try { parse(); } catch (e) { return e as Error; } return undefined; };
    for (const [flag, value] of [['--kueue-version', 'v0.9.0'], ['--kuberay-version', 'latest']]) {
      const fromCheck = thrown(() => parseCheckArgs(['a', flag, value]));
      const fromPlan = thrown(() => parsePlanArgs(['a', flag, value]));
      expect(fromCheck).toBeInstanceOf(UsageError);
      expect(fromCheck?.message).toMatch(new RegExp(`^${flag}: `));
      expect(fromPlan).toBeInstanceOf(UsageError);
      expect(fromPlan?.message).toBe(fromCheck?.message);
    }
    expect(parseCheckArgs(['a', '--output', 'json', '--queues=q1,q2', '--queues', 'q3', 'b']))
      .toMatchObject({ files: ['a', 'b'], output: 'json', queues: ['q1', 'q2', 'q3'] });
  });
});

describe('--output json', () => {
  test('the report: context, inventory, objects, findings with locations, summary', async () => {
    const job = rayJob({ lifecycle: ['shutdownAfterJobFinishes: false'] });
    const dir = files({ 'q.yaml': QUEUES, 'j.yaml': job });
    const { code, out } = await run([dir, '--output=json']);
    expect(code).toBe(1);
    const r: CheckReport = JSON.parse(out);
    expect(r).toMatchObject({
      schemaVersion: 2, tool: 'cdk8s-kueue-ray check',
      context: { kueue: 'v0.19.2', kubeRay: 'v1.6.2', elasticGate: 'unknown', namespace: 'default' },
      inventory: { from: ['files'], localQueues: 1, clusterQueues: 1, cohorts: 0, priorityClasses: 1, namespaces: 0 },
      files: [path.join(dir, 'j.yaml'), path.join(dir, 'q.yaml')],
      objects: [{ object: 'RayJob default/toy', file: path.join(dir, 'j.yaml'), document: 1, line: 1, status: 'checked' }],
      summary: { errors: 1, warnings: 0, objects: 1, kueueObjects: 4, files: 2 },
    });
    expect(r.findings).toEqual([{
      rule: 'rayJobShutdownAfterFinish', severity: 'error', object: 'RayJob default/toy', field: 'spec.shutdownAfterJobFinishes',
      source: 'kueue-webhook',
      message: expect.stringMatching(/should delete the cluster/), fix: expect.any(String),
      location: { file: path.join(dir, 'j.yaml'), document: 1, line: lineOf(job, 'shutdownAfterJobFinishes'), column: 3,
        endLine: lineOf(job, 'shutdownAfterJobFinishes'), endColumn: 34, exact: true, resolvedField: 'spec.shutdownAfterJobFinishes' },
    }]);
  });
});

describe('--output sarif', () => {
  const schemaFile = path.join(path.dirname(require.resolve('@microsoft/jest-sarif/package.json')), 'lib', 'schemas', 'sarif-2.1.0-rtm.5.json');
  /**
   * The SARIF 2.1.0 schema is draft-04; ajv 8 validates draft-06+ only. The schema uses only keywords
   * whose meaning draft-04 and draft-07 share ($ref, type, properties, additionalProperties, required,
   * items, minItems, uniqueItems, enum, pattern, minimum, maximum, anyOf, oneOf, format): validated
   * as draft-07 after dropping the draft-04 `$schema` and `id`. The test asserts that keyword list.
   */
  function sarifValidator() {
    const schema = JSON.parse(fs.readFileSync(schemaFile, 'utf8'));
    expect(schema.title).toMatch(/SARIF\) Version 2\.1\.0/);
    const keywords = new Set<string>();
    const walk = (o: any, names: boolean) => {
      if (Array.isArray(o)) return o.forEach((x) => walk(x, false));
      if (!o || typeof o !== 'object') return;
      for (const [k, v] of Object.entries(o)) {
        if (!names) keywords.add(k);
        walk(v, !names && (k === 'properties' || k === 'definitions'));
      }
    };
    walk(schema, false);
    const shared = ['$ref', '$schema', 'id', 'title', 'description', 'default', 'definitions', 'type', 'properties', 'additionalProperties',
      'required', 'items',
      'minItems', 'uniqueItems', 'enum', 'pattern', 'minimum', 'maximum', 'anyOf', 'oneOf', 'format'];
    expect([...keywords].filter((k) => !shared.includes(k))).toEqual([]);
    delete schema.$schema;
    delete schema.id;
    // unicodeRegExp off: one pattern of the schema (language tags) is not valid with the u flag.
    const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
    addFormats(ajv);
    return ajv.compile(schema);
  }

  test('valid SARIF 2.1.0: one rule per policy rule, results with regions; an invalid log is refused', async () => {
    const job = rayJob({ lifecycle: ['shutdownAfterJobFinishes: false'],
      labels: ['kueue.x-k8s.io/queue-name: user-queue', 'kueue.x-k8s.io/priority-class: gold'] });
    const dir = files({ 'q.yaml': QUEUES, 'j.yaml': job, 'bad.yaml': 'a: [\n' });
    const { code, out } = await run([dir, '--output=sarif']);
    expect(code).toBe(1);
    const log = JSON.parse(out);
    const validate = sarifValidator();
    expect(validate.errors ?? null).toBeNull();
    const ok = validate(log);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
    // The validator is not a rubber stamp: a result without a message is refused.
    const broken = JSON.parse(out);
    delete broken.runs[0].results[0].message;
    expect(validate(broken)).toBe(false);
    const zeroLine = JSON.parse(out);
    zeroLine.runs[0].results[0].locations[0].physicalLocation.region.startLine = 0;
    expect(validate(zeroLine)).toBe(false);
    expect(JSON.stringify(validate.errors)).toMatch(/startLine/);

    const run0 = log.runs[0];
    const ids = run0.tool.driver.rules.map((r: any) => r.id);
    for (const name of Object.keys(RULES)) expect(ids).toContain(name);
    expect(ids).toContain('tenantQueueLabel');
    expect(ids).toContain('crdSchema');
    // The driver carries the tool's version (the package's).
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
    expect([run0.tool.driver.version, run0.tool.driver.semanticVersion]).toEqual([pkg.version, pkg.version]);
    expect(run0.results.map((r: any) => [r.ruleId, r.level])).toEqual([
      ['yamlSyntax', 'error'], ['priorityClassAllowed', 'error'], ['rayJobShutdownAfterFinish', 'error'],
    ]);
    for (const r of run0.results) {
      expect(run0.tool.driver.rules[r.ruleIndex].id).toBe(r.ruleId);
      expect(r.message.text.length).toBeGreaterThan(10);
      expect(r.locations[0].physicalLocation.region.startLine).toBeGreaterThan(0);
    }
    const shutdown = run0.results[2].locations[0].physicalLocation;
    expect(shutdown.region).toEqual({ startLine: lineOf(job, 'shutdownAfterJobFinishes'), startColumn: 3,
      endLine: lineOf(job, 'shutdownAfterJobFinishes'), endColumn: 34 });
    // Outside the working directory the artifact is a file:// URI; inside, a relative path.
    expect(shutdown.artifactLocation.uri).toBe(artifactUri(path.join(dir, 'j.yaml')));
  });

  test('artifact URIs: relative under the working directory (forward slashes, encoded), else file://', () => {
    expect(artifactUri('dist/0001 x.k8s.yaml', '/repo')).toBe('dist/0001%20x.k8s.yaml');
    expect(artifactUri('/repo/dist/a.yaml', '/repo')).toBe('dist/a.yaml');
    expect(artifactUri('/elsewhere/a.yaml', '/repo')).toBe('file:///elsewhere/a.yaml');
    expect(artifactUri('-', '/repo')).toBe('stdin');
  });

  test('an empty run (no findings) is valid SARIF too', async () => {
    const dir = files({ 'q.yaml': QUEUES, 'j.yaml': rayJob() });
    const r = await runCheck({ files: [dir], output: 'sarif' });
    const validate = sarifValidator();
    expect(validate(sarifLog(r))).toBe(true);
    expect(sarifLog(r).runs[0].results).toEqual([]);
  });
});

test('every rule the policy reports under has a SARIF description', () => {
  // The names findings carry come from the rule records: a rule named by a bare string (a Reporter
  // made from a name, a finding literal with its own rule id) would have no description.
  const names = new Set(Object.keys(RULES));
  const bare: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const text = fs.readFileSync(p, 'utf8');
        for (const m of text.matchAll(/new Reporter\('([A-Za-z]+)'|rule: '([A-Za-z]+)'/g)) bare.push(`${e.name}: ${m[1] ?? m[2]}`);
        for (const m of text.matchAll(/^ {2}name: '([A-Za-z]+)', source: /gm)) names.add(m[1]);
      }
    }
  };
  walk(path.join(REPO_ROOT, 'src', 'policy'));
  walk(path.join(REPO_ROOT, 'src', 'cli'));
  expect(bare).toEqual([]);
  expect(names.size).toBeGreaterThan(20);
  expect([...names].filter((n) => !RULE_DESCRIPTIONS[n])).toEqual([]);
  expect(Object.keys(RULE_DESCRIPTIONS).sort()).toEqual([...names].sort());
});
