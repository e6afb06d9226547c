/**
 * Internal: emits a Kueue object through the imported L1 class of the API version the chosen Kueue
 * serves as storage (v1beta1 up to 0.15, v1beta2 from 0.16).
 */
import { ApiObject, JsonPatch, Lazy } from 'cdk8s';
import { Construct } from 'constructs';
import * as v1beta1 from '../../imports/kueue-v1beta1-kueue.x-k8s.io';
import * as v1beta2 from '../../imports/kueue-v1beta2-kueue.x-k8s.io';
import { KueueCapabilities } from '../policy/versions';
import { isDns1123Subdomain } from '../policy/k8s-names';

export type KueueKind = 'ClusterQueue' | 'LocalQueue' | 'ResourceFlavor' | 'WorkloadPriorityClass' | 'Cohort';

const L1: Record<string, Record<KueueKind, any>> = {
  'kueue.x-k8s.io/v1beta1': {
    ClusterQueue: v1beta1.ClusterQueue, LocalQueue: v1beta1.LocalQueue, ResourceFlavor: v1beta1.ResourceFlavor,
    WorkloadPriorityClass: v1beta1.WorkloadPriorityClass, Cohort: v1beta1.Cohort,
  },
  'kueue.x-k8s.io/v1beta2': {
    ClusterQueue: v1beta2.ClusterQueue, LocalQueue: v1beta2.LocalQueue, ResourceFlavor: v1beta2.ResourceFlavor,
    WorkloadPriorityClass: v1beta2.WorkloadPriorityClass, Cohort: v1beta2.Cohort,
  },
};

// Fields the generated L1s model as int-or-string classes ({ value }).
const INT_OR_STRING_KEYS = new Set(['nominalQuota', 'borrowingLimit', 'lendingLimit', 'weight']);

function wrapIntOrString(v: any): any {
  if (Array.isArray(v)) return v.map(wrapIntOrString);
  if (v && typeof v === 'object') {
    const out: any = {};
    for (const [k, x] of Object.entries(v)) {
      out[k] = INT_OR_STRING_KEYS.has(k) && (typeof x === 'string' || typeof x === 'number') ? { value: x } : wrapIntOrString(x);
    }
    return out;
  }
  return v;
}

export interface KueueObjectOptions {
  readonly kind: KueueKind;
  readonly caps: KueueCapabilities;
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  /** Top-level fields other than metadata (spec, or value/description), in Kubernetes JSON form. */
  readonly body: () => Record<string, any>;
}

/** Creates the L1 as child 'Resource' of `scope`. Cluster-scoped kinds never carry a namespace. */
export function createKueueObject(scope: Construct, opts: KueueObjectOptions): ApiObject {
  const Cls = L1[opts.caps.apiVersion][opts.kind];
  const body = opts.body;
  const props: Record<string, any> = {
    metadata: { name: opts.name, namespace: opts.namespace, labels: opts.labels, annotations: opts.annotations },
  };
  if (opts.kind === 'WorkloadPriorityClass') {
    // WorkloadPriorityClass has top-level value/description and no spec.
    props.value = Lazy.any({ produce: () => body().value });
    props.description = Lazy.any({ produce: () => body().description });
  } else {
    props.spec = Lazy.any({ produce: () => wrapIntOrString(body().spec ?? {}) });
  }
  const obj: ApiObject = new Cls(scope, 'Resource', props);
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
