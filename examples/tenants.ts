// Beyond the guide: two tenants with their own quota in one cohort. team-a's training job needs more
// than team-a owns and is admitted by borrowing team-b's idle quota (synth prints a warning saying so).
import { Chart, Duration } from 'cdk8s';
import { Construct } from 'constructs';
import { Cohort, IResourceFlavor, IWorkloadPriorityClass, Quantity, QueuedRayJob, ResourceName, TenantQueue } from '../src';
import { KUBERAY_SUBMITTER, NodeScale } from './node-scale';

export class SharedCohortTenants extends Chart {
  public readonly teamA: TenantQueue;
  public readonly teamB: TenantQueue;
  public readonly trainingJob: QueuedRayJob;
  constructor(scope: Construct, id: string, flavor: IResourceFlavor, dev: IWorkloadPriorityClass, prod: IWorkloadPriorityClass,
    scale: NodeScale = NodeScale.GUIDE) {
    super(scope, id);
    const cohort = new Cohort(this, 'research');
    const quota = (cpu: number, memGi: number, lendCpu?: number) => [{
      flavors: [{
        flavor,
        quotas: [
          {
            resource: ResourceName.CPU, nominalQuota: scale.cpu(cpu), borrowingLimit: scale.cpu(cpu),
            lendingLimit: lendCpu !== undefined ? scale.cpu(lendCpu) : undefined,
          },
          { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(memGi), borrowingLimit: Quantity.gibibytes(memGi) },
        ],
      }],
    }];
    // manageAllWorkloads: false: this app also queues the guide's jobs in `default`, and Kueue filters every
    // job by managedJobsNamespaceSelector, so managing the tenant namespaces whole would stop those (KueueInstall
    // refuses that combination at synth).
    this.teamA = new TenantQueue(this, 'team-a', {
      namespace: 'team-a', cohort, resourceGroups: quota(4, 8), manageAllWorkloads: false,
      defaultPriorityClass: dev, allowedPriorityClasses: [dev, prod],
    });
    this.teamB = new TenantQueue(this, 'team-b', {
      namespace: 'team-b', cohort, resourceGroups: quota(4, 8, 3), manageAllWorkloads: false,
      defaultPriorityClass: dev, allowedPriorityClasses: [dev],
    });
    // 1 + 4×1 + 0.5 submitter = 5.5 CPU > team-a's 4: fits only by borrowing from team-b (which lends up to 3).
    this.trainingJob = new QueuedRayJob(this, 'team-a-train', {
      queue: this.teamA,
      entrypoint: 'python -c "import ray; ray.init(); print(ray.cluster_resources())"',
      ttlAfterFinished: Duration.seconds(60),
      headGroup: { resources: scale.resources({ cpu: 1, memory: Quantity.gibibytes(2) }), env: scale.headEnv() },
      workerGroups: [{ groupName: 'workers', replicas: 4, resources: scale.resources({ cpu: 1, memory: Quantity.gibibytes(1) }) }],
      submitterResources: scale.kubeRayDefault(KUBERAY_SUBMITTER),
    });
  }
}
