// A tenant with edit rights in its own namespace tries the six ways out of its quota and priority that
// a security review found (issue 19), and issue 40's unsuspending of pending objects, on the host-process
// control plane: Kueue and KubeRay acting as their own ServiceAccounts, the controller's webhook behind the
// AdmissionController chart's own configurations. The issue-19 cases (test/attack/support/tenant-escapes.ts)
// run on the real node too; issue 40's round-two cases (support/round-two-escapes.ts) only here so far.
import { binary, K8S_VERSION, TestCluster } from '../e2e/support/cluster';
import { ControllerFront, frontController, tenantRbac } from '../e2e/support/controller-front';
import { KubeClient } from '../e2e/support/kube';
import { describeOnPair } from '../e2e/support/pairs';
import { escapeCases, objects, PAIRS, TENANT, TENANT_NAMESPACES } from './support/tenant-escapes';
import { applyAny } from './support/apply-any';
import { roundTwoCases } from './support/round-two-escapes';

for (const [kueueVersion, kubeRayVersion] of PAIRS) {
  const PAIR: [string, string] = [kueueVersion.version, kubeRayVersion.version];
  describeOnPair('tenant-escapes', PAIR)(`tenant escapes, closed, on Kueue ${PAIR[0]} + KubeRay ${PAIR[1]}`, () => {
    let cluster: TestCluster;
    let front: ControllerFront;
    let tenant: KubeClient;

    beforeAll(async () => {
      cluster = await TestCluster.start({ kueue: PAIR[0], kubeRay: PAIR[1] });
      const c = cluster.client;
      const o = objects(kueueVersion, kubeRayVersion);
      for (const x of o.tenants.filter((t) => t.kind === 'Namespace')) await applyAny(c, x);
      for (const x of o.tenants.filter((t) => t.kind !== 'Namespace')) await applyAny(c, x);
      for (const x of tenantRbac(TENANT, TENANT_NAMESPACES)) await c.apply(x);
      tenant = c.as(TENANT);
      const seesTenants = (cache: any) => TENANT_NAMESPACES.every((ns) => cache.view().inventory.localQueues.some((q: any) => q.namespace === ns));
      front = await frontController(cluster, o.controller, PAIR, seesTenants);
    }, 300000);

    afterAll(async () => {
      await front?.stop();
      await cluster?.stop();
    }, 60000);

    // The test cluster's components authenticate with certificates in system:masters (no RBAC is set up for them).
    escapeCases({
      pair: PAIR, admin: () => cluster.client, tenant: () => tenant, webhook: () => ({ host: '127.0.0.1', port: front.port }),
      kubeRayGroups: ['system:masters', 'system:authenticated'], kueuePodIntegration: false,
    });
    // Issue 40's round two: unsuspending a pending object (a tenant's UPDATE, a re-run of the project's apply), a negative request.
    roundTwoCases({
      pair: PAIR, kueue: kueueVersion, kubeRay: kubeRayVersion, admin: () => cluster.client, tenant: () => tenant,
      kubeconfig: () => cluster.kubeconfig, kubectl: binary(`kubectl-${K8S_VERSION}`),
    });
  });
}
