// The ordered apply never unsuspends (issue 40, item 2): a Ray object that exists already is re-applied with its
// live suspend value and resourceVersion, and the output lists it as left to Kueue. `cdk8s-kueue-ray apply` runs
// whole here, against a stand-in kubectl that serves the live object and records what is applied;
// test/attack/tenants.e2e.test.ts and test/e2e/install.e2e.test.ts run it against the real control plane.
import * as fs from 'fs';
import * as path from 'path';
import { parseAllDocuments, stringify } from 'yaml';
import { apply } from '../../src/cli/apply';
import { withLiveSuspend } from '../../src/cli/apply-plan';
import { tmpdir } from '../support/synth';

const job = (suspend?: boolean): any => ({
  apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { name: 'train', namespace: 'team-a', labels: { 'kueue.x-k8s.io/queue-name': 'default' } },
  spec: { entrypoint: 'python x.py', shutdownAfterJobFinishes: true, ...(suspend === undefined ? {} : { suspend }), rayClusterSpec: {} },
});
const live = (o: any, rv: string) => ({ ...o, metadata: { ...o.metadata, resourceVersion: rv, uid: 'u' } });

test('withLiveSuspend carries the live value (true, false, absent) and resourceVersion, for each kind\'s field', () => {
  expect(withLiveSuspend(job(true), live(job(true), '7'))).toEqual({ object: { ...job(true), metadata: { ...job().metadata, resourceVersion: '7' } },
    field: 'spec.suspend', suspend: true });
  // The synthesized suspend: true does not suspend again what Kueue admitted; a job without it does not unsuspend a pending one.
  expect(withLiveSuspend(job(true), live(job(false), '8')).object.spec.suspend).toBe(false);
  expect(withLiveSuspend(job(), live(job(true), '9')).object.spec.suspend).toBe(true);
  const unsuspendable = withLiveSuspend(job(true), live(job(), '10'));
  expect([unsuspendable.object.spec.suspend, unsuspendable.suspend]).toEqual([undefined, undefined]);
  const svc = { apiVersion: 'ray.io/v1', kind: 'RayService', metadata: { name: 's', namespace: 'team-a' }, spec: { serveConfigV2: 'x' } };
  const liveSvc = { ...svc, metadata: { ...svc.metadata, resourceVersion: '3' }, spec: { serveConfigV2: 'x', rayClusterConfig: { suspend: true } } };
  expect(withLiveSuspend(svc, liveSvc)).toEqual({ object: { ...svc, metadata: { ...svc.metadata, resourceVersion: '3' },
    spec: { serveConfigV2: 'x', rayClusterConfig: { suspend: true } } }, field: 'spec.rayClusterConfig.suspend', suspend: true });
  expect(svc.spec).toEqual({ serveConfigV2: 'x' }); // a copy
});

/** A kubectl that answers `get` with the live objects of $LIVE and records each `apply` input in $LOG; $STALE makes the first apply of a Ray object stale. */
const FAKE_KUBECTL = `#!/usr/bin/env node
const fs = require('fs');
const args = process.argv.slice(2);
const input = fs.readFileSync(0, 'utf8');
const state = JSON.parse(fs.readFileSync(process.env.STATE, 'utf8'));
if (args.includes('get')) {
  const items = state.live.map((o) => ({ ...o, metadata: { ...o.metadata, resourceVersion: String(state.rv) } }));
  process.stdout.write(JSON.stringify(items.length === 1 ? items[0] : { kind: 'List', items }));
} else if (args.includes('apply')) {
  fs.appendFileSync(process.env.LOG, JSON.stringify({ args, input }) + '\\n');
  if (process.env.CONFLICT && input.includes('kind: RayJob')) {
    process.stderr.write('error: Apply failed with 1 conflict: conflict with "kuberay-operator" using ray.io/v1: '
      + '.spec.rayClusterSpec.workerGroupSpecs\\n');
    process.exit(1);
  }
  if (process.env.STALE && input.includes('kind: RayJob') && !state.staled) {
    state.staled = true; state.rv++;
    fs.writeFileSync(process.env.STATE, JSON.stringify(state));
    process.stderr.write('Error from server (Conflict): Operation cannot be fulfilled on rayjobs.ray.io "train": the object has been modified; '
      + 'please apply your changes to the latest version and try again\\n');
    process.exit(1);
  }
}
`;

interface ApplyRun { status: number; stdout: string; stderr: string; applied: any[] }

async function runApply(liveObjects: any[], fault?: 'STALE' | 'CONFLICT'): Promise<ApplyRun> {
  const dir = tmpdir();
  const dist = path.join(dir, 'dist');
  fs.mkdirSync(dist);
  const queue = { apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'LocalQueue', metadata: { name: 'default', namespace: 'team-a' },
    spec: { clusterQueue: 'team-a' } };
  fs.writeFileSync(path.join(dist, '0001-work.k8s.yaml'), [queue, job(true)].map((d) => stringify(d)).join('---\n'));
  const kubectl = path.join(dir, 'kubectl');
  fs.writeFileSync(kubectl, FAKE_KUBECTL, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'state.json'), JSON.stringify({ live: liveObjects, rv: 41 }));
  const log = path.join(dir, 'log');
  fs.writeFileSync(log, '');
  let stdout = '';
  let stderr = '';
  const status = await apply([dist, '--no-wait'], { stdout: (s) => { stdout += s; }, stderr: (s) => { stderr += s; } },
    { ...process.env, KUBECTL: kubectl, STATE: path.join(dir, 'state.json'), LOG: log, ...(fault ? { [fault]: '1' } : {}) });
  const applied = fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l))
    .map((a) => ({ args: a.args, objects: parseAllDocuments(a.input).map((d) => d.toJS()) }));
  fs.rmSync(dir, { recursive: true, force: true });
  return { status, stdout, stderr, applied };
}

test('a pending RayJob is re-applied with suspend: true and its resourceVersion, never forced, and listed as left to Kueue', async () => {
  const r = await runApply([job(true)]);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  // The queue is applied with the rest; the existing RayJob on its own, without --force-conflicts.
  expect(r.applied.map((a) => a.objects.map((o: any) => o.kind))).toEqual([['LocalQueue'], ['RayJob']]);
  const [rayJobApply] = r.applied.slice(1);
  expect(rayJobApply.args).not.toContain('--force-conflicts');
  expect(rayJobApply.objects[0].spec.suspend).toBe(true);
  expect(rayJobApply.objects[0].metadata.resourceVersion).toBe('41');
  expect(r.stdout).toContain('updated 1 Ray object(s) that exist already (their suspend field left to Kueue):\n'
    + '  RayJob team-a/train: spec.suspend true, left to Kueue (pending: Kueue unsuspends it when it admits its Workload)');
});

test('an admitted RayJob keeps suspend: false although the synthesized one says true', async () => {
  const r = await runApply([job(false)]);
  expect(r.status).toBe(0);
  expect(r.applied[1].objects[0].spec.suspend).toBe(false);
  expect(r.stdout).toContain('  RayJob team-a/train: spec.suspend false, left to Kueue');
});

test('if the object changes between the read and the apply (Kueue admits it), the apply reads it again and carries the new value', async () => {
  const r = await runApply([job(true)], 'STALE');
  expect(r.status).toBe(0);
  const rayJobApplies = r.applied.filter((a) => a.objects[0].kind === 'RayJob');
  expect(rayJobApplies.map((a) => a.objects[0].metadata.resourceVersion)).toEqual(['41', '42']);
  expect(r.stdout).toContain('RayJob team-a/train: spec.suspend true, left to Kueue');
});

test('a pending RayJob whose spec another manager owns is left as it is, and listed as left to Kueue with its suspend state', async () => {
  const r = await runApply([job(true)], 'CONFLICT');
  expect(r.status).toBe(0);
  expect(r.stdout).toContain('left 1 Ray object(s) as they are: Kueue, KubeRay or the autoscaler own these fields (delete and apply again to '
    + 'change them; the work restarts):\n  RayJob team-a/train: .spec.rayClusterSpec.workerGroupSpecs owned by kuberay-operator; spec.suspend true, '
    + 'left to Kueue (pending: Kueue unsuspends it when it admits its Workload)');
});
