/**
 * The admission configurations: the mutating and validating webhooks (rules derived from the kind table
 * in src/policy/kinds, matchConditions that skip the trusted controllers), and with self-managed
 * certificates, the ValidatingAdmissionPolicy that lets the controller change only their caBundle.
 */
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { RAY_API_GROUPS, RAY_API_VERSIONS, RAY_PLURALS } from '../../policy/kinds';
import { KUBERAY_POD_LABELS, POD_TEMPLATE_KINDS } from '../../policy/rules/kuberay-pod-claims';
import { TENANT_LABEL } from '../../policy/tenant';
import { untrustedRequestCel } from '../../policy/writers';
import { ControllerSettings, controllerLabels, NAME, WEBHOOK_NAMES } from './settings';

// Raw ApiObjects throughout: cdk8s-plus-28 has no admission-configuration constructs.

const ADMISSION_API = 'admissionregistration.k8s.io/v1';

/**
 * RBAC can name the two configurations the controller patches, not the field: this policy lets its
 * ServiceAccount change nothing in them but clientConfig.caBundle. (Admission webhooks are never
 * called for webhook configurations; admission policies are.)
 */
function caBundleOnlyPolicy(scope: Construct, s: ControllerSettings): void {
  const name = `${NAME}-cabundle-only`;
  const same = (a: string, b: string, f: string) => `(has(${a}.${f}) == has(${b}.${f})) && (!has(${a}.${f}) || ${a}.${f} == ${b}.${f})`;
  const fields = ['clientConfig.url', 'clientConfig.service', 'rules', 'failurePolicy', 'matchPolicy', 'namespaceSelector', 'objectSelector',
    'sideEffects', 'timeoutSeconds', 'admissionReviewVersions', 'reinvocationPolicy', 'matchConditions'];
  const webhookSame = fields.map((f) => same('w', 'o', f)).join(' && ');
  const names = WEBHOOK_NAMES.join(' and ');
  new ApiObject(scope, 'cabundle-only-policy', {
    apiVersion: ADMISSION_API, kind: 'ValidatingAdmissionPolicy', metadata: { name, labels: controllerLabels() },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [
          ...['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'].map((resource, i) => ({
            apiGroups: ['admissionregistration.k8s.io'], apiVersions: ['*'], operations: ['UPDATE'],
            resources: [resource], resourceNames: [WEBHOOK_NAMES[i]],
          })),
        ],
      },
      matchConditions: [
        { name: 'controller-service-account', expression: `request.userInfo.username == 'system:serviceaccount:${s.namespace}:${NAME}'` },
      ],
      validations: [
        {
          expression: 'object.webhooks.size() == oldObject.webhooks.size() && '
            + `object.webhooks.all(w, oldObject.webhooks.exists(o, o.name == w.name && ${webhookSame}))`,
          message: `the controller's ServiceAccount may change only clientConfig.caBundle of ${names}`,
          reason: 'Forbidden',
        },
        {
          expression: `${same('object', 'oldObject', 'metadata.labels')} && ${same('object', 'oldObject', 'metadata.annotations')}`,
          message: `the controller's ServiceAccount may not change the labels or annotations of ${names}`,
          reason: 'Forbidden',
        },
      ],
    },
  });
  new ApiObject(scope, 'cabundle-only-binding', {
    apiVersion: ADMISSION_API, kind: 'ValidatingAdmissionPolicyBinding', metadata: { name, labels: controllerLabels() },
    spec: { policyName: name, validationActions: ['Deny'] },
  });
}

/** The two webhook configurations. */
export interface ControllerWebhooks {
  readonly mutating: ApiObject;
  readonly validating: ApiObject;
}

/**
 * Creates the caBundle-only policy (self-managed certificates) and both webhook configurations.
 * `injectCa`: the annotations by which cert-manager writes their caBundle.
 */
export function controllerWebhooks(scope: Construct, s: ControllerSettings, injectCa: Record<string, string> | undefined): ControllerWebhooks {
  if (!s.certManager && s.caBundleOnlyPolicy) caBundleOnlyPolicy(scope, s);
  // Every Ray kind of the kind table, as the ClusterRole (rbac.ts).
  const rules = [
    { apiGroups: [...RAY_API_GROUPS], apiVersions: [...RAY_API_VERSIONS], operations: ['CREATE', 'UPDATE'], resources: [...RAY_PLURALS] },
  ];
  const tenantSelector = { matchExpressions: [{ key: TENANT_LABEL, operator: 'Exists' }] };
  const client = (p: string) => ({ service: { name: NAME, namespace: s.namespace, path: p, port: 443 } });
  const metadata = (name: string) => ({ name, labels: controllerLabels(), ...(injectCa ? { annotations: { ...injectCa } } : {}) });
  // The API server calls neither webhook for KubeRay's operator, Kueue, Kubernetes' controllers and the
  // controller itself (matchConditions, Kubernetes >= 1.30): the RayClusters KubeRay creates for an
  // admitted job, Kueue's suspend flips, KubeRay's finalizer removal and the garbage collector's
  // updates never wait on the controller, even while it is down. Decided by who sends the request,
  // so no label or owner reference a tenant writes on its object can opt it out.
  const matchConditions = [{ name: 'not-a-trusted-controller', expression: untrustedRequestCel(s.writers) }];
  // Mutating: Fail. A tenant job that missed its queue label and suspend would run unqueued, which is
  // worse than a rejected create. Only CREATE: defaults are for new objects.
  const mutateRules = [{ ...rules[0], operations: ['CREATE'] }];
  const mutating = new ApiObject(scope, 'mutating-webhook', {
    apiVersion: ADMISSION_API, kind: 'MutatingWebhookConfiguration', metadata: metadata(WEBHOOK_NAMES[0]),
    webhooks: [
      {
        name: 'mray.cdk8s-kueue-ray.io', clientConfig: client('/mutate'), rules: mutateRules,
        namespaceSelector: tenantSelector, matchConditions,
        failurePolicy: 'Fail', timeoutSeconds: 5, sideEffects: 'None', admissionReviewVersions: ['v1'], reinvocationPolicy: 'Never',
      },
      // Graceful preemption is for every queued Ray object, tenant or not (the guide's jobs run in
      // `default`); outside tenant namespaces the policy adds nothing else. Ignore: a missed default
      // costs a pod its drain time, never a create.
      ...(s.gracefulPreemption ? [{
        name: 'mray-all.cdk8s-kueue-ray.io', clientConfig: client('/mutate'), rules: mutateRules,
        namespaceSelector: { matchExpressions: [{ key: TENANT_LABEL, operator: 'DoesNotExist' }] }, matchConditions,
        failurePolicy: 'Ignore', timeoutSeconds: 5, sideEffects: 'None', admissionReviewVersions: ['v1'], reinvocationPolicy: 'Never',
      }] : []),
    ],
  });
  // Validating, in tenant namespaces: Fail. The tenant rules (queue label, allowed priorities, the
  // children of RayJobs and RayServices) must hold while the controller is down too; what the trusted
  // controllers write never reaches it, and deletions are not in its rules.
  // Elsewhere (validateAllNamespaces): Ignore, since there it only adds earlier, clearer errors.
  // Pods and pod-making workloads, in tenant namespaces, only where the written pod (template) carries
  // one of KubeRay's labels: no other pod write ever waits on the controller. Fail, as for the Ray kinds.
  const validating = new ApiObject(scope, 'validating-webhook', {
    apiVersion: ADMISSION_API, kind: 'ValidatingWebhookConfiguration', metadata: metadata(WEBHOOK_NAMES[1]),
    webhooks: [
      {
        // The status subresources too: Kueue reads a Ray object's status to release its quota, and only KubeRay writes it.
        name: 'vray.cdk8s-kueue-ray.io', clientConfig: client('/validate'), namespaceSelector: tenantSelector, matchConditions,
        rules: [...rules, { ...rules[0], operations: ['UPDATE'], resources: rules[0].resources.map((r) => `${r}/status`) }],
        failurePolicy: 'Fail', timeoutSeconds: 5, sideEffects: 'None', admissionReviewVersions: ['v1'],
      },
      {
        name: 'vraypods.cdk8s-kueue-ray.io', clientConfig: client('/validate'), namespaceSelector: tenantSelector,
        matchConditions: [...matchConditions, { name: 'claims-kuberay-pod-labels', expression: kubeRayPodLabelsCel() }],
        rules: podRules(), failurePolicy: 'Fail', timeoutSeconds: 5, sideEffects: 'None', admissionReviewVersions: ['v1'],
      },
      ...(s.validateAllNamespaces ? [{
        name: 'vray-all.cdk8s-kueue-ray.io', clientConfig: client('/validate'), rules,
        namespaceSelector: { matchExpressions: [{ key: TENANT_LABEL, operator: 'DoesNotExist' }] }, matchConditions,
        failurePolicy: 'Ignore', timeoutSeconds: 5, sideEffects: 'None', admissionReviewVersions: ['v1'],
      }] : []),
    ],
  });
  return { mutating, validating };
}

/** The rules of the Ray pods webhook: CREATE and UPDATE of every pod-template kind, per API group. */
function podRules(): object[] {
  const groups = [...new Set(POD_TEMPLATE_KINDS.map((k) => k.group))];
  return groups.map((g) => {
    const kinds = POD_TEMPLATE_KINDS.filter((k) => k.group === g);
    return { apiGroups: [g], apiVersions: [...new Set(kinds.map((k) => k.version))], operations: ['CREATE', 'UPDATE'],
      resources: kinds.map((k) => k.plural) };
  });
}

/**
 * CEL: the written pod, or pod template, carries one of KubeRay's labels. Optional field selection
 * (`.?`, Kubernetes >= 1.29), so an object missing a step is no error, which failurePolicy Fail would
 * turn into a refusal.
 */
function kubeRayPodLabelsCel(): string {
  const byPath = new Map<string, string[]>();
  for (const k of POD_TEMPLATE_KINDS) {
    const path = `object${[...(k.podMetadata.length ? k.podMetadata : ['metadata']), 'labels'].map((x) => `.?${x}`).join('')}`;
    byPath.set(path, [...(byPath.get(path) ?? []), k.kind]);
  }
  const branches = [...byPath].map(([path, kinds]) => `request.kind.kind in [${kinds.map((k) => `'${k}'`).join(', ')}] ? ${path}`);
  return `(${branches.join(' : ')} : optional.none()).orValue({}).exists(k, k in [${KUBERAY_POD_LABELS.map((l) => `'${l}'`).join(', ')}])`;
}
