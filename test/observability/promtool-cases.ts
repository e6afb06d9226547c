// promtool unit-test cases for each generated alert rule: input series that make it fire (checked with
// its labels and expanded annotations) and series that must not (the `for` not yet elapsed, the healthy
// variant, a follower replica's series, another tenant's).
import type { AlertRule } from '../../src/observability/alert-rules';
import { ADMISSION_BUCKETS, ADMISSION_DURATION, ADMISSION_ERRORS } from '../../src/policy/metric-names';
import type { ScrapedComponent } from '../../src/observability/model';

interface Series { series: string; values: string }
interface ExpectedAlert { exp_labels: Record<string, string>; exp_annotations: Record<string, string> }
interface AlertCheck { eval_time: string; alertname: string; exp_alerts: ExpectedAlert[] }
export interface PromtoolCase { name: string; interval: string; input_series: Series[]; alert_rule_test: AlertCheck[] }

const s = (name: string, labels: Record<string, string>, values: string): Series =>
  ({ series: `${name}{${Object.entries(labels).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}}`, values });

/** The rule's annotations as Prometheus expands them for an alert with these labels and value. */
function expand(rule: AlertRule, labels: Record<string, string>, value: string): Record<string, string> {
  return Object.fromEntries(Object.entries(rule.annotations).map(([k, text]) => {
    const out = text.replace(/\{\{ \$labels\.(\w+) \}\}/g, (_, l) => labels[l] ?? '').replace(/\{\{ \$value \}\}/g, value);
    if (out.includes('{{')) throw new Error(`annotation ${k} of ${rule.alert} has a template the test cannot expand: ${text}`);
    return [k, out];
  }));
}

function fires(rule: AlertRule, at: string, seriesLabels: Record<string, string>, value: string): AlertCheck {
  const labels = { ...seriesLabels, ...rule.labels };
  return { eval_time: at, alertname: rule.alert, exp_alerts: [{ exp_labels: labels, exp_annotations: expand(rule, { ...labels }, value) }] };
}
const silent = (rule: AlertRule, at: string): AlertCheck => ({ eval_time: at, alertname: rule.alert, exp_alerts: [] });

const label = (expr: string, name: string) => {
  const m = expr.match(new RegExp(`[{,]${name}="([^"]+)"`));
  if (!m) throw new Error(`no ${name} in ${expr}`);
  return m[1];
};
const LEADER = { replica_role: 'leader' };
const minutes = (d: string | undefined) => (d ? Number(d.replace(/m$/, '')) : 0);

/** Every component's targets up: the ComponentDown rules of the others stay silent. */
export function healthy(components: readonly ScrapedComponent[]): Series[] {
  return components.map((c) => s('up', { job: c.service, namespace: c.namespace, instance: `${c.component}-0` }, '1x120'));
}

type Builder = (rule: AlertRule, components: readonly ScrapedComponent[]) => Array<Omit<PromtoolCase, 'interval'>>;

const quota = (cq: string, cohort: string | undefined, usage: string, nominal: string, limit?: string): Series[] => {
  const l = { ...(cohort ? { cohort } : {}), cluster_queue: cq, flavor: 'default-flavor', resource: 'cpu', ...LEADER };
  return [s('kueue_cluster_queue_resource_usage', l, usage), s('kueue_cluster_queue_nominal_quota', l, nominal),
    ...(limit ? [s('kueue_cluster_queue_borrowing_limit', l, limit)] : [])];
};
const quotaLabels = (cq: string) => ({ cluster_queue: cq, flavor: 'default-flavor', resource: 'cpu' });

const BUILDERS: Record<string, Builder> = {
  KueueRayWorkloadsPending: (r) => {
    const cq = label(r.expr, 'cluster_queue');
    const f = minutes(r.for);
    const pending = (role: string, v: string) => s('kueue_pending_workloads', { cluster_queue: cq, status: 'inadmissible', replica_role: role }, v);
    const admitted = (v: string) => s('kueue_admitted_workloads_total', { cluster_queue: cq, priority_class: '', ...LEADER }, v);
    return [
      { name: 'pending, none admitted', input_series: [pending('leader', '2x120'), admitted('5x120')],
        alert_rule_test: [silent(r, `${f - 5}m`), fires(r, `${2 * f}m`, { cluster_queue: cq }, '2')] },
      { name: 'pending while workloads are admitted', input_series: [pending('leader', '2x120'), admitted('0+1x120')],
        alert_rule_test: [silent(r, `${2 * f}m`)] },
      { name: 'a follower replica\'s count', input_series: [pending('follower', '2x120'), pending('leader', '0x120')],
        alert_rule_test: [silent(r, `${2 * f}m`)] },
    ];
  },
  KueueRayClusterQueueAtNominalQuota: (r) => {
    const cq = label(r.expr, 'cluster_queue');
    const f = minutes(r.for);
    return [
      { name: 'at nominal', input_series: quota(cq, r.labels.cohort, '4x120', '4x120'),
        alert_rule_test: [silent(r, `${f - 5}m`), fires(r, `${f + 10}m`, quotaLabels(cq), '4')] },
      { name: 'below nominal', input_series: quota(cq, r.labels.cohort, '3x120', '4x120'), alert_rule_test: [silent(r, `${f + 10}m`)] },
      { name: 'a resource without quota, unused', input_series: quota(cq, r.labels.cohort, '0x120', '0x120'),
        alert_rule_test: [silent(r, `${f + 10}m`)] },
    ];
  },
  KueueRayClusterQueueBorrowingAtLimit: (r) => {
    const cq = label(r.expr, 'cluster_queue');
    const f = minutes(r.for);
    return [
      { name: 'borrowed up to the limit', input_series: quota(cq, r.labels.cohort, '6x120', '4x120', '2x120'),
        alert_rule_test: [silent(r, `${f - 5}m`), fires(r, `${f + 10}m`, quotaLabels(cq), '6')] },
      { name: 'borrowing below the limit', input_series: quota(cq, r.labels.cohort, '5x120', '4x120', '2x120'),
        alert_rule_test: [silent(r, `${f + 10}m`)] },
      { name: 'no borrowing limit (+Inf)', input_series: quota(cq, r.labels.cohort, '9x120', '4x120', 'Inf'),
        alert_rule_test: [silent(r, `${f + 10}m`)] },
    ];
  },
  KueueRayPreemptionStorm: (r) => {
    const cq = label(r.expr, 'preempting_cluster_queue');
    const threshold = Number(r.expr.match(/> ([\d.]+)$/)![1]);
    const preempted = (perMinute: number) => s('kueue_preempted_workloads_total',
      { preempting_cluster_queue: cq, reason: 'InClusterQueue', ...LEADER }, `0+${perMinute}x120`);
    return [
      { name: 'twice the threshold', input_series: [preempted((threshold * 2) / 60)],
        alert_rule_test: [silent(r, '3m'), fires(r, '30m', { preempting_cluster_queue: cq }, '')] },
      { name: 'half the threshold', input_series: [preempted(threshold / 2 / 60)], alert_rule_test: [silent(r, '30m')] },
    ];
  },
  KueueRayRayJobFailingRepeatedly: (r) => {
    const ns = r.labels.tenant;
    const n = Number(r.expr.match(/>= (\d+)$/)![1]);
    const attempt = (namespace: string, name: string, i: number, status: string) => s('kuberay_job_execution_duration_seconds',
      { namespace, name, uid: `${name}-uid`, job_deployment_status: status, retry_count: String(i) }, '60x30');
    const attempts = (namespace: string, name: string, count: number) => Array.from({ length: count },
      (_, i) => attempt(namespace, name, i, i === count - 1 ? 'Failed' : 'Retrying'));
    return [
      { name: `${n} failed attempts`, input_series: attempts(ns, 'train', n),
        alert_rule_test: [fires(r, '10m', { namespace: ns, name: 'train' }, String(n))] },
      { name: 'fewer attempts, a completed job, another namespace\'s failures', input_series: [...attempts(ns, 'train', n - 1),
        attempt(ns, 'ok', 0, 'Complete'), ...attempts(`not-${ns}`, 'train', n)], alert_rule_test: [silent(r, '10m')] },
    ];
  },
  KueueRayWebhookErrors: (r, components) => {
    const c = componentOf(r, components);
    const at = { job: c.service, namespace: c.namespace };
    const threshold = Number(r.expr.match(/> ([\d.]+)$/)![1]);
    // Requests per minute: 100; errors: twice or half the threshold's share.
    const series = (errorShare: number) => (c.component === 'controller'
      ? [s(ADMISSION_ERRORS, { ...at, path: '/validate', code: '500' }, `0+${100 * errorShare}x60`),
        s(`${ADMISSION_DURATION}_count`, { ...at, path: '/validate' }, '0+100x60')]
      : [s('controller_runtime_webhook_requests_total', { ...at, webhook: '/validate-ray-io-v1-rayjob', code: '500' }, `0+${100 * errorShare}x60`),
        s('controller_runtime_webhook_requests_total', { ...at, webhook: '/validate-ray-io-v1-rayjob', code: '200' },
          `0+${100 * (1 - errorShare)}x60`)]);
    const by: Record<string, string> = c.component === 'controller' ? { path: '/validate' } : { webhook: '/validate-ray-io-v1-rayjob' };
    return [
      { name: 'errors above the share', input_series: [...series(threshold * 2)],
        alert_rule_test: [silent(r, '3m'), fires(r, '30m', by, '')] },
      { name: 'errors below the share', input_series: [...series(threshold / 2)], alert_rule_test: [silent(r, '30m')] },
    ];
  },
  KueueRayWebhookLatencyHigh: (r, components) => {
    const c = componentOf(r, components);
    const at = { job: c.service, namespace: c.namespace };
    const ours = c.component === 'controller';
    const bounds = ours ? ADMISSION_BUCKETS : [0.005, 0.01, 0.1, 1, 10];
    const name = ours ? `${ADMISSION_DURATION}_bucket` : 'controller_runtime_webhook_latency_seconds_bucket';
    const by: Record<string, string> = ours ? { path: '/validate' } : { webhook: '/validate-ray-io-v1-rayjob' };
    // Every request lands in one bucket: the last finite one (slow) or the second (fast).
    const histogram = (bucket: number) => [...bounds.map((le, i) => s(name, { ...at, ...by, le: String(le) }, i >= bucket ? '0+10x60' : '0x60')),
      s(name, { ...at, ...by, le: '+Inf' }, '0+10x60')];
    return [
      { name: 'slow', input_series: [...histogram(bounds.length - 1)], alert_rule_test: [silent(r, '5m'), fires(r, '30m', by, '')] },
      { name: 'fast', input_series: [...histogram(1)], alert_rule_test: [silent(r, '30m')] },
    ];
  },
  KueueRayComponentDown: (r, components) => {
    const c = componentOf(r, components);
    const others = healthy(components.filter((x) => x !== c));
    const up = (instance: string, v: string) => s('up', { job: c.service, namespace: c.namespace, instance }, v);
    const f = minutes(r.for);
    return [
      { name: 'no target up', input_series: [...others, up('a', '0x60')], alert_rule_test: [silent(r, `${f - 2}m`), fires(r, `${f + 5}m`, {}, '')] },
      { name: 'one of two targets up', input_series: [...others, up('a', '0x60'), up('b', '1x60')], alert_rule_test: [silent(r, `${f + 5}m`)] },
    ];
  },
};

function componentOf(r: AlertRule, components: readonly ScrapedComponent[]): ScrapedComponent {
  const c = components.find((x) => x.component === r.labels.component);
  if (!c) throw new Error(`${r.alert}: no component ${r.labels.component}`);
  return c;
}

/** The promtool test cases of one rule; an alert without a builder is an error (every alert gets a test). */
export function casesFor(rule: AlertRule, components: readonly ScrapedComponent[]): PromtoolCase[] {
  const b = BUILDERS[rule.alert];
  if (!b) throw new Error(`no promtool test for alert ${rule.alert}: add one to test/observability/promtool-cases.ts`);
  const base = rule.alert === 'KueueRayComponentDown' ? [] : healthy(components);
  return b(rule, components).map((c) => ({
    ...c, name: `${rule.alert} ${JSON.stringify(rule.labels)}: ${c.name}`, interval: '1m',
    input_series: [...base.filter((x) => !c.input_series.some((y) => y.series === x.series)), ...c.input_series],
  }));
}
