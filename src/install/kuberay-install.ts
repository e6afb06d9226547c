import * as path from 'path';
import { ApiObject, ApiObjectProps, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { KUBERAY_OPERATOR_SERVICE_ACCOUNT } from '../policy/writers';
import type { ServiceAccountReference } from '../platform/service-account';
import { parseAllDocuments } from 'yaml';
import { AppInventory } from '../platform/inventory';
import { KubeRayVersion, resolveVersions } from '../platform/versions';
import { KUBERAY_VERSION_ANNOTATION, kubeRayCapabilities } from '../policy/versions';
import { ContainerResources, renderResources } from '../platform/container-resources';
import { readRelease } from './release-source';
import { synthError } from './synth-error';
import { KUBERAY_CLUSTER_ROLE_RULES, KUBERAY_CRDS, KUBERAY_LEADER_ELECTION_RULES, KUBERAY_SOURCES_URL, KUBERAY_SOURCES_URL_ENV,
  kubeRayCrdUrl } from './releases';
import type { FlavorToleration } from '../platform/toleration';
import { placementFields } from './placement';
import { priorityClassField } from './priority';
import { ContainerImage, installImage, pullSecretsField } from './image';

/** Settings of the KubeRay operator install: release source, image, namespace, batch scheduler and Helm-level settings. */
export interface KubeRayInstallProps {
  /**
   * KubeRay release to install.
   * @default - the app's KubeRay version (KueueRayVersions)
   */
  readonly version?: KubeRayVersion;
  /**
   * A local folder holding the release's `ray.io_*.yaml` CRDs (tests, a patched copy).
   * @default - the copies the package carries (no network; verified against the sha256 pinned in the library), unless
   * `sourcesUrl` or $CDK8S_KUEUE_RAY_KUBERAY_SOURCES_URL asks for a download
   */
  readonly crdDir?: string;
  /**
   * Base URL of KubeRay's tagged sources: each CRD is downloaded from
   * `<sourcesUrl>/<tag>/ray-operator/config/crd/bases/<file>` instead of using the package's copy (a
   * mirror, or a local server in tests), and verified against the same pinned sha256.
   * @default - $CDK8S_KUEUE_RAY_KUBERAY_SOURCES_URL, else the package's copies, else "https://raw.githubusercontent.com/ray-project/kuberay"
   */
  readonly sourcesUrl?: string;
  /**
   * Where downloads are cached.
   * @default "~/.cache/cdk8s-kueue-ray" (or $CDK8S_KUEUE_RAY_CACHE)
   */
  readonly cacheDir?: string;
  /**
   * Namespace of the operator (created by the install).
   * @default "kuberay-system"
   */
  readonly namespace?: string;
  /**
   * Namespaces the operator watches (`--watch-namespace`).
   * @default - all namespaces
   */
  readonly watchNamespaces?: string[];
  /**
   * Operator feature gates (`--feature-gates`).
   * @default - the operator's defaults
   */
  readonly featureGates?: Record<string, boolean>;
  /**
   * The operator's image (the Helm chart's `image.repository` and `image.tag`).
   * @default - the release's, "quay.io/kuberay/operator:<version>" (from the ImageRegistry mirror when one is set)
   */
  readonly image?: ContainerImage;
  /**
   * Secrets (docker-registry, in the operator's namespace) the operator's pods pull their image with (the Helm chart's `imagePullSecrets`).
   * @default - none
   */
  readonly imagePullSecrets?: string[];
  /**
   * Operator resources.
   * @default - the chart's: 100m CPU / 512Mi (limits = requests)
   */
  readonly resources?: ContainerResources;
  /**
   * Operator replicas (leader election keeps one active).
   * @default 1
   */
  readonly replicas?: number;
  /**
   * PriorityClass of the operator pods ('' for none). The queue system must outrank the workloads it
   * queues, or a node full of Ray pods leaves a restarted operator Pending.
   * @default "system-cluster-critical"
   */
  readonly priorityClassName?: string;
  /**
   * The operator's control-plane metrics (`--enable-metrics`: kuberay_cluster_*, kuberay_job_*,
   * kuberay_service_* on the `http` port's /metrics).
   * @default true
   */
  readonly enableMetrics?: boolean;
  /**
   * A batch scheduler the operator hands Ray pods to (`--batch-scheduler`): "volcano", "yunikorn",
   * "scheduler-plugins", or from KubeRay v1.5 "kai-scheduler". The scheduler itself is installed
   * separately; the operator's ClusterRole gets the PodGroup rules the Helm chart gives it.
   * Kueue still admits the whole cluster first: the scheduler only places the admitted pods.
   * @default - none (the default kube-scheduler)
   */
  readonly batchScheduler?: string;
  /**
   * nodeSelector of the operator pods.
   * @default - none
   */
  readonly nodeSelector?: Record<string, string>;
  /**
   * Tolerations of the operator pods.
   * @default - none
   */
  readonly tolerations?: FlavorToleration[];
}

// The PodGroup rules the Helm chart adds for a batch scheduler that needs them (templates/_helpers.tpl).
const BATCH_SCHEDULER_RULES: Record<string, Record<string, unknown>> = {
  'volcano': { apiGroups: ['scheduling.volcano.sh'], resources: ['podgroups'], verbs: ['create', 'delete', 'get', 'list', 'update', 'watch'] },
  'scheduler-plugins': { apiGroups: ['scheduling.x-k8s.io'], resources: ['podgroups'], verbs: ['create', 'get', 'list', 'watch'] },
};

const NAME = KUBERAY_OPERATOR_SERVICE_ACCOUNT.name;

/**
 * Installs the KubeRay operator: the CRDs of the chosen version, plus the operator written as
 * constructs that mirror the Helm chart's defaults (Deployment, ServiceAccount, ClusterRole and
 * binding with the chart's rules, leader-election Role and binding, Service; hardened security
 * context, /metrics probes, leader election on), its Deployment annotated with the version. No webhook, no batch scheduler: Kueue needs neither.
 */
export class KubeRayInstall extends Chart {
  /** The KubeRay release installed, e.g. "v1.6.2". */
  public readonly version: string;
  /** The namespace the operator runs in. */
  public readonly operatorNamespace: string;
  /** KubeRay's CustomResourceDefinitions (RayCluster, RayJob, RayService, ...) of that release. */
  public readonly crds: ApiObject[] = [];
  /** The operator's Deployment. */
  public readonly deployment: ApiObject;
  /** The ClusterRole the operator is bound to. */
  public readonly clusterRole: ApiObject;
  /** The Role the operator uses for leader election in its namespace. */
  public readonly leaderElectionRole: ApiObject;
  /** The operator's ServiceAccount (give it to AdmissionController as kubeRayServiceAccount). */
  public get serviceAccount(): ServiceAccountReference {
    return { namespace: this.operatorNamespace, name: NAME };
  }
  /** Whether the operator serves its kuberay_* metrics (`enableMetrics`). */
  public readonly metricsEnabled: boolean;

  public constructor(scope: Construct, id: string, props: KubeRayInstallProps = {}) {
    super(scope, id, { disableResourceNameHashes: true });
    this.version = props.version?.version ?? resolveVersions(this).kubeRay.version;
    const caps = kubeRayCapabilities(this.version);
    const where = `KubeRayInstall '${this.node.path}'`;
    const ns = (this.operatorNamespace = props.namespace ?? KUBERAY_OPERATOR_SERVICE_ACCOUNT.namespace);
    AppInventory.of(this).kubeRayOperatorNamespaces.push(ns);
    if (props.replicas !== undefined && (!Number.isInteger(props.replicas) || props.replicas < 1)) throw synthError(
      `${where}: replicas ${props.replicas} must be a whole number >= 1.`);
    if (props.batchScheduler !== undefined && !caps.batchSchedulers.includes(props.batchScheduler)) {
      throw synthError(`${where}: batchScheduler '${props.batchScheduler}' is not one KubeRay ${this.version} knows; the operator would not `
        + `start ("scheduler is not supported"). Fix: one of ${caps.batchSchedulers.join(', ')}, or leave it unset.`);
    }
    const placement = placementFields(props.nodeSelector, props.tolerations, where);
    this.loadCrds(props, where);

    const labels = { 'app.kubernetes.io/name': NAME, 'app.kubernetes.io/instance': NAME, 'app.kubernetes.io/component': NAME };
    const meta = (name: string, namespaced = true) => ({ name, labels: { ...labels }, ...(namespaced ? { namespace: ns } : {}) });
    new ApiObject(this, 'namespace', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    new ApiObject(this, 'service-account', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(NAME) });
    this.clusterRole = new ApiObject(this, 'cluster-role', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole',
      metadata: meta(NAME, false),
      rules: [...KUBERAY_CLUSTER_ROLE_RULES[this.version], ...(props.batchScheduler && BATCH_SCHEDULER_RULES[props.batchScheduler]
        ? [BATCH_SCHEDULER_RULES[props.batchScheduler]] : [])] });
    new ApiObject(this, 'cluster-role-binding', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: meta(NAME, false),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: NAME },
      subjects: [{ kind: 'ServiceAccount', name: NAME, namespace: ns }],
    });
    this.leaderElectionRole = new ApiObject(this, 'leader-election-role',
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: meta(`${NAME}-leader-election`), rules: KUBERAY_LEADER_ELECTION_RULES });
    new ApiObject(this, 'leader-election-role-binding', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: meta(`${NAME}-leader-election`),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${NAME}-leader-election` },
      subjects: [{ kind: 'ServiceAccount', name: NAME, namespace: ns }],
    });

    const args = ['--log-stdout-encoder', 'json', '--log-file-encoder', 'json', '--enable-leader-election=true',
      `--enable-metrics=${(this.metricsEnabled = props.enableMetrics ?? true)}`];
    if (props.batchScheduler) args.push(`--batch-scheduler=${props.batchScheduler}`);
    const gates = props.featureGates ?? {};
    if (Object.keys(gates).length) args.unshift(`--feature-gates=${Object.keys(gates).sort().map((k) => `${k}=${gates[k]}`).join(',')}`);
    if (props.watchNamespaces?.length) args.push('--watch-namespace', props.watchNamespaces.join(','));
    const probe = { httpGet: { path: '/metrics', port: 'http' }, initialDelaySeconds: 10, periodSeconds: 5, failureThreshold: 5 };
    this.deployment = new ApiObject(this, 'deployment', {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { ...meta(NAME), annotations: { [KUBERAY_VERSION_ANNOTATION]: this.version } },
      spec: {
        replicas: props.replicas ?? 1, strategy: { type: 'Recreate' },
        selector: { matchLabels: { 'app.kubernetes.io/name': NAME, 'app.kubernetes.io/instance': NAME } },
        template: {
          metadata: { labels: { ...labels } },
          spec: {
            serviceAccountName: NAME,
            ...priorityClassField(props.priorityClassName, where),
            ...placement,
            ...pullSecretsField(props.imagePullSecrets, where),
            securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
            terminationGracePeriodSeconds: 10,
            containers: [{
              name: NAME, image: installImage(this, caps.operatorImage, props.image, where), imagePullPolicy: 'IfNotPresent',
              command: ['/manager'], args,
              ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
              livenessProbe: probe, readinessProbe: probe,
              resources: props.resources ? renderResources(props.resources, `${where} resources`)
                : { limits: { cpu: '100m', memory: '512Mi' }, requests: { cpu: '100m', memory: '512Mi' } },
              securityContext: {
                allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true,
                capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' },
              },
            }],
          },
        },
      },
    });
    new ApiObject(this, 'service', {
      apiVersion: 'v1', kind: 'Service', metadata: meta(NAME),
      spec: { type: 'ClusterIP', selector: { 'app.kubernetes.io/name': NAME, 'app.kubernetes.io/instance': NAME },
        ports: [{ name: 'http', port: 8080, targetPort: 'http', protocol: 'TCP' }] },
    });
  }

  /** The CRDs of the version: the local folder, else the package's copies, else verified downloads (cached). */
  private loadCrds(props: KubeRayInstallProps, where: string): void {
    const mirror = props.sourcesUrl ?? process.env[KUBERAY_SOURCES_URL_ENV];
    for (const [file, sha] of Object.entries(KUBERAY_CRDS[this.version])) {
      const text = readRelease({
        bundled: props.crdDir || mirror ? undefined : `kuberay/${this.version}/${file}`,
        localFile: props.crdDir ? path.join(props.crdDir, file) : undefined, url: kubeRayCrdUrl(this.version, file), sha256: sha,
        downloadUrl: kubeRayCrdUrl(this.version, file, mirror ?? KUBERAY_SOURCES_URL),
        cacheDir: props.cacheDir, what: `${where} (KubeRay ${this.version} ${file})`, localProp: 'crdDir',
        shaProp: 'library pin (KubeRay CRD sha256)',
        mirror: { prop: 'sourcesUrl', env: KUBERAY_SOURCES_URL_ENV, layout: `${this.version}/ray-operator/config/crd/bases/${file}` },
      });
      for (const doc of parseAllDocuments(text)) {
        const obj = doc.toJS() as ApiObjectProps | null;
        if (obj?.kind === 'CustomResourceDefinition') this.crds.push(new ApiObject(this, `crd-${obj.metadata!.name}`, obj));
      }
    }
  }
}
