// Issue 41: check and plan follow kubectl's conventions (-o/--output, -n/--namespace, -f/--filename
// beside positional paths, a usage error in one line with a pointer to --help, a missing file exit 2 in
// both), and plan's documented arrival order (paths as given, folders in name order with a note, then
// the cdk8s-kueue-ray.io/plan-arrival annotation), which makes the guide's preemption show.
import * as path from 'path';
import { check, CHECK_FLAGS } from '../../src/cli/check';
import { arrivalSeconds, PLAN_ARRIVAL_ANNOTATION } from '../../src/cli/arrivals';
import { plan, PLAN_FLAGS } from '../../src/cli/plan';
import { tmpFiles } from '../support/synth';
import { toyRayClusterSpecYaml } from '../support/toy-job';

const QUEUES = `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cluster-queue}
spec:
  namespaceSelector: {}
  preemption: {withinClusterQueue: LowerPriority}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default-flavor
      resources:
      - {name: cpu, nominalQuota: "3"}
      - {name: memory, nominalQuota: 6G}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue}
spec: {clusterQueue: cluster-queue}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: prod-priority}
value: 1000
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: dev-priority}
value: 100
`;

/** The guide's toy RayJob (2.5 CPU with the submitter: one fits the 3 CPU queue, two do not). */
function toyJob(name: string, priority: string, opts: { namespace?: string; arrival?: string; shutdown?: boolean } = {}): string {
  const annotations = opts.arrival !== undefined ? `  annotations:\n    ${PLAN_ARRIVAL_ANNOTATION}: "${opts.arrival}"\n` : '';
  return `apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: ${name}
${opts.namespace ? `  namespace: ${opts.namespace}\n` : ''}${annotations}  labels:
    kueue.x-k8s.io/queue-name: user-queue
    kueue.x-k8s.io/priority-class: ${priority}
spec:
  entrypoint: python -c "print(1)"
  shutdownAfterJobFinishes: ${opts.shutdown ?? true}
${toyRayClusterSpecYaml()}`;
}

const files = tmpFiles;

type Run = { code: number; out: string; err: string };
async function runCheck(argv: string[]): Promise<Run> {
  let out = '';
  let err = '';
  const code = await check(argv, { stdout: (s) => { out += s; }, stderr: (s) => { err += s; } }, { stdin: () => toyJob('piped', 'dev-priority') });
  return { code, out, err };
}
async function runPlan(argv: string[]): Promise<Run> {
  let out = '';
  let err = '';
  const code = await plan(argv, { stdout: (s) => { out += s; }, stderr: (s) => { err += s; } });
  return { code, out, err };
}
const outcomes = (json: string) => Object.fromEntries(JSON.parse(json).workloads.map((w: any) => [`${w.namespace}/${w.name}`, w.outcome]));

describe('kubectl\'s flags', () => {
  test('plan dist/ -o json reads dist/ and writes JSON (-o is the output flag, not a file)', async () => {
    const dist = files({ 'queues.yaml': QUEUES, 'jobs.yaml': toyJob('a', 'dev-priority') });
    for (const argv of [[dist, '-o', 'json'], [dist, '-ojson'], ['-o', 'json', dist], [dist, '--output=json']]) {
      const r = await runPlan(argv);
      expect([argv, r.code, r.err]).toEqual([argv, 0, '']);
      expect(outcomes(r.out)).toEqual({ 'default/a': 'admitted' });
    }
  });

  test('-f/--filename adds paths beside the positional ones, in the order written; "-" is standard input in check', async () => {
    const dir = files({ 'queues.yaml': QUEUES, 'a.yaml': toyJob('a', 'dev-priority'), 'b.yaml': toyJob('b', 'dev-priority') });
    const p = (f: string) => path.join(dir, f);
    // plan: the second job stays pending behind the first, whichever way the paths are written.
    const r = await runPlan(['-f', p('queues.yaml'), p('b.yaml'), '--filename', p('a.yaml'), '-o', 'json']);
    expect(r.code).toBe(0);
    expect(outcomes(r.out)).toEqual({ 'default/b': 'admitted', 'default/a': 'pending' });
    const c = await runCheck([p('a.yaml'), '-f', `${p('queues.yaml')},${p('b.yaml')}`, '-f', '-', '-o', 'json']);
    expect(c.code).toBe(0);
    expect(JSON.parse(c.out).files).toEqual([p('a.yaml'), p('queues.yaml'), p('b.yaml'), '-']);
    expect(JSON.parse(c.out).objects.map((o: any) => o.object)).toEqual(['RayJob default/a', 'RayJob default/b', 'RayJob default/piped']);
  });

  test('-n/--namespace: the namespace of objects that name none, in check and plan', async () => {
    const dir = files({ 'queues.yaml': QUEUES, 'a.yaml': toyJob('a', 'dev-priority') });
    const c = await runCheck([dir, '-n', 'team-a', '-o', 'json']);
    expect(JSON.parse(c.out).context.namespace).toBe('team-a');
    expect(JSON.parse(c.out).objects[0].object).toBe('RayJob team-a/a');
    // The LocalQueue without a namespace lands in team-a too, so the job finds its queue there.
    const r = await runPlan([dir, '--namespace=team-a', '-o', 'json']);
    expect(outcomes(r.out)).toEqual({ 'team-a/a': 'admitted' });
    const bad = await runPlan([dir, '-n', 'Team_A']);
    expect([bad.code, bad.err.split('\n')[0]]).toEqual([2, 'cdk8s-kueue-ray plan: --namespace \'Team_A\' is not a namespace name '
      + '(lowercase letters, digits and \'-\')']);
  });

  test('a usage error is one line and a pointer to --help, in both commands; check lists --allow-empty among its flags', async () => {
    for (const [run, cmd] of [[runCheck, 'check'], [runPlan, 'plan']] as const) {
      const mistakes = [['x.yaml', '--colour=yes'], ['x.yaml', '-o'], ['x.yaml', '--trace=yes', '--allow-empty=yes'],
        ['x.yaml', '-o', 'json', '-o', 'text']];
      for (const argv of mistakes) {
        const r = await run(argv);
        expect([cmd, argv, r.code, r.out]).toEqual([cmd, argv, 2, '']);
        const lines = r.err.split('\n');
        expect(lines).toHaveLength(3); // two lines and the final newline
        expect(lines[0]).toMatch(new RegExp(`^cdk8s-kueue-ray ${cmd}: `));
        expect(lines[1]).toBe(`See 'cdk8s-kueue-ray ${cmd} --help' for usage.`);
        expect(r.err).not.toContain('usage:');
      }
    }
    const unknown = await runCheck(['x.yaml', '--colour=yes']);
    expect(unknown.err).toMatch(/^cdk8s-kueue-ray check: unknown flag '--colour'; known: .*--allow-empty/);
    expect((await runCheck(['x.yaml', '-o'])).err).toMatch(/^cdk8s-kueue-ray check: --output needs a value\n/);
    expect((await runPlan(['x.yaml', '-o', 'json', '-o', 'text'])).err).toMatch(/^cdk8s-kueue-ray plan: -o, --output given twice\n/);
    expect(Object.keys(CHECK_FLAGS)).toEqual(expect.arrayContaining(['allow-empty', 'filename', 'output', 'namespace']));
    expect(Object.keys(PLAN_FLAGS)).toEqual(expect.arrayContaining(['filename', 'output', 'namespace']));
    // --help still prints the whole usage, on stdout, exit 0, and names the short flags.
    const help = await runCheck(['-h']);
    expect([help.code, help.err]).toEqual([0, '']);
    expect(help.out).toMatch(/\[-f FILE\|DIR\|-\]… .*\n.*\[-o\|--output=text\|json\|sarif\]/);
  });

  test('a file or folder that does not exist: exit 2 (usage) in check and in plan, naming it in one line', async () => {
    const c = await runCheck(['/nonexistent/jobs.yaml']);
    expect([c.code, c.out, c.err]).toEqual([2, '', 'cdk8s-kueue-ray check: /nonexistent/jobs.yaml: no such file or directory\n']);
    const q = await runCheck([files({ 'a.yaml': toyJob('a', 'dev-priority') }), '--queues=/nonexistent/q.yaml']);
    expect([q.code, q.err]).toEqual([2, 'cdk8s-kueue-ray check: /nonexistent/q.yaml: no such file or directory\n']);
    const p = await runPlan(['/nonexistent/dist']);
    expect([p.code, p.out]).toEqual([2, '']);
    expect(p.err).toMatch(/^cdk8s-kueue-ray plan: \/nonexistent\/dist: no such file or folder .*\n$/);
    const a = await runPlan([files({ 'q.yaml': QUEUES }), '--arrivals', '/nonexistent/arrivals.yaml']);
    expect([a.code, a.err]).toEqual([2, 'cdk8s-kueue-ray plan: --arrivals /nonexistent/arrivals.yaml: no such file\n']);
  });
});

describe('plan\'s arrival order', () => {
  // The guide's priority scenario as a user lays it out: the prod job's file sorts first by name.
  const guide = () => files({ 'queues.yaml': QUEUES, 'job-1-prod.yaml': toyJob('prod', 'prod-priority'),
    'job-2-dev.yaml': toyJob('dev', 'dev-priority') });

  test('a folder is read in name order, and the output says so', async () => {
    const dir = guide();
    const r = await runPlan([dir, '-o', 'json']);
    expect(outcomes(r.out)).toEqual({ 'default/prod': 'admitted', 'default/dev': 'pending' });
    expect(JSON.parse(r.out).notes).toContainEqual(expect.stringMatching(new RegExp(`^arrival order: the files of ${dir} were read in name order`)));
    const text = await runPlan([dir]);
    expect(text.out).toMatch(/arrival order: the files of .* were read in name order/);
  });

  test('files given one by one arrive in the order given: the dev job runs, the prod job preempts it', async () => {
    const dir = guide();
    const r = await runPlan([path.join(dir, 'queues.yaml'), path.join(dir, 'job-2-dev.yaml'), path.join(dir, 'job-1-prod.yaml'), '-o', 'json']);
    expect(outcomes(r.out)).toEqual({ 'default/dev': 'pending', 'default/prod': 'admitted-by-preempting' });
    expect(JSON.parse(r.out).workloads.find((w: any) => w.name === 'prod').preempted.map((v: any) => v.workload)).toEqual(['RayJob default/dev']);
    expect(JSON.parse(r.out).notes.join('\n')).not.toMatch(/read in name order/);
  });

  test('plan-arrival moves an object after those that arrive earlier, whatever the file order; ties keep the order given', async () => {
    const dir = files({ 'queues.yaml': QUEUES, 'job-1-prod.yaml': toyJob('prod', 'prod-priority', { arrival: '1m30s' }),
      'job-2-dev.yaml': toyJob('dev', 'dev-priority') });
    const r = await runPlan([dir, '-o', 'json']);
    expect(outcomes(r.out)).toEqual({ 'default/dev': 'pending', 'default/prod': 'admitted-by-preempting' });
    expect(JSON.parse(r.out).workloads.map((w: any) => [w.name, w.arrival])).toEqual([['dev', 0], ['prod', 1]]);
    // "0s" is an annotation at 0: the order given stands.
    const tie = files({ 'queues.yaml': QUEUES, 'a.yaml': toyJob('a', 'dev-priority', { arrival: '0s' }), 'b.yaml': toyJob('b', 'dev-priority') });
    expect(outcomes((await runPlan([tie, '-o', 'json'])).out)).toEqual({ 'default/a': 'admitted', 'default/b': 'pending' });
  });

  test('a malformed plan-arrival is an error naming the object, the field and the fix (exit 1)', async () => {
    const dir = files({ 'queues.yaml': QUEUES, 'a.yaml': toyJob('a', 'dev-priority', { arrival: 'soon' }) });
    const r = await runPlan([dir]);
    expect([r.code, r.out]).toEqual([1, '']);
    expect(r.err).toBe(`cdk8s-kueue-ray plan: RayJob default/a: metadata.annotations[${PLAN_ARRIVAL_ANNOTATION}] is "soon", not a duration. `
      + 'Fix: write a duration after the plan\'s start such as "90s", "10m" or "1h30m", or remove the annotation to arrive at 0.\n');
  });

  test('arrival times use Go\'s duration syntax, never before the start', () => {
    const at = (v: string) => arrivalSeconds({ kind: 'RayJob', metadata: { name: 'a', annotations: { [PLAN_ARRIVAL_ANNOTATION]: v } } });
    expect(['90s', '1h30m', '1.5h', '200ms', '0'].map(at)).toEqual([90, 5400, 5400, 0.2, 0]);
    for (const bad of ['', '10', 'm', '1d', '-1s', '1h 30m', 'soon']) expect(() => at(bad)).toThrow(/not a duration/);
  });
});
