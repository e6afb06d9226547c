// The policy rules' table tests' shared inputs (test/policy/rules/<rule file>.test.ts): an inventory of queues, the
// valid base RayJob, RayCluster and RayService each case changes, the topology annotations, and the two tables every
// rule file's test runs: refuses (each case reports its field, the problem and a fix, on a kind its rule lists) and
// accepts (the rule reports nothing), with the check that each rule the file defines has a row in both.
import { Inventory, PolicyContext, RAY_KINDS, RULE_RECORDS, RULES, RuleRecord, formatFinding, parseQuantity } from '../../../src/policy';
import { kubeRayCapabilities, kueueCapabilities } from '../../../src/policy/versions';

const q = parseQuantity;

export const inventory: Inventory = {
  localQueues: [
    { namespace: 'default', name: 'user-queue', clusterQueue: 'cluster-queue' },
    { namespace: 'team-a', name: 'default', clusterQueue: 'team-a',
      tenant: { allowedPriorityClasses: ['dev-priority'], defaultPriorityClass: 'dev-priority' } },
    { namespace: 'team-a', name: 'orphan', clusterQueue: 'missing-cq' },
    { namespace: 'team-a', name: 'b-only', clusterQueue: 'team-b' },
    { namespace: 'default', name: 'held', clusterQueue: 'held-cq' },
    { namespace: 'default', name: 'small', clusterQueue: 'small-cq' },
  ],
  clusterQueues: [
    { name: 'cluster-queue', namespaceSelector: {}, resourceGroups: [{ coveredResources: ['cpu', 'memory'],
      flavors: [{ flavor: 'default-flavor', resources: [{ resource: 'cpu', nominal: q('3') }, { resource: 'memory', nominal: q('6G') }] }] }] },
    { name: 'team-a', cohort: 'research',
      namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['team-a'] }] },
      resourceGroups: [{ coveredResources: ['cpu', 'memory'], flavors: [{ flavor: 'default-flavor',
        resources: [{ resource: 'cpu', nominal: q('2'), borrowingLimit: q('2') }, { resource: 'memory', nominal: q('8Gi') }] }] }] },
    { name: 'team-b', cohort: 'research',
      namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['team-b'] }] },
      resourceGroups: [{ coveredResources: ['cpu', 'memory'], flavors: [{ flavor: 'default-flavor',
        resources: [{ resource: 'cpu', nominal: q('4'), lendingLimit: q('3') }, { resource: 'memory', nominal: q('8Gi') }] }] }] },
    { name: 'held-cq', namespaceSelector: {}, stopPolicy: 'Hold', resourceGroups: [{ coveredResources: ['cpu', 'memory'],
      flavors: [{ flavor: 'default-flavor', resources: [{ resource: 'cpu', nominal: q('10') }, { resource: 'memory', nominal: q('10Gi') }] }] }] },
    { name: 'small-cq', namespaceSelector: {}, resourceGroups: [{ coveredResources: ['cpu', 'memory'], flavors: [
      { flavor: 'a', resources: [{ resource: 'cpu', nominal: q('1.5') }, { resource: 'memory', nominal: q('10Gi') }] },
      { flavor: 'b', resources: [{ resource: 'cpu', nominal: q('1.5') }, { resource: 'memory', nominal: q('10Gi') }] },
    ] }] },
  ],
  cohorts: [],
  priorityClasses: [{ name: 'dev-priority', value: 100 }, { name: 'prod-priority', value: 1000 }],
  namespaces: [{ name: 'team-a', labels: { 'kubernetes.io/metadata.name': 'team-a' } }],
};

// A MultiKueue manager: cluster-queue requires the check "mk" of worker "w1", whose queues are the base ones
// without default/user-queue's twin "small" (so a job on "small" has no LocalQueue there).
export const mkInventory: Inventory = {
  ...inventory,
  clusterQueues: inventory.clusterQueues.map((c) => (c.name === 'cluster-queue' || c.name === 'small-cq' ? { ...c, admissionChecks: ['mk'] } : c)),
  multiKueueChecks: [{ name: 'mk', clusters: ['w1'] }],
  workerClusters: [{ name: 'w1', inventory: { ...inventory, localQueues: inventory.localQueues.filter((l) => l.name !== 'small') } }],
};

export function ctx(kueue = 'v0.19.2', kuberay = 'v1.6.2', extra: Partial<PolicyContext> = {}): PolicyContext {
  return { kueue: kueueCapabilities(kueue), kubeRay: kubeRayCapabilities(kuberay), inventory, ...extra };
}

export const container = (name: string, cpu = '1', memory = '2Gi') =>
  ({ name, image: 'rayproject/ray:2.46.0', resources: { requests: { cpu, memory }, limits: { cpu, memory } } });

export function clusterSpec(): any {
  return {
    rayVersion: '2.46.0',
    headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [container('ray-head')] } } },
    workerGroupSpecs: [{ groupName: 'small-group', replicas: 1, minReplicas: 1, maxReplicas: 5, rayStartParams: {},
      template: { spec: { containers: [container('ray-worker')] } } }],
  };
}

export function job(mut: (o: any) => void = () => {}): any {
  const o: any = {
    apiVersion: 'ray.io/v1', kind: 'RayJob',
    metadata: { name: 'toy', namespace: 'default',
      labels: { 'kueue.x-k8s.io/queue-name': 'user-queue', 'kueue.x-k8s.io/priority-class': 'dev-priority' } },
    spec: { entrypoint: 'python x.py', shutdownAfterJobFinishes: true, suspend: true, rayClusterSpec: clusterSpec() },
  };
  mut(o);
  return o;
}

export function elasticCluster(mut: (o: any) => void = () => {}): any {
  const spec = clusterSpec();
  spec.enableInTreeAutoscaling = true;
  spec.workerGroupSpecs[0] = { ...spec.workerGroupSpecs[0], replicas: 0, minReplicas: 0, maxReplicas: 4 };
  const o: any = {
    apiVersion: 'ray.io/v1', kind: 'RayCluster',
    metadata: { name: 'rc', namespace: 'default', labels: { 'kueue.x-k8s.io/queue-name': 'user-queue' },
      annotations: { 'kueue.x-k8s.io/elastic-job': 'true' } },
    spec,
  };
  mut(o);
  return o;
}

export function service(mut: (o: any) => void = () => {}): any {
  const spec = clusterSpec();
  spec.enableInTreeAutoscaling = true;
  const o: any = {
    apiVersion: 'ray.io/v1', kind: 'RayService',
    metadata: { name: 'svc', namespace: 'default', labels: { 'kueue.x-k8s.io/queue-name': 'user-queue' },
      annotations: { 'kueue.x-k8s.io/elastic-job': 'true' } },
    spec: { serveConfigV2: 'applications: []', rayClusterConfig: spec },
  };
  mut(o);
  return o;
}

export interface Case {
  rule: string;
  name: string;
  obj: any;
  ctx: PolicyContext;
  severity: 'error' | 'warning';
  field: string;
  message: RegExp;
}

export const workers = (n: number) => Array.from({ length: n }, (_, i) =>
  ({ groupName: `g${i}`, replicas: 1, minReplicas: 1, maxReplicas: 1, template: { spec: { containers: [container('w', '100m', '100Mi')] } } }));

// Topology-aware scheduling annotations (Kueue's TAS validation), on a template's metadata.
export const TAS = {
  req: 'kueue.x-k8s.io/podset-required-topology', pref: 'kueue.x-k8s.io/podset-preferred-topology',
  unc: 'kueue.x-k8s.io/podset-unconstrained-topology', sliceReq: 'kueue.x-k8s.io/podset-slice-required-topology',
  size: 'kueue.x-k8s.io/podset-slice-size', layers: 'kueue.x-k8s.io/podset-slice-required-topology-constraints',
  group: 'kueue.x-k8s.io/podset-group-name',
};
export const annotate = (template: any, annotations: Record<string, string>) => { template.metadata = { ...template.metadata, annotations }; };
export const tasHead = (a: Record<string, string>) => job((o) => annotate(o.spec.rayClusterSpec.headGroupSpec.template, a));
export const tasWorker = (a: Record<string, string>, replicas = 1) => job((o) => {
  o.spec.rayClusterSpec.workerGroupSpecs[0].replicas = replicas;
  annotate(o.spec.rayClusterSpec.workerGroupSpecs[0].template, a);
});
export const HEAD_ANN = 'spec.rayClusterSpec.headGroupSpec.template.metadata.annotations';
export const WORKER_ANN = 'spec.rayClusterSpec.workerGroupSpecs[0].template.metadata.annotations';

/** An object the rule does not report on. */
export interface Accepted {
  rule: string;
  name: string;
  obj: any;
  ctx: PolicyContext;
}

/** The rules a rule file defines that RULES runs on a Ray object: its exported records. */
export function rulesOf(mod: Record<string, unknown>): string[] {
  const records = Object.values(mod).filter((v): v is RuleRecord =>
    typeof v === 'object' && v !== null && typeof (v as RuleRecord).name === 'string' && typeof (v as RuleRecord).check === 'function');
  return [...new Set(records.map((r) => r.name).filter((n) => n in RULES))];
}

/** Each case: the rule reports the field, the problem and a fix; and only on a kind its record lists. */
export function refuses(cases: Case[]): void {
  describe.each(cases.map((c) => [c.rule, c.name, c] as const))('%s: %s', (rule, _name, c) => {
    test('reports the field, the problem and a fix', () => {
      const findings = RULES[rule](c.obj, c.ctx);
      const hit = findings.find((f) => f.severity === c.severity && c.message.test(f.message));
      const messages = findings.map((f) => f.message);
      expect({ rule, findings: messages }).toEqual({ rule, findings: expect.arrayContaining([expect.stringMatching(c.message)]) });
      expect(hit).toBeDefined();
      expect(hit!.rule).toBe(rule);
      expect(hit!.field).toBe(c.field);
      expect(hit!.fix.length).toBeGreaterThan(10);
      expect(formatFinding(hit!)).toMatch(/^(RayJob|RayCluster|RayService) [a-z0-9-]+\/\S+: /);
    });
  });

  test('each case reports only on a kind its rule record lists', () => {
    for (const c of cases) {
      const record = RULE_RECORDS.find((r) => r.name === c.rule)!;
      expect({ rule: c.rule, kind: c.obj.kind, listed: record.kinds.includes(c.obj.kind) }).toEqual({ rule: c.rule, kind: c.obj.kind, listed: true });
    }
    // A rule on some kinds reports nothing on an object of another kind (the failing inputs, re-kinded).
    for (const c of cases) {
      const record = RULE_RECORDS.find((r) => r.name === c.rule)!;
      for (const kind of RAY_KINDS.filter((k) => !record.kinds.includes(k))) {
        expect({ rule: c.rule, kind, findings: record.check({ ...c.obj, kind }, c.ctx) }).toEqual({ rule: c.rule, kind, findings: [] });
      }
    }
  });
}

/** Each row: the rule reports nothing at all on the object. */
export function accepts(rows: Accepted[]): void {
  test.each(rows.map((a) => [a.rule, a.name, a] as const))('%s accepts %s', (rule, _name, a) => {
    expect({ rule, findings: RULES[rule](a.obj, a.ctx).map(formatFinding) }).toEqual({ rule, findings: [] });
  });
}

/** Every rule the file defines has a refused case and an accepted row. */
export function coversEveryRule(mod: Record<string, unknown>, cases: Case[], rows: Accepted[]): void {
  test('every rule the file defines has a refused and an accepted object', () => {
    const rules = rulesOf(mod);
    expect(rules.length).toBeGreaterThan(0);
    expect(rules.filter((r) => !cases.some((c) => c.rule === r))).toEqual([]);
    expect(rules.filter((r) => !rows.some((a) => a.rule === r))).toEqual([]);
  });
}
