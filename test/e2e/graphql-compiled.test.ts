import { execute, parse } from 'graphql';
import { buildContext } from '../../src/graphql/context';
import { COMPILED_DOCUMENTS_KEPT } from '../../src/graphql/fast-path/compiled-execution';
import { plainRecordLists } from '../../src/graphql/fast-path/plain-record-lists';
import { getSchema } from '../../src/graphql/schema';
import { rollUp, writeTally, type CountRow } from '../../src/repositories/query-analytics';
import { createServices } from '../../src/services';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createUser, createZone, errorCode } from '../support/fixtures';

/**
 * /graphql runs operations compiled by graphql-jit (src/graphql/fast-path/compiled-execution.ts). Each operation here is
 * also executed by graphql-js itself, on the same schema and data with the same key, and the answers must be
 * the same: introspection, fragments, inline fragments, aliases, directives, variables and their defaults,
 * __typename, nested lists with arguments, and the records' RRset counts (lastQueried, queryCount) that plain
 * record lists carry (src/graphql/fast-path/plain-record-lists.ts), whose answers must be the same bytes.
 */
let app: TestApp;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** a window's start three days back, the same for every run of a case (its literal is in the document) */
const THREE_DAYS_AGO = new Date(Math.floor(Date.now() / MINUTE) * MINUTE - 72 * HOUR).toISOString();

beforeAll(async () => {
  app = await startTestApp();
  const zones: number[] = [];
  for (const u of [1, 2, 3]) {
    const userId = await createUser(app, `compiled${u}@example.org`);
    zones.push(Number(await createZone(app, userId, `c${u}.compiled.test`)));
    const input = { zone: `c${u}.compiled.test`, owner: 'mail', type: 'MX', rdata: `10 mx${u}.example.net.`, ttl: 3600 };
    expect((await app.gql(CREATE_RECORD, { input })).errors).toBeUndefined();
  }
  // counts as the collector writes them: c1's MX 10 minutes ago and its SOA 30 hours ago (outside the default
  // day), c2's MX two days ago; c3 never queried (lastQueried null, queryCount 0)
  const now = Math.floor(Date.now() / MINUTE) * MINUTE;
  const count = (zoneId: number, ago: number, owner: string, type: string, n: number): CountRow => ({
    zoneId,
    minute: now - ago,
    owner,
    type,
    rcode: 0,
    secondary: 'ns1',
    count: n,
    lastAt: now - ago + 12_345,
  });
  const counts = [
    count(zones[0], 10 * MINUTE, 'mail', 'MX', 5),
    count(zones[0], 30 * HOUR, '@', 'SOA', 2),
    count(zones[1], 48 * HOUR, 'mail', 'MX', 3),
  ];
  // each minute covered, so that the rollup folds them into hours: the counts are then read from minutes and hours
  // by the rollups' marks, on both engines (not into days: a day's row that begins before a window's start is not
  // read, and a count of the last day would then depend on the time of day)
  const covered = counts.map((row) => ({
    secondary: 'ns1',
    minute: row.minute,
    firstAt: row.minute,
    coveredMs: MINUTE,
    frames: row.count,
    answers: row.count,
    unmatched: 0,
    malformed: 0,
    dropped: 0,
  }));
  await writeTally(app.service.database.db, counts, covered, new Date());
  expect(await rollUp(app.service.database.db, 60, 3600)).toBeDefined();
  // c1's SOA as counted before count rows kept their last answer's time: its last query is read as before
  expect(
    await app.service.database.db.affected(`update "query_counts" set "last_at" = null where "zone_id" = $1 and "type" = 'SOA'`, [
      zones[0],
    ]),
  ).toBeGreaterThan(0);
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

const OPERATIONS: {
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  /** a record list of it is answered as one value (plain-record-lists.ts) */
  plain?: boolean;
}[] = [
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
  {
    name: "the records' counts without a window (the last day), lastQueried as DateTimeISO",
    query: `{ domains(first: 10) { nodes { name records { owner type lastQueried queryCount ttl } } } }`,
    plain: true,
  },
  {
    name: "the records' counts since a variable, aliased, twice, in fragments, beside the default window",
    query: `query Counts($since: DateTimeISO!) { users(first: 3) { nodes { email domains { name
        records { owner ...Counted ... on Record { day: queryCount last: lastQueried } } } } } }
      fragment Counted on Record { type lastQueried week: queryCount(since: $since) again: queryCount(since: $since) }`,
    variables: { since: THREE_DAYS_AGO },
    plain: true,
  },
  {
    name: "the records' counts in a window that ended before their last query, beside lastQueried",
    query: `{ domains(first: 10) { nodes { name records { owner type
        lastQueried queryCount(since: "${THREE_DAYS_AGO}", until: "${new Date(Math.floor(Date.now() / MINUTE) * MINUTE - 24 * HOUR).toISOString()}") } } } }`,
    plain: true,
  },
  {
    name: "the records' counts since and until literals, and until a variable left out",
    query: `query($until: DateTimeISO) { domains(first: 10) { nodes { name
        records(first: 100) { rdata a: queryCount(since: "${THREE_DAYS_AGO}", until: "${new Date(Date.now() + HOUR).toISOString()}")
          b: queryCount(since: "${THREE_DAYS_AGO}", until: $until) } } } }`,
    plain: true,
  },
];

/** how many operations each engine has run, from /metrics */
async function executions(): Promise<{ jit: number; js: number }> {
  const text = await (await fetch(`http://127.0.0.1:${app.service.httpPort}/metrics`)).text();
  const count = (engine: string) =>
    Number(text.match(new RegExp(`^zonekeeper_graphql_executions_total\\{engine="${engine}"\\} (\\d+)`, 'm'))?.[1] ?? 0);
  return { jit: count('graphql-jit'), js: count('graphql-js') };
}

test.each(OPERATIONS)("$name: the compiled answer is graphql-js's answer", async ({ query, variables = {}, operationName, plain }) => {
  if (plain) expect(plainRecordLists(await getSchema(), parse(query), operationName)).toBeDefined();
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
    // the same bytes: members in the same order, values written alike
    expect(JSON.stringify(body.data)).toBe(JSON.stringify(expected.data));
    const after = await executions();
    expect(after[engine] - before[engine]).toBe(1);
    // compiled, it ran on graphql-jit alone (a plain list's counts did not send it back to graphql-js)
    if (engine === 'jit') expect(after.js - before.js).toBe(0);
  }
});

test('the counts are in the answers compared (a case compares something)', async () => {
  const { data } = await byGraphQLJs(OPERATIONS.find((o) => o.plain)!.query, {});
  const records = data.domains.nodes.flatMap((zone: any) => zone.records.map((r: any) => ({ zone: zone.name, ...r })));
  const mx = (zone: string) => records.find((r: any) => r.zone === zone && r.type === 'MX');
  expect(mx('c1.compiled.test')).toMatchObject({ queryCount: 5, lastQueried: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*\.345Z$/) });
  expect(mx('c2.compiled.test')).toMatchObject({ queryCount: 0, lastQueried: expect.any(String) });
  expect(mx('c3.compiled.test')).toMatchObject({ queryCount: 0, lastQueried: null });
  const soa = records.find((r: any) => r.zone === 'c1.compiled.test' && r.type === 'SOA');
  expect(soa).toMatchObject({ queryCount: 0, lastQueried: expect.stringMatching(/\.345Z$/) });
  // a window that ended a day ago: c2's MX (two days ago) counted in it, c1's (ten minutes ago) not, though it is
  // c1's last query
  const ended = await byGraphQLJs(OPERATIONS.find((o) => o.name.includes('ended before'))!.query, {});
  const endedMx = (zone: string) => ended.data.domains.nodes.find((z: any) => z.name === zone).records.find((r: any) => r.type === 'MX');
  expect(endedMx('c1.compiled.test')).toMatchObject({ queryCount: 0, lastQueried: expect.stringMatching(/\.345Z$/) });
  expect(endedMx('c2.compiled.test')).toMatchObject({ queryCount: 3, lastQueried: expect.stringMatching(/\.345Z$/) });
  expect(endedMx('c3.compiled.test')).toMatchObject({ queryCount: 0, lastQueried: null });
});

test("a window the counts refuse (since after until): the operation is graphql-js's, each record's error as before", async () => {
  const query = `query($since: DateTimeISO, $until: DateTimeISO) { domains(first: 10) { nodes { name
      records { owner lastQueried queryCount(since: $since, until: $until) } } } }`;
  const variables = { since: new Date().toISOString(), until: THREE_DAYS_AGO };
  expect(plainRecordLists(await getSchema(), parse(query), undefined)).toBeDefined();
  const expected = await byGraphQLJs(query, variables);
  expect(expected.errors?.length).toBeGreaterThan(0);
  for (let run = 0; run < 3; run++) {
    const before = await executions();
    const res = await app.gql(query, variables);
    // the first run on graphql-js; then compiled, and answered again by graphql-js once the counts were refused
    expect((await executions()).js - before.js).toBe(1);
    expect(res.data).toEqual(expected.data);
    expect(res.errors?.map((e: any) => [e.message, e.path, e.locations])).toEqual(
      expected.errors.map((e: any) => [e.message, e.path, e.locations]),
    );
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
