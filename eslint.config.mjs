// ESLint with typescript-eslint, as the anchors (aws-cdk, cdk8s-plus) lint: the recommended rules that
// hold for this code base, and aws-cdk's line length of 150 (URLs, comments and regular expressions
// exempt, since breaking them hurts more than it helps). Lines holding strings and templates are not
// exempt (issue 22): a long message is split into pieces joined with +, keeping its exact value.
import stylistic from '@stylistic/eslint-plugin';
import tseslint from 'typescript-eslint';

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
);
