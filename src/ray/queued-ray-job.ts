import { Duration } from 'cdk8s';
import { Construct } from 'constructs';
import { RAY_JOB, RayJobSpecJson } from '../policy/kinds';
import { wholeSeconds } from '../platform/duration';
import { AutoscalingOptions } from './ray-cluster-spec';
import { ContainerResources, renderResources } from '../platform/container-resources';
import { mergeTemplate } from './pod-template';
import { RayWorkload, RayWorkloadProps } from './ray-workload';

/** How KubeRay submits the job. */
export enum SubmissionMode {
  /** A submitter Job pod (Kueue counts it as the `submitter` PodSet, default 500m/200Mi). KubeRay's default. */
  K8S_JOB_MODE = 'K8sJobMode',
  /** KubeRay submits over HTTP; no submitter pod. */
  HTTP_MODE = 'HTTPMode',
  /** A submitter container in the head pod (KubeRay >= 1.5; Kueue >= 0.17.7 counts it). */
  SIDECAR_MODE = 'SidecarMode',
  /** The user submits; KubeRay waits. */
  INTERACTIVE_MODE = 'InteractiveMode',
}

/** Settings of a queued RayJob: the entrypoint, its runtime environment and lifecycle, beside the queue and the cluster. */
export interface QueuedRayJobProps extends RayWorkloadProps {
  /** The command `ray job submit` runs, e.g. "python train.py". */
  readonly entrypoint: string;
  /**
   * Create with metadata.generateName instead of a name (for `kubectl create`; server-side apply needs a name).
   * @default - a fixed name (the `name` prop or construct id)
   */
  readonly generateName?: string;
  /**
   * Ray runtime environment, e.g. { pip: ['torch'], env_vars: { A: '1' } }. Rendered into runtimeEnvYAML as JSON (a YAML subset).
   * @default - none
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any: a public jsii prop (the JSON given as is); the type of the published API stays.
  readonly runtimeEnv?: Record<string, any>;
  /**
   * How long to keep the cluster after the job finishes (spec.ttlSecondsAfterFinished, whole seconds); the
   * cluster is always deleted then, which Kueue requires.
   * @default Duration.seconds(0)
   */
  readonly ttlAfterFinished?: Duration;
  /**
   * Deadline for the job, from its start (spec.activeDeadlineSeconds, whole seconds).
   * @default - none
   */
  readonly activeDeadline?: Duration;
  /**
   * Retries; each creates a new RayCluster.
   * @default 0
   */
  readonly backoffLimit?: number;
  /**
   * How KubeRay submits the entrypoint: a submitter Job, over HTTP, or as the head's command.
   * @default SubmissionMode.K8S_JOB_MODE
   */
  readonly submissionMode?: SubmissionMode;
  /**
   * Resources of the submitter pod (K8sJobMode). Kueue counts them as the `submitter` PodSet.
   * @default - KubeRay's default submitter, 500m CPU / 200Mi requests (1 CPU / 1Gi limits)
   */
  readonly submitterResources?: ContainerResources;
  /**
   * Escape hatch: a full submitterPodTemplate fragment (Kubernetes JSON), merged over the generated one.
   * @default - none
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any: a public jsii prop (the user's Kubernetes JSON); the type of the published API stays.
  readonly submitterPodTemplate?: Record<string, any>;
  /**
   * Run as an elastic job with the in-tree autoscaler (Kueue >= 0.14.7).
   * @default - a fixed-size gang
   */
  readonly autoscaling?: AutoscalingOptions;
  /**
   * spec.jobId.
   * @default - KubeRay generates one
   */
  readonly jobId?: string;
  /**
   * spec.metadata passed to `ray job submit --metadata-json`.
   * @default - none
   */
  readonly jobMetadata?: Record<string, string>;
}

/**
 * A RayJob submitted through a Kueue LocalQueue: created suspended, admitted as one gang (head +
 * workers + submitter), its cluster deleted when it finishes.
 */
export class QueuedRayJob extends RayWorkload {
  private readonly jobProps: QueuedRayJobProps;

  public constructor(scope: Construct, id: string, props: QueuedRayJobProps) {
    super(scope, id, 'RayJob', props, props.autoscaling !== undefined, props.generateName);
    if (props.name && props.generateName) {
      throw new Error(`RayJob '${this.node.path}': give 'name' or 'generateName', not both.`);
    }
    if (!props.entrypoint?.trim()) {
      throw new Error(`RayJob '${this.node.path}': spec.entrypoint is empty. Fix: give the command to run, e.g. "python train.py".`);
    }
    this.jobProps = props;
    this._checkSpec();
  }

  /** @internal */
  protected _buildSpec(): RayJobSpecJson {
    const p = this.jobProps;
    const where = this._where;
    const elastic = this.elastic;
    // Kueue 0.14.7–0.16.0 queues an elastic RayJob through its RayCluster and refuses suspend: true on it.
    const suspend = RAY_JOB.suspendFieldAtCreate(elastic, this._versions.kueue) !== undefined;
    // Filled in field by field; submitterPodTemplate is the merge with the user's JSON, whatever it holds.
    const spec: Record<string, unknown> = {
      entrypoint: p.entrypoint,
      shutdownAfterJobFinishes: true,
      ttlSecondsAfterFinished: wholeSeconds(p.ttlAfterFinished, 0, 'ttlAfterFinished', where),
    };
    if (suspend) spec.suspend = true;
    if (p.submissionMode) spec.submissionMode = p.submissionMode;
    // JSON is valid YAML, and 10x cheaper to write and check than block YAML for a thousand jobs.
    if (p.runtimeEnv) spec.runtimeEnvYAML = JSON.stringify(p.runtimeEnv);
    if (p.activeDeadline !== undefined) spec.activeDeadlineSeconds = wholeSeconds(p.activeDeadline, 0, 'activeDeadline', where);
    if (p.backoffLimit !== undefined) spec.backoffLimit = p.backoffLimit;
    if (p.jobId) spec.jobId = p.jobId;
    if (p.jobMetadata) spec.metadata = { ...p.jobMetadata };
    if (p.submitterResources || p.submitterPodTemplate) {
      const mode = p.submissionMode ?? SubmissionMode.K8S_JOB_MODE;
      if (mode !== SubmissionMode.K8S_JOB_MODE) {
        throw new Error(`${where}: submitterResources/submitterPodTemplate apply only to K8sJobMode, not ${mode}. Fix: remove them or use `
          + 'SubmissionMode.K8S_JOB_MODE.');
      }
      const base = {
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'ray-job-submitter', image: p.headGroup.image ?? this._image,
            resources: renderResources(p.submitterResources ?? { cpu: undefined }, `${where} submitterResources`) }],
        },
      };
      spec.submitterPodTemplate = mergeTemplate(base, p.submitterPodTemplate);
    }
    spec.rayClusterSpec = this._clusterSpec({ autoscaling: p.autoscaling });
    return spec;
  }
}
