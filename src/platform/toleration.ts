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
