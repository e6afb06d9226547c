// `plan --output html` in a real browser: Debian's chromium, headless, renders the page of the
// examples app's plan (the guide's gang and priority scenarios plus the elastic and tenant queues), and
// the DOM it produced is checked: one chart per ClusterQueue/cohort and resource, each ending at the
// usage the plan reports, the prod job preempting the dev job, every workload with its outcome. The
// page loads nothing from the network. Outside CI a missing chromium skips with the reason printed.
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { planCommand } from '../../src/cli/plan';
import { parseQuantity } from '../../src/policy';
import { planUsageSeries, PlanResult } from '../../src/policy/plan';
import { examples, tmpdir } from '../support/synth';

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

describeBrowser('plan --output html in headless chromium', () => {
  let dir: string;
  let plan: PlanResult;
  let dom: string;
  let htmlFile: string;

  beforeAll(() => {
    dir = tmpdir();
    const app = examples({ kueue: 'v0.19.2', kubeRay: 'v1.6.2' });
    app.synth();
    plan = JSON.parse(planCommand([app.outdir, '--output', 'json']));
    htmlFile = path.join(dir, 'plan.html');
    fs.writeFileSync(htmlFile, planCommand([app.outdir, '--output', 'html']));
    dom = execFileSync(chromium!, [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', `--user-data-dir=${path.join(dir, 'profile')}`,
      '--virtual-time-budget=5000', '--dump-dom', `file://${htmlFile}`,
    ], { encoding: 'utf8', timeout: 60000, stdio: ['ignore', 'pipe', 'pipe'] });
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
    const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(dom).toMatch(new RegExp(`<li data-preemptor="${esc(preemptor!.workload)}" data-victim="${esc(victim)}">`));
  });

  test('every workload has a row with its outcome, the pending ones with their reason', () => {
    const rows = [...dom.matchAll(/<tr class="([a-z-]+)" data-workload="([^"]+)">/g)].map((m) => [m[2], m[1]]);
    expect(rows).toEqual(plan.workloads.map((w) => [w.workload, w.outcome]));
    expect(rows.some(([, o]) => o === 'pending')).toBe(true);
    expect(dom).toMatch(/insufficient unused quota/);
  });

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
