// The bin's earlier name, cdk8s-kueue-ray-apply, which released docs use: package.json points it at the one-line
// alias scripts/bundle.js writes beside the bundled CLI, and it runs `cdk8s-kueue-ray apply` of that same bundle
// (the same usage, the same usage errors, the same failures), with no code of its own.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { APPLY_USAGE } from '../../src/cli/apply';
import { bundledBin } from '../support/bundle';
import { tmpFiles } from '../support/synth';
import { REPO_ROOT } from '../support/upstream';

let bin: string;
let alias: string;
beforeAll(() => {
  bin = bundledBin();
  alias = path.join(path.dirname(bin), 'cdk8s-kueue-ray-apply.js');
}, 120000);

const env = { ...process.env, KUBECTL: '/nonexistent/kubectl' };
const run = (argv: string[]) => {
  const r = spawnSync(process.execPath, argv, { encoding: 'utf8', env });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

test('package.json installs both names from the bundle\'s folder, which the package ships', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
  expect(pkg.bin).toEqual({ 'cdk8s-kueue-ray': 'lib/controller/cdk8s-kueue-ray.js',
    'cdk8s-kueue-ray-apply': 'lib/controller/cdk8s-kueue-ray-apply.js' });
  expect(pkg.files).toContain('lib/controller/*.js');
  expect(pkg.files.join(' ')).not.toMatch(/scripts\//);
});

test('the alias has no code of its own: it calls the bundled CLI with apply first', () => {
  const text = fs.readFileSync(alias, 'utf8');
  expect(text.startsWith('#!/usr/bin/env node\n')).toBe(true);
  expect(text).toContain("require('./cdk8s-kueue-ray.js').runCli(['apply', ...process.argv.slice(2)])");
  expect(text.split('\n').filter(Boolean).length).toBeLessThanOrEqual(3);
  expect(fs.statSync(alias).mode & 0o111).not.toBe(0);
});

test('the alias and `cdk8s-kueue-ray apply` answer alike: --help, a usage error, a missing folder, a failed apply', () => {
  const dir = tmpFiles({ 'a.k8s.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n' });
  const cases = [['--help'], ['--bogus'], [path.join(dir, 'nope')], [dir, '--no-wait']];
  const got = cases.map((args) => [run([alias, ...args]), run([bin, 'apply', ...args])]);
  for (const [viaAlias, viaCli] of got) expect(viaAlias).toEqual(viaCli);
  expect(got.map(([r]) => r.status)).toEqual([0, 2, 2, 1]);
  expect(got[0][0].stdout).toBe(APPLY_USAGE);
  expect(got[1][0].stderr.split('\n')[0]).toMatch(/^cdk8s-kueue-ray apply: unknown flag '--bogus'/);
  expect(got[3][0].stderr).toContain('/nonexistent/kubectl: not found');
});
