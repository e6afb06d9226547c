// Differential test of the policy against upstream's own code (issue 14), per Kueue × KubeRay pair on
// the test control plane (etcd + kube-apiserver with the pair's CRDs + Kueue; no KubeRay operator):
// - kubernetes: a server-side dry-run create (no webhooks registered) rejects or prunes what our
//   `kubernetes` findings say;
// - kueue-webhook: Kueue's webhook server (mutate, then validate, as the API server orders them) denies
//   what our `kueue-webhook` findings deny, on the object the API server accepted; and for UPDATE (old,
//   as Kueue stored and maybe admitted it → new), what the controller's ratcheted UPDATE decision denies;
// - kuberay: KubeRay's validation functions of the pair's version (scripts/kuberay-validate) refuse what
//   our `kuberay-operator` findings refuse, on the object as Kueue mutated it.
// The objects come from test/agreement/generator.ts: a printed seed, AGREEMENT_OBJECTS per pair.
import {
  bookkeepingOnlyUpdate, evaluateRayObject, Finding, kubeRayCapabilities, kueueCapabilities, kueueValidatesUpdate, kueueWebhookOnUpdate,
  PolicyContext, ratchetUpdate,
} from '../../src/policy';
import { readKueueFile } from '../support/upstream';
import { TestCluster } from '../e2e/support/cluster';
import { isAdmitted } from '../e2e/support/kube';
import { e2ePairs } from '../e2e/support/pairs';
import { AgreementLog, ourVerdict, prunedPaths } from './support/compare';
import { KubeRayOracle } from './support/kuberay-oracle';
import { KueueWebhook } from './support/kueue-webhook';
import { KUEUE_SOURCE, sitesAt } from './sites/enumerate';
import { DEFAULT_LQ_NAMESPACE, KUEUE_SITES } from './sites/kueue-sites';
import { mappingsOf, sitePattern } from './sites/sites';
import { Outcome, pairSites, siteMutants, SiteHits } from './support/site-hits';
import { BASES, generate, Generated, objectsPerPair, Random, runSeed, SITE_SHARE } from './generator';

const SEED = runSeed();
const COUNT = objectsPerPair();
const { pairs, skipped } = e2ePairs();
const log = new AgreementLog(SEED);
/** Objects per pair the Workload oracle creates for real: AGREEMENT_WORKLOADS, default 150. */
const WORKLOAD_SAMPLE = Number(process.env.AGREEMENT_WORKLOADS || 150);
process.stdout.write(`[agreement] seed ${SEED} (AGREEMENT_SEED to repeat), ${COUNT} objects per pair (AGREEMENT_OBJECTS), pairs: `
  + `${pairs.map((p) => p.join('/')).join(', ') || `none (${skipped})`}\n`);

/** Runs fn over items with at most `n` in flight. */
async function pool<T, R>(items: readonly T[], n: number, fn: (t: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  }));
  return out;
}

const describeAll = pairs.length ? describe : describe.skip;
if (!pairs.length) process.stdout.write(`[agreement] skipped: ${skipped}\n`);

describeAll('the policy agrees with Kueue, KubeRay and the API server', () => {
  for (const [kueue, kubeRay] of pairs) {
    describe(`Kueue ${kueue} + KubeRay ${kubeRay}`, () => {
      let cluster: TestCluster;
      let webhook: KueueWebhook;
      let kubeRayOracle: KubeRayOracle;
      const ctx: PolicyContext = { kueue: kueueCapabilities(kueue), kubeRay: kubeRayCapabilities(kubeRay), elasticGate: 'on' };
      // The namespace with a LocalQueue named default (some Kueue sites need it): the policy sees that queue there.
      const defaultLqCtx: PolicyContext = { ...ctx, inventory: {
        localQueues: [{ namespace: DEFAULT_LQ_NAMESPACE, name: 'default', clusterQueue: 'agreement' }],
        clusterQueues: [], cohorts: [], priorityClasses: [], namespaces: [] } };
      const ctxOf = (o: any): PolicyContext => (o?.metadata?.namespace === DEFAULT_LQ_NAMESPACE ? defaultLqCtx : ctx);
      const findings = (o: any): Finding[] => evaluateRayObject(o, ctxOf(o));
      /** This pair's objects: the seed's random ones, with the pair's site mutants mixed in (generated once the webhook's kinds are known). */
      let objects: Generated[] = [];
      let hits: SiteHits;
      const outcome = (r: ReturnType<AgreementLog['record']>): Outcome => (r === 'agree' ? 'agreed'
        : r === 'disagree' ? 'disagreed' : 'allow-listed');
      const namespaced = (o: any) => `/apis/ray.io/v1/namespaces/${o.metadata?.namespace ?? 'agreement'}/${String(o.kind).toLowerCase()}s`;
      /** Per object: the API server's answer, then Kueue's (mutated object and verdict). */
      const accepted = new Map<number, { stored: any; mutated?: any; kueueAllowed?: boolean }>();

      beforeAll(async () => {
        cluster = await TestCluster.start({ kueue, kubeRay, kubeRayOperator: false });
        // The dry-runs must meet the CRD schema only: Kueue's webhooks are asked directly.
        for (const kind of ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations']) {
          await cluster.client.delete(`/apis/admissionregistration.k8s.io/v1/${kind}/kueue-${kind.startsWith('mutating') ? 'mutating' : 'validating'}`
            + '-webhook-configuration');
        }
        await cluster.client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'agreement' } });
        // A namespace with a LocalQueue named default, for the Kueue sites that need one.
        await cluster.client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: DEFAULT_LQ_NAMESPACE } });
        await cluster.client.apply({ apiVersion: kueueCapabilities(kueue).apiVersion, kind: 'LocalQueue',
          metadata: { name: 'default', namespace: DEFAULT_LQ_NAMESPACE }, spec: { clusterQueue: 'agreement' } });
        const manifest = await readKueueFile(kueue, 'config/components/webhook/manifests.yaml');
        const kinds = ['RayJob', 'RayCluster', 'RayService'].filter((k) => manifest.includes(`/validate-ray-io-v1-${k.toLowerCase()}`));
        webhook = new KueueWebhook(cluster.kueueWebhook!.port, cluster.kueueWebhook!.caFile, kinds);
        kubeRayOracle = await KubeRayOracle.start(kubeRay);
        const sites = pairSites(kueue, kubeRay, (kind) => webhook.handles(kind));
        hits = new SiteHits(sites);
        objects = generate(SEED, COUNT, { mutants: siteMutants(sites), share: SITE_SHARE });
      }, 300000);

      afterAll(async () => {
        webhook?.close();
        await kubeRayOracle?.stop();
        await cluster?.stop();
      }, 60000);

      test('kubernetes: server-side dry-run create rejects or prunes what our kubernetes findings say', async () => {
        await pool(objects, 8, async (g: Generated) => {
          const r = await cluster.client.request('POST', `${namespaced(g.object)}?dryRun=All`, g.object);
          let theirs;
          if (r.status >= 300) theirs = { denied: true, message: String(r.body?.message ?? r.body).slice(0, 2000) };
          else {
            const pruned = prunedPaths(g.object, r.body);
            theirs = { denied: pruned.length > 0, message: pruned.length ? `pruned: ${pruned.join(', ')}` : '' };
            accepted.set(g.index, { stored: r.body });
          }
          const { relevant } = ourVerdict(findings(g.object), ['kubernetes']);
          log.record({ oracle: 'kubernetes', kueue, kubeRay, seed: SEED, index: g.index, base: g.base, mutations: g.mutations, object: g.object,
            ours: relevant, theirs });
        });
        process.stdout.write(`${log.report('kubernetes', kueue, kubeRay, 'objects the API server rejected or pruned vs our kubernetes errors')}\n`);
        expect(log.disagreementsOf('kubernetes', kueue, kubeRay)).toEqual([]);
      }, 600000);

      test('kueue-webhook: Kueue mutates then validates; it denies what our kueue-webhook findings deny', async () => {
        const items = objects.filter((g) => accepted.has(g.index));
        await pool(items, 8, async (g) => {
          const a = accepted.get(g.index)!;
          const m = await webhook.mutate(a.stored);
          let theirs;
          let judged = a.stored;
          if (!m.allowed) theirs = { denied: true, message: m.message ?? '' };
          else {
            judged = m.object;
            a.mutated = m.object;
            const v = await webhook.validate(m.object);
            theirs = { denied: !v.allowed, message: v.message ?? '' };
          }
          a.kueueAllowed = !theirs.denied;
          const { relevant } = ourVerdict(findings(judged), ['kueue-webhook']);
          const r = log.record({ oracle: 'kueue-webhook', kueue, kubeRay, seed: SEED, index: g.index, base: g.base, mutations: g.mutations,
            object: judged, ours: relevant, theirs });
          if (theirs.denied) hits.record('Kueue', theirs.message, outcome(r), `kueue-webhook #${g.index} (${g.base})`);
        });
        process.stdout.write(`${log.report('kueue-webhook', kueue, kubeRay, `${items.length} objects the API server accepted, Kueue-mutated`)}\n`);
        expect(log.disagreementsOf('kueue-webhook', kueue, kubeRay)).toEqual([]);
      }, 600000);

      test('kueue-webhook UPDATE: Kueue denies the updates the controller denies (old as Kueue stored it, maybe admitted)', async () => {
        // The old object: the same kind's valid base as Kueue stored it (mutated on create), half of the
        // time as if admitted and running (suspend false). The new object: the mutated one, same name.
        const bases = new Map<string, any>();
        const r = new Random(SEED ^ 0x5eed);
        const items = objects.filter((g) => accepted.has(g.index));
        /** The old object: the valid base of the object's kind as Kueue stored it, half of the time admitted and running. */
        const oldFor = async (g: Generated, newObj: any, running: boolean) => {
          const key = BASES[g.base] ? g.base : `${String(newObj.kind).toLowerCase()}-queued`;
          let base = bases.get(key);
          if (!base) {
            const raw = BASES[key]();
            const stored = await cluster.client.request('POST', `${namespaced(raw)}?dryRun=All`, raw);
            const m = await webhook.mutate(stored.body);
            base = m.object ?? stored.body;
            bases.set(key, base);
          }
          const old = JSON.parse(JSON.stringify(base));
          old.metadata.name = newObj.metadata.name ?? old.metadata.name;
          if (newObj.metadata.generateName && !newObj.metadata.name) newObj.metadata.name = old.metadata.name;
          if (running) {
            if (old.kind === 'RayService') {
              if (old.spec.rayClusterConfig) old.spec.rayClusterConfig.suspend = false;
            } else old.spec.suspend = false;
          }
          // What a user's update carries: the stored suspend state unless the mutation changed it.
          if (!g.mutations.includes('suspend-true') && !g.mutations.includes('suspend-false')) {
            if (old.kind === 'RayService') {
              if (newObj.spec.rayClusterConfig && old.spec.rayClusterConfig) newObj.spec.rayClusterConfig.suspend = old.spec.rayClusterConfig.suspend;
            } else if (old.spec.suspend !== undefined) newObj.spec.suspend = old.spec.suspend;
          }
          return old;
        };
        await pool(items, 8, async (g) => {
          // What a user's update carries: the object as stored, with what Kueue added on create (suspend, scheduling gates).
          // A site mutant that is an UPDATE is sent as its mapping builds it (old as stored before -> the user's change).
          const a = accepted.get(g.index)!;
          const running = r.chance(0.5);
          const newObj = JSON.parse(JSON.stringify(g.old ? g.object : a.mutated ?? a.stored));
          const old = g.old ? JSON.parse(JSON.stringify(g.old)) : await oldFor(g, newObj, running);
          const v = await webhook.validate(newObj, old);
          const theirs = { denied: !v.allowed, message: v.message ?? '' };
          // The controller's UPDATE decision (controller/admission.ts), from the same policy functions.
          const verdict = bookkeepingOnlyUpdate(old, newObj) ? { deny: [] }
            : ratchetUpdate(old, newObj, findings(old), findings(newObj), kueueWebhookOnUpdate(old, newObj, ctxOf(newObj)),
              kueueValidatesUpdate(old, newObj, ctxOf(newObj)));
          const { relevant } = ourVerdict(verdict.deny, ['kueue-webhook']);
          const state = g.old ? 'site-update' : running ? 'old-running' : 'old-suspended';
          const rec = log.record({ oracle: 'kueue-webhook-update', kueue, kubeRay, seed: SEED, index: g.index, base: g.base,
            mutations: [...g.mutations, state], object: newObj, oldObject: old, ours: relevant, theirs });
          if (theirs.denied) hits.record('Kueue', theirs.message, outcome(rec), `kueue-webhook-update #${g.index} (${g.base})`);
        });
        process.stdout.write(`${log.report('kueue-webhook-update', kueue, kubeRay,
          `${items.length} UPDATE reviews: a valid base as Kueue stored it -> the generated object`)}\n`);
        expect(log.disagreementsOf('kueue-webhook-update', kueue, kubeRay)).toEqual([]);
      }, 600000);

      test('kueue sites: each mapped mutant is denied by Kueue\'s webhook with its site\'s message, and by the mapped rule', async () => {
        const sites = sitesAt(KUEUE_SOURCE, kueue).sites;
        expect(sites).toBeDefined();
        // The namespace with a LocalQueue named default (beforeAll) is seen by the policy too.
        const siteCtx = defaultLqCtx;
        const failures: string[] = [];
        let reached = 0;
        for (const site of sites!) {
          const m = mappingsOf(site, KUEUE_SITES)[0];
          if (!m?.mutant || !m.rule || m.unreachable?.(kueue)) continue;
          const { object, old } = m.mutant(kueue);
          const where = `${site.func}: ${site.call.slice(0, 110)}`;
          if (!webhook.handles(object.kind)) continue; // no Kueue webhook for the kind at this version
          let denial: string | undefined;
          let judged = object;
          const pattern = sitePattern(site, m);
          if (old) {
            // A mutant that depends on Kueue's queue cache is retried until the cache has the LocalQueue (a few seconds at most).
            for (let i = 0; i < (m.eventual ? 20 : 1); i++) {
              const v = await webhook.validate(object, old);
              denial = v.allowed ? undefined : v.message;
              if (denial !== undefined && pattern.test(denial)) break;
              if (m.eventual) await new Promise((res) => setTimeout(res, 500));
            }
          } else {
            const mutated = await webhook.mutate(object);
            if (!mutated.allowed) denial = mutated.message;
            else {
              judged = mutated.object;
              const v = await webhook.validate(judged);
              denial = v.allowed ? undefined : v.message;
            }
          }
          if (denial === undefined || !pattern.test(denial)) {
            // A site another check of the same call shadows on this version is not reached: say so, do not count it.
            failures.push(`${where}\n    Kueue ${kueue} did not deny it with the site's message: ${denial ?? 'allowed'}`);
            continue;
          }
          reached++;
          const ours = old ? kueueWebhookOnUpdate(old, object, siteCtx) : evaluateRayObject(judged, siteCtx);
          if (!ours.some((f) => f.severity === 'error' && f.rule === m.rule)) {
            const said = ours.map((f) => `[${f.rule}] ${f.message}`).join('; ');
            failures.push(`${where}\n    rule ${m.rule} does not refuse it; the policy says: ${said}`);
          }
        }
        process.stdout.write(`[sites] Kueue ${kueue}: ${sites!.length} sites, ${reached} reached by a mutant on the real webhook and refused here\n`);
        expect(failures).toEqual([]);
      }, 120000);

      test('kuberay: KubeRay refuses what our kuberay-operator findings refuse, on the object as Kueue let it through', async () => {
        // What reaches KubeRay: accepted by the API server, mutated and allowed by Kueue.
        const items = objects.filter((g) => accepted.get(g.index)?.kueueAllowed);
        const judged = items.map((g) => accepted.get(g.index)!.mutated ?? accepted.get(g.index)!.stored);
        const verdicts = await kubeRayOracle.validate(judged);
        items.forEach((g, i) => {
          const v = verdicts[i];
          const message = [...v.errors, ...(v.decodeError ? [`decode: ${v.decodeError}`] : []), ...(v.check ? [`(${v.check})`] : [])].join('; ');
          const theirs = v.skipped ? { denied: false, message: `not validated: ${v.skipped}` }
            : { denied: v.errors.length > 0 || !!v.decodeError, message };
          const { relevant } = ourVerdict(findings(judged[i]), ['kuberay-operator']);
          const r = log.record({ oracle: 'kuberay', kueue, kubeRay, seed: SEED, index: g.index, base: g.base, mutations: g.mutations,
            object: judged[i], ours: relevant, theirs });
          // A decode error is the API types', not a validation site (the API server refuses such objects first).
          if (v.errors.length && !v.skipped) hits.record('KubeRay', v.errors.join('; '), outcome(r), `kuberay #${g.index} (${g.base})`);
        });
        process.stdout.write(`${log.report('kuberay', kueue, kubeRay,
          `${items.length} objects Kueue let through, against KubeRay ${kubeRay}'s validation functions`)}\n`);
        expect(log.disagreementsOf('kuberay', kueue, kubeRay)).toEqual([]);
      }, 600000);

      test('kueue-workload: what our kueue-workload findings refuse never gets an admitted Workload; the rest is admitted', async () => {
        // A smaller sample, created for real on a ClusterQueue with room for every generated object: the
        // queued objects Kueue let through, every one we refuse for the Workload and others at random.
        const wlApi = `kueue.x-k8s.io/${kueueCapabilities(kueue).apiVersion.split('/')[1]}`;
        const cqField = kueueCapabilities(kueue).apiVersion;
        await cluster.client.apply({ apiVersion: cqField, kind: 'ResourceFlavor', metadata: { name: 'default-flavor' }, spec: {} });
        await cluster.client.apply({
          apiVersion: cqField, kind: 'ClusterQueue', metadata: { name: 'agreement' },
          spec: { namespaceSelector: {},
            resourceGroups: [{ coveredResources: ['cpu', 'memory', 'nvidia.com/gpu'], flavors: [{ name: 'default-flavor', resources: [
              { name: 'cpu', nominalQuota: '10000' }, { name: 'memory', nominalQuota: '100Ti' },
              { name: 'nvidia.com/gpu', nominalQuota: '1000' }] }] }] },
        });
        await cluster.client.apply({ apiVersion: cqField, kind: 'LocalQueue', metadata: { name: 'user-queue', namespace: 'agreement' },
          spec: { clusterQueue: 'agreement' } });
        await cluster.client.apply({ apiVersion: cqField, kind: 'WorkloadPriorityClass', metadata: { name: 'dev-priority' }, value: 100 });
        // Objects Kueue does not turn into a Workload of their own are left out: a RayJob that only selects
        // an existing cluster, and before 0.17 a RayService (queued through the RayCluster KubeRay creates).
        // Likewise an autoscaling RayJob on 0.14.7-0.16 (short-term elastic: Kueue queues the RayCluster KubeRay creates).
        const caps = kueueCapabilities(kueue);
        // And an object with an admission gate: its Workload waits for the gate's controller by design (there is none here).
        const managed = (o: any) => !(o.kind === 'RayJob' && !o.spec?.rayClusterSpec)
          && !o.metadata?.annotations?.['kueue.x-k8s.io/admission-gated-by']
          && !(o.kind === 'RayService' && caps.rayServiceQueueing !== 'native')
          && !(o.kind === 'RayJob' && caps.elasticRayJob === 'short-term' && o.spec?.rayClusterSpec?.enableInTreeAutoscaling === true);
        const queued = objects.filter((g) => {
          const a = accepted.get(g.index);
          return a?.kueueAllowed && a.mutated?.metadata?.labels?.['kueue.x-k8s.io/queue-name'] === 'user-queue' && managed(a.mutated);
        });
        const ours = (g: Generated) => ourVerdict(findings(accepted.get(g.index)!.mutated), ['kueue-workload']).relevant;
        const refused = queued.filter((g) => ours(g).length > 0).slice(0, 80);
        const pick = new Random(SEED ^ 0xa11);
        const others = queued.filter((g) => !refused.includes(g) && pick.chance(0.15)).slice(0, WORKLOAD_SAMPLE - refused.length);
        const sample = [...refused, ...others];
        const created = new Map<number, any>();
        await pool(sample, 4, async (g) => {
          const obj = JSON.parse(JSON.stringify(accepted.get(g.index)!.mutated));
          const r = await cluster.client.request('POST', `/apis/ray.io/v1/namespaces/agreement/${String(obj.kind).toLowerCase()}s`, obj);
          if (r.status < 300) created.set(g.index, r.body);
        });
        const admittedUids = async () => {
          const wls = await cluster.client.list(wlApi, 'Workload', 'agreement');
          const out = new Map<string, any>();
          for (const w of wls) for (const o of w.metadata.ownerReferences ?? []) if (!out.has(o.uid) || isAdmitted(w)) out.set(o.uid, w);
          return out;
        };
        // Settled: the admitted count has not changed for 6 s (at least 10 s, at most 90 s).
        const t0 = Date.now();
        let last = -1;
        let stableSince = Date.now();
        let wls = await admittedUids();
        while (Date.now() - t0 < 90000) {
          await new Promise((res) => setTimeout(res, 1000));
          wls = await admittedUids();
          const n = [...wls.values()].filter(isAdmitted).length;
          if (n !== last) { last = n; stableSince = Date.now(); }
          if (Date.now() - t0 > 10000 && Date.now() - stableSince > 6000) break;
        }
        for (const g of sample) {
          const obj = created.get(g.index);
          if (!obj) continue;
          const wl = wls.get(obj.metadata.uid);
          const conds = (wl?.status?.conditions
            ?? []).map((c: any) => `${c.type}=${c.status}${c.reason ? ` (${c.reason}: ${String(c.message ?? '').slice(0, 160)})` : ''}`).join(', ');
          const counts = (wl?.spec?.podSets ?? []).map((ps: any) => `${ps.name}=${ps.count}`).join(', ');
          const theirs = wl && isAdmitted(wl) ? { denied: false, message: `admitted; podSets: ${counts}` }
            : { denied: true, message: wl ? `Workload not admitted: ${conds}` : 'no Workload was created' };
          log.record({ oracle: 'kueue-workload', kueue, kubeRay, seed: SEED, index: g.index, base: g.base, mutations: g.mutations, object: obj,
            ours: ours(g), theirs });
        }
        process.stdout.write(`${log.report('kueue-workload', kueue, kubeRay,
          `${created.size} queued objects created on a ClusterQueue with room for all (${refused.length} we refuse), `
          + 'Workloads after Kueue settled')}\n`);
        expect(log.disagreementsOf('kueue-workload', kueue, kubeRay)).toEqual([]);
      }, 600000);

      test('sites: every refusal of the run is attributed to a mapped site, and every reachable site is hit', () => {
        process.stdout.write(`${hits.report(`Kueue ${kueue} / KubeRay ${kubeRay}`, objects)}\n`);
        expect(hits.unmatched()).toEqual([]);
        // Each site has its mutant once the run holds a round of them; a shorter run (AGREEMENT_OBJECTS) cannot, outside CI it says so.
        const mixed = objects.filter((g) => g.base.startsWith('site ')).length;
        const mutants = siteMutants(hits.entries).length;
        if (mixed < mutants && !process.env.CI) {
          process.stdout.write(`[sites] reach not checked: ${mixed} site mutants mixed in, fewer than the ${mutants} sites; `
            + 'raise AGREEMENT_OBJECTS\n');
          return;
        }
        expect(hits.missed()).toEqual([]);
      });
    });
  }
});
