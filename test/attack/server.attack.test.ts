// Attacks on the running controller (issue 11, "Found by attacking the running server"): each case
// drives the real entrypoint over real TLS on loopback, bounded in time and count, and checks that
// the process survives, answers within the webhook timeout, and decides what it should.
import * as net from 'net';
import * as tls from 'tls';
import * as fs from 'fs';
import { CONTROLLER_MEMORY_LIMIT_MIB } from '../../src/install/admission-controller/admission-controller';
import { compileController, Controller, healthy, post, rayJob, request, responseOf, review, startController, testPki } from './support';

jest.setTimeout(60000);

beforeAll(() => compileController(), 180000);

let ctl: Controller;
afterEach(async () => { await ctl?.stop(); });

test('1. deep YAML in runtimeEnvYAML does not kill the process: it is not parsed, and a warning says so', async () => {
  ctl = await startController();
  const deep = rayJob({ runtimeEnvYAML: '['.repeat(5000) });
  const answers = [];
  for (let i = 0; i < 3; i++) answers.push(await post(ctl.port, '/validate', review(deep)));
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
  expect(ctl.alive()).toBe(true);
  for (const a of answers) {
    const r = responseOf(a);
    expect(r.allowed).toBe(true);
    expect(r.warnings.join('\n')).toMatch(/runtimeEnvYAML was not checked: it nests 5000 levels deep/);
  }
  // Within the bounds it is still parsed: a YAML list is refused.
  const list = responseOf(await post(ctl.port, '/validate', review(rayJob({ runtimeEnvYAML: '- a\n- b' }))));
  expect(list).toMatchObject({ allowed: false, status: { message: expect.stringMatching(/runtimeEnvYAML is not a YAML mapping/) } });
  expect(await healthy(ctl.port)).toBe(true);
  expect(ctl.alive()).toBe(true);
});

test('2. a huge quantity exponent is refused at once with a clear finding; memory does not grow and good reviews behind it are decided', async () => {
  ctl = await startController();
  const huge = (q: string) => rayJob({ rayClusterSpec: { headGroupSpec: { template: { spec: { containers: [{ name: 'h', image: 'i',
    resources: { requests: { cpu: q, memory: '1Gi' } } }] } } } } });
  const before = ctl.rssMiB();
  for (let i = 0; i < 14; i++) {
    const [bad, good] = await Promise.all([post(ctl.port, '/validate', review(huge(`1e${1000000000 - i}`))),
      post(ctl.port, '/validate', review(rayJob()))]);
    expect(bad.ms).toBeLessThan(1000);
    expect(responseOf(bad)).toMatchObject({ allowed: false, status: { code: 422, message: expect.stringMatching(/larger than the largest quantity Kubernetes represents/) } });
    expect(responseOf(good)).toMatchObject({ allowed: true });
  }
  // An exponent Kubernetes itself refuses (beyond int32) is named as such.
  const e = responseOf(await post(ctl.port, '/validate', review(huge('1e99999999999'))));
  expect(e.status.message).toMatch(/exponent is outside what Kubernetes accepts/);
  expect(ctl.rssMiB() - before).toBeLessThan(40);
});

test('3. a request.uid that is not a string gets HTTP 400 and is never echoed, even when decided on the server thread', async () => {
  ctl = await startController(['--admission-workers=0']);
  // A review that made the policy throw (containers: {}), so the old error handler ran String(uid).
  const throwing = rayJob({ rayClusterSpec: { headGroupSpec: { template: { spec: { containers: {} } } } } });
  for (const uid of [{ toString: null }, 7, ['a'], '', 'x'.repeat(1000)]) {
    const a = await post(ctl.port, '/validate', review(throwing, { uid }));
    expect(a.status).toBe(400);
    expect(JSON.parse(a.body).message).toMatch(/request.uid must be a non-empty string/);
  }
  for (const bad of [{ kind: 'RayJob' }, { kind: { group: 'ray.io', version: 'v1', kind: 7 } }, { operation: 'EXPLODE' }, { namespace: {} },
    { object: 'text' }]) {
    expect((await post(ctl.port, '/mutate', review(rayJob(), bad))).status).toBe(400);
  }
  expect(await healthy(ctl.port)).toBe(true);
});

test('4. idle TLS connections, connections that never say hello, and connections past the cap are closed', async () => {
  ctl = await startController();
  const p = testPki();
  const closedWithin = (sock: net.Socket, ms: number) => new Promise<number>((resolve) => {
    const t0 = Date.now();
    const t = setTimeout(() => { sock.destroy(); resolve(Infinity); }, ms);
    sock.on('close', () => { clearTimeout(t); resolve(Date.now() - t0); });
    sock.on('error', () => undefined);
  });
  // A completed handshake, then nothing: closed by the idle timeout (10 s).
  const idle = tls.connect({ host: '127.0.0.1', port: ctl.port, ca: fs.readFileSync(p.caCrt), servername: 'localhost' });
  await new Promise((r) => idle.once('secureConnect', r));
  // TCP only, no ClientHello: closed by the handshake timeout (5 s).
  const mute = net.connect(ctl.port, '127.0.0.1');
  const [idleMs, muteMs] = await Promise.all([closedWithin(idle, 13000), closedWithin(mute, 8000)]);
  expect(muteMs).toBeLessThan(7000);
  expect(idleMs).toBeLessThan(12000);
  // The cap (512): of 600 connections, the ones beyond it are closed at once. Each socket's close is
  // watched from its creation: on a loaded machine the server closes the first ones past the cap before
  // the last of the 600 has connected, and a listener added after that would miss their 'close'.
  const socks = await Promise.all(Array.from({ length: 600 }, () => new Promise<{ s: net.Socket; closedAfter: Promise<number> }>((resolve) => {
    const s = net.connect(ctl.port, '127.0.0.1');
    s.on('error', () => undefined);
    let connectedAt = 0;
    const closedAfter = new Promise<number>((done) => s.on('close', () => done(connectedAt ? Date.now() - connectedAt : Infinity)));
    s.once('connect', () => { connectedAt = Date.now(); resolve({ s, closedAfter }); });
  })));
  const closed = await Promise.all(socks.map(({ s, closedAfter }) => Promise.race([closedAfter,
    new Promise<number>((r) => setTimeout(() => { s.destroy(); r(Infinity); }, 1500))])));
  expect(closed.filter((ms) => ms < 1500).length).toBeGreaterThanOrEqual(80);
  socks.forEach(({ s }) => s.destroy());
  await new Promise((r) => setTimeout(r, 300));
  expect(await healthy(ctl.port)).toBe(true);
});

test('5. the bodies in flight are bounded in total: 16 concurrent 3.9 MiB reviews do not take the process above its memory budget', async () => {
  ctl = await startController();
  // 3.9 MiB of small objects: the most expensive shape to parse per byte.
  const env = Array.from({ length: 130000 }, (_, i) => ({ name: `E${i}`, value: 'v' }));
  const big = rayJob({ rayClusterSpec: { headGroupSpec: { template: { spec: { containers: [{ name: 'h', image: 'i', env }] } } } } });
  const body = JSON.stringify(review(big));
  expect(body.length).toBeGreaterThan(3.5 * 1024 * 1024);
  expect(body.length).toBeLessThan(4 * 1024 * 1024);
  const answers = await Promise.all(Array.from({ length: 16 }, () => post(ctl.port, '/validate', body)));
  const statuses = answers.map((a) => a.status);
  // A refused client still writing its body may see the connection reset after the 429, as with 413.
  const other = answers.filter((a) => a.status !== 200 && a.status !== 429 && !(a.status === -1 && /ECONNRESET|EPIPE/.test(a.body)));
  expect(other.map((a) => `${a.status} ${a.body.slice(0, 100)}`)).toEqual([]);
  expect(statuses.filter((s) => s === 429 || s === -1).length).toBeGreaterThan(0);
  expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
  // The Deployment's limit (CONTROLLER_MEMORY_LIMIT_MIB in src/install/admission-controller/admission-controller.ts): stay well below it.
  const peak = ctl.peakRssMiB();

  console.log(`attack 5: peak RSS ${peak.toFixed(0)} MiB, answers ${statuses.join(',')}`);
  expect(peak).toBeLessThan(200);
  expect(await healthy(ctl.port)).toBe(true);
});

test('5b. the most a crowd can hold: 8 peers each sending 3.9 MiB reviews to both paths, beside 6 slow bodies; the peak sizes the '
  + 'pod\'s memory limit', async () => {
  ctl = await startController();
  const env = Array.from({ length: 130000 }, (_, i) => ({ name: `E${i}`, value: 'v' }));
  const body = JSON.stringify(review(rayJob({ rayClusterSpec: { headGroupSpec: { template: { spec: { containers: [{ name: 'h', image: 'i',
    env }] } } } } })));
  const slow = await Promise.all(Array.from({ length: 6 }, async () => {
    const s = tls.connect({ host: '127.0.0.1', port: ctl.port, ca: fs.readFileSync(testPki().caCrt), servername: 'localhost' });
    s.on('error', () => undefined);
    await new Promise((r) => s.once('secureConnect', r));
    s.write(`POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${4 * 1024 * 1024}\r\n\r\n{`);
    return s;
  }));
  const answers = await Promise.all(Array.from({ length: 8 }, (_, peer) =>
    ['/mutate', '/validate', '/validate'].map((p) => request(ctl.port, 'POST', p, body, { localAddress: `127.0.0.${peer + 2}` }))).flat());
  slow.forEach((s) => s.destroy());
  const statuses = answers.map((a) => a.status);
  expect(statuses.filter((x) => x === 200).length).toBeGreaterThan(0);
  // A refused client still writing its body may see the connection reset after the 429, as in attack 5. On a loaded
  // machine this process may not write a 3.9 MiB body within the 2 s body deadline: the 408 is that deadline at work.
  const allowed = (a: { status: number; body: string }) => a.status === 200 || a.status === 429 || a.status === 408
    || (a.status === -1 && /ECONNRESET|EPIPE/.test(a.body));
  expect(answers.filter((a) => !allowed(a)).map((a) => `${a.status} ${a.body.slice(0, 80)}`)).toEqual([]);
  const peak = ctl.peakRssMiB();
  // The Deployment's limit (src/install/admission-controller/admission-controller.ts) is sized from this figure.
  console.log(`attack 5b: peak RSS ${peak.toFixed(0)} MiB over ${answers.length} concurrent 3.9 MiB reviews from 8 peers and 6 slow bodies `
    + `(${statuses.filter((x) => x === 200).length} decided, ${statuses.filter((x) => x === 429).length} refused with 429)`);
  // Never near the limit (the kernel would kill the pod); the limit itself is sized with a quarter on top.
  expect(peak).toBeLessThan(CONTROLLER_MEMORY_LIMIT_MIB * 0.95);
  expect(await healthy(ctl.port)).toBe(true);
});

test('7. wrong types anywhere are findings, never exceptions: no InternalError denial, and the mutation never throws', async () => {
  ctl = await startController(['--graceful-preemption=60:20']);
  const cases: Array<[string, any]> = [
    ['containers', rayJob({ rayClusterSpec: { headGroupSpec: { template: { spec: { containers: { name: 'h' } } } } } })],
    ['initContainers',
      rayJob({ rayClusterSpec: { headGroupSpec: { template: { spec: { containers: [{ name: 'h', image: 'i' }], initContainers: 'x' } } } } })],
    ['ownerReferences', rayJob({}, { ownerReferences: { kind: 'RayJob' } })],
    ['workerGroupSpecs',
      rayJob({ rayClusterSpec: { headGroupSpec: { template: { spec: { containers: [{ name: 'h', image: 'i' }] } } }, workerGroupSpecs: {} } })],
    ['replicas', rayJob({ rayClusterSpec: { headGroupSpec: { template: { spec: { containers: [{ name: 'h', image: 'i' }] } } },
      workerGroupSpecs: [{ groupName: 'w', replicas: '3', template: { spec: { containers: [{ name: 'w', image: 'i' }] } } }] } })],
    ['prototype keys', rayJob({ submissionMode: { toString: null, valueOf: null }, backoffLimit: { valueOf: null } })],
  ];
  for (const [what, obj] of cases) {
    const v = responseOf(await post(ctl.port, '/validate', review(obj)));
    expect({ what, code: v.status?.code }).toEqual({ what, code: 422 });
    expect(v.status.message).toMatch(/\[objectShape\]/);
    const m = await post(ctl.port, '/mutate', review(obj));
    expect({ what, status: m.status, internal: /webhook error/.test(m.body) }).toEqual({ what, status: 200, internal: false });
    expect(responseOf(m).allowed).toBe(true);
  }
});

test('8. an object whose kind disagrees with request.kind is refused, not allowed unchecked', async () => {
  ctl = await startController();
  const bad = { ...rayJob({ shutdownAfterJobFinishes: false }), kind: 'Sneaky' };
  for (const path of ['/validate', '/mutate']) {
    const r = responseOf(await post(ctl.port, path, review(bad, { kind: { group: 'ray.io', version: 'v1', kind: 'RayJob' } })));
    expect(r).toMatchObject({ allowed: false, status: { code: 400, message: expect.stringMatching(/request.object is Sneaky ray.io\/v1, but request.kind says RayJob ray.io\/v1/) } });
  }
  const wrongVersion = { ...rayJob(), apiVersion: 'ray.io/v1alpha1' };
  expect(responseOf(await post(ctl.port, '/validate', review(wrongVersion))).allowed).toBe(false);
});

test('9. SIGTERM: readiness fails first, the server keeps serving for the grace period with Connection: close, then exits 0', async () => {
  ctl = await startController(); // the default grace period: 5 s
  expect((await request(ctl.port, 'GET', '/readyz')).status).toBe(200);
  const t0 = Date.now();
  ctl.proc.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 200));
  const ready = await request(ctl.port, 'GET', '/readyz');
  expect(ready.status).toBe(503);
  // New connections are still served during the grace period, and told to close.
  const a = await post(ctl.port, '/validate', review(rayJob()));
  expect(a.status).toBe(200);
  expect(responseOf(a).allowed).toBe(true);
  expect(a.headers.connection).toBe('close');
  expect(await ctl.exited).toBe(0);
  expect(Date.now() - t0).toBeGreaterThanOrEqual(4900);
  expect(ctl.output()).toMatch(/readiness fails/);
});
