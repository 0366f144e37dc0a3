import { startTestApp, TestApp } from '../support/test-app';
import { errorCode } from '../support/fixtures';

/** Issue 11: GraphQL documents built to hurt: fragment bombs, token floods, unknown operations, subscriptions. */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

/** fragment F1 spreads F2 twice, F2 spreads F3 twice, …: 2^levels fields if every spread is expanded */
function fragmentChain(levels: number): string {
  const parts = ['{ users { nodes { ...F1 } } }'];
  for (let i = 1; i < levels; i++) parts.push(`fragment F${i} on User { a${i}: id ...F${i + 1} ...F${i + 1} }`);
  parts.push(`fragment F${levels} on User { email }`);
  return parts.join('\n');
}

test('a 30-level fragment chain is measured in linear time and refused at once for its cost', async () => {
  // the exponential walk took 2.7 s at 20 levels and doubled per level (about 45 minutes at 30): the test's
  // timeout ends it; how long the linear one takes is bench/hostile-memory.js's to measure
  const res = await app.gql(fragmentChain(30));
  expect(res.status).toBe(400);
  expect(errorCode(res)).toBe('QUERY_TOO_COMPLEX');
  // a short chain is an ordinary document and runs
  const short = await app.gql(fragmentChain(4));
  expect(short.errors).toBeUndefined();
  // and /health answers meanwhile
  expect((await app.http.get('/health')).status).toBe(200);
});

test('fragments count towards depth and cost as if expanded', async () => {
  const deep = `{ users { nodes { ...U } } } fragment U on User { domains { ...D } } fragment D on Domain { user { domains { user { domains { user { domains { user { id } } } } } } } }`;
  const res = await app.gql(deep);
  expect(res.status).toBe(400);
  expect(errorCode(res)).toBe('QUERY_TOO_COMPLEX');
  const costly = `{ users(first: 10000) { nodes { ...U } } } fragment U on User { domains(first: 10000) { records(first: 10000) { id } } }`;
  const expensive = await app.gql(costly);
  expect(expensive.status).toBe(400);
  expect(expensive.errors![0].extensions.details[0].code).toBe('MAX_COMPLEXITY');
});

test('a token flood is refused before it is walked', async () => {
  const query = `{ ${Array.from({ length: 20000 }, (_, i) => `a${i}: __typename`).join(' ')} }`;
  const res = await app.http.post('/graphql').set('X-API-Key', 'test-admin-key-0123456789abcdef').set('content-type', 'application/json').send({ query });
  expect(res.status).toBe(400);
  expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  expect(res.body.errors[0].message).toMatch(/token/i);
});

test('an operationName that names no operation is a 400, not a 500', async () => {
  const post = await app.http.post('/graphql').set('X-API-Key', 'test-admin-key-0123456789abcdef').set('content-type', 'application/json')
    .send({ query: '{ __typename }', operationName: 'X' });
  expect(post.status).toBe(400);
  expect(post.body.errors[0].extensions.code).toBe('OPERATION_RESOLUTION_FAILURE');
  const get = await app.http.get('/graphql').query({ query: '{ __typename }', operationName: '\u0000' })
    .set('X-API-Key', 'test-admin-key-0123456789abcdef').set('apollo-require-preflight', 'true');
  expect(get.status).toBe(400);
});

test('a subscription over HTTP is a clear 400 with a stable code (they are served over WebSocket)', async () => {
  const res = await app.gql('subscription { zoneChanged(zone: "x.example") { zone } }');
  expect(res.status).toBe(400);
  expect(errorCode(res)).toBe('OPERATION_NOT_SUPPORTED');
});
