import { ApiObject, JsonPatch } from 'cdk8s';
import { Construct, IConstruct } from 'constructs';
import { isDns1123Subdomain } from '../policy/k8s-names';
import { resolveVersions } from '../platform/versions';
import { checkedName } from './kueue-api-object';

/** A reference to a MultiKueueCluster. */
export interface IMultiKueueCluster extends IConstruct {
  /** metadata.name of the MultiKueueCluster. */
  readonly multiKueueClusterName: string;
}

/** Settings of a MultiKueueCluster: the Secret with the worker cluster's kubeconfig. */
export interface MultiKueueClusterProps {
  /**
   * metadata.name (at most 256 characters, v1beta2).
   * @default - the construct id
   */
  readonly name?: string;
  /**
   * Name of the Secret, in the namespace Kueue's controller runs in (kueue-system), whose key
   * `kubeconfig` holds the kubeconfig for the worker (scripts/multikueue-kubeconfig.sh creates it).
   * Only `locationType: Secret` is offered: `Path` reads a file of the controller's filesystem, which
   * Kueue v0.19 restricted after a file-read vulnerability.
   */
  readonly kubeconfigSecretName: string;
}

/**
 * A Kueue MultiKueueCluster (cluster-scoped, on the manager): one worker cluster, reached with the
 * kubeconfig in a Secret. The Secret itself is never synthesized: it holds a credential.
 */
export class MultiKueueCluster extends Construct implements IMultiKueueCluster {
  public readonly multiKueueClusterName: string;
  /** The Secret, in Kueue's namespace, that holds the worker's kubeconfig. */
  public readonly kubeconfigSecretName: string;
  /** The MultiKueueCluster object as synthesized: add fields Kueue accepts that no prop covers with `addJsonPatch`. */
  public readonly apiObject: ApiObject;

  public constructor(scope: Construct, id: string, props: MultiKueueClusterProps) {
    super(scope, id);
    const caps = resolveVersions(this).kueue;
    this.multiKueueClusterName = checkedName(this, 'MultiKueueCluster', props.name ?? id);
    const where = `MultiKueueCluster '${this.node.path}'`;
    const secret = props.kubeconfigSecretName;
    if (!isDns1123Subdomain(secret)) {
      throw new Error(`${where}: spec kubeConfig.location "${secret}" is not a valid Secret name. Fix: pass kubeconfigSecretName, the Secret in `
        + 'kueue-system holding the worker\'s kubeconfig.');
    }
    if (this.multiKueueClusterName.length > 256) {
      throw new Error(`${where}: metadata.name is longer than 256 characters. Fix: a shorter name.`);
    }
    this.kubeconfigSecretName = secret;
    const kubeConfig = { locationType: 'Secret', location: secret };
    // v1beta2 (0.16+) moved kubeConfig under clusterSource (beside clusterProfileRef).
    const spec = caps.apiVersion === 'kueue.x-k8s.io/v1beta1' ? { kubeConfig } : { clusterSource: { kubeConfig } };
    this.apiObject = new ApiObject(this, 'Resource', {
      apiVersion: caps.apiVersion, kind: 'MultiKueueCluster', metadata: { name: this.multiKueueClusterName }, spec,
    });
    if (this.apiObject.metadata.namespace !== undefined) this.apiObject.addJsonPatch(JsonPatch.remove('/metadata/namespace'));
  }
}
