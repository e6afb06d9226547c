import { IConstruct } from 'constructs';
import {
  DEFAULT_KUBERAY_VERSION, DEFAULT_KUEUE_VERSION, kubeRayCapabilities, KubeRayCapabilities, kueueCapabilities,
  KueueCapabilities, SUPPORTED_KUBERAY_VERSIONS, SUPPORTED_KUEUE_VERSIONS,
} from '../policy/versions';

/** A supported Kueue release. */
export class KueueVersion {
  /** The Ray docs guide's pin: gang scheduling and priority only, no elastic Ray. */
  public static readonly V0_13_4 = new KueueVersion('v0.13.4');
  /** First elastic RayCluster line; v1beta1 API; RayService queued through its RayCluster. */
  public static readonly V0_14_8 = new KueueVersion('v0.14.8');
  /** First native RayService; v1beta2 API; no SidecarMode / Redis-cleanup accounting yet. */
  public static readonly V0_17_0 = new KueueVersion('v0.17.0');
  /** v0.17 with SidecarMode and Redis-cleanup accounting. */
  public static readonly V0_17_8 = new KueueVersion('v0.17.8');
  /** Newest: elastic gate on by default, 18 PodSets, autoscaler-sidecar accounting (the default). */
  public static readonly V0_19_2 = new KueueVersion('v0.19.2');

  /** Looks a version up by its tag, e.g. "v0.19.2". Throws for versions this library does not support. */
  public static of(version: string): KueueVersion {
    return new KueueVersion(kueueCapabilities(version).version);
  }

  /** The release tag, e.g. "v0.19.2". */
  public readonly version: string;

  private constructor(version: string) {
    this.version = version;
  }
}

/** A supported KubeRay release. */
export class KubeRayVersion {
  /** Oldest supported: RayJob deletionPolicy (not yet deletionStrategy), no SidecarMode submission. */
  public static readonly V1_4_2 = new KubeRayVersion('v1.4.2');
  /** Adds RayJob SidecarMode submission, deletionStrategy (in place of deletionPolicy) and the kai-scheduler batch scheduler. */
  public static readonly V1_5_2 = new KubeRayVersion('v1.5.2');
  /** The default, and the pair Kueue v0.17+ tests RayService against. */
  public static readonly V1_6_2 = new KubeRayVersion('v1.6.2');
  /**
   * Modelled from its sources, not run here (the Go module proxy does not serve it). Adds RayService spec.suspend, which
   * no supported Kueue sets: a queued RayService needs Kueue < 0.17 with it (the constructs keep suspending through
   * rayClusterConfig.suspend, as Kueue does).
   */
  public static readonly V1_7_0 = new KubeRayVersion('v1.7.0');

  /** Looks a version up by its tag, e.g. "v1.6.2". Throws for versions this library does not support. */
  public static of(version: string): KubeRayVersion {
    return new KubeRayVersion(kubeRayCapabilities(version).version);
  }

  /** The release tag, e.g. "v1.6.2". */
  public readonly version: string;

  private constructor(version: string) {
    this.version = version;
  }
}

/** The Kueue and KubeRay releases an app (or a scope of it) targets; every construct below reads them. */
export interface KueueRayVersionsProps {
  /**
   * Kueue release the cluster runs.
   * @default KueueVersion.V0_19_2
   */
  readonly kueue?: KueueVersion;
  /**
   * KubeRay release the cluster runs.
   * @default KubeRayVersion.V1_6_2
   */
  readonly kubeRay?: KubeRayVersion;
  /**
   * Whether Kueue's ElasticJobsViaWorkloadSlices gate is on in the cluster. Leave unset when the
   * app installs Kueue itself (the install turns it on for elastic workloads).
   * @default - unknown: the version's default is assumed, with a warning where it is off
   */
  readonly elasticGateEnabled?: boolean;
}

/** The versions in effect at a scope. */
export interface VersionChoice {
  /** Kueue release tag in effect, e.g. "v0.19.2". */
  readonly kueueVersion: string;
  /** KubeRay release tag in effect, e.g. "v1.6.2". */
  readonly kubeRayVersion: string;
  /**
   * Whether the app declared Kueue's elastic gate on or off.
   * @default - not declared
   */
  readonly elasticGateEnabled?: boolean;
}

/** The capabilities every construct reads. @internal */
export interface ResolvedVersions {
  readonly kueue: KueueCapabilities;
  readonly kubeRay: KubeRayCapabilities;
  readonly elasticGate: 'on' | 'off' | 'unknown';
}

const KUEUE_KEY = 'cdk8s-kueue-ray:kueueVersion';
const KUBERAY_KEY = 'cdk8s-kueue-ray:kubeRayVersion';
const GATE_KEY = 'cdk8s-kueue-ray:elasticGateEnabled';

/**
 * Chooses the Kueue and KubeRay versions once for an app (or a subtree). Every construct reads it.
 *
 * The same choice can come from context: `cdk8s-kueue-ray:kueueVersion`, `cdk8s-kueue-ray:kubeRayVersion`.
 */
export class KueueRayVersions {
  /**
   * Sets the versions on `scope` (usually the App). Call before adding children.
   */
  public static use(scope: IConstruct, props: KueueRayVersionsProps = {}): void {
    const kueue = props.kueue?.version ?? DEFAULT_KUEUE_VERSION;
    const kubeRay = props.kubeRay?.version ?? DEFAULT_KUBERAY_VERSION;
    scope.node.setContext(KUEUE_KEY, kueue);
    scope.node.setContext(KUBERAY_KEY, kubeRay);
    if (props.elasticGateEnabled !== undefined) scope.node.setContext(GATE_KEY, props.elasticGateEnabled);
  }

  /** The versions in effect at `scope`. */
  public static of(scope: IConstruct): VersionChoice {
    const r = resolveVersions(scope);
    return {
      kueueVersion: r.kueue.version,
      kubeRayVersion: r.kubeRay.version,
      elasticGateEnabled: r.elasticGate === 'unknown' ? undefined : r.elasticGate === 'on',
    };
  }

  private constructor() {}
}

/** The capabilities in effect at `scope` (internal to the constructs). @internal */
export function resolveVersions(scope: IConstruct): ResolvedVersions {
  // Context values are whatever the app or cdk8s.yaml set: read as unknown.
  const kueue: unknown = scope.node.tryGetContext(KUEUE_KEY) ?? DEFAULT_KUEUE_VERSION;
  const kubeRay: unknown = scope.node.tryGetContext(KUBERAY_KEY) ?? DEFAULT_KUBERAY_VERSION;
  const gate: unknown = scope.node.tryGetContext(GATE_KEY);
  const where = `(context at '${scope.node.path || '<app>'}')`;
  let kueueCaps: KueueCapabilities;
  let kubeRayCaps: KubeRayCapabilities;
  try {
    kueueCaps = kueueCapabilities(String(kueue));
  } catch (e) {
    throw new Error(`${(e as Error).message} ${where}; supported: ${SUPPORTED_KUEUE_VERSIONS.join(', ')}`);
  }
  try {
    kubeRayCaps = kubeRayCapabilities(String(kubeRay));
  } catch (e) {
    throw new Error(`${(e as Error).message} ${where}; supported: ${SUPPORTED_KUBERAY_VERSIONS.join(', ')}`);
  }
  const elasticGate = gate === true || gate === 'true' ? 'on' : gate === false || gate === 'false' ? 'off' : 'unknown';
  return { kueue: kueueCaps, kubeRay: kubeRayCaps, elasticGate };
}
