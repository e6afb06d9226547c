// SharedAgentAuth (no cluster needed: nothing connects): every request gets the same keep-alive
// agent and the kubeconfig's credentials; the files are read again only after the TTL, and the agent
// is replaced only when their content changed.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { loadKubeConfig, readRetryingWhileBusy, SharedAgentAuth } from '../../src/kube/client';

function context() {
  const headers: Record<string, string> = {};
  let agent: any;
  return { headers, agent: () => agent, setHeaderParam: (k: string, v: string) => { headers[k] = v; }, setAgent: (a: any) => { agent = a; } };
}

test('one keep-alive agent for every request; replaced only when the credential files change', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-client-'));
  const ca = path.join(dir, 'ca.crt');
  const cert = path.join(dir, 'client.crt');
  const key = path.join(dir, 'client.key');
  fs.writeFileSync(ca, 'ca-1');
  fs.writeFileSync(cert, 'cert-1');
  fs.writeFileSync(key, 'key-1');
  const file = path.join(dir, 'kubeconfig');
  fs.writeFileSync(file, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
    clusters: [{ name: 'k', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority': ca } }],
    users: [{ name: 'u', user: { 'client-certificate': cert, 'client-key': key, token: 'tok' } }],
    contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
  }));
  const auth = new SharedAgentAuth(loadKubeConfig(file), 1000);
  const a = context();
  const b = context();
  await auth.applySecurityAuthentication(a);
  await auth.applySecurityAuthentication(b);
  expect(a.agent()).toBe(b.agent());
  expect(a.agent().keepAlive).toBe(true);
  expect(a.agent().options.cert.toString()).toBe('cert-1');
  expect(a.headers.Authorization).toBe('Bearer tok');

  // Re-read after the TTL, unchanged: the same agent (its open connections stay).
  await new Promise((r) => setTimeout(r, 1100));
  const c = context();
  await auth.applySecurityAuthentication(c);
  expect(c.agent()).toBe(a.agent());

  // A rotated client certificate: a new agent with it, after the TTL.
  fs.writeFileSync(cert, 'cert-2');
  const d = context();
  await auth.applySecurityAuthentication(d);
  expect(d.agent()).toBe(a.agent()); // within the TTL: not read yet
  await new Promise((r) => setTimeout(r, 1100));
  const e = context();
  await auth.applySecurityAuthentication(e);
  expect(e.agent()).not.toBe(a.agent());
  expect(e.agent().options.cert.toString()).toBe('cert-2');
  e.agent().destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('readRetryingWhileBusy', () => {
  const failing = (statuses: number[]) => {
    let calls = 0;
    const fn = async () => {
      const s = statuses[calls++];
      if (s === undefined) return 'ok';
      throw Object.assign(new Error(`HTTP-Code: ${s}`), { code: s, headers: { 'retry-after': '0' } });
    };
    return { fn, calls: () => calls };
  };
  test('retries 429 and 503 until the read succeeds', async () => {
    const f = failing([429, 503, 429]);
    await expect(readRetryingWhileBusy(f.fn)).resolves.toBe('ok');
    expect(f.calls()).toBe(4);
  });
  test('gives up after five attempts, and never retries a refusal', async () => {
    const busy = failing([429, 429, 429, 429, 429, 429]);
    await expect(readRetryingWhileBusy(busy.fn)).rejects.toThrow('HTTP-Code: 429');
    expect(busy.calls()).toBe(5);
    const forbidden = failing([403]);
    await expect(readRetryingWhileBusy(forbidden.fn)).rejects.toThrow('HTTP-Code: 403');
    expect(forbidden.calls()).toBe(1);
  }, 20000);
});

test('loading the client drops the two deprecations its dependencies set off, and no other warning', () => {
  // A process of its own: the filter is process-wide. The real triggers (url.parse, the builtin punycode) warn only
  // on Node 22+, so each form of emitWarning is also called with the codes directly.
  const script = `
    require(${JSON.stringify(path.join(__dirname, '..', '..', 'src', 'kube', 'client.ts'))});
    require('url').parse('http://example.com/a');
    require('punycode');
    process.emitWarning('direct', 'DeprecationWarning', 'DEP0169');
    process.emitWarning('options', { type: 'DeprecationWarning', code: 'DEP0040' });
    process.emitWarning(Object.assign(new Error('an error'), { name: 'DeprecationWarning', code: 'DEP0169' }));
    process.emitWarning('kept', 'DeprecationWarning', 'DEP9999');
    process.emitWarning('kept too', { type: 'ExperimentalWarning', code: 'DEP0169X' });`;
  const r = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], { encoding: 'utf8' });
  expect(r.status).toBe(0);
  expect(r.stderr).not.toMatch(/DEP0169\]|DEP0040\]/);
  expect(r.stderr).toMatch(/\[DEP9999\] DeprecationWarning: kept/);
  expect(r.stderr).toMatch(/\[DEP0169X\] ExperimentalWarning: kept too/);
});
