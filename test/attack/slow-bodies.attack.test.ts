// Starving the webhook (issue 19, escape 6): slow bodies that declare 4 MiB and send a byte a second, one
// client taking every budget, one path flooding the other, and reviews from anyone but the API server.
// On the real server with real TLS; peers are told apart by loopback address (127.0.0.2, 127.0.0.3, ...).
import * as fs from 'fs';
import * as https from 'https';
import * as net from 'net';
import * as path from 'path';
import * as tls from 'tls';
import { WebhookServer, WebhookServerOptions } from '../../src/controller/server';
import { kubeRayCapabilities, kueueCapabilities } from '../../src/policy/versions';
import { makePki, Pki } from '../e2e/support/pki';
import { tmpdir } from '../support/synth';

let pki: Pki;
let server: WebhookServer | undefined;
const ca = () => fs.readFileSync(pki.caCrt);
const review = JSON.stringify({
  apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
  request: { uid: 'u1', kind: { group: 'ray.io', version: 'v1', kind: 'RayJob' }, namespace: 'default', operation: 'CREATE',
    object: { apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { name: 'j', namespace: 'default' }, spec: {} } },
});

async function start(opts: Partial<WebhookServerOptions> = {}): Promise<number> {
  pki ??= makePki(path.join(tmpdir(), 'slow-pki'));
  server = new WebhookServer({
    cert: fs.readFileSync(pki.servingCrt), key: fs.readFileSync(pki.servingKey), host: '0.0.0.0',
    config: { kueue: kueueCapabilities('v0.19.2'), kubeRay: kubeRayCapabilities('v1.6.2'), elasticGate: 'on' },
    view: () => ({ inventory: { localQueues: [], clusterQueues: [], cohorts: [], priorityClasses: [], namespaces: [] } }),
    ...opts,
  });
  return server.listen();
}

afterEach(async () => {
  await server?.stop(2000);
  server = undefined;
});

function post(port: number, p: string, body: string, opts: https.RequestOptions = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = https.request({ host: '127.0.0.1', port, path: p, method: 'POST', ca: ca(), servername: 'localhost',
      headers: { 'Content-Type': 'application/json' }, agent: false, ...opts }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', (e) => resolve({ status: -1, body: e.message }));
    req.end(body);
  });
}

/** TLS over a TCP connection from a given loopback address (a peer of its own). */
const connectFrom = (port: number, localAddress: string) =>
  tls.connect({ socket: net.connect({ host: '127.0.0.1', port, localAddress }), ca: ca(), servername: 'localhost' });

/** A TLS connection from `localAddress` that declares `declared` bytes of body and sends the first `send`. */
async function slowBody(port: number, localAddress: string, webhook: string, declared: number, send: number): Promise<tls.TLSSocket> {
  const s = connectFrom(port, localAddress);
  s.on('error', () => undefined);
  await new Promise<void>((r) => s.once('secureConnect', () => r()));
  s.write(`POST /${webhook} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`);
  if (send) s.write(Buffer.alloc(send, 0x20));
  return s;
}
const closed = (s: tls.TLSSocket) => new Promise<string>((resolve) => {
  let text = '';
  s.on('data', (d) => { text += d.toString(); });
  s.once('close', () => resolve(text));
});

test('six slow 4 MiB bodies hold nothing: other reviews are decided, and each slow body is cut at the body deadline with 408', async () => {
  const port = await start({ bodyTimeoutMs: 1500 });
  const t0 = Date.now();
  const slow = await Promise.all(Array.from({ length: 6 }, () => slowBody(port, '127.0.0.2', 'validate', 4 * 1024 * 1024, 1)));
  const ends = slow.map(closed);
  const drip = setInterval(() => { for (const s of slow) if (!s.destroyed) s.write(' '); }, 200);
  try {
    const answers = await Promise.all(Array.from({ length: 20 },
      (_, i) => post(port, i % 2 ? '/validate' : '/mutate', review, { localAddress: '127.0.0.3' })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    const texts = await Promise.all(ends);
    const ms = Date.now() - t0;
    expect(texts.every((t) => t.startsWith('HTTP/1.1 408'))).toBe(true);
    expect(ms).toBeLessThan(4000);
  } finally {
    clearInterval(drip);
    slow.forEach((s) => s.destroy());
  }
});

test('one client cannot take the budget: past its own share it gets 429, while another client is decided', async () => {
  const port = await start({ maxInFlightBytesPerPeer: 2 * 1024 * 1024, maxInFlightBytes: 16 * 1024 * 1024, bodyTimeoutMs: 5000 });
  // 127.0.0.2 sends 1.5 MiB of two bodies, then stalls: its third byte past 2 MiB is refused.
  const a = await slowBody(port, '127.0.0.2', 'validate', 3 * 1024 * 1024, 1024 * 1024);
  const b = await slowBody(port, '127.0.0.2', 'validate', 3 * 1024 * 1024, 0);
  const bEnd = closed(b);
  await new Promise((r) => setTimeout(r, 200));
  b.write(Buffer.alloc(1024 * 1024 + 1, 0x20));
  expect(await bEnd).toMatch(/^HTTP\/1\.1 429[\s\S]*2097152 bytes from one client/);
  expect((await post(port, '/validate', review, { localAddress: '127.0.0.3' })).status).toBe(200);
  a.destroy();
});

test('/mutate and /validate have budgets of their own: a flood of one leaves the other alone', async () => {
  const port = await start({ maxInFlightBytes: 2 * 1024 * 1024, maxInFlightBytesPerPeer: 64 * 1024 * 1024, bodyTimeoutMs: 5000 });
  const flood = await Promise.all([0, 1].map(() => slowBody(port, '127.0.0.2', 'validate', 3 * 1024 * 1024, 1024 * 1024)));
  await new Promise((r) => setTimeout(r, 200));
  expect((await post(port, '/validate', review, { localAddress: '127.0.0.3' })).body).toMatch(/2097152 bytes of \/validate reviews in flight/);
  expect((await post(port, '/mutate', review, { localAddress: '127.0.0.3' })).status).toBe(200);
  flood.forEach((s) => s.destroy());
});

test('one client may hold at most its share of connections; the API server\'s stay open', async () => {
  const port = await start({ maxConnectionsPerPeer: 10 });
  const socks = await Promise.all(Array.from({ length: 30 }, () => new Promise<tls.TLSSocket>((resolve) => {
    const s = connectFrom(port, '127.0.0.2');
    s.on('error', () => undefined);
    s.once('secureConnect', () => resolve(s));
    s.once('close', () => resolve(s));
  })));
  await new Promise((r) => setTimeout(r, 300));
  expect(socks.filter((s) => !s.destroyed).length).toBe(10);
  // Counted where an operator looks: the peer sees only EOF.
  expect(server!.metrics.render()).toContain('kueue_ray_webhook_connections_closed_total{reason="peer-limit"} 20');
  expect((await post(port, '/validate', review, { localAddress: '127.0.0.3' })).status).toBe(200);
  socks.forEach((s) => s.destroy());
});

test('with a client CA, only a peer holding a certificate it signs is reviewed; the probes need none', async () => {
  pki ??= makePki(path.join(tmpdir(), 'slow-pki'));
  const port = await start({ clientCa: ca() });
  const anonymous = await post(port, '/validate', review);
  expect(anonymous.status).toBe(401);
  expect(anonymous.body).toMatch(/client certificate signed by the configured CA is required/);
  // Resumed TLS sessions (an agent caches them): Node calls a resumed session without a certificate
  // authorized, so the certificate itself is checked. Before, the second and third got through.
  const resuming = new https.Agent({ keepAlive: false });
  const again = [];
  for (let i = 0; i < 3; i++) again.push((await post(port, i % 2 ? '/mutate' : '/validate', review, { agent: resuming })).status);
  expect(again).toEqual([401, 401, 401]);
  const withCert = new https.Agent({ keepAlive: false, cert: fs.readFileSync(pki.adminCrt), key: fs.readFileSync(pki.adminKey) });
  const apiServer = [];
  for (let i = 0; i < 3; i++) apiServer.push((await post(port, '/validate', review, { agent: withCert })).status);
  expect(apiServer).toEqual([200, 200, 200]); // resumed sessions keep their certificate
  const probe = await new Promise<number>((resolve) => https.get({ host: '127.0.0.1', port, path: '/readyz', ca: ca(), servername: 'localhost' },
    (res) => { res.resume(); resolve(res.statusCode ?? 0); }));
  expect(probe).toBe(200);
});
