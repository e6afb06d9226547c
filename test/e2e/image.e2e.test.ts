// The controller image as shipped (dist/image, `npm run image`): its config, and its entrypoint run from
// its own root filesystem (read-only, uid 65532, the image's Node): TLS, health, a review decided by the
// bundled admission worker, draining on SIGTERM. The suites on the control plane run the same image.
import * as fs from 'fs';
import * as path from 'path';
import { tmpdir } from '../support/synth';
import { REPO_ROOT } from '../support/upstream';
import { freePort } from './support/cluster';
import { FILES_MOUNT, startImageController, unpackImage } from './support/image';
import { makePki } from './support/pki';
import { probeStatus, reviewBadRayJob } from '../support/webhook-probe';

test('the image runs node on the bundle as 65532:65532 and holds nothing else', () => {
  const { config, rootfs } = unpackImage();
  expect(config.User).toBe('65532:65532');
  const image = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'))['cdk8s-kueue-ray'];
  expect(config.Entrypoint).toEqual(['/usr/bin/node', ...image.controllerNodeFlags, '/app/cdk8s-kueue-ray.js']);
  expect(config.Entrypoint).toContain('--max-semi-space-size=4');
  // The environment the benches and attack tests measured it with.
  expect(Object.keys(image.controllerEnvironment).length).toBeGreaterThan(0);
  for (const [k, v] of Object.entries(image.controllerEnvironment)) expect(config.Env).toContain(`${k}=${v}`);
  expect(config.Env).toContain('MALLOC_ARENA_MAX=2');
  expect(config.Cmd).toEqual(['controller']);
  const files: string[] = [];
  const walk = (d: string) => {
    for (const f of fs.readdirSync(path.join(rootfs, d))) {
      const rel = path.join(d, f);
      const st = fs.lstatSync(path.join(rootfs, rel));
      if (st.isDirectory()) walk(rel);
      else files.push(rel);
    }
  };
  walk('');
  // The program, Node, the libraries node links against, and license texts.
  const unexpected = files.filter((f) => !/^(app\/(cdk8s-kueue-ray|admission-worker)\.js|usr\/bin\/node|(usr\/)?lib(64)?\/(x86_64-linux-gnu\/)?(ld-linux-x86-64|lib(c|m|dl|pthread|gcc_s|stdc\+\+))\.so[.0-9]*|usr\/share\/doc\/[^/]+\/(copyright|LICENSE)|app\/(THIRD-PARTY-NOTICES\.txt|LICENSE))$/.test(f));
  expect(unexpected).toEqual([]);
  expect(files).toEqual(expect.arrayContaining(['app/cdk8s-kueue-ray.js', 'app/admission-worker.js', 'usr/bin/node']));
});

test('from its own read-only root as uid 65532: serves TLS, decides a review in its worker, drains and exits 0 on SIGTERM', async () => {
  const pki = makePki(path.join(tmpdir(), 'image-pki'));
  const port = await freePort();
  const c = await startImageController({
    args: ['controller', `--tls-cert-file=${FILES_MOUNT}/tls.crt`, `--tls-key-file=${FILES_MOUNT}/tls.key`, `--port=${port}`, '--host=127.0.0.1',
      '--reconciler=false'],
    files: { 'tls.crt': fs.readFileSync(pki.servingCrt), 'tls.key': fs.readFileSync(pki.servingKey) },
  });
  try {
    await c.waitForLog(/"msg":"webhook listening"/);
    const status = fs.readFileSync(`/proc/${c.pid}/status`, 'utf8');
    expect(status).toMatch(/^Uid:\s+65532\s+65532\s+65532\s+65532$/m);
    expect(status).toMatch(/^Gid:\s+65532\s+65532\s+65532\s+65532$/m);
    // The image's Node, not the one running the tests, and a read-only root.
    expect(fs.readlinkSync(`/proc/${c.pid}/exe`)).toBe(path.join(unpackImage().rootfs, 'usr/bin/node'));
    const root = fs.readFileSync(`/proc/${c.pid}/mountinfo`, 'utf8').split('\n').map((l) => l.split(' ')).find((f) => f[4] === '/');
    expect(root?.[5].split(',')).toContain('ro');
    expect(await probeStatus(port, pki.caCrt, '/healthz')).toBe(200);
    const answer = await reviewBadRayJob(port, pki.caCrt, 'i1');
    expect(answer.response).toMatchObject({ uid: 'i1', allowed: false, status: { code: 422 } });
    expect(answer.response.status.message).toMatch(/shutdownAfterJobFinishes/);
  } finally {
    expect(await c.stop()).toBe(0);
  }
  expect(c.output()).toMatch(/draining in-flight requests/);
  expect(c.output()).not.toMatch(/"level":"error"/);
});
