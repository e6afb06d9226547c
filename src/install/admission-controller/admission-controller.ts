import * as fs from 'fs';
import * as path from 'path';
import { ApiObject, Chart, Duration } from 'cdk8s';
import { Construct } from 'constructs';
import { wholeSeconds } from '../../platform/duration';
import { resolveVersions } from '../../platform/versions';
import { RAY_API_GROUPS, RAY_API_VERSIONS, RAY_PLURALS } from '../../policy/kinds';
import { TENANT_LABEL } from '../../policy/tenant';
import {
  DEFAULT_TRUSTED_WRITERS, KUBERAY_OPERATOR_SERVICE_ACCOUNT, KUEUE_CONTROLLER_SERVICE_ACCOUNT, serviceAccountUser, TrustedWriters,
  untrustedRequestCel,
} from '../../policy/writers';
import { ContainerResources, renderResources } from '../../ray/pod-template';
import { priorityClassField } from '../priority';

export interface AdmissionControllerProps {
  /**
   * The controller image.
   * @default "ghcr.io/cdk8s-kueue-ray/controller:<version of this package>" (the image published with each release)
   */
  readonly image?: string;
  /**
   * Namespace of the controller (created, with the restricted Pod Security level enforced).
   * @default "cdk8s-kueue-ray-system"
   */
  readonly namespace?: string;
  /**
   * Replicas (leader election picks the reconciler; every replica serves the webhook).
   * @default 2
   */
  readonly replicas?: number;
  /**
   * Controller resources.
   * @default - 100m CPU / 128Mi requests, 500m CPU / 256Mi limits
   */
  readonly resources?: ContainerResources;
  /**
   * PriorityClass of the controller pods ('' for none). The queue system must outrank the workloads it
   * queues, or a node full of Ray pods leaves a restarted controller (and with it every tenant create) Pending.
   * @default "system-cluster-critical"
   */
  readonly priorityClassName?: string;
  /**
   * Validate Ray objects in every namespace, not only in tenant namespaces. Outside tenant namespaces
   * the validating webhook fails open (its errors are early, clearer versions of upstream's); in
   * tenant namespaces it always fails closed.
   * @default false (both webhooks are scoped to namespaces labelled by TenantQueue)
   */
  readonly validateAllNamespaces?: boolean;
  /**
   * Opt-in graceful preemption defaults for Ray pods (kuberay#5004).
   * @default - off
   */
  readonly gracefulPreemption?: GracefulPreemption;
  /**
   * Worker threads per replica that parse and decide AdmissionReviews while the main thread does TLS
   * and HTTP (`--admission-workers`). One keeps probes and TLS responsive while a large object is
   * parsed and isolates a pathological one (deadline, replacement); more only help with a CPU limit
   * above one core. 0 decides on the main thread.
   * @default 1
   */
  readonly admissionWorkers?: number;
  /**
   * Let cert-manager issue and renew the serving certificate instead of the controller. The
   * controller then reads the certificate from the mounted Secret (reloading it when cert-manager
   * renews it), cert-manager's CA injector writes the caBundle, and the controller's RBAC loses
   * Secrets and the webhook-configuration patches. Needs cert-manager (v1 API) installed.
   * @default - the controller issues, stores and renews its own certificates
   */
  readonly certManager?: CertManagerCertificates;
  /**
   * Ship a NetworkPolicy that admits ingress to the controller's pods only on the webhook port (from
   * `webhookSourceCidrs`) and on the metrics port (from `metricsScraperNamespaces`). Harmless where
   * no NetworkPolicy provider runs (the object is then not enforced); turn it off only when another
   * policy already governs the namespace.
   * @default true
   */
  readonly networkPolicy?: boolean;
  /**
   * Where the API server calls the webhook from. The API server usually runs outside the pod
   * network (host network, or a managed control plane), where no pod or namespace selector reaches
   * it, so the webhook port is open to every source unless you name its addresses here.
   * @default - any source, on the webhook port only
   */
  readonly webhookSourceCidrs?: string[];
  /**
   * PEM of the CA that signs the client certificate the API server presents to webhooks (configured
   * with the kube-apiserver's `--admission-control-config-file`: a WebhookAdmissionConfiguration whose
   * kubeConfigFile holds a client certificate for `*.svc`). With it the controller reviews only
   * requests that present such a certificate, so no pod can send it reviews, even from inside the
   * cluster. Shipped in a ConfigMap (a CA certificate is public).
   * @default - none: restrict the source with webhookSourceCidrs
   */
  readonly webhookClientCa?: string;
  /**
   * Namespaces whose pods may scrape `/metrics` (port 8080).
   * @default ["monitoring"]
   */
  readonly metricsScraperNamespaces?: string[];
  /**
   * Pod anti-affinity of the replicas across nodes. PREFERRED (the default with 2 or more replicas)
   * spreads them when there are nodes to spread over and lets them share a node otherwise, so no
   * replica stays Pending (and no `rollout status` hangs) on a one-node or cordoned cluster. REQUIRED
   * guarantees that one node's failure cannot take every replica, and with it every tenant create (the
   * mutating webhook fails closed); it needs at least `replicas` schedulable nodes, so the rollout then
   * replaces one pod at a time (maxSurge 0).
   * @default AntiAffinity.PREFERRED with 2 or more replicas, none with 1
   */
  readonly antiAffinity?: AntiAffinity;
  /**
   * With self-managed certificates, a ValidatingAdmissionPolicy (Kubernetes >= 1.30) that lets the
   * controller's ServiceAccount change nothing but the caBundle of its two webhook configurations.
   * RBAC can only name the objects; this narrows it to the field.
   * @default true (ignored with certManager, where the controller cannot write them at all)
   */
  readonly caBundleOnlyPolicy?: boolean;
  /**
   * KubeRay's operator. Its requests skip both webhooks (matchConditions), and it alone may create or
   * reshape the RayClusters a RayJob or RayService controls. Pass `KubeRayInstall.serviceAccount`.
   * @default - kuberay-operator in kuberay-system (KubeRayInstall's default)
   */
  readonly kubeRayServiceAccount?: ServiceAccountReference;
  /**
   * Kueue's controller manager: its requests (suspend, admission) skip both webhooks.
   * @default - kueue-controller-manager in kueue-system (Kueue's release)
   */
  readonly kueueServiceAccount?: ServiceAccountReference;
}

/** A ServiceAccount by namespace and name. */
export interface ServiceAccountReference {
  readonly namespace: string;
  readonly name: string;
}

/** How the controller's replicas spread across nodes. */
export enum AntiAffinity {
  /** Never two replicas on one node (needs as many schedulable nodes as replicas). */
  REQUIRED = 'required',
  /** Spread when the scheduler can; replicas may share a node. */
  PREFERRED = 'preferred',
}

/**
 * The image released with this package: tagged with its version, read from its package.json at run
 * time (one source of truth; lib/src/install/admission-controller and src/install/admission-controller sit at
 * different depths, so walk up).
 */
function defaultImage(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (pkg.name === 'cdk8s-kueue-ray') return `ghcr.io/cdk8s-kueue-ray/controller:${pkg.version}`;
    }
    if (path.dirname(dir) === dir) throw new Error(`AdmissionController: cannot find cdk8s-kueue-ray's package.json above ${__dirname} to name the default image. Fix: set the image prop.`);
  }
}

/** How cert-manager issues the controller's serving certificate. */
export interface CertManagerCertificates {
  /**
   * An existing Issuer (in the controller namespace) or ClusterIssuer that signs the certificate.
   * @default - a self-signed CA is bootstrapped in the controller namespace (a selfSigned Issuer, a CA
   * Certificate, and a CA Issuer that signs the serving certificate)
   */
  readonly issuerName?: string;
  /**
   * Kind of `issuerName`.
   * @default IssuerKind.ISSUER
   */
  readonly issuerKind?: IssuerKind;
  /**
   * Lifetime of the serving certificate (whole seconds, at least 1 hour, as cert-manager requires).
   * @default Duration.days(90)
   */
  readonly duration?: Duration;
  /**
   * How long before expiry cert-manager renews it (whole seconds, shorter than `duration`).
   * @default Duration.days(30)
   */
  readonly renewBefore?: Duration;
}

/** Kinds of cert-manager issuer. */
export enum IssuerKind {
  /** An Issuer in the controller namespace. */
  ISSUER = 'Issuer',
  /** A cluster-scoped ClusterIssuer. */
  CLUSTER_ISSUER = 'ClusterIssuer',
}

/** Graceful preemption defaults the mutating webhook adds to Ray pod templates that set none. */
export interface GracefulPreemption {
  /** terminationGracePeriodSeconds given to Ray pods that set none (whole seconds). */
  readonly terminationGracePeriod: Duration;
  /** A `sleep` preStop hook on Ray containers that have none (whole seconds, shorter than the grace period). */
  readonly preStopSleep: Duration;
}

const NAME = 'cdk8s-kueue-ray-controller';
/**
 * The container's memory limit, MiB: the peak RSS measured under the attack suite's worst case (8 peers
 * sending 3.9 MiB reviews to both paths beside 6 slow bodies: test/attack/server.attack.test.ts 5b),
 * with a quarter on top. The README gives the figures.
 */
export const CONTROLLER_MEMORY_LIMIT_MIB = 256;
const PORT = 9443;
const METRICS_PORT = 8080;
const TLS_DIR = '/etc/cdk8s-kueue-ray/tls';
const CLIENT_CA_DIR = '/etc/cdk8s-kueue-ray/client-ca';
const CERT_MANAGER_API = 'cert-manager.io/v1';

/** Seconds as cert-manager (Go's time.ParseDuration) reads them, in the largest whole unit: 7776000 -> "2160h". */
function goDuration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

/** Required or preferred spreading of the replicas across nodes. */
function podAntiAffinity(kind: AntiAffinity, term: Record<string, unknown>): Record<string, unknown> {
  return kind === AntiAffinity.REQUIRED
    ? { requiredDuringSchedulingIgnoredDuringExecution: [term] }
    : { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: term }] };
}

/**
 * Deploys the project's controller (admission webhook + reconciler) as its own chart: Namespace,
 * ServiceAccount, least-privilege RBAC, a 2-replica Deployment with a PodDisruptionBudget,
 * anti-affinity, probes and the restricted security profile, its Service, and the two webhook
 * configurations. The mutating one is named to sort before Kueue's (`kueue-mutating-...`), so
 * the queue label and `suspend: true` are in place when Kueue's own webhook runs. The controller
 * writes the caBundle of both configurations itself, unless `certManager` hands certificates to
 * cert-manager.
 */
export class AdmissionController extends Chart {
  public readonly controllerNamespace: string;
  public readonly deployment: ApiObject;
  public readonly mutatingWebhook: ApiObject;
  public readonly validatingWebhook: ApiObject;
  public readonly clusterRole: ApiObject;
  /** The cert-manager Certificate of the serving certificate, when `certManager` is set. */
  public readonly certificate?: ApiObject;

  public constructor(scope: Construct, id: string, props: AdmissionControllerProps = {}) {
    super(scope, id, { disableResourceNameHashes: true });
    const versions = resolveVersions(this);
    const ns = (this.controllerNamespace = props.namespace ?? 'cdk8s-kueue-ray-system');
    const replicas = props.replicas ?? 2;
    if (!Number.isInteger(replicas) || replicas < 1) throw new Error(`AdmissionController '${this.node.path}': replicas ${replicas} must be a whole number >= 1.`);
    const workers = props.admissionWorkers ?? 1;
    if (!Number.isInteger(workers) || workers < 0 || workers > 16) throw new Error(`AdmissionController '${this.node.path}': admissionWorkers ${workers} must be a whole number from 0 to 16.`);
    const cm = props.certManager;
    const where = `AdmissionController '${this.node.path}'`;
    const certDuration = cm && wholeSeconds(cm.duration, 90 * 86400, 'certManager.duration', where);
    const certRenewBefore = cm && wholeSeconds(cm.renewBefore, 30 * 86400, 'certManager.renewBefore', where);
    if (cm) {
      const kind = cm.issuerKind ?? IssuerKind.ISSUER;
      if (kind !== IssuerKind.ISSUER && kind !== IssuerKind.CLUSTER_ISSUER) throw new Error(`${where}: certManager.issuerKind '${kind}' must be IssuerKind.ISSUER or IssuerKind.CLUSTER_ISSUER.`);
      if (cm.issuerKind && !cm.issuerName) throw new Error(`${where}: certManager.issuerKind is set but certManager.issuerName is not; name the ${kind}, or drop issuerKind to bootstrap a self-signed CA.`);
      if (certDuration! < 3600) throw new Error(`${where}: certManager.duration is ${certDuration} s; cert-manager requires at least 1 hour. Fix: e.g. Duration.days(90).`);
      if (certRenewBefore! >= certDuration!) throw new Error(`${where}: certManager.renewBefore (${certRenewBefore} s) must be shorter than certManager.duration (${certDuration} s).`);
    }
    const graceful = props.gracefulPreemption && {
      grace: wholeSeconds(props.gracefulPreemption.terminationGracePeriod, 0, 'gracefulPreemption.terminationGracePeriod', where),
      sleep: wholeSeconds(props.gracefulPreemption.preStopSleep, 0, 'gracefulPreemption.preStopSleep', where),
    };
    if (graceful && graceful.sleep >= graceful.grace) {
      throw new Error(`${where}: gracefulPreemption.preStopSleep (${graceful.sleep} s) must be shorter than terminationGracePeriod (${graceful.grace} s), or the kubelet kills the pod during the sleep. Fix: e.g. 60 s grace with a 20 s sleep.`);
    }
    const anti = props.antiAffinity ?? (replicas >= 2 ? AntiAffinity.PREFERRED : undefined);
    if (anti !== undefined && anti !== AntiAffinity.REQUIRED && anti !== AntiAffinity.PREFERRED) throw new Error(`AdmissionController '${this.node.path}': antiAffinity '${anti}' must be AntiAffinity.REQUIRED or AntiAffinity.PREFERRED.`);
    for (const c of props.webhookSourceCidrs ?? []) {
      if (!/^[0-9a-fA-F.:]+\/[0-9]{1,3}$/.test(c)) throw new Error(`AdmissionController '${this.node.path}': webhookSourceCidrs '${c}' is not a CIDR such as "10.0.0.0/16".`);
    }
    if (props.webhookSourceCidrs && props.webhookSourceCidrs.length === 0) throw new Error(`AdmissionController '${this.node.path}': webhookSourceCidrs is empty, so the API server could not reach the webhook and every tenant create would fail. Name the API server's addresses, or leave it unset (any source).`);
    const labels = { 'app.kubernetes.io/name': NAME, 'app.kubernetes.io/part-of': 'cdk8s-kueue-ray' };
    const meta = (name: string, namespaced = true) => ({ name, labels: { ...labels }, ...(namespaced ? { namespace: ns } : {}) });

    new ApiObject(this, 'namespace', {
      apiVersion: 'v1', kind: 'Namespace',
      metadata: { name: ns, labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'latest' } },
    });
    new ApiObject(this, 'service-account', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(NAME) });

    // Least privilege; the README lists why each verb is needed.
    // "cdk8s-kueue-ray-mutating" sorts before Kueue's "kueue-mutating-webhook-configuration".
    const webhookNames = ['cdk8s-kueue-ray-mutating', 'cdk8s-kueue-ray-validating'];
    this.clusterRole = new ApiObject(this, 'cluster-role', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: meta(NAME, false),
      rules: [
        { apiGroups: [...RAY_API_GROUPS], resources: [...RAY_PLURALS], verbs: ['get', 'list', 'watch', 'patch'] },
        { apiGroups: ['kueue.x-k8s.io'], resources: ['workloads', 'localqueues', 'clusterqueues', 'cohorts', 'workloadpriorityclasses', 'resourceflavors'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
        // Self-managed certificates only: cert-manager's CA injector writes the caBundle otherwise.
        ...(cm ? [] : [
          // Only its two configurations, only read and patch (the caBundle; see the policy below).
          { apiGroups: ['admissionregistration.k8s.io'], resources: ['mutatingwebhookconfigurations'], resourceNames: [webhookNames[0]], verbs: ['get', 'patch'] },
          { apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingwebhookconfigurations'], resourceNames: [webhookNames[1]], verbs: ['get', 'patch'] },
        ]),
      ],
    });
    new ApiObject(this, 'cluster-role-binding', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: meta(NAME, false),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: NAME },
      subjects: [{ kind: 'ServiceAccount', name: NAME, namespace: ns }],
    });
    new ApiObject(this, 'role', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: meta(NAME),
      rules: [
        // create cannot be limited by name (the object does not exist yet); the rest can.
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: [NAME], verbs: ['get', 'update'] },
        // Self-managed certificates only (with cert-manager the Secret is mounted): the one Secret this
        // chart creates empty, so the controller needs no create on Secrets at all.
        ...(cm ? [] : [{ apiGroups: [''], resources: ['secrets'], resourceNames: [`${NAME}-tls`], verbs: ['get', 'update'] }]),
      ],
    });
    if (!cm) {
      new ApiObject(this, 'tls-secret', { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: meta(`${NAME}-tls`) });
    }
    new ApiObject(this, 'role-binding', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: meta(NAME),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: NAME },
      subjects: [{ kind: 'ServiceAccount', name: NAME, namespace: ns }],
    });

    const args = ['controller', `--kueue-version=${versions.kueue.version}`, `--kuberay-version=${versions.kubeRay.version}`, `--namespace=${ns}`, `--port=${PORT}`, `--metrics-port=${METRICS_PORT}`,
      `--webhook-configurations=${webhookNames.join(',')}`, `--service=${NAME}`, `--admission-workers=${workers}`];
    const kubeRaySa = props.kubeRayServiceAccount ?? KUBERAY_OPERATOR_SERVICE_ACCOUNT;
    const kueueSa = props.kueueServiceAccount ?? KUEUE_CONTROLLER_SERVICE_ACCOUNT;
    for (const [prop, sa] of [['kubeRayServiceAccount', kubeRaySa], ['kueueServiceAccount', kueueSa]] as const) {
      if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(sa.namespace) || !/^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/.test(sa.name)) {
        throw new Error(`${where}: ${prop} ${JSON.stringify(sa)} is not a ServiceAccount reference. Fix: { namespace: "...", name: "..." } as the install's ServiceAccount is named.`);
      }
    }
    args.push(`--kuberay-service-account=${kubeRaySa.namespace}/${kubeRaySa.name}`, `--kueue-service-account=${kueueSa.namespace}/${kueueSa.name}`);
    const writers: TrustedWriters = {
      ...DEFAULT_TRUSTED_WRITERS,
      kubeRay: [serviceAccountUser(kubeRaySa.namespace, kubeRaySa.name)],
      kueue: [serviceAccountUser(kueueSa.namespace, kueueSa.name)],
      controller: [serviceAccountUser(ns, NAME)],
    };
    if (cm) args.push(`--tls-cert-file=${TLS_DIR}/tls.crt`, `--tls-key-file=${TLS_DIR}/tls.key`);
    const clientCa = props.webhookClientCa;
    if (clientCa !== undefined && !/-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----/.test(clientCa)) {
      throw new Error(`${where}: webhookClientCa must be PEM (-----BEGIN CERTIFICATE----- ...), the CA that signs the API server's webhook client certificate.`);
    }
    if (clientCa) {
      args.push(`--client-ca-file=${CLIENT_CA_DIR}/ca.crt`);
      new ApiObject(this, 'client-ca', { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(`${NAME}-client-ca`), data: { 'ca.crt': clientCa } });
    }
    const volumeMounts = [
      ...(cm ? [{ name: 'tls', mountPath: TLS_DIR, readOnly: true }] : []),
      ...(clientCa ? [{ name: 'client-ca', mountPath: CLIENT_CA_DIR, readOnly: true }] : []),
    ];
    const volumes = [
      ...(cm ? [{ name: 'tls', secret: { secretName: `${NAME}-tls`, defaultMode: 0o440 } }] : []),
      ...(clientCa ? [{ name: 'client-ca', configMap: { name: `${NAME}-client-ca` } }] : []),
    ];
    if (graceful) args.push(`--graceful-preemption=${graceful.grace}:${graceful.sleep}`);
    const probe = (p: string) => ({ httpGet: { path: p, port: 'webhook', scheme: 'HTTPS' }, periodSeconds: 10, failureThreshold: 3 });
    const antiTerm = { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { 'app.kubernetes.io/name': NAME } } };
    this.deployment = new ApiObject(this, 'deployment', {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta(NAME),
      spec: {
        replicas,
        // With required anti-affinity on exactly `replicas` nodes a surge pod could never schedule:
        // replace one pod at a time, the others keep serving.
        ...(anti === AntiAffinity.REQUIRED ? { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } } : {}),
        selector: { matchLabels: { 'app.kubernetes.io/name': NAME } },
        template: {
          metadata: { labels: { ...labels } },
          spec: {
            serviceAccountName: NAME,
            ...priorityClassField(props.priorityClassName, `AdmissionController '${this.node.path}'`),
            // fsGroup: the mounted certificate Secret (mode 0440) is readable by the controller's group only.
            securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, fsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } },
            ...(anti ? { affinity: { podAntiAffinity: podAntiAffinity(anti, antiTerm) } } : {}),
            terminationGracePeriodSeconds: 30,
            containers: [{
              name: 'controller',
              image: props.image ?? defaultImage(),
              args,
              ports: [{ name: 'webhook', containerPort: PORT, protocol: 'TCP' }, { name: 'metrics', containerPort: METRICS_PORT, protocol: 'TCP' }],
              env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
              readinessProbe: probe('/readyz'),
              // Endpoints and the API servers' connection pools learn of a terminating pod with a delay:
              // it keeps serving 5 s before SIGTERM, then 5 s more with /readyz failing (--shutdown-grace-seconds).
              lifecycle: { preStop: { exec: { command: ['sleep', '5'] } } },
              livenessProbe: probe('/healthz'),
              resources: props.resources ? renderResources(props.resources, `AdmissionController '${this.node.path}' resources`) : { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: `${CONTROLLER_MEMORY_LIMIT_MIB}Mi` } },
              securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } },
              ...(volumeMounts.length ? { volumeMounts } : {}),
            }],
            ...(volumes.length ? { volumes } : {}),
          },
        },
      },
    });
    new ApiObject(this, 'pdb', {
      apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: meta(NAME),
      spec: { minAvailable: 1, selector: { matchLabels: { 'app.kubernetes.io/name': NAME } } },
    });
    new ApiObject(this, 'service', {
      apiVersion: 'v1', kind: 'Service', metadata: meta(NAME),
      spec: {
        selector: { 'app.kubernetes.io/name': NAME },
        ports: [{ name: 'webhook', port: 443, targetPort: 'webhook', protocol: 'TCP' }, { name: 'metrics', port: METRICS_PORT, targetPort: 'metrics', protocol: 'TCP' }],
      },
    });
    if (props.networkPolicy ?? true) {
      // Ingress only; egress stays open (the API server's address is cluster-specific). Kubelet probes
      // come from the pod's own node, which NetworkPolicies do not block.
      const scrapers = props.metricsScraperNamespaces ?? ['monitoring'];
      new ApiObject(this, 'network-policy', {
        apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: meta(NAME),
        spec: {
          podSelector: { matchLabels: { 'app.kubernetes.io/name': NAME } },
          policyTypes: ['Ingress'],
          ingress: [
            { ports: [{ port: PORT, protocol: 'TCP' }], ...(props.webhookSourceCidrs ? { from: props.webhookSourceCidrs.map((cidr) => ({ ipBlock: { cidr } })) } : {}) },
            ...(scrapers.length ? [{
              ports: [{ port: METRICS_PORT, protocol: 'TCP' }],
              from: [{ namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [...scrapers] }] } }],
            }] : []),
          ],
        },
      });
    }
    if (!cm && (props.caBundleOnlyPolicy ?? true)) this.caBundleOnlyPolicy(ns, webhookNames);

    let injectCa: Record<string, string> | undefined;
    if (cm) {
      let issuerRef = { name: cm.issuerName ?? '', kind: cm.issuerKind ?? IssuerKind.ISSUER, group: 'cert-manager.io' };
      if (!cm.issuerName) {
        // The usual cert-manager bootstrap: a selfSigned Issuer signs a CA, whose Issuer signs the serving certificate.
        new ApiObject(this, 'selfsigned-issuer', { apiVersion: CERT_MANAGER_API, kind: 'Issuer', metadata: meta(`${NAME}-selfsigned`), spec: { selfSigned: {} } });
        new ApiObject(this, 'ca-certificate', {
          apiVersion: CERT_MANAGER_API, kind: 'Certificate', metadata: meta(`${NAME}-ca`),
          spec: {
            isCA: true, commonName: `${NAME}-ca`, secretName: `${NAME}-ca`, duration: '87600h', renewBefore: '720h',
            privateKey: { algorithm: 'ECDSA', size: 256 }, issuerRef: { name: `${NAME}-selfsigned`, kind: 'Issuer', group: 'cert-manager.io' },
          },
        });
        new ApiObject(this, 'ca-issuer', { apiVersion: CERT_MANAGER_API, kind: 'Issuer', metadata: meta(`${NAME}-ca`), spec: { ca: { secretName: `${NAME}-ca` } } });
        issuerRef = { name: `${NAME}-ca`, kind: IssuerKind.ISSUER, group: 'cert-manager.io' };
      }
      const dns = [NAME, `${NAME}.${ns}`, `${NAME}.${ns}.svc`, `${NAME}.${ns}.svc.cluster.local`];
      this.certificate = new ApiObject(this, 'serving-certificate', {
        apiVersion: CERT_MANAGER_API, kind: 'Certificate', metadata: meta(`${NAME}-serving`),
        spec: {
          secretName: `${NAME}-tls`, commonName: dns[2], dnsNames: dns,
          duration: goDuration(certDuration!), renewBefore: goDuration(certRenewBefore!),
          privateKey: { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Always' },
          usages: ['server auth', 'digital signature'], issuerRef,
        },
      });
      injectCa = { 'cert-manager.io/inject-ca-from': `${ns}/${NAME}-serving` };
    }

    const rules = [{ apiGroups: [...RAY_API_GROUPS], apiVersions: [...RAY_API_VERSIONS], operations: ['CREATE', 'UPDATE'], resources: [...RAY_PLURALS] }];
    const tenantSelector = { matchExpressions: [{ key: TENANT_LABEL, operator: 'Exists' }] };
    const client = (p: string) => ({ service: { name: NAME, namespace: ns, path: p, port: 443 } });
    // The API server calls neither webhook for KubeRay's operator, Kueue, Kubernetes' controllers and the
    // controller itself (matchConditions, Kubernetes >= 1.30): the RayClusters KubeRay creates for an
    // admitted job, Kueue's suspend flips, KubeRay's finalizer removal and the garbage collector's
    // updates never wait on the controller, even while it is down. Decided by who sends the request,
    // so no label or owner reference a tenant writes on its object can opt it out.
    const matchConditions = [{ name: 'not-a-trusted-controller', expression: untrustedRequestCel(writers) }];
    // Mutating: Fail. A tenant job that missed its queue label and suspend would run unqueued, which is
    // worse than a rejected create. Only CREATE: defaults are for new objects.
    this.mutatingWebhook = new ApiObject(this, 'mutating-webhook', {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: webhookNames[0], labels: { ...labels }, ...(injectCa ? { annotations: { ...injectCa } } : {}) },
      webhooks: [{
        name: 'mray.cdk8s-kueue-ray.io', clientConfig: client('/mutate'), rules: [{ ...rules[0], operations: ['CREATE'] }],
        namespaceSelector: tenantSelector, matchConditions, failurePolicy: 'Fail', timeoutSeconds: 5, sideEffects: 'None', admissionReviewVersions: ['v1'], reinvocationPolicy: 'Never',
      }],
    });
    // Validating, in tenant namespaces: Fail. The tenant rules (queue label, allowed priorities, the
    // children of RayJobs and RayServices) must hold while the controller is down too; what the trusted
    // controllers write never reaches it, and deletions are not in its rules.
    // Elsewhere (validateAllNamespaces): Ignore, since there it only adds earlier, clearer errors.
    this.validatingWebhook = new ApiObject(this, 'validating-webhook', {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: webhookNames[1], labels: { ...labels }, ...(injectCa ? { annotations: { ...injectCa } } : {}) },
      webhooks: [
        {
          // The status subresources too: Kueue reads a Ray object's status to release its quota, and only KubeRay writes it.
          name: 'vray.cdk8s-kueue-ray.io', clientConfig: client('/validate'), namespaceSelector: tenantSelector, matchConditions,
          rules: [...rules, { ...rules[0], operations: ['UPDATE'], resources: rules[0].resources.map((r) => `${r}/status`) }],
          failurePolicy: 'Fail', timeoutSeconds: 5, sideEffects: 'None', admissionReviewVersions: ['v1'],
        },
        ...(props.validateAllNamespaces ? [{
          name: 'vray-all.cdk8s-kueue-ray.io', clientConfig: client('/validate'), rules,
          namespaceSelector: { matchExpressions: [{ key: TENANT_LABEL, operator: 'DoesNotExist' }] }, matchConditions,
          failurePolicy: 'Ignore', timeoutSeconds: 5, sideEffects: 'None', admissionReviewVersions: ['v1'],
        }] : []),
      ],
    });
  }

  /**
   * RBAC can name the two configurations the controller patches, not the field: this policy lets its
   * ServiceAccount change nothing in them but clientConfig.caBundle. (Admission webhooks are never
   * called for webhook configurations; admission policies are.)
   */
  private caBundleOnlyPolicy(ns: string, webhookNames: string[]): void {
    const name = `${NAME}-cabundle-only`;
    const same = (a: string, b: string, f: string) => `(has(${a}.${f}) == has(${b}.${f})) && (!has(${a}.${f}) || ${a}.${f} == ${b}.${f})`;
    const fields = ['clientConfig.url', 'clientConfig.service', 'rules', 'failurePolicy', 'matchPolicy', 'namespaceSelector', 'objectSelector',
      'sideEffects', 'timeoutSeconds', 'admissionReviewVersions', 'reinvocationPolicy', 'matchConditions'];
    const webhookSame = fields.map((f) => same('w', 'o', f)).join(' && ');
    new ApiObject(this, 'cabundle-only-policy', {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name, labels: { 'app.kubernetes.io/name': NAME, 'app.kubernetes.io/part-of': 'cdk8s-kueue-ray' } },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            { apiGroups: ['admissionregistration.k8s.io'], apiVersions: ['*'], operations: ['UPDATE'], resources: ['mutatingwebhookconfigurations'], resourceNames: [webhookNames[0]] },
            { apiGroups: ['admissionregistration.k8s.io'], apiVersions: ['*'], operations: ['UPDATE'], resources: ['validatingwebhookconfigurations'], resourceNames: [webhookNames[1]] },
          ],
        },
        matchConditions: [{ name: 'controller-service-account', expression: `request.userInfo.username == 'system:serviceaccount:${ns}:${NAME}'` }],
        validations: [
          {
            expression: `object.webhooks.size() == oldObject.webhooks.size() && object.webhooks.all(w, oldObject.webhooks.exists(o, o.name == w.name && ${webhookSame}))`,
            message: `the controller's ServiceAccount may change only clientConfig.caBundle of ${webhookNames.join(' and ')}`,
            reason: 'Forbidden',
          },
          {
            expression: `${same('object', 'oldObject', 'metadata.labels')} && ${same('object', 'oldObject', 'metadata.annotations')}`,
            message: `the controller's ServiceAccount may not change the labels or annotations of ${webhookNames.join(' and ')}`,
            reason: 'Forbidden',
          },
        ],
      },
    });
    new ApiObject(this, 'cabundle-only-binding', {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name, labels: { 'app.kubernetes.io/name': NAME, 'app.kubernetes.io/part-of': 'cdk8s-kueue-ray' } },
      spec: { policyName: name, validationActions: ['Deny'] },
    });
  }
}
