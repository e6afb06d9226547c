// Kueue's LocalQueue defaulting (jobframework/defaults.go) and the update rule that goes with it, as the policy models them.
import { Inventory, kueueCapabilities, kueueDefaultQueue, kueueWebhookOnUpdate, withKueueDefaults } from '../../src/policy';

const inventory: Inventory = {
  localQueues: [{ namespace: 'ml', name: 'default', clusterQueue: 'cq' }, { namespace: 'ml', name: 'fast', clusterQueue: 'cq' },
    { namespace: 'other', name: 'fast', clusterQueue: 'cq' }],
  clusterQueues: [], cohorts: [], priorityClasses: [], namespaces: [],
};
const obj = (kind: string, namespace = 'ml', metadata: Record<string, unknown> = {}) => ({ apiVersion: 'ray.io/v1', kind,
  metadata: { name: 'x', namespace, ...metadata }, spec: {} });
const caps = kueueCapabilities;

test('an object without a queue name in a namespace with a LocalQueue named default gets it; elsewhere nothing', () => {
  expect(kueueDefaultQueue(obj('RayJob'), caps('v0.19.2'), inventory)).toBe('default');
  expect(kueueDefaultQueue(obj('RayCluster'), caps('v0.14.8'), inventory)).toBe('default');
  expect(kueueDefaultQueue(obj('RayJob', 'other'), caps('v0.19.2'), inventory)).toBeUndefined();
  expect(kueueDefaultQueue(obj('RayJob', 'ml', { labels: { 'kueue.x-k8s.io/queue-name': 'fast' } }), caps('v0.19.2'), inventory)).toBeUndefined();
  expect(withKueueDefaults(obj('RayJob', 'ml', { labels: { team: 'a' } }), caps('v0.19.2'), inventory).obj.metadata?.labels)
    .toEqual({ team: 'a', 'kueue.x-k8s.io/queue-name': 'default' });
});

test('per version: a RayService only from 0.17 (Kueue has no RayService webhook before); the annotation counts as a queue name before 0.15', () => {
  expect(kueueDefaultQueue(obj('RayService'), caps('v0.14.8'), inventory)).toBeUndefined();
  expect(kueueDefaultQueue(obj('RayService'), caps('v0.17.0'), inventory)).toBe('default');
  const annotated = obj('RayJob', 'ml', { annotations: { 'kueue.x-k8s.io/queue-name': 'fast' } });
  expect(kueueDefaultQueue(annotated, caps('v0.14.8'), inventory)).toBeUndefined();
  expect(kueueDefaultQueue(annotated, caps('v0.19.2'), inventory)).toBe('default');
});

test('a RayCluster a RayJob controls is not defaulted: Kueue manages its owner', () => {
  const child = obj('RayCluster', 'ml', { ownerReferences: [{ apiVersion: 'ray.io/v1', kind: 'RayJob', name: 'j', uid: 'u', controller: true }] });
  expect(kueueDefaultQueue(child, caps('v0.19.2'), inventory)).toBeUndefined();
});

test('removing the queue name in a namespace with a default LocalQueue is refused on update, as Kueue refuses it', () => {
  const queued = { ...obj('RayJob', 'ml', { labels: { 'kueue.x-k8s.io/queue-name': 'fast' } }), spec: { suspend: true } };
  const removed = { ...obj('RayJob'), spec: { suspend: true } };
  const f = kueueWebhookOnUpdate(queued, removed, { kueue: caps('v0.19.2'), kubeRay: undefined as any, inventory });
  expect(f.map((x) => `${x.field}: ${x.message}`)).toEqual([
    'metadata.labels[kueue.x-k8s.io/queue-name]: queue-name must not be empty in namespace with default queue (Kueue webhook)']);
  const elsewhere = kueueWebhookOnUpdate({ ...queued, metadata: { ...queued.metadata, namespace: 'other' } },
    { ...removed, metadata: { ...removed.metadata, namespace: 'other' } }, { kueue: caps('v0.19.2'), kubeRay: undefined as any, inventory });
  expect(elsewhere).toEqual([]);
});
