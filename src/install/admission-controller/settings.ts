/**
 * What every part of the AdmissionController chart builds from: the props once validated and defaulted
 * (admission-controller.ts resolves them), and the names and ports the parts must agree on.
 */
import type { TrustedWriters } from '../../policy/writers';
import type { ServiceAccountReference } from '../../platform/service-account';

/** Name of the controller's ServiceAccount, Deployment, Service, ClusterRole and their kin. */
export const NAME = 'cdk8s-kueue-ray-controller';
export const PORT = 9443;
export const METRICS_PORT = 8080;
export const TLS_DIR = '/etc/cdk8s-kueue-ray/tls';
export const CLIENT_CA_DIR = '/etc/cdk8s-kueue-ray/client-ca';
/** The serving certificate's Secret: created empty for the controller to fill, or written by cert-manager. */
export const TLS_SECRET = `${NAME}-tls`;
/**
 * The mutating and validating configurations, in that order. Named in the RBAC, the controller's flags and the
 * caBundle policy; "cdk8s-kueue-ray-mutating" sorts before Kueue's "kueue-mutating-webhook-configuration".
 */
export const WEBHOOK_NAMES: readonly [string, string] = ['cdk8s-kueue-ray-mutating', 'cdk8s-kueue-ray-validating'];

/** cert-manager settings with their defaults applied (durations in whole seconds). */
export interface ResolvedCertManager {
  /** The issuer that signs the serving certificate; undefined bootstraps a self-signed CA. */
  readonly issuer?: { readonly name: string; readonly kind: string };
  readonly durationSeconds: number;
  readonly renewBeforeSeconds: number;
}

/** The AdmissionController's props, validated and defaulted. */
export interface ControllerSettings {
  readonly namespace: string;
  readonly replicas: number;
  readonly admissionWorkers: number;
  readonly image: string;
  /** `{ imagePullSecrets }`, or `{}` for none. */
  readonly imagePullSecrets: Record<string, Array<{ name: string }>>;
  /** The container's rendered resources. */
  readonly resources: Record<string, unknown>;
  /** `{ priorityClassName }`, or `{}` for none. */
  readonly priorityClass: Record<string, string>;
  readonly antiAffinity: 'required' | 'preferred' | 'none';
  readonly gracefulPreemption?: { readonly graceSeconds: number; readonly sleepSeconds: number };
  readonly certManager?: ResolvedCertManager;
  /** PEM of the CA of the API server's webhook client certificate. */
  readonly webhookClientCa?: string;
  /** Only with the NetworkPolicy: undefined admits any source on the webhook port. */
  readonly networkPolicy?: { readonly webhookSourceCidrs?: readonly string[]; readonly metricsScraperNamespaces: readonly string[] };
  readonly validateAllNamespaces: boolean;
  readonly caBundleOnlyPolicy: boolean;
  readonly kubeRayServiceAccount: ServiceAccountReference;
  readonly kueueServiceAccount: ServiceAccountReference;
  /** Whose requests skip both webhooks. */
  readonly writers: TrustedWriters;
  readonly kueueVersion: string;
  readonly kubeRayVersion: string;
}

/** The labels of every object of the chart (a fresh copy each time). */
export function controllerLabels(): Record<string, string> {
  return { 'app.kubernetes.io/name': NAME, 'app.kubernetes.io/part-of': 'cdk8s-kueue-ray' };
}

/** The pods' selector. */
export function controllerSelector(): Record<string, string> {
  return { 'app.kubernetes.io/name': NAME };
}

/** metadata of a chart object: in the controller's namespace unless cluster-scoped. */
export function controllerMeta(s: ControllerSettings, name: string, namespaced = true): Record<string, unknown> {
  return { name, labels: controllerLabels(), ...(namespaced ? { namespace: s.namespace } : {}) };
}
