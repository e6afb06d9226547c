/**
 * Pinned upstream release data for the installs: URLs, sha256 pins, images and the KubeRay
 * operator's RBAC rules per version (the Helm chart's `role.consistentRules`, equal to
 * ray-operator/config/rbac/role.yaml at each tag; test/install/install.test.ts compares them with the rendered
 * upstream kustomize install).
 */

/** Where Kueue publishes its release assets; `${base}/${tag}/manifests.yaml`. */
export const KUEUE_RELEASES_URL = 'https://github.com/kubernetes-sigs/kueue/releases/download';
/** Overrides KUEUE_RELEASES_URL (a mirror; tests serve from 127.0.0.1). */
export const KUEUE_RELEASES_URL_ENV = 'CDK8S_KUEUE_RAY_KUEUE_RELEASES_URL';

export function kueueReleaseUrl(tag: string, base: string = KUEUE_RELEASES_URL): string {
  return `${base.replace(/\/+$/, '')}/${tag}/manifests.yaml`;
}

/**
 * sha256 of official Kueue release assets, where one is known; it then wins over the app's lock file.
 * None is recorded: github.com is unreachable from the machine this was built on, and the vendored
 * rendering differs from the asset in formatting, so its hash cannot stand in. Without a pin here,
 * the first download is recorded in the app's lock file (see release-source.ts).
 */
export const KUEUE_RELEASE_SHA256: Record<string, string> = {};

/** Where KubeRay's tagged sources are served raw; `${base}/${tag}/ray-operator/config/crd/bases/${file}`. */
export const KUBERAY_SOURCES_URL = 'https://raw.githubusercontent.com/ray-project/kuberay';
/** Overrides KUBERAY_SOURCES_URL (a mirror; tests serve from 127.0.0.1). */
export const KUBERAY_SOURCES_URL_ENV = 'CDK8S_KUEUE_RAY_KUBERAY_SOURCES_URL';

export function kubeRayCrdUrl(tag: string, file: string, base: string = KUBERAY_SOURCES_URL): string {
  return `${base.replace(/\/+$/, '')}/${tag}/ray-operator/config/crd/bases/${file}`;
}

/** KubeRay CRD files and their sha256 per tag (byte-identical to the tagged files). */
export const KUBERAY_CRDS: Record<string, Record<string, string>> = {
  'v1.4.2': {
    'ray.io_rayclusters.yaml': '84af0b910190ef0875581b7433f9e33bc86086a04c2039dd743f965f00fb364b',
    'ray.io_rayjobs.yaml': '471d245cd3bfdf63c82be874d2b184c19b6522eec8e31f45692bb15ea8742290',
    'ray.io_rayservices.yaml': '57d824665599f3ba338c897d714d46a552401c523d684f377a95faaf779e7daf',
  },
  'v1.5.2': {
    'ray.io_rayclusters.yaml': '9b5ada939fdfd0edb5a6cf48f24a63bd792254c264967dd0930155a3941c2557',
    'ray.io_rayjobs.yaml': '7825ddddb04eb775d6cf6c2fd4ad4d8eeff3cb7122dac95218ca1525fd85c91f',
    'ray.io_rayservices.yaml': '563d23ba5a73e5ca4b949ae7f41ff43468ce069afe336ebcb45db2beeb9a62ab',
  },
  'v1.6.2': {
    'ray.io_rayclusters.yaml': '1d51d8c4ce065b22c2069af0ebd72ae25f4a6968e5c5f93a3106ba6fc35bcc1d',
    'ray.io_raycronjobs.yaml': '6d0ae6c24a2b2a6c0796c6775cd72f3e894831ff3b89379613e93c4d55965cd5',
    'ray.io_rayjobs.yaml': 'ecae45d9a5dc1be68f1074ba784c495ef9d439d295253b61e1bd51f7b08522f5',
    'ray.io_rayservices.yaml': '95c639acc20ecc3cfa425d5ad0f8a7c152a336bc16d2e0deec17b62005e67fda',
  },
};

export interface PolicyRuleData {
  readonly apiGroups: string[];
  readonly resources: string[];
  readonly verbs: string[];
}

const r = (apiGroups: string[], resources: string[], verbs: string[]): PolicyRuleData => ({ apiGroups, resources, verbs });
const CRUD = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
const rayKinds = (cron: boolean) => ['rayclusters', ...(cron ? ['raycronjobs'] : []), 'rayjobs', 'rayservices'];

function operatorRules(v: '1.4' | '1.5' | '1.6'): PolicyRuleData[] {
  const cron = v === '1.6';
  return [
    ...(v !== '1.6' ? [r([''], ['endpoints'], ['get', 'list', 'watch'])] : []),
    r([''], ['events', 'pods/status', 'services'], CRUD),
    r([''], ['pods'], ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']),
    r([''], ['pods/proxy', 'services/status'], ['get', 'patch', 'update']),
    ...(v !== '1.4' ? [r([''], ['pods/resize'], ['patch']), r([''], ['secrets'], ['create', 'get', 'list', 'watch'])] : []),
    r([''], ['serviceaccounts'], ['create', 'delete', 'get', 'list', 'watch']),
    r([''], ['services/proxy'], ['create', 'get', 'patch', 'update']),
    r(['batch'], ['jobs'], CRUD),
    r(['coordination.k8s.io'], ['leases'], ['create', 'get', 'list', 'update']),
    ...(v === '1.6' ? [r(['discovery.k8s.io'], ['endpointslices'], ['get', 'list', 'watch'])] : []),
    r(['extensions', 'networking.k8s.io'], ['ingresses'], CRUD),
    ...(v !== '1.4' ? [r(['gateway.networking.k8s.io'], ['gateways', 'httproutes'], ['create', 'get', 'list', 'update', 'watch'])] : []),
    r(['networking.k8s.io'], ['ingressclasses'], ['get', 'list', 'watch']),
    r(['ray.io'], rayKinds(cron), CRUD),
    r(['ray.io'], rayKinds(cron).map((k) => `${k}/finalizers`), ['update']),
    r(['ray.io'], rayKinds(cron).map((k) => `${k}/status`), ['get', 'patch', 'update']),
    r(['rbac.authorization.k8s.io'], ['rolebindings'], ['create', 'delete', 'get', 'list', 'watch']),
    r(['rbac.authorization.k8s.io'], ['roles'], ['create', 'delete', 'get', 'list', 'update', 'watch']),
    r(['route.openshift.io'], ['routes'], CRUD),
  ];
}

export const KUBERAY_CLUSTER_ROLE_RULES: Record<string, PolicyRuleData[]> = {
  'v1.4.2': operatorRules('1.4'),
  'v1.5.2': operatorRules('1.5'),
  'v1.6.2': operatorRules('1.6'),
};

export const KUBERAY_LEADER_ELECTION_RULES: PolicyRuleData[] = [
  r([''], ['configmaps'], ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']),
  r([''], ['events'], ['create']),
  r(['coordination.k8s.io'], ['leases'], ['create', 'get', 'list', 'update']),
];
