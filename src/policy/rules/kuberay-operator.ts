/**
 * Rules only the KubeRay operator enforces (ray-operator/controllers/ray/utils/validation.go): the CRD accepts the object, then KubeRay
 * refuses it with an Event and the object stalls, sometimes holding admitted quota (kueue#13413).
 * Plus Kubernetes rules the library can check before the API server does.
 */
import { parse as parseYaml } from 'yaml';
import { ClusterSpecAt, clusterSpecOf, RAY_JOB, RAY_KINDS, RAY_SERVICE, rayKindOf, RayObject, RaySpecJson } from '../kinds';
import { parseQuantity, parseResourceList } from '../quantity';
import { DNS1035_LABEL, isDns1123Subdomain } from '../k8s-names';
import { isQueued, isRecord, listOf, podTemplatesOf, shown, workerGroupsOf } from '../ray-object';
import { RAY_CLUSTER_LABEL } from '../tenant-namespace';
import { DEFAULT_KUBERAY_VERSION, FIRST_KUBERAY_VERSION } from '../versions';
import { asksAutoscalerV2, envNamed, headEnv, rayServiceExtras } from './kuberay-cluster';
import { defineRule, Reporter, RuleRecord } from './rule';

/**
 * Bounds on the YAML the policy parses. yaml's parser recurses per nesting level: 5,000 "[" abort V8
 * (a fatal RegExp allocation failure no try/catch stops), and its time grows with depth and size. A
 * Ray runtime env is a mapping a few levels deep and a few KiB long.
 */
export const MAX_RUNTIME_ENV_YAML_BYTES = 64 * 1024;
export const MAX_RUNTIME_ENV_YAML_DEPTH = 32;

/** Deepest nesting of flow collections ([ and {), counted on the raw text: cheap and never below the parser's. */
function flowDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 91 || c === 123) max = Math.max(max, ++depth);
    else if ((c === 93 || c === 125) && depth > 0) depth--;
  }
  return max;
}

/** Indentation levels: at most one per leading space of a line. */
function indentDepth(text: string): number {
  let max = 0;
  for (const m of text.matchAll(/^[ \t-]+/gm)) max = Math.max(max, m[0].length);
  return max;
}

type ParsedYaml = { value: unknown } | { skipped: string };

function parseYamlOrJson(text: string): ParsedYaml {
  try {
    return { value: JSON.parse(text) }; // JSON is YAML; the fast path for generated runtime envs (V8's JSON parser does not recurse)
  } catch {
    if (text.length > MAX_RUNTIME_ENV_YAML_BYTES) return { skipped: `it is ${text.length} characters long, above the ${MAX_RUNTIME_ENV_YAML_BYTES} `
      + 'the webhook parses as YAML' };
    const depth = Math.max(flowDepth(text), indentDepth(text));
    if (depth > MAX_RUNTIME_ENV_YAML_DEPTH) return { skipped: `it nests ${depth} levels deep, above `
      + `the ${MAX_RUNTIME_ENV_YAML_DEPTH} the webhook parses` };
    return { value: parseYaml(text) };
  }
}

/** Ray object names: DNS-1035, ≤47 (RayJob, RayService) or ≤53 (RayCluster) characters. */
export const rayObjectName = defineRule({
  name: 'rayObjectName', source: 'kuberay-operator', kinds: RAY_KINDS,
  description: 'Ray object names are DNS-1035 labels short enough for KubeRay (47 or 53 characters).',
}, (r, obj) => {
  const max = rayKindOf(obj)?.maxNameLength;
  if (!max) return r.findings;
  const name = obj.metadata?.name;
  const gen = obj.metadata?.generateName;
  if ((name !== undefined && typeof name !== 'string') || (name === undefined && gen !== undefined && typeof gen !== 'string')) {
    r.error(name !== undefined ? 'metadata.name' : 'metadata.generateName', `must be a string, not ${shown(name ?? gen)}`,
      'write the name as a string', 'kubernetes');
  } else if (name !== undefined && !isDns1123Subdomain(name)) {
    r.error('metadata.name', `"${name}" is not a valid object name: the API server requires a lowercase RFC 1123 subdomain`,
      'use lowercase letters, digits, "-" and ".", starting and ending with a letter or digit', 'kubernetes');
  } else if (name !== undefined) {
    if (name.length > max) {
      r.error('metadata.name',
        `"${name}" has ${name.length} characters; KubeRay refuses ${obj.kind} names longer than ${max} (it derives child object names from them)`,
        `shorten the name to at most ${max} characters`);
    }
    if (!DNS1035_LABEL.test(name)) {
      r.error('metadata.name', `"${name}" is not a DNS-1035 label, which KubeRay requires`,
        'use lowercase letters, digits and "-", starting with a letter');
    }
  } else if (gen !== undefined) {
    // The API server appends 5 random characters to generateName.
    if (gen.length + 5 > max) {
      r.error('metadata.generateName', `"${gen}" plus the 5 generated characters exceeds KubeRay's ${max}-character limit for ${obj.kind}`,
        `shorten generateName to at most ${max - 5} characters`);
    }
    if (!/^[a-z]([-a-z0-9]*)?$/.test(gen)) {
      r.error('metadata.generateName', `"${gen}" cannot start a DNS-1035 label`, 'use lowercase letters, digits and "-", starting with a letter');
    }
  } else {
    r.error('metadata.name', 'the object has neither metadata.name nor metadata.generateName', 'set a name', 'kubernetes');
  }
  return r.findings;
});

/** Every pod template has containers; KubeRay treats containers[0] as the Ray container. */
export const podTemplateContainers = defineRule({
  name: 'podTemplateContainers', source: 'kuberay-operator', kinds: RAY_KINDS,
  description: 'Every pod template has containers, the Ray container first.',
}, (r, obj) => {
  for (const t of podTemplatesOf(obj)) {
    const containers = t.template?.spec?.containers;
    if (!Array.isArray(containers) || containers.length === 0) {
      r.error(`${t.path}.spec.containers`, 'the pod template has no containers; KubeRay needs the Ray container first',
        'add the Ray container as containers[0]');
      continue;
    }
    containers.forEach((c: unknown, i: number) => {
      if (!isRecord(c)) {
        r.error(`${t.path}.spec.containers[${i}]`, `a container must be an object, not ${shown(c)}`,
          'write the container as a mapping with name and image', 'kubernetes');
        return;
      }
      if (!c?.name) r.error(`${t.path}.spec.containers[${i}].name`, 'container has no name', 'name the container', 'kubernetes');
      if (!c?.image) r.error(`${t.path}.spec.containers[${i}].image`, 'container has no image', 'set the image', 'kubernetes');
    });
  }
  return r.findings;
});

/** Worker group names must be unique (KubeRay's validation; Kueue's PodSets would collide too). */
export const uniqueWorkerGroupNames = defineRule({
  name: 'uniqueWorkerGroupNames', source: 'kuberay-operator', kinds: RAY_KINDS,
  description: 'Worker group names are set and unique (Kueue\'s Workload needs unique PodSet names).',
}, (r, obj, ctx) => {
  const cs = clusterSpecOf(obj);
  const seen = new Set<string>();
  workerGroupsOf(obj).forEach((g, i) => {
    const name = g?.groupName;
    if (name !== undefined && typeof name !== 'string') {
      r.error(`${cs?.path}.workerGroupSpecs[${i}].groupName`, `groupName must be a string, not ${shown(name)}`, 'name the worker group with a string',
        'kubernetes');
      return;
    }
    // Neither the CRD nor KubeRay's reconcilers check names (only KubeRay's opt-in webhook refuses
    // duplicates); Kueue names a PodSet after each group, and an empty or repeated PodSet name makes the
    // Workload invalid, so a queued object never runs.
    const queued = isQueued(obj, ctx.kueue);
    if (!name) {
      // Accepted everywhere (Kueue admits a PodSet named ""), but the group's pods and metrics carry no name.
      r.warn(`${cs?.path}.workerGroupSpecs[${i}].groupName`, 'worker group has no groupName', 'name every worker group');
    } else if (seen.has(name)) {
      r.report(queued ? 'error' : 'warning', `${cs?.path}.workerGroupSpecs[${i}].groupName`,
        `worker group name "${name}" is used `
          + `twice${queued ? ": Kueue's Workload needs unique PodSet names, so it is refused" : ' (KubeRay merges their pods by group name)'}`,
        'give each worker group a unique groupName', queued ? 'kueue-workload' : undefined);
    }
    if (name) seen.add(name);
  });
  return r.findings;
});

/** Replicas within [minReplicas, maxReplicas]: KubeRay clamps (1.6 refuses min > max), Kueue counts the raw value. */
export const workerReplicaBounds = defineRule({
  name: 'workerReplicaBounds', source: 'kuberay-operator', kinds: RAY_KINDS,
  description: 'Worker replicas lie within minReplicas and maxReplicas.',
}, (r, obj, ctx) => {
  const cs = clusterSpecOf(obj);
  workerGroupsOf(obj).forEach((g, i) => {
    const p = `${cs?.path}.workerGroupSpecs[${i}]`;
    const ints: Array<[string, unknown]> = [['minReplicas', g?.minReplicas], ['maxReplicas', g?.maxReplicas], ['replicas', g?.replicas]];
    const wrong = ints.filter(([, v]) => v !== undefined && v !== null && !Number.isInteger(v));
    for (const [f, v] of wrong) r.error(`${p}.${f}`, `${f} must be an integer, not ${shown(v)}`, `write ${f} as a whole number`, 'kubernetes');
    const min = g?.minReplicas ?? 0;
    const max = g?.maxReplicas ?? 2147483647;
    const rep: number | undefined = g?.replicas ?? undefined;
    const queued = isQueued(obj, ctx.kueue);
    if (wrong.length) {
      // compared only when all three are numbers
    } else if (min > max) {
      if (ctx.kubeRay.refusesMinAboveMax) r.error(`${p}.minReplicas`,
        `minReplicas ${min} is above maxReplicas ${max}; KubeRay ${ctx.kubeRay.version} refuses the cluster`, 'make minReplicas <= maxReplicas');
      else r.warn(`${p}.minReplicas`, `minReplicas ${min} is above maxReplicas ${max}; KubeRay ${ctx.kubeRay.version} silently uses maxReplicas`,
        'make minReplicas <= maxReplicas');
    } else if (ctx.kubeRay.refusesMinAboveMax && (min < 0 || max < 0)) {
      r.error(`${p}.${min < 0 ? 'minReplicas' : 'maxReplicas'}`,
        `${min < 0 ? 'minReplicas' : 'maxReplicas'} must be >= 0 (KubeRay ${ctx.kubeRay.version})`, 'use 0 or more');
    } else if (rep !== undefined && (rep < min || rep > max)) {
      // KubeRay's reconcilers never refuse this: they create clamp(replicas, min, max) pods. Kueue admits
      // quota for the raw replicas. Below the minimum the cluster runs pods Kueue never admitted.
      const pods = Math.min(Math.max(rep, min), max);
      const msg = `replicas ${rep} is outside [${min}, ${max}]: KubeRay creates ${pods} pods${queued ? ` while Kueue admits quota for ${rep}` : ''}`;
      const fix = 'set replicas between minReplicas and maxReplicas';
      if (queued && rep < min) r.error(`${p}.replicas`, `${msg}, so the cluster runs beyond its quota`, fix, 'kueue-workload');
      else r.warn(`${p}.replicas`, msg, fix, queued ? 'kueue-workload' : undefined);
    }
    // A group of 0 with nothing to scale it: accepted everywhere, and it never runs a pod (often a forgotten replicas).
    if (!wrong.length && rep === 0 && cs?.spec.enableInTreeAutoscaling !== true && g?.suspend !== true) {
      r.warn(`${p}.replicas`, `worker group "${shown(g?.groupName)}" has 0 replicas and autoscaling is off: it never runs a pod`,
        'set replicas to the workers the group should run, or turn on enableInTreeAutoscaling to scale it from 0');
    }
    // The CRD accepts any integer; below 1 KubeRay creates no pods for the group.
    const hosts = g?.numOfHosts;
    if (hosts !== undefined && hosts !== null && !Number.isInteger(hosts)) {
      r.error(`${p}.numOfHosts`, `numOfHosts must be an integer, not ${shown(hosts)}`, 'write numOfHosts as a whole number', 'kubernetes');
    } else if (typeof hosts === 'number' && hosts < 1) {
      // Measured on the test control plane: Kueue still counts the replicas (numOfHosts < 1 as 1).
      r.warn(`${p}.numOfHosts`,
        `numOfHosts ${hosts}: KubeRay creates no pods for this worker `
          + `group${isQueued(obj, ctx.kueue) ? ', while Kueue still reserves quota for its replicas' : ''}`,
        'set numOfHosts to the pods per replica (1 unless multi-host TPU)');
    }
  });
  return r.findings;
});

/** submissionMode must exist in the chosen KubeRay; SidecarMode has its own constraints. */
export const rayJobSubmissionMode = defineRule({
  name: 'rayJobSubmissionMode', source: 'kuberay-operator', kinds: ['RayJob'],
  description: 'The RayJob submissionMode exists in the chosen KubeRay and meets its constraints.',
}, (r, obj, ctx) => {
  if (!RAY_JOB.is(obj)) return r.findings;
  const mode = obj.spec?.submissionMode ?? 'K8sJobMode';
  if (typeof mode !== 'string') {
    r.error('spec.submissionMode', `submissionMode must be a string, not ${shown(mode)}`, `use one of ${ctx.kubeRay.submissionModes.join(', ')}`,
      'kubernetes');
    return r.findings;
  }
  if (!ctx.kubeRay.submissionModes.includes(mode)) {
    const fix = mode === 'SidecarMode'
      ? `choose KubeRay >= ${FIRST_KUBERAY_VERSION.sidecarMode} (${DEFAULT_KUBERAY_VERSION} is the default), or use K8sJobMode`
      : `use one of ${ctx.kubeRay.submissionModes.join(', ')}`;
    r.error('spec.submissionMode',
      `submissionMode "${shown(mode)}" is not supported by `
        + `KubeRay ${ctx.kubeRay.version}${mode === 'SidecarMode' ? ` (SidecarMode needs KubeRay >= ${FIRST_KUBERAY_VERSION.sidecarMode})` : ''}`,
      fix);
  }
  if (mode === 'SidecarMode') {
    if (obj.spec?.submitterPodTemplate) r.error('spec.submitterPodTemplate', 'SidecarMode does not use a submitter pod',
      'remove submitterPodTemplate or use K8sJobMode');
    if (obj.spec?.submitterConfig) r.error('spec.submitterConfig', 'SidecarMode does not use submitterConfig',
      'remove submitterConfig or use K8sJobMode');
    if (obj.spec?.clusterSelector) r.error('spec.clusterSelector', 'SidecarMode cannot use an existing cluster', 'remove clusterSelector');
    const rp = obj.spec?.rayClusterSpec?.headGroupSpec?.template?.spec?.restartPolicy;
    if (rp !== undefined && rp !== 'Never') r.error('spec.rayClusterSpec.headGroupSpec.template.spec.restartPolicy',
      `SidecarMode needs the head restartPolicy Never or unset, not ${shown(rp)}`, 'set restartPolicy: Never or remove it');
  }
  if (mode === 'InteractiveMode' && typeof obj.spec?.backoffLimit === 'number' && obj.spec.backoffLimit > 0) {
    r.error('spec.backoffLimit', 'InteractiveMode does not support backoffLimit > 0', 'set backoffLimit: 0 or use K8sJobMode');
  }
  return r.findings;
});

/** RayJob lifecycle fields KubeRay validates (ValidateRayJobSpec). */
export const rayJobLifecycle = defineRule({
  name: 'rayJobLifecycle', source: 'kuberay-operator', kinds: ['RayJob'],
  description: 'RayJob lifecycle fields pass KubeRay\'s validation (suspend, TTL, deadlines, backoff, runtime env).',
}, (r, obj, ctx) => {
  if (!RAY_JOB.is(obj)) return r.findings;
  const s = isRecord(obj.spec) ? obj.spec : {};
  if (s.suspend === true && s.shutdownAfterJobFinishes !== true) {
    r.error('spec.suspend', 'a suspended RayJob needs shutdownAfterJobFinishes: true (KubeRay)', 'set spec.shutdownAfterJobFinishes: true');
  }
  // KubeRay treats an empty clusterSelector as none.
  const selector = isRecord(s.clusterSelector) && Object.keys(s.clusterSelector).length > 0 ? s.clusterSelector : undefined;
  if (s.suspend === true && selector) {
    r.error('spec.suspend', 'a RayJob using clusterSelector cannot be suspended (KubeRay)', 'remove suspend or clusterSelector');
  }
  if (selector && ctx.kubeRay.clusterSelectorNeedsClusterKey && !selector[RAY_CLUSTER_LABEL]) {
    r.error('spec.clusterSelector', `clusterSelector needs the ray.io/cluster key naming the RayCluster (KubeRay ${ctx.kubeRay.version})`,
      'set clusterSelector: { ray.io/cluster: <name of the RayCluster> }');
  }
  if (selector && ctx.kubeRay.preRunningDeadline && typeof s.backoffLimit === 'number' && s.backoffLimit > 0) {
    r.error('spec.backoffLimit', `backoffLimit is incompatible with clusterSelector (KubeRay ${ctx.kubeRay.version})`,
      'remove backoffLimit, or let the job create its own cluster');
  }
  const ttl = s.ttlSecondsAfterFinished;
  if (typeof ttl === 'number' && ttl < 0) r.error('spec.ttlSecondsAfterFinished', `ttlSecondsAfterFinished ${ttl} is negative`,
    'use 0 or more seconds');
  if (typeof ttl === 'number' && ttl > 0 && s.shutdownAfterJobFinishes !== true) {
    r.error('spec.ttlSecondsAfterFinished', 'ttlSecondsAfterFinished > 0 needs shutdownAfterJobFinishes: true (KubeRay)',
      'set shutdownAfterJobFinishes: true or remove the TTL');
  }
  for (const f of ['ttlSecondsAfterFinished', 'activeDeadlineSeconds', 'backoffLimit'] as const) {
    if (s[f] !== undefined && s[f] !== null && !Number.isInteger(s[f])) r.error(`spec.${f}`, `${f} must be an integer, not ${shown(s[f])}`,
      `write ${f} as a whole number`, 'kubernetes');
  }
  if (typeof s.activeDeadlineSeconds === 'number' && !(s.activeDeadlineSeconds > 0)) {
    r.error('spec.activeDeadlineSeconds', `activeDeadlineSeconds ${s.activeDeadlineSeconds} must be > 0`,
      'use a positive number of seconds or remove it');
  }
  if (typeof s.backoffLimit === 'number' && s.backoffLimit < 0) r.error('spec.backoffLimit', `backoffLimit ${s.backoffLimit} is negative`,
    'use 0 or more');
  if (typeof s.runtimeEnvYAML === 'string') {
    try {
      const parsed = parseYamlOrJson(s.runtimeEnvYAML);
      if ('skipped' in parsed) {
        r.warn('spec.runtimeEnvYAML', `runtimeEnvYAML was not checked: ${parsed.skipped}`,
          'write the runtime env as JSON, or keep it a small mapping such as "pip: [requests]"');
      } else if (parsed.value !== null && parsed.value !== undefined
        && (typeof parsed.value !== 'object' || Array.isArray(parsed.value))) throw new Error('not a mapping');
    } catch (e) {
      r.error('spec.runtimeEnvYAML', `runtimeEnvYAML is not a YAML mapping (${String((e as Error)?.message).split('\n')[0]})`,
        'give a YAML mapping such as "pip: [requests]"');
    }
  } else if (s.runtimeEnvYAML !== undefined && s.runtimeEnvYAML !== null) {
    r.error('spec.runtimeEnvYAML', `runtimeEnvYAML must be a string, not ${shown(s.runtimeEnvYAML)}`, 'give the runtime env as a YAML or JSON string',
      'kubernetes');
  }
  if (!s.rayClusterSpec && !selector) {
    r.error('spec.rayClusterSpec', 'a RayJob needs rayClusterSpec or a non-empty clusterSelector (KubeRay)', 'add a rayClusterSpec');
  }
  return r.findings;
});

/** RayService fields only KubeRay checks: the head service name, and the upgrade strategy type. */
export const rayServiceSpec = defineRule({
  name: 'rayServiceSpec', source: 'kuberay-operator', kinds: ['RayService'],
  description: 'RayService head service name, upgradeStrategy.type and clusterUpgradeOptions pass KubeRay\'s validation.',
}, (r, obj, ctx) => {
  if (!RAY_SERVICE.is(obj) || !isRecord(obj.spec)) return r.findings;
  const name = obj.spec.rayClusterConfig?.headGroupSpec?.headService?.metadata?.name;
  if (typeof name === 'string' && name !== '') {
    r.error('spec.rayClusterConfig.headGroupSpec.headService.metadata.name',
      'a RayService names its head services itself: headService.metadata.name should not be set (KubeRay)', 'remove headService.metadata.name');
  }
  const type = obj.spec.upgradeStrategy?.type;
  if (type !== undefined && type !== null && !ctx.kubeRay.rayServiceUpgradeTypes.includes(type)) {
    r.error('spec.upgradeStrategy.type',
      `upgradeStrategy.type ${shown(type)} is not one of ${ctx.kubeRay.rayServiceUpgradeTypes.join(', ')} (KubeRay ${ctx.kubeRay.version})`,
      `use one of ${ctx.kubeRay.rayServiceUpgradeTypes.join(', ')}`);
  }
  if (ctx.kubeRay.rayServiceExtras) rayServiceExtras(r, obj);
  if (ctx.kubeRay.incrementalUpgradeGateDefaultOn && type === 'NewClusterWithIncrementalUpgrade') clusterUpgradeOptions(r, obj.spec);
  return r.findings;
});

/**
 * A NewClusterWithIncrementalUpgrade RayService's clusterUpgradeOptions, as ValidateClusterUpgradeOptions checks them where
 * the RayServiceIncrementalUpgrade gate is on by default (KubeRay 1.7).
 */
function clusterUpgradeOptions(r: Reporter, spec: RaySpecJson): void {
  if (spec.rayClusterConfig?.enableInTreeAutoscaling !== true) {
    r.error('spec.rayClusterConfig.enableInTreeAutoscaling',
      'upgradeStrategy.type NewClusterWithIncrementalUpgrade needs the Ray autoscaler (KubeRay)',
      'set enableInTreeAutoscaling: true, or use upgradeStrategy.type NewCluster');
    return;
  }
  const o = spec.upgradeStrategy?.clusterUpgradeOptions; // the caller read upgradeStrategy.type
  const at = 'spec.upgradeStrategy.clusterUpgradeOptions';
  if (!isRecord(o)) {
    r.error(at, 'upgradeStrategy.type NewClusterWithIncrementalUpgrade needs clusterUpgradeOptions (KubeRay)',
      'set clusterUpgradeOptions: gatewayClassName, stepSizePercent, intervalSeconds (and maxSurgePercent, default 100)');
    return;
  }
  const percent = (v: unknown): v is number => typeof v === 'number' && v >= 0 && v <= 100;
  // The CRD defaults maxSurgePercent to 100.
  const surge = o.maxSurgePercent ?? 100;
  // Past the first two checks both are percentages, numbers.
  if (!percent(surge)) r.error(`${at}.maxSurgePercent`, `must be between 0 and 100, not ${shown(surge)} (KubeRay)`, 'use a percentage');
  else if (!percent(o.stepSizePercent)) r.error(`${at}.stepSizePercent`, `must be between 0 and 100, not ${shown(o.stepSizePercent)} (KubeRay)`,
    'use a percentage');
  else if (o.stepSizePercent > surge) r.error(`${at}.stepSizePercent`,
    `${o.stepSizePercent} is above maxSurgePercent ${surge} (KubeRay)`, 'use a stepSizePercent of at most maxSurgePercent');
  else if (typeof o.intervalSeconds !== 'number' || o.intervalSeconds <= 0) r.error(`${at}.intervalSeconds`,
    `must be greater than 0, not ${shown(o.intervalSeconds)} (KubeRay)`, 'set the seconds between traffic steps');
  else if (typeof o.gatewayClassName !== 'string' || o.gatewayClassName === '') r.error(`${at}.gatewayClassName`,
    'NewClusterWithIncrementalUpgrade needs gatewayClassName (KubeRay)', 'name the Gateway API GatewayClass');
}

/** autoscalerOptions.idleTimeoutSeconds and a worker group's idleTimeoutSeconds (v2 only), as KubeRay 1.6 checks them. */
function idleTimeouts(r: Reporter, cs: ClusterSpecAt, obj: RayObject, v2: boolean): void {
  const t = cs.spec.autoscalerOptions?.idleTimeoutSeconds;
  if (typeof t === 'number' && t < 0) {
    r.error(`${cs.path}.autoscalerOptions.idleTimeoutSeconds`, `must be 0 or more, not ${t} (KubeRay)`, 'use 0 or more seconds');
  }
  workerGroupsOf(obj).forEach((g, i) => {
    const w = g?.idleTimeoutSeconds;
    if (typeof w !== 'number') return;
    const at = `${cs.path}.workerGroupSpecs[${i}].idleTimeoutSeconds`;
    if (w < 0) r.error(at, `must be 0 or more, not ${w} (KubeRay)`, 'use 0 or more seconds');
    else if (!v2) r.error(at, 'a worker group\'s idleTimeoutSeconds needs autoscaler v2 (KubeRay)',
      `set ${cs.path}.autoscalerOptions.version: v2, or use ${cs.path}.autoscalerOptions.idleTimeoutSeconds`);
  });
}

/** Autoscaler v2 needs restartPolicy Never/unset; worker-group suspend is not allowed with autoscaling. */
export const autoscalerConstraints = defineRule({
  name: 'autoscalerConstraints', source: 'kuberay-operator', kinds: RAY_KINDS,
  description: 'Autoscaler v2 and worker-group suspend constraints of KubeRay.',
}, (r, obj, ctx) => {
  const cs = clusterSpecOf(obj);
  if (!cs) return r.findings;
  const v2Env = envNamed(headEnv(cs.spec), 'RAY_enable_autoscaler_v2');
  const envV2 = v2Env !== undefined;
  const v2 = cs.spec.autoscalerOptions?.version === 'v2';
  // KubeRay checks the autoscaler options only when autoscaling is on (ValidateRayClusterSpec).
  const autoscaling = cs.spec.enableInTreeAutoscaling === true;
  if (autoscaling && v2 && envV2) {
    r.error(`${cs.path}.autoscalerOptions.version`, 'autoscalerOptions.version and the head env RAY_enable_autoscaler_v2 cannot both be set',
      'keep autoscalerOptions.version only');
  }
  // KubeRay's IsAutoscalingV2Enabled reads autoscalerOptions.version only, not the env.
  if (autoscaling && v2) {
    for (const t of podTemplatesOf(obj).filter((x) => x.role !== 'submitter')) {
      const rp = t.template?.spec?.restartPolicy;
      if (rp !== undefined && rp !== 'Never') {
        r.error(`${t.path}.spec.restartPolicy`, `autoscaler v2 needs restartPolicy Never or unset, not ${shown(rp)}`, 'remove restartPolicy');
      }
    }
  }
  const envValue = v2Env?.value;
  if (cs.spec.enableInTreeAutoscaling !== true && (envValue === '1' || envValue === 'true') && ctx.kubeRay.autoscalerV2EnvNeedsAutoscaling) {
    r.error(`${cs.path}.enableInTreeAutoscaling`,
      `the head env RAY_enable_autoscaler_v2=${envValue} needs enableInTreeAutoscaling: true (KubeRay ${ctx.kubeRay.version})`,
      'set enableInTreeAutoscaling: true, or remove the env');
  }
  if (ctx.kubeRay.idleTimeoutChecks) idleTimeouts(r, cs, obj, asksAutoscalerV2(cs.spec));
  // Checked whether or not autoscaling is on (ValidateRayClusterSpec, KubeRay 1.7).
  const autoscalerEnv = listOf(cs.spec.autoscalerOptions?.env);
  if (ctx.kubeRay.managedAutoscalerEnv && envNamed(autoscalerEnv, 'KUBERAY_GEN_AUTOSCALER_START_CMD')) {
    r.error(`${cs.path}.autoscalerOptions.env`,
      'KUBERAY_GEN_AUTOSCALER_START_CMD is set by KubeRay in the autoscaler container (autoscalerOptions.args '
      + 'may reference it)', 'remove KUBERAY_GEN_AUTOSCALER_START_CMD from autoscalerOptions.env');
  }
  workerGroupsOf(obj).forEach((g, i) => {
    if (g?.suspend !== true) return;
    const at = `${cs.path}.workerGroupSpecs[${i}].suspend`;
    if (cs.spec.enableInTreeAutoscaling === true) r.error(at, 'worker-group suspend cannot be combined with autoscaling',
      'remove suspend from the worker group');
    else if (!ctx.kubeRay.deletionGateDefaultOn) r.error(at,
      `KubeRay ${ctx.kubeRay.version} suspends a worker group only with its RayJobDeletionPolicy feature gate on, which it is not by default`,
      'remove suspend from the worker group');
  });
  return r.findings;
});

/** managedBy only takes KubeRay's two values, and RayService has it from KubeRay 1.6. */
export const managedByField = defineRule({
  name: 'managedByField', source: 'kubernetes', kinds: RAY_KINDS,
  description: 'managedBy takes only KubeRay\'s values, on kinds and versions that have it.',
}, (r, obj, ctx) => {
  const allowed = ['ray.io/kuberay-operator', 'kueue.x-k8s.io/multikueue'];
  const check = (v: unknown, field: string) => {
    if (v !== undefined && !allowed.includes(v as string)) r.error(field,
      `managedBy "${shown(v)}" is not one of ${allowed.join(', ')} (CRD validation)`, 'leave managedBy unset for single-cluster Kueue');
  };
  if (RAY_SERVICE.is(obj)) {
    if (obj.spec?.managedBy !== undefined && !ctx.kubeRay.rayServiceManagedBy) {
      r.error('spec.managedBy', `KubeRay ${ctx.kubeRay.version} has no RayService managedBy: it is pruned`,
        `choose KubeRay >= ${FIRST_KUBERAY_VERSION.rayServiceManagedBy} or remove managedBy`);
    } else check(obj.spec?.managedBy, 'spec.managedBy');
  } else {
    check(obj.spec?.managedBy, 'spec.managedBy');
  }
  const cs = clusterSpecOf(obj);
  if (cs && cs.path !== 'spec') check(cs.spec.managedBy, `${cs.path}.managedBy`);
  return r.findings;
});

/** Requests above limits are rejected (Kubernetes, Kueue); a Ray container without requests counts as 0. */
export const containerResources = defineRule({
  name: 'containerResources', source: 'kubernetes', kinds: RAY_KINDS,
  description: 'Container requests are parsable, not above limits, and set on Ray containers.',
}, (r, obj, ctx) => {
  for (const t of podTemplatesOf(obj)) {
    const containers = listOf(t.template?.spec?.containers);
    // The Ray container's requests as Kueue counts them (containerRequests), from the lists parsed below.
    let rayRequests: Map<string, bigint> = new Map();
    for (const list of ['containers', 'initContainers'] as const) {
      const entries = list === 'containers' ? containers : listOf(t.template?.spec?.initContainers);
      for (let i = 0; i < entries.length; i++) {
        const c = entries[i];
        const p = `${t.path}.spec.${list}[${i}]`;
        let req;
        let lim;
        try {
          req = parseResourceList(c?.resources?.requests, `${p}.resources.requests`);
          lim = parseResourceList(c?.resources?.limits, `${p}.resources.limits`);
        } catch (e) {
          r.error(`${p}.resources`, (e as Error).message, 'write quantities like 500m, 2, 2Gi, 6G');
          continue;
        }
        for (const [k, v] of req) {
          const l = lim.get(k);
          if (l !== undefined && v > l) {
            // Queued, Kueue's Workload fails its resources validation and stays pending; otherwise the API
            // server refuses the Pods KubeRay creates.
            const queued = isQueued(obj, ctx.kueue);
            r.error(`${p}.resources.requests.${k}`,
              `request ${shown(c?.resources?.requests?.[k])} exceeds limit ${shown(c?.resources?.limits?.[k])}`
                + `${queued ? ": Kueue's Workload fails its resources validation and is never admitted" : ''}`,
              `lower the request or raise the limit of ${k}`, queued ? 'kueue-workload' : undefined);
          }
        }
        if (list === 'containers' && i === 0) {
          // req is not read again: completed with the limits in place (new Map(req) costs more than the parse).
          for (const [k, v] of lim) if (!req.has(k)) req.set(k, v);
          rayRequests = req;
        }
      }
    }
    const ray = containers[0];
    if (isRecord(ray) && t.role !== 'submitter') {
      const eff = rayRequests;
      const missing = ['cpu', 'memory'].filter((k) => !eff.has(k));
      if (missing.length) {
        // "Kueue counts 0" only where Kueue counts at all: an unqueued object is placed by the scheduler alone.
        const queued = isQueued(obj, ctx.kueue);
        r.warn(`${t.path}.spec.containers[0].resources`,
          `the Ray container has no ${missing.join(' or ')} request or limit, so ${queued ? 'Kueue counts 0 for it and admits more than the nodes '
            + 'can run' : 'the scheduler reserves nothing for it and may pack it onto a full node'}`,
          `set requests (and limits) for ${missing.join(' and ')}`, queued ? 'kueue-workload' : 'kubernetes');
      }
    }
  }
  return r.findings;
});

/** Whether a quantity is below zero. Only a value written with a minus sign can be: the rest is not parsed (every review runs this). */
function isNegativeQuantity(q: unknown): boolean {
  if (typeof q === 'number') return q < 0;
  if (typeof q !== 'string') return false;
  let i = 0;
  while (i < q.length && q.charCodeAt(i) <= 32) i++;
  if (q.charCodeAt(i) !== 45) return false; // '-'
  try {
    return parseQuantity(q) < 0n; // "-0" is zero; what does not parse is containerResources' to report
  } catch {
    return false;
  }
}

/** Whether a resource list holds a negative quantity (a list of another type is objectShape's). */
function hasNegative(list: unknown): boolean {
  if (!isRecord(list)) return false;
  for (const k in list) if (isNegativeQuantity(list[k])) return true;
  return false;
}

/**
 * A negative request or limit: the CRDs accept it, the API server refuses the Pods KubeRay makes, and a
 * queued object gets no Workload at all, so it sits suspended with no message (issue 40). Every resource
 * list a pod of the object gets: containers and init containers of each pod template, the pod-level
 * resources and overhead, and the autoscaler sidecar's resources. Field paths are built only for a finding.
 */
export const nonNegativeResources = defineRule({
  name: 'nonNegativeResources', source: 'kubernetes', kinds: RAY_KINDS,
  description: 'No request or limit in a Ray object\'s pod templates is negative.',
}, (r, obj, ctx) => {
  const report = (list: Record<string, unknown>, field: string) => {
    for (const k of Object.keys(list)) {
      if (!isNegativeQuantity(list[k])) continue;
      const queued = isQueued(obj, ctx.kueue);
      r.error(`${field}.${k}`, `${k} ${shown(list[k])} is negative: the API server refuses the pods KubeRay creates`
        + (queued ? ', and Kueue makes no Workload for the object, so it stays suspended with no message' : ''),
      `write a quantity of 0 or more for ${k} (e.g. 500m, 2Gi), or remove it`, queued ? 'kueue-workload' : undefined);
    }
  };
  const lists = (resources: unknown, base: string) => {
    if (!isRecord(resources)) return;
    if (isRecord(resources.requests) && hasNegative(resources.requests)) report(resources.requests, `${base}.requests`);
    if (isRecord(resources.limits) && hasNegative(resources.limits)) report(resources.limits, `${base}.limits`);
  };
  const templates = podTemplatesOf(obj);
  for (let n = 0; n < templates.length; n++) {
    const t = templates[n];
    const spec = t.template?.spec;
    if (!isRecord(spec)) continue;
    for (let l = 0; l < 2; l++) {
      const entries = listOf(l === 0 ? spec.containers : spec.initContainers);
      for (let i = 0; i < entries.length; i++) {
        const res = isRecord(entries[i]) ? entries[i].resources : undefined;
        if (isRecord(res) && (hasNegative(res.requests) || hasNegative(res.limits))) {
          lists(res, `${t.path}.spec.${l === 0 ? 'containers' : 'initContainers'}[${i}].resources`);
        }
      }
    }
    if (isRecord(spec.resources)) lists(spec.resources, `${t.path}.spec.resources`);
    if (isRecord(spec.overhead) && hasNegative(spec.overhead)) report(spec.overhead, `${t.path}.spec.overhead`);
  }
  const cs = clusterSpecOf(obj);
  if (cs && isRecord(cs.spec.autoscalerOptions)) lists(cs.spec.autoscalerOptions.resources, `${cs.path}.autoscalerOptions.resources`);
  return r.findings;
});

export const KUBERAY_OPERATOR_RULES: readonly RuleRecord[] = [
  rayObjectName, podTemplateContainers, uniqueWorkerGroupNames, workerReplicaBounds, rayJobSubmissionMode,
  rayJobLifecycle, rayServiceSpec, autoscalerConstraints, managedByField, containerResources,
  nonNegativeResources,
];
