#!/usr/bin/env node
/**
 * The package's CLI. `cdk8s-kueue-ray controller ...` starts the admission webhook server (the image's
 * entrypoint, controller.ts); `cdk8s-kueue-ray check FILES…` runs the policy on plain YAML (check.ts);
 * `plan` simulates admission (plan.ts); `apply` applies a synthesized dist/ in order (apply.ts). It never
 * loads cdk8s constructs, and each subcommand loads only its own modules: the controller's code only for
 * `controller` and the cluster readers of --kubeconfig.
 */
import type { WebhookServer } from '../controller/server';
import { DEFAULT_KUBERAY_VERSION, DEFAULT_KUEUE_VERSION } from '../policy';
import { debugRequested, errorText } from './errors';
import { log } from './json-log';

/**
 * The `controller` subcommand, loaded on call: check and plan never load the controller (the webhook
 * server, the admission pool, client-node's readers).
 */
export async function controller(argv: string[]): Promise<WebhookServer> {
  return (await import('./controller')).controller(argv);
}

export const MAIN_USAGE = `usage: cdk8s-kueue-ray COMMAND [flags]

Commands:
  check FILE|DIR|- ...   run the policy (synth's and the admission webhook's rules) on Ray objects in YAML (check --help)
  plan [dist/ | FILES]   what Kueue will admit, keep pending or preempt, and why, before apply (plan --help)
  apply [dist/ | FILES]  the ordered, server-side apply of a synthesized dist/; a re-apply restarts nothing
                         (apply --help; also installed as cdk8s-kueue-ray-apply)
  controller [flags]     the admission webhook server and reconciler (the controller image's entrypoint):
      [--kueue-version=${DEFAULT_KUEUE_VERSION}] [--kuberay-version=${DEFAULT_KUBERAY_VERSION}] [--namespace=NS] [--service=SVC]
      [--webhook-configurations=MUT,VAL] [--port=9443] [--tls-cert-file=F --tls-key-file=F] [--reconciler=false]
      [--graceful-preemption=GRACE:SLEEP] [--admission-workers=1] [--tls-reload-seconds=60] [--shutdown-grace-seconds=5]
      [--metrics-port=8080] [--kuberay-service-account=NS/NAME] [--kueue-service-account=NS/NAME]
      [--controller-service-account=NS/NAME] [--client-ca-file=F]

check, plan and apply take kubectl's -f/--filename (repeatable) beside positional paths; check and plan
also -o/--output and -n/--namespace.
Exit codes follow kubectl: 0 success (and --help), 1 a failure the command reports (a finding, a failed
apply), 2 a usage error (printed in one line with a pointer to --help) or a file or folder that does not exist.
An error prints once, without a stack trace; --verbose (check, plan, apply) or CDK8S_KUEUE_RAY_DEBUG=1 adds it.
`;

async function main(argv: string[]): Promise<void> {
  const [cmd, ...rest] = argv;
  const io = { stdout: (s: string) => process.stdout.write(s), stderr: (s: string) => process.stderr.write(s) };
  if (cmd === 'controller') {
    await controller(rest);
    return;
  }
  // exitCode, not exit(): a large report piped to another process must be flushed first.
  if (cmd === 'check') {
    process.exitCode = await (await import('./check')).check(rest, io);
    return;
  }
  if (cmd === 'plan') {
    process.exitCode = await (await import('./plan')).plan(rest, io);
    return;
  }
  if (cmd === 'apply') {
    process.exitCode = await (await import('./apply')).apply(rest, io);
    return;
  }
  if (cmd === undefined || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    io.stdout(MAIN_USAGE);
    return;
  }
  io.stderr(`cdk8s-kueue-ray: unknown command '${cmd}' (commands: check, plan, apply, controller)\nSee 'cdk8s-kueue-ray --help' for usage.\n`);
  process.exitCode = 2;
}

/**
 * Runs `cdk8s-kueue-ray ARGV…` in this process. Exported for the old bin name cdk8s-kueue-ray-apply, whose
 * one-line alias (written by scripts/bundle.js) calls it with `apply` first, so both names run this code.
 */
export function runCli(argv: string[]): Promise<void> {
  return main(argv).catch((e) => {
    // JSON log lines are the controller's; check, plan and apply report as text.
    const debug = debugRequested(argv);
    if (argv[0] === 'controller') log({ level: 'error', msg: (e as Error).message, ...(debug ? { stack: (e as Error).stack } : {}) });
    else process.stderr.write(errorText(argv[0], e, debug));
    process.exit(1);
  });
}

if (require.main === module) void runCli(process.argv.slice(2));
