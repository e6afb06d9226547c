/**
 * Kueue's manager Configuration and feature gates as the plan reads them (issue 44, stage 1): the switches of fair
 * sharing, admission fair sharing and topology-aware scheduling, normalized for the Kueue version. Kueue's own loading is
 * followed: the file's apiVersion decides the switch (v1beta1 `fairSharing.enable`; v1beta2 the section's presence,
 * apis/config/v1beta1/configuration_conversion.go), the defaults are applied (apis/config/<version>/defaults.go), and what
 * pkg/config/validation.go refuses is refused here, naming the field, since Kueue would not start with it. Pure.
 */
import { parse as parseYaml } from 'yaml';
import { parseGoDuration } from '../go-duration';
import { isRecord, shown } from '../json';
import { CONFIG_V1BETA1, CONFIG_V1BETA2, GateDefault, KueueCapabilities } from '../versions';

/** Fair sharing's preemption strategies (Kueue's Configuration `fairSharing.preemptionStrategies`). */
export type FairSharingStrategy = 'LessThanOrEqualToFinalShare' | 'LessThanInitialShare';

/** The sets Kueue accepts, in its order (validation.go validStrategySets). */
const STRATEGY_SETS: readonly (readonly FairSharingStrategy[])[] = [
  ['LessThanOrEqualToFinalShare'], ['LessThanInitialShare'], ['LessThanOrEqualToFinalShare', 'LessThanInitialShare'],
];
const BOTH_STRATEGIES = STRATEGY_SETS[2];

/** The gates that change what Kueue decides, with the capability holding each one's default at a version. */
export const DECISION_GATES = {
  AdmissionFairSharing: 'admissionFairSharingGate',
  TopologyAwareScheduling: 'topologyAwareSchedulingGate',
  FairSharingPreemptWithinNominal: 'fairSharingPreemptWithinNominalGate',
  FairSharingPrioritizeNonBorrowing: 'fairSharingPrioritizeNonBorrowingGate',
} as const satisfies Record<string, keyof KueueCapabilities>;
export type DecisionGate = keyof typeof DECISION_GATES;

type ConfigCaps = Pick<KueueCapabilities, 'version' | 'configApiVersions' | (typeof DECISION_GATES)[DecisionGate]>;

export interface AdmissionFairSharingConfig {
  /** Seconds; 0 makes the usage decay at once (kueue#11134: admission fair sharing then does nothing). */
  readonly usageHalfLifeTime: number;
  /** Seconds. @default 300 */
  readonly usageSamplingInterval: number;
  /** Per resource name. @default {} (each resource weighs 1) */
  readonly resourceWeights: Readonly<Record<string, number>>;
}

/** The Configuration as the manager runs it, for the plan. */
export interface KueueConfig {
  /** Set when fair sharing is on. */
  readonly fairSharing?: { readonly preemptionStrategies: readonly FairSharingStrategy[] };
  /** Set when the section is there and the AdmissionFairSharing gate is on (it then applies to ClusterQueues that ask for it). */
  readonly admissionFairSharing?: AdmissionFairSharingConfig;
  /** The section is there but the gate is off: the section does nothing. */
  readonly admissionFairSharingGatedOff?: boolean;
  /** Each decision gate as the manager runs it ('absent': the version has no such gate). */
  readonly gates: Readonly<Record<DecisionGate, GateDefault>>;
  /** Where each gate's value was set, when not at its default: "--feature-gates" or "featureGates". */
  readonly gatesSetBy?: '--feature-gates' | 'featureGates';
  /** Gates turned on that change Kueue's decisions in ways the plan does not model (UNMODELLED_GATES), by name. */
  readonly unmodelledGatesOn?: readonly string[];
}

/**
 * Alpha gates, off by default, that change what Kueue decides and that the plan does not model: turned on, they are
 * named in the plan's note with what the plan does instead.
 */
const UNMODELLED_GATES: Readonly<Record<string, string>> = {
  TASBalancedPlacement: 'preferred topology requests are placed by BestFit, not balanced across domains',
  TASRespectNodeAffinityPreferred: 'preferred node affinity does not rank the domains',
};

/** Where the Configuration and the gates come from. */
export interface KueueConfigSource {
  /** The Configuration: the text of `controller_manager_config.yaml`, or the object parsed from it. */
  readonly config?: unknown;
  /** The manager container's args (its `--feature-gates=...`). */
  readonly args?: readonly unknown[];
  /** For messages, e.g. "dist/0001-kueue-install.k8s.yaml (ConfigMap kueue-system/kueue-manager-config)". */
  readonly where: string;
}

/** A value the user wrote, for a message: a string in quotes, anything else as JSON (shortened). */
const quoted = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(shown(v)) : shown(v));

function refuse(where: string, field: string, problem: string, fix: string, caps: ConfigCaps): never {
  throw new Error(`${where}: ${field}: ${problem}; Kueue ${caps.version} refuses the Configuration and does not start. Fix: ${fix}.`);
}

/** Seconds of a Go duration field; absent is 0. */
function seconds(v: unknown, where: string, field: string, caps: ConfigCaps): number {
  if (v === undefined || v === null) return 0;
  const s = typeof v === 'string' ? parseGoDuration(v) : undefined;
  if (s === undefined) refuse(where, field, `${quoted(v)} is not a duration`, 'write a Go duration such as 168h or 30m', caps);
  return s;
}

/**
 * The manager's `--feature-gates=A=true,B=false` args as written: each gate's value text (the last one given wins), or
 * undefined when no such arg. An entry without "=" has the value "". Callers decide what a value means.
 */
export function featureGatesInArgs(args: unknown): Map<string, string> | undefined {
  let out: Map<string, string> | undefined;
  for (const a of Array.isArray(args) ? (args as unknown[]) : []) {
    const m = typeof a === 'string' ? /^--feature-gates=(.*)$/.exec(a) : null;
    if (!m) continue;
    out ??= new Map();
    for (const kv of m[1].split(',')) {
      if (!kv.trim()) continue;
      const eq = kv.indexOf('=');
      out.set((eq < 0 ? kv : kv.slice(0, eq)).trim(), eq < 0 ? '' : kv.slice(eq + 1).trim());
    }
  }
  return out;
}

/** Go's strconv.ParseBool, which Kubernetes' feature-gate flag uses. */
const GO_BOOL: ReadonlyMap<string, boolean> = new Map([
  ...['1', 't', 'T', 'TRUE', 'true', 'True'].map((k): [string, boolean] => [k, true]),
  ...['0', 'f', 'F', 'FALSE', 'false', 'False'].map((k): [string, boolean] => [k, false]),
]);

/** The gates of `--feature-gates` as booleans, or undefined when no such arg; a value Go cannot parse is refused. */
function gatesInArgs(args: readonly unknown[] | undefined, where: string, caps: ConfigCaps): Record<string, boolean> | undefined {
  const raw = featureGatesInArgs(args);
  if (!raw) return undefined;
  const out: Record<string, boolean> = {};
  for (const [k, v] of raw) {
    const on = GO_BOOL.get(v);
    if (on === undefined) {
      refuse(where, '--feature-gates', `"${k}${v ? `=${v}` : ''}" is not NAME=true or NAME=false`, 'write each gate as NAME=true or NAME=false',
        caps);
    }
    out[k] = on;
  }
  return out;
}

function gatesOf(source: KueueConfigSource, config: Record<string, unknown>, caps: ConfigCaps)
  : Pick<KueueConfig, 'gates' | 'gatesSetBy' | 'unmodelledGatesOn'> {
  const fromArgs = gatesInArgs(source.args, source.where, caps);
  const fromConfig = config.featureGates;
  if (fromConfig !== undefined && fromConfig !== null && !isRecord(fromConfig)) {
    refuse(source.where, 'featureGates', `${quoted(fromConfig)} is not a map of gate names to true or false`, 'write featureGates as NAME: true',
      caps);
  }
  const hasConfigGates = isRecord(fromConfig) && Object.keys(fromConfig).length > 0;
  // pkg/config/validation.go (LoadAndValidateFeatureGates; ValidateFeatureGates before 0.17).
  if (fromArgs && Object.keys(fromArgs).length && hasConfigGates) {
    refuse(source.where, 'featureGates', 'feature gates for CLI and configuration cannot both specified',
      'set the gates either in the manager\'s --feature-gates arg or in the Configuration\'s featureGates', caps);
  }
  const set: Record<string, unknown> = fromArgs && Object.keys(fromArgs).length ? fromArgs : hasConfigGates ? fromConfig : {};
  const by = fromArgs && Object.keys(fromArgs).length ? '--feature-gates' : hasConfigGates ? 'featureGates' : undefined;
  const gates = {} as Record<DecisionGate, GateDefault>;
  for (const name of Object.keys(DECISION_GATES) as DecisionGate[]) {
    const dflt = caps[DECISION_GATES[name]];
    const v = set[name];
    if (v === undefined) {
      gates[name] = dflt;
      continue;
    }
    if (typeof v !== 'boolean') refuse(source.where, `${by}[${name}]`, `${quoted(v)} is not true or false`, `write ${name}: true or false`, caps);
    if (dflt === 'absent') {
      refuse(source.where, `${by}[${name}]`, `Kueue ${caps.version} has no ${name} feature gate (unrecognized feature gate)`,
        `remove ${name}, or plan for a Kueue version that has it`, caps);
    }
    gates[name] = v ? 'on' : 'off';
  }
  const unmodelled = Object.keys(UNMODELLED_GATES).filter((g) => set[g] === true);
  return { gates, ...(by ? { gatesSetBy: by } : {}), ...(unmodelled.length ? { unmodelledGatesOn: unmodelled } : {}) };
}

function strategiesOf(v: unknown, where: string, caps: ConfigCaps): readonly FairSharingStrategy[] | undefined {
  if (v === undefined || v === null || (Array.isArray(v) && !v.length)) return undefined;
  const set = Array.isArray(v) ? STRATEGY_SETS.find((s) => s.length === v.length && s.every((x, i) => x === v[i])) : undefined;
  if (!set) {
    refuse(where, 'fairSharing.preemptionStrategies', `Unsupported value: ${quoted(v)}`,
      `use one of ${STRATEGY_SETS.map((s) => `[${s.join(', ')}]`).join(', ')}`, caps);
  }
  return set;
}

function admissionFairSharingOf(v: unknown, where: string, caps: ConfigCaps): AdmissionFairSharingConfig | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isRecord(v)) refuse(where, 'admissionFairSharing', `${quoted(v)} is not a map`, 'write the section as a map, or leave it out', caps);
  const halfLife = seconds(v.usageHalfLifeTime, where, 'admissionFairSharing.usageHalfLifeTime', caps);
  if (halfLife < 0) refuse(where, 'admissionFairSharing.usageHalfLifeTime', 'must be greater than or equal to 0', 'use 0s or more', caps);
  // defaults.go: an absent (or zero) sampling interval is 5m.
  const sampling = seconds(v.usageSamplingInterval, where, 'admissionFairSharing.usageSamplingInterval', caps) || 300;
  if (sampling < 0) refuse(where, 'admissionFairSharing.usageSamplingInterval', 'must be greater than 0', 'use a positive duration such as 5m', caps);
  const weights: Record<string, number> = {};
  const w = v.resourceWeights;
  if (w !== undefined && w !== null && !isRecord(w)) {
    refuse(where, 'admissionFairSharing.resourceWeights', `${quoted(w)} is not a map`, 'write resource: weight pairs', caps);
  }
  for (const [res, x] of Object.entries(isRecord(w) ? w : {})) {
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      refuse(where, `admissionFairSharing.resourceWeights[${res}]`, `${quoted(x)} is not a number`, 'write a number such as 1 or 0.5', caps);
    }
    if (x < 0) refuse(where, `admissionFairSharing.resourceWeights[${res}]`, 'must be greater than or equal to 0', 'use 0 or more', caps);
    weights[res] = x;
  }
  return { usageHalfLifeTime: halfLife, usageSamplingInterval: sampling, resourceWeights: weights };
}

/**
 * The Configuration as Kueue `caps.version` runs it. No Configuration: Kueue's defaults (fair sharing off, the gates at
 * their defaults). Throws, naming the field and the fix, on what Kueue refuses at start-up.
 */
export function kueueConfigOf(source: KueueConfigSource, caps: ConfigCaps): KueueConfig {
  const { where } = source;
  let config: unknown = source.config ?? {};
  if (typeof config === 'string') {
    try {
      config = parseYaml(config) ?? {};
    } catch (e) {
      refuse(where, 'controller_manager_config.yaml', `not YAML (${(e as Error).message.split('\n')[0]})`, 'write the Configuration as YAML', caps);
    }
  }
  if (!isRecord(config)) refuse(where, 'controller_manager_config.yaml', `${quoted(config)} is not a Configuration`, 'write a map', caps);
  const apiVersion = config.apiVersion ?? CONFIG_V1BETA1;
  if (typeof apiVersion !== 'string' || !caps.configApiVersions.includes(apiVersion)) {
    refuse(where, 'apiVersion', `Kueue ${caps.version} reads a Configuration of ${caps.configApiVersions.join(' or ')}, not ${quoted(apiVersion)}`,
      `write apiVersion: ${caps.configApiVersions[caps.configApiVersions.length - 1]}`, caps);
  }
  const gates = gatesOf(source, config, caps);
  const fs = config.fairSharing;
  if (fs !== undefined && fs !== null && !isRecord(fs)) {
    refuse(where, 'fairSharing', `${quoted(fs)} is not a map`, 'write the section as a map', caps);
  }
  let fairSharing: KueueConfig['fairSharing'];
  if (isRecord(fs)) {
    const strategies = strategiesOf(fs.preemptionStrategies, where, caps);
    if (apiVersion === CONFIG_V1BETA2) {
      // The section's presence turns it on; v1beta2 requires the strategies.
      if (!strategies) refuse(where, 'fairSharing.preemptionStrategies', 'Required value: must be specified', 'list the strategies, e.g. '
        + '[LessThanOrEqualToFinalShare, LessThanInitialShare]', caps);
      fairSharing = { preemptionStrategies: strategies };
    } else if (fs.enable === true) {
      // v1beta1: `enable`, the strategies defaulted to both (defaults.go).
      fairSharing = { preemptionStrategies: strategies ?? BOTH_STRATEGIES };
    }
  }
  const afs = admissionFairSharingOf(config.admissionFairSharing, where, caps);
  const afsOn = afs && gates.gates.AdmissionFairSharing === 'on';
  return {
    ...(fairSharing ? { fairSharing } : {}),
    ...(afsOn ? { admissionFairSharing: afs } : {}),
    ...(afs && !afsOn ? { admissionFairSharingGatedOff: true } : {}),
    ...gates,
  };
}

/**
 * What the plan read, as a note, when it changes Kueue's decisions: fair sharing or admission fair sharing on,
 * with what of it the plan models, and any gate on that the plan does not model. Undefined otherwise (the plan's
 * answers stand as they are).
 */
export function kueueConfigNote(c: KueueConfig, caps: Pick<KueueCapabilities, 'version'>, from: string): string | undefined {
  const parts: string[] = [];
  if (c.fairSharing) parts.push(`fair sharing on (preemption strategies ${c.fairSharing.preemptionStrategies.join(', ')})`);
  if (c.admissionFairSharing) {
    const a = c.admissionFairSharing;
    parts.push(`admission fair sharing on (usageHalfLifeTime ${a.usageHalfLifeTime} s, usageSamplingInterval ${a.usageSamplingInterval} s)`);
  }
  for (const g of c.unmodelledGatesOn ?? []) parts.push(`${g} on, which the plan does not model (${UNMODELLED_GATES[g]})`);
  if (!parts.length) return undefined;
  const fair = c.fairSharing ? ' The plan orders each cohort\'s heads and picks preemption victims by fair sharing\'s dominant resource '
    + 'shares, as Kueue does.' : '';
  const admission = c.admissionFairSharing ? ' ClusterQueues with admissionScope UsageBasedAdmissionFairSharing order their workloads by '
    + 'LocalQueue usage, as Kueue does.' : '';
  return `Kueue ${caps.version} configuration read from ${from}: ${parts.join(', ')}.${fair}${admission}`;
}

/** The Kueue manager's image, with its tag (`registry.k8s.io/kueue/kueue:v0.19.2`, or a mirror's path ending the same). */
export const KUEUE_MANAGER_IMAGE = /\/kueue\/kueue:(v\d+\.\d+\.\d+)$/;

const at = (v: unknown, ...keys: string[]): unknown => keys.reduce((o, k) => (isRecord(o) ? o[k] : undefined), v);

/**
 * Where Kueue's manager Configuration and args are among `objects` (an install's manifests, or an app's): the first
 * ConfigMap holding `controller_manager_config.yaml` and the first container running Kueue's manager image.
 * `whereOf(i)` names object i for messages. Undefined when neither is there.
 */
export function kueueManagerOf(objects: readonly unknown[], whereOf: (i: number) => string): KueueConfigSource | undefined {
  let config: unknown;
  let args: readonly unknown[] | undefined;
  const where: string[] = [];
  objects.forEach((o, i) => {
    const text = at(o, 'kind') === 'ConfigMap' ? at(o, 'data', 'controller_manager_config.yaml') : undefined;
    if (typeof text === 'string' && config === undefined) {
      config = text;
      where.unshift(whereOf(i));
    }
    if (at(o, 'kind') !== 'Deployment' || args !== undefined) return;
    const containers = at(o, 'spec', 'template', 'spec', 'containers');
    for (const c of Array.isArray(containers) ? containers : []) {
      const image = at(c, 'image');
      const a = at(c, 'args');
      if (typeof image === 'string' && KUEUE_MANAGER_IMAGE.test(image) && Array.isArray(a) && args === undefined) {
        args = a;
        where.push(whereOf(i));
      }
    }
  });
  return config === undefined && args === undefined ? undefined : { config, args, where: where.join(' and ') };
}
