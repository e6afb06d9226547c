// How the examples fit a node smaller than the guide's: every CPU request and quota times one factor,
// everything else as the guide wrote it. CPU limits keep the guide's values, so KubeRay derives the same
// `--num-cpus` from them (it reads the limit, else the request) and Ray's own scheduling and the
// autoscaler's arithmetic stay the guide's; Kueue counts requests only, so the queues still admit and
// keep pending exactly what the guide shows. Memory is not scaled. On a scaled node the Ray heads also
// give the dashboard longer to start (DASHBOARD_MODULE_TIMEOUT_SECONDS).
import { ContainerResources, Quantity } from '../src';

/**
 * How long a scaled node's Ray heads give each dashboard module process to start
 * (RAY_DASHBOARD_SUBPROCESS_MODULE_WAIT_READY_TIMEOUT; Ray's default is 30 s). Ray 2.46's dashboard starts
 * nine module processes at once, each importing Ray afresh; on a small, busy node that can take longer
 * than 30 s. The dashboard then fails but its process does not exit, so the head runs without ever being
 * Ready (KubeRay's probe asks the dashboard) until the liveness probe restarts it about 10 minutes later,
 * and its RayJob waits in Initializing. Seen on the 2-core CI machine as "Module MetricsHead failed to
 * start. Timeout after 30.0 seconds."; KubeRay's own CI hit it with a 500m head (ray-project/kuberay#4702).
 */
export const DASHBOARD_MODULE_TIMEOUT_SECONDS = 120;

export class NodeScale {
  /** The guide's figures, unscaled. */
  public static readonly GUIDE = new NodeScale(1);

  /** Validated here, where the factor enters (ExamplesOptions.cpuScale / EXAMPLES_CPU_SCALE). */
  public static of(factor: number, where = 'cpuScale'): NodeScale {
    if (!Number.isFinite(factor) || factor <= 0 || factor > 1) {
      throw new Error(`examples: ${where} ${factor} must be a number in (0, 1]. Fix: e.g. 0.1 runs the guide on a 2-core node; 1 is the guide.`);
    }
    return factor === 1 ? NodeScale.GUIDE : new NodeScale(factor);
  }

  private constructor(public readonly cpuFactor: number) {}

  public get scaled(): boolean {
    return this.cpuFactor !== 1;
  }

  /** A CPU request or quota of the guide, scaled (rounded to the millicore Kueue and the kubelet count). */
  public cpu(cores: number): Quantity {
    return Quantity.cpu(Math.max(1, Math.round(cores * this.cpuFactor * 1000)) / 1000);
  }

  /**
   * A Ray head container's environment: `env` as given, and on a scaled node the dashboard's longer
   * module start-up (DASHBOARD_MODULE_TIMEOUT_SECONDS); undefined when that leaves it empty.
   */
  public headEnv(env: Record<string, string> = {}): Record<string, string> | undefined {
    const all = this.scaled ? { ...env, RAY_DASHBOARD_SUBPROCESS_MODULE_WAIT_READY_TIMEOUT: String(DASHBOARD_MODULE_TIMEOUT_SECONDS) } : env;
    return Object.keys(all).length ? all : undefined;
  }

  /**
   * A container's resources: requests scaled, the CPU limit the guide's (its limit, or its request where
   * the guide sets requests = limits), memory as given.
   */
  public resources(guide: { cpu: number; memory: Quantity; cpuLimit?: number; memoryLimit?: Quantity }): ContainerResources {
    return {
      cpu: this.cpu(guide.cpu),
      cpuLimit: Quantity.cpu(guide.cpuLimit ?? guide.cpu),
      memory: guide.memory,
      memoryLimit: guide.memoryLimit,
    };
  }

  /**
   * A KubeRay default container (the submitter Job's 500m/200Mi requests, 1/1Gi limits; the autoscaler
   * sidecar's 500m/512Mi): left to KubeRay unscaled, written out scaled.
   */
  public kubeRayDefault(guide: { cpu: number; memory: Quantity; cpuLimit: number; memoryLimit: Quantity }): ContainerResources | undefined {
    return this.scaled ? this.resources(guide) : undefined;
  }
}

/** KubeRay's default submitter Job container (K8sJobMode). */
export const KUBERAY_SUBMITTER = { cpu: 0.5, memory: Quantity.mebibytes(200), cpuLimit: 1, memoryLimit: Quantity.gibibytes(1) };
/** KubeRay's default autoscaler sidecar. */
export const KUBERAY_AUTOSCALER = { cpu: 0.5, memory: Quantity.mebibytes(512), cpuLimit: 0.5, memoryLimit: Quantity.mebibytes(512) };
