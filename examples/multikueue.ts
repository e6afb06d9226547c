// MultiKueue (issue 13): one manager cluster queues Ray workloads and dispatches each to one of two
// worker clusters with room. One App per cluster: dist/manager/ and dist/workers/<name>/, each applied to
// its own cluster. Every cluster has the guide's queues under the same names (ClusterQueue cluster-queue,
// LocalQueue default/user-queue, the two priority classes); the manager's ClusterQueue requires the
// MultiKueue AdmissionCheck and holds the sum of the workers' quota, so the manager never refuses what a
// worker could run.
import * as path from 'path';
import { App, Chart, Duration } from 'cdk8s';
import { Construct } from 'constructs';
import {
  ClusterQueue, IAdmissionCheck, KubeRayInstall, KubeRayVersion, KueueInstall, KueueRayVersions, KueueVersion, LocalQueue, MultiKueue,
  MultiKueueWorker, NamespaceSelector, Quantity, QueuedRayJob, ResourceFlavor, ResourceName, WithinClusterQueuePolicy, WorkloadPriorityClass,
} from '../src';
import { GuideQueues } from './guide-queues';
import { TOY_ENTRYPOINT } from './toy-job';

export const MULTIKUEUE_WORKERS = ['worker-1', 'worker-2'] as const;

export interface MultiKueueExampleOptions {
  /** dist/ folder: the manager goes to <outdir>/manager, each worker to <outdir>/workers/<name>. */
  readonly outdir: string;
  readonly kueue?: string;
  readonly kubeRay?: string;
  /** Worker cluster names. @default MULTIKUEUE_WORKERS */
  readonly workers?: readonly string[];
  /** Install Kueue and KubeRay on every cluster from these local copies. @default - no install charts */
  readonly install?: { readonly kueueManifest?: string; readonly kubeRayCrdDir?: string };
  /** Also emit the two RayJobs on the manager. @default true */
  readonly jobs?: boolean;
}

export interface MultiKueueExample {
  readonly manager: App;
  readonly workers: Record<string, App>;
  readonly multiKueue: MultiKueue;
}

/** The manager's queues: the guide's names, the MultiKueue check, quota for three gangs. */
export class ManagerQueues extends Chart {
  public readonly clusterQueue: ClusterQueue;
  public readonly userQueue: LocalQueue;
  public readonly devPriority: WorkloadPriorityClass;

  constructor(scope: Construct, id: string, check: IAdmissionCheck, workers: number) {
    super(scope, id);
    const flavor = new ResourceFlavor(this, 'default-flavor');
    this.clusterQueue = new ClusterQueue(this, 'cluster-queue', {
      namespaceSelector: NamespaceSelector.all(),
      preemption: { withinClusterQueue: WithinClusterQueuePolicy.LOWER_PRIORITY },
      // The workers' total (3 CPU / 6G each) plus one gang, so a third gang waits on the workers, not here.
      resourceGroups: [{
        flavors: [{
          flavor,
          quotas: [
            { resource: ResourceName.CPU, nominalQuota: Quantity.cpu(3 * (workers + 1)) },
            { resource: ResourceName.MEMORY, nominalQuota: Quantity.parse(`${6 * (workers + 1)}G`) },
          ],
        }],
      }],
      admissionChecks: [check],
    });
    this.userQueue = new LocalQueue(this, 'user-queue', { namespace: 'default', clusterQueue: this.clusterQueue });
    new WorkloadPriorityClass(this, 'prod-priority', { value: 1000, description: 'Priority class for prod jobs' });
    this.devPriority = new WorkloadPriorityClass(this, 'dev-priority', { value: 100, description: 'Priority class for development jobs' });
  }
}

function installs(app: App, opts: MultiKueueExampleOptions): void {
  if (!opts.install) return;
  const list: Chart[] = [];
  if (opts.install.kubeRayCrdDir) list.push(new KubeRayInstall(app, 'kuberay-install', { crdDir: opts.install.kubeRayCrdDir }));
  if (opts.install.kueueManifest) list.push(new KueueInstall(app, 'kueue-install', { manifestFile: opts.install.kueueManifest }));
  for (const c of app.node.children) if (c instanceof Chart && !list.includes(c)) for (const i of list) c.addDependency(i);
}

export function buildMultiKueueExample(opts: MultiKueueExampleOptions): MultiKueueExample {
  const versions = {
    kueue: opts.kueue ? KueueVersion.of(opts.kueue) : undefined,
    kubeRay: opts.kubeRay ? KubeRayVersion.of(opts.kubeRay) : undefined,
  };
  const workers: Record<string, App> = {};
  const workerRefs: MultiKueueWorker[] = [];
  for (const name of opts.workers ?? MULTIKUEUE_WORKERS) {
    const app = new App({ outdir: path.join(opts.outdir, 'workers', name) });
    KueueRayVersions.use(app, versions);
    new GuideQueues(app, 'queues');
    const access = new Chart(app, 'multikueue-access');
    workerRefs.push(new MultiKueueWorker(access, 'access', { clusterName: name }));
    installs(app, opts);
    workers[name] = app;
  }
  const manager = new App({ outdir: path.join(opts.outdir, 'manager') });
  KueueRayVersions.use(manager, versions);
  const setup = new Chart(manager, 'multikueue');
  const multiKueue = new MultiKueue(setup, 'multikueue', { workers: workerRefs });
  const queues = new ManagerQueues(manager, 'queues', multiKueue.admissionCheck, workerRefs.length);
  queues.addDependency(setup);
  if (opts.jobs ?? true) {
    const jobs = new Chart(manager, 'jobs');
    jobs.addDependency(queues);
    const oneCpuTwoGi = { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(2) };
    for (const n of [1, 2]) {
      new QueuedRayJob(jobs, `mk-job-${n}`, {
        queue: queues.userQueue, priorityClass: queues.devPriority, entrypoint: TOY_ENTRYPOINT, ttlAfterFinished: Duration.seconds(10),
        headGroup: { resources: oneCpuTwoGi },
        workerGroups: [{ groupName: 'small-group', replicas: 1, minReplicas: 1, maxReplicas: 5, resources: oneCpuTwoGi }],
      });
    }
  }
  installs(manager, opts);
  return { manager, workers, multiKueue };
}
