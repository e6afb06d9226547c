// The generated alert rules, checked and unit-tested by Prometheus' own promtool (built by
// scripts/testcluster/build.sh): `check rules` on the PrometheusRule's groups, and `test rules` with,
// for every rule, series that fire it and series that must not.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { stringify } from 'yaml';
import { ALERT_NAMES, AlertRule, RuleGroup } from '../../src/observability/alert-rules';
import type { ScrapedComponent } from '../../src/observability/model';
import { cacheDir, REPO_ROOT } from '../support/upstream';
import { tmpdir } from '../support/synth';
import { obsApp, VENDOR } from './app';
import { casesFor } from './promtool-cases';

/** The promtool build.sh makes: its version is stated there once. */
function promtool(): string | undefined {
  const script = fs.readFileSync(path.join(REPO_ROOT, 'scripts', 'testcluster', 'build.sh'), 'utf8');
  const version = script.match(/PROMETHEUS_MODULE_VERSION:-(v[\d.]+)/)![1];
  const bin = path.join(cacheDir(), 'bin', `promtool-${version}`);
  if (fs.existsSync(bin)) return bin;
  if (process.env.CI) throw new Error(`no promtool at ${bin}: scripts/testcluster/build.sh builds it (ONLY=promtool for just that)`);
  process.stdout.write(`[promtool] skipped: no ${bin} (run ONLY=promtool scripts/testcluster/build.sh)\n`);
  return undefined;
}

const bin = promtool();
const run = (args: string[], cwd: string) => spawnSync(bin!, args, { cwd, encoding: 'utf8', timeout: 60_000 });
const maybe = bin && VENDOR ? describe : describe.skip;
if (!VENDOR) {
  if (process.env.CI) throw new Error('the promtool tests need ../shared/vendor (set KUEUE_RAY_VENDOR_DIR)');
  process.stdout.write('[promtool] skipped: no vendor folder for the installs (set KUEUE_RAY_VENDOR_DIR)\n');
}

maybe('promtool on the generated rules', () => {
  let dir: string;
  let groups: RuleGroup[];
  let components: ScrapedComponent[];

  beforeAll(() => {
    const { app, obs } = obsApp();
    app.synth();
    groups = obs.prometheusRule.toJson().spec.groups;
    // The components as the ServiceMonitors scrape them (job = Service name): the rules must query the same.
    components = obs.serviceMonitors.map((sm) => sm.toJson()).map((j: any) => ({ component: j.metadata.name.replace(`${obs.prefix}-`, ''),
      namespace: j.spec.namespaceSelector.matchNames[0], service: j.spec.endpoints[0].relabelings[0].regex }));
    dir = tmpdir();
    fs.writeFileSync(path.join(dir, 'rules.yaml'), stringify({ groups }));
  });

  test('promtool check rules accepts every rule', () => {
    const r = run(['check', 'rules', 'rules.yaml'], dir);
    const count = groups.reduce((n, g) => n + g.rules.length, 0);
    expect(`${r.stdout}${r.stderr}`).toContain(`SUCCESS: ${count} rules found`);
    expect(r.status).toBe(0);
  });

  test('every alert fires on its series and stays silent on the others (promtool test rules)', () => {
    const rules: AlertRule[] = groups.flatMap((g) => g.rules);
    // The fixture app holds every kind of alert the rules generate.
    expect([...new Set(rules.map((r) => r.alert))].sort()).toEqual([...ALERT_NAMES].sort());
    const cases = rules.flatMap((r) => casesFor(r, components));
    for (const r of rules) {
      const mine = cases.filter((c) => c.name.startsWith(`${r.alert} ${JSON.stringify(r.labels)}:`));
      const checks = mine.flatMap((c) => c.alert_rule_test);
      const firing = checks.some((t) => t.exp_alerts.length > 0);
      const silent = checks.some((t) => !t.exp_alerts.length);
      expect({ rule: r.alert, labels: r.labels, firing, silent }).toEqual({ rule: r.alert, labels: r.labels, firing: true, silent: true });
    }
    fs.writeFileSync(path.join(dir, 'tests.yaml'), stringify({ rule_files: ['rules.yaml'], evaluation_interval: '1m',
      tests: cases.map(({ name: _, ...c }) => c) }));
    const r = run(['test', 'rules', 'tests.yaml'], dir);
    if (r.status !== 0) throw new Error(`promtool test rules failed:\n${r.stdout}\n${r.stderr}`);
    expect(r.stdout).toContain('SUCCESS');
    const checks = cases.reduce((n, c) => n + c.alert_rule_test.length, 0);
    process.stdout.write(`[promtool] ${rules.length} rules, ${cases.length} test cases, ${checks} checks\n`);
  });

  test('every dashboard query parses (promtool check rules on them as recording rules)', () => {
    const { app, obs } = obsApp();
    app.synth();
    const dashboard = JSON.parse(Object.values(obs.dashboard.toJson().data)[0] as string);
    const exprs: string[] = dashboard.panels.flatMap((p: any) => (p.targets ?? []).map((t: any) => t.expr));
    expect(exprs.length).toBeGreaterThan(20);
    fs.writeFileSync(path.join(dir, 'dashboard.yaml'), stringify({ groups: [{ name: 'dashboard',
      rules: exprs.map((expr, i) => ({ record: `dashboard:query_${i}`, expr })) }] }));
    const r = run(['check', 'rules', 'dashboard.yaml'], dir);
    expect(`${r.stdout}${r.stderr}`).toContain(`SUCCESS: ${exprs.length} rules found`);
  });

  test('promtool test rules catches a rule that fires too early (the tests can fail)', () => {
    const rules: AlertRule[] = groups.flatMap((g) => g.rules);
    const pending = rules.find((r) => r.alert === 'KueueRayWorkloadsPending')!;
    const broken = { groups: [{ name: 'broken', rules: [{ ...pending, for: '1m' }] }] };
    fs.writeFileSync(path.join(dir, 'broken.yaml'), stringify(broken));
    fs.writeFileSync(path.join(dir, 'broken-tests.yaml'), stringify({ rule_files: ['broken.yaml'], evaluation_interval: '1m',
      tests: casesFor(pending, components).map(({ name: _, ...c }) => c) }));
    const r = run(['test', 'rules', 'broken-tests.yaml'], dir);
    expect(r.status).not.toBe(0);
    expect(`${r.stdout}${r.stderr}`).toMatch(/FAILED/);
  });
});
