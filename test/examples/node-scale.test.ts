// The examples at EXAMPLES_CPU_SCALE (the real-node guide runs 0.1): every difference from the guide is a
// CPU request or quota times the factor, KubeRay's default submitter/autoscaler written out scaled, or a
// head's longer dashboard start-up; limits, memory and Ray's logical CPUs are the guide's, and the plan
// admits and keeps pending the same.
import { DASHBOARD_MODULE_TIMEOUT_SECONDS, NodeScale } from '../../examples/node-scale';
import { toyEntrypoint } from '../../examples/toy-job';
import { simulatePlan } from '../../src/policy/plan';
import { synthAll, examples } from '../support/synth';

const milli = (q: string) => (q.endsWith('m') ? Number(q.slice(0, -1)) : Number(q) * 1000);
const key = (o: any) => `${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? o.metadata?.generateName}/`
  + `${JSON.stringify(o.spec?.entrypoint ?? '').length}`;

/** Every leaf path where a and b differ. */
function diffs(a: any, b: any, at = ''): Array<{ path: string; a: any; b: any }> {
  if (a === b) return [];
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    return [...new Set([...Object.keys(a), ...Object.keys(b)])].flatMap((k) => diffs(a[k], b[k], `${at}/${k}`));
  }
  return [{ path: at, a, b }];
}

describe('the examples scaled to a small node', () => {
  const guide = synthAll(examples({ scenarios: undefined }));
  const scaled = synthAll(examples({ cpuScale: 0.1 }));

  test('the same objects; only CPU requests and quotas differ, each times 0.1, plus KubeRay\'s defaults written out scaled and '
    + 'the heads\' dashboard start-up', () => {
    expect(scaled.map(key)).toEqual(guide.map(key));
    const found = guide.flatMap((g, i) => diffs(g, scaled[i]).map((d) => ({ ...d, obj: key(g) })));
    expect(found.length).toBeGreaterThan(10);
    const dashboardTimeout = { name: 'RAY_DASHBOARD_SUBPROCESS_MODULE_WAIT_READY_TIMEOUT', value: String(DASHBOARD_MODULE_TIMEOUT_SECONDS) };
    let heads = 0;
    for (const d of found) {
      if (d.a === undefined && /\/headGroupSpec\/template\/spec\/containers\/0\/env(\/\d+)?$/.test(d.path)) {
        // The head's dashboard gets longer to start its modules, added to whatever env the guide gives it.
        expect([d.obj, d.b]).toEqual([d.obj, /\/env$/.test(d.path) ? [dashboardTimeout] : dashboardTimeout]);
        heads++;
        continue;
      }
      if (d.a === undefined) {
        // Only the submitter Job's and the autoscaler's resources, which the guide leaves to KubeRay.
        expect([d.obj, d.path]).toEqual([d.obj, expect.stringMatching(/\/(submitterPodTemplate|autoscalerOptions\/resources)$/)]);
        continue;
      }
      // The tenants' ResourceQuotas follow their quotas (requests.cpu: nominal plus borrowing limit).
      expect([d.obj, d.path]).toEqual([d.obj, expect.stringMatching(/(\/requests\/cpu|\/nominalQuota|\/borrowingLimit|\/lendingLimit|\/hard\/requests\.cpu)$/)]);
      expect([d.obj, d.path, milli(d.b)]).toEqual([d.obj, d.path, milli(d.a) / 10]);
    }
    // Every Ray object's head: the toy and failing jobs, the tenants' job, both RayClusters and both RayServices.
    expect(heads).toBe(scaled.filter((o) => o.apiVersion === 'ray.io/v1').length);
    expect(heads).toBeGreaterThanOrEqual(7);
    // KubeRay's submitter default 500m/200Mi requests, 1/1Gi limits, and the autoscaler's 500m/512Mi, scaled.
    const job = scaled.find((o) => o.kind === 'RayJob');
    expect(job.spec.submitterPodTemplate.spec.containers[0].resources)
      .toEqual({ requests: { cpu: '50m', memory: '200Mi' }, limits: { cpu: '1', memory: '1Gi' } });
    const rc = scaled.find((o) => o.kind === 'RayCluster');
    expect(rc.spec.autoscalerOptions.resources).toEqual({ requests: { cpu: '50m', memory: '512Mi' }, limits: { cpu: '500m', memory: '512Mi' } });
  });

  test('Ray\'s logical CPUs stay the guide\'s: the CPU limit KubeRay derives --num-cpus from is unchanged', () => {
    const withoutDashboardTimeout = (env: any[]) => {
      const rest = env.filter((e) => e.name !== 'RAY_DASHBOARD_SUBPROCESS_MODULE_WAIT_READY_TIMEOUT');
      return rest.length ? rest : undefined;
    };
    const limits = (objs: any[]) => objs.filter((o) => o.apiVersion === 'ray.io/v1').map((o) => JSON.stringify(o, (k, v) => (['requests',
      'nominalQuota', 'submitterPodTemplate'].includes(k) ? undefined : k === 'autoscalerOptions' ? { ...v, resources: undefined }
        : k === 'env' ? withoutDashboardTimeout(v) : v)));
    expect(limits(scaled)).toEqual(limits(guide));
  });

  test('the plan admits, keeps waiting and starts the same workloads at the same times at 0.1 as the guide', () => {
    const plan = (objs: any[]) => simulatePlan({
      kueueObjects: objs.filter((o) => o.apiVersion?.startsWith('kueue.x-k8s.io')),
      arrivals: objs.filter((o) => o.apiVersion === 'ray.io/v1'),
      trace: false,
    }).workloads.map((w) => `${w.name}: ${w.outcome} at ${w.admittedAt}`);
    const g = plan(guide);
    expect(g.length).toBeGreaterThan(4);
    // Something waits for quota: pending to the end, or (the toy jobs have an expected duration) admitted later.
    expect(g.some((w) => w.endsWith('pending at null') || !/ at (0|null)$/.test(w))).toBe(true);
    expect(plan(scaled)).toEqual(g);
  });

  test('the toy loop length is a parameter, the guide\'s 600 by default', () => {
    expect(toyEntrypoint()).toContain('range(600)');
    const short = synthAll(examples({ toyIterations: 20 })).filter((o) => o.kind === 'RayJob' && o.metadata.generateName === 'rayjob-sample-');
    expect(short.length).toBe(4);
    for (const j of short) expect(j.spec.entrypoint).toContain('range(20)');
    expect(() => toyEntrypoint(0)).toThrow(/toyIterations 0 must be a whole number >= 1/);
  });

  test('a factor outside (0, 1] is refused where it enters, with the fix', () => {
    for (const f of [0, -1, 1.5, NaN]) expect(() => examples({ cpuScale: f })).toThrow(/cpuScale .* must be a number in \(0, 1\]. Fix: e\.g\. 0\.1/);
    expect(NodeScale.of(1)).toBe(NodeScale.GUIDE);
  });
});
