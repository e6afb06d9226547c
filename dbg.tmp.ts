import { TestCluster } from './test/e2e/support/cluster';
import { examples, synthAll } from './test/support/synth';
(async () => {
  const c = await TestCluster.start({ kueue: 'v0.19.2', kubeRay: 'v1.6.2' });
  try {
    const objs = synthAll(examples({ kueue: 'v0.19.2', kubeRay: 'v1.6.2', scenarios: ['queues', 'gang-scheduling'] }));
    for (const o of objs.filter((x) => x.metadata.name)) await c.client.apply(o);
    const jobs = objs.filter((x) => x.metadata.generateName);
    for (const j of jobs) await c.client.create(j);
    await new Promise((r) => setTimeout(r, 8000));
    const wls = await c.client.list('kueue.x-k8s.io/v1beta2', 'Workload', 'default');
    for (const w of wls) console.log(w.metadata.name, JSON.stringify(w.status?.conditions?.map((x: any) => [x.type, x.status, x.reason, x.message])), JSON.stringify(w.spec.podSets.map((p: any) => [p.name, p.count])));
    const rjs = await c.client.list('ray.io/v1', 'RayJob', 'default');
    for (const r of rjs) console.log(r.metadata.name, r.spec.suspend, r.status?.jobDeploymentStatus);
  } finally {
    console.log(c.logTails(15));
    await c.stop();
  }
})().catch((e) => { console.error('FAILED', e.message); process.exit(1); });
