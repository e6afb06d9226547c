import { SUPPORTED_KUBERAY_VERSIONS, SUPPORTED_KUEUE_VERSIONS } from '../../src/policy/versions';
import { CrdValidator, crdVersions } from './schema';
import { readKubeRayCrd, readKueueCrd } from './upstream';

export const KUEUE_VERSIONS = [...SUPPORTED_KUEUE_VERSIONS];
export const KUBERAY_VERSIONS = [...SUPPORTED_KUBERAY_VERSIONS];
export const PAIRS = KUEUE_VERSIONS.flatMap((k) => KUBERAY_VERSIONS.map((r) => [k, r] as [string, string]));

const KUEUE_PLURALS: Record<string, string> = {
  ClusterQueue: 'clusterqueues', LocalQueue: 'localqueues', ResourceFlavor: 'resourceflavors',
  WorkloadPriorityClass: 'workloadpriorityclasses', Cohort: 'cohorts',
};
const RAY_PLURALS: Record<string, string> = { RayJob: 'rayjobs', RayCluster: 'rayclusters', RayService: 'rayservices' };

const cache = new Map<string, Promise<CrdValidator>>();

/** The validator for an object's apiVersion/kind at the given versions; undefined for built-in kinds. */
export function validatorFor(obj: any, kueue: string, kubeRay: string): Promise<CrdValidator> | undefined {
  const [group, version] = String(obj.apiVersion).split('/');
  let key: string;
  let load: () => Promise<string>;
  if (group === 'kueue.x-k8s.io' && KUEUE_PLURALS[obj.kind]) {
    key = `kueue ${kueue} ${obj.kind} ${version}`;
    load = () => readKueueCrd(kueue, KUEUE_PLURALS[obj.kind]);
  } else if (group === 'ray.io' && RAY_PLURALS[obj.kind]) {
    key = `kuberay ${kubeRay} ${obj.kind} ${version}`;
    load = () => readKubeRayCrd(kubeRay, RAY_PLURALS[obj.kind]);
  } else {
    return undefined;
  }
  let v = cache.get(key);
  if (!v) {
    v = load().then((text) => {
      const found = crdVersions(text).find((x) => x.version === version);
      if (!found) throw new Error(`${obj.kind} ${obj.apiVersion} is not served by ${key}`);
      return new CrdValidator(found);
    });
    cache.set(key, v);
  }
  return v;
}
