// The ordered apply's plan (scripts/apply.js), on the examples app with both installs and the
// controller: what is applied before the webhooks that would otherwise reject it, and what is waited for.
import * as path from 'path';
import { buildExamples } from '../examples/app';
import { readManifestDir, tmpdir } from './support/synth';
import { vendorDir } from './support/upstream';


const { plan } = require('../scripts/apply.js');

const names = (objs: any[]) => objs.map((o) => `${o.kind}/${o.metadata.name}`);

describe('apply plan of the examples app', () => {
  const vendor = vendorDir();
  if (!vendor) throw new Error('the vendor folder (shared/vendor) is needed: set KUEUE_RAY_VENDOR_DIR');
  const app = buildExamples({
    outdir: tmpdir(), kueue: 'v0.19.2', kubeRay: 'v1.6.2', controller: {},
    install: { kueueManifest: path.join(vendor, 'kueue', 'v0.19.2', 'manifests.yaml'), kubeRayCrdDir: path.join(vendor, 'kuberay', 'v1.6.2', 'ray-operator', 'config', 'crd', 'bases') },
  });
  app.synth();
  const files = readManifestDir(app.outdir);
  const p = plan(Object.entries(files).map(([file, objects]) => ({ file, objects })));

  test('the controller chart is a serving chart: its workload before any webhook, its webhooks after it is up', () => {
    expect(names(p.serving)).toEqual(expect.arrayContaining(['Deployment/cdk8s-kueue-ray-controller', 'Service/cdk8s-kueue-ray-controller', 'Deployment/kueue-controller-manager', 'Deployment/kuberay-operator']));
    expect(p.serving.some((o: any) => o.kind.endsWith('WebhookConfiguration'))).toBe(false);
    expect(names(p.webhooks)).toEqual(expect.arrayContaining(['MutatingWebhookConfiguration/cdk8s-kueue-ray-mutating', 'ValidatingWebhookConfiguration/cdk8s-kueue-ray-validating', 'MutatingWebhookConfiguration/kueue-mutating-webhook-configuration']));
    expect(p.deployments).toEqual(expect.arrayContaining([{ namespace: 'cdk8s-kueue-ray-system', name: 'cdk8s-kueue-ray-controller' }, { namespace: 'kueue-system', name: 'kueue-controller-manager' }]));
    expect(p.services).toEqual(expect.arrayContaining([{ namespace: 'cdk8s-kueue-ray-system', name: 'cdk8s-kueue-ray-controller' }, { namespace: 'kueue-system', name: 'kueue-webhook-service' }]));
  });

  test('queues, tenants and workloads come last, so the webhooks that check them are served', () => {
    const rest = names(p.rest);
    expect(rest).toEqual(expect.arrayContaining(['ClusterQueue/cluster-queue', 'LocalQueue/user-queue']));
    expect(p.rest.some((o: any) => o.kind === 'RayJob' && o.metadata.namespace?.startsWith('team-'))).toBe(true);
    for (const o of p.rest) expect(['Deployment', 'CustomResourceDefinition', 'Namespace', 'MutatingWebhookConfiguration']).not.toContain(o.kind);
    expect(p.namespaces.map((n: any) => n.metadata.name)).toEqual(expect.arrayContaining(['cdk8s-kueue-ray-system', 'kueue-system']));
  });

  test('objects without a name (generateName jobs) are refused with the way to create them', () => {
    expect(() => plan([{ file: 'x', objects: [{ kind: 'RayJob', metadata: { generateName: 'j-' } }] }])).toThrow(/generateName.*kubectl create -f/);
  });
});
