/**
 * The controller's pods: the Deployment (flags, probes, the restricted security profile, anti-affinity,
 * priority class, certificate volumes) and its PodDisruptionBudget.
 */
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { KUBERAY_VERSION_ANNOTATION, KUEUE_VERSION_ANNOTATION } from '../../policy/versions';
import { ControllerCertificates } from './certificates';
import { ControllerSettings, controllerLabels, controllerMeta, controllerSelector, METRICS_PORT, NAME, PORT, WEBHOOK_NAMES } from './settings';

// Raw ApiObjects: cdk8s-plus-28's Deployment adds its own defaults (strategy, security context, automount, ...).

/** The controller's command line. */
function controllerArgs(s: ControllerSettings, certs: ControllerCertificates): string[] {
  const { kubeRayServiceAccount: kubeRay, kueueServiceAccount: kueue } = s;
  return [
    'controller', `--kueue-version=${s.kueueVersion}`, `--kuberay-version=${s.kubeRayVersion}`,
    `--namespace=${s.namespace}`, `--port=${PORT}`, `--metrics-port=${METRICS_PORT}`,
    `--webhook-configurations=${WEBHOOK_NAMES.join(',')}`, `--service=${NAME}`, `--admission-workers=${s.admissionWorkers}`,
    `--kuberay-service-account=${kubeRay.namespace}/${kubeRay.name}`, `--kueue-service-account=${kueue.namespace}/${kueue.name}`,
    ...certs.args,
    ...(s.gracefulPreemption ? [`--graceful-preemption=${s.gracefulPreemption.graceSeconds}:${s.gracefulPreemption.sleepSeconds}`] : []),
  ];
}

/** Required or preferred spreading of the replicas across nodes, or none. */
function affinity(s: ControllerSettings): Record<string, unknown> {
  const term = { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: controllerSelector() } };
  switch (s.antiAffinity) {
    case 'required':
      return { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } } };
    case 'preferred':
      return { affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: term }] } } };
    case 'none': return {};
  }
}

/** The controller's pod spec. */
function podSpec(s: ControllerSettings, certs: ControllerCertificates): Record<string, unknown> {
  const probe = (p: string) => ({ httpGet: { path: p, port: 'webhook', scheme: 'HTTPS' }, periodSeconds: 10, failureThreshold: 3 });
  return {
    serviceAccountName: NAME,
    ...s.priorityClass,
    ...s.imagePullSecrets,
    // fsGroup: the mounted certificate Secret (mode 0440) is readable by the controller's group only.
    securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, fsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } },
    ...affinity(s),
    terminationGracePeriodSeconds: 30,
    containers: [{
      name: 'controller',
      image: s.image,
      args: controllerArgs(s, certs),
      ports: [{ name: 'webhook', containerPort: PORT, protocol: 'TCP' }, { name: 'metrics', containerPort: METRICS_PORT, protocol: 'TCP' }],
      env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
      readinessProbe: probe('/readyz'),
      // Endpoints and the API servers' connection pools learn of a terminating pod with a delay:
      // it keeps serving 5 s before SIGTERM, then 5 s more with /readyz failing (--shutdown-grace-seconds).
      lifecycle: { preStop: { exec: { command: ['sleep', '5'] } } },
      livenessProbe: probe('/healthz'),
      resources: s.resources,
      securityContext: {
        allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true,
        capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' },
      },
      ...(certs.volumeMounts.length ? { volumeMounts: certs.volumeMounts } : {}),
    }],
    ...(certs.volumes.length ? { volumes: certs.volumes } : {}),
  };
}

/** Creates the Deployment and its PodDisruptionBudget; returns the Deployment. */
export function controllerDeployment(scope: Construct, s: ControllerSettings, certs: ControllerCertificates): ApiObject {
  const deployment = new ApiObject(scope, 'deployment', {
    apiVersion: 'apps/v1', kind: 'Deployment',
    // The versions the controller decides for (its flags), recorded where `check` and `plan` read them.
    metadata: {
      ...controllerMeta(s, NAME),
      annotations: { [KUEUE_VERSION_ANNOTATION]: s.kueueVersion, [KUBERAY_VERSION_ANNOTATION]: s.kubeRayVersion },
    },
    spec: {
      replicas: s.replicas,
      // With required anti-affinity on exactly `replicas` nodes a surge pod could never schedule:
      // replace one pod at a time, the others keep serving.
      ...(s.antiAffinity === 'required' ? { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } } : {}),
      selector: { matchLabels: controllerSelector() },
      template: { metadata: { labels: controllerLabels() }, spec: podSpec(s, certs) },
    },
  });
  new ApiObject(scope, 'pdb', {
    apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: controllerMeta(s, NAME),
    spec: { minAvailable: 1, selector: { matchLabels: controllerSelector() } },
  });
  return deployment;
}
