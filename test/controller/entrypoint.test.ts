// The controller as the package's bin and the image run it: the esbuild bundle (lib/controller/,
// `npm run bundle`) with its admission worker beside it. It serves HTTPS, answers health checks, refuses
// bad flags, and drains on SIGTERM. test/e2e runs the same bundle from the built image.
import { execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import * as https from 'https';
import * as path from 'path';
import { makePki } from '../e2e/support/pki';
import { freePort } from '../e2e/support/cluster';
import { REPO_ROOT } from '../support/upstream';
import { tmpdir } from '../support/synth';
import { probeStatus, reviewBadRayJob } from '../support/webhook-probe';

const ENTRY = path.join(REPO_ROOT, 'lib', 'controller', 'cdk8s-kueue-ray.js');

beforeAll(() => {
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'bundle.js')], { stdio: 'pipe' });
}, 180000);

/** Starts the entrypoint and resolves once it says it listens; `output()` is its stdout so far. */
async function startController(args: string[]): Promise<{ proc: ReturnType<typeof spawn>; output: () => string }> {
  const proc = spawn(process.execPath, [ENTRY, 'controller', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => { out += d; });
  await new Promise<void>((resolve, reject) => {
    const t = setInterval(() => { if (out.includes('webhook listening')) { clearInterval(t); resolve(); } }, 50);
    proc.on('exit', (c) => { clearInterval(t); reject(new Error(`exited ${c}: ${out}`)); });
  });
  return { proc, output: () => out };
}

/** What the entrypoint prints when it refuses `args`. */
function refusal(args: string[]): string {
  try {
    execFileSync(process.execPath, [ENTRY, 'controller', ...args], { stdio: 'pipe' });
    return '';
  } catch (e: any) {
    return e.stdout.toString();
  }
}

test('the package\'s bin is the bundle, which carries client-node and node-forge and never cdk8s or constructs', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
  expect(pkg.bin['cdk8s-kueue-ray']).toBe('lib/controller/cdk8s-kueue-ray.js');
  // Construct users do not install what only the controller needs.
  expect(Object.keys(pkg.dependencies ?? {})).not.toContain('@kubernetes/client-node');
  expect(Object.keys(pkg.dependencies ?? {})).not.toContain('node-forge');
  const { packages } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'lib', 'controller', 'bundle-inputs.json'), 'utf8'));
  expect(packages).toEqual(expect.arrayContaining(['@kubernetes/client-node', 'node-forge']));
  expect(packages.filter((p: string) => /^(cdk8s|cdk8s-plus-\d+|constructs)$/.test(p))).toEqual([]);
  expect(fs.readFileSync(ENTRY, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
});

test('serves the webhook over TLS, answers /healthz, and exits 0 after draining on SIGTERM', async () => {
  const pki = makePki(path.join(tmpdir(), 'pki'));
  const port = await freePort();
  const metricsPort = await freePort();
  const { proc, output } = await startController([`--tls-cert-file=${pki.servingCrt}`, `--tls-key-file=${pki.servingKey}`, `--port=${port}`,
    `--metrics-port=${metricsPort}`, '--host=127.0.0.1', '--kueue-version=v0.17.8', '--reconciler=false']);
  expect(JSON.parse(output().split('\n')[0])).toMatchObject({ level: 'info', msg: 'webhook listening', port, metricsPort, kueue: 'v0.17.8' });
  expect(await probeStatus(port, pki.caCrt, '/healthz')).toBe(200);
  // A review is decided by the compiled admission worker (the default: one thread).
  const answer = await reviewBadRayJob(port, pki.caCrt, 'e1');
  expect(answer.response).toMatchObject({ uid: 'e1', allowed: false, status: { code: 422 } });
  expect(answer.response.status.message).toMatch(/shutdownAfterJobFinishes/);
  // /metrics is on its own plain-HTTP port, not on the webhook port.
  const metrics = await new Promise<string>((resolve, reject) => http.get({ host: '127.0.0.1', port: metricsPort, path: '/metrics' }, (res) => {
    let b = '';
    res.on('data', (d) => { b += d; });
    res.on('end', () => resolve(b));
  }).on('error', reject));
  expect(metrics).toMatch(/kueue_ray_admission_decisions_total\{webhook="validate",decision="denied",rule=""\} 1/);
  const onWebhookPort = await probeStatus(port, pki.caCrt, '/metrics');
  expect(onWebhookPort).toBe(404);
  const code = await new Promise<number | null>((resolve) => { proc.on('exit', (c) => resolve(c)); proc.kill('SIGTERM'); });
  expect(code).toBe(0);
  expect(output()).toMatch(/draining in-flight requests/);
});

test('bad flags fail with a message naming the flag', () => {
  expect(refusal(['--tls-cert-file=x', '--tls-key-file=y', '--bogus=1'])).toMatch(/unknown flag\(s\) --bogus/);
  expect(refusal(['--tls-cert-file=x', '--tls-key-file=y', '--admission-workers=many'])).toMatch(/--admission-workers takes 0 to 16/);
  expect(refusal(['--tls-cert-file=x', '--tls-key-file=y', '--metrics-port=nope'])).toMatch(/--metrics-port takes a port other than the webhook's/);
});

test('certificate files (a mounted cert-manager Secret) are re-read and served on new connections once they change', async () => {
  const dir = path.join(tmpdir(), 'tls-reload');
  fs.mkdirSync(dir, { recursive: true });
  const first = makePki(path.join(tmpdir(), 'pki-a'));
  const second = makePki(path.join(tmpdir(), 'pki-b'));
  const crt = path.join(dir, 'tls.crt');
  const key = path.join(dir, 'tls.key');
  fs.copyFileSync(first.servingCrt, crt);
  fs.copyFileSync(first.servingKey, key);
  const port = await freePort();
  const { proc, output } = await startController([`--tls-cert-file=${crt}`, `--tls-key-file=${key}`, `--port=${port}`, '--metrics-port=0',
    '--host=127.0.0.1', '--reconciler=false', '--tls-reload-seconds=1']);
  try {
    // A fresh connection each time (no agent), trusting only the given CA.
    const fingerprint = (ca: string) => new Promise<string>((resolve, reject) => {
      const req = https.get({ host: '127.0.0.1', port, path: '/healthz', ca: fs.readFileSync(ca), agent: false }, (res) => {
        resolve((res.socket as any).getPeerCertificate().fingerprint256);
        res.resume();
      });
      req.on('error', reject);
    });
    const before = await fingerprint(first.caCrt);
    fs.copyFileSync(second.servingCrt, crt);
    fs.copyFileSync(second.servingKey, key);
    let after = '';
    for (let i = 0; i < 50 && !after; i++) {
      await new Promise((r) => setTimeout(r, 200));
      after = await fingerprint(second.caCrt).catch(() => '');
    }
    expect(after).not.toBe('');
    expect(after).not.toBe(before);
    expect(output()).toMatch(/"msg":"webhook certificate reloaded"/);
  } finally {
    proc.kill('SIGTERM');
  }
});
