// The webhook's HTTPS server with real TLS, on the server thread and with admission workers: decisions over AdmissionReview v1, and bad input that must
// give a clean error or rejection, never a crash.
import * as http from 'http';
import * as https from 'https';
import * as net from 'net';
import * as path from 'path';
import * as tls from 'tls';
import * as fs from 'fs';
import { MetricsServer } from '../../src/controller/metrics-server';
import { WebhookServer } from '../../src/controller/server';
import { kubeRayCapabilities, kueueCapabilities } from '../../src/policy/versions';
import { makePki, Pki } from '../e2e/support/pki';
import { tmpdir } from '../support/synth';
import { reviewWhileBusy } from '../support/busy-thread';

let pki: Pki;
let server: WebhookServer;
let port: number;
const ca = () => fs.readFileSync(pki.caCrt);

const job = (shutdown: boolean) => ({
  apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { name: 'j', namespace: 'default', labels: { 'kueue.x-k8s.io/queue-name': 'q' } },
  spec: { entrypoint: 'x', shutdownAfterJobFinishes: shutdown, rayClusterSpec: { headGroupSpec: { template: { spec: { containers: [{ name: 'ray-head',
    image: 'i', resources: { requests: { cpu: '1', memory: '1Gi' } } }] } } } } },
});
const review = (obj: any) => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
  request: { uid: 'abc', kind: { group: 'ray.io', version: 'v1', kind: 'RayJob' }, namespace: 'default', operation: 'CREATE', object: obj } });

function post(p: string, body: string | Buffer, opts: https.RequestOptions = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: p, method: 'POST', ca: ca(), headers: { 'Content-Type': 'application/json' },
      ...opts }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function get(p: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https.get({ host: '127.0.0.1', port, path: p, ca: ca() }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    }).on('error', reject);
  });
}

// Every behaviour holds whether reviews are decided on the server thread or in admission workers.
describe.each([0, 2])('with %i admission workers', (workers) => {
  beforeAll(async () => {
    pki = makePki(path.join(tmpdir(), 'pki'));
    server = new WebhookServer({
      cert: fs.readFileSync(pki.servingCrt), key: fs.readFileSync(pki.servingKey), requestTimeoutMs: 1500, maxBodyBytes: 4 * 1024 * 1024, workers,
      config: { kueue: kueueCapabilities('v0.19.2'), kubeRay: kubeRayCapabilities('v1.6.2'), elasticGate: 'on' },
      view: () => ({ inventory: { localQueues: [], clusterQueues: [], cohorts: [], priorityClasses: [], namespaces: [] } }),
    });
    port = await server.listen();
    // Workers load their modules (through ts-node here) before /readyz says ok; reviews are sent after that.
    const t0 = Date.now();
    while ((await get('/readyz')).status !== 200) {
      if (Date.now() - t0 > 120_000) throw new Error('the admission workers did not come online within 120 s');
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 180_000);

  afterAll(async () => {
    await server.stop();
  });

  test('a bad RayJob is denied over HTTPS with our message; the response echoes the uid', async () => {
    const r = await post('/validate', JSON.stringify(review(job(false))));
    expect(r.status).toBe(200);
    const out = JSON.parse(r.body);
    expect(out).toMatchObject({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
      response: { uid: 'abc', allowed: false, status: { code: 422 } } });
    expect(out.response.status.message).toMatch(/a kueue managed job should delete the cluster after finishing/);
  });

  test('malformed JSON, a wrong apiVersion or kind, and a missing request get 400, not a crash', async () => {
    expect((await post('/validate', '{"apiVersion":')).status).toBe(400);
    expect((await post('/validate', JSON.stringify({ ...review(job(true)), apiVersion: 'admission.k8s.io/v1beta1' }))).status).toBe(400);
    expect((await post('/mutate', JSON.stringify({ ...review(job(true)), kind: 'Pod' }))).status).toBe(400);
    expect((await post('/mutate', JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }))).status).toBe(400);
    const noObject = JSON.parse((await post('/validate', JSON.stringify({ ...review(undefined) }))).body);
    expect(noObject.response).toMatchObject({ allowed: false, status: { code: 400, message: 'request.object is missing' } });
    expect((await get('/healthz')).status).toBe(200); // still serving
  });

  test('a 10 MiB body is refused with 413', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024, 'a');
    const r = await post('/validate', big).catch((e) => ({ status: -1, body: String(e) }));
    // The server answers 413 as soon as Content-Length says too much (the client may see a reset after it).
    expect([413, -1]).toContain(r.status);
    if (r.status === -1) expect(r.body).toMatch(/ECONNRESET|EPIPE|socket hang up/);
    expect((await get('/healthz')).status).toBe(200);
  });

  test('a slow client that dribbles bytes is cut off after the request timeout, and the server keeps serving', async () => {
    const started = Date.now();
    const closed = await new Promise<number>((resolve) => {
      const sock = tls.connect({ host: '127.0.0.1', port, ca: ca(), servername: 'localhost' }, () => {
        sock.write('POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n');
        const t = setInterval(() => { if (!sock.destroyed) sock.write('{'); }, 200);
        sock.on('close', () => { clearInterval(t); resolve(Date.now() - started); });
      });
      sock.on('error', () => undefined);
    });
    expect(closed).toBeLessThan(8000);
    expect((await get('/healthz')).status).toBe(200);
  });

  test('TLS below 1.2 is refused', async () => {
    const err = await new Promise<string>((resolve) => {
      const s = tls.connect({ host: '127.0.0.1', port, ca: ca(), servername: 'localhost', maxVersion: 'TLSv1.1', minVersion: 'TLSv1' },
        () => resolve('connected'));
      s.on('error', (e) => resolve(e.message));
    });
    expect(err).not.toBe('connected');
  });

  test('metrics expose the latency histogram and decisions by rule, on their own port only', async () => {
    await post('/validate', JSON.stringify(review(job(false))));
    expect((await get('/metrics')).status).toBe(404);
    const metrics = new MetricsServer({ render: () => server.metrics.render() });
    const mport = await metrics.listen();
    const m = await new Promise<string>((resolve, reject) => http.get({ host: '127.0.0.1', port: mport, path: '/metrics' }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve(body));
    }).on('error', reject));
    await metrics.stop();
    expect(m).toMatch(/kueue_ray_admission_duration_seconds_bucket\{path="\/validate",le="0.005"\} \d+/);
    expect(m).toMatch(/kueue_ray_admission_decisions_total\{webhook="validate",decision="error",rule="rayJobShutdownAfterFinish"\} \d+/);
    expect(m).toMatch(/kueue_ray_admission_decisions_total\{webhook="validate",decision="denied",rule=""\} \d+/);
  });

  test('a review answered without a decision is counted as an error by path and code (the alert rules read it)', async () => {
    const count = () => Number(server.metrics.render().match(/kueue_ray_admission_errors_total\{path="\/mutate",code="400"\} (\d+)/)?.[1] ?? 0);
    const before = count();
    expect((await post('/mutate', '{not json')).status).toBe(400);
    expect(count()).toBe(before + 1);
    expect(server.metrics.render()).toMatch(/# TYPE kueue_ray_admission_errors_total counter/);
  });

  test('a stall of the server thread while a review waits on an admission worker is counted (the pool forgives it)', async () => {
    const pool = (server as any).pool;
    const stalls = () => Number(/^kueue_ray_webhook_thread_stalls_total (\d+)$/m.exec(server.metrics.render())?.[1]);
    const seconds = () => Number(/^kueue_ray_webhook_thread_stall_seconds_total ([\d.e+-]+)$/m.exec(server.metrics.render())?.[1]);
    if (!workers) {
      // Decided on the server thread: no pool, nothing to forgive, and the counters are exposed at 0.
      expect(pool).toBeUndefined();
      expect([stalls(), seconds()]).toEqual([0, 0]);
      return;
    }
    const [before, beforeSeconds] = [stalls(), seconds()];
    const answer = await reviewWhileBusy(pool, new TextEncoder().encode(JSON.stringify(review(job(false)))), 200);
    expect(answer.status).toBe(200);
    expect(stalls()).toBeGreaterThanOrEqual(before + 1);
    expect(seconds() - beforeSeconds).toBeGreaterThan(0.05);
    expect(server.metrics.render()).toMatch(/# TYPE kueue_ray_webhook_thread_stalls_total counter/);
  });

  test('unknown paths are 404 and the port is not plain HTTP', async () => {
    expect((await post('/nope', '{}')).status).toBe(404);
    const plain = await new Promise<string>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
      s.on('data', (d) => resolve(d.toString().slice(0, 12)));
      s.on('error', (e) => resolve(e.message));
      s.on('close', () => resolve('closed'));
    });
    expect(plain).not.toMatch(/^HTTP\/1.1 200/);
  });
});
