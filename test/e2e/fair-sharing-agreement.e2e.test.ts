// The plan with fair sharing and admission fair sharing on against a real Kueue started with both (issue 44), per
// buildable Kueue version: etcd + kube-apiserver + Kueue with the KubeRay CRDs and no operator, as the plan-agreement
// suite runs. The Configuration is the one each version reads (v1beta1 `fairSharing.enable` on 0.14, the v1beta2
// section's presence from 0.15; the AdmissionFairSharing gate turned on, which 0.14 has off), and the plan reads it as
// the CLI reads the files' install (kueueConfigOf). Admission fair sharing applies only to the ClusterQueues that ask for
// it, so its scenarios share the control plane with the fair-sharing ones. The fixed timeline scenarios run side by side
// (support/timeline-agreement.ts): each workload's arrivals, admissions, preemptions and finishes, what it waited for
// and its pending reason are compared with the plan.
import { kueueConfigOf, simulatePlan } from '../../src/policy/plan';
import { CONFIG_V1BETA1, CONFIG_V1BETA2, compareVersions, kueueCapabilities } from '../../src/policy/versions';
import {
  admissionFairSharingTimelineScenarios, AGREEMENT_AFS, fairSharingLoopScenario, fairSharingTimelineScenarios, randomFairSharingTimelineScenario,
} from '../policy/plan/fair-sharing-scenarios';
import { isolate } from '../policy/plan/scenarios';
import { applyQueues } from './support/agreement';
import { isAdmitted, waitFor } from './support/kube';
import { TestCluster } from './support/cluster';
import { agreementPairs, e2ePairs } from './support/pairs';
import { randomTimelineScenarios } from '../policy/plan/timeline-scenarios';
import { runTimelineBatch } from './support/timeline-agreement';

// Random timelines planned with fair sharing on, from the plan-agreement suite's seed (CI replays a fixed one).
const RANDOM = Number(process.env.FAIR_SHARING_SCENARIOS ?? 8);
const SEED = Number(process.env.PLAN_AGREEMENT_SEED ?? (Date.now() % 1_000_000));

const { pairs, skipped } = e2ePairs();
if (skipped) process.stdout.write(`[fair-sharing-agreement] skipped: ${skipped}\n`);

const STRATEGIES = ['LessThanOrEqualToFinalShare', 'LessThanInitialShare'];
/** Turned on where it is off by default (0.14), and given to the plan as the manager's args. */
const GATES = { AdmissionFairSharing: true };

/** The manager Configuration with fair sharing and admission fair sharing on, in the apiVersion the version reads. */
function fairSharingConfiguration(kueue: string): Record<string, any> {
  const v2 = kueueCapabilities(kueue).configApiVersions.includes(CONFIG_V1BETA2);
  const frameworks = ['ray.io/rayjob', 'ray.io/raycluster', ...(compareVersions(kueue, 'v0.17.0') >= 0 ? ['ray.io/rayservice'] : [])];
  return {
    apiVersion: v2 ? CONFIG_V1BETA2 : CONFIG_V1BETA1, kind: 'Configuration',
    fairSharing: v2 ? { preemptionStrategies: STRATEGIES } : { enable: true, preemptionStrategies: STRATEGIES },
    admissionFairSharing: AGREEMENT_AFS,
    integrations: { frameworks },
  };
}

const list = agreementPairs(pairs);
const describeVersions = list.length ? describe.each(list) : describe.skip.each([['-', '-']]);

describeVersions('the plan with fair sharing agrees with Kueue %s (KubeRay %s CRDs, no operator)', (kueue, kubeRay) => {
  let cluster: TestCluster;
  const configuration = fairSharingConfiguration(kueue);
  const kueueConfig = kueueConfigOf({ config: configuration, args: ['--feature-gates=AdmissionFairSharing=true'],
    where: 'the test control plane' }, kueueCapabilities(kueue));
  beforeAll(async () => {
    cluster = await TestCluster.start({ kueue, kubeRay, kubeRayOperator: false, kueueConfiguration: configuration, kueueFeatureGates: GATES });
  }, 300000);
  afterAll(async () => {
    await cluster?.stop();
  });

  test('the scenarios are ones fair sharing and admission fair sharing decide: planned without them, they go otherwise', () => {
    expect(kueueConfig.fairSharing?.preemptionStrategies).toEqual(STRATEGIES);
    expect(kueueConfig.admissionFairSharing?.usageSamplingInterval).toBe(120 * 3600);
    const [lowerShare, , hierarchical] = fairSharingTimelineScenarios(kueue);
    for (const s of [lowerShare, hierarchical, ...admissionFairSharingTimelineScenarios(kueue)]) {
      const events = (config?: typeof kueueConfig) => simulatePlan({ kueueObjects: s.objects, arrivals: s.arrivals, kueueVersion: kueue,
        kueueConfig: config, trace: false }).workloads.map((w) => `${w.name} ${w.events.map((e) => `${e.event}@${e.at}`).join(' ')}`);
      expect(events(kueueConfig)).not.toEqual(events());
    }
  });

  test(`fixed fair-sharing and admission fair sharing timelines, and ${RANDOM} random ones (seed ${SEED}): each workload's events, waits and `
    + 'pending reason', async () => {
    const t0 = Date.now();
    const random = randomTimelineScenarios(kueue, SEED, RANDOM, kueueConfig, randomFairSharingTimelineScenario);
    const scenarios = [...fairSharingTimelineScenarios(kueue), ...admissionFairSharingTimelineScenarios(kueue), ...random.scenarios];
    const results = await runTimelineBatch(cluster, kueue, scenarios, 0, kueueConfig);
    const failed = results.filter((r) => r.diffs.length);
    for (const f of failed) {
      process.stdout.write(`[fair-sharing-agreement] DISAGREE ${kueue} ${f.scenario.name}:\n${f.diffs.map((d) => `    ${d}`).join('\n')}\n`);
    }
    process.stdout.write(`[fair-sharing-agreement] Kueue ${kueue}: ${results.length - failed.length}/${results.length} agree (${RANDOM} random `
      + `from seed ${SEED}, ${random.skipped} skipped as timing-ambiguous) in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
    expect(failed.map((f) => `${f.scenario.name}: ${f.diffs.join('; ')}`)).toEqual([]);
  }, 600000);

  // Last: this Kueue keeps preempting and readmitting until the objects are gone, which the timelines' settle waits would read as busy.
  test('kueue#14543: the preemption loop the plan names is Kueue\'s too (j2 preempts j1, which is admitted again ahead of it, again and again)',
    async () => {
      const s = fairSharingLoopScenario(kueue);
      const planned = simulatePlan({ kueueObjects: s.objects, arrivals: s.arrivals, kueueVersion: kueue, kueueConfig, trace: false });
      expect(planned.ambiguities.join('\n')).toMatch(/fair-sharing preemption loop: RayCluster plan\/j2 preempts RayCluster plan\/j1 \(3 times\)/);
      const iso = isolate(s, 'loop');
      const client = cluster.client;
      await applyQueues(client, [iso]);
      const wlApi = `kueue.x-k8s.io/${kueueCapabilities(kueue).apiVersion.split('/')[1]}`;
      const workloadOf = async (name: string) => (await client.list(wlApi, 'Workload', iso.arrivals[0].metadata.namespace))
        .find((w: any) => w.metadata.ownerReferences?.[0]?.name === name);
      for (const obj of iso.arrivals.slice(0, 2)) {
        await client.create(obj);
        await waitFor(`${obj.metadata.name} admitted`, async () => isAdmitted(await workloadOf(obj.metadata.name)), 30000, 200);
      }
      await client.create(iso.arrivals[2]);
      // Kueue counts each eviction of j1 in its scheduling stats; a loop keeps counting.
      const evictions = async () => ((await workloadOf('j1'))?.status?.schedulingStats?.evictions ?? [])
        .filter((e: any) => e.reason === 'Preempted').reduce((n: number, e: any) => n + e.count, 0);
      await waitFor('j1 preempted three times', async () => (await evictions()) >= 3, 60000, 250);
      for (const obj of iso.arrivals) await client.delete(`/apis/ray.io/v1/namespaces/${obj.metadata.namespace}/rayclusters/${obj.metadata.name}`);
    }, 120000);
});
