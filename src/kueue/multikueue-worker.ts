import { ApiObject, JsonPatch } from 'cdk8s';
import { Construct, IConstruct } from 'constructs';
import { resolveVersions } from '../platform/versions';
import { rayKindNamed } from '../policy/kinds';
import { FIRST_KUEUE_VERSION } from '../policy/versions';
import { checkedName } from './kueue-api-object';

/** A worker cluster of MultiKueue, as the manager refers to it. */
export interface IMultiKueueWorker extends IConstruct {
  /** Name of the worker's MultiKueueCluster on the manager. */
  readonly clusterName: string;
  /** Secret in the manager's kueue-system namespace holding the worker's kubeconfig (key `kubeconfig`). */
  readonly kubeconfigSecretName: string;
}

/** Settings of a MultiKueue worker cluster: the name the manager knows it by and the identity the manager uses on it. */
export interface MultiKueueWorkerProps {
  /**
   * Name of this worker's MultiKueueCluster on the manager.
   * @default - the construct id
   */
  readonly clusterName?: string;
  /**
   * Name of the Secret on the manager (in kueue-system) that will hold this worker's kubeconfig.
   * @default "multikueue-<clusterName>"
   */
  readonly kubeconfigSecretName?: string;
  /**
   * ServiceAccount on the worker whose token the manager uses.
   * @default "multikueue-manager"
   */
  readonly serviceAccountName?: string;
  /**
   * Namespace of that ServiceAccount (it must exist before apply; Kueue's install creates kueue-system).
   * @default "kueue-system"
   */
  readonly serviceAccountNamespace?: string;
}

/**
 * The worker side of MultiKueue, placed in the worker cluster's app: the ServiceAccount the manager's
 * kubeconfig logs in as, and the least-privilege ClusterRole it needs there, for the worker's Kueue version.
 *
 * The rules are the ones Kueue's own MultiKueue e2e grants the manager (Workloads and their status, each
 * dispatched Ray kind and its status, and from v0.19 read access to the queues): test/e2e/multikueue/suite_test.go
 * at v0.14.8, test/util/multikueue.go (MultiKueueRulesForManager) at v0.17.0 and v0.19.2, limited to the Ray
 * kinds MultiKueue dispatches at that version. The upstream site script (create-multikueue-kubeconfig.sh) grants
 * the same for Jobs and JobSets. No token or kubeconfig is synthesized: scripts/multikueue-kubeconfig.sh
 * makes the manager's Secret from a short-lived token.
 */
export class MultiKueueWorker extends Construct implements IMultiKueueWorker {
  /** A worker defined outside this program: dispatched to, but its queues are not checked. */
  public static fromClusterName(scope: Construct, id: string, clusterName: string, kubeconfigSecretName: string): IMultiKueueWorker {
    return new ImportedWorker(scope, id, clusterName, kubeconfigSecretName);
  }

  public readonly clusterName: string;
  public readonly kubeconfigSecretName: string;
  /** The ServiceAccount the manager acts as on this worker. */
  public readonly serviceAccountName: string;
  /** Namespace of that ServiceAccount. */
  public readonly serviceAccountNamespace: string;
  /** The Kueue version of the worker (from KueueRayVersions at this scope). */
  public readonly kueueVersion: string;
  /** The ClusterRole granted to the ServiceAccount. */
  public readonly clusterRole: ApiObject;

  public constructor(scope: Construct, id: string, props: MultiKueueWorkerProps = {}) {
    super(scope, id);
    const caps = resolveVersions(this).kueue;
    this.clusterName = checkedName(this, 'MultiKueueCluster', props.clusterName ?? id);
    this.kubeconfigSecretName = checkedName(this, 'Secret', props.kubeconfigSecretName ?? `multikueue-${this.clusterName}`);
    this.serviceAccountName = checkedName(this, 'ServiceAccount', props.serviceAccountName ?? 'multikueue-manager');
    this.serviceAccountNamespace = checkedName(this, 'Namespace', props.serviceAccountNamespace ?? 'kueue-system');
    this.kueueVersion = caps.version;
    if (!caps.multiKueueRayKinds.length) {
      throw new Error(`MultiKueueWorker '${this.node.path}': this library offers MultiKueue from Kueue ${FIRST_KUEUE_VERSION.multiKueueRay} (the `
        + `first pinned version whose Ray adapters it checked), not ${caps.version}. Fix: choose KueueVersion.V0_14_8 or newer for the `
        + 'manager and its workers.');
    }
    const rbac = caps.multiKueueWorkerRbac;
    const rule = (apiGroup: string, resources: string[], verbs: readonly string[]) => ({ apiGroups: [apiGroup], resources, verbs: [...verbs] });
    const rayKinds = caps.multiKueueRayKinds.map((k) => rayKindNamed(k)!.plural);
    const rules = [
      rule('kueue.x-k8s.io', ['workloads'], rbac.objectVerbs),
      rule('kueue.x-k8s.io', ['workloads/status'], rbac.workloadStatusVerbs),
      ...(rbac.queueVerbs.length ? [rule('kueue.x-k8s.io', ['clusterqueues', 'localqueues'], rbac.queueVerbs)] : []),
      rule('ray.io', rayKinds, rbac.objectVerbs),
      rule('ray.io', rayKinds.map((p) => `${p}/status`), ['get']),
    ];
    const roleName = `${this.serviceAccountName}-${this.clusterName}`.slice(0, 253);
    new ApiObject(this, 'ServiceAccount', {
      apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: this.serviceAccountName, namespace: this.serviceAccountNamespace },
    });
    this.clusterRole = new ApiObject(this, 'ClusterRole', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: roleName }, rules,
    });
    const binding = new ApiObject(this, 'ClusterRoleBinding', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: roleName },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
      subjects: [{ kind: 'ServiceAccount', name: this.serviceAccountName, namespace: this.serviceAccountNamespace }],
    });
    // Cluster-scoped: no namespace even in a namespaced chart (cdk8s-core#731).
    for (const o of [this.clusterRole, binding]) if (o.metadata.namespace !== undefined) o.addJsonPatch(JsonPatch.remove('/metadata/namespace'));
  }
}

class ImportedWorker extends Construct implements IMultiKueueWorker {
  public constructor(scope: Construct, id: string, public readonly clusterName: string, public readonly kubeconfigSecretName: string) {
    super(scope, id);
  }
}
