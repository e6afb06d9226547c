import { ApiObject, JsonPatch } from 'cdk8s';
import { lazyToken } from '../platform/lazy';
import { Construct } from 'constructs';
import { isDns1123Label, isDns1123Subdomain } from '../policy/k8s-names';
import { TENANT_LABEL, tenantAnnotations } from '../policy/tenant';
import {
  KUEUE_MANAGED_NAMESPACE_LABEL, TENANT_RAY_POLICY, TENANT_RESOURCE_QUOTA, TENANT_SERVE_POLICY, tenantNetworkPolicies, tenantResourceQuotaHard,
} from '../policy/tenant-namespace';
import { KUBERAY_OPERATOR_SERVICE_ACCOUNT } from '../policy/writers';
import { AppInventory, InventoryEntry } from '../platform/inventory';
import {
  ClusterQueue, IClusterQueue, NamespaceSelector, PreemptionOptions, QueueingStrategy, ReclaimWithinCohortPolicy, WithinClusterQueuePolicy,
} from './cluster-queue';
import { ICohort } from './cohort';
import { ILocalQueue, LocalQueue } from './local-queue';
import { ResourceGroup } from './resource-group';
import { IWorkloadPriorityClass } from './workload-priority-class';

/** Settings of a tenant: its namespace, quota or shared ClusterQueue, and the priority classes it may use. */
export interface TenantQueueProps {
  /** The tenant's namespace. */
  readonly namespace: string;
  /**
   * Create the Namespace object. Set false for a namespace that already exists: the chart then still
   * writes the tenant label and rule annotations on it (a Namespace object with only those, which a
   * server-side apply merges into the existing one, leaving its other labels alone). Without the label
   * the controller's webhooks would not see the namespace at all.
   * @default true
   */
  readonly createNamespace?: boolean;
  /**
   * Extra labels for a created Namespace.
   * @default - only the tenant label
   */
  readonly namespaceLabels?: Record<string, string>;
  /**
   * Name of the tenant's LocalQueue. "default" also makes Kueue's LocalQueueDefaulting label every
   * new Ray object of the namespace with this queue, and, with `manageAllWorkloads`, every new Pod,
   * Job, Deployment and StatefulSet. Under another name, those workloads stay suspended (Jobs) or
   * gated (Pods) until they carry the `kueue.x-k8s.io/queue-name` label themselves.
   * @default "default"
   */
  readonly queueName?: string;
  /**
   * A shared ClusterQueue to submit to. Give either this or `resourceGroups`.
   * @default - the tenant gets its own ClusterQueue from `resourceGroups`
   */
  readonly clusterQueue?: IClusterQueue;
  /**
   * The tenant's own quota: creates a ClusterQueue admitting only this namespace.
   * @default - none (then `clusterQueue` is required)
   */
  readonly resourceGroups?: ResourceGroup[];
  /**
   * Cohort of the tenant's own ClusterQueue, to borrow and lend.
   * @default - no cohort
   */
  readonly cohort?: ICohort;
  /**
   * Name of the tenant's own ClusterQueue.
   * @default - the namespace name
   */
  readonly clusterQueueName?: string;
  /**
   * Preemption of the tenant's own ClusterQueue.
   * @default - within the queue, lower priority is preempted; lent quota is reclaimed from lower priority
   */
  readonly preemption?: PreemptionOptions;
  /**
   * Queueing strategy of the tenant's own ClusterQueue.
   * @default QueueingStrategy.BEST_EFFORT_FIFO
   */
  readonly queueingStrategy?: QueueingStrategy;
  /**
   * Priority class Ray workloads in this queue get when they name none.
   * @default - none
   */
  readonly defaultPriorityClass?: IWorkloadPriorityClass;
  /**
   * The only priority classes workloads of this tenant may use (recorded for the controller too).
   * @default - any
   */
  readonly allowedPriorityClasses?: IWorkloadPriorityClass[];
  /**
   * Kubernetes PriorityClasses the tenant's pod templates may name in `priorityClassName`. Kueue takes
   * a Workload's priority from the pod template when no WorkloadPriorityClass label is set, and the
   * kube-scheduler preempts pods by it, so the controller refuses any other class in this namespace.
   * @default - none: pod templates of the tenant's Ray objects may not set priorityClassName
   */
  readonly allowedPodPriorityClasses?: string[];
  /**
   * Kueue manages every workload of the namespace, not only Ray objects: the Namespace gets the label
   * `cdk8s-kueue-ray.io/kueue-managed: "true"`, which the app's KueueInstall selects with
   * `managedJobsNamespaceSelector` and `manageJobsWithoutQueueName: true` (with the pod, batch/job,
   * deployment and statefulset integrations). A bare Pod, a Job, a Deployment's or a StatefulSet's pods
   * made by the team are then gated or suspended until Kueue admits them against the tenant's quota
   * (queued in the LocalQueue when it is named "default"; see `queueName`), like its Ray workloads. A
   * team's web servers and other long-running pods in the namespace hold quota for as long as they run.
   * With Kueue installed elsewhere, set KueueInstall's `manageTenantNamespaces` there. Kueue filters every
   * job by that selector, queue-named or not, so an app that also queues jobs outside TenantQueue
   * namespaces (a LocalQueue in `default`) sets this to false: KueueInstall refuses the mix at synth.
   * @default true
   */
  readonly manageAllWorkloads?: boolean;
  /**
   * A ResourceQuota in the namespace capping its pods' requests at the most the tenant can ever be
   * admitted (per resource, over all flavors: nominal quota plus borrowing limit; with no borrowing limit,
   * the cohort's total as the app defines it): a backstop for pods Kueue does not manage. Every pod of the
   * namespace must then state requests for the resources the ClusterQueue covers (the API server refuses
   * one that does not), and pods waiting at Kueue's gate count against it.
   * @default true
   */
  readonly resourceQuota?: boolean;
  /**
   * NetworkPolicies that let the namespace's Ray pods accept traffic only from pods of the same
   * namespace, from the KubeRay operator (dashboard port), from `metricsScraperNamespaces` (Ray's metrics
   * port 8080), and on the serve port (8000) of the pods a RayService's serve Service targets. They are
   * enforced only where the cluster runs a NetworkPolicy provider.
   * @default true
   */
  readonly networkPolicies?: boolean;
  /**
   * Namespaces of the Prometheus that scrapes the Ray pods' metrics port (with `networkPolicies`).
   * @default ["monitoring"]
   */
  readonly metricsScraperNamespaces?: string[];
  /**
   * Namespace of the KubeRay operator, whose pods may reach the Ray dashboards (with `networkPolicies`).
   * @default - the app's KubeRayInstall's namespace, else "kuberay-system"
   */
  readonly kubeRayOperatorNamespace?: string;
}

/**
 * The multi-tenant unit: a namespace plus its LocalQueue bound to a ClusterQueue (shared, or the
 * tenant's own in a cohort), with default and allowed priority classes.
 */
export class TenantQueue extends Construct implements ILocalQueue {
  public readonly localQueueName: string;
  public readonly namespace: string;
  /** The LocalQueue in the tenant's namespace that the tenant's jobs name. */
  public readonly localQueue: LocalQueue;
  /** The ClusterQueue the tenant submits to (its own, or the shared one). */
  public readonly clusterQueue: IClusterQueue;
  /** The tenant's own ClusterQueue, when it has one. */
  public readonly ownClusterQueue?: ClusterQueue;
  public readonly defaultPriorityClass?: IWorkloadPriorityClass;
  /** The priority classes the tenant may use; the webhook refuses others. */
  public readonly allowedPriorityClasses: IWorkloadPriorityClass[];
  /** The Namespace object (with createNamespace false, only the tenant label and rule annotations). */
  public readonly namespaceObject: ApiObject;
  /** Whether Kueue manages every workload of the namespace (the `manageAllWorkloads` prop). */
  public readonly manageAllWorkloads: boolean;
  /** The ResourceQuota capping the namespace at the most the tenant can be admitted, unless `resourceQuota` is false. */
  public readonly resourceQuota?: ApiObject;
  /** The NetworkPolicies around the namespace's Ray pods (none when `networkPolicies` is false). */
  public readonly networkPolicies: ApiObject[];
  private hardMemo?: { version: number; hard: Record<string, string> | undefined };

  public constructor(scope: Construct, id: string, props: TenantQueueProps) {
    super(scope, id);
    const where = `TenantQueue '${this.node.path}'`;
    if (!isDns1123Label(props.namespace)) {
      throw new Error(`${where}: namespace "${props.namespace}" is not a valid namespace name (DNS-1123 label). Fix: use lowercase `
        + 'letters, digits and "-".');
    }
    if (!!props.clusterQueue === !!props.resourceGroups) {
      throw new Error(`${where}: give exactly one of 'clusterQueue' (a shared ClusterQueue) or 'resourceGroups' (the tenant's own quota).`);
    }
    if (props.clusterQueue && (props.cohort || props.clusterQueueName || props.preemption || props.queueingStrategy)) {
      throw new Error(`${where}: 'cohort', 'clusterQueueName', 'preemption' and 'queueingStrategy' configure the tenant's own ClusterQueue; with a `
        + 'shared \'clusterQueue\' they would be ignored. Fix: set them on the shared ClusterQueue instead.');
    }
    const allowed = props.allowedPriorityClasses ?? [];
    const defaultName = props.defaultPriorityClass?.workloadPriorityClassName;
    if (defaultName !== undefined && allowed.length && !allowed.some((a) => a.workloadPriorityClassName === defaultName)) {
      throw new Error(`${where}: defaultPriorityClass "${defaultName}" is not in allowedPriorityClasses `
        + `(${allowed.map((a) => a.workloadPriorityClassName).join(', ')}). Fix: add it to the allowed list.`);
    }
    this.namespace = props.namespace;
    this.defaultPriorityClass = props.defaultPriorityClass;
    this.allowedPriorityClasses = [...allowed];
    this.localQueueName = props.queueName ?? 'default';
    if (!isDns1123Subdomain(this.localQueueName)) throw new Error(`${where}: queueName "${this.localQueueName}" is not a valid name.`);

    for (const c of props.allowedPodPriorityClasses ?? []) {
      if (!isDns1123Subdomain(c)) throw new Error(`${where}: allowedPodPriorityClasses entry "${c}" is not a valid PriorityClass name. Fix: use `
        + 'the PriorityClass\'s metadata.name.');
    }
    const rules = {
      allowedPriorityClasses: allowed.length ? allowed.map((a) => a.workloadPriorityClassName) : undefined,
      defaultPriorityClass: props.defaultPriorityClass?.workloadPriorityClassName,
      allowedPodPriorityClasses: props.allowedPodPriorityClasses?.length ? [...props.allowedPodPriorityClasses] : undefined,
    };
    this.manageAllWorkloads = props.manageAllWorkloads ?? true;
    const labels: Record<string, string> = { ...(props.namespaceLabels ?? {}), [TENANT_LABEL]: props.namespace };
    if (this.manageAllWorkloads) {
      labels[KUEUE_MANAGED_NAMESPACE_LABEL] = 'true';
      AppInventory.of(this).kueueManagedNamespaces.push(props.namespace);
    }
    // A raw ApiObject: cdk8s-plus's Namespace would add three selector constructs to a tree cdk8s walks once per chart.
    // The empty spec is kept, so the manifest is the one cdk8s-plus wrote. Created first, it is written before the
    // tenant's namespaced objects by construct order alone: node dependencies would cost cdk8s a resolution of each,
    // for every chart of the app (docs/dev/benchmarks.md).
    this.namespaceObject = new ApiObject(this, 'Namespace', { apiVersion: 'v1', kind: 'Namespace',
      metadata: { name: props.namespace, labels, annotations: tenantAnnotations(rules) }, spec: {} });
    if (this.namespaceObject.metadata.namespace !== undefined) this.namespaceObject.addJsonPatch(JsonPatch.remove('/metadata/namespace'));
    // An existing namespace's other labels are unknown to the app: only a created one is in the inventory.
    if (props.createNamespace ?? true) {
      AppInventory.of(this).register({ node: this.node, _inventoryEntry: (): InventoryEntry => ({ kind: 'Namespace', entry: { name: props.namespace,
        labels: { ...labels, 'kubernetes.io/metadata.name': props.namespace }, annotations: tenantAnnotations(rules) } }) });
    }

    if (props.resourceGroups) {
      this.ownClusterQueue = new ClusterQueue(this, 'ClusterQueue', {
        name: props.clusterQueueName ?? props.namespace,
        resourceGroups: props.resourceGroups,
        cohort: props.cohort,
        namespaceSelector: NamespaceSelector.names([props.namespace]),
        queueingStrategy: props.queueingStrategy,
        preemption: props.preemption ?? {
          withinClusterQueue: WithinClusterQueuePolicy.LOWER_PRIORITY,
          reclaimWithinCohort: props.cohort ? ReclaimWithinCohortPolicy.LOWER_PRIORITY : undefined,
        },
      });
      this.clusterQueue = this.ownClusterQueue;
    } else {
      this.clusterQueue = props.clusterQueue!;
    }
    this.localQueue = new LocalQueue(this, 'LocalQueue', {
      name: this.localQueueName, namespace: props.namespace, clusterQueue: this.clusterQueue, annotations: tenantAnnotations(rules),
      // Tenancy is keyed on this label (and the Namespace's), never on the optional rule annotations.
      labels: { [TENANT_LABEL]: props.namespace },
    });
    this.localQueue._tenant = rules;

    this.resourceQuota = (props.resourceQuota ?? true) ? this.addResourceQuota(where) : undefined;
    this.networkPolicies = (props.networkPolicies ?? true) ? this.addNetworkPolicies(props, where) : [];
  }

  /** The ResourceQuota at the most the tenant can be admitted. */
  private addResourceQuota(where: string): ApiObject {
    const rq = new ApiObject(this, 'ResourceQuota', {
      apiVersion: 'v1', kind: 'ResourceQuota',
      metadata: { name: TENANT_RESOURCE_QUOTA, namespace: this.namespace, labels: { [TENANT_LABEL]: this.namespace } },
      // The cohort's other ClusterQueues may be constructed after this one: read at synth.
      spec: lazyToken(() => ({ hard: this.resourceQuotaHard() ?? {} })),
    });
    this.node.addValidation({ validate: () => (this.resourceQuotaHard() ? [] : [`${where}: resourceQuota needs the quota of ClusterQueue `
      + `"${this.clusterQueue.clusterQueueName}", which this app does not define. Fix: pass a ClusterQueue defined in the app, or set `
      + 'resourceQuota: false (then pods Kueue does not manage are not capped).']) });
    return rq;
  }

  /** The NetworkPolicies around the namespace's Ray pods. */
  private addNetworkPolicies(props: TenantQueueProps, where: string): ApiObject[] {
    for (const n of props.metricsScraperNamespaces ?? []) {
      if (!isDns1123Label(n)) throw new Error(`${where}: metricsScraperNamespaces entry "${n}" is not a valid namespace name. `
        + 'Fix: use the namespace of the Prometheus pods.');
    }
    const operatorNs = props.kubeRayOperatorNamespace;
    if (operatorNs !== undefined && !isDns1123Label(operatorNs)) {
      throw new Error(`${where}: kubeRayOperatorNamespace "${operatorNs}" is not a valid namespace name. Fix: use the KubeRay operator's namespace.`);
    }
    // The operator's namespace comes from a KubeRayInstall that may be constructed after this: read at synth.
    const input = () => ({ namespace: this.namespace, operatorPodLabels: KUBERAY_OPERATOR_POD_LABELS,
      operatorNamespace: operatorNs ?? kubeRayInstallNamespace(this) ?? KUBERAY_OPERATOR_SERVICE_ACCOUNT.namespace,
      metricsScraperNamespaces: props.metricsScraperNamespaces ?? ['monitoring'] });
    this.node.addValidation({ validate: () => {
      const found = operatorNs === undefined ? kubeRayInstallNamespaces(this) : [];
      return found.length > 1 ? [`${where}: the app's KubeRayInstalls run the operator in ${found.join(', ')}; the NetworkPolicies let one `
        + 'namespace\'s operator reach the Ray dashboards. Fix: set kubeRayOperatorNamespace.'] : [];
    } });
    return [TENANT_RAY_POLICY, TENANT_SERVE_POLICY].map((name) => {
      const obj = new ApiObject(this, name, {
        apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy',
        metadata: { name, namespace: this.namespace, labels: { [TENANT_LABEL]: this.namespace } },
        spec: lazyToken(() => tenantNetworkPolicies(input()).find((x) => x.metadata.name === name)!.spec),
      });
      return obj;
    });
  }

  /**
   * spec.hard of the ResourceQuota, or undefined when the ClusterQueue's quota is not in the app. Memoized per
   * inventory version: cdk8s validates the whole app again for every chart it writes.
   */
  private resourceQuotaHard(): Record<string, string> | undefined {
    const registry = AppInventory.of(this);
    const version = registry.version;
    if (this.hardMemo?.version === version) return this.hardMemo.hard;
    const inv = registry.snapshot();
    const cq = inv.clusterQueues.find((c) => c.name === this.clusterQueue.clusterQueueName);
    const hard = cq ? tenantResourceQuotaHard(cq, inv) : undefined;
    this.hardMemo = { version, hard };
    return hard;
  }
}

/** The KubeRay operator pods' labels, as KubeRayInstall writes them (its Deployment's pod labels carry this name). */
const KUBERAY_OPERATOR_POD_LABELS = { 'app.kubernetes.io/name': KUBERAY_OPERATOR_SERVICE_ACCOUNT.name };

/** The operator namespaces of the app's KubeRayInstalls. */
function kubeRayInstallNamespaces(scope: Construct): string[] {
  return [...new Set(AppInventory.of(scope).kubeRayOperatorNamespaces)].sort();
}

/** The namespace of the app's KubeRayInstall, when it has exactly one. */
function kubeRayInstallNamespace(scope: Construct): string | undefined {
  const namespaces = kubeRayInstallNamespaces(scope);
  return namespaces.length === 1 ? namespaces[0] : undefined;
}
