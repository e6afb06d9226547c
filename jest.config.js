/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // isolatedModules: compiled one file at a time, without type information. npm run lint type-checks every
    // test first (tsconfig.tests.json); ts-jest's own check cost a third of the unit suites' CPU (docs/dev/ci.md).
    '^.+\\.ts$': ['ts-jest', { tsconfig: { module: 'commonjs', target: 'ES2020', esModuleInterop: true, resolveJsonModule: true, strict: true,
      skipLibCheck: true, isolatedModules: true }, diagnostics: { warnOnly: false } }],
    // @kubernetes/client-node >= 1.0 is ESM-only; jest on Node < 24.9 cannot require ESM, so babel
    // turns those packages into CommonJS for the tests (Node 20.20 itself loads them natively).
    '^.+\\.m?js$': ['babel-jest', { presets: [['@babel/preset-env', { targets: { node: 'current' } }]] }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(@kubernetes/client-node|openid-client|oauth4webapi|jose|jsonpath-plus|rfc4648)/)'],
  testTimeout: 120000,
  setupFiles: ['<rootDir>/test/support/quiet.ts'],
};
