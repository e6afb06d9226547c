/**
 * The PromQL the alert rules and the dashboard share, one function per question. Kueue's metric names
 * are the same in every supported version (v0.13 to v0.19); from v0.19 each series also carries
 * `replica_role`, and only the leader's count (the selector keeps series without the label too).
 */
import { ADMISSION_DECISIONS, ADMISSION_DURATION, ADMISSION_ERRORS } from '../policy/metric-names';
import { q, ScrapedComponent } from './model';

const KUEUE = 'replica_role!="follower"';
const QUOTA_BY = 'cluster_queue, flavor, resource';

/** Selector of one component's own series: its job (the Service name) and namespace. */
export function jobSelector(c: ScrapedComponent): string {
  return `job=${q(c.service)},namespace=${q(c.namespace)}`;
}

/** Pending workloads of a ClusterQueue, by status ("active", "inadmissible"). */
export function pendingByStatus(cq: string): string {
  return `max by (cluster_queue, status) (kueue_pending_workloads{cluster_queue=${q(cq)},${KUEUE}})`;
}

/** Pending workloads of a ClusterQueue, all statuses. */
export function pending(cq: string): string {
  return `sum by (cluster_queue) (${pendingByStatus(cq)})`;
}

/** Admitted workloads still running. */
export function admittedActive(cq: string): string {
  return `max by (cluster_queue) (kueue_admitted_active_workloads{cluster_queue=${q(cq)},${KUEUE}})`;
}

/** Workloads admitted in the last `window`. */
export function admittedIncrease(cq: string, window: string): string {
  return `sum by (cluster_queue) (increase(kueue_admitted_workloads_total{cluster_queue=${q(cq)},${KUEUE}}[${window}]))`;
}

/** Quota in use, by flavor and resource (needs enableClusterQueueResources). */
export function quotaUsage(cq: string): string {
  return `max by (${QUOTA_BY}) (kueue_cluster_queue_resource_usage{cluster_queue=${q(cq)},${KUEUE}})`;
}

export function nominalQuota(cq: string): string {
  return `max by (${QUOTA_BY}) (kueue_cluster_queue_nominal_quota{cluster_queue=${q(cq)},${KUEUE}})`;
}

/** Nominal quota plus borrowing limit: +Inf where the ClusterQueue sets no borrowingLimit. */
export function borrowingCeiling(cq: string): string {
  return `${nominalQuota(cq)} + on (${QUOTA_BY}) max by (${QUOTA_BY}) (kueue_cluster_queue_borrowing_limit{cluster_queue=${q(cq)},${KUEUE}})`;
}

/** Flavor/resource pairs whose use has reached the nominal quota (and is not zero). */
export function atNominal(cq: string): string {
  return `(${quotaUsage(cq)} >= on (${QUOTA_BY}) ${nominalQuota(cq)}) > 0`;
}

/** Flavor/resource pairs whose use has reached nominal quota plus borrowing limit. */
export function atBorrowingLimit(cq: string): string {
  return `(${quotaUsage(cq)} >= on (${QUOTA_BY}) (${borrowingCeiling(cq)})) > 0`;
}

/** Quantile of the time from creation (or requeue) to admission, over `window`. */
export function admissionWait(cq: string, quantile: number, window: string): string {
  return `histogram_quantile(${quantile}, sum by (le) (rate(kueue_admission_wait_time_seconds_bucket{cluster_queue=${q(cq)},${KUEUE}}[${window}])))`;
}

/** Preemptions a ClusterQueue's workloads caused, per hour. */
export function preemptionsPerHour(cq: string, window: string): string {
  return `sum by (preempting_cluster_queue) (rate(kueue_preempted_workloads_total{preempting_cluster_queue=${q(cq)},${KUEUE}}[${window}])) * 3600`;
}

/** A ClusterQueue's workloads evicted by preemption, per hour. */
export function preemptedPerHour(cq: string, window: string): string {
  return `sum by (cluster_queue) (rate(kueue_evicted_workloads_total{cluster_queue=${q(cq)},reason="Preempted",${KUEUE}}[${window}])) * 3600`;
}

/**
 * Failed attempts of each RayJob in a namespace: KubeRay keeps one execution-duration series per attempt
 * that ended Retrying or Failed (label retry_count), until the RayJob is deleted.
 */
export function rayJobFailedAttempts(namespace: string): string {
  return `count by (namespace, name) (kuberay_job_execution_duration_seconds{namespace=${q(namespace)},job_deployment_status=~"Retrying|Failed"})`;
}

/** RayJobs of the given namespaces, by deployment status. */
export function rayJobsByStatus(namespaces: readonly string[]): string {
  return `count by (deployment_status) (kuberay_job_deployment_status{namespace=~${q(namespaces.join('|'))}})`;
}

/** Share of the controller's reviews that got no decision, by path. */
export function controllerErrorRatio(c: ScrapedComponent, window: string): string {
  const sel = jobSelector(c);
  return `sum by (path) (rate(${ADMISSION_ERRORS}{${sel}}[${window}])) / sum by (path) (rate(${ADMISSION_DURATION}_count{${sel}}[${window}]))`;
}

export function controllerLatency(c: ScrapedComponent, quantile: number, window: string): string {
  return `histogram_quantile(${quantile}, sum by (path, le) (rate(${ADMISSION_DURATION}_bucket{${jobSelector(c)}}[${window}])))`;
}

/** The controller's decisions per second, by webhook and decision. */
export function controllerDecisions(c: ScrapedComponent, window: string): string {
  return `sum by (webhook, decision) (rate(${ADMISSION_DECISIONS}{${jobSelector(c)},rule=""}[${window}]))`;
}

/** Share of Kueue's webhook requests answered with a 5xx, by webhook (controller-runtime's metrics). */
export function kueueWebhookErrorRatio(c: ScrapedComponent, window: string): string {
  const sel = jobSelector(c);
  return `sum by (webhook) (rate(controller_runtime_webhook_requests_total{${sel},code=~"5.."}[${window}]))`
    + ` / sum by (webhook) (rate(controller_runtime_webhook_requests_total{${sel}}[${window}]))`;
}

export function kueueWebhookLatency(c: ScrapedComponent, quantile: number, window: string): string {
  const buckets = `controller_runtime_webhook_latency_seconds_bucket{${jobSelector(c)}}`;
  return `histogram_quantile(${quantile}, sum by (webhook, le) (rate(${buckets}[${window}])))`;
}

/** Empty while at least one of the component's targets is up; 1 when none is (or none is scraped). */
export function componentDown(c: ScrapedComponent): string {
  return `absent(up{${jobSelector(c)}} == 1)`;
}
