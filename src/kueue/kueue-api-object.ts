/**
 * Internal: emits a Kueue object through the imported L1 class of the API version the chosen Kueue
 * serves as storage (v1beta1 up to 0.15, v1beta2 from 0.16).
 */
import { ApiObject, ApiObjectMetadata, JsonPatch } from 'cdk8s';
import { lazyToken } from '../platform/lazy';
import { Construct } from 'constructs';
import * as v1beta1 from '../../imports/kueue-v1beta1-kueue.x-k8s.io';
import * as v1beta2 from '../../imports/kueue-v1beta2-kueue.x-k8s.io';
import { KueueCapabilities } from '../policy/versions';
import { isDns1123Subdomain } from '../policy/k8s-names';
import { isRecord } from '../policy/json';

export type KueueKind = 'ClusterQueue' | 'LocalQueue' | 'ResourceFlavor' | 'WorkloadPriorityClass' | 'Cohort';

/** Creates the imported L1 of one kind as child 'Resource' of `scope`, its body's fields lazily. */
type KueueL1 = (scope: Construct, metadata: ApiObjectMetadata, body: () => KueueObjectBody) => ApiObject;

// Each L1 types its spec (or value and description) as its own props interface; a Lazy (cdk8s's Lazy.any) stands for it.
const lazySpec = (body: () => KueueObjectBody) => lazyToken(() => wrapIntOrString(body().spec ?? {}));

/** The five L1s of one API version (the imported v1beta1 or v1beta2 module). */
function l1sOf(m: typeof v1beta1 | typeof v1beta2): Record<KueueKind, KueueL1> {
  return {
    ClusterQueue: (scope, metadata, body) => new m.ClusterQueue(scope, 'Resource', { metadata, spec: lazySpec(body) }),
    LocalQueue: (scope, metadata, body) => new m.LocalQueue(scope, 'Resource', { metadata, spec: lazySpec(body) }),
    ResourceFlavor: (scope, metadata, body) => new m.ResourceFlavor(scope, 'Resource', { metadata, spec: lazySpec(body) }),
    // WorkloadPriorityClass has top-level value/description and no spec.
    WorkloadPriorityClass: (scope, metadata, body) => new m.WorkloadPriorityClass(scope, 'Resource', { metadata,
      value: lazyToken(() => body().value), description: lazyToken(() => body().description) }),
    Cohort: (scope, metadata, body) => new m.Cohort(scope, 'Resource', { metadata, spec: lazySpec(body) }),
  };
}

const L1: Record<string, Record<KueueKind, KueueL1>> = { 'kueue.x-k8s.io/v1beta1': l1sOf(v1beta1), 'kueue.x-k8s.io/v1beta2': l1sOf(v1beta2) };

// Fields the generated L1s model as int-or-string classes ({ value }).
const INT_OR_STRING_KEYS = new Set(['nominalQuota', 'borrowingLimit', 'lendingLimit', 'weight']);

function wrapIntOrString(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(wrapIntOrString);
  if (isRecord(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      out[k] = INT_OR_STRING_KEYS.has(k) && (typeof x === 'string' || typeof x === 'number') ? { value: x } : wrapIntOrString(x);
    }
    return out;
  }
  return v;
}

/** The top-level fields of a Kueue object besides metadata: its spec, or a WorkloadPriorityClass's value and description. */
export interface KueueObjectBody {
  readonly spec?: unknown;
  readonly value?: unknown;
  readonly description?: unknown;
}

export interface KueueObjectOptions {
  readonly kind: KueueKind;
  readonly caps: KueueCapabilities;
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  /** Top-level fields other than metadata (spec, or value/description), in Kubernetes JSON form. */
  readonly body: () => KueueObjectBody;
}

/** Creates the L1 as child 'Resource' of `scope`. Cluster-scoped kinds never carry a namespace. */
export function createKueueObject(scope: Construct, opts: KueueObjectOptions): ApiObject {
  const metadata = { name: opts.name, namespace: opts.namespace, labels: opts.labels, annotations: opts.annotations };
  const obj = L1[opts.caps.apiVersion][opts.kind](scope, metadata, opts.body);
  if (opts.namespace === undefined && obj.metadata.namespace !== undefined) {
    // Chart.namespace is stamped onto every object, cluster-scoped ones too (cdk8s-core#731).
    obj.addJsonPatch(JsonPatch.remove('/metadata/namespace'));
  }
  return obj;
}

/** Validates an object name (DNS-1123 subdomain) and names the construct, field and fix. */
export function checkedName(scope: Construct, kind: string, name: string): string {
  if (!isDns1123Subdomain(name)) {
    throw new Error(`${kind} '${scope.node.path}': metadata.name "${name}" is not a valid Kubernetes name (lowercase letters, digits, "-" and "."). `
      + 'Fix: pass a valid \'name\' prop (the construct id is used when \'name\' is omitted).');
  }
  return name;
}
