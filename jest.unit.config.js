/**
 * The fast tier (`npm run test:unit`): the DNS model and pure code, with no database and no system tool, in
 * well under a minute. `npm test` runs these too, with everything else. The DNS model's tests that hold it
 * against BIND's and Knot's own checkers (zone-checkers, zone-checks) need those tools: they stay in `npm test`.
 */
const base = require('./jest.config.js');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/unit/**/*.test.ts', '<rootDir>/test/dns/**/*.test.ts', '<rootDir>/test/propagation/tsig.test.ts'],
  testPathIgnorePatterns: [...base.testPathIgnorePatterns, '<rootDir>/test/dns/zone-checkers.test.ts', '<rootDir>/test/dns/zone-checks.test.ts'],
  // no PostgreSQL: nothing here opens a connection
  globalSetup: undefined,
  globalTeardown: undefined,
  maxWorkers: 2,
};
