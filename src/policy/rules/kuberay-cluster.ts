/**
 * The cluster-spec checks of KubeRay's ValidateRayClusterSpec that the CRD accepts and the operator then
 * refuses (ray-operator/controllers/ray/utils/validation.go): GCS fault tolerance and Redis settings,
 * the groups' `resources`/`labels`, token authentication, and a RayService's annotations and delay.
 * Each check exists only in the KubeRay versions whose capabilities say so.
 */
import { parseGoDuration } from '../go-duration';
import { clusterSpecOf, EnvVarJson, RAY_CLUSTER, RAY_KINDS, RAY_SERVICE, RayClusterSpecJson, RayObject } from '../kinds';
import { isRecord, listOf, workerGroupsOf } from '../ray-object';
import { compareVersions, KubeRayCapabilities } from '../versions';
import { labelKeyProblem, labelValueProblem } from './object-shape';
import { defineRule, Reporter, RuleRecord } from './rule';

/** The env list of a cluster spec's head Ray container (containers[0]). */
export const headEnv = (spec: RayClusterSpecJson | undefined): readonly EnvVarJson[] =>
  listOf(listOf(spec?.headGroupSpec?.template?.spec?.containers)[0]?.env);
/** The entry of an env list with that name (only a JSON object has a name). */
export const envNamed = (env: unknown, name: string): EnvVarJson | undefined =>
  listOf(env).find((e): e is EnvVarJson => isRecord(e) && e.name === name);
/** Autoscaler v2 is asked for: autoscalerOptions.version v2, or the head env RAY_enable_autoscaler_v2 on (how KubeRay's idle-timeout and priority checks read it). */
export const asksAutoscalerV2 = (spec: RayClusterSpecJson | undefined): boolean => spec?.autoscalerOptions?.version === 'v2'
  || (['1', 'true'] as readonly unknown[]).includes(envNamed(headEnv(spec), 'RAY_enable_autoscaler_v2')?.value);
/** The head Ray container sets that env variable. */
export const hasEnv = (spec: RayClusterSpecJson | undefined, name: string): boolean => envNamed(headEnv(spec), name) !== undefined;

/** GCS fault tolerance is set one way, and Redis settings go through gcsFaultToleranceOptions. */
export const gcsFaultTolerance = defineRule({
  name: 'gcsFaultTolerance', source: 'kuberay-operator', kinds: RAY_KINDS,
  description: 'GCS fault tolerance is set once (the ray.io/ft-enabled annotation or gcsFaultToleranceOptions), and its Redis settings '
    + 'go through gcsFaultToleranceOptions.',
}, (r, obj) => {
  const cs = clusterSpecOf(obj);
  if (!cs) return r.findings;
  const annotations = isRecord(obj.metadata?.annotations) ? obj.metadata.annotations : {};
  const ft = annotations['ray.io/ft-enabled'];
  const options = cs.spec.gcsFaultToleranceOptions !== undefined && cs.spec.gcsFaultToleranceOptions !== null;
  const env = `${cs.path}.headGroupSpec.template.spec.containers[0].env`;
  const params = isRecord(cs.spec.headGroupSpec?.rayStartParams) ? cs.spec.headGroupSpec.rayStartParams : {};
  if (options && typeof ft === 'string' && ft !== '') {
    r.error('metadata.annotations[ray.io/ft-enabled]', 'the ray.io/ft-enabled annotation cannot be combined with gcsFaultToleranceOptions (KubeRay)',
      'remove the annotation: gcsFaultToleranceOptions turns fault tolerance on');
  }
  const enabled = options || (typeof ft === 'string' && ft.toLowerCase() === 'true');
  if (!enabled && hasEnv(cs.spec, 'RAY_REDIS_ADDRESS')) {
    r.error(env, 'RAY_REDIS_ADDRESS turns GCS fault tolerance on implicitly, which KubeRay refuses without gcsFaultToleranceOptions',
      `set ${cs.path}.gcsFaultToleranceOptions.redisAddress instead of the env`);
  }
  if (options) {
    const moved = (field: string, what: string, instead: string) => r.error(field,
      `${what} cannot be set when gcsFaultToleranceOptions is (KubeRay)`, `use ${cs.path}.gcsFaultToleranceOptions.${instead} instead`);
    if (typeof params['redis-password'] === 'string' && params['redis-password'] !== '') {
      moved(`${cs.path}.headGroupSpec.rayStartParams.redis-password`, 'rayStartParams redis-password', 'redisPassword');
    }
    if (hasEnv(cs.spec, 'REDIS_PASSWORD')) moved(env, 'the head env REDIS_PASSWORD', 'redisPassword');
    if (hasEnv(cs.spec, 'RAY_REDIS_ADDRESS')) moved(env, 'the head env RAY_REDIS_ADDRESS', 'redisAddress');
    const ns = annotations['ray.io/external-storage-namespace'];
    if (typeof ns === 'string' && ns !== '') {
      moved('metadata.annotations[ray.io/external-storage-namespace]', 'the ray.io/external-storage-namespace annotation',
        'externalStorageNamespace');
    }
  }
  if ((typeof params['redis-username'] === 'string' && params['redis-username'] !== '') || hasEnv(cs.spec, 'REDIS_USERNAME')) {
    r.error(params['redis-username'] ? `${cs.path}.headGroupSpec.rayStartParams.redis-username` : env,
      'KubeRay refuses a Redis username in rayStartParams or the head env', `use ${cs.path}.gcsFaultToleranceOptions.redisUsername`);
  }
  return r.findings;
});

const RAY_START_RESOURCES = ['num-cpus', 'num-gpus', 'memory', 'resources'];

/** One group's `resources`, `labels` and the rayStartParams they replace (KubeRay >= 1.5). */
function checkGroup(r: Reporter, group: unknown, at: string): void {
  if (!isRecord(group)) return;
  const params = isRecord(group.rayStartParams) ? group.rayStartParams : {};
  const inParams = RAY_START_RESOURCES.filter((k) => typeof params[k] === 'string' && params[k] !== '');
  if (inParams.length && isRecord(group.resources) && Object.keys(group.resources).length) {
    r.error(`${at}.resources`, `Ray resources are set both in resources and in rayStartParams (${inParams.join(', ')}); KubeRay refuses both`,
      `keep one: ${at}.resources, or rayStartParams ${inParams.join(', ')}`);
  }
  if ('labels' in params) {
    r.error(`${at}.rayStartParams.labels`, 'KubeRay does not take Ray node labels in rayStartParams', `use ${at}.labels (a map)`);
  }
  if (isRecord(group.labels)) {
    for (const [key, value] of Object.entries(group.labels)) {
      const problem = labelKeyProblem(key) ?? (typeof value === 'string' ? labelValueProblem(value) : undefined);
      if (problem) r.error(`${at}.labels[${key}]`, `Ray label "${key}": ${problem} (KubeRay checks them as Kubernetes labels)`,
        'use a valid label key and value, e.g. example.com/zone: a');
    }
  }
}

/** Cluster-spec fields KubeRay checks beyond the CRD: group resources and labels, an upgrade strategy on a cluster it creates. */
export const rayClusterConfig = defineRule({
  name: 'rayClusterConfig', source: 'kuberay-operator', kinds: RAY_KINDS,
  description: 'Group resources and labels, and a RayCluster\'s upgradeStrategy, pass KubeRay\'s validation.',
}, (r, obj, ctx) => {
  const cs = clusterSpecOf(obj);
  if (!cs) return r.findings;
  if (ctx.kubeRay.groupResourcesAndLabels) {
    checkGroup(r, cs.spec.headGroupSpec, `${cs.path}.headGroupSpec`);
    workerGroupsOf(obj).forEach((g, i) => checkGroup(r, g, `${cs.path}.workerGroupSpecs[${i}]`));
  }
  // KubeRay copies a RayJob's or RayService's cluster spec onto the RayCluster it creates, then refuses that
  // RayCluster: upgradeStrategy belongs to a RayCluster the user creates.
  const type = cs.spec.upgradeStrategy?.type;
  if (ctx.kubeRay.rayClusterUpgradeStrategy && !RAY_CLUSTER.is(obj) && type !== undefined && type !== null) {
    r.error(`${cs.path}.upgradeStrategy`, `KubeRay refuses the RayCluster it creates for a ${obj.kind} with upgradeStrategy set`,
      `remove ${cs.path}.upgradeStrategy${RAY_SERVICE.is(obj) ? ' (a RayService upgrades through spec.upgradeStrategy)' : ''}`);
  }
  return r.findings;
});

/** k8s.io/apimachinery's ParseGeneric: at least two numeric components, `v` and trailing text allowed. */
export function genericVersion(text: string): string | undefined {
  const m = /^\s*v?([0-9]+(?:\.[0-9]+)+)/.exec(text);
  return m && !/^0\d/.test(m[1]) ? m[1] : undefined;
}

/** The first Ray with token authentication (authOptions.mode: token). */
export const TOKEN_AUTH_RAY = '2.52.0';
const K8S_TOKEN_AUTH_RAY = '2.55.0';

/**
 * Why Ray's token authentication cannot be turned on for a KubeRay and Ray version, or undefined when
 * it can: KubeRay has authOptions from 1.5, Ray token authentication from TOKEN_AUTH_RAY.
 */
export function tokenAuthUnsupported(kubeRay: KubeRayCapabilities, rayVersion: string): string | undefined {
  if (kubeRay.authOptions === 'none') return `KubeRay ${kubeRay.version} has no authOptions (KubeRay 1.5 or later has)`;
  const v = genericVersion(rayVersion);
  if (!v) return `rayVersion "${rayVersion}" is not a version KubeRay can compare`;
  if (compareVersions(v, TOKEN_AUTH_RAY) < 0) return `Ray ${rayVersion} has no token authentication (Ray ${TOKEN_AUTH_RAY} or later has)`;
  return undefined;
}

/** Token authentication needs a Ray that has it; Kubernetes token auth only on a RayCluster. */
export const rayAuthOptions = defineRule({
  name: 'rayAuthOptions', source: 'kuberay-operator', kinds: RAY_KINDS,
  description: 'authOptions match the Ray version, and Kubernetes token authentication is used only where KubeRay supports it.',
}, (r, obj, ctx) => {
  const cs = clusterSpecOf(obj);
  const auth = cs?.spec.authOptions;
  if (!cs || !isRecord(auth) || ctx.kubeRay.authOptions === 'none') return r.findings;
  const at = `${cs.path}.authOptions`;
  const k8s = ctx.kubeRay.authOptions === 'token-k8s' && auth.enableK8sTokenAuth === true;
  if (k8s && !RAY_CLUSTER.is(obj)) {
    r.error(`${at}.enableK8sTokenAuth`, `KubeRay does not support Kubernetes token authentication for a ${obj.kind}`,
      'remove enableK8sTokenAuth, or run a RayCluster');
    return r.findings;
  }
  if (auth.mode === 'token') {
    const raw = cs.spec.rayVersion;
    const version = typeof raw === 'string' ? genericVersion(raw) : undefined;
    if (raw === undefined || raw === '') {
      r.error(`${cs.path}.rayVersion`, `authOptions.mode token needs rayVersion (Ray >= ${TOKEN_AUTH_RAY})`,
        `set rayVersion, e.g. "${TOKEN_AUTH_RAY}"`);
    } else if (!version) {
      r.error(`${cs.path}.rayVersion`, `rayVersion "${raw}" is not a version KubeRay can compare (authOptions.mode token)`,
        `write it as major.minor.patch, e.g. "${TOKEN_AUTH_RAY}"`);
    } else if (compareVersions(version, TOKEN_AUTH_RAY) < 0) {
      r.error(`${cs.path}.rayVersion`, `authOptions.mode token needs Ray >= ${TOKEN_AUTH_RAY}, not ${raw}`,
        `use Ray >= ${TOKEN_AUTH_RAY}, or remove authOptions`);
    } else if (k8s && compareVersions(version, K8S_TOKEN_AUTH_RAY) < 0) {
      r.error(`${at}.enableK8sTokenAuth`, `Kubernetes token authentication needs Ray >= ${K8S_TOKEN_AUTH_RAY}, not ${raw}`,
        `use Ray >= ${K8S_TOKEN_AUTH_RAY}, or remove enableK8sTokenAuth`);
    } else if (k8s && typeof auth.secretName === 'string' && auth.secretName !== '') {
      r.error(`${at}.secretName`, 'secretName cannot be combined with enableK8sTokenAuth (KubeRay)', 'remove one of them');
    }
  } else if (k8s) {
    r.error(`${at}.enableK8sTokenAuth`, 'enableK8sTokenAuth needs authOptions.mode: token (KubeRay)', 'set authOptions.mode: token');
  }
  return r.findings;
});

/** A RayService's ray.io/initializing-timeout annotation and rayClusterDeletionDelaySeconds (KubeRay >= 1.5). */
export function rayServiceExtras(r: Reporter, obj: RayObject): void {
  const timeout = isRecord(obj.metadata?.annotations) ? obj.metadata.annotations['ray.io/initializing-timeout'] : undefined;
  const field = 'metadata.annotations[ray.io/initializing-timeout]';
  if (typeof timeout === 'string' && timeout !== '') {
    const d = parseGoDuration(timeout);
    const seconds = /^[-+]?\d+$/.test(timeout) ? Number(timeout) : undefined;
    if (d !== undefined ? d <= 0 : seconds !== undefined ? seconds <= 0 : true) {
      r.error(field, d === undefined && seconds === undefined ? `"${timeout}" is neither a Go duration nor whole seconds (KubeRay)`
        : `"${timeout}" must be positive (KubeRay)`, 'write a positive duration such as "10m", or whole seconds such as "600"');
    }
  }
  const delay = obj.spec?.rayClusterDeletionDelaySeconds;
  if (typeof delay === 'number' && delay < 0) {
    // The CRD's minimum (every version that has the field): the API server refuses it before KubeRay reads it.
    r.error('spec.rayClusterDeletionDelaySeconds', `must be 0 or more, not ${delay} (the CRD's minimum)`, 'use 0 or more seconds, or remove it',
      'kubernetes');
  }
}

export const KUBERAY_CLUSTER_RULES: readonly RuleRecord[] = [gcsFaultTolerance, rayClusterConfig, rayAuthOptions];
