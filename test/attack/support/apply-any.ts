// Server-side apply of any object the tenant charts write, including kinds the e2e client's table
// (test/e2e/support/kube.ts, not ours to change) does not list yet: TenantQueue's ResourceQuota.
import { KubeClient, KubeError } from '../../e2e/support/kube';

const EXTRA: Record<string, (o: any) => string> = {
  ResourceQuota: (o) => `/api/v1/namespaces/${o.metadata.namespace}/resourcequotas/${o.metadata.name}`,
};

/** `client.apply(obj)` (forced, as the e2e client does), for the kinds above too. */
export async function applyAny(client: KubeClient, obj: any): Promise<any> {
  const path = EXTRA[obj.kind];
  if (!path) return client.apply(obj);
  const r = await client.request('PATCH', `${path(obj)}?fieldManager=cdk8s-kueue-ray-e2e&force=true`, obj, 'application/apply-patch+yaml');
  if (r.status >= 300) throw new KubeError(r.status, r.body, `apply ${obj.kind} ${obj.metadata.name}`);
  return r.body;
}
