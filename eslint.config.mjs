// ESLint with typescript-eslint, as the anchors (aws-cdk, cdk8s-plus) lint: on the source (src/), typescript-eslint's
// recommended rules with type information (recommendedTypeChecked) and no `any`; on every file, the style rules below
// and aws-cdk's line length of 150 (URLs, comments and regular expressions exempt, since breaking them hurts more than
// it helps). Lines holding strings and templates are not exempt (issue 22): a long message is split into pieces
// joined with +, keeping its exact value.
import stylistic from '@stylistic/eslint-plugin';
import tseslint from 'typescript-eslint';
import layers from './scripts/lint/layers.mjs';
import noImportCycle from './scripts/lint/no-import-cycle.mjs';

// The layers (README's style: src/policy is pure, the constructs, the controller and the CLIs call it and never
// the reverse; the controller never loads cdk8s; the scheduler's snapshot never imports the flavor assigner or the
// preemptor). ESLint replaces a rule's options per matching block, so each block lists every restriction of its files.
const SIDE_EFFECTS = { regex: '^(node:)?(fs|child_process|http|https|http2|net|tls|dgram|dns|worker_threads|cluster|readline)(/|$)',
  message: 'src/policy is pure: no I/O (the caller reads files and the network and passes data in)' };
const CDK8S = { regex: '^(cdk8s|cdk8s-plus-[0-9]+|constructs)(/|$)', message: 'no cdk8s here: the controller and the policy run without it' };
const OUT_OF_POLICY = { regex: '^(\\.\\./)+(install|ray|kueue|controller|cli|kube|platform|observability|index)(/|$)',
  message: 'src/policy imports nothing of the layers that call it (constructs, installs, controller, CLIs)' };
const CONTROLLER_OUT = { regex: '^(\\.\\./)+(install|ray|kueue|platform|cli|index)(/|$)',
  message: 'the controller imports the policy and its own modules, never the constructs or installs (they load cdk8s)' };
const KUBE_OUT = { regex: '^(\\.\\./)+(install|ray|kueue|platform|cli|controller|index)(/|$)',
  message: 'src/kube is below the controller and the CLIs that reach a cluster through it: it imports neither, nor the constructs' };
const SNAPSHOT_OUT = { regex: '^\\./(flavor-assigner|preemptor|cycle|simulate|render)$',
  message: 'the snapshot layer (snapshot, workload, quota tree, queue, ordering, fair share) never imports the flavor assigner, the preemptor or the '
    + 'cycle: they import it' };
// The plan's formatters (src/cli/plan-output, and src/plan/text.ts, which Plan.of(app) shares) are pure, and the
// text goes into the CLI's bundle, which refuses cdk8s.
const FORMATTER_IO = { regex: SIDE_EFFECTS.regex, message: "the plan's formatters are pure: a plan in, text out" };
const FORMATTER_CDK8S = { regex: CDK8S.regex, message: 'no cdk8s in the plan\'s formatters: the CLI bundles them and Plan.of shares the text' };
const restricted = (...patterns) => ['error', { patterns }];

export default tseslint.config(
  { ignores: ['lib/**', 'dist/**', 'node_modules/**', 'imports/**', 'coverage/**', '**/*.d.ts'] },
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.base],
    plugins: { '@stylistic': stylistic },
    rules: {
      '@stylistic/max-len': ['error', {
        code: 150, ignoreUrls: true, ignoreStrings: false, ignoreTemplateLiterals: false, ignoreComments: true, ignoreRegExpLiterals: true,
      }],
      '@stylistic/semi': ['error', 'always'],
      '@stylistic/quotes': ['error', 'single', { avoidEscape: true }],
      '@stylistic/indent': ['error', 2, { SwitchCase: 1, ignoredNodes: ['TemplateLiteral *'] }],
      '@stylistic/no-trailing-spaces': 'error',
      '@stylistic/eol-last': 'error',
      '@typescript-eslint/no-floating-promises': 'off',
      'no-duplicate-imports': 'error',
      'no-var': 'error',
      'prefer-const': 'error',
      'eqeqeq': ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    // The shipped code: typescript-eslint's recommended rules with type information, and no `any` (issue 42). Tests
    // keep the base rules: they build objects as loose JSON on purpose, and `npm run lint`'s tsc checks their types.
    files: ['src/**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { local: { rules: { 'no-import-cycle': noImportCycle, layers } } },
    // No any in the source (issue 42): the JSON it reads is unknown and narrowed (src/policy/json.ts); the few
    // public jsii props that must stay any say why beside an eslint-disable-next-line.
    rules: {
      'local/no-import-cycle': 'error',
      'local/layers': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  { files: ['src/policy/**/*.ts'], rules: { 'no-restricted-imports': restricted(SIDE_EFFECTS, CDK8S, OUT_OF_POLICY) } },
  {
    files: ['src/policy/plan/{snapshot,workload,quota-tree,queue,ordering,fair-share}.ts'],
    rules: { 'no-restricted-imports': restricted(SIDE_EFFECTS, CDK8S, OUT_OF_POLICY, SNAPSHOT_OUT) },
  },
  { files: ['src/cli/plan-output/**/*.ts', 'src/plan/text.ts'], rules: { 'no-restricted-imports': restricted(FORMATTER_IO, FORMATTER_CDK8S) } },
  { files: ['src/controller/**/*.ts'], rules: { 'no-restricted-imports': restricted(CDK8S, CONTROLLER_OUT) } },
  { files: ['src/kube/**/*.ts'], rules: { 'no-restricted-imports': restricted(CDK8S, KUBE_OUT) } },
);
