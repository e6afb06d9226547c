// `plan --output html` in a real browser: Debian's chromium, headless, renders the page of the
// examples app's plan (the guide's gang and priority scenarios plus the elastic and tenant queues), and
// the DOM it produced is checked: one chart per ClusterQueue/cohort and resource, each ending at the
// usage the plan reports, the prod job preempting the dev job, every workload with its outcome; and, on a
// small timed plan, the timeline's bars, marks and tooltips. The page loads nothing from the network.
// Outside CI a missing chromium skips with the reason printed.
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { planCommand } from '../../src/cli/plan';
import { parseQuantity } from '../../src/policy';
import { pendingReason, planToHtml, planToText, planUsageSeries } from '../../src/cli/plan-output';
import { ganttOf } from '../../src/cli/plan-output/gantt';
import { PlanResult, simulatePlan } from '../../src/policy/plan';
import { stringify } from 'yaml';
import { examples, tmpdir, tmpFiles } from '../support/synth';
import { fixedTasScenarios } from '../policy/plan/tas-scenarios';

function findChromium(): string | undefined {
  for (const c of [process.env.CHROMIUM, 'chromium', 'chromium-browser', 'google-chrome']) {
    if (!c) continue;
    const r = spawnSync(c, ['--version'], { encoding: 'utf8' });
    if (r.status === 0) return c;
  }
  return undefined;
}

const chromium = findChromium();
if (!chromium && process.env.CI) throw new Error('CI needs chromium for the plan page test (.ci/run installs it with apt-get)');
if (!chromium) process.stdout.write('[plan-html] skipped: no chromium on this machine (apt-get install chromium)\n');
const describeBrowser = chromium ? describe : describe.skip;

/** The DOM chromium leaves after the page's script ran (`profile`: a folder of `dir` for chromium's profile). */
function dumpDom(dir: string, file: string, profile: string): string {
  return execFileSync(chromium!, [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', `--user-data-dir=${path.join(dir, profile)}`,
    '--virtual-time-budget=5000', '--dump-dom', `file://${file}`,
  ], { encoding: 'utf8', timeout: 60000, stdio: ['ignore', 'pipe', 'pipe'] });
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const unescape = (s: string) => s.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

describeBrowser('plan --output html in headless chromium', () => {
  let dir: string;
  let plan: PlanResult;
  let dom: string;
  let htmlFile: string;

  beforeAll(() => {
    dir = tmpdir();
    const app = examples({ kueue: 'v0.19.2', kubeRay: 'v1.6.2' });
    app.synth();
    // A 1-minute horizon: the toy jobs run 10 minutes each, so the jobs behind the first ones are still pending on quota.
    plan = JSON.parse(planCommand([app.outdir, '--output', 'json', '--trace', '--horizon', '1m']));
    htmlFile = path.join(dir, 'plan.html');
    fs.writeFileSync(htmlFile, planCommand([app.outdir, '--output', 'html', '--horizon', '1m']));
    dom = dumpDom(dir, htmlFile, 'profile');
  }, 180000);

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('the page is self-contained: no external script, style, image or link', () => {
    const html = fs.readFileSync(htmlFile, 'utf8');
    expect(html).not.toMatch(/\s(src|href)\s*=/i);
    expect(html).not.toMatch(/@import|url\(/i);
    expect(html).toMatch(/Content-Security-Policy" content="default-src 'none'/);
  });

  test('the script ran and drew one chart per ClusterQueue and cohort and resource, each ending at the reported usage', () => {
    expect(dom).toMatch(/<body data-rendered="true"/);
    const series = planUsageSeries(plan);
    const figures = [...dom.matchAll(/<figure class="chart" data-kind="([^"]+)" data-name="([^"]+)" data-resource="([^"]+)">/g)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
    expect(figures).toEqual(series.map((s) => `${s.kind} ${s.name} ${s.resource}`));
    expect(figures.filter((f) => f.startsWith('Cohort ')).length).toBeGreaterThan(0);
    const paths = [...dom.matchAll(/<path d="M[^"]*" class="usage" data-points="(\d+)" data-last="([^"]+)"/g)];
    expect(paths.length).toBe(series.length);
    paths.forEach((m, i) => {
      expect(Number(m[1])).toBe(plan.trace.length + 1);
      expect(Number(m[2])).toBeCloseTo(series[i].points[series[i].points.length - 1], 6);
    });
  });

  test('the usage replayed from the trace ends at each ClusterQueue\'s reported usage', () => {
    for (const s of planUsageSeries(plan).filter((x) => x.kind === 'ClusterQueue')) {
      const cq = plan.clusterQueues.find((c) => c.name === s.name)!;
      const reported = cq.quotas.filter((q) => q.resource === s.resource).reduce((a, q) => a + Number(parseQuantity(q.usage)) / 1000, 0);
      const last = s.points[s.points.length - 1];
      expect({ cq: s.name, resource: s.resource, last }).toEqual({ cq: s.name, resource: s.resource, last: expect.closeTo(reported, 6) });
    }
  });

  test('who preempted whom: the prod job over the dev job of the priority scenario', () => {
    const preemptor = plan.workloads.find((w) => w.outcome === 'admitted-by-preempting');
    expect(preemptor?.priorityClass).toBe('prod-priority');
    const victim = preemptor!.preempted![0].workload;
    expect(plan.workloads.find((w) => w.workload === victim)?.priorityClass).toBe('dev-priority');
    expect(dom).toMatch(new RegExp(`<li data-preemptor="${esc(preemptor!.workload)}" data-victim="${esc(victim)}">`));
  });

  test('every workload has a row with its outcome, the pending ones with the text\'s summary (Kueue\'s message in the tooltip)', () => {
    const rows = [...dom.matchAll(/<tr class="([a-z-]+)" data-workload="([^"]+)">/g)].map((m) => [m[2], m[1]]);
    expect(rows).toEqual(plan.workloads.map((w) => [w.workload, w.outcome]));
    const text = planToText(plan);
    const pending = plan.workloads.filter((w) => w.outcome === 'pending' && w.pending!.shortfalls.length);
    expect(pending.length).toBeGreaterThan(0);
    for (const w of pending) {
      const cell = new RegExp(`data-workload="${esc(w.workload)}">(?:<td>[^<]*</td>){5}<td class="why" title="([^"]*)">([^<]*)</td>`).exec(dom);
      const summary = pendingReason(w.pending!);
      expect(summary).toMatch(/^quota: needs cpu 2\.5, 0\.5 free of 3 in flavor default-flavor/);
      expect(unescape(cell![2])).toBe(summary);
      expect(text).toContain(summary.replace(/^quota: /, 'PENDING (quota): '));
      expect(unescape(cell![1])).toBe(`Kueue: ${w.pending!.message}`);
      expect(cell![2]).not.toMatch(/insufficient unused quota/);
    }
  });

  /** Each chart's SVG, by "kind name resource". */
  function charts(): Map<string, string> {
    return new Map([...dom.matchAll(/<figure class="chart" data-kind="([^"]+)" data-name="([^"]+)" data-resource="([^"]+)">([\s\S]*?)<\/figure>/g)]
      .map((m) => [`${m[1]} ${m[2]} ${m[3]}`, m[4]]));
  }

  test('each chart has a y-axis with values from 0 up to its top, in the resource\'s units', () => {
    for (const [name, svg] of charts()) {
      const ticks = [...svg.matchAll(/<text [^>]*class="tick" data-value="([^"]+)">([^<]+)<\/text>/g)].map((m) => [Number(m[1]), m[2]] as const);
      expect({ name, count: ticks.length >= 3 }).toEqual({ name, count: true });
      expect(ticks[0]).toEqual([0, '0']);
      for (const [v, label] of ticks) expect(Number(parseQuantity(label)) / 1000).toBeCloseTo(v, 3);
    }
    const memory = [...charts().get('ClusterQueue fixed-cq memory')!.matchAll(/class="tick" data-value="[^"]+">([^<]+)</g)].map((m) => m[1]);
    expect(memory).toEqual(['0', '2Gi', '4Gi', '6Gi', '8Gi']);
  });

  test('borrowing and lending limits are drawn where the queue sets them', () => {
    const lines = (key: string) => [...charts().get(key)!.matchAll(/<line [^>]*class="([a-z-]+)" data-value="([^"]+)"><title>([^<]+)<\/title>/g)]
      .map((m) => [m[1], Number(m[2]), m[3]]);
    const quota = (cq: string) => plan.clusterQueues.find((c) => c.name === cq)!.quotas.find((q) => q.resource === 'cpu')!;
    const teamA = quota('team-a'), teamB = quota('team-b');
    expect(teamA.borrowingLimit).toBeDefined();
    expect(teamB.lendingLimit).toBeDefined();
    const n = (q: string) => Number(parseQuantity(q)) / 1000;
    expect(lines('ClusterQueue team-a cpu')).toEqual([['nominal', n(teamA.nominal), `nominal ${teamA.nominal}`],
      ['borrowing-limit', n(teamA.nominal) + n(teamA.borrowingLimit!), `borrowingLimit: up to ${n(teamA.nominal) + n(teamA.borrowingLimit!)}`]]);
    expect(lines('ClusterQueue team-b cpu')).toContainEqual(['lending-limit', n(teamB.nominal) - n(teamB.lendingLimit!),
      `lendingLimit: keeps ${n(teamB.nominal) - n(teamB.lendingLimit!)}`]);
    expect(lines('ClusterQueue fixed-cq cpu').map((l) => l[0])).toEqual(['nominal']);
  });

  test('a marker for each arrival into the queue, and a tooltip on each step', () => {
    for (const c of plan.clusterQueues) {
      const svg = charts().get(`ClusterQueue ${c.name} cpu`)!;
      const marks = [...svg.matchAll(/<path [^>]*class="arrival" data-point="(\d+)"><title>([^<]+)<\/title>/g)].map((m) => unescape(m[2]));
      expect(marks).toEqual(plan.workloads.filter((w) => w.clusterQueue === c.name).map((w) => `arrival ${w.arrival}: ${w.workload} (${w.outcome})`));
      const steps = [...svg.matchAll(/<rect [^>]*class="step" data-from="(\d+)" data-to="(\d+)"><title>([^<]+)<\/title>/g)];
      expect(steps.length).toBe(plan.trace.length + 1);
      expect(steps[0][3]).toMatch(/^before the first cycle: cpu used 0 of /);
    }
    // The cycle that admitted the prod job by preemption says so, in its queue's chart.
    const prod = plan.workloads.find((w) => w.outcome === 'admitted-by-preempting')!;
    expect(charts().get(`ClusterQueue ${prod.clusterQueue} cpu`))
      .toMatch(new RegExp(`<title>cycle \\d+ \\(after arrival ${prod.arrival}\\): cpu used [^<]*admitted ${esc(prod.workload)}`));
  });

  test('sections with nothing in them say "none"', () => {
    expect(plan.ambiguities).toEqual([]);
    expect(dom).toMatch(/<ul id="ambiguities"><li class="none">none<\/li><\/ul>/);
    const empty = path.join(dir, 'empty.html');
    fs.writeFileSync(empty, planToHtml(simulatePlan({ kueueObjects: [], arrivals: [] })));
    const emptyDom = dumpDom(dir, empty, 'profile-empty');
    expect(emptyDom).toMatch(/<body data-rendered="true"/);
    expect(emptyDom).toMatch(/<div id="charts"><p class="none">none<\/p><\/div>/);
    expect(emptyDom).toMatch(/<ul id="preemptions"><li class="none">none<\/li><\/ul>/);
    expect(emptyDom).toMatch(/<tbody id="workloads"><tr><td colspan="6" class="none">none<\/td><\/tr><\/tbody>/);
    expect(emptyDom).toMatch(/<ul id="notes"><li class="none">none<\/li><\/ul>/);
  }, 120000);

  test('a screenshot of the page is not blank', () => {
    const png = path.join(dir, 'plan.png');
    execFileSync(chromium!, [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', `--user-data-dir=${path.join(dir, 'profile2')}`,
      '--virtual-time-budget=5000', '--window-size=1280,1600', `--screenshot=${png}`, `file://${htmlFile}`,
    ], { timeout: 60000, stdio: 'ignore' });
    const bytes = fs.readFileSync(png);
    expect(bytes.subarray(1, 4).toString('ascii')).toBe('PNG');
    // A blank 1280x1600 page compresses to a few KB; charts, text and tables do not.
    expect(bytes.length).toBeGreaterThan(30000);
  }, 120000);
});

// The timeline section on a small fixed plan: in ClusterQueue cq two clusters of 10 minutes that each take the whole
// quota (the second waits for the first), in prio a low-priority one preempted at 2m by a high-priority one of 5
// minutes, in other one without a duration (running, open, at the plan's end).
describeBrowser('plan --output html: the timeline of each ClusterQueue', () => {
  const API = 'kueue.x-k8s.io/v1beta2';
  const cq = (name: string, preemption = {}) => ({ apiVersion: API, kind: 'ClusterQueue', metadata: { name }, spec: { namespaceSelector: {},
    preemption, resourceGroups: [{ coveredResources: ['cpu'], flavors: [{ name: 'f', resources: [{ name: 'cpu', nominalQuota: '4' }] }] }] } });
  const lq = (name: string) => ({ apiVersion: API, kind: 'LocalQueue', metadata: { name, namespace: 'default' }, spec: { clusterQueue: name } });
  const priority = (name: string, value: number) => ({ apiVersion: API, kind: 'WorkloadPriorityClass', metadata: { name }, value });
  const cluster = (name: string, queue: string, annotations: Record<string, string>, prio?: string) => ({ apiVersion: 'ray.io/v1',
    kind: 'RayCluster', metadata: { name, namespace: 'default', annotations,
      labels: { 'kueue.x-k8s.io/queue-name': queue, ...(prio ? { 'kueue.x-k8s.io/priority-class': prio } : {}) } },
    spec: { suspend: true, headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0',
      resources: { requests: { cpu: '4' }, limits: { cpu: '4' } } }] } } } } });
  const d = (v: string) => ({ 'cdk8s-kueue-ray.io/expected-duration': v });
  const kueue = [{ apiVersion: API, kind: 'ResourceFlavor', metadata: { name: 'f' }, spec: {} }, cq('cq'), lq('cq'),
    cq('prio', { withinClusterQueue: 'LowerPriority' }), lq('prio'), cq('other'), lq('other'), priority('low', 10), priority('high', 100)];
  const timed = [cluster('first', 'cq', d('10m')), cluster('second', 'cq', d('10m')), cluster('low', 'prio', d('10m'), 'low'),
    cluster('high', 'prio', { ...d('5m'), 'cdk8s-kueue-ray.io/plan-arrival': '2m' }, 'high'), cluster('open', 'other', {})];
  const untimed = [cluster('first', 'cq', {}), cluster('second', 'cq', {})];
  let dir: string;
  let dom: string;
  let plan: PlanResult;

  beforeAll(() => {
    dir = tmpFiles({ 'timed.yaml': [...kueue, ...timed].map((o) => stringify(o)).join('---\n'),
      'untimed.yaml': [...kueue, ...untimed].map((o) => stringify(o)).join('---\n') });
    plan = JSON.parse(planCommand([path.join(dir, 'timed.yaml'), '-o', 'json']));
    fs.writeFileSync(path.join(dir, 'timed.html'), planCommand([path.join(dir, 'timed.yaml'), '-o', 'html']));
    dom = dumpDom(dir, path.join(dir, 'timed.html'), 'profile');
  }, 120000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A workload's bars: [class, x, x + width, data-from, data-to]. */
  function bars(name: string): Array<[string, number, number, number, number]> {
    const row = new RegExp(`<g class="row [a-z-]+" data-workload="RayCluster default/${name}">([\\s\\S]*?)</g>`).exec(dom)![1];
    return [...row.matchAll(/<rect x="([^"]+)" y="[^"]+" width="([^"]+)" height="[^"]+" class="([a-z ]+)" data-from="(\d+)" data-to="(\d+)">/g)]
      .map((m) => [m[3], Number(m[1]), Number(m[1]) + Number(m[2]), Number(m[4]), Number(m[5])]);
  }

  test('one figure per ClusterQueue, a row per workload in arrival order', () => {
    expect(dom).toMatch(/<body data-rendered="true"/);
    const figures = [...dom.matchAll(/<figure class="gantt" data-cluster-queue="([^"]+)">/g)].map((m) => m[1]);
    expect(figures).toEqual(['cq', 'other', 'prio']);
    const rows = [...dom.matchAll(/<g class="row ([a-z-]+)" data-workload="([^"]+)">/g)].map((m) => `${m[2]} ${m[1]}`);
    expect(rows).toEqual(['RayCluster default/first admitted', 'RayCluster default/second admitted', 'RayCluster default/open admitted',
      'RayCluster default/low admitted', 'RayCluster default/high admitted-by-preempting']);
  });

  test('the second job waits from its arrival until the first ends, then runs 10 minutes', () => {
    const [first] = bars('first');
    expect(first.slice(0, 1).concat(first.slice(3))).toEqual(['run', 0, 600]);
    const [wait, run] = bars('second');
    expect([wait[0], wait[3], wait[4], run[0], run[3], run[4]]).toEqual(['wait', 0, 600, 'run', 600, 1200]);
    expect(wait[1]).toBeCloseTo(first[1], 6);
    // Bar 2's wait ends where bar 1 ends, and its run starts there.
    expect(wait[2]).toBeCloseTo(first[2], 6);
    expect(run[1]).toBeCloseTo(first[2], 6);
    expect(run[2] - run[1]).toBeCloseTo(first[2] - first[1], 6);
    expect(dom).toMatch(/<title>RayCluster default\/second in cq: admitted\narrives at 0s; admitted at 10m; finishes at 20m\n/);
    expect(dom).toMatch(/when: starts in ~10m \(after default\/first finishes\), finishes at ~20m\nwaited for RayCluster default\/first<\/title>/);
  });

  test('a preempted workload runs, is marked where it was preempted, waits, and runs again; no finish is drawn open', () => {
    const low = plan.workloads.find((w) => w.name === 'low')!;
    expect(low.preemptedBy).toEqual(['RayCluster default/high']);
    expect(bars('low').map((b) => [b[0], b[3], b[4]])).toEqual([['run', 0, 120], ['wait', 120, 420], ['run', 420, 1020]]);
    expect(bars('high').map((b) => [b[0], b[3], b[4]])).toEqual([['run', 120, 420]]);
    const mark = /<g class="row admitted" data-workload="RayCluster default\/low">[\s\S]*?<path d="M([\d.]+),[^"]*" class="preemption" data-at="120">/
      .exec(dom)!;
    expect(Number(mark[1])).toBeCloseTo(bars('low')[0][2], 6);
    expect(dom).toMatch(/<title>RayCluster default\/low preempted at 2m \(by RayCluster default\/high\)<\/title>/);
  });

  test('a workload with no known finish runs open past the plan\'s end', () => {
    expect(plan.workloads.find((w) => w.name === 'open')!.finishedAt).toBeNull();
    const [run] = bars('open');
    // The plan settles when the last known finish is past (the second job's, at 20m); a line marks it in each figure.
    expect(plan.timeline).toMatchObject({ ended: 'settled', at: 1200 });
    const ends = [...dom.matchAll(/<line x1="([^"]+)" [^>]*class="plan-end" data-at="1200"><title>settled at 20m: nothing left to happen</g)];
    expect(ends.length).toBe(3);
    expect(Number(ends[0][1])).toBeCloseTo(bars('second')[1][2], 6);
    expect([run[0], run[3], run[4]]).toEqual(['run open', 0, 1200]);
    expect(run[2]).toBeGreaterThan(Number(ends[0][1]) + 10);
    expect(dom).toMatch(/<title>RayCluster default\/open in other: admitted\narrives at 0s; admitted at 0s; finish unknown\n/);
  });

  test('cut at the horizon, a workload still waiting has an open wait to it', () => {
    const cut: PlanResult = JSON.parse(planCommand([path.join(dir, 'timed.yaml'), '-o', 'json', '--horizon', '5m']));
    const second = ganttOf(cut)!.queues.find((q) => q.clusterQueue === 'cq')!.rows[1];
    expect(ganttOf(cut)).toMatchObject({ end: 300, endTitle: 'cut at the horizon, 5m, with work left' });
    expect(second.segments).toEqual([{ kind: 'wait', from: 0, to: 300, open: true }]);
    expect(second.title).toMatch(/arrives at 0s; not admitted within the plan\nwhen: never within 5m\n/);
  });

  test('a plan without durations or arrival times has no timeline section', () => {
    const html = planCommand([path.join(dir, 'untimed.yaml'), '-o', 'html']);
    expect(html).toMatch(/<div id="charts"><\/div>/);
    expect(html).not.toMatch(/id="timeline"|When each workload runs|\.gantt|data\.timeline/);
    expect(JSON.parse(/<script type="application\/json" id="plan-data">(.*)<\/script>/.exec(html)![1])).not.toHaveProperty('timeline');
  });
});

describeBrowser('plan --output html: where topology-aware scheduling puts the pods', () => {
  const s = fixedTasScenarios('v0.19.2').find((x) => x.name === 'tas-required-rack-best-fit')!;
  let dir: string;
  let dom: string;
  let plan: PlanResult;

  beforeAll(() => {
    dir = tmpFiles({ 'tas.yaml': [...s.objects, ...s.nodes, ...s.arrivals].map((o) => stringify(o)).join('---\n') });
    const args = [path.join(dir, 'tas.yaml'), '--kueue-version', 'v0.19.2'];
    plan = JSON.parse(planCommand([...args, '-o', 'json']));
    fs.writeFileSync(path.join(dir, 'tas.html'), planCommand([...args, '-o', 'html']));
    dom = dumpDom(dir, path.join(dir, 'tas.html'), 'profile');
  }, 120000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a placement column lists each placed PodSet\'s domains and pods, as the text writes them', () => {
    expect(dom).toContain('<th>placement (TAS)</th>');
    const placed = plan.workloads.filter((w) => w.admission?.some((a) => a.topology));
    expect(placed.length).toBeGreaterThan(0);
    for (const w of plan.workloads) {
      const row = new RegExp(`<tr class="[a-z-]+" data-workload="${esc(w.workload)}">([\\s\\S]*?)</tr>`).exec(dom)![1];
      const cells = [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1]);
      expect(cells).toHaveLength(7);
      const lines = [...cells[6].matchAll(/<div>([^<]*)<\/div>/g)].map((m) => unescape(m[1]));
      expect(lines).toEqual((w.admission ?? []).filter((a) => a.topology).map((a) => `${a.podSet} on ${a.topology!.flavor}: `
        + a.topology!.domains.map((d) => `${d.values.join('/')} ×${d.count}`).join(', ')));
    }
    // The scenario's admitted workload a: its workers on host n3, as plan-tas.test.ts pins them.
    expect(dom).toMatch(/<div>workers on tas: n3 ×3<\/div>/);
  });

  test('a plan without topology-aware scheduling has no placement column', () => {
    const html = planCommand([writePlain(dir), '-o', 'html']);
    expect(html).not.toContain('placement (TAS)');
    expect(JSON.parse(/<script type="application\/json" id="plan-data">(.*)<\/script>/.exec(html)![1])).not.toHaveProperty('placed');
  });
});

/** A plan input without TAS: one plain flavor and queue, one RayCluster. */
function writePlain(dir: string): string {
  const API = 'kueue.x-k8s.io/v1beta2';
  const file = path.join(dir, 'plain.yaml');
  fs.writeFileSync(file, [
    { apiVersion: API, kind: 'ResourceFlavor', metadata: { name: 'f' }, spec: {} },
    { apiVersion: API, kind: 'ClusterQueue', metadata: { name: 'cq' }, spec: { namespaceSelector: {},
      resourceGroups: [{ coveredResources: ['cpu'], flavors: [{ name: 'f', resources: [{ name: 'cpu', nominalQuota: '4' }] }] }] } },
    { apiVersion: API, kind: 'LocalQueue', metadata: { name: 'cq', namespace: 'default' }, spec: { clusterQueue: 'cq' } },
    { apiVersion: 'ray.io/v1', kind: 'RayCluster', metadata: { name: 'a', namespace: 'default', labels: { 'kueue.x-k8s.io/queue-name': 'cq' } },
      spec: { headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0',
        resources: { requests: { cpu: '1' } } }] } } } } },
  ].map((o) => stringify(o)).join('---\n'));
  return file;
}
