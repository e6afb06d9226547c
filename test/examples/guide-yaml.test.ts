// The guide gives the elastic RayCluster and RayService as raw YAML (test/examples/guide-yaml/, transcribed
// from the guide, domain.md §2); the examples app writes them with ElasticRayCluster/ElasticRayService.
// Both go through `check` beside the same queues and must behave the same: the same findings, and the
// same plan (PodSets, requests, outcome). The real-node guide suite then runs the construct's.
import * as fs from 'fs';
import * as path from 'path';
import { stringify } from 'yaml';
import { runCheck } from '../../src/cli/check';
import { simulatePlan } from '../../src/policy/plan';
import { examples, readManifests, synthAll, tmpdir } from '../support/synth';

const GUIDE = path.join(__dirname, 'guide-yaml');
const objects = synthAll(examples({ scenarios: ['queues', 'elastic-raycluster', 'elastic-rayservice'] }));
const queues = objects.filter((o) => o.apiVersion.startsWith('kueue.x-k8s.io'));

const CASES = [['RayCluster', 'raycluster-kueue-autoscaler.yaml'], ['RayService', 'rayservice-kueue-autoscaler.yaml']];

describe.each(CASES)('the guide\'s %s YAML and the construct', (kind, file) => {
  const guide = readManifests(path.join(GUIDE, file))[0];
  const construct = objects.find((o) => o.kind === kind);
  const checked = async (obj: any) => {
    const dir = tmpdir();
    fs.writeFileSync(path.join(dir, 'queues.yaml'), queues.map((o) => stringify(o)).join('---\n'));
    fs.writeFileSync(path.join(dir, 'object.yaml'), stringify(obj));
    const r = await runCheck({ files: [dir], output: 'json' });
    fs.rmSync(dir, { recursive: true, force: true });
    return r;
  };

  test('name the same object', () => {
    expect(guide.kind).toBe(kind);
    const m = guide.metadata;
    expect(construct.metadata).toMatchObject({ name: m.name, namespace: m.namespace, labels: m.labels, annotations: m.annotations });
  });

  test('check finds the same in both, and no error', async () => {
    const summary = (r: any) => r.findings.map((f: any) => `${f.severity} ${f.rule} ${f.field ?? ''}`).sort();
    const [g, c] = [await checked(guide), await checked(construct)];
    expect(g.objects.map((o: any) => o.status)).toEqual(['checked']);
    expect(summary(c)).toEqual(summary(g));
    expect(summary(g).filter((s: string) => s.startsWith('error'))).toEqual([]);
  });

  test('plan admits both the same way, with the same PodSets and requests', () => {
    const plan = (obj: any) => simulatePlan({ kueueObjects: queues, arrivals: [obj], trace: false }).workloads[0];
    const [g, c] = [plan(guide), plan(construct)];
    expect(c.outcome).toBe('admitted');
    expect({ outcome: c.outcome, requests: c.requests, admission: c.admission, clusterQueue: c.clusterQueue })
      .toEqual({ outcome: g.outcome, requests: g.requests, admission: g.admission, clusterQueue: g.clusterQueue });
  });
});
