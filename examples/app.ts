// The examples app: every scenario of domain.md §2 plus the shared-cohort tenants, for one version pair.
import { Chart, Duration } from 'cdk8s';
import {
  AdmissionController, KubeRayInstall, KubeRayVersion, KueueInstall, KueueRayApp, KueueRayVersions, KueueVersion, QueueObservability, TaintEffect,
  TolerationOperator,
} from '../src';
import { ElasticQueues } from './elastic-queues';
import { ElasticRayClusterScenario } from './elastic-raycluster';
import { ElasticRayServiceScenario, ServeAppsSource } from './elastic-rayservice';
import { FailingJob } from './failing-job';
import { FixedQueues } from './fixed-queues';
import { GangScheduling } from './gang-scheduling';
import { GuideQueues } from './guide-queues';
import { PriorityScenario } from './priority';
import { RayClusterScenario } from './raycluster';
import { RayServiceScenario } from './rayservice';
import { NodeScale } from './node-scale';
import { SharedCohortTenants } from './tenants';

export const SCENARIOS = ['queues', 'gang-scheduling', 'priority', 'failing-job', 'elastic-raycluster', 'elastic-rayservice', 'tenants', 'raycluster',
  'rayservice'] as const;
export type Scenario = typeof SCENARIOS[number];

export interface ExamplesOptions {
  readonly outdir: string;
  readonly kueue?: string;
  readonly kubeRay?: string;
  /** @default all scenarios */
  readonly scenarios?: readonly Scenario[];
  /**
   * Install Kueue and KubeRay from these local copies (the release manifests.yaml and the KubeRay
   * CRD folder); the install charts come first in dist/.
   * @default - no install charts
   */
  readonly install?: { readonly kueueManifest?: string; readonly kubeRayCrdDir?: string };
  /**
   * Deploy the project's controller (AdmissionController) with this image; it validates and defaults
   * Ray objects in the tenant namespaces and explains pending workloads.
   * @default - no controller chart
   */
  readonly controller?: { readonly image?: string };
  /**
   * Every CPU request and quota times this factor, in (0, 1], so the guide fits a smaller node (the
   * real-node tests use 0.1 on 2 cores). CPU limits, memory and Ray's logical CPUs stay the guide's.
   * @default 1 (the guide)
   */
  readonly cpuScale?: number;
  /**
   * One-second iterations of the toy RayJob's loop.
   * @default 600 (the guide)
   */
  readonly toyIterations?: number;
  /**
   * Where the RayServices' Serve apps come from (ServeAppsSource): the guide's zip on GitHub,
   * or the same-shaped apps of examples/serve-apps/ in a ConfigMap, for clusters without GitHub.
   * @default 'github' (the guide)
   */
  readonly serveApps?: ServeAppsSource;
  /**
   * Add QueueObservability (ServiceMonitors, alert rules, dashboard) with this pending-alert threshold;
   * the real-node guide test uses a short one so the gang scenario's waiting job fires it.
   * @default - no observability chart
   */
  readonly observability?: { readonly pendingFor: Duration };
}

/**
 * The examples app. Its generateName jobs (gang scheduling, priority, the failing job) are charts of
 * their own, which KueueRayApp writes to <outdir>/create/ for `kubectl create -f`.
 */
export function buildExamples(opts: ExamplesOptions): KueueRayApp {
  const app = new KueueRayApp({ outdir: opts.outdir });
  KueueRayVersions.use(app, {
    kueue: opts.kueue ? KueueVersion.of(opts.kueue) : undefined,
    kubeRay: opts.kubeRay ? KubeRayVersion.of(opts.kubeRay) : undefined,
  });
  const want = new Set<Scenario>(opts.scenarios ?? SCENARIOS);
  const scale = opts.cpuScale === undefined ? NodeScale.GUIDE : NodeScale.of(opts.cpuScale);
  const toy = { scale, iterations: opts.toyIterations };
  const queues = new GuideQueues(app, 'queues', scale);
  if (want.has('gang-scheduling')) new GangScheduling(app, 'gang-scheduling', queues, toy);
  if (want.has('priority')) new PriorityScenario(app, 'priority', queues, toy);
  if (want.has('failing-job')) new FailingJob(app, 'failing-job', queues, toy);
  if (want.has('elastic-raycluster') || want.has('elastic-rayservice')) {
    const elastic = new ElasticQueues(app, 'elastic-queues', queues.defaultFlavor, scale);
    if (want.has('elastic-raycluster')) new ElasticRayClusterScenario(app, 'elastic-raycluster', elastic, scale);
    if (want.has('elastic-rayservice')) new ElasticRayServiceScenario(app, 'elastic-rayservice', elastic, scale, opts.serveApps);
  }
  if (want.has('tenants')) new SharedCohortTenants(app, 'tenants', queues.defaultFlavor, queues.devPriority, queues.prodPriority, scale);
  if (want.has('raycluster') || want.has('rayservice')) {
    const fixed = new FixedQueues(app, 'fixed-queues', queues.defaultFlavor, scale);
    if (want.has('raycluster')) new RayClusterScenario(app, 'raycluster', fixed, scale);
    if (want.has('rayservice')) new RayServiceScenario(app, 'rayservice', fixed, scale, opts.serveApps);
  }
  if (opts.controller) {
    // Graceful preemption on: Ray pods preempted by Kueue get 60 s and a 20 s preStop drain (kuberay#5004).
    new AdmissionController(app, 'controller',
      { image: opts.controller.image, gracefulPreemption: { terminationGracePeriod: Duration.seconds(60), preStopSleep: Duration.seconds(20) } });
  }
  if (opts.install) {
    // Installs first: every other chart depends on them, so dist/ names them 0000-/0001-.
    const installs: Chart[] = [];
    // The queue system on Linux nodes, allowed onto tainted control-plane nodes (as the Helm charts' nodeSelector and tolerations take it).
    const placement = { nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: TolerationOperator.EXISTS, effect: TaintEffect.NO_SCHEDULE }] };
    if (opts.install.kubeRayCrdDir) installs.push(new KubeRayInstall(app, 'kuberay-install', { crdDir: opts.install.kubeRayCrdDir, ...placement }));
    if (opts.install.kueueManifest) installs.push(new KueueInstall(app, 'kueue-install', { manifestFile: opts.install.kueueManifest, ...placement }));
    for (const c of app.node.children) {
      if (c instanceof Chart && !installs.includes(c)) for (const i of installs) c.addDependency(i);
    }
  }
  // Last: it reads the app's installs and controller when constructed, and its queues at synth.
  // Labelled as kube-prometheus-stack's Prometheus selects (release: <its Helm release>).
  if (opts.observability) {
    new QueueObservability(app, 'observability', { pendingFor: opts.observability.pendingFor, labels: { release: 'kube-prometheus-stack' } });
  }
  return app;
}
