/**
 * KubeRay 1.7's cluster-spec checks (ray-operator/controllers/ray/utils/validation.go at v1.7.0): the fields behind
 * alpha operator gates, the history-server collector, NetworkPolicy, mTLS, the embedded GCS store, and worker-group
 * priority. A field behind a gate is refused by KubeRay when the gate is off (the default), and its inconsistent uses
 * are refused when it is on; so the gate is a warning (check cannot see the operator's flags, and upstream's own samples
 * assume the gate on) and each inconsistency an error under either setting. Each check runs only where the version's
 * capabilities say so.
 */
import { AutoscalerOptionsJson, ClusterSpecAt, clusterSpecOf, ContainerJson, NetworkPolicyRulesJson, RAY_KINDS, RayObject } from '../kinds';
import { DNS1123_LABEL } from '../k8s-names';
import { isRecord, listOf, shown, workerGroupsOf } from '../ray-object';
import { compareVersions } from '../versions';
import { asksAutoscalerV2, envNamed, genericVersion, hasEnv } from './kuberay-cluster';
import { defineRule, Reporter, RuleRecord } from './rule';


/** Fields KubeRay refuses unless an alpha gate (off by default) is on: a warning naming the gate. */
export const kubeRayAlphaGates = defineRule({
  name: 'kubeRayAlphaGates', source: 'kuberay-operator', kinds: RAY_KINDS,
  description: 'Cluster-spec fields that need an alpha KubeRay operator gate, off by default, are flagged with the gate to turn on.',
}, (r, obj, ctx) => {
  const cs = clusterSpecOf(obj);
  if (!cs) return r.findings;
  for (const [field, gate] of Object.entries(ctx.kubeRay.alphaGatedFields)) {
    const [parent, child] = field.split('.');
    const holder = cs.spec[parent];
    const value = child ? (isRecord(holder) ? holder[child] : undefined) : cs.spec[field]; // only a JSON object has such a field
    // The embedded GCS store is the gated backend; redis (the default) needs no gate.
    if (value === undefined || value === null || (child === 'backend' && value !== 'rocksdb')) continue;
    r.warn(`${cs.path}.${field}`, `KubeRay ${ctx.kubeRay.version} refuses ${field}${child ? ` ${shown(value)}` : ''} unless the operator's ${gate} `
      + 'feature gate (alpha) is on, which it is not by default', `start the KubeRay operator with --feature-gates=${gate}=true, or remove ${field}`);
  }
  return r.findings;
});

const COLLECTOR = 'ray-history-collector';
const COLLECTOR_MANAGED_ENV = ['POD_IP', 'FQ_RAY_IP', 'RAY_CLUSTER_NAME', 'RAY_CLUSTER_NAMESPACE', 'RAY_ROLE', 'OWNER_KIND', 'OWNER_NAME',
  'EVENTS_PORT'];
/** Per STORAGE_BACKEND: env vars of which at least one of each inner list must have a value. */
const COLLECTOR_BACKEND_ENV: Record<string, string[][]> = {
  GCS: [['GCS_BUCKET']], S3: [['S3_REGION']], ALIYUNOSS: [['OSS_BUCKET'], ['OSS_ENDPOINT'], ['OSS_REGION']],
};

/** historyServerOptions.collectorOptions as KubeRay's validateCollectorOptions reads it (historyServerOptions is a JSON object). */
function collectorChecks(r: Reporter, cs: ClusterSpecAt, obj: RayObject): void {
  const at = `${cs.path}.historyServerOptions.collectorOptions`;
  const opts = cs.spec.historyServerOptions!.collectorOptions;
  if (!isRecord(opts)) {
    r.error(at, 'historyServerOptions needs collectorOptions (KubeRay)', 'set collectorOptions with the collector image and its storage env');
    return;
  }
  if (typeof opts.image !== 'string' || opts.image === '') r.error(`${at}.image`, 'the collector image must be set (KubeRay)', 'set image');
  const env = listOf(opts.env);
  const has = (name: string) => { const e = envNamed(env, name); return !!e && ((typeof e.value === 'string' && e.value !== '') || !!e.valueFrom); };
  for (const name of COLLECTOR_MANAGED_ENV.filter((n) => envNamed(env, n))) {
    r.error(`${at}.env`, `${name} is set by KubeRay in the collector container and cannot be set here`, `remove ${name}`);
  }
  const backend = envNamed(env, 'STORAGE_BACKEND')?.value;
  if (typeof backend !== 'string' || backend === '') {
    r.error(`${at}.env`, 'STORAGE_BACKEND must be set with a literal value (KubeRay)', 'add STORAGE_BACKEND, e.g. S3 or GCS');
  } else {
    const kind = backend.toUpperCase();
    const mode = String(envNamed(env, 'AZURE_STORAGE_AUTH_MODE')?.value ?? '').trim().toLowerCase();
    const azure = mode === 'connection_string' ? [['AZURE_STORAGE_CONNECTION_STRING']] : ['workload_identity', 'default'].includes(mode)
      ? [['AZURE_STORAGE_ACCOUNT_URL']] : [['AZURE_STORAGE_CONNECTION_STRING', 'AZURE_STORAGE_ACCOUNT_URL']];
    for (const anyOf of (kind === 'AZUREBLOB' ? azure : COLLECTOR_BACKEND_ENV[kind] ?? []).filter((names) => !names.some(has))) {
      r.error(`${at}.env`, `${anyOf.join(' or ')} must be set when STORAGE_BACKEND is ${kind} (KubeRay)`, `add ${anyOf[0]}`);
    }
  }
  const templates = [{ path: `${cs.path}.headGroupSpec`, t: cs.spec.headGroupSpec?.template },
    ...workerGroupsOf(obj).map((g, i) => ({ path: `${cs.path}.workerGroupSpecs[${i}]`, t: g?.template }))];
  for (const { path, t } of templates) {
    const i = listOf(t?.spec?.containers).findIndex((c) => c?.name === COLLECTOR);
    if (i >= 0) r.error(`${path}.template.spec.containers[${i}].name`, `KubeRay adds the ${COLLECTOR} container itself`, 'rename this container');
  }
}

/**
 * networkPolicy rules only on the directions its mode restricts, each workerGroups entry naming a group, DNS-1123 group
 * names (networkPolicy is a JSON object).
 */
function networkPolicyChecks(r: Reporter, cs: ClusterSpecAt, obj: RayObject): void {
  const np = cs.spec.networkPolicy!;
  const mode = typeof np.mode === 'string' ? np.mode : 'DenyAll';
  const at = `${cs.path}.networkPolicy`;
  const rules = (x: NetworkPolicyRulesJson | undefined, where: string) => {
    if (mode === 'DenyAllEgress' && listOf(x?.ingressRules).length) r.error(`${where}.ingressRules`,
      `ingress rules do nothing with mode ${mode} (ingress is not restricted); KubeRay refuses them`, 'remove them, or use mode DenyAll');
    if (mode === 'DenyAllIngress' && listOf(x?.egressRules).length) r.error(`${where}.egressRules`,
      `egress rules do nothing with mode ${mode} (egress is not restricted); KubeRay refuses them`, 'remove them, or use mode DenyAll');
  };
  rules(np.head, `${at}.head`);
  rules(np.worker, `${at}.worker`);
  const names = workerGroupsOf(obj).map((g) => g?.groupName);
  names.forEach((n, i) => {
    if (typeof n === 'string' && !DNS1123_LABEL.test(n)) r.error(`${cs.path}.workerGroupSpecs[${i}].groupName`,
      `with networkPolicy, a group name is part of a NetworkPolicy name and must be a DNS-1123 label, not ${shown(n)} (KubeRay)`,
      'use lower-case letters, digits and -');
  });
  listOf(np.workerGroups).forEach((wg, i) => {
    rules(wg, `${at}.workerGroups[${i}]`);
    if (!names.includes(wg?.groupName)) r.error(`${at}.workerGroups[${i}].groupName`,
      `${shown(wg?.groupName)} names no worker group of this cluster (KubeRay)`, `use one of ${names.map((n) => shown(n)).join(', ')}`);
  });
}

const TLS_ENV = ['RAY_USE_TLS', 'RAY_TLS_SERVER_CERT', 'RAY_TLS_SERVER_KEY', 'RAY_TLS_CA_CERT'];

/** With tlsOptions.enabled, KubeRay owns the TLS env vars and the ray-tls mount (/etc/ray/tls) of the Ray containers and the autoscaler. */
function tlsChecks(r: Reporter, cs: ClusterSpecAt, obj: RayObject): void {
  type Place = { readonly path: string; readonly c: ContainerJson | AutoscalerOptionsJson };
  const places: ReadonlyArray<Place | { readonly path: string; readonly c: undefined }> = [
    { path: `${cs.path}.headGroupSpec.template.spec.containers[0]`, c: listOf(cs.spec.headGroupSpec?.template?.spec?.containers)[0] },
    ...workerGroupsOf(obj).map((g, i) => ({ path: `${cs.path}.workerGroupSpecs[${i}].template.spec.containers[0]`,
      c: listOf(g?.template?.spec?.containers)[0] })),
    { path: `${cs.path}.autoscalerOptions`, c: cs.spec.autoscalerOptions }];
  for (const { path, c } of places.filter((p): p is Place => isRecord(p.c))) {
    for (const name of TLS_ENV.filter((n) => envNamed(c.env, n))) {
      r.error(`${path}.env`, `${name} is set by KubeRay when tlsOptions is enabled`, `remove ${name}`);
    }
    listOf(c.volumeMounts).forEach((m, i) => {
      if (m?.name === 'ray-tls' || m?.mountPath === '/etc/ray/tls') r.error(`${path}.volumeMounts[${i}]`,
        'the ray-tls volume at /etc/ray/tls is mounted by KubeRay when tlsOptions is enabled', 'use another name and path');
    });
  }
}

/**
 * The embedded RocksDB GCS store: no Redis settings, and KubeRay's own env, volume and mount; storage only with rocksdb
 * (gcsFaultToleranceOptions is a JSON object).
 */
function gcsBackendChecks(r: Reporter, cs: ClusterSpecAt): void {
  const o = cs.spec.gcsFaultToleranceOptions!;
  const at = `${cs.path}.gcsFaultToleranceOptions`;
  if (o.backend !== 'rocksdb') {
    if (o.storage !== undefined && o.storage !== null) r.error(`${at}.storage`, 'storage applies only to the rocksdb backend (KubeRay)',
      'remove storage, or set backend: rocksdb');
    return;
  }
  for (const f of ['redisAddress', 'redisUsername', 'redisPassword', 'externalStorageNamespace']) {
    if (o[f] !== undefined && o[f] !== null && o[f] !== '') r.error(`${at}.${f}`, `${f} is a Redis setting; the rocksdb backend refuses it (KubeRay)`,
      `remove ${f}`);
  }
  const s = o.storage;
  if (isRecord(s) && s.claimName && (s.size !== undefined || s.storageClassName !== undefined || listOf(s.accessModes).length)) {
    r.error(`${at}.storage.claimName`, 'claimName names an existing claim: size, storageClassName and accessModes cannot be set with it (KubeRay)',
      'keep claimName, or the claim settings');
  }
  const headPath = `${cs.path}.headGroupSpec.template.spec`;
  const head = listOf(cs.spec.headGroupSpec?.template?.spec?.containers)[0];
  if (hasEnv(cs.spec, 'RAY_gcs_storage') || hasEnv(cs.spec, 'RAY_gcs_storage_path')) {
    r.error(`${headPath}.containers[0].env`, 'RAY_gcs_storage and RAY_gcs_storage_path are set by KubeRay for the rocksdb backend', 'remove them');
  }
  listOf(head?.volumeMounts).forEach((m, i) => {
    if (m?.name === 'gcs-storage' || m?.mountPath === '/data/gcs') r.error(`${headPath}.containers[0].volumeMounts[${i}]`,
      'the gcs-storage mount at /data/gcs is KubeRay\'s for the rocksdb backend', 'use another name and path');
  });
  listOf(cs.spec.headGroupSpec?.template?.spec?.volumes).forEach((v, i) => {
    if (v?.name === 'gcs-storage') r.error(`${headPath}.volumes[${i}]`, 'the gcs-storage volume is KubeRay\'s for the rocksdb backend', 'rename it');
  });
}

const PRIORITY_RAY = '2.56.0';

/** A worker group's priority needs Ray >= 2.56.0 and autoscaler v2 (validateWorkerGroupPriority). */
function priorityChecks(r: Reporter, cs: ClusterSpecAt, obj: RayObject): void {
  const v2 = asksAutoscalerV2(cs.spec);
  workerGroupsOf(obj).forEach((g, i) => {
    if (typeof g?.priority !== 'number' || g.priority === 0) return;
    const at = `${cs.path}.workerGroupSpecs[${i}].priority`;
    const raw = cs.spec.rayVersion;
    const version = typeof raw === 'string' ? genericVersion(raw) : undefined;
    if (raw === undefined || raw === '') r.error(`${cs.path}.rayVersion`, `a worker group priority needs rayVersion (Ray >= ${PRIORITY_RAY})`,
      `set rayVersion, e.g. "${PRIORITY_RAY}"`);
    else if (!version) r.error(`${cs.path}.rayVersion`, `rayVersion ${shown(raw)} is not a version KubeRay can compare (worker group priority)`,
      `write it as major.minor.patch, e.g. "${PRIORITY_RAY}"`);
    else if (compareVersions(version, PRIORITY_RAY) < 0) r.error(at, `a worker group priority needs Ray >= ${PRIORITY_RAY}, not ${raw}`,
      `use Ray >= ${PRIORITY_RAY}, or remove priority`);
    else if (!v2) r.error(at, 'a worker group priority needs autoscaler v2 (KubeRay)', `set ${cs.path}.autoscalerOptions.version: v2`);
  });
}

/** KubeRay 1.7's checks of the new cluster-spec fields. */
export const kubeRayClusterFeatures = defineRule({
  name: 'kubeRayClusterFeatures', source: 'kuberay-operator', kinds: RAY_KINDS,
  description: 'The history-server collector, networkPolicy, tlsOptions, the GCS storage backend and worker-group priority pass KubeRay\'s checks.',
}, (r, obj, ctx) => {
  const cs = clusterSpecOf(obj);
  if (!cs) return r.findings;
  const gated = ctx.kubeRay.alphaGatedFields;
  if (gated.historyServerOptions && isRecord(cs.spec.historyServerOptions)) collectorChecks(r, cs, obj);
  if (gated.networkPolicy && isRecord(cs.spec.networkPolicy)) networkPolicyChecks(r, cs, obj);
  if (gated.tlsOptions && cs.spec.tlsOptions?.enabled === true) tlsChecks(r, cs, obj);
  if (ctx.kubeRay.gcsStorageBackend && isRecord(cs.spec.gcsFaultToleranceOptions)) gcsBackendChecks(r, cs);
  if (ctx.kubeRay.workerGroupPriority) priorityChecks(r, cs, obj);
  return r.findings;
});

export const KUBERAY_FEATURE_RULES: readonly RuleRecord[] = [kubeRayAlphaGates, kubeRayClusterFeatures];
