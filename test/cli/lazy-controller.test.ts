// `check` and `plan` (without --kubeconfig) never load the controller's code: main.ts loads
// src/cli/controller.ts, and through it src/controller/, only for the `controller` subcommand, and
// the cluster readers only behind --kubeconfig. Likewise `apply`'s code (src/cli/apply*.ts) only for `apply`. Each case runs src/cli/main.ts in its own process
// (through ts-node) with a preload that records every module file it loaded.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { REPO_ROOT } from '../support/upstream';
import { tmpdir } from '../support/synth';

const MAIN = path.join(REPO_ROOT, 'src', 'cli', 'main.ts');
const RECORDER = path.join(REPO_ROOT, 'test', 'support', 'record-loaded.js');
const CONTROLLER_DIR = `${path.join(REPO_ROOT, 'src', 'controller')}${path.sep}`;

const RAY_JOB = `apiVersion: ray.io/v1
kind: RayJob
metadata: {name: demo, namespace: default, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  entrypoint: python -c "print(1)"
  shutdownAfterJobFinishes: true
  rayClusterSpec:
    headGroupSpec:
      rayStartParams: {}
      template: {spec: {containers: [{name: head, image: rayproject/ray:2.9.0, resources: {requests: {cpu: "1", memory: 2G}, limits: {cpu: `
        + `"1", memory: 2G}}}]}}
`;

/** Runs `cdk8s-kueue-ray ARGS` from source; returns its exit status and the src files it loaded. */
function run(args: string[]): { status: number | null; output: string; loaded: string[] } {
  const dir = tmpdir();
  const record = path.join(dir, 'loaded.json');
  const p = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-r', RECORDER, MAIN, ...args], {
    cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, RECORD_LOADED_TO: record, TS_NODE_PROJECT: path.join(REPO_ROOT, 'tsconfig.json') },
  });
  const loaded = (JSON.parse(fs.readFileSync(record, 'utf8')) as string[]).filter((f) => f.startsWith(path.join(REPO_ROOT, 'src')));
  return { status: p.status, output: `${p.stdout}${p.stderr}`, loaded };
}

function controllerFiles(loaded: string[]): string[] {
  return loaded.filter((f) => f.startsWith(CONTROLLER_DIR) || f === path.join(REPO_ROOT, 'src', 'cli', 'controller.ts'));
}

const APPLY_FILES = ['apply.ts', 'apply-plan.ts'].map((f) => path.join(REPO_ROOT, 'src', 'cli', f));
const applyFiles = (loaded: string[]) => loaded.filter((f) => APPLY_FILES.includes(f));

let file: string;
beforeAll(() => {
  file = path.join(tmpdir(), 'rayjob.yaml');
  fs.writeFileSync(file, RAY_JOB);
});

test('check on a file loads the policy and never src/controller', () => {
  const r = run(['check', file, '--output=json']);
  expect(r.status).toBe(0);
  expect(JSON.parse(r.output).summary.objects).toBe(1);
  expect(r.loaded).toContain(path.join(REPO_ROOT, 'src', 'cli', 'check.ts'));
  expect(controllerFiles(r.loaded)).toEqual([]);
  expect(applyFiles(r.loaded)).toEqual([]);
}, 120000);

test('plan on a file loads the simulation and never src/controller', () => {
  const r = run(['plan', file, '--output=json']);
  expect(r.status).toBe(0);
  expect(r.loaded).toContain(path.join(REPO_ROOT, 'src', 'cli', 'plan.ts'));
  expect(controllerFiles(r.loaded)).toEqual([]);
  expect(applyFiles(r.loaded)).toEqual([]);
}, 120000);

test('apply loads its own modules and never src/controller', () => {
  const r = run(['apply', '--help']);
  expect(r.status).toBe(0);
  expect(applyFiles(r.loaded)).toEqual(expect.arrayContaining(APPLY_FILES));
  expect(controllerFiles(r.loaded)).toEqual([]);
}, 120000);

test('the recorder sees the controller when the controller subcommand runs (the control case)', () => {
  // A refused flag: the subcommand loads its modules, then stops before listening.
  const r = run(['controller', '--no-such-flag']);
  expect(r.status).toBe(1);
  expect(r.output).toContain('unknown flag(s) --no-such-flag');
  expect(controllerFiles(r.loaded)).toEqual(expect.arrayContaining([path.join(REPO_ROOT, 'src', 'controller', 'server.ts')]));
}, 120000);
