/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: { module: 'commonjs', target: 'ES2020', esModuleInterop: true, resolveJsonModule: true, strict: true, skipLibCheck: true }, diagnostics: { warnOnly: false } }],
  },
  testTimeout: 120000,
  setupFiles: ['<rootDir>/test/support/quiet.ts'],
};
