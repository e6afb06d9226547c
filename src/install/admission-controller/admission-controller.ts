import * as fs from 'fs';
import * as path from 'path';
import { ApiObject, Chart, Duration } from 'cdk8s';
import { Construct } from 'constructs';
import { wholeSeconds } from '../../platform/duration';
import type { ServiceAccountReference } from '../../platform/service-account';
import { isDns1123Label, isDns1123Subdomain } from '../../policy/k8s-names';
import { isRecord } from '../../policy/json';
import { resolveVersions } from '../../platform/versions';
import {
  DEFAULT_TRUSTED_WRITERS, KUBERAY_OPERATOR_SERVICE_ACCOUNT, KUEUE_CONTROLLER_SERVICE_ACCOUNT, serviceAccountUser,
} from '../../policy/writers';
import { ContainerResources, renderResources } from '../../platform/container-resources';
import { priorityClassField } from '../priority';
import { installImage, pullSecretsField } from '../image';
import { controllerCertificates } from './certificates';
import { controllerDeployment } from './deployment';
import { controllerNetwork } from './network';
import { controllerRbac } from './rbac';
import { ControllerSettings, NAME, ResolvedCertManager } from './settings';
import { controllerWebhooks } from './webhooks';

/** Settings of the admission controller: its image, namespace, replicas, certificates and the webhooks' reach. */
export interface AdmissionControllerProps {
  /**
   * The controller image, repository and tag (e.g. "registry.corp.example/cdk8s-kueue-ray/controller:0.1.0").
   * @default "ghcr.io/cdk8s-kueue-ray/controller:<version of this package>" (the image published with each release; from the ImageRegistry mirror when one is set)
   */
  readonly image?: string;
  /**
   * Secrets (docker-registry, in the controller's namespace) the controller's pods pull their image with.
   * @default - none
   */
  readonly imagePullSecrets?: string[];
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
   * @default - 100m CPU / 128Mi requests, 500m CPU / 288Mi limits
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
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
      if (isRecord(pkg) && pkg.name === 'cdk8s-kueue-ray') return `ghcr.io/cdk8s-kueue-ray/controller:${String(pkg.version)}`;
    }
    if (path.dirname(dir) === dir) throw new Error(`AdmissionController: cannot find cdk8s-kueue-ray's package.json above ${__dirname} to name the `
      + 'default image. Fix: set the image prop.');
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

/**
 * The container's memory limit, MiB: the peak RSS measured under the attack suite's worst case (8 peers
 * sending 3.9 MiB reviews to both paths beside 6 slow bodies: test/attack/server.attack.test.ts 5b),
 * on the image's Node and environment, with a quarter on top (201-223 MiB on Node 24.22.3 with MALLOC_ARENA_MAX=2,
 * so 288). The README gives the figures.
 */
export const CONTROLLER_MEMORY_LIMIT_MIB = 288;

/** The certManager prop, validated, with its defaults. */
function resolveCertManager(cm: CertManagerCertificates | undefined, where: string): ResolvedCertManager | undefined {
  if (!cm) return undefined;
  const durationSeconds = wholeSeconds(cm.duration, 90 * 86400, 'certManager.duration', where);
  const renewBeforeSeconds = wholeSeconds(cm.renewBefore, 30 * 86400, 'certManager.renewBefore', where);
  const kind = cm.issuerKind ?? IssuerKind.ISSUER;
  // eslint-disable-next-line @typescript-eslint/restrict-template-expressions -- never by type, but a jsii caller can pass any string
  if (kind !== IssuerKind.ISSUER && kind !== IssuerKind.CLUSTER_ISSUER) throw new Error(`${where}: certManager.issuerKind '${kind}' must be `
    + 'IssuerKind.ISSUER or IssuerKind.CLUSTER_ISSUER.');
  if (cm.issuerKind && !cm.issuerName) throw new Error(`${where}: certManager.issuerKind is set but certManager.issuerName is not; name the ${kind}, `
    + 'or drop issuerKind to bootstrap a self-signed CA.');
  if (durationSeconds < 3600) throw new Error(`${where}: certManager.duration is ${durationSeconds} s; cert-manager requires at least 1 hour. Fix: `
    + 'e.g. Duration.days(90).');
  if (renewBeforeSeconds >= durationSeconds) throw new Error(`${where}: certManager.renewBefore (${renewBeforeSeconds} s) must be shorter than `
    + `certManager.duration (${durationSeconds} s).`);
  return { issuer: cm.issuerName ? { name: cm.issuerName, kind } : undefined, durationSeconds, renewBeforeSeconds };
}

/** The gracefulPreemption prop in whole seconds, validated. */
function resolveGracefulPreemption(g: GracefulPreemption | undefined, where: string): ControllerSettings['gracefulPreemption'] {
  if (!g) return undefined;
  const graceSeconds = wholeSeconds(g.terminationGracePeriod, 0, 'gracefulPreemption.terminationGracePeriod', where);
  const sleepSeconds = wholeSeconds(g.preStopSleep, 0, 'gracefulPreemption.preStopSleep', where);
  if (sleepSeconds >= graceSeconds) {
    throw new Error(`${where}: gracefulPreemption.preStopSleep (${sleepSeconds} s) must be shorter than terminationGracePeriod (${graceSeconds} s), `
      + 'or the kubelet kills the pod during the sleep. Fix: e.g. 60 s grace with a 20 s sleep.');
  }
  return { graceSeconds, sleepSeconds };
}

/** The anti-affinity of `replicas` replicas, validated. */
function resolveAntiAffinity(value: AntiAffinity | undefined, replicas: number, where: string): ControllerSettings['antiAffinity'] {
  const anti = value ?? (replicas >= 2 ? AntiAffinity.PREFERRED : undefined);
  // eslint-disable-next-line @typescript-eslint/restrict-template-expressions -- never by type, but a jsii caller can pass any string
  if (anti !== undefined && anti !== AntiAffinity.REQUIRED && anti !== AntiAffinity.PREFERRED) throw new Error(`${where}: antiAffinity '${anti}' `
    + 'must be AntiAffinity.REQUIRED or AntiAffinity.PREFERRED.');
  return anti === AntiAffinity.REQUIRED ? 'required' : anti === AntiAffinity.PREFERRED ? 'preferred' : 'none';
}

/** The ServiceAccounts whose requests skip the webhooks, validated. */
function resolveServiceAccounts(props: AdmissionControllerProps, where: string): Record<'kubeRay' | 'kueue', ServiceAccountReference> {
  const kubeRay = props.kubeRayServiceAccount ?? KUBERAY_OPERATOR_SERVICE_ACCOUNT;
  const kueue = props.kueueServiceAccount ?? KUEUE_CONTROLLER_SERVICE_ACCOUNT;
  for (const [prop, sa] of [['kubeRayServiceAccount', kubeRay], ['kueueServiceAccount', kueue]] as const) {
    if (!isDns1123Label(sa.namespace) || !isDns1123Subdomain(sa.name)) {
      throw new Error(`${where}: ${prop} ${JSON.stringify(sa)} is not a ServiceAccount reference. Fix: { namespace: "...", name: "..." } as the `
        + 'install\'s ServiceAccount is named.');
    }
  }
  return { kubeRay, kueue };
}

/** The props, validated (in the order the errors have always been reported) and defaulted. */
function resolveSettings(scope: Chart, props: AdmissionControllerProps): ControllerSettings {
  const versions = resolveVersions(scope);
  const where = `AdmissionController '${scope.node.path}'`;
  const namespace = props.namespace ?? 'cdk8s-kueue-ray-system';
  const replicas = props.replicas ?? 2;
  if (!Number.isInteger(replicas) || replicas < 1) throw new Error(`${where}: replicas ${replicas} must be a whole number >= 1.`);
  const workers = props.admissionWorkers ?? 1;
  if (!Number.isInteger(workers) || workers < 0 || workers > 16) throw new Error(`${where}: admissionWorkers ${workers} must be a whole `
    + 'number from 0 to 16.');
  const certManager = resolveCertManager(props.certManager, where);
  const gracefulPreemption = resolveGracefulPreemption(props.gracefulPreemption, where);
  const antiAffinity = resolveAntiAffinity(props.antiAffinity, replicas, where);
  for (const c of props.webhookSourceCidrs ?? []) {
    if (!/^[0-9a-fA-F.:]+\/[0-9]{1,3}$/.test(c)) throw new Error(`${where}: webhookSourceCidrs '${c}' is not a CIDR such as "10.0.0.0/16".`);
  }
  if (props.webhookSourceCidrs && props.webhookSourceCidrs.length === 0) throw new Error(`${where}: webhookSourceCidrs is empty, so the API server `
    + 'could not reach the webhook and every tenant create would fail. Name the API server\'s addresses, or leave it unset (any source).');
  const sas = resolveServiceAccounts(props, where);
  const clientCa = props.webhookClientCa;
  if (clientCa !== undefined && !/-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----/.test(clientCa)) {
    throw new Error(`${where}: webhookClientCa must be PEM (-----BEGIN CERTIFICATE----- ...), the CA that signs the API server's webhook `
      + 'client certificate.');
  }
  const priorityClass = priorityClassField(props.priorityClassName, where);
  if (props.image !== undefined && !/^\S+$/.test(props.image)) throw new Error(`${where}: image '${props.image}' is not an image reference. Fix: `
    + 'e.g. "registry.corp.example/cdk8s-kueue-ray/controller:0.1.0".');
  const image = props.image ?? installImage(scope, defaultImage(), undefined, where);
  const resources = renderResources(props.resources, `${where} resources`)
    ?? { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: `${CONTROLLER_MEMORY_LIMIT_MIB}Mi` } };
  return {
    namespace, replicas, admissionWorkers: workers, image, imagePullSecrets: pullSecretsField(props.imagePullSecrets, where), resources,
    priorityClass, antiAffinity, gracefulPreemption, certManager,
    webhookClientCa: clientCa || undefined,
    networkPolicy: (props.networkPolicy ?? true)
      ? { webhookSourceCidrs: props.webhookSourceCidrs, metricsScraperNamespaces: props.metricsScraperNamespaces ?? ['monitoring'] }
      : undefined,
    validateAllNamespaces: props.validateAllNamespaces ?? false,
    caBundleOnlyPolicy: props.caBundleOnlyPolicy ?? true,
    kubeRayServiceAccount: sas.kubeRay,
    kueueServiceAccount: sas.kueue,
    writers: {
      ...DEFAULT_TRUSTED_WRITERS,
      kubeRay: [serviceAccountUser(sas.kubeRay.namespace, sas.kubeRay.name)],
      kueue: [serviceAccountUser(sas.kueue.namespace, sas.kueue.name)],
      controller: [serviceAccountUser(namespace, NAME)],
    },
    kueueVersion: versions.kueue.version,
    kubeRayVersion: versions.kubeRay.version,
  };
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
  /** The namespace the controller runs in (its Deployment, Service, ServiceAccount and certificate Secret). */
  public readonly controllerNamespace: string;
  /** The controller's Deployment: the webhook server and the reconciler. */
  public readonly deployment: ApiObject;
  /** The MutatingWebhookConfiguration that defaults Ray objects in queued namespaces (queue label, suspend). */
  public readonly mutatingWebhook: ApiObject;
  /** The ValidatingWebhookConfiguration that refuses Ray objects the policy rejects, naming the rule and the fix. */
  public readonly validatingWebhook: ApiObject;
  /** The ClusterRole the controller's ServiceAccount is bound to: what it may read and write across namespaces. */
  public readonly clusterRole: ApiObject;
  /** The cert-manager Certificate of the serving certificate, when `certManager` is set. */
  public readonly certificate?: ApiObject;
  /** Namespaces whose pods the NetworkPolicy lets reach the metrics port; undefined without the NetworkPolicy (any may). */
  public readonly metricsScraperNamespaces?: string[];

  public constructor(scope: Construct, id: string, props: AdmissionControllerProps = {}) {
    super(scope, id, { disableResourceNameHashes: true });
    const s = resolveSettings(this, props);
    this.controllerNamespace = s.namespace;
    this.metricsScraperNamespaces = s.networkPolicy ? [...s.networkPolicy.metricsScraperNamespaces] : undefined;
    // Raw ApiObject: cdk8s-plus-28's Namespace adds an empty spec.
    new ApiObject(this, 'namespace', {
      apiVersion: 'v1', kind: 'Namespace',
      metadata: {
        name: s.namespace,
        labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'latest' },
      },
    });
    // The parts, in the order their objects are synthesized (Namespace first): RBAC, certificates, pods, network, admission.
    this.clusterRole = controllerRbac(this, s);
    const certs = controllerCertificates(this, s);
    this.certificate = certs.certificate;
    this.deployment = controllerDeployment(this, s, certs);
    controllerNetwork(this, s);
    const webhooks = controllerWebhooks(this, s, certs.injectCa);
    this.mutatingWebhook = webhooks.mutating;
    this.validatingWebhook = webhooks.validating;
  }
}
