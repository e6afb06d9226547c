/**
 * The test control plane does not take a component that lost its port for a started one (issue 39).
 *
 * freePort() releases a port before the component binds it, and two clusters start side by side, so another
 * process can hold the port by then. The KubeRay operator v1.6.2 then answers /healthz (on its own health port,
 * or the other process does on a taken one) and exits a moment later on "address already in use". The harness
 * took it for started, and every later test on that cluster waited for RayClusters no operator would create:
 * the four v0.14.8 + v1.6.2 scenario failures ("the admitted RayJob to get its RayCluster"). Here a port is held
 * on purpose by a server that answers every request with 200, as another cluster's operator would.
 */
import * as http from 'http';
import * as net from 'net';
import { TestCluster, freePort, listeningPorts } from './support/cluster';
import { waitFor } from './support/kube';
import { describeOnPair } from './support/pairs';

const PAIR: [string, string] = ['v0.14.8', 'v1.6.2'];

/** A loopback server that answers 200 to anything, and its port. */
async function squatter(): Promise<{ port: number; close(): Promise<void> }> {
  const srv = http.createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  return { port: (srv.address() as net.AddressInfo).port, close: () => new Promise((r) => srv.close(() => r())) };
}

/** Ports from the kernel, but the held one the first time `role` is asked for. */
function takenOnce(role: string, held: number): { portFor: (r: string) => Promise<number>; handed: () => boolean } {
  let handed = false;
  return {
    portFor: async (r) => {
      if (r === role && !handed) { handed = true; return held; }
      return freePort();
    },
    handed: () => handed,
  };
}

const rayJob = (name: string) => ({
  apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { name, namespace: 'default' },
  spec: {
    entrypoint: 'python -c "print(1)"',
    rayClusterSpec: {
      headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.52.0' }] } } },
    },
  },
});

describeOnPair('test control plane ports', PAIR)(`a port held by another process (Kueue ${PAIR[0]} + KubeRay ${PAIR[1]})`, () => {
  // Each case stops its cluster when it ends: three idle control planes would take CPU from the suites beside it.
  let cluster: TestCluster | undefined;
  afterEach(async () => { await cluster?.stop(); cluster = undefined; }, 60000);

  // A RayJob without a queue name is not Kueue's: only a running operator gives it a RayCluster.
  const operatorWorks = async (c: TestCluster, name: string) => {
    await c.client.create(rayJob(name));
    await waitFor(`KubeRay to create ${name}'s RayCluster`, async () => (await c.client.list('ray.io/v1', 'RayCluster', 'default'))
      .some((rc) => (rc.metadata.ownerReferences ?? []).some((o: any) => o.kind === 'RayJob' && o.name === name)), 60000);
  };

  test.each([
    ['kuberay-health', 'the health port (the other process answers the readiness probe)'],
    ['kuberay-metrics', 'the metrics port (the operator answers /healthz, then exits on the taken port)'],
  ])('the KubeRay operator given %s: %s, is booted again on fresh ports and creates RayClusters', async (role) => {
    const held = await squatter();
    try {
      const ports = takenOnce(role, held.port);
      const c = cluster = await TestCluster.start({ kueue: PAIR[0], kubeRay: PAIR[1], portFor: ports.portFor });
      expect(ports.handed()).toBe(true);
      expect(c.bootAttempts).toBe(2);
      await operatorWorks(c, `ports-${role}`);
      expect(c.exited()).toBe('');
      expect(listeningPorts(process.pid).has(held.port)).toBe(true); // still held: the second boot did not get it back
      process.stdout.write(`[testcluster-ports] ${role} held: booted again (attempt ${c.bootAttempts}), operator running\n`);
    } finally {
      await held.close();
    }
  }, 300000);

  test('kube-controller-manager given a held port is booted again, and then runs', async () => {
    const held = await squatter();
    try {
      const ports = takenOnce('kube-controller-manager', held.port);
      const c = cluster = await TestCluster.start({ kueue: PAIR[0], kubeRay: PAIR[1], controllers: false, portFor: ports.portFor });
      expect(c.bootAttempts).toBe(2);
      expect(c.exited()).toBe('');
    } finally {
      await held.close();
    }
  }, 300000);
});
