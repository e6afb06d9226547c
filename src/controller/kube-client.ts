/**
 * What the controller's cluster-facing parts share: @kubernetes/client-node (ESM-only; Node 20.19+
 * loads it with require()), the kubeconfig (a file, or the pod's service account), and informers
 * that restart after a watch error.
 */

export const k8s: any = require('@kubernetes/client-node');

/** The kubeconfig at `file`, or the in-cluster configuration when omitted. */
export function loadKubeConfig(file?: string): any {
  const kc = new k8s.KubeConfig();
  if (file) kc.loadFromFile(file);
  else kc.loadFromCluster();
  return kc;
}

/**
 * Restarts `informer` 2 s after a watch error, logging it, until `stopped()` says the owner is
 * stopping (stopping aborts the watch, which is not an error).
 */
export function restartOnError(informer: any, what: string, stopped: () => boolean, log?: (entry: Record<string, unknown>) => void): void {
  informer.on('error', (e: unknown) => {
    if (stopped()) return;
    log?.({ level: 'warn', msg: `${what} informer error, restarting`, detail: e instanceof Error ? e.message : String(e) });
    setTimeout(() => informer.start().catch(() => undefined), 2000);
  });
}
