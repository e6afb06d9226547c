// Issue 42, item 1: "is this queued RayJob Kueue's?" has one answer, the kind adapter's skipsKueue (Kueue's
// JobWithSkip), and plan, check and the admission webhook each ask it. Before, plan kept its own copy, which took
// `clusterSelector: {}` for an existing cluster (Kueue reads len(ClusterSelector) > 0) and missed the queue-name
// annotation Kueue reads before 0.15. Here the three are held to the same answer on every modelled version.
import { validateRayObject, mutateRayObject } from '../../src/controller/admission';
import { runCheck } from '../../src/cli/check';
import { planCommand } from '../../src/cli/plan';
import { parseAllDocuments } from 'yaml';
import { Inventory } from '../../src/policy';
import { inventoryFromObjects } from '../../src/policy/inventory-objects';
import { RAY_JOB, skipsKueue } from '../../src/policy/kinds';
import { kubeRayCapabilities, kueueCapabilities, SUPPORTED_KUEUE_VERSIONS } from '../../src/policy/versions';
import { queuesYaml } from '../support/queues-yaml';
import { tmpFiles } from '../support/synth';

const QUEUES = queuesYaml({ apiVersion: 'kueue.x-k8s.io/v1beta1' });

const CLUSTER_SPEC = {
  headGroupSpec: { template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0',
    resources: { requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '1', memory: '2Gi' } } }] } } },
};

type Variant = 'empty selector' | 'selector' | 'annotation';
/** The RayJob of a variant; without shutdownAfterJobFinishes, Kueue's webhook refuses it if (and only if) the job is Kueue's. */
function job(variant: Variant, shutdown: boolean): any {
  const queue = { 'kueue.x-k8s.io/queue-name': 'lq' };
  return {
    apiVersion: 'ray.io/v1', kind: 'RayJob',
    metadata: { name: `${variant.replace(' ', '-')}-${shutdown}`, namespace: 'default',
      ...(variant === 'annotation' ? { annotations: queue } : { labels: queue }) },
    spec: {
      entrypoint: 'python -c "print(1)"',
      ...(shutdown ? { shutdownAfterJobFinishes: true } : {}),
      ...(variant === 'selector' ? { clusterSelector: { 'ray.io/cluster': 'shared' } } : { rayClusterSpec: CLUSTER_SPEC }),
      ...(variant === 'empty selector' ? { clusterSelector: {} } : {}),
    },
  };
}

/** What Kueue does, from its sources: an empty selector is no selector; a selector alone is skipped from the
 * clusterSelector rules (0.13.7) and refused before them; the annotation names the queue before 0.15. */
function kueueOwns(variant: Variant, kueue: string): boolean {
  const caps = kueueCapabilities(kueue);
  if (variant === 'selector') return !caps.rayJobClusterSelectorRules;
  if (variant === 'annotation') return caps.queueNameAnnotation;
  return true;
}

// The webhook's view of the cluster: the same queues (its informers read them), and no namespace is a tenant's.
const queueObjects = parseAllDocuments(QUEUES).map((d) => d.toJS());
const CLUSTER: Inventory = inventoryFromObjects({
  localQueues: queueObjects.filter((o) => o.kind === 'LocalQueue'), clusterQueues: queueObjects.filter((o) => o.kind === 'ClusterQueue'),
  cohorts: [], priorityClasses: [], namespaces: [],
});
const review = (o: any) => ({ uid: 'u', kind: { group: 'ray.io', version: 'v1', kind: o.kind }, namespace: o.metadata.namespace,
  operation: 'CREATE', object: o, userInfo: { username: 'alice' } });
const config = (kueue: string) => ({ kueue: kueueCapabilities(kueue), kubeRay: kubeRayCapabilities('v1.6.2'), elasticGate: 'on' as const,
  gracefulPreemption: { terminationGracePeriodSeconds: 120, preStopSleepSeconds: 30 } });

const VARIANTS: Variant[] = ['empty selector', 'selector', 'annotation'];
const CASES = SUPPORTED_KUEUE_VERSIONS.flatMap((k) => VARIANTS.map((v) => [k, v] as const));

test('the modelled versions cover both sides of the clusterSelector rules and of the queue-name annotation', () => {
  const caps = SUPPORTED_KUEUE_VERSIONS.map(kueueCapabilities);
  expect(new Set(caps.map((c) => c.rayJobClusterSelectorRules))).toEqual(new Set([true, false]));
  expect(new Set(caps.map((c) => c.queueNameAnnotation))).toEqual(new Set([true, false]));
});

test.each(CASES)('Kueue %s, a RayJob with %s: plan, check and the webhook give Kueue\'s answer', async (kueue, variant) => {
  const owns = kueueOwns(variant, kueue);
  const complete = job(variant, true);
  const incomplete = job(variant, false);
  // The predicate itself.
  expect(skipsKueue(complete, kueueCapabilities(kueue))).toBe(variant === 'selector' && !owns);
  expect(RAY_JOB.skipsKueue(complete, kueueCapabilities(kueue))).toBe(skipsKueue(complete, kueueCapabilities(kueue)));

  const dir = tmpFiles({ 'queues.yaml': QUEUES, 'jobs.yaml': [complete, incomplete].map((o) => JSON.stringify(o)).join('\n---\n') });
  const plan = JSON.parse(planCommand([dir, '--kueue-version', kueue, '-o', 'json']));
  const outcome = (o: any) => plan.workloads.find((w: any) => w.workload === `RayJob default/${o.metadata.name}`)?.outcome;
  const refusedBy = (o: any) => plan.refused.filter((r: any) => r.workload === `RayJob default/${o.metadata.name}`).map((r: any) => r.rule);
  const check = await runCheck({ files: [dir], kueueVersion: kueue, output: 'json' });
  const errors = (o: any) => check.findings.filter((f) => f.severity === 'error' && f.object === `RayJob default/${o.metadata.name}`)
    .map((f) => f.rule);
  const webhook = (o: any) => validateRayObject(review(o), config(kueue), { inventory: CLUSTER }).response.allowed;

  if (variant === 'selector' && owns) {
    // Kueue owns it and its webhook refuses a selector without the rules: all three refuse both jobs.
    for (const o of [complete, incomplete]) {
      expect(refusedBy(o)).toContain('rayJobClusterSource');
      expect(errors(o)).toContain('rayJobClusterSource');
      expect(webhook(o)).toBe(false);
    }
  } else if (owns) {
    // Kueue's: planned as queued; the one without shutdownAfterJobFinishes is refused by Kueue's rule everywhere.
    expect(outcome(complete)).toBe('admitted');
    expect([refusedBy(complete), errors(complete), webhook(complete)]).toEqual([[], [], true]);
    expect([refusedBy(incomplete), errors(incomplete), webhook(incomplete)])
      .toEqual([['rayJobShutdownAfterFinish'], ['rayJobShutdownAfterFinish'], false]);
  } else {
    // Not Kueue's: not queued in the plan, and Kueue's rules for its own jobs do not apply to either.
    for (const o of [complete, incomplete]) {
      expect(outcome(o)).toBe('not-queued');
      expect([refusedBy(o), errors(o), webhook(o)]).toEqual([[], [], true]);
    }
  }
});

test.each(SUPPORTED_KUEUE_VERSIONS)('Kueue %s: in a tenant namespace the mutating webhook queues a clusterSelector RayJob only where Kueue owns it',
  (kueue) => {
    const inventory: Inventory = {
      localQueues: [{ namespace: 't', name: 'lq', clusterQueue: 'cq', tenant: {}, tenantLabelled: true }],
      clusterQueues: [], cohorts: [], priorityClasses: [],
      namespaces: [{ name: 't', labels: { 'kubernetes.io/metadata.name': 't', 'cdk8s-kueue-ray.io/tenant': 't' } }],
    };
    const o = { apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { name: 'j', namespace: 't' },
      spec: { entrypoint: 'python -c "print(1)"', submissionMode: 'HTTPMode', clusterSelector: { 'ray.io/cluster': 'shared' } } };
    const patch = mutateRayObject(review(o), config(kueue), { inventory }).response.patch;
    const ops: any[] = patch ? JSON.parse(Buffer.from(patch, 'base64').toString()) : [];
    const labelled = ops.some((op) => op.path === '/metadata/labels/kueue.x-k8s.io~1queue-name'); // JSON pointer: / is ~1
    expect(labelled).toBe(!skipsKueue(o, kueueCapabilities(kueue)));
    expect(labelled).toBe(kueueOwns('selector', kueue));
  });
