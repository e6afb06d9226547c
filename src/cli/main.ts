#!/usr/bin/env node
/**
 * The package's CLI. `cdk8s-kueue-ray controller ...` starts the admission webhook server (the image's
 * entrypoint, controller.ts); `cdk8s-kueue-ray check FILES…` runs the policy on plain YAML (check.ts);
 * `plan` simulates admission (plan.ts). It never loads cdk8s constructs, and each subcommand loads
 * only its own modules: the controller's code only for `controller` and the cluster readers of --kubeconfig.
 */
import type { WebhookServer } from '../controller/server';
import { DEFAULT_KUBERAY_VERSION, DEFAULT_KUEUE_VERSION } from '../policy';
import { log } from './json-log';

/**
 * The `controller` subcommand, loaded on call: check and plan never load the controller (the webhook
 * server, the admission pool, client-node's readers).
 */
export async function controller(argv: string[]): Promise<WebhookServer> {
  return (await import('./controller')).controller(argv);
}

async function main(argv: string[]): Promise<void> {
  const [cmd, ...rest] = argv;
  if (cmd === 'controller') {
    await controller(rest);
    return;
  }
  if (cmd === 'check') {
    // exitCode, not exit(): a large report piped to another process must be flushed first.
    process.exitCode = await (await import('./check')).check(rest,
      { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) });
    return;
  }
  if (cmd === 'plan') {
    process.stdout.write(await (await import('./plan')).planMain(rest));
    return;
  }
  process.stderr.write(`usage: cdk8s-kueue-ray controller [--kueue-version=${DEFAULT_KUEUE_VERSION}] [--kuberay-version=${DEFAULT_KUBERAY_VERSION}] `
    + '[--namespace=NS] [--service=SVC] [--webhook-configurations=MUT,VAL] [--port=9443] [--tls-cert-file=F --tls-key-file=F] [--reconciler=false] '
    + '[--graceful-preemption=GRACE:SLEEP] [--admission-workers=1] [--tls-reload-seconds=60] [--shutdown-grace-seconds=5] [--metrics-port=8080] '
    + '[--kuberay-service-account=NS/NAME] [--kueue-service-account=NS/NAME] [--controller-service-account=NS/NAME] [--client-ca-file=F]\n'
    + '       cdk8s-kueue-ray check FILE|DIR|- ... [--kueue-version=V] [--kuberay-version=V] [--queues=FILE] [--kubeconfig=FILE] '
    + '[--output=text|json|sarif] [--elastic-gate=on|off|unknown] (check --help)\n'
    + '       cdk8s-kueue-ray plan [dist/ or FILES...] [--arrivals=FILE] [--kueue-version=V] [--kuberay-version=V] [--output=text|json|html] '
    + '[--trace] [--kubeconfig=FILE]\n');
  process.exit(cmd ? 2 : 0);
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((e) => {
    log({ level: 'error', msg: (e as Error).message });
    process.exit(1);
  });
}
