/**
 * `npm run build` unless dist/ was built from these very sources (scripts/build-once.cjs, which CI also runs
 * before its lanes): the tests that run the built service or the CLI as a user does share one build a run
 * instead of making their own.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildOnce } = require('../../scripts/build-once.cjs') as { buildOnce: () => void };

export { buildOnce };
