// src/policy/rules/kueue-topology.ts, Kueue's topology-aware scheduling annotations:
// a refused case (the field, the problem, a fix) and an accepted object for each rule it defines.
import { RULES, formatFinding } from '../../../src/policy';
import * as rules from '../../../src/policy/rules/kueue-topology';
import {
  Accepted, accepts, annotate, Case, container, coversEveryRule, ctx, elasticCluster, HEAD_ANN, job, refuses, service, TAS, tasHead, tasWorker,
  WORKER_ANN,
} from './fixtures';

const CASES: Case[] = [
  // topologyAnnotations: Kueue's TAS validation of the pod templates' annotations, one case per error site.
  { rule: 'topologyAnnotations', name: 'two topology annotations on one template', obj: tasHead({ [TAS.req]: 'rack', [TAS.pref]: 'rack' }), ctx: ctx(), severity: 'error', field: HEAD_ANN, message: /must not contain more than one topology annotation: \[\"kueue.x-k8s.io\/podset-required-topology\"/ },
  { rule: 'topologyAnnotations', name: 'required topology not a label key', obj: tasWorker({ [TAS.req]: 'a/b/c' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.req}]`, message: /Invalid value: \"a\/b\/c\": a qualified name must consist of alphanumeric characters/ },
  { rule: 'topologyAnnotations', name: 'preferred topology not a label key', obj: tasWorker({ [TAS.pref]: 'rack block' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.pref}]`, message: /name part must consist of alphanumeric characters/ },
  { rule: 'topologyAnnotations', name: 'slice topology not a label key', obj: tasWorker({ [TAS.sliceReq]: 'Example.com/rack', [TAS.size]: '1' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.sliceReq}]`, message: /prefix part a lowercase RFC 1123 subdomain/ },
  { rule: 'topologyAnnotations', name: 'numeric group name', obj: tasHead({ [TAS.req]: 'rack', [TAS.group]: '42' }), ctx: ctx(), severity: 'error', field: `${HEAD_ANN}[${TAS.group}]`, message: /Invalid value: \"42\": must not be a number/ },
  { rule: 'topologyAnnotations', name: 'group name with a slice size', obj: tasWorker({ [TAS.req]: 'rack', [TAS.group]: 'g', [TAS.sliceReq]: 'host', [TAS.size]: '1' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.group}]`, message: /Forbidden: may not be set when 'kueue.x-k8s.io\/podset-slice-size' is specified/ },
  { rule: 'topologyAnnotations', name: 'group name with a slice topology', obj: tasWorker({ [TAS.req]: 'rack', [TAS.group]: 'g', [TAS.sliceReq]: 'host', [TAS.size]: '1' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.group}]`, message: /Forbidden: may not be set when 'kueue.x-k8s.io\/podset-slice-required-topology' is specified/ },
  { rule: 'topologyAnnotations', name: 'group name without a required or preferred topology', obj: tasHead({ [TAS.group]: 'g' }), ctx: ctx(), severity: 'error', field: `${HEAD_ANN}[${TAS.group}]`, message: /may not be set when neither 'kueue.x-k8s.io\/podset-preferred-topology' nor/ },
  { rule: 'topologyAnnotations', name: 'unconstrained not a boolean', obj: tasHead({ [TAS.unc]: 'yes' }), ctx: ctx(), severity: 'error', field: `${HEAD_ANN}[${TAS.unc}]`, message: /Invalid value: \"yes\": must be a boolean value/ },
  { rule: 'topologyAnnotations', name: 'slice size not a number', obj: tasWorker({ [TAS.sliceReq]: 'host', [TAS.size]: 'four' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.size}]`, message: /Invalid value: \"four\": must be a numeric value/ },
  { rule: 'topologyAnnotations', name: 'slice size 0', obj: tasWorker({ [TAS.sliceReq]: 'host', [TAS.size]: '0' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.size}]`, message: /Invalid value: \"0\": must be greater than or equal to 1/ },
  { rule: 'topologyAnnotations', name: 'slice topology without a slice size', obj: tasWorker({ [TAS.sliceReq]: 'host' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.size}]`, message: /Required value: must be set when 'kueue.x-k8s.io\/podset-slice-required-topology' is specified/ },
  { rule: 'topologyAnnotations', name: 'slice size without a slice topology', obj: tasWorker({ [TAS.size]: '1' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.size}]`, message: /Forbidden: may not be set when 'kueue.x-k8s.io\/podset-slice-required-topology' is not specified/ },
  { rule: 'topologyAnnotations', name: "slice size above the PodSet's pods", obj: tasWorker({ [TAS.sliceReq]: 'host', [TAS.size]: '3' }, 2), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.size}]`, message: /Invalid value: \"3\": must not be greater than pod set count 2/ },
  { rule: 'topologyAnnotations', name: 'a group of one PodSet', obj: tasHead({ [TAS.req]: 'rack', [TAS.group]: 'g' }), ctx: ctx(), severity: 'error', field: `${HEAD_ANN}[${TAS.group}]`, message: /can only define groups of exactly 2 pod sets, got: 1 pod set\(s\)/ },
  { rule: 'topologyAnnotations', name: 'a group of two multi-pod PodSets', obj: job((o) => { const w = o.spec.rayClusterSpec.workerGroupSpecs; w.push({ ...w[0], groupName: 'big', replicas: 3 }); w[0].replicas = 2; for (const g of w) annotate(g.template = { ...g.template }, { [TAS.req]: 'rack', [TAS.group]: 'g' }); }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.group}]`, message: /at least one pod set has only 1 replica, got: 2 replica\(s\) and 3 replica\(s\) in the group/ },
  { rule: 'topologyAnnotations', name: 'a group with different topologies', obj: job((o) => { annotate(o.spec.rayClusterSpec.headGroupSpec.template, { [TAS.req]: 'rack', [TAS.group]: 'g' }); annotate(o.spec.rayClusterSpec.workerGroupSpecs[0].template, { [TAS.pref]: 'rack', [TAS.group]: 'g' }); }), ctx: ctx(), severity: 'error', field: HEAD_ANN, message: /must specify 'kueue.x-k8s.io\/podset-required-topology' or 'kueue.x-k8s.io\/podset-preferred-topology' topology consistent with 'spec.rayClusterSpec.workerGroupSpecs\[0\].template.metadata.annotations' in group 'g'/ },
  { rule: 'topologyAnnotations', name: 'the submitter paired with the head on another topology', obj: job((o) => { annotate(o.spec.rayClusterSpec.headGroupSpec.template, { [TAS.req]: 'rack', [TAS.group]: 'g' }); o.spec.submitterPodTemplate = { metadata: { annotations: { [TAS.req]: 'block', [TAS.group]: 'g' } }, spec: { containers: [container('s')] } }; }), ctx: ctx(), severity: 'error', field: 'spec.submitterPodTemplate.metadata.annotations', message: /topology consistent with 'spec.rayClusterSpec.headGroupSpec.template.metadata.annotations' in group 'g'/ },
  { rule: 'topologyAnnotations', name: 'a submitter unconstrained value Kueue cannot parse', obj: job((o) => { o.spec.submitterPodTemplate = { metadata: { annotations: { [TAS.unc]: 'maybe' } }, spec: { containers: [container('s')] } }; }), ctx: ctx(), severity: 'error', field: `spec.submitterPodTemplate.metadata.annotations[${TAS.unc}]`, message: /strconv.ParseBool: parsing \"maybe\": invalid syntax: Kueue cannot build the object's PodSets/ },
  { rule: 'topologyAnnotations', name: 'multi-layer constraints with the gate off by default (0.17)', obj: tasWorker({ [TAS.layers]: '[{"topology":"rack","size":1}]' }), ctx: ctx('v0.17.8'), severity: 'error', field: `${WORKER_ANN}[${TAS.layers}]`, message: /Forbidden: the TASMultiLayerTopology feature gate must be enabled to use this annotation/ },
  { rule: 'topologyAnnotations', name: 'multi-layer constraints with a slice topology', obj: tasWorker({ [TAS.layers]: '[{"topology":"rack","size":1}]', [TAS.sliceReq]: 'host', [TAS.size]: '1' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.layers}]`, message: /Forbidden: may not be set when 'kueue.x-k8s.io\/podset-slice-required-topology' is specified/ },
  { rule: 'topologyAnnotations', name: 'multi-layer constraints with a slice size', obj: tasWorker({ [TAS.layers]: '[{"topology":"rack","size":1}]', [TAS.sliceReq]: 'host', [TAS.size]: '1' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.layers}]`, message: /Forbidden: may not be set when 'kueue.x-k8s.io\/podset-slice-size' is specified/ },
  { rule: 'topologyAnnotations', name: 'multi-layer constraints with a group name', obj: tasWorker({ [TAS.layers]: '[{"topology":"rack","size":1}]', [TAS.req]: 'rack', [TAS.group]: 'g' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.group}]`, message: /may not be set when 'kueue.x-k8s.io\/podset-slice-required-topology-constraints' is specified/ },
  { rule: 'topologyAnnotations', name: 'multi-layer constraints not JSON', obj: tasWorker({ [TAS.layers]: 'rack=4' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.layers}]`, message: /Invalid value: \"rack=4\": must be a valid JSON array/ },
  { rule: 'topologyAnnotations', name: 'no multi-layer constraint', obj: tasWorker({ [TAS.layers]: '[]' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.layers}]`, message: /topology constraints must contain between 1 and 3 entries/ },
  { rule: 'topologyAnnotations', name: 'a multi-layer topology not a label key', obj: tasWorker({ [TAS.layers]: '[{"topology":"rack block","size":1}]' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.layers}][0].topology`, message: /Invalid value: \"rack block\": name part must consist/ },
  { rule: 'topologyAnnotations', name: 'a multi-layer size of 0', obj: tasWorker({ [TAS.layers]: '[{"topology":"rack","size":0}]' }), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.layers}][0].size`, message: /Invalid value: 0: must be greater than or equal to 1/ },
  { rule: 'topologyAnnotations', name: 'a multi-layer topology twice', obj: tasWorker({ [TAS.layers]: '[{"topology":"rack","size":4},{"topology":"rack","size":2}]' }, 4), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.layers}][1].topology`, message: /Duplicate value: \"rack \(also at index 0\)\"/ },
  { rule: 'topologyAnnotations', name: 'a multi-layer size that does not divide its parent', obj: tasWorker({ [TAS.layers]: '[{"topology":"block","size":4},{"topology":"rack","size":3}]' }, 4), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.layers}][1].size`, message: /Invalid value: 3: must evenly divide the parent layer size 4/ },
  { rule: 'topologyAnnotations', name: "a first multi-layer size above the PodSet's pods", obj: tasWorker({ [TAS.layers]: '[{"topology":"block","size":4}]' }, 2), ctx: ctx(), severity: 'error', field: `${WORKER_ANN}[${TAS.layers}]`, message: /Invalid value: 4: must not be greater than pod set count 2/ },
  { rule: 'topologyAnnotations', name: 'a RayService slice size above the worker pods', obj: service((o) => { annotate(o.spec.rayClusterConfig.workerGroupSpecs[0].template, { [TAS.sliceReq]: 'host', [TAS.size]: '2' }); }), ctx: ctx(), severity: 'error', field: `spec.rayClusterConfig.workerGroupSpecs[0].template.metadata.annotations[${TAS.size}]`, message: /must not be greater than pod set count 1 \(Kueue webhook\)/ },
  { rule: 'topologyAnnotations', name: 'before 0.17 the RayCluster KubeRay creates for a RayService is refused', obj: service((o) => { o.spec.rayClusterConfig.enableInTreeAutoscaling = false; annotate(o.spec.rayClusterConfig.headGroupSpec.template, { [TAS.unc]: 'no way' }); }), ctx: ctx('v0.14.8', 'v1.4.2'), severity: 'error', field: `spec.rayClusterConfig.headGroupSpec.template.metadata.annotations[${TAS.unc}]`, message: /must be a boolean value \(Kueue webhook, on the RayCluster KubeRay creates\)/ },
];

const ACCEPTED: Accepted[] = [
  { rule: 'topologyAnnotations', name: 'a required topology on a worker group', obj: tasWorker({ [TAS.req]: 'rack' }), ctx: ctx() },
];

refuses(CASES);
accepts(ACCEPTED);
coversEveryRule(rules, CASES, ACCEPTED);

describe('topologyAnnotations', () => {
  const layers = (json: string) => ({ [TAS.layers]: json });
  test.each([
    ['a head and worker group paired on one topology', job((o) => {
      annotate(o.spec.rayClusterSpec.headGroupSpec.template, { [TAS.req]: 'rack', [TAS.group]: 'g' });
      o.spec.rayClusterSpec.workerGroupSpecs[0].replicas = 4;
      annotate(o.spec.rayClusterSpec.workerGroupSpecs[0].template, { [TAS.req]: 'rack', [TAS.group]: 'g' });
    }), ctx()],
    ['a slice size within replicas × numOfHosts', job((o) => {
      const g = o.spec.rayClusterSpec.workerGroupSpecs[0];
      g.replicas = 2;
      g.numOfHosts = 2;
      annotate(g.template, { [TAS.pref]: 'block', [TAS.sliceReq]: 'kubernetes.io/hostname', [TAS.size]: '4' });
    }), ctx()],
    ['valid multi-layer constraints on 0.19',
      tasWorker(layers('[{"topology":"block","size":4},{"topology":"kubernetes.io/hostname","size":2}]'), 4), ctx()],
    ['multi-layer constraints on 0.14, which does not know the annotation', tasWorker(layers('not json')), ctx('v0.14.8', 'v1.4.2')],
    ['any TAS annotation on 0.13, where TopologyAwareScheduling is off by default', tasHead({ [TAS.unc]: 'yes', [TAS.size]: '0' }),
      ctx('v0.13.4', 'v1.4.2')],
    ['a submitter outside K8sJobMode', job((o) => {
      o.spec.submissionMode = 'HTTPMode';
      o.spec.submitterPodTemplate = { metadata: { annotations: { [TAS.unc]: 'maybe' } }, spec: { containers: [container('s')] } };
    }), ctx()],
  ] as const)('accepts %s', (_name, obj, c) => {
    expect(RULES.topologyAnnotations(obj, c).map(formatFinding)).toEqual([]);
  });

  test('the multi-layer annotation: ignored by 0.14, refused by 0.17 (gate off by default), checked by 0.19', () => {
    const obj = tasWorker(layers('[{"topology":"rack","size":2}]'));
    const messages = (v: string) => RULES.topologyAnnotations(obj, ctx(v)).map((f) => f.message);
    expect(messages('v0.14.8')).toEqual([]);
    expect(messages('v0.17.0')).toEqual([expect.stringMatching(/TASMultiLayerTopology feature gate must be enabled/),
      expect.stringMatching(/Invalid value: 2: must not be greater than pod set count 1/)]);
    expect(messages('v0.19.2')).toEqual([expect.stringMatching(/Invalid value: 2: must not be greater than pod set count 1/)]);
  });

  test('Kueue checks the annotations of an object without a queue name too', () => {
    const obj = tasHead({ [TAS.unc]: 'yes' });
    delete obj.metadata.labels['kueue.x-k8s.io/queue-name'];
    expect(RULES.topologyAnnotations(obj, ctx()).map((f) => f.field)).toEqual([`${HEAD_ANN}[${TAS.unc}]`]);
  });

  test('0.19 checks a RayCluster\'s worker templates only once its PodSets build', () => {
    const obj = elasticCluster((o) => {
      annotate(o.spec.headGroupSpec.template, { [TAS.unc]: 'yes' });
      annotate(o.spec.workerGroupSpecs[0].template, { [TAS.req]: 'rack block' });
    });
    const fields = (v: string) => RULES.topologyAnnotations(obj, ctx(v)).map((f) => f.field);
    const head = `spec.headGroupSpec.template.metadata.annotations[${TAS.unc}]`;
    const worker = `spec.workerGroupSpecs[0].template.metadata.annotations[${TAS.req}]`;
    expect(fields('v0.19.2')).toEqual([head]);
    expect(fields('v0.17.8')).toEqual([head, worker]);
  });
});
