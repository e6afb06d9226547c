/**
 * The KubeRay oracle itself, per pinned KubeRay version: the vendored samples pass, objects KubeRay's
 * reconcilers refuse fail with KubeRay's own message and check, a wrong type is a decode error. Needs
 * the oracle binaries (ONLY=kuberay-validate scripts/testcluster/build.sh); in CI a missing one fails.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { vendorDir } from '../../scripts/vendor-dir';
import { compareVersions, RUN_KUBERAY_VERSIONS } from '../../src/policy/versions';
import { REPO_ROOT } from '../support/upstream';
import { clusterSpec, head, rayCluster, rayJob, rayService, worker } from './support/ray-objects';
import { KubeRayOracle, KubeRayVerdict, oracleBinary, oracleBuildCommand, oracleBuilt, oracleSourceHash } from './support/kuberay-oracle';

// A modelled-only version (v1.7.0) has no oracle: the module proxy does not serve its sources.
const VERSIONS = [...RUN_KUBERAY_VERSIONS];

function describeBuilt(version: string): jest.Describe {
  if (oracleBuilt(version)) return describe;
  const why = `the KubeRay ${version} oracle is not built (${oracleBinary(version)}): run ${oracleBuildCommand(version)}`;
  if (process.env.CI) throw new Error(`kuberay-oracle in CI: ${why}`);
  process.stdout.write(`[kuberay-oracle] ${version}: skipped, ${why}\n`);
  return describe.skip;
}

function samples(version: string): Array<{ file: string; object: any }> {
  const dir = path.join(vendorDir('the KubeRay oracle test'), 'kuberay', version, 'ray-operator', 'config', 'samples');
  const out: Array<{ file: string; object: any }> = [];
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    for (const doc of parseAllDocuments(fs.readFileSync(path.join(dir, file), 'utf8'))) {
      const object = doc.toJS();
      if (!object || object.apiVersion !== 'ray.io/v1') continue;
      // The API server turns generateName into a name before the operator sees the object.
      if (!object.metadata.name) object.metadata.name = `${object.metadata.generateName}x7k2q`;
      out.push({ file, object });
    }
  }
  return out;
}

function refused(v: KubeRayVerdict, message: string | RegExp, check: string): void {
  expect(v.decodeError).toBeUndefined();
  expect(v.errors).toHaveLength(1);
  if (typeof message === 'string') expect(v.errors[0]).toContain(message);
  else expect(v.errors[0]).toMatch(message);
  expect(v.check).toBe(check);
}
function accepted(v: KubeRayVerdict): void {
  expect(v).toEqual({ errors: [] });
}

test('the binary name follows the sources: a changed file changes the hash build.sh and the wrapper compute', () => {
  const script = path.join(REPO_ROOT, 'scripts', 'testcluster', 'build.sh');
  const fromBash = execFileSync('bash', ['-c', `source <(sed -n '/^kuberay_validate_hash()/,/^}/p' "${script}"); KV_SRC="$1" kuberay_validate_hash`,
    '_', path.join(REPO_ROOT, 'scripts', 'kuberay-validate')]).toString().trim();
  expect(fromBash).toBe(oracleSourceHash());
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kv-hash-'));
  try {
    fs.cpSync(path.join(REPO_ROOT, 'scripts', 'kuberay-validate'), tmp, { recursive: true });
    const before = oracleSourceHash(tmp);
    fs.appendFileSync(path.join(tmp, 'main.go'), '\n// edit\n');
    expect(oracleSourceHash(tmp)).not.toBe(before);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

for (const version of VERSIONS) {
  const atLeast = (v: string) => compareVersions(version, v) >= 0;

  describeBuilt(version)(`KubeRay ${version} oracle`, () => {
    let oracle: KubeRayOracle;
    beforeAll(async () => { oracle = await KubeRayOracle.start(version); });
    afterAll(async () => { await oracle?.stop(); });
    const one = async (o: unknown) => (await oracle.validate([o]))[0];

    test('every vendored sample passes', async () => {
      const all = samples(version);
      expect(all.map((s) => s.object.kind).sort()).toEqual(expect.arrayContaining(['RayCluster', 'RayJob', 'RayService']));
      const verdicts = await oracle.validate(all.map((s) => s.object));
      verdicts.forEach((v, i) => expect({ file: all[i].file, ...v }).toEqual({ file: all[i].file, errors: [] }));
    });

    test('the hand-made valid bases pass', async () => {
      for (const v of await oracle.validate([rayJob(), rayCluster(), rayService()])) accepted(v);
    });

    test('a RayJob name longer than 47 characters is refused by the metadata check', async () => {
      accepted(await one(rayJob('j'.repeat(47))));
      refused(await one(rayJob('j'.repeat(48))), 'RayJob name should be no more than 47 characters', 'utils.ValidateRayJobMetadata');
      refused(await one(rayJob('Job')), 'RayJob name should be a valid DNS1035 label', 'utils.ValidateRayJobMetadata');
      refused(await one(rayService('s'.repeat(48))), 'RayService name should be no more than 47 characters', 'utils.ValidateRayServiceMetadata');
      refused(await one(rayCluster('c'.repeat(54))), 'RayCluster name should be no more than 53 characters', 'utils.ValidateRayClusterMetadata');
    });

    test('suspend without shutdownAfterJobFinishes is refused', async () => {
      refused(await one(rayJob('job', { suspend: true, shutdownAfterJobFinishes: false })),
        'a RayJob with shutdownAfterJobFinishes set to false is not allowed to be suspended', 'utils.ValidateRayJobSpec');
      accepted(await one(rayJob('job', { suspend: true })));
    });

    test('headService.metadata.name on a RayService is refused', async () => {
      const svc = rayService('service', {}, { headGroupSpec: { ...head(), headService: { metadata: { name: 'my-head' } } } });
      refused(await one(svc), 'spec.rayClusterConfig.headGroupSpec.headService.metadata.name should not be set', 'utils.ValidateRayServiceSpec');
    });

    test('the ray.io/ft-enabled annotation together with gcsFaultToleranceOptions is refused', async () => {
      const gcs = { gcsFaultToleranceOptions: { redisAddress: 'redis:6379' } };
      const message = 'ray.io/ft-enabled annotation and GcsFaultToleranceOptions are both set';
      refused(await one(rayCluster('cluster', gcs, { annotations: { 'ray.io/ft-enabled': 'true' } })), message, 'utils.ValidateRayClusterSpec');
      // On a RayJob the annotation is the RayJob's: ValidateRayJobSpec passes it to ValidateRayClusterSpec.
      refused(await one(rayJob('job', { rayClusterSpec: clusterSpec(gcs) }, { annotations: { 'ray.io/ft-enabled': 'true' } })), message,
        'utils.ValidateRayJobSpec');
      accepted(await one(rayCluster('cluster', gcs)));
    });

    test('an invalid RayService upgradeStrategy.type is refused', async () => {
      refused(await one(rayService('service', { upgradeStrategy: { type: 'Rolling' } })), 'Spec.UpgradeStrategy.Type value Rolling is invalid',
        'utils.ValidateRayServiceSpec');
      accepted(await one(rayService('service', { upgradeStrategy: { type: 'NewCluster' } })));
    });

    test('DeleteNone with shutdownAfterJobFinishes is refused (behind RayJobDeletionPolicy before v1.6)', async () => {
      const field = atLeast('v1.5.0')
        ? { deletionStrategy: { onSuccess: { policy: 'DeleteNone' }, onFailure: { policy: 'DeleteNone' } } }
        : { deletionPolicy: 'DeleteNone' };
      const job = rayJob('job', field);
      const gated = await KubeRayOracle.start(version, { featureGates: { RayJobDeletionPolicy: true } });
      try {
        refused((await gated.validate([job]))[0], "shutdownAfterJobFinshes is set to 'true' while deletion policy is 'DeleteNone'",
          'utils.ValidateRayJobSpec');
      } finally {
        await gated.stop();
      }
      if (atLeast('v1.6.0')) {
        // The gate is on by default from v1.6 (Beta).
        refused(await one(job), "shutdownAfterJobFinshes is set to 'true' while deletion policy is 'DeleteNone'", 'utils.ValidateRayJobSpec');
      } else {
        refused(await one(job), 'RayJobDeletionPolicy feature gate must be enabled', 'utils.ValidateRayJobSpec');
      }
    });

    test('duplicate worker group names and replicas outside [minReplicas, maxReplicas] pass the reconcilers', async () => {
      accepted(await one(rayCluster('cluster', { workerGroupSpecs: [worker('same'), worker('same')] })));
      accepted(await one(rayCluster('cluster', { workerGroupSpecs: [worker('g', { replicas: 9, minReplicas: 1, maxReplicas: 3 })] })));
      accepted(await one(rayCluster('cluster', { workerGroupSpecs: [worker('g', { replicas: 0, minReplicas: 2, maxReplicas: 3 })] })));
    });

    test('minReplicas above maxReplicas, and unset bounds without autoscaling, are refused from v1.6 only', async () => {
      const inverted = rayCluster('cluster', { workerGroupSpecs: [worker('g', { minReplicas: 3, maxReplicas: 2 })] });
      const unbounded = rayCluster('cluster', { workerGroupSpecs: [worker('g', { minReplicas: undefined, maxReplicas: undefined })] });
      if (atLeast('v1.6.0')) {
        refused(await one(inverted), 'worker group g has minReplicas 3 greater than maxReplicas 2', 'utils.ValidateRayClusterSpec');
        refused(await one(unbounded), 'worker group g must set both minReplicas and maxReplicas when autoscaling is disabled',
          'utils.ValidateRayClusterSpec');
        accepted(await one(rayCluster('cluster',
          { enableInTreeAutoscaling: true, workerGroupSpecs: [worker('g', { minReplicas: undefined, maxReplicas: undefined })] })));
      } else {
        accepted(await one(inverted));
        accepted(await one(unbounded));
      }
    });

    test('the RayCluster a RayJob or RayService creates is checked by the RayCluster reconciler too', async () => {
      const job = rayJob('job', { rayClusterSpec: clusterSpec({ upgradeStrategy: { type: 'Recreate' } }) });
      if (atLeast('v1.6.0')) {
        refused(await one(job), 'the RayCluster this RayJob creates: upgradeStrategy cannot be set when RayCluster is created by RayJob',
          'utils.ValidateRayClusterUpgradeOptions');
        accepted(await one(rayCluster('cluster', { upgradeStrategy: { type: 'Recreate' } })));
        refused(await one(rayService('service', {}, { upgradeStrategy: { type: 'Recreate' } })),
          'the RayCluster this RayService creates: upgradeStrategy cannot be set when RayCluster is created by RayService',
          'utils.ValidateRayClusterUpgradeOptions');
      } else {
        // No upgradeStrategy in the RayCluster API before v1.6: the field is dropped on decode.
        accepted(await one(job));
      }
      // With clusterSelector no RayCluster is created.
      refused(await one(rayJob('job', { rayClusterSpec: undefined })), 'one of RayClusterSpec or ClusterSelector must be set',
        'utils.ValidateRayJobSpec');
      accepted(await one(rayJob('job', { rayClusterSpec: undefined, clusterSelector: { 'ray.io/cluster': 'existing' } })));
    });

    test('a wrong type is a decode error, not a verdict', async () => {
      const v = await one(rayJob('job', { suspend: 'yes' }));
      expect(v.errors).toEqual([]);
      expect(v.decodeError).toMatch(/cannot unmarshal string into Go struct field .*suspend of type bool/);
      expect((await one({ ...rayJob(), apiVersion: 'ray.io/v1alpha1' })).decodeError).toMatch(/apiVersion "ray.io\/v1alpha1"/);
      expect((await one({ apiVersion: 'ray.io/v1', kind: 'RayPipeline', metadata: { name: 'p' } })).decodeError).toMatch(/kind "RayPipeline"/);
      // Field names are case-sensitive, as the operator decodes: "Suspend" is not spec.suspend.
      accepted(await one(rayJob('job', { Suspend: true, shutdownAfterJobFinishes: false })));
    });

    test('a RayJob or RayCluster with an external spec.managedBy is not validated', async () => {
      const v = await one(rayJob('j'.repeat(60), { managedBy: 'kueue.x-k8s.io/multikueue' }));
      expect(v.errors).toEqual([]);
      expect(v.skipped).toMatch(/spec.managedBy is kueue.x-k8s.io\/multikueue/);
      refused(await one(rayJob('j'.repeat(60), { managedBy: 'ray.io/kuberay-operator' })), 'no more than 47', 'utils.ValidateRayJobMetadata');
    });

    if (atLeast('v1.5.0')) {
      test('a check that panics on an undefaulted field is reported as a panic', async () => {
        const gated = await KubeRayOracle.start(version, { featureGates: { RayServiceIncrementalUpgrade: true } });
        try {
          const svc = rayService('service',
            { upgradeStrategy: { type: 'NewClusterWithIncrementalUpgrade', clusterUpgradeOptions: { gatewayClassName: 'gw' } } },
            { enableInTreeAutoscaling: true });
          const [v] = await gated.validate([svc]);
          expect(v.panic).toBe(true);
          expect(v.check).toBe('utils.ValidateRayServiceSpec');
          expect(v.errors[0]).toMatch(/^panic: .*nil pointer/);
        } finally {
          await gated.stop();
        }
      });
    }

    test('thousands of objects stream through the one process, answers in order', async () => {
      const objects = Array.from({ length: 5000 },
        (_, i) => (i % 3 === 0 ? rayJob(`job-${i}`) : i % 3 === 1 ? rayJob('j'.repeat(48)) : rayCluster(`c-${i}`)));
      const t0 = Date.now();
      const [a, b] = await Promise.all([oracle.validate(objects), oracle.validate(objects.slice(0, 10))]);
      process.stdout.write(`[kuberay-oracle] ${version}: ${objects.length + 10} objects in ${Date.now() - t0} ms\n`);
      expect(a).toHaveLength(objects.length);
      a.forEach((v, i) => expect(v.errors.length).toBe(i % 3 === 1 ? 1 : 0));
      expect(b).toEqual(a.slice(0, 10));
    });

    test('a missing binary is an error that names the build command', async () => {
      await expect(KubeRayOracle.start('v9.9.9')).rejects.toThrow(/ONLY=kuberay-validate KUBERAY_VERSIONS=v9.9.9 scripts\/testcluster\/build.sh/);
    });
  });
}
