import { ApiObject, JsonPatch } from 'cdk8s';
import { lazyToken } from '../platform/lazy';
import { Construct } from 'constructs';
import { resolveVersions } from '../platform/versions';
import { checkedName } from './kueue-api-object';
import { IMultiKueueCluster } from './multikueue-cluster';

/** Settings of a MultiKueueConfig: the worker clusters a MultiKueue check dispatches to. */
export interface MultiKueueConfigProps {
  /**
   * metadata.name; an AdmissionCheck names it in spec.parameters, so at most 63 characters.
   * @default - the construct id
   */
  readonly name?: string;
  /**
   * The worker clusters, most preferred first (v0.19's incremental dispatcher nominates in this order).
   * More with addCluster().
   * @default - none (then add at least one with addCluster())
   */
  readonly clusters?: IMultiKueueCluster[];
}

/** A Kueue MultiKueueConfig (cluster-scoped, on the manager): the worker clusters a MultiKueue check dispatches to. */
export class MultiKueueConfig extends Construct {
  /** metadata.name, as AdmissionCheck parameters reference it. */
  public readonly multiKueueConfigName: string;
  /** The MultiKueueConfig object as synthesized: add fields Kueue accepts that no prop covers with `addJsonPatch`. */
  public readonly apiObject: ApiObject;
  private readonly clusters: IMultiKueueCluster[] = [];

  public constructor(scope: Construct, id: string, props: MultiKueueConfigProps = {}) {
    super(scope, id);
    const caps = resolveVersions(this).kueue;
    this.multiKueueConfigName = checkedName(this, 'MultiKueueConfig', props.name ?? id);
    const where = `MultiKueueConfig '${this.node.path}'`;
    if (this.multiKueueConfigName.length > 63 || this.multiKueueConfigName.includes('.')) {
      throw new Error(`${where}: metadata.name "${this.multiKueueConfigName}" must be a DNS-1123 label of at most 63 characters (an AdmissionCheck's `
        + 'spec.parameters.name). Fix: a shorter name without dots.');
    }
    for (const c of props.clusters ?? []) this.addCluster(c);
    this.apiObject = new ApiObject(this, 'Resource', {
      apiVersion: caps.apiVersion, kind: 'MultiKueueConfig', metadata: { name: this.multiKueueConfigName },
      spec: { clusters: lazyToken(() => this.clusterNames) },
    });
    if (this.apiObject.metadata.namespace !== undefined) this.apiObject.addJsonPatch(JsonPatch.remove('/metadata/namespace'));
    this.node.addValidation({
      validate: () => (this.clusters.length ? []
        : [`${where}: spec.clusters is empty (Kueue requires 1 to ${caps.multiKueueMaxClusters}). Fix: pass clusters or call addCluster().`]),
    });
  }

  /** Names of the worker clusters, in order. */
  public get clusterNames(): string[] {
    return this.clusters.map((c) => c.multiKueueClusterName);
  }

  /** Adds a worker cluster (the last, least preferred). */
  public addCluster(cluster: IMultiKueueCluster): void {
    const caps = resolveVersions(this).kueue;
    const where = `MultiKueueConfig '${this.node.path}'`;
    if (this.clusters.some((c) => c.multiKueueClusterName === cluster.multiKueueClusterName)) {
      throw new Error(`${where}: spec.clusters lists "${cluster.multiKueueClusterName}" twice (Kueue: must be unique). Fix: add each `
        + 'MultiKueueCluster once.');
    }
    if (this.clusters.length >= caps.multiKueueMaxClusters) {
      throw new Error(`${where}: spec.clusters holds at most ${caps.multiKueueMaxClusters} clusters on Kueue ${caps.version}. Fix: split the workers `
        + 'over two MultiKueue checks (two ClusterQueues).');
    }
    this.clusters.push(cluster);
  }
}
