/** cdk8s's Lazy.any, typed for the fields it fills. */
import { Lazy } from 'cdk8s';

/**
 * A token that cdk8s replaces at synth with what `produce` returns (Lazy.any). Lazy.any types it as any, which
 * spreads; here it is never, which fits the field it stands in (an L1's typed spec, a ConfigMap's data) and no more.
 */
export function lazyToken(produce: () => unknown): never {
  return Lazy.any({ produce }) as never;
}
