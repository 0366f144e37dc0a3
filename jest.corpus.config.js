/**
 * `npm run test:corpus`: the real-zone corpus (test/corpus), read from ../shared at run time. Kept out of
 * `npm test` because it needs ../shared beside the clone; CI runs it as a step of its own.
 */
const base = require('./jest.config.js');

module.exports = {
  ...base,
  roots: ['<rootDir>/test/corpus'],
  testPathIgnorePatterns: [],
  testTimeout: 120000,
};
