// Taints and tolerations: the ResourceFlavor's nodes carry the taints, and the installs' Deployments take the same
// tolerations, so both layers use these types.
/** Taint effects Kueue evaluates on flavors. */
export enum TaintEffect {
  /** New pods without a matching toleration are not scheduled on the node. */
  NO_SCHEDULE = 'NoSchedule',
  /** The scheduler avoids the node for pods without a matching toleration. */
  PREFER_NO_SCHEDULE = 'PreferNoSchedule',
  /** Pods without a matching toleration are not scheduled and are evicted if running. */
  NO_EXECUTE = 'NoExecute',
}

/** Toleration operators. */
export enum TolerationOperator {
  /** Matches a taint with the same key and value. */
  EQUAL = 'Equal',
  /** Matches a taint with the key, whatever its value (with no key: every taint). */
  EXISTS = 'Exists',
}

/** A node taint that a ResourceFlavor's nodes carry. */
export interface FlavorTaint {
  /** Taint key, e.g. "nvidia.com/gpu". */
  readonly key: string;
  /**
   * Taint value.
   * @default - no value
   */
  readonly value?: string;
  /** What the taint does to pods that do not tolerate it. */
  readonly effect: TaintEffect;
}

/** A toleration Kueue injects into admitted pods of this flavor. */
export interface FlavorToleration {
  /**
   * Taint key to tolerate.
   * @default - matches every key (operator must be EXISTS)
   */
  readonly key?: string;
  /**
   * EQUAL matches key and value; EXISTS the key alone.
   * @default TolerationOperator.EQUAL
   */
  readonly operator?: TolerationOperator;
  /**
   * Taint value to match (with EQUAL).
   * @default - no value
   */
  readonly value?: string;
  /**
   * Taint effect to tolerate.
   * @default - every effect
   */
  readonly effect?: TaintEffect;
}

/** The toleration fields the API server checks together (core/v1 validation). */
export interface TolerationFields {
  readonly key?: string;
  readonly operator?: string;
  readonly value?: string;
}

/** What the API server would refuse in a toleration, with the fix; undefined when it is fine. */
export function tolerationProblem(t: TolerationFields): string | undefined {
  if (t.key === undefined && t.operator !== 'Exists') {
    return 'a toleration without a key must use operator EXISTS. Fix: set key, or operator: TolerationOperator.EXISTS.';
  }
  if (t.operator === 'Exists' && t.value !== undefined) return 'operator EXISTS takes no value. Fix: remove value or use EQUAL.';
  return undefined;
}
