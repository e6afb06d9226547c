import { ApiObject, JsonPatch } from 'cdk8s';
import { Construct, IConstruct } from 'constructs';
import { isDns1123Label } from '../policy/k8s-names';
import { resolveVersions } from '../platform/versions';
import { checkedName } from './kueue-api-object';

/** A reference to a Kueue AdmissionCheck. */
export interface IAdmissionCheck extends IConstruct {
  /** metadata.name of the AdmissionCheck. */
  readonly admissionCheckName: string;
}

/** The object holding an AdmissionCheck's parameters (e.g. a MultiKueueConfig). */
export interface AdmissionCheckParameters {
  /** API group of the parameters object, e.g. "kueue.x-k8s.io". */
  readonly apiGroup: string;
  /** Kind of the parameters object, e.g. "MultiKueueConfig". */
  readonly kind: string;
  /** metadata.name of the parameters object (a DNS-1123 label, at most 63 characters). */
  readonly name: string;
}

/** Settings of an AdmissionCheck: the controller that decides it and the parameters object it reads. */
export interface AdmissionCheckProps {
  /**
   * metadata.name.
   * @default - the construct id
   */
  readonly name?: string;
  /** The controller that decides the check, e.g. "kueue.x-k8s.io/multikueue". Immutable once applied. */
  readonly controllerName: string;
  /**
   * Parameters of the check.
   * @default - none
   */
  readonly parameters?: AdmissionCheckParameters;
}

/**
 * A Kueue AdmissionCheck (cluster-scoped): a gate a ClusterQueue's workloads must pass after quota is
 * reserved. ClusterQueues list it with `admissionChecks`. Emitted in the API version the Kueue release
 * stores (v1beta1 up to 0.15, v1beta2 from 0.16).
 */
export class AdmissionCheck extends Construct implements IAdmissionCheck {
  /** An AdmissionCheck defined outside this app. */
  public static fromAdmissionCheckName(scope: Construct, id: string, name: string): IAdmissionCheck {
    return new ImportedAdmissionCheck(scope, id, name);
  }

  public readonly admissionCheckName: string;
  /** The controller that decides this check, e.g. "kueue.x-k8s.io/multikueue". */
  public readonly controllerName: string;
  /** The AdmissionCheck object as synthesized: add fields Kueue accepts that no prop covers with `addJsonPatch`. */
  public readonly apiObject: ApiObject;

  public constructor(scope: Construct, id: string, props: AdmissionCheckProps) {
    super(scope, id);
    const caps = resolveVersions(this).kueue;
    this.admissionCheckName = checkedName(this, 'AdmissionCheck', props.name ?? id);
    const where = `AdmissionCheck '${this.node.path}'`;
    if (!props.controllerName || props.controllerName.length > 253) {
      throw new Error(`${where}: spec.controllerName "${props.controllerName}" must be 1 to 253 characters. Fix: pass the controller's name, e.g. `
        + '"kueue.x-k8s.io/multikueue".');
    }
    const p = props.parameters;
    if (p && !isDns1123Label(p.name)) {
      throw new Error(`${where}: spec.parameters.name "${p.name}" must be a DNS-1123 label of at most 63 characters (Kueue's CRD). Fix: give the `
        + 'parameters object a shorter lowercase name.');
    }
    this.controllerName = props.controllerName;
    this.apiObject = new ApiObject(this, 'Resource', {
      apiVersion: caps.apiVersion,
      kind: 'AdmissionCheck',
      metadata: { name: this.admissionCheckName },
      spec: { controllerName: props.controllerName, parameters: p ? { apiGroup: p.apiGroup, kind: p.kind, name: p.name } : undefined },
    });
    // Chart.namespace is stamped onto every object, cluster-scoped ones too (cdk8s-core#731).
    if (this.apiObject.metadata.namespace !== undefined) this.apiObject.addJsonPatch(JsonPatch.remove('/metadata/namespace'));
  }
}

class ImportedAdmissionCheck extends Construct implements IAdmissionCheck {
  public constructor(scope: Construct, id: string, public readonly admissionCheckName: string) {
    super(scope, id);
  }
}
