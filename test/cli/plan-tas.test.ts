// `plan` with topology-aware scheduling through the CLI (issue 44, stage 6): the files' Topology and Node objects, or
// the Nodes of `--nodes FILE` (a `kubectl get nodes -o yaml` List), and where the text and the JSON say the pods go.
import * as path from 'path';
import { stringify } from 'yaml';
import { planCommand } from '../../src/cli/plan';
import { fixedTasScenarios } from '../policy/plan/tas-scenarios';
import { tmpFiles } from '../support/synth';

const s = fixedTasScenarios('v0.19.2').find((x) => x.name === 'tas-required-rack-best-fit')!;
const yaml = (objects: readonly unknown[]) => objects.map((o) => stringify(o)).join('---\n');
const dir = tmpFiles({
  'with-nodes.yaml': yaml([...s.objects, ...s.nodes, ...s.arrivals]),
  'no-nodes.yaml': yaml([...s.objects, ...s.arrivals]),
  'nodes.yaml': stringify({ apiVersion: 'v1', kind: 'List', items: s.nodes }),
  'small-nodes.yaml': stringify({ apiVersion: 'v1', kind: 'List', items: s.nodes.slice(0, 2) }),
  'not-nodes.yaml': yaml([s.arrivals[0]]),
});
const file = (name: string) => path.join(dir, name);
const json = (args: string[]) => JSON.parse(planCommand([...args, '-o', 'json', '--kueue-version', 'v0.19.2']));
const placement = (plan: any, name: string) => plan.workloads.find((w: any) => w.name === name).admission?.map((a: any) => a.topology);

test('Node objects in the files, or --nodes FILE, place the pods; the text lists the hosts', () => {
  const inFiles = json([file('with-nodes.yaml')]);
  const fromFlag = json([file('no-nodes.yaml'), '--nodes', file('nodes.yaml')]);
  expect(placement(inFiles, 'a')).toEqual([
    { flavor: 'tas', levels: ['kubernetes.io/hostname'], domains: [{ values: ['n4'], count: 1 }] },
    { flavor: 'tas', levels: ['kubernetes.io/hostname'], domains: [{ values: ['n3'], count: 3 }] },
  ]);
  expect(placement(fromFlag, 'a')).toEqual(placement(inFiles, 'a'));
  expect(planCommand([file('with-nodes.yaml')])).toContain('      workers on tas: n3 ×3');
});

test('--nodes wins over the files\' Nodes; without any, the plan says so and TAS workloads wait', () => {
  const small = json([file('with-nodes.yaml'), '--nodes', file('small-nodes.yaml')]);
  expect(small.notes).toContain('topology-aware scheduling: flavor tas (Topology default: 2 node(s), 2 kubernetes.io/hostname domain(s))');
  const none = json([file('no-nodes.yaml')]);
  expect(none.notes.some((n: string) => n.includes('no Node objects were given'))).toBe(true);
  expect(none.workloads.every((w: any) => w.outcome === 'pending' && w.reason === 'TopologyPlacementFailed')).toBe(true);
});

test('--nodes refuses a file of other objects, naming the object and the flag', () => {
  expect(() => planCommand([file('no-nodes.yaml'), '--nodes', file('not-nodes.yaml')]))
    .toThrow(/not-nodes\.yaml: RayCluster a is not a Node; --nodes lists Node objects/);
  expect(() => planCommand([file('no-nodes.yaml'), '--nodes', file('missing.yaml')])).toThrow(/--nodes .*missing\.yaml: no such file/);
});

test('a PodSet group Kueue v0.14 admits with an empty assignment: the text says so, and the note why', () => {
  const g = fixedTasScenarios('v0.14.8').find((x) => x.name === 'tas-group-head-with-workers')!;
  const groups = tmpFiles({ 'groups.yaml': yaml([...g.objects, ...g.nodes, ...g.arrivals]) });
  const text = planCommand([path.join(groups, 'groups.yaml'), '--kueue-version', 'v0.14.8']);
  expect(text).toContain('      head on tas: no node (an empty assignment: see the notes)');
  expect(text).toContain('RayCluster plan/h: Kueue admits pod set head, workers with an empty topology assignment');
});
