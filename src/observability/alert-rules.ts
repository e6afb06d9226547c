/**
 * The alert rules, generated from the app's own queues: one rule per ClusterQueue (or tenant) per
 * question, so each alert names the tenants it concerns and carries its runbook. Written as Prometheus
 * rule groups, the same shape a PrometheusRule's spec and a rule file for promtool take.
 */
import { formatGoDuration } from '../policy/go-duration';
import { AlertThresholds, ObservedApp, ObservedClusterQueue, ScrapedComponent } from './model';
import * as Q from './queries';

export interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
}

export interface RuleGroup {
  readonly name: string;
  readonly rules: AlertRule[];
}

/** Every alert name the rules use, for the README and the tests. */
export const ALERT_NAMES = [
  'KueueRayWorkloadsPending', 'KueueRayClusterQueueAtNominalQuota', 'KueueRayClusterQueueBorrowingAtLimit', 'KueueRayPreemptionStorm',
  'KueueRayRayJobFailingRepeatedly', 'KueueRayWebhookErrors', 'KueueRayWebhookLatencyHigh', 'KueueRayComponentDown',
] as const;

const RATE_WINDOW = '10m';
const WEBHOOK_WINDOW = '5m';

/** The rule groups: the queues' (per ClusterQueue and tenant) and the components'. */
export function alertRuleGroups(app: ObservedApp, t: AlertThresholds, groupPrefix: string): RuleGroup[] {
  const queues = app.clusterQueues.flatMap((cq) => clusterQueueRules(cq, t));
  const tenants = [...new Set(app.tenants.map((x) => x.namespace))].map((ns) => rayJobRule(ns, t));
  const components = app.components.flatMap((c) => componentRules(c, t));
  return [
    { name: `${groupPrefix}.queues`, rules: [...queues, ...tenants] },
    { name: `${groupPrefix}.components`, rules: components },
  ].filter((g) => g.rules.length > 0);
}

function queueLabels(cq: ObservedClusterQueue, severity: string): Record<string, string> {
  return { severity, ...(cq.tenants.length ? { tenants: cq.tenants.join(',') } : {}), ...(cq.cohort ? { cohort: cq.cohort } : {}) };
}

function whose(cq: ObservedClusterQueue): string {
  if (!cq.tenants.length) return `ClusterQueue ${cq.name}`;
  return `tenant${cq.tenants.length > 1 ? 's' : ''} ${cq.tenants.join(', ')} (ClusterQueue ${cq.name})`;
}

function clusterQueueRules(cq: ObservedClusterQueue, t: AlertThresholds): AlertRule[] {
  const pendingFor = formatGoDuration(t.pendingSeconds);
  const quotaFor = formatGoDuration(t.quotaFullSeconds);
  const rules: AlertRule[] = [{
    alert: 'KueueRayWorkloadsPending',
    expr: `${Q.pending(cq.name)} > 0 unless on (cluster_queue) ${Q.admittedIncrease(cq.name, pendingFor)} > 0`,
    for: pendingFor,
    labels: queueLabels(cq, 'warning'),
    annotations: {
      summary: `Workloads of ${whose(cq)} have waited over ${pendingFor} with none admitted.`,
      description: `{{ $value }} workloads of ClusterQueue ${cq.name} are pending, and it admitted none in the last ${pendingFor}.`,
      runbook: `kubectl get workloads -A -o wide | grep ${cq.name}; the Workload's QuotaReserved condition says what is missing (quota, flavor, `
        + `admission check). kubectl describe clusterqueue ${cq.name} shows its usage against nominal quota. Inadmissible workloads wait for `
        + 'quota to change: raise the nominal quota, lend from the cohort, or lower the requests.',
    },
  }, {
    alert: 'KueueRayClusterQueueAtNominalQuota',
    expr: Q.atNominal(cq.name),
    for: quotaFor,
    // In a cohort, nominal quota is where borrowing starts, not a wall.
    labels: queueLabels(cq, cq.cohort ? 'info' : 'warning'),
    annotations: {
      summary: `ClusterQueue ${cq.name} (${cq.tenants.join(', ') || 'no tenant'}) has used all its nominal {{ $labels.resource }} for ${quotaFor}.`,
      description: '{{ $labels.resource }} of flavor {{ $labels.flavor }} in use: {{ $value }}, its nominal quota or more.',
      runbook: `kubectl describe clusterqueue ${cq.name}: flavorsUsage against the nominal quota. ${cq.cohort ? `It borrows from cohort ${cq.cohort} `
        + 'beyond this; see KueueRayClusterQueueBorrowingAtLimit.' : 'It is in no cohort, so new workloads wait: raise nominalQuota or put it in a '
        + 'cohort.'} kueue_pending_workloads tells whether anyone waits.`,
    },
  }];
  if (cq.cohort) {
    rules.push({
      alert: 'KueueRayClusterQueueBorrowingAtLimit',
      expr: Q.atBorrowingLimit(cq.name),
      for: quotaFor,
      labels: queueLabels(cq, 'warning'),
      annotations: {
        summary: `ClusterQueue ${cq.name} (${cq.tenants.join(', ') || 'no tenant'}) has borrowed up to its limit of {{ $labels.resource }} `
          + `for ${quotaFor}.`,
        description: '{{ $labels.resource }} of flavor {{ $labels.flavor }} in use: {{ $value }}, nominal quota plus borrowingLimit.',
        runbook: `kubectl describe clusterqueue ${cq.name} and kubectl describe cohort ${cq.cohort}: raise borrowingLimit, or the nominal `
          + 'quota, or ask the lending ClusterQueues of the cohort for more lendingLimit.',
      },
    });
  }
  rules.push({
    alert: 'KueueRayPreemptionStorm',
    expr: `${Q.preemptionsPerHour(cq.name, RATE_WINDOW)} > ${t.preemptionsPerHour}`,
    for: '5m',
    labels: queueLabels(cq, 'warning'),
    annotations: {
      summary: `ClusterQueue ${cq.name} preempts over ${t.preemptionsPerHour} workloads an hour.`,
      description: `Workloads of ${whose(cq)} preempted others at over ${t.preemptionsPerHour} an hour for 5m (rate over ${RATE_WINDOW}).`,
      runbook: `kubectl get events -A --field-selector reason=Preempted; kueue_preempted_workloads_total{preempting_cluster_queue="${cq.name}"} `
        + 'by reason tells in-queue priority from cohort reclaim. Preempted workloads requeue and may preempt back: check the priority '
        + 'classes of its workloads and the ClusterQueue\'s preemption policy.',
    },
  });
  return rules;
}

function rayJobRule(namespace: string, t: AlertThresholds): AlertRule {
  return {
    alert: 'KueueRayRayJobFailingRepeatedly',
    expr: `${Q.rayJobFailedAttempts(namespace)} >= ${t.rayJobFailures}`,
    labels: { severity: 'warning', tenant: namespace },
    annotations: {
      summary: `RayJob {{ $labels.namespace }}/{{ $labels.name }} has failed ${t.rayJobFailures} times or more.`,
      description: '{{ $value }} attempts of the RayJob ended Retrying or Failed.',
      runbook: 'kubectl describe rayjob -n {{ $labels.namespace }} {{ $labels.name }}: status.message and the submitter pod\'s logs give the '
        + 'reason; a gang that never becomes ready is evicted by waitForPodsReady and requeued. Delete the RayJob to stop the retries.',
    },
  };
}

function componentRules(c: ScrapedComponent, t: AlertThresholds): AlertRule[] {
  const labels = (severity: string) => ({ severity, component: c.component });
  const rules: AlertRule[] = [{
    alert: 'KueueRayComponentDown',
    expr: Q.componentDown(c),
    for: formatGoDuration(t.downSeconds),
    labels: labels('critical'),
    annotations: {
      summary: `No ${c.component} target is up: its Service ${c.namespace}/${c.service} has no scraped endpoint.`,
      description: `No target of job ${c.service} in ${c.namespace} has been up for ${formatGoDuration(t.downSeconds)}.`,
      runbook: `kubectl -n ${c.namespace} get pods,endpoints ${c.service}; kubectl -n ${c.namespace} logs deploy/<its deployment>. `
        + `${c.component === 'kuberay-operator' ? 'Without the operator no Ray pod is created or cleaned up.'
          : 'Its webhooks fail closed: creates and updates of Ray objects are refused while it is down.'}`,
    },
  }];
  if (c.component === 'kuberay-operator') return rules;
  const ours = c.component === 'controller';
  const by = ours ? 'path' : 'webhook';
  rules.push({
    alert: 'KueueRayWebhookErrors',
    expr: `(${ours ? Q.controllerErrorRatio(c, WEBHOOK_WINDOW) : Q.kueueWebhookErrorRatio(c, WEBHOOK_WINDOW)}) > ${t.webhookErrorRatio}`,
    for: '5m',
    labels: labels('critical'),
    annotations: {
      summary: `The ${c.component} webhook {{ $labels.${by} }} fails over ${percent(t.webhookErrorRatio)} of its requests.`,
      description: `Over ${percent(t.webhookErrorRatio)} of its requests were answered with an error (over ${WEBHOOK_WINDOW}) for 5m.`,
      runbook: `kubectl -n ${c.namespace} logs -l ${ours ? 'app.kubernetes.io/name=cdk8s-kueue-ray-controller' : 'control-plane=controller-manager'} `
        + `| grep -i error. ${ours ? 'Code 500 is a policy failure (the request is denied, the log names its uid); 400 and 408 are bodies '
          + 'the controller could not read.' : 'A 5xx from Kueue\'s webhook refuses the create or update it reviews.'}`,
    },
  }, {
    alert: 'KueueRayWebhookLatencyHigh',
    expr: `${ours ? Q.controllerLatency(c, 0.99, WEBHOOK_WINDOW) : Q.kueueWebhookLatency(c, 0.99, WEBHOOK_WINDOW)} > ${t.webhookLatencySeconds}`,
    for: '10m',
    labels: labels('warning'),
    annotations: {
      summary: `The ${c.component} webhook {{ $labels.${by} }} answers 1% of its requests slower than ${t.webhookLatencySeconds}s.`,
      description: `Its p99 latency over ${WEBHOOK_WINDOW} has stayed above ${t.webhookLatencySeconds}s for 10m.`,
      runbook: `kubectl -n ${c.namespace} top pods; a throttled or memory-bound replica is slow. The API server gives up at the webhook's `
        + 'timeoutSeconds and then refuses the request (failurePolicy Fail).',
    },
  });
  return rules;
}

function percent(ratio: number): string {
  return `${Math.round(ratio * 10000) / 100}%`;
}
