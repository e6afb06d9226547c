/**
 * What the installs in the checked files say about the cluster they describe: the Kueue and KubeRay
 * versions (from the operator images) and the state of Kueue's ElasticJobsViaWorkloadSlices gate (from
 * the manager's `--feature-gates` arg or the Configuration's `featureGates` map). `check` uses them when
 * no flag says otherwise, so a whole install (e.g. the examples' dist/) is checked as it would run.
 */
import { parse as parseYaml } from 'yaml';

const GATE = 'ElasticJobsViaWorkloadSlices';
const KUEUE_IMAGE = /\/kueue\/kueue:(v\d+\.\d+\.\d+)$/;
const KUBERAY_IMAGE = /\/kuberay\/operator:(v\d+\.\d+\.\d+)$/;

export interface InstallFacts {
  /** Tag of the kueue-controller-manager image, e.g. v0.19.2. */
  readonly kueueVersion?: string;
  /** Tag of the kuberay-operator image. */
  readonly kubeRayVersion?: string;
  /**
   * The gate as the files set it; 'default' when the files hold Kueue's manager but set no value
   * (the version's default applies); undefined when they hold no Kueue manager.
   */
  readonly elasticGate?: 'on' | 'off' | 'default';
}

function containersOf(o: any): any[] {
  const c = o?.spec?.template?.spec?.containers;
  return Array.isArray(c) ? c : [];
}

/** The gate in `--feature-gates=A=true,B=false` args, if any. */
function gateInArgs(args: unknown): boolean | undefined {
  let out: boolean | undefined;
  for (const a of Array.isArray(args) ? args : []) {
    const m = typeof a === 'string' ? /^--feature-gates=(.*)$/.exec(a) : null;
    if (!m) continue;
    for (const kv of m[1].split(',')) {
      const [k, v] = kv.split('=').map((s) => s.trim());
      if (k === GATE) out = v === 'true';
    }
  }
  return out;
}

export function installFacts(objects: readonly any[]): InstallFacts {
  let kueueVersion: string | undefined;
  let kubeRayVersion: string | undefined;
  let manager = false;
  let gate: boolean | undefined;
  for (const o of objects) {
    if (o?.kind === 'Deployment') {
      for (const c of containersOf(o)) {
        const image = typeof c?.image === 'string' ? c.image : '';
        const kq = KUEUE_IMAGE.exec(image);
        if (kq) {
          kueueVersion ??= kq[1];
          manager = true;
          gate = gateInArgs(c.args) ?? gate;
        }
        const kr = KUBERAY_IMAGE.exec(image);
        if (kr) kubeRayVersion ??= kr[1];
      }
    }
    // Kueue's Configuration, mounted from this ConfigMap into the manager.
    const config = o?.kind === 'ConfigMap' ? o.data?.['controller_manager_config.yaml'] : undefined;
    if (typeof config === 'string') {
      try {
        const v = parseYaml(config)?.featureGates?.[GATE];
        if (typeof v === 'boolean') gate = v;
      } catch {
        // Kueue refuses an unparsable Configuration at start-up; the gate stays as far as the args say.
      }
    }
  }
  const elasticGate = gate === true ? 'on' : gate === false ? 'off' : manager ? 'default' : undefined;
  return { kueueVersion, kubeRayVersion, elasticGate };
}
