import { execute, parse } from 'graphql';
import { buildContext } from '../../src/graphql/context';
import { COMPILED_DOCUMENTS_KEPT } from '../../src/graphql/fast-path/compiled-execution';
import { getSchema } from '../../src/graphql/schema';
import { createServices } from '../../src/services';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createUser, createZone, errorCode } from '../support/fixtures';

/**
 * /graphql runs operations compiled by graphql-jit (src/graphql/fast-path/compiled-execution.ts). Each operation here is
 * also executed by graphql-js itself, on the same schema and data with the same key, and the answers must be
 * the same: introspection, fragments, inline fragments, aliases, directives, variables and their defaults,
 * __typename, nested lists with arguments.
 */
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
  for (const u of [1, 2, 3]) {
    const userId = await createUser(app, `compiled${u}@example.org`);
    await createZone(app, userId, `c${u}.compiled.test`);
    const input = { zone: `c${u}.compiled.test`, owner: 'mail', type: 'MX', rdata: `10 mx${u}.example.net.`, ttl: 3600 };
    expect((await app.gql(CREATE_RECORD, { input })).errors).toBeUndefined();
  }
});
afterAll(async () => {
  await app?.close();
});

async function byGraphQLJs(query: string, variables: Record<string, unknown>, operationName?: string) {
  const services = createServices(app.service.settings, app.service.database.db);
  const contextValue = await buildContext(app.service.database.db, services, ADMIN_KEY);
  const result = await execute({
    schema: await getSchema(),
    document: parse(query),
    contextValue,
    variableValues: variables,
    operationName,
  });
  return JSON.parse(JSON.stringify(result));
}

const OPERATIONS: { name: string; query: string; variables?: Record<string, unknown>; operationName?: string }[] = [
  {
    name: 'introspection',
    query: `{ __schema { queryType { name } mutationType { name }
      types { name kind fields(includeDeprecated: true) { name type { name kind ofType { name kind } } args { name defaultValue } } } } }`,
  },
  {
    name: 'fragments, aliases, directives, variable defaults, __typename',
    query: `query Zones($first: Int = 2, $withRecords: Boolean!) {
        users(first: $first) {
          totalCount
          pageInfo { hasNextPage endCursor }
          nodes { __typename ...Who zones: domains(first: 10) { name ... on Domain { serial }
            mx: records(type: "mx", first: 100) @include(if: $withRecords) { owner type rdata ttl }
            all: records(first: 2) @skip(if: $withRecords) { type } } }
        }
      }
      fragment Who on User { id email }`,
    variables: { withRecords: true },
  },
  {
    name: 'the same with the other directive branch and an explicit variable',
    query: `query Zones($first: Int = 2, $withRecords: Boolean!) {
        users(first: $first) { nodes { email domains { name mx: records(type: "MX") @include(if: $withRecords) { rdata } all: records(first: 2) @skip(if: $withRecords) { type } } } }
      }`,
    variables: { first: 3, withRecords: false },
  },
  {
    name: 'one operation of several, chosen by name',
    query: `query A { recordTypes { code rfcs } } query B { domains(first: 1) { nodes { name user { email } } } }`,
    operationName: 'B',
  },
];

/** how many operations each engine has run, from /metrics */
async function executions(): Promise<{ jit: number; js: number }> {
  const text = await (await fetch(`http://127.0.0.1:${app.service.httpPort}/metrics`)).text();
  const count = (engine: string) =>
    Number(text.match(new RegExp(`^zonekeeper_graphql_executions_total\\{engine="${engine}"\\} (\\d+)`, 'm'))?.[1] ?? 0);
  return { jit: count('graphql-jit'), js: count('graphql-js') };
}

test.each(OPERATIONS)("$name: the compiled answer is graphql-js's answer", async ({ query, variables = {}, operationName }) => {
  const expected = await byGraphQLJs(query, variables, operationName);
  expect(expected.errors).toBeUndefined();
  // a document is compiled the second time it runs: the first answer comes from graphql-js, the second from
  // graphql-jit, and both must be graphql-js's own
  for (const engine of ['js', 'jit'] as const) {
    const before = await executions();
    const res = await fetch(`http://127.0.0.1:${app.service.httpPort}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': ADMIN_KEY },
      body: JSON.stringify({ query, variables, operationName }),
    });
    const body = (await res.json()) as { data?: unknown; errors?: unknown[] };
    expect(res.status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data).toEqual(expected.data);
    const after = await executions();
    expect(after[engine] - before[engine]).toBe(1);
  }
});

test('the compiled-operation cache is bounded: a stream of distinct documents keeps at most COMPILED_DOCUMENTS_KEPT', async () => {
  const distinct = COMPILED_DOCUMENTS_KEPT + 50;
  for (let i = 0; i < distinct; i++) {
    const query = `{ d${i}: recordTypes { code } }`;
    expect((await app.gql(query)).errors).toBeUndefined();
    expect((await app.gql(query)).errors).toBeUndefined();
  }
  // the oldest documents were dropped: running the first one again compiles it again (graphql-js first)
  const before = await executions();
  expect((await app.gql('{ d0: recordTypes { code } }')).errors).toBeUndefined();
  expect((await executions()).js - before.js).toBe(1);
  // the newest stays compiled
  const newest = await executions();
  expect((await app.gql(`{ d${distinct - 1}: recordTypes { code } }`)).errors).toBeUndefined();
  expect((await executions()).jit - newest.jit).toBe(1);
  // a compile a document: seconds alone, more than a minute on a CI host running three lanes (a bound on a hang)
}, 180_000);

test('a resolver error keeps its code, message, path and locations, and nulls the answer as graphql-js does', async () => {
  const query = `{ recordTypes { code rfcs } domain(name: "missing.compiled.test") { name } }`;
  const expected = await byGraphQLJs(query, {});
  const res = await app.gql(query);
  expect(errorCode(res)).toBe('ZONE_NOT_FOUND');
  expect(res.errors?.[0].path).toEqual(expected.errors[0].path);
  expect(res.errors?.[0].message).toBe(expected.errors[0].message);
  expect(res.errors?.[0].locations).toEqual(expected.errors[0].locations);
  expect(res.data).toEqual(expected.data);
});

test("a variable of the wrong type is the client's mistake (400, BAD_USER_INPUT), as with graphql-js", async () => {
  const res = await app.gql(`query($first: Int) { users(first: $first) { totalCount } }`, { first: 'many' });
  expect(res.status).toBe(400);
  expect(errorCode(res)).toBe('BAD_USER_INPUT');
});

test('FAST_PATHS=off: /graphql and the REST layer run on graphql-js, with the same answers', async () => {
  const off = await startTestApp({ FAST_PATHS: 'off' });
  try {
    const userId = await createUser(off, 'slow@example.org');
    await createZone(off, userId, 'slow.compiled.test');
    const jitRuns = async () => {
      const text = (await off.http.get('/metrics')).text;
      return Number(
        text
          .split('\n')
          .find((l) => l.startsWith('zonekeeper_graphql_executions_total{engine="graphql-jit"}'))
          ?.split(' ')[1] ?? 0,
      );
    };
    const before = await jitRuns();
    const query = `{ domain(name: "slow.compiled.test") { name records { owner type rdata } } }`;
    // a document is compiled from its second run on, when the fast paths are on
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push((await off.gql(query)).data);
    expect((await off.http.get('/api/domain/list').set('X-API-Key', ADMIN_KEY)).status).toBe(200);
    expect(await jitRuns()).toBe(before);
    expect(answers[2]).toEqual(answers[0]);
    expect(answers[0].domain.records.map((r: any) => r.type).sort()).toEqual(['CNAME', 'NS', 'NS', 'SOA']);
  } finally {
    await off.close();
  }
});
