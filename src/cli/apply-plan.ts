/**
 * The pure part of `cdk8s-kueue-ray apply` (apply.ts): the phases of a synthesized dist/, how a Ray
 * object that exists already is re-applied, and how kubectl's conflict errors are listed. No I/O, so
 * the order and the re-apply are tested without a cluster. The Ray kinds and their suspend fields are
 * the policy's kind table (src/policy/kinds).
 */
import { RAY_API_GROUPS, rayKindNamed } from '../policy/kinds';
import { isRecord } from '../policy/json';

/**
 * An object of a synthesized file, named by the fields the apply reads (applyPlan refuses one without
 * metadata.name before anything is applied); every other field is carried as written.
 */
export type Manifest = {
  readonly apiVersion?: unknown;
  readonly kind?: string;
  readonly metadata?: { readonly name?: string; readonly namespace?: string; readonly generateName?: string; readonly resourceVersion?: string };
  readonly webhooks?: ReadonlyArray<{ readonly clientConfig?: { readonly service?: NamespacedName; readonly caBundle?: string } }>;
  readonly [field: string]: unknown;
};

/** The objects of one file, in the order read; `file` names it in messages. */
export interface ApplyFile {
  readonly file: string;
  readonly objects: readonly Manifest[];
}

/** A Deployment to wait for, or a Service a webhook calls. */
export interface NamespacedName {
  readonly namespace: string;
  readonly name: string;
}

/** The phases of the ordered apply, in order. */
export interface ApplyPlan {
  /** 1. Applied, then waited for until Established. */
  readonly crds: Manifest[];
  /** 2. */
  readonly namespaces: Manifest[];
  /** 3. The serving files' objects (operators, controller, RBAC, services, config) without their webhook configurations. */
  readonly serving: Manifest[];
  /** 4. Waited for: rolled out. */
  readonly deployments: NamespacedName[];
  /** 4. Waited for: every Service a webhook calls has endpoints. */
  readonly services: NamespacedName[];
  /** 5. Applied once the serving objects are up, then waited for until each has a caBundle. */
  readonly webhooks: Manifest[];
  /** 6. Queues, tenants and workloads. */
  readonly rest: Manifest[];
}

export const WEBHOOK_KINDS: readonly string[] = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration', 'APIService'];

const isWebhook = (o: Manifest): boolean => WEBHOOK_KINDS.includes(o.kind!);

/**
 * The phases of the apply, from the files of a dist/ in name order. A file holding a CRD or a webhook
 * configuration is a serving file (an install or the controller): the webhooks it registers call its own
 * pods, so those are applied and up before the webhooks, and the webhooks before what they check.
 * Throws, naming each with its file, when an object has no metadata.name: server-side apply needs one.
 */
export function applyPlan(files: readonly ApplyFile[]): ApplyPlan {
  const all = files.flatMap((d) => d.objects);
  const unnamed = files.flatMap((d) => d.objects.filter((o) => !o.metadata || !o.metadata.name).map((o) => ({ file: d.file, o })));
  if (unnamed.length) {
    const list = unnamed.map(({ file, o }) => `  ${file}: ${o.kind} ${(o.metadata && o.metadata.generateName) || '(no name)'}*`).join('\n');
    throw new Error(`${unnamed.length} object(s) have no metadata.name (generateName), so they cannot be applied:\n${list}\n`
      + 'create them with kubectl create -f <file>: put them in a chart of their own and synthesize with KueueRayApp, which writes such charts to '
      + 'dist/create/ (skipped by this apply; README, "Installs")');
  }
  // By entry, not by name: two folders may hold files of the same name.
  const serving = new Set(files.filter((d) => d.objects.some((o) => o.kind === 'CustomResourceDefinition' || isWebhook(o))));
  const servingObjects = files.filter((d) => serving.has(d)).flatMap((d) => d.objects).filter((o) => o.kind !== 'CustomResourceDefinition');
  const webhooks = servingObjects.filter(isWebhook);
  const services = new Map<string, NamespacedName>();
  for (const w of webhooks) {
    for (const h of w.webhooks || []) {
      const s = h.clientConfig && h.clientConfig.service;
      if (s) services.set(`${s.namespace}/${s.name}`, { namespace: s.namespace, name: s.name });
    }
  }
  return {
    crds: all.filter((o) => o.kind === 'CustomResourceDefinition'),
    namespaces: all.filter((o) => o.kind === 'Namespace'),
    serving: servingObjects.filter((o) => o.kind !== 'Namespace' && !isWebhook(o)),
    deployments: servingObjects.filter((o) => o.kind === 'Deployment')
      .map((o) => ({ namespace: o.metadata!.namespace || 'default', name: o.metadata!.name! })),
    services: [...services.values()],
    webhooks,
    rest: files.filter((d) => !serving.has(d)).flatMap((d) => d.objects).filter((o) => o.kind !== 'Namespace'),
  };
}

/** An object of KubeRay's API group: one that exists already is re-applied with its live suspend value, never forced. */
export function isRayObject(o: Manifest): boolean {
  const apiVersion = o.apiVersion;
  return typeof apiVersion === 'string' && RAY_API_GROUPS.some((g) => apiVersion.startsWith(`${g}/`));
}

/** kind/namespace/name, how the apply matches a file's object with the live one. */
export function objectKey(o: Manifest): string {
  return `${o.kind}/${o.metadata!.namespace || ''}/${o.metadata!.name}`;
}

/** Where Kueue suspends the object's kind, as path segments; undefined for a kind outside the kind table. */
function suspendPath(o: { readonly kind?: unknown }): string[] | undefined {
  return rayKindNamed(o.kind)?.suspendField.split('.');
}

/** A JSON copy of a Ray object without the suspend field Kueue owns after admission. */
function copyWithoutSuspend(o: Manifest): Record<string, unknown> {
  const c = JSON.parse(JSON.stringify(o)) as Record<string, unknown>;
  const p = suspendPath(c);
  if (!p) return c;
  let at: unknown = c;
  // A list on the way holds none of the keys (they are field names), as a scalar does not.
  for (const k of p.slice(0, -1)) at = isRecord(at) ? at[k] : undefined;
  if (isRecord(at)) delete at[p[p.length - 1]];
  return c;
}

/** A copy of a Ray object without the suspend field Kueue owns after admission. */
export function withoutSuspend<T extends Manifest>(o: T): T {
  return copyWithoutSuspend(o) as T;
}

/** A Ray object as re-applied over its live self (withLiveSuspend). */
export interface LiveSuspend<T extends Manifest = Manifest> {
  readonly object: T;
  /** The kind's suspend field, dotted; undefined for a kind without one. */
  readonly field: string | undefined;
  /** The value carried from the live object; undefined when it has none. */
  readonly suspend: boolean | undefined;
}

/**
 * A Ray object to re-apply over `live`: its suspend field carries the live value, and its resourceVersion
 * the live one. Left out, server-side apply would remove a field this manager set at create (the webhook's
 * or the synthesized suspend: true) and so unsuspend a pending object; the same value as Kueue's changes
 * nothing and conflicts with nothing. The resourceVersion makes the apply fail, rather than suspend again,
 * if Kueue admitted the object after `live` was read.
 */
export function withLiveSuspend<T extends Manifest>(o: T, live: Manifest): LiveSuspend<T> {
  const c = copyWithoutSuspend(o);
  const p = suspendPath(c);
  c.metadata = { ...(c.metadata as object), resourceVersion: live.metadata!.resourceVersion };
  // `c` is `o` copied, with the live suspend and resourceVersion.
  const object = c as T;
  if (!p) return { object, field: undefined, suspend: undefined };
  let from: unknown = live;
  for (const k of p) from = isRecord(from) ? from[k] : undefined;
  const field = p.join('.');
  if (typeof from !== 'boolean') return { object, field, suspend: undefined };
  let at = c;
  for (const k of p.slice(0, -1)) {
    if (!isRecord(at[k])) at[k] = {};
    at = at[k] as Record<string, unknown>; // a JSON object: made one just above if it was not
  }
  at[p[p.length - 1]] = from;
  return { object, field, suspend: from };
}

/** How a re-apply leaves an object's suspend field (withLiveSuspend's result), for the apply's listing. */
export function suspendNote(next: LiveSuspend): string {
  if (next.field === undefined) return 'no suspend field';
  if (next.suspend === undefined) return `${next.field} unset, left unset`;
  return next.suspend ? `${next.field} true, left to Kueue (pending: Kueue unsuspends it when it admits its Workload)`
    : `${next.field} false, left to Kueue`;
}

/** Whether kubectl's error is a server-side apply conflict (another manager owns a field), not a failure. */
export function isApplyConflict(err: string): boolean {
  return /Apply failed with \d+ conflicts?/.test(err);
}

/** The fields and their owners in kubectl's conflict error, in the order written, each once. */
export function conflictsOf(err: string): { fields: string[]; owners: string[] } {
  const fields = [...err.matchAll(/conflicts? with "([^"]+)"[^:]*:\s*(?:\n- )?(\S+)/g), ...err.matchAll(/^- (\S+)$/gm)]
    .map((m) => m[2] || m[1]).filter((f) => f.startsWith('.'));
  const owners = [...new Set([...err.matchAll(/conflicts? with "([^"]+)"/g)].map((m) => m[1]))];
  return { fields: [...new Set(fields)], owners };
}
