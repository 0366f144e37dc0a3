/**
 * Imported first by main.ts: the service runs in production mode unless told otherwise. graphql-js reads
 * NODE_ENV when it is loaded, and outside production it checks every value with a slow cross-realm
 * `instanceOf` (about an eighth of the CPU of a large query; docs/performance.md, «GraphQL, always on»).
 */
process.env.NODE_ENV ??= 'production';
