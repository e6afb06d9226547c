import * as path from 'path';
import { ApiObject, ApiObjectProps, Chart, JsonPatch } from 'cdk8s';
import { Construct } from 'constructs';
import { KUEUE_CONTROLLER_SERVICE_ACCOUNT } from '../policy/writers';
import type { ServiceAccountReference } from '../platform/service-account';
import { parse as parseYaml, parseAllDocuments, stringify } from 'yaml';
import { AppInventory } from '../platform/inventory';
import { KueueVersion, resolveVersions } from '../platform/versions';
import { isRecord } from '../policy/json';
import { rayKindNamed } from '../policy/kinds';
import { kueueManagedNamespaceSelector, MANAGED_NAMESPACE_FRAMEWORKS } from '../policy/tenant-namespace';
import { KUEUE_VERSION_ANNOTATION, kueueCapabilities } from '../policy/versions';
import { ContainerResources, renderResources } from '../platform/container-resources';
import { defaultLockFile, lockedByEnv, readRelease } from './release-source';
import { synthError } from './synth-error';
import { KUEUE_RELEASE_SHA256, KUEUE_RELEASES_URL, KUEUE_RELEASES_URL_ENV, kueueReleaseUrl } from './releases';
import type { FlavorToleration } from '../platform/toleration';
import { editConfiguration, FairSharingOptions, settingsGates, WaitForPodsReadyOptions } from './kueue-configuration';
import { placementFields } from './placement';
import { priorityClassField } from './priority';
import { ContainerImage, installImage, pullSecretsField } from './image';

const DEPLOYMENT = 'kueue-controller-manager';
const CONFIG_MAP = 'kueue-manager-config';
const CONFIG_KEY = 'controller_manager_config.yaml';

/** The fields of the release's Deployment read here (its first container is the manager, with an image). */
interface DeploymentJson {
  readonly spec?: {
    readonly template?: {
      readonly spec?: {
        readonly containers?: ReadonlyArray<{ readonly name?: string; readonly image: string }>;
        readonly terminationGracePeriodSeconds?: number;
      };
    };
  };
}

const ELASTIC_GATE = 'ElasticJobsViaWorkloadSlices';

/** Settings of the Kueue install: release source, image, feature gates, managed namespaces and the configuration Kueue reads. */
export interface KueueInstallProps {
  /**
   * Kueue release to install. It must be the app's Kueue version (KueueRayVersions), which the constructs check
   * against: another one fails at synth, naming both.
   * @default - the app's Kueue version (KueueRayVersions)
   */
  readonly version?: KueueVersion;
  /**
   * A local copy of the release's manifests.yaml (a version the package does not carry, tests). Used as
   * is, or verified against `manifestSha256` when that is given too.
   * @default - the copy the package carries for the version (no network), unless `manifestSha256`, `releasesUrl` or
   * $CDK8S_KUEUE_RAY_KUEUE_RELEASES_URL asks for a download or the lock file records one; else the official release asset,
   * downloaded and verified against `manifestSha256` or the lock file
   */
  readonly manifestFile?: string;
  /**
   * sha256 of the release asset. When given, the asset is downloaded (not the copy the package carries)
   * and the lock file is neither read nor written.
   * @default - the sha256 in the lock file, which the first download records
   */
  readonly manifestSha256?: string;
  /**
   * The lock file holding the sha256 of each release file downloaded (commit it with the app). The
   * first download of a release is recorded there; later synths refuse a download that differs.
   * @default - $CDK8S_KUEUE_RAY_LOCK_FILE, else "cdk8s-kueue-ray.lock.json" beside the nearest cdk8s.yaml at or above the working directory
   */
  readonly lockFile?: string;
  /**
   * Refuse to download a release that is not in the lock file yet, instead of recording it (for CI).
   * @default - true when $CDK8S_KUEUE_RAY_LOCKED is "1" or "true", else false
   */
  readonly locked?: boolean;
  /**
   * Base URL of the release assets: the file is downloaded from `<releasesUrl>/<tag>/manifests.yaml`
   * instead of using the copy the package carries (a mirror, a version the package does not carry, a
   * local server in tests). The lock file still names the official URL.
   * @default - $CDK8S_KUEUE_RAY_KUEUE_RELEASES_URL, else the package's copy, else "https://github.com/kubernetes-sigs/kueue/releases/download"
   */
  readonly releasesUrl?: string;
  /**
   * Where downloads are cached.
   * @default "~/.cache/cdk8s-kueue-ray" (or $CDK8S_KUEUE_RAY_CACHE)
   */
  readonly cacheDir?: string;
  /**
   * The manager's image (the Helm chart's `controllerManager.manager.image.repository` and `.tag`).
   * @default - the release's, "registry.k8s.io/kueue/kueue:<version>" (from the ImageRegistry mirror when one is set)
   */
  readonly image?: ContainerImage;
  /**
   * Secrets (docker-registry, in kueue-system) the manager's pods pull their image with (the Helm chart's `imagePullSecrets`).
   * @default - none
   */
  readonly imagePullSecrets?: string[];
  /**
   * Kueue feature gates, appended as one `--feature-gates` arg to the manager container.
   * @default - none besides the elastic gate
   */
  readonly featureGates?: Record<string, boolean>;
  /**
   * Turn ElasticJobsViaWorkloadSlices on explicitly (also where it is on by default, so the intent
   * survives a default change).
   * @default - on when the app holds an elastic Ray workload
   */
  readonly elasticJobs?: boolean;
  /**
   * Replicas of kueue-controller-manager.
   * @default - the release's (1)
   */
  readonly replicas?: number;
  /**
   * Resources of the manager container.
   * @default - the release's (500m/512Mi requests, 2 CPU/512Mi limits)
   */
  readonly resources?: ContainerResources;
  /**
   * PriorityClass of the kueue-controller-manager pods ('' for none). The queue system must outrank the workloads it
   * queues, or a node full of Ray pods leaves a restarted manager (and with it Kueue's webhooks) Pending.
   * @default "system-cluster-critical"
   */
  readonly priorityClassName?: string;
  /**
   * Seconds a stopping manager pod keeps serving (a `preStop` sleep; the grace period grows by as
   * much) so that the API server and kube-proxy drop its endpoint first. Kueue's webhooks fail closed
   * for every Deployment and Ray object outside kube-system and kueue-system: without it, each restart
   * of a one-replica Kueue refuses creates and updates for a moment ("connection refused"). 0 leaves
   * the release's (no preStop, 10 s grace).
   * @default 5
   */
  readonly drainSeconds?: number;
  /**
   * Kueue's waitForPodsReady: an admitted workload whose pods are not all ready within the timeout is
   * evicted and requeued. Kueue v0.19 turns it on by default with a 30-minute timeout; the install then
   * writes that section out, so `dist/` shows it.
   * @default - the version's: off before v0.19; on with a 30-minute timeout on v0.19
   */
  readonly waitForPodsReady?: WaitForPodsReadyOptions;
  /**
   * Fair sharing across the ClusterQueues of every cohort (the Configuration's `fairSharing`).
   * @default - off
   */
  readonly fairSharing?: FairSharingOptions;
  /**
   * Kueue manages (suspends until admitted) jobs without a queue label too, in namespaces outside
   * kube-system and kueue-system (only in the tenant namespaces when `manageTenantNamespaces` is on).
   * Off, an unlabelled RayJob starts at once: the controller's tenant namespaces are queued either way,
   * as its mutating webhook adds the label.
   * @default - the release's (false); true when tenant namespaces are managed (`manageTenantNamespaces`)
   */
  readonly manageJobsWithoutQueueName?: boolean;
  /**
   * Kueue manages every workload of the tenant namespaces, not only Ray objects with a queue label:
   * `manageJobsWithoutQueueName: true` with a `managedJobsNamespaceSelector` matching the label that
   * TenantQueue puts on its Namespace (`cdk8s-kueue-ray.io/kueue-managed: "true"`; other namespaces are
   * left alone), and the pod, batch/job, deployment and statefulset integrations. Kueue's validating
   * webhooks then also hold unlabelled Ray objects and Jobs of every namespace to their queued-job rules
   * (e.g. a RayJob's shutdownAfterJobFinishes), as they do with `manageJobsWithoutQueueName` alone.
   * @default - on when the app holds a TenantQueue with `manageAllWorkloads` on (its default)
   */
  readonly manageTenantNamespaces?: boolean;
  /**
   * Frameworks Kueue integrates besides the Ray kinds the app holds (which are added anyway), e.g.
   * "batch/job", "pod", "jobset.x-k8s.io/jobset". Kueue refuses to start on a name it does not know.
   * @default - the release's list plus the app's Ray kinds
   */
  readonly integrationFrameworks?: string[];
  /**
   * Report ClusterQueue resource usage and quota metrics (`metrics.enableClusterQueueResources`):
   * kueue_cluster_queue_resource_usage, kueue_cluster_queue_nominal_quota and the borrowing limits.
   * @default - the release's (off)
   */
  readonly clusterQueueResourceMetrics?: boolean;
  /**
   * nodeSelector of the kueue-controller-manager pods.
   * @default - none
   */
  readonly nodeSelector?: Record<string, string>;
  /**
   * Tolerations of the kueue-controller-manager pods.
   * @default - none
   */
  readonly tolerations?: FlavorToleration[];
}

/**
 * Installs Kueue's release for the chosen version as its own chart (namespace kueue-system, which
 * Kueue's certificate management depends on). Documented patches, and nothing else: the feature-gate
 * arg on the `manager` container, missing Ray frameworks in the Configuration, replicas, resources,
 * the PriorityClass, a preStop drain, the image and pull secrets, and an annotation recording the version.
 * Make the charts holding queues and workloads depend on it. The release comes from the package, which
 * carries the pinned release of each version it models, so synth needs no network. Other versions,
 * mirrors and pins are downloaded, and never applied unverified: against `manifestSha256`, else against
 * the app's lock file, which the first download records (commit it; set CDK8S_KUEUE_RAY_LOCKED=1 in CI
 * to refuse anything not in it).
 */
export class KueueInstall extends Chart {
  /** The Kueue release installed, e.g. "v0.19.2". */
  public readonly version: string;
  /** Kueue's controller-manager ServiceAccount, as the release names it (give it to AdmissionController as kueueServiceAccount). */
  public readonly serviceAccount: ServiceAccountReference = { ...KUEUE_CONTROLLER_SERVICE_ACCOUNT };
  /** Every object of the release, by "Kind/namespace/name". */
  private readonly objects: Map<string, ApiObject> = new Map();
  private readonly props: KueueInstallProps;
  private patched = false;
  /** Constructs whose queries read the ClusterQueue resource metrics (QueueObservability). */
  private readonly resourceMetricsReaders: string[] = [];

  public constructor(scope: Construct, id: string, props: KueueInstallProps = {}) {
    super(scope, id, { disableResourceNameHashes: true });
    this.props = props;
    const appKueue = resolveVersions(this).kueue.version;
    if (props.version && props.version.version !== appKueue) {
      throw synthError(`${this.where}: version ${props.version.version} is not the app's Kueue ${appKueue} (KueueRayVersions), which every `
        + 'construct checks against. Fix: choose it once for the app, '
        + `KueueRayVersions.use(app, { kueue: KueueVersion.of('${props.version.version}') }), and leave version unset (or set it to ${appKueue}).`);
    }
    this.version = appKueue;
    const url = kueueReleaseUrl(this.version);
    const mirror = props.releasesUrl ?? process.env[KUEUE_RELEASES_URL_ENV];
    const text = readRelease({
      // The package's copy unless the props ask for another file, a pin or a download.
      bundled: props.manifestFile || props.manifestSha256 || mirror ? undefined : `kueue/${this.version}/manifests.yaml`,
      localFile: props.manifestFile, localSha256: props.manifestSha256, url,
      downloadUrl: kueueReleaseUrl(this.version, mirror ?? KUEUE_RELEASES_URL),
      sha256: props.manifestSha256 ?? KUEUE_RELEASE_SHA256[this.version],
      lock: { file: props.lockFile ? path.resolve(props.lockFile) : defaultLockFile(), locked: props.locked ?? lockedByEnv() },
      cacheDir: props.cacheDir, what: `${this.where} (Kueue ${this.version} manifests.yaml)`, localProp: 'manifestFile',
      shaProp: 'manifestSha256', mirror: { prop: 'releasesUrl', env: KUEUE_RELEASES_URL_ENV, layout: `${this.version}/manifests.yaml` },
    });
    for (const doc of parseAllDocuments(text)) {
      const obj = doc.toJS() as ApiObjectProps | null;
      if (!obj) continue;
      const key = `${obj.kind}/${obj.metadata?.namespace ?? ''}/${obj.metadata?.name}`;
      this.objects.set(key, new ApiObject(this, key.replace(/\//g, '-').replace(/--/g, '-'), obj));
    }
    const dep = this.deployment();
    const container = (dep.toJson() as DeploymentJson).spec?.template?.spec?.containers?.[0];
    if (container?.name !== 'manager') {
      throw synthError(`${this.where}: the release's Deployment ${DEPLOYMENT} has no 'manager' container first; this file is not a `
        + `Kueue ${this.version} release. Fix: check manifestFile.`);
    }
    if (props.replicas !== undefined) {
      if (!Number.isInteger(props.replicas) || props.replicas < 1) throw synthError(`${this.where}: replicas ${props.replicas} `
        + 'must be a whole number >= 1.');
      dep.addJsonPatch(JsonPatch.replace('/spec/replicas', props.replicas));
    }
    this.patchImage(dep, container.image);
    const priority = priorityClassField(props.priorityClassName, this.where);
    if (priority.priorityClassName) dep.addJsonPatch(JsonPatch.add('/spec/template/spec/priorityClassName', priority.priorityClassName));
    for (const [field, value] of Object.entries(placementFields(props.nodeSelector, props.tolerations, this.where))) {
      dep.addJsonPatch(JsonPatch.add(`/spec/template/spec/${field}`, value));
    }
    const drain = props.drainSeconds ?? 5;
    if (!Number.isInteger(drain) || drain < 0 || drain > 300) {
      throw synthError(`${this.where}: drainSeconds ${drain} must be a whole number of seconds from 0 to 300.`);
    }
    if (drain > 0) {
      const grace = ((dep.toJson() as DeploymentJson).spec?.template?.spec?.terminationGracePeriodSeconds ?? 30) + drain;
      dep.addJsonPatch(
        JsonPatch.test('/spec/template/spec/containers/0/name', 'manager'),
        JsonPatch.add('/spec/template/spec/containers/0/lifecycle', { preStop: { sleep: { seconds: drain } } }),
        JsonPatch.add('/spec/template/spec/terminationGracePeriodSeconds', grace),
      );
    }
    if (props.resources) {
      dep.addJsonPatch(JsonPatch.test('/spec/template/spec/containers/0/name', 'manager'),
        JsonPatch.replace('/spec/template/spec/containers/0/resources',
          renderResources(props.resources, `${this.where} resources`)));
    }
    // Tell the policy what the gate will be, so elastic workloads are not warned about a gate this install turns on.
    AppInventory.of(this).installElasticGate = props.elasticJobs === false || props.featureGates?.[ELASTIC_GATE] === false ? 'off' : 'on';
    AppInventory.of(this).invalidate();
    // The gate and frameworks depend on the workloads of the whole app, so they are settled at synth.
    this.node.addValidation({ validate: () => this.applyAppPatches() });
  }

  /** The image and pull secrets, and the version annotation `check` and `plan` read from dist/. */
  private patchImage(dep: ApiObject, releaseImage: string): void {
    dep.metadata.addAnnotation(KUEUE_VERSION_ANNOTATION, this.version);
    const image = installImage(this, releaseImage, this.props.image, this.where);
    if (image !== releaseImage) {
      dep.addJsonPatch(JsonPatch.test('/spec/template/spec/containers/0/name', 'manager'),
        JsonPatch.replace('/spec/template/spec/containers/0/image', image));
    }
    const secrets = pullSecretsField(this.props.imagePullSecrets, this.where);
    if (secrets.imagePullSecrets) dep.addJsonPatch(JsonPatch.add('/spec/template/spec/imagePullSecrets', secrets.imagePullSecrets));
  }

  /** How messages name this install. */
  private get where(): string {
    return `KueueInstall '${this.node.path}'`;
  }

  /** An object of the release, e.g. releaseObject('ConfigMap', 'kueue-system', 'kueue-manager-config'). */
  public releaseObject(kind: string, namespace: string, name: string): ApiObject | undefined {
    return this.objects.get(`${kind}/${namespace}/${name}`);
  }

  /** The kueue-controller-manager Deployment. */
  public deployment(): ApiObject {
    const d = this.objects.get(`Deployment/kueue-system/${DEPLOYMENT}`);
    if (!d) throw synthError(`${this.where}: the release has no Deployment kueue-system/${DEPLOYMENT}. Fix: check manifestFile.`);
    return d;
  }

  /**
   * Turns on the ClusterQueue resource metrics for a construct that queries them, unless the props turn
   * them off: the answer is then an error naming the prop. Must be called before synth. @internal
   */
  public _requireClusterQueueResourceMetrics(reader: string): string | undefined {
    if (this.props.clusterQueueResourceMetrics === false) {
      return `${this.where}: clusterQueueResourceMetrics is false, but ${reader} queries kueue_cluster_queue_resource_usage, _nominal_quota and `
        + '_borrowing_limit (its quota alerts and dashboard panels would stay empty). Fix: remove clusterQueueResourceMetrics: false.';
    }
    if (this.patched && !this.resourceMetricsReaders.includes(reader)) {
      return `${this.where}: its Configuration was written before ${reader} asked for the ClusterQueue resource metrics. Fix: construct it before `
        + 'the app is synthesized.';
    }
    if (!this.resourceMetricsReaders.includes(reader)) this.resourceMetricsReaders.push(reader);
    return undefined;
  }

  /** The feature gates the install sets (after synth-time detection), those its settings need included (DisableWaitForPodsReady). */
  public featureGates(): Record<string, boolean> {
    const gates: Record<string, boolean> = { ...settingsGates(this.props, kueueCapabilities(this.version)), ...(this.props.featureGates ?? {}) };
    const elastic = this.props.elasticJobs ?? AppInventory.of(this).workloads.some((w) => w.elastic);
    if (elastic) {
      if (gates[ELASTIC_GATE] === false) {
        throw synthError(`${this.where}: featureGates.${ELASTIC_GATE} is false but the app holds elastic Ray workloads, which `
          + 'Kueue would then refuse. Fix: remove the override or the elastic workloads.');
      }
      gates[ELASTIC_GATE] = true;
    }
    return gates;
  }

  private applyAppPatches(): string[] {
    if (this.patched) return [];
    this.patched = true;
    const errors: string[] = [];
    const cm = this.objects.get(`ConfigMap/kueue-system/${CONFIG_MAP}`);
    const configText = (cm?.toJson() as { readonly data?: Readonly<Record<string, string>> } | undefined)?.data?.[CONFIG_KEY];
    const parsed: unknown = configText ? parseYaml(configText) : undefined;
    const release = isRecord(parsed) ? parsed : undefined;
    const kueue = kueueCapabilities(this.version);
    const needed = new Set<string>(this.props.integrationFrameworks ?? []);
    for (const w of AppInventory.of(this).workloads) {
      const kind = rayKindNamed(w.kind);
      if (kind) needed.add(kind.kueueFrameworkFor(kueue));
    }
    const resourceMetrics = this.props.clusterQueueResourceMetrics ?? (this.resourceMetricsReaders.length ? true : undefined);
    const managed = this.managedTenantNamespaces(errors);
    if (managed) for (const f of MANAGED_NAMESPACE_FRAMEWORKS) needed.add(f);
    const edit = release ? editConfiguration(release, { waitForPodsReady: this.props.waitForPodsReady, fairSharing: this.props.fairSharing,
      manageJobsWithoutQueueName: this.props.manageJobsWithoutQueueName, clusterQueueResourceMetrics: resourceMetrics,
      managedNamespaceSelector: managed ? kueueManagedNamespaceSelector() : undefined,
      frameworks: [...needed] }, kueue, this.where) : {};
    const gates = this.featureGates();
    if (Object.keys(gates).length) {
      if (release?.featureGates) {
        errors.push(`${this.where}: the release's Configuration already sets featureGates, and Kueue refuses both the map and `
          + '--feature-gates. Fix: set the gates in that map instead.');
      } else {
        const arg = `--feature-gates=${Object.keys(gates).sort().map((k) => `${k}=${gates[k]}`).join(',')}`;
        // Guarded: a release whose first container is not the manager fails synth instead of patching the wrong one.
        this.deployment().addJsonPatch(JsonPatch.test('/spec/template/spec/containers/0/name', 'manager'),
          JsonPatch.add('/spec/template/spec/containers/0/args/-', arg));
      }
    }
    if (edit.config && cm) cm.addJsonPatch(JsonPatch.replace(`/data/${CONFIG_KEY}`, stringify(edit.config)));
    return errors;
  }

  /** Whether Kueue is to manage the tenant namespaces whole; a contradicting prop is an error. */
  private managedTenantNamespaces(errors: string[]): boolean {
    const tenants = AppInventory.of(this).kueueManagedNamespaces;
    const manage = this.props.manageTenantNamespaces ?? tenants.length > 0;
    if (this.props.manageTenantNamespaces === false && tenants.length) {
      errors.push(`${this.where}: manageTenantNamespaces is false, but the TenantQueues of ${tenants.join(', ')} have Kueue manage every workload `
        + 'of their namespace (manageAllWorkloads); their Pods, Jobs and Deployments would run outside the queue. Fix: remove '
        + 'manageTenantNamespaces: false, or set manageAllWorkloads: false on those TenantQueues.');
    }
    // Kueue filters every job by managedJobsNamespaceSelector, queue-named or not (v0.19.2
    // pkg/controller/jobframework/reconciler.go:336; earlier behind ManagedJobsNamespaceSelectorAlwaysRespected):
    // a LocalQueue outside the selected namespaces would never see a Workload, and its jobs stay suspended.
    const outside = manage ? [...new Set(AppInventory.of(this).snapshot().localQueues.map((q) => q.namespace))]
      .filter((ns) => ns !== undefined && !tenants.includes(ns)).sort() : [];
    if (outside.length) {
      errors.push(`${this.where}: tenant namespaces are managed whole (managedJobsNamespaceSelector selects only them), but the app also `
        + `queues jobs in ${outside.map((n) => `namespace "${n}"`).join(', ')}: Kueue applies that selector to every job, so jobs there would `
        + 'stay suspended with no Workload. Fix: set manageAllWorkloads: false on the TenantQueues (or manageTenantNamespaces: false '
        + 'here), or move those LocalQueues into TenantQueues.');
    }
    if (manage && this.props.manageJobsWithoutQueueName === false) {
      errors.push(`${this.where}: manageJobsWithoutQueueName is false, but tenant namespaces are managed whole, which needs it. Fix: remove `
        + 'manageJobsWithoutQueueName: false, or set manageTenantNamespaces: false (and manageAllWorkloads: false on the TenantQueues).');
    }
    return manage;
  }
}
