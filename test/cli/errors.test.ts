// Issue 41, item 6: an error prints once, as `cdk8s-kueue-ray COMMAND: message`, without a stack trace
// unless --verbose or CDK8S_KUEUE_RAY_DEBUG asks for it (for a bug report).
import * as path from 'path';
import { check } from '../../src/cli/check';
import { debugRequested, errorText } from '../../src/cli/errors';
import { plan } from '../../src/cli/plan';
import { tmpFiles } from '../support/synth';

async function run(cmd: typeof check | typeof plan, argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await cmd(argv, { stdout: (s) => { out += s; }, stderr: (s) => { err += s; } });
  return { code, out, err };
}

const STACK_FRAME = /^\s+at /m;

describe.each([['check', check], ['plan', plan]] as const)('%s', (name, cmd) => {
  const saved = process.env.CDK8S_KUEUE_RAY_DEBUG;
  afterEach(() => {
    if (saved === undefined) delete process.env.CDK8S_KUEUE_RAY_DEBUG;
    else process.env.CDK8S_KUEUE_RAY_DEBUG = saved;
  });

  test('a file that does not exist: one line naming it, no stack trace, exit 2', async () => {
    delete process.env.CDK8S_KUEUE_RAY_DEBUG;
    const missing = path.join(tmpFiles({}), 'nope.yaml');
    const r = await run(cmd, [missing]);
    expect(r.code).toBe(2);
    expect(r.err.trimEnd().split('\n')).toEqual([expect.stringMatching(new RegExp(`^cdk8s-kueue-ray ${name}: .*nope\\.yaml`))]);
    expect(r.err).not.toMatch(STACK_FRAME);
  });

  test.each([
    ['--verbose', ['--verbose'], undefined],
    ['CDK8S_KUEUE_RAY_DEBUG=1', [], '1'],
  ])('%s: the same line once, then the stack trace', async (_label, flags, env) => {
    if (env === undefined) delete process.env.CDK8S_KUEUE_RAY_DEBUG;
    else process.env.CDK8S_KUEUE_RAY_DEBUG = env;
    const missing = path.join(tmpFiles({}), 'nope.yaml');
    const r = await run(cmd, [missing, ...flags]);
    expect(r.code).toBe(2);
    const [first, ...rest] = r.err.trimEnd().split('\n');
    expect(first).toMatch(new RegExp(`^cdk8s-kueue-ray ${name}: .*nope\\.yaml`));
    expect(r.err.split(first).length - 1).toBe(1);
    expect(rest.length).toBeGreaterThan(0);
    expect(rest.every((l) => STACK_FRAME.test(l))).toBe(true);
  });
});

test('CDK8S_KUEUE_RAY_DEBUG: empty, 0 and false leave it off; --verbose or any other value turns it on', () => {
  expect(['', '0', 'false', 'FALSE', undefined].map((v) => debugRequested([], v === undefined ? {} : { CDK8S_KUEUE_RAY_DEBUG: v })))
    .toEqual([false, false, false, false, false]);
  expect([debugRequested(['dist/', '--verbose'], {}), debugRequested([], { CDK8S_KUEUE_RAY_DEBUG: '1' }),
    debugRequested([], { CDK8S_KUEUE_RAY_DEBUG: 'yes' })]).toEqual([true, true, true]);
});

test('errorText: the message once, the frames only when asked, a thrown non-Error as its text', () => {
  const e = new Error('TenantQueue team-a: spec.x is wrong. Fix: set y');
  expect(errorText('plan', e, false)).toBe('cdk8s-kueue-ray plan: TenantQueue team-a: spec.x is wrong. Fix: set y\n');
  const verbose = errorText('plan', e, true);
  expect(verbose.startsWith('cdk8s-kueue-ray plan: TenantQueue team-a: spec.x is wrong. Fix: set y\n    at ')).toBe(true);
  expect(verbose.split('spec.x is wrong').length).toBe(2);
  expect(errorText(undefined, 'boom', true)).toBe('cdk8s-kueue-ray: boom\n');
});
