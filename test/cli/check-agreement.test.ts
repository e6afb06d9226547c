// `check` agrees with synth and with the webhook. For several Kueue × KubeRay pairs: the examples app
// (every scenario, also those the pair refuses) is synthesized to YAML, and KubeRay's samples from the
// vendor folder are written as-is, labelled for the guide's queue, and made elastic. `check` on all of
// it must give exactly the findings the constructs report at synth (for the samples: the same policy
// with the app's own inventory, as synth builds it) and that the webhook's decision path (mutate, then
// validate a CREATE) gives for the same objects, with the cluster view built from the same YAML. Every
// exactly-placed finding must sit on the line that writes its field.
import * as fs from 'fs';
import * as path from 'path';
import { ApiObject, Chart, Yaml } from 'cdk8s';
import { Document, parseAllDocuments } from 'yaml';
import { buildExamples, SCENARIOS } from '../../examples/app';
import { runCheck } from '../../src/cli/check';
import { CheckFinding } from '../../src/cli/check-report';
import { mutateRayObject, validateRayObject } from '../../src/controller/admission';
import { AppInventory } from '../../src/platform/inventory';
import {
  evaluateRayObject, fieldSegments, Finding, formatFinding, inventoryFromObjects, kubeRayCapabilities, kueueCapabilities, PolicyContext,
} from '../../src/policy';
import { RayWorkload } from '../../src/ray/ray-workload';
import { readManifests, tmpdir } from '../support/synth';
import { vendorDir } from '../support/upstream';

const VENDOR = vendorDir();
const describeVendor = VENDOR ? describe : describe.skip;
if (!VENDOR) {
  if (process.env.CI) throw new Error('cli-check-agreement needs the vendored upstream files: set KUEUE_RAY_VENDOR_DIR to shared/vendor');
  process.stdout.write('cli-check-agreement skipped: no vendor folder (set KUEUE_RAY_VENDOR_DIR to shared/vendor)\n');
}

/** Pairs, and whether the app holds the installs (then the gate comes from the files' Kueue Deployment). */
const PAIRS: Array<[string, string, boolean]> = [
  ['v0.19.2', 'v1.6.2', true],
  ['v0.17.8', 'v1.5.2', true],
  ['v0.14.8', 'v1.4.2', false],
  ['v0.13.4', 'v1.4.2', true],
];

const SAMPLES = ['ray-job.kueue-toy-sample.yaml', 'ray-cluster.autoscaler.yaml', 'ray-cluster.autoscaler-v2.yaml', 'ray-service.sample.yaml'];

const line = (severity: string, f: Finding) => `${severity}: ${formatFinding(f)}`;
const sorted = (a: string[]) => [...a].sort();

/** Variants of a sample's Ray objects: as written; queued for the guide's queue with a priority; elastic (queued + annotation). */
function sampleVariants(text: string): Array<[string, string]> {
  const variant = (edit: (d: Document.Parsed, rename: (suffix: string) => void) => void) => parseAllDocuments(text).map((d) => {
    const kind = String(d.get('kind'));
    if (['RayJob', 'RayCluster', 'RayService'].includes(kind)) {
      edit(d, (suffix) => {
        const gen = d.getIn(['metadata', 'generateName']);
        if (typeof gen === 'string') d.setIn(['metadata', 'generateName'], `${gen}${suffix}-`);
        else d.setIn(['metadata', 'name'], `${d.getIn(['metadata', 'name'])}-${suffix}`);
      });
    }
    return String(d);
  }).join('---\n');
  const queued = variant((d, rename) => {
    rename('q');
    d.setIn(['metadata', 'labels', 'kueue.x-k8s.io/queue-name'], 'user-queue');
    d.setIn(['metadata', 'labels', 'kueue.x-k8s.io/priority-class'], 'dev-priority');
  });
  const elastic = variant((d, rename) => {
    rename('e');
    d.setIn(['metadata', 'labels', 'kueue.x-k8s.io/queue-name'], 'ray-lq');
    d.setIn(['metadata', 'annotations', 'kueue.x-k8s.io/elastic-job'], 'true');
  });
  return [['as-is', text], ['queued', queued], ['elastic', elastic]];
}

/** The file line a finding points at writes its field (or, when not written, its nearest written parent). */
function expectOnItsLine(f: CheckFinding): void {
  const text = fs.readFileSync(f.location.file, 'utf8').split('\n')[f.location.line - 1];
  const field = f.location.exact ? f.field : f.location.resolvedField;
  if (!field) return; // the document start
  const segs = fieldSegments(field);
  const last = segs[segs.length - 1];
  if (typeof last === 'number') expect(text).toMatch(/^\s*- /);
  else expect(`${f.location.file}:${f.location.line}: ${text}`).toContain(`${last}:`);
}

describeVendor('check agrees with synth and the webhook', () => {
  let total = { findings: 0, errors: 0, located: 0, samples: 0 };
  afterAll(() => {
    process.stdout.write(`check agreement: ${total.findings} findings (${total.errors} errors) over ${PAIRS.length} version pairs, ${total.samples} `
      + `sample documents; ${total.located} placed exactly\n`);
  });

  test.each(PAIRS)('Kueue %s, KubeRay %s (installs in the files: %s)', async (kueue, kubeRay, withInstall) => {
    const dir = tmpdir();
    const install = withInstall ? {
      kueueManifest: path.join(VENDOR!, 'kueue', kueue, 'manifests.yaml'),
      kubeRayCrdDir: path.join(VENDOR!, 'kuberay', kubeRay, 'ray-operator', 'config', 'crd', 'bases'),
    } : undefined;
    const prev = process.env.CDK8S_KUEUE_RAY_QUIET;
    process.env.CDK8S_KUEUE_RAY_QUIET = '1';
    let synthLines: string[];
    const app = buildExamples({ outdir: path.join(dir, 'unused'), kueue, kubeRay, scenarios: [...SCENARIOS], install });
    try {
      // Every validation of the app, as synth runs them (the installs patch their objects there too);
      // refused scenarios give errors, which are findings like any other here.
      for (const c of app.node.findAll()) c.node.validate();
      synthLines = app.node.findAll().filter((c): c is RayWorkload => c instanceof RayWorkload).flatMap((w) => w.policyFindings());
    } finally {
      if (prev === undefined) delete process.env.CDK8S_KUEUE_RAY_QUIET;
      else process.env.CDK8S_KUEUE_RAY_QUIET = prev;
    }
    const dist = path.join(dir, 'dist');
    fs.mkdirSync(dist);
    // Each object as synthesized (ApiObject.toJson: patches applied, no validation, so refused scenarios are written too).
    app.node.findAll().filter((c): c is Chart => c instanceof Chart).forEach((c, i) => {
      const objects = c.node.findAll().filter((o): o is ApiObject => o instanceof ApiObject).map((o) => o.toJson());
      Yaml.save(path.join(dist, `${String(i).padStart(4, '0')}-${c.node.id}.k8s.yaml`), objects);
    });

    // KubeRay's samples of this KubeRay tag, in their variants.
    const samplesDir = path.join(dir, 'samples');
    fs.mkdirSync(samplesDir);
    for (const s of SAMPLES) {
      const text = fs.readFileSync(path.join(VENDOR!, 'kuberay', kubeRay, 'ray-operator', 'config', 'samples', s), 'utf8');
      for (const [variant, t] of sampleVariants(text)) fs.writeFileSync(path.join(samplesDir, `${variant}-${s}`), t);
    }
    const sampleObjects = fs.readdirSync(samplesDir).sort().flatMap((f) => readManifests(path.join(samplesDir, f)))
      .map((o) => ({ ...o, metadata: { ...o.metadata, namespace: o.metadata?.namespace ?? 'default' } }));
    total.samples += sampleObjects.length;

    const report = await runCheck({ files: [dist, samplesDir], kueueVersion: kueue, kubeRayVersion: kubeRay, output: 'json' });
    const gate = withInstall ? 'on' : 'unknown';
    expect(report.context).toMatchObject({ kueue, kubeRay, elasticGate: gate, elasticGateFrom: withInstall ? 'files' : 'default' });

    // Synth: the constructs' findings, and for the samples the policy with the app's own inventory.
    const ctx: PolicyContext = {
      kueue: kueueCapabilities(kueue), kubeRay: kubeRayCapabilities(kubeRay), elasticGate: gate, inventory: AppInventory.of(app).snapshot(),
    };
    for (const o of sampleObjects) for (const f of evaluateRayObject(o, ctx)) synthLines.push(line(f.severity, f));
    const checkLines = report.findings.map((f) => line(f.severity, f));
    expect(sorted(checkLines)).toEqual(sorted(synthLines));

    // The webhook: mutate then validate each Ray object as a CREATE, the cluster view from the same YAML.
    const all = [...fs.readdirSync(dist).sort().flatMap((f) => readManifests(path.join(dist, f))), ...sampleObjects];
    const pick = (kind: string, group = 'kueue.x-k8s.io') => all.filter((o) => o.kind === kind && String(o.apiVersion).startsWith(group));
    const inventory = inventoryFromObjects({
      localQueues: pick('LocalQueue'), clusterQueues: pick('ClusterQueue'), cohorts: pick('Cohort'), priorityClasses: pick('WorkloadPriorityClass'),
      namespaces: pick('Namespace', 'v1'),
    });
    const config = { kueue: kueueCapabilities(kueue), kubeRay: kubeRayCapabilities(kubeRay), elasticGate: gate } as const;
    const webhookLines: string[] = [];
    const denied: string[] = [];
    for (const o of pick('RayJob', 'ray.io').concat(pick('RayCluster', 'ray.io'), pick('RayService', 'ray.io'))) {
      const req = { uid: 'u', kind: { group: 'ray.io', version: 'v1', kind: o.kind }, namespace: o.metadata?.namespace ?? 'default',
        operation: 'CREATE' };
      const m = mutateRayObject({ ...req, object: o }, config, { inventory });
      expect(m.response.patch).toBeUndefined(); // every object here is labelled already: nothing to default
      const d = validateRayObject({ ...req, object: o }, config, { inventory });
      for (const f of d.findings) webhookLines.push(line(f.severity, f));
      if (!d.response.allowed) denied.push(d.findings[0].object);
    }
    expect(sorted(checkLines)).toEqual(sorted(webhookLines));
    // The webhook denies exactly the objects check reports errors for.
    expect(sorted([...new Set(denied)])).toEqual(sorted([...new Set(report.findings.filter((f) => f.severity === 'error').map((f) => f.object))]));

    for (const f of report.findings) expectOnItsLine(f);
    total = {
      findings: total.findings + report.findings.length, errors: total.errors + report.summary.errors,
      located: total.located + report.findings.filter((f) => f.location.exact).length, samples: total.samples,
    };
    // Not vacuous: the samples always give findings (autoscaling without elastic, at least).
    expect(report.findings.filter((f) => f.location.file.startsWith(samplesDir)).length).toBeGreaterThan(0);
  }, 240000);
});
