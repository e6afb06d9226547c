// Kueue's UPDATE checks of the max-exec-time-seconds label and the prebuilt Workload name (jobframework
// validateUpdateForMaxExecTime, validateUpdateForPrebuiltWorkload), in the kueueWebhookOnUpdate rule.
import { kubeRayCapabilities, kueueCapabilities, PolicyContext } from '../../src/policy';
import { kueueWebhookOnUpdate } from '../../src/policy/rules/kueue-webhook';
import { rayJob } from '../agreement/support/ray-objects';

const ctx = (kueue = 'v0.19.2'): PolicyContext => ({ kueue: kueueCapabilities(kueue), kubeRay: kubeRayCapabilities('v1.6.2') });
const MAX = 'kueue.x-k8s.io/max-exec-time-seconds';
const PREBUILT = 'kueue.x-k8s.io/prebuilt-workload-name';
const job = (labels: Record<string, string>, suspend: boolean, annotations: Record<string, string> = {}) =>
  rayJob('job', { suspend }, { labels: { 'kueue.x-k8s.io/queue-name': 'user-queue', ...labels }, annotations });
const errors = (old: any, object: any, field: string, kueue?: string) => kueueWebhookOnUpdate(old, object, ctx(kueue))
  .filter((f) => f.severity === 'error' && f.field === field).map((f) => f.message);

describe.each(['v0.14.8', 'v0.17.0', 'v0.19.2'])('Kueue %s', (kueue) => {
  test('max-exec-time-seconds changes only while the object was and stays suspended', () => {
    const field = `metadata.labels[${MAX}]`;
    expect(errors(job({ [MAX]: '3600' }, false), job({ [MAX]: '7200' }, false), field, kueue)).toEqual(['the maximum execution time cannot '
      + 'change from "3600" to "7200" unless the object was and stays suspended: field is immutable (Kueue webhook)']);
    expect(errors(job({ [MAX]: '3600' }, true), job({ [MAX]: '7200' }, false), field, kueue)).toHaveLength(1); // unsuspended in the same update
    expect(errors(job({}, false), job({ [MAX]: '60' }, false), field, kueue)).toHaveLength(1); // added while running
    expect(errors(job({ [MAX]: '3600' }, true), job({ [MAX]: '7200' }, true), field, kueue)).toEqual([]);
    expect(errors(job({ [MAX]: '3600' }, false), job({ [MAX]: '3600' }, false), field, kueue)).toEqual([]);
  });

  test('the prebuilt Workload is fixed once the object runs, unless it is elastic', () => {
    const field = `metadata.labels[${PREBUILT}]`;
    expect(errors(job({ [PREBUILT]: 'wl-a' }, false), job({ [PREBUILT]: 'wl-b' }, false), field, kueue)).toEqual([
      'the prebuilt Workload cannot change from "wl-a" to "wl-b" while the object runs: field is immutable (Kueue webhook)']);
    expect(errors(job({ [PREBUILT]: 'wl-a' }, false), job({ [PREBUILT]: 'wl-b' }, true), field, kueue)).toEqual([]); // suspended again
    expect(errors(job({ [PREBUILT]: 'wl-a' }, true), job({ [PREBUILT]: 'wl-b' }, true), field, kueue)).toEqual([]);
  });
});

test('an elastic object (the gate on) may change its prebuilt Workload while it runs: each slice is a new Workload', () => {
  const elastic = { 'kueue.x-k8s.io/elastic-job': 'true' };
  const field = `metadata.labels[${PREBUILT}]`;
  expect(errors(job({ [PREBUILT]: 'wl-a' }, false, elastic), job({ [PREBUILT]: 'wl-b' }, false, elastic), field, 'v0.19.2')).toEqual([]);
});
