/**
 * The controller's identity and least privilege: its ServiceAccount, the ClusterRole and Role, and their
 * bindings. The README lists why each verb is needed.
 */
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { RAY_API_GROUPS, RAY_PLURALS } from '../../policy/kinds';
import { ControllerSettings, controllerMeta, NAME, TLS_SECRET, WEBHOOK_NAMES } from './settings';

// Raw ApiObjects: cdk8s-plus-28 would add automountServiceAccountToken, subjects' apiGroup and empty resourceNames.

/** Creates the ServiceAccount, RBAC and bindings; returns the ClusterRole. */
export function controllerRbac(scope: Construct, s: ControllerSettings): ApiObject {
  new ApiObject(scope, 'service-account', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: controllerMeta(s, NAME) });
  const selfManagedCerts = !s.certManager;
  const clusterRole = new ApiObject(scope, 'cluster-role', {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: controllerMeta(s, NAME, false),
    rules: [
      // Every Ray kind of the kind table (src/policy/kinds), as the webhook rules.
      { apiGroups: [...RAY_API_GROUPS], resources: [...RAY_PLURALS], verbs: ['get', 'list', 'watch', 'patch'] },
      {
        apiGroups: ['kueue.x-k8s.io'],
        resources: ['workloads', 'localqueues', 'clusterqueues', 'cohorts', 'workloadpriorityclasses', 'resourceflavors'],
        verbs: ['get', 'list', 'watch'],
      },
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
      // Self-managed certificates only: cert-manager's CA injector writes the caBundle otherwise.
      ...(selfManagedCerts ? [
        // Only its two configurations, only read and patch (the caBundle; see the caBundle-only policy in webhooks.ts).
        ...(['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'] as const).map((resource, i) => (
          { apiGroups: ['admissionregistration.k8s.io'], resources: [resource], resourceNames: [WEBHOOK_NAMES[i]], verbs: ['get', 'patch'] })),
      ] : []),
    ],
  });
  new ApiObject(scope, 'cluster-role-binding', {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: controllerMeta(s, NAME, false),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: NAME },
    subjects: [{ kind: 'ServiceAccount', name: NAME, namespace: s.namespace }],
  });
  new ApiObject(scope, 'role', {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: controllerMeta(s, NAME),
    rules: [
      // create cannot be limited by name (the object does not exist yet); the rest can.
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: [NAME], verbs: ['get', 'update'] },
      // Self-managed certificates only (with cert-manager the Secret is mounted): the one Secret this
      // chart creates empty (certificates.ts), so the controller needs no create on Secrets at all.
      ...(selfManagedCerts ? [{ apiGroups: [''], resources: ['secrets'], resourceNames: [TLS_SECRET], verbs: ['get', 'update'] }] : []),
    ],
  });
  new ApiObject(scope, 'role-binding', {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: controllerMeta(s, NAME),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: NAME },
    subjects: [{ kind: 'ServiceAccount', name: NAME, namespace: s.namespace }],
  });
  return clusterRole;
}
