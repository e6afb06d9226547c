// The layers are lint rules (eslint.config.mjs), and so is the source's ban on any: each forbidden import is reported where it would break a layer or
// close an import circle, and the same import passes where it belongs. Linted as text at the paths the rules name, not written to disk.
import { execFileSync } from 'child_process';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');

const REFUSED: Array<[string, string, RegExp]> = [
  ['src/policy/rules/x.ts', "import { App as y } from 'cdk8s';", /no cdk8s here/],
  ['src/policy/x.ts', "import { Construct as y } from 'constructs';", /no cdk8s here/],
  ['src/policy/x.ts', "import { readFileSync as y } from 'fs';", /src\/policy is pure: no I\/O/],
  ['src/policy/plan/x.ts', "import { execFile as y } from 'node:child_process';", /src\/policy is pure: no I\/O/],
  ['src/policy/x.ts', "import { TenantQueue as y } from '../kueue/tenant-queue';", /src\/policy imports nothing of the layers that call it/],
  ['src/policy/rules/x.ts', "import { y } from '../../controller/admission';", /src\/policy imports nothing of the layers that call it/],
  ['src/policy/plan/x.ts', "import { y } from '../../cli/plan';", /src\/policy imports nothing of the layers that call it/],
  ['src/controller/x.ts', "import { App as y } from 'cdk8s';", /no cdk8s here/],
  ['src/controller/x.ts', "import { y } from '../install/admission-controller/settings';", /the controller imports the policy and its own modules/],
  ['src/controller/x.ts', "import { y } from '../index';", /the controller imports the policy and its own modules/],
  ['src/policy/plan/snapshot.ts', "import type { Target as y } from './preemptor';", /the snapshot layer .* never imports the flavor assigner/],
  ['src/policy/plan/workload.ts', "import { FlavorAssigner as y } from './flavor-assigner';", /the snapshot layer/],
  ['src/policy/plan/snapshot.ts', "import { readFileSync as y } from 'fs';", /src\/policy is pure/],
  ['src/kube/x.ts', "import { y } from '../controller/reconciler';", /src\/kube is below the controller and the CLIs/],
  ['src/kube/x.ts', "import { App as y } from 'cdk8s';", /no cdk8s here/],
  ['src/policy/x.ts', "import { k8s as y } from '../kube/client';", /src\/policy imports nothing of the layers that call it/],
  // Import circles, through any chain of static imports, type-only ones included.
  ['src/policy/plan/quota-tree.ts', "import type { ClusterQueue as y } from './snapshot';",
    /import circle: policy\/plan\/quota-tree.ts → policy\/plan\/snapshot.ts → policy\/plan\/quota-tree.ts/],
  ['src/policy/kinds/name.ts', "import type { KueueCapabilities as y } from '../versions';", /import circle: policy\/kinds\/name.ts → policy\/versions.ts → /],
  ['src/install/admission-controller/settings.ts', "import type { AdmissionControllerProps as y } from './admission-controller';",
    /import circle: .*admission-controller.ts → install\/admission-controller\/settings.ts\. Move what both need down/],
  // The layers table (scripts/lint/layers.mjs): an import between folders goes down it.
  ['src/install/x.ts', "import { mergeTemplate as y } from '../ray/pod-template';", /src\/install may import policy, platform, not src\/ray/],
  ['src/kueue/x.ts', "import type { KubeRayInstall as y } from '../install/kuberay-install';", /src\/kueue may import policy, platform, not src\/install/],
  ['src/controller/x.ts', "import { y } from '../observability/queries';", /src\/controller may import policy, kube, not src\/observability/],
  ['src/platform/x.ts', "export { KueueInstall as y } from '../install/kueue-install';", /src\/platform may import policy, not src\/install/],
  ['src/policy/x.ts', "import { apiClient as y } from '../kube/client';", /src\/policy may import no other folder, not src\/kube/],
  ['src/newroom/x.ts', "import { y } from '../policy';", /src\/newroom is not in the layers table/],
  // No any in the source (issue 42): JSON is unknown and narrowed.
  ['src/controller/x.ts', 'const y: any = JSON.parse("{}");', /Unexpected any/],
  ['src/ray/x.ts', 'const y = (o: Record<string, any>) => o;', /Unexpected any/],
];
const PASSES: Array<[string, string]> = [
  ['src/ray/x.ts', "import type { ILocalQueue as y } from '../kueue/local-queue';"],
  ['src/install/x.ts', "import { renderResources as y } from '../platform/container-resources';"],
  ['src/observability/x.ts', "import { KueueInstall as y } from '../install/kueue-install';"],
  ['src/policy/rules/x.ts', "import { isRecord as y } from '../json';"],
  ['src/policy/rules/x.ts', "import { y } from '../ray-object';"],
  ['src/policy/plan/preemptor.ts', "import type { Snapshot as y } from './snapshot';"],
  ['src/policy/plan/cycle.ts', "import { FlavorAssigner as y } from './flavor-assigner';"],
  ['src/controller/x.ts', "import { admissionVerdict as y } from '../policy';"],
  ['src/controller/x.ts', "import { y } from '../policy/metric-names';"],
  ['src/kueue/x.ts', "import { App as y } from 'cdk8s';"],
  ['src/cli/x.ts', "import { readFileSync as y } from 'fs';"],
  ['src/cli/x.ts', "import { apiClient as y } from '../kube/client';"],
  ['src/controller/x.ts', "import { apiClient as y } from '../kube/client';"],
  ['src/policy/plan/cycle.ts', "import type { PlanInput as y } from './input';"],
  ['src/policy/kinds/kind.ts', "import type { RayKindName as y } from './name';"],
  // A dynamic import is how the CLI loads a subcommand lazily: not a circle (main.ts imports plan.ts the same way).
  ['src/cli/plan.ts', "const y = () => import('./main');"],
  // A public jsii prop that must stay any says why; the tests may use any.
  ['src/ray/x.ts', '// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a public jsii prop\nconst y: Record<string, any> = {};'],
  ['test/ray/x.ts', 'const y: any = {};'],
];

// ESLint loads its .mjs config by dynamic import, which jest's module system refuses: one child process lints every case.
// The source is linted with type information (the project's tsconfig): the x.ts files exist nowhere, so the project
// service takes them into its default project, with the same compiler options. A file that fails to parse is said as
// such (a fatal message), so that a passing case passes because the rules were run and found nothing. The cases name
// 12 such files, above the default project's usual limit of 8.
const LINT = `const { ESLint } = require('eslint');
const RULES = ['no-restricted-imports', 'local/no-import-cycle', 'local/layers', '@typescript-eslint/no-explicit-any'];
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const virtual = ['src/*/x.ts', 'src/*/*/x.ts', 'src/*/*/*/x.ts'];
(async () => {
  const eslint = new ESLint({ cwd: process.cwd(), overrideConfig: [{ files: ['src/**/*.ts'],
    languageOptions: { parserOptions: { projectService: { allowDefaultProject: virtual, defaultProject: 'tsconfig.json',
      maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 16 } } } }] });
  const out = [];
  for (const [file, source] of cases) {
    const [r] = await eslint.lintText(source + '\\nexport const x = y;\\n', { filePath: require('path').join(process.cwd(), file) });
    out.push(r.messages.filter((m) => m.fatal || RULES.includes(m.ruleId)).map((m) => (m.fatal ? 'fatal: ' : '') + m.message));
  }
  process.stdout.write(JSON.stringify(out));
})();`;

let results: string[][];
beforeAll(() => {
  const cases = [...REFUSED, ...PASSES].map(([file, source]) => [file, source]);
  results = JSON.parse(execFileSync(process.execPath, ['-e', LINT], { cwd: ROOT, input: JSON.stringify(cases), encoding: 'utf8' }));
}, 60000);

test.each(REFUSED.map((c, i) => [...c, i] as const))('%s: %s is refused', (_file, _source, message, i) => {
  // An import that breaks a layer may also close a circle (the snapshot importing the flavor assigner): both are said.
  expect(results[i]).toEqual(expect.arrayContaining([expect.stringMatching(message)]));
});

test.each(PASSES.map((c, i) => [...c, REFUSED.length + i] as const))('%s: %s passes', (_file, _source, i) => {
  expect(results[i]).toEqual([]);
});
