import { ApiObject, Chart, Duration } from 'cdk8s';
import { lazyToken } from '../platform/lazy';
import { Construct, IConstruct } from 'constructs';
import { ADMISSION_BUCKETS } from '../policy/metric-names';
import { AdmissionController } from '../install/admission-controller/admission-controller';
import { NAME as CONTROLLER_NAME } from '../install/admission-controller/settings';
import { KubeRayInstall } from '../install/kuberay-install';
import { KueueInstall } from '../install/kueue-install';
import { wholeSeconds } from '../platform/duration';
import { AppInventory } from '../platform/inventory';
import { KUBERAY_OPERATOR_SERVICE_ACCOUNT } from '../policy/writers';
import { alertRuleGroups } from './alert-rules';
import { queueDashboard } from './dashboard';
import { AlertThresholds, ObservedApp, observedQueues, ScrapedComponent } from './model';
import { KUEUE_METRICS_SERVICE, kueueScraperIdentity, MONITORING_API, serviceMonitor } from './scrape';

/** Settings of the queue monitoring: the Prometheus that scrapes Kueue and the alerts' thresholds. */
export interface QueueObservabilityProps {
  /**
   * Namespace of the ServiceMonitors, the PrometheusRule and the dashboard ConfigMap (not created:
   * it is the monitoring stack's).
   * @default "monitoring"
   */
  readonly namespace?: string;
  /**
   * Prefix of every object's name and of the rule groups.
   * @default "kueue-ray"
   */
  readonly name?: string;
  /**
   * Namespace of the Prometheus pods, which the AdmissionController's NetworkPolicy must let reach the
   * controller's metrics port.
   * @default - `namespace`
   */
  readonly prometheusNamespace?: string;
  /**
   * Labels on the ServiceMonitors and the PrometheusRule, for the Prometheus' selectors
   * (kube-prometheus-stack selects `release: <its release name>`).
   * @default - none
   */
  readonly labels?: Record<string, string>;
  /**
   * Labels of the dashboard ConfigMap, which the Grafana sidecar looks for.
   * @default { grafana_dashboard: "1" } (kube-prometheus-stack's sidecar label)
   */
  readonly dashboardLabels?: Record<string, string>;
  /**
   * The KueueInstall whose ClusterQueue resource metrics the quota rules need (they are turned on).
   * @default - every KueueInstall of the app; none: Kueue is installed otherwise, with metrics.enableClusterQueueResources set by you
   */
  readonly kueueInstall?: KueueInstall;
  /**
   * The KubeRay operator to scrape.
   * @default - the app's KubeRayInstall if it has one, else the operator in "kuberay-system"
   */
  readonly kubeRayInstall?: KubeRayInstall;
  /**
   * The controller to scrape.
   * @default - the app's AdmissionController if it has one, else no controller is scraped
   */
  readonly admissionController?: AdmissionController;
  /**
   * A tenant's workloads pending this long, with none of its ClusterQueue admitted meanwhile, fire KueueRayWorkloadsPending.
   * @default Duration.minutes(30)
   */
  readonly pendingFor?: Duration;
  /**
   * A ClusterQueue at its nominal quota, or at its borrowing limit, this long fires an alert.
   * @default Duration.minutes(30)
   */
  readonly quotaFullFor?: Duration;
  /**
   * Preemptions per hour a ClusterQueue may cause before KueueRayPreemptionStorm fires.
   * @default 30
   */
  readonly preemptionsPerHour?: number;
  /**
   * Failed attempts (Retrying or Failed) of one RayJob that fire KueueRayRayJobFailingRepeatedly.
   * @default 3
   */
  readonly rayJobFailures?: number;
  /**
   * Share of a webhook's requests answered with an error that fires KueueRayWebhookErrors.
   * @default 0.05
   */
  readonly webhookErrorRatio?: number;
  /**
   * p99 webhook latency in seconds that fires KueueRayWebhookLatencyHigh. Below 1: the controller's
   * latency histogram has no finite bucket above 1 s.
   * @default 0.5
   */
  readonly webhookLatencySeconds?: number;
  /**
   * A component with no target up this long fires KueueRayComponentDown.
   * @default Duration.minutes(5)
   */
  readonly downFor?: Duration;
}

/**
 * Opt-in monitoring of the app's queues for a prometheus-operator stack: ServiceMonitors for Kueue,
 * the KubeRay operator and the controller; a PrometheusRule whose alerts are written for the app's own
 * tenants and ClusterQueues (thresholds from the props, a runbook in each); a Grafana dashboard in a
 * ConfigMap for the sidecar, one row per tenant. Turns on Kueue's ClusterQueue resource metrics.
 */
export class QueueObservability extends Chart {
  /** Namespace of the objects. */
  public readonly monitoringNamespace: string;
  /** Name prefix of the objects. */
  public readonly prefix: string;
  /** The PrometheusRule with the queue alerts (pending too long, quota exhausted, ...). */
  public readonly prometheusRule: ApiObject;
  /** The ConfigMap holding the Grafana dashboard, labelled for Grafana's sidecar to load. */
  public readonly dashboard: ApiObject;
  /** The ServiceMonitors, Kueue's first. */
  public readonly serviceMonitors: ApiObject[];
  private readonly components: ScrapedComponent[];
  private readonly thresholds: AlertThresholds;

  public constructor(scope: Construct, id: string, props: QueueObservabilityProps = {}) {
    super(scope, id, { disableResourceNameHashes: true });
    const where = `QueueObservability '${this.node.path}'`;
    this.monitoringNamespace = props.namespace ?? 'monitoring';
    this.prefix = props.name ?? 'kueue-ray';
    this.thresholds = resolveThresholds(props, where);
    const kubeRay = props.kubeRayInstall ?? only(this, KubeRayInstall);
    const controller = props.admissionController ?? only(this, AdmissionController);
    this.components = [
      { component: 'kueue', namespace: 'kueue-system', service: KUEUE_METRICS_SERVICE },
      { component: 'kuberay-operator', namespace: kubeRay?.operatorNamespace ?? KUBERAY_OPERATOR_SERVICE_ACCOUNT.namespace,
        service: KUBERAY_OPERATOR_SERVICE_ACCOUNT.name },
      ...(controller ? [{ component: 'controller' as const, namespace: controller.controllerNamespace, service: CONTROLLER_NAME }] : []),
    ];
    const labels = { ...(props.labels ?? {}) };
    const token = `${this.prefix}-kueue-metrics`;
    kueueScraperIdentity(token, this.monitoringNamespace, labels).forEach((o) => new ApiObject(this, `${o.kind}-${token}`, o));
    this.serviceMonitors = this.components.map((c) => new ApiObject(this, `servicemonitor-${c.component}`,
      serviceMonitor(c, { name: `${this.prefix}-${c.component}`, namespace: this.monitoringNamespace, labels, kueueTokenSecret: token })));
    // The tenants and queues are read at synth, so those defined after this construct are included.
    this.prometheusRule = new ApiObject(this, 'prometheus-rule', {
      apiVersion: MONITORING_API, kind: 'PrometheusRule', metadata: { name: `${this.prefix}-alerts`, namespace: this.monitoringNamespace, labels },
      spec: { groups: lazyToken(() => alertRuleGroups(this.observed(), this.thresholds, this.prefix)) },
    });
    this.dashboard = new ApiObject(this, 'dashboard', {
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name: `${this.prefix}-dashboard`, namespace: this.monitoringNamespace,
        labels: { ...(props.dashboardLabels ?? { grafana_dashboard: '1' }) } },
      data: { [`${this.prefix}-queues.json`]: lazyToken(() => JSON.stringify(queueDashboard(this.observed(), `${this.prefix}-queues`,
        'Kueue and Ray queues'), null, 1)) },
    });

    // Asked now, for the KueueInstalls validated (and so patched) before this chart; and again at synth, for those
    // constructed after it, which are validated after it too (cdk8s validates in construction order).
    const kueueInstalls = () => (props.kueueInstall ? [props.kueueInstall] : all(this, KueueInstall));
    const ask = () => kueueInstalls().map((k) => k._requireClusterQueueResourceMetrics(where)).filter((e): e is string => !!e);
    ask();
    this.node.addValidation({ validate: () => [...ask(), ...this.componentErrors(where, props, kubeRay, controller)] });
  }

  private observed(): ObservedApp {
    return { ...observedQueues(AppInventory.of(this).snapshot()), components: this.components };
  }

  private componentErrors(where: string, props: QueueObservabilityProps, kubeRay?: KubeRayInstall, controller?: AdmissionController): string[] {
    const errors: string[] = [];
    if (kubeRay && !kubeRay.metricsEnabled) {
      errors.push(`${where}: KubeRayInstall '${kubeRay.node.path}' has enableMetrics false, so the operator serves no kuberay_* metrics and `
        + 'KueueRayRayJobFailingRepeatedly could never fire. Fix: remove enableMetrics: false.');
    }
    if (!kubeRay && all(this, KubeRayInstall).length) errors.push(lateError(where, 'KubeRayInstall', 'kubeRayInstall'));
    if (!controller && all(this, AdmissionController).length) errors.push(lateError(where, 'AdmissionController', 'admissionController'));
    const prometheusNs = props.prometheusNamespace ?? this.monitoringNamespace;
    const scrapers = controller?.metricsScraperNamespaces;
    if (scrapers && !scrapers.includes(prometheusNs)) {
      errors.push(`${where}: AdmissionController '${controller.node.path}''s NetworkPolicy lets only ${scrapers.length ? scrapers.join(', ')
        : 'no namespace'} reach its metrics port, not Prometheus in ${prometheusNs}; the scrape would time out. Fix: add "${prometheusNs}" to its `
        + 'metricsScraperNamespaces, or set prometheusNamespace.');
    }
    return errors;
  }
}

function lateError(where: string, kind: string, prop: string): string {
  return `${where}: the app's ${kind} was constructed after it, so it was not seen. Fix: pass it as '${prop}', or construct `
    + 'QueueObservability after it.';
}

/** A construct class, as far as all() and only() read it: its prototype and name. */
interface ConstructClass<T extends IConstruct> {
  readonly prototype: T;
  readonly name: string;
}

/** The constructs of a type in the app (so far). */
function all<T extends IConstruct>(scope: IConstruct, type: ConstructClass<T>): T[] {
  // Not instanceof: Chart answers it for every chart (Symbol.hasInstance).
  return scope.node.root.node.findAll().filter((c): c is T => type.prototype.isPrototypeOf(c));
}

/** The one construct of a type in the app so far; two are ambiguous. */
function only<T extends IConstruct>(scope: IConstruct, type: ConstructClass<T>): T | undefined {
  const found = all(scope, type);
  if (found.length > 1) {
    throw new Error(`QueueObservability '${scope.node.path}': the app has ${found.length} ${type.name}s `
      + `(${found.map((f) => f.node.path).join(', ')}). `
      + `Fix: pass the one to scrape as '${type.name === 'KubeRayInstall' ? 'kubeRayInstall' : 'admissionController'}'.`);
  }
  return found[0];
}

function resolveThresholds(p: QueueObservabilityProps, where: string): AlertThresholds {
  const seconds = (d: Duration | undefined, def: number, prop: string) => {
    const s = wholeSeconds(d, def, prop, where);
    // Under 10 s is shorter than any sensible rule evaluation interval (the real-node test evaluates every 5 s with 20 s).
    if (s < 10) {
      throw new Error(`${where}: ${prop} must be a whole number of seconds, at least 10. Fix: e.g. Duration.minutes(30).`);
    }
    return s;
  };
  const positive = (v: number | undefined, def: number, prop: string, max = Infinity) => {
    const x = v ?? def;
    if (!(x > 0) || x >= max) throw new Error(`${where}: ${prop} ${x} must be above 0${max < Infinity ? ` and below ${max}` : ''}.`);
    return x;
  };
  const failures = positive(p.rayJobFailures, 3, 'rayJobFailures');
  if (!Number.isInteger(failures)) throw new Error(`${where}: rayJobFailures ${failures} must be a whole number of attempts.`);
  return {
    pendingSeconds: seconds(p.pendingFor, 1800, 'pendingFor'),
    quotaFullSeconds: seconds(p.quotaFullFor, 1800, 'quotaFullFor'),
    preemptionsPerHour: positive(p.preemptionsPerHour, 30, 'preemptionsPerHour'),
    rayJobFailures: failures,
    webhookErrorRatio: positive(p.webhookErrorRatio, 0.05, 'webhookErrorRatio', 1),
    // The controller's histogram ends at 1 s: a higher p99 reads as 1 s, so a threshold of 1 s or more could never fire.
    webhookLatencySeconds: positive(p.webhookLatencySeconds, 0.5, 'webhookLatencySeconds', Math.max(...ADMISSION_BUCKETS)),
    downSeconds: seconds(p.downFor, 300, 'downFor'),
  };
}
