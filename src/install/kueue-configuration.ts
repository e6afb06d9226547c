import { Duration } from 'cdk8s';
import { wholeSeconds } from '../platform/duration';
import type { LabelSelector } from '../policy/context';
import { formatGoDuration } from '../policy/go-duration';
import { isRecord, listOf } from '../policy/json';
import { KueueCapabilities } from '../policy/versions';

/** Fair sharing's preemption strategies (Kueue's Configuration `fairSharing.preemptionStrategies`). */
export enum FairSharingPreemptionStrategy {
  /** Preempt only if the preemptor's ClusterQueue share, with the workload, stays at or below the preemptee's without it. */
  LESS_THAN_OR_EQUAL_TO_FINAL_SHARE = 'LessThanOrEqualToFinalShare',
  /** Preempt only if the preemptor's share with the workload is strictly below the preemptee's. */
  LESS_THAN_INITIAL_SHARE = 'LessThanInitialShare',
}

/** Kueue's waitForPodsReady: an admitted workload whose pods are not all ready in time is evicted and requeued. */
export interface WaitForPodsReadyOptions {
  /**
   * On or off. Off on Kueue v0.19 sets the DisableWaitForPodsReady feature gate, the only way that version turns it off.
   * @default true
   */
  readonly enabled?: boolean;
  /**
   * How long an admitted workload's pods may take to be ready. Set it above the time the Ray image takes to pull
   * on a cold node, or large clusters are evicted while they start.
   * @default - Kueue's: 5 minutes (v0.13, v0.14), 30 minutes (v0.19); v0.17 requires one, and the library writes 5 minutes
   */
  readonly timeout?: Duration;
  /**
   * Block admission of every other workload in the ClusterQueue until this one's pods are ready.
   * @default false
   */
  readonly blockAdmission?: boolean;
  /**
   * How long a workload whose pods were ready may stay not ready (a pod restarts) before it is evicted.
   * @default - the timeout (v0.17 and later); none before (a pod that stops being ready is not evicted)
   */
  readonly recoveryTimeout?: Duration;
  /**
   * How often an evicted workload is requeued before it is deactivated.
   * @default - requeued forever
   */
  readonly requeuingBackoffLimitCount?: number;
}

/** Kueue's fair sharing across the ClusterQueues of a cohort. */
export interface FairSharingOptions {
  /**
   * On or off.
   * @default true
   */
  readonly enabled?: boolean;
  /**
   * The strategies, in the order Kueue tries them: one of them, or LESS_THAN_OR_EQUAL_TO_FINAL_SHARE then LESS_THAN_INITIAL_SHARE.
   * @default - LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, then LESS_THAN_INITIAL_SHARE (Kueue's v1beta1 default)
   */
  readonly preemptionStrategies?: FairSharingPreemptionStrategy[];
}

/** What KueueInstall sets in the manager's Configuration. */
export interface KueueConfigurationSettings {
  readonly waitForPodsReady?: WaitForPodsReadyOptions;
  readonly fairSharing?: FairSharingOptions;
  readonly manageJobsWithoutQueueName?: boolean;
  readonly clusterQueueResourceMetrics?: boolean;
  /** Namespaces whose every workload Kueue manages: sets manageJobsWithoutQueueName and managedJobsNamespaceSelector. */
  readonly managedNamespaceSelector?: LabelSelector;
  /** Every framework the Configuration must list (the Ray kinds the app uses and the ones asked for). */
  readonly frameworks: readonly string[];
}

export interface ConfigurationEdit {
  /** The Configuration to write, or undefined when the release's is kept as it is. */
  readonly config?: Record<string, unknown>;
}

const DISABLE_WAIT_GATE = 'DisableWaitForPodsReady';

/** The feature gates the settings need: DisableWaitForPodsReady where waitForPodsReady is off on a Kueue that defaults it on (0.19). */
export function settingsGates(s: Pick<KueueConfigurationSettings, 'waitForPodsReady'>, caps: KueueCapabilities): Record<string, boolean> {
  return s.waitForPodsReady?.enabled === false && caps.waitForPodsReady === 'default-on' ? { [DISABLE_WAIT_GATE]: true } : {};
}
const STRATEGY_SETS = [['LessThanOrEqualToFinalShare'], ['LessThanInitialShare'], ['LessThanOrEqualToFinalShare', 'LessThanInitialShare']];
// Kueue's own default timeouts where the section has none (apis/config defaults at each tag); 0.17 has none.
const DEFAULT_TIMEOUT_SECONDS: Record<KueueCapabilities['waitForPodsReady'], number> = { 'enable-field': 300, 'presence': 300, 'default-on': 1800 };

/** A Duration as Kueue's Configuration takes one: a Go duration ("30m", "1h30m", "45s") of whole seconds above 0. */
function configDuration(d: Duration, field: string, where: string): string {
  const s = wholeSeconds(d, 0, field, where);
  if (s === 0) throw new Error(`${where}: ${field} is 0; Kueue takes a positive whole number of seconds. Fix: e.g. Duration.minutes(30).`);
  return formatGoDuration(s);
}

/**
 * The release's Configuration with the install's settings applied, in the form the version reads
 * (v1beta1 `enable` switches, or v1beta2 sections whose presence turns a feature on). On v0.19, where
 * waitForPodsReady is on by default, the effective section is written out, so `dist/` shows the
 * 30-minute eviction every admitted Ray cluster is under.
 */
export function editConfiguration(release: Record<string, unknown>, s: KueueConfigurationSettings, caps: KueueCapabilities,
  where: string): ConfigurationEdit {
  const config: Record<string, unknown> = structuredClone(release);
  const wait = waitForPodsReadySection(s.waitForPodsReady, caps, where);
  if (wait) config.waitForPodsReady = wait;
  const fair = fairSharingSection(s.fairSharing, caps, where);
  if (fair) config.fairSharing = fair;
  if (s.manageJobsWithoutQueueName !== undefined) config.manageJobsWithoutQueueName = s.manageJobsWithoutQueueName;
  if (s.managedNamespaceSelector) {
    config.manageJobsWithoutQueueName = true;
    config.managedJobsNamespaceSelector = structuredClone(s.managedNamespaceSelector);
  }
  if (s.clusterQueueResourceMetrics !== undefined) {
    config.metrics = { ...(isRecord(config.metrics) ? config.metrics : {}), enableClusterQueueResources: s.clusterQueueResourceMetrics };
  }
  const integrations = isRecord(config.integrations) ? config.integrations : {};
  const frameworks = listOf(integrations.frameworks);
  const missing = s.frameworks.filter((f) => !frameworks.includes(f));
  if (missing.length) config.integrations = { ...integrations, frameworks: [...frameworks, ...missing] };
  const changed = JSON.stringify(config) !== JSON.stringify(release);
  return { config: changed ? config : undefined };
}

function waitForPodsReadySection(o: WaitForPodsReadyOptions | undefined, caps: KueueCapabilities,
  where: string): Record<string, unknown> | undefined {
  const style = caps.waitForPodsReady;
  // On 0.19 the unset section is on anyway: written out, with Kueue's own timeout.
  if (o === undefined) {
    return style === 'default-on' ? { timeout: configDuration(Duration.seconds(DEFAULT_TIMEOUT_SECONDS[style]), 'timeout', where) } : undefined;
  }
  if (o.enabled === false) {
    for (const f of ['timeout', 'blockAdmission', 'recoveryTimeout', 'requeuingBackoffLimitCount'] as const) {
      if (o[f] !== undefined) throw new Error(`${where}: waitForPodsReady.${f} is set but waitForPodsReady is off. Fix: remove ${f}, or enabled.`);
    }
    return undefined; // on 0.19 its gate turns it off (settingsGates)
  }
  const count = o.requeuingBackoffLimitCount;
  if (count !== undefined && (!Number.isInteger(count) || count < 0)) {
    throw new Error(`${where}: waitForPodsReady.requeuingBackoffLimitCount ${count} must be a whole number >= 0 (Kueue refuses a negative one). `
      + 'Fix: e.g. 3, or leave it unset to requeue forever.');
  }
  const section: Record<string, unknown> = {
    ...(style === 'enable-field' ? { enable: true } : {}),
    timeout: configDuration(o.timeout ?? Duration.seconds(DEFAULT_TIMEOUT_SECONDS[style]), 'waitForPodsReady.timeout', where),
    blockAdmission: o.blockAdmission ?? false,
  };
  if (o.recoveryTimeout !== undefined) section.recoveryTimeout = configDuration(o.recoveryTimeout, 'waitForPodsReady.recoveryTimeout', where);
  if (count !== undefined) section.requeuingStrategy = { backoffLimitCount: count };
  return section;
}

function fairSharingSection(o: FairSharingOptions | undefined, caps: KueueCapabilities, where: string): Record<string, unknown> | undefined {
  if (o === undefined || o.enabled === false) {
    if (o?.preemptionStrategies !== undefined) throw new Error(`${where}: fairSharing.preemptionStrategies is set but fair sharing is off. Fix: `
      + 'remove it, or enabled.');
    return undefined;
  }
  const strategies: string[] = o.preemptionStrategies ?? STRATEGY_SETS[2];
  if (!STRATEGY_SETS.some((set) => set.length === strategies.length && set.every((x, i) => x === strategies[i]))) {
    throw new Error(`${where}: fairSharing.preemptionStrategies [${strategies.join(', ')}] is not a set Kueue accepts. Fix: one of `
      + `${STRATEGY_SETS.map((x) => `[${x.join(', ')}]`).join(', ')}.`);
  }
  return { ...(caps.fairSharingSwitch === 'enable-field' ? { enable: true } : {}), preemptionStrategies: strategies };
}
