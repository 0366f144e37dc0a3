import { execute, parse } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { buildContext } from '../../src/graphql/context';
import { plainRecordLists } from '../../src/graphql/fast-path/plain-record-lists';
import { getSchema } from '../../src/graphql/schema';
import { createServices } from '../../src/services';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createUser, createZone } from '../support/fixtures';

/**
 * A `Domain.records` list of plain fields is written as JSON from the zone's packed text once a document runs
 * compiled (src/graphql/fast-path/plain-record-lists.ts). Each operation here runs on /graphql three times (the first on
 * graphql-js, the others compiled) and by graphql-js itself on the same schema, data and key: every answer,
 * errors included, must be graphql-js's. The operations cover aliases, named and inline fragments, repeated
 * members, partial selections, filters by variables, pages of the nested connections beside the lists, lists
 * that stay as they are (other fields, a key used twice), errors, and a key restricted by read rules.
 */
let app: TestApp;
let restricted: string;

beforeAll(async () => {
  app = await startTestApp();
  for (const u of [1, 2, 3]) {
    const userId = await createUser(app, `raw${u}@example.org`);
    for (const z of [1, 2]) {
      const zone = `z${u}${z}.raw.test`;
      await createZone(app, userId, zone);
      for (const [owner, type, rdata] of [
        ['mail', 'MX', `10 mx${u}.example.net.`],
        ['txt', 'TXT', '"quoted \\"words\\"" "back\\\\slash"'],
        ['a', 'A', `192.0.2.${u * 10 + z}`],
      ]) {
        const res = await app.gql(CREATE_RECORD, { input: { zone, owner, type, rdata, ttl: [300, 900, 1800][u - 1] } });
        expect(res.errors).toBeUndefined();
      }
    }
  }
  const owner = await app.gql(`{ users(first: 1, email: "raw1@example.org") { nodes { id } } }`);
  const key = await app.gql(`mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }`, {
    input: {
      userId: owner.data.users.nodes[0].id,
      name: 'raw lists',
      policy: {
        rules: [
          { zone: 'z11.raw.test', access: 'READ' },
          { zone: 'z12.raw.test', owner: 'mail', access: 'READ' },
        ],
      },
    },
  });
  expect(key.errors).toBeUndefined();
  restricted = key.data.createApiKey.secret;
}, 60_000);
afterAll(async () => {
  await app?.close();
});

async function byGraphQLJs(query: string, variables: Record<string, unknown>, key: string) {
  const services = createServices(app.service.settings, app.service.database.db);
  const contextValue = await buildContext(app.service.database.db, services, key);
  const result = await execute({ schema: await getSchema(), document: parse(query), contextValue, variableValues: variables });
  return JSON.parse(JSON.stringify(result));
}

async function overHttp(query: string, variables: Record<string, unknown>, key: string) {
  const res = await fetch(`http://127.0.0.1:${app.service.httpPort}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, body: (await res.json()) as { data?: any; errors?: any[] } };
}

interface Case {
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  /** whether some list of the document is answered as one value */
  rewritten: boolean;
  key?: () => string;
}

const CASES: Case[] = [
  {
    name: "the bench's shape",
    query: `{ users(first: 100) { nodes { email domains(first: 10) { name records(first: 10) { owner type rdata ttl } } } } }`,
    rewritten: true,
  },
  {
    name: 'every plain field, aliases, repeated members, __typename',
    query: `{ users(first: 3) { nodes { domains { name
        records { i: id zone owner o: owner owner t: __typename ttl type rdata __typename id }
        mx: records(type: "MX") { rdata } } } } }`,
    rewritten: true,
  },
  {
    name: 'named and inline fragments, nested in each other, spread twice',
    query: `query { domains(first: 10) { nodes { name records(first: 5) { ...R ... on Record { ttl ...R } ... { zone } } } } }
      fragment R on Record { id type ...T }
      fragment T on Record { rdata }`,
    rewritten: true,
  },
  {
    name: 'a partial selection of one member',
    query: `{ domains(first: 4) { nodes { records(first: 2) { id } } } }`,
    rewritten: true,
  },
  {
    name: 'filters by variables: owner, type, the enum, first',
    query: `query($o: String, $t: String, $e: RecordType, $f: Int) { domains(first: 10) { nodes { name
        byOwner: records(owner: $o) { owner type } byType: records(type: $t, first: $f) { rdata }
        byEnum: records(recordType: $e) { ttl } none: records(owner: "nothing-here") { id } } } }`,
    variables: { o: 'TXT', t: 'ns', e: 'A', f: 1 },
    rewritten: true,
  },
  {
    name: "the nested connections' pages beside the lists",
    query: `query($after: String) { users(first: 2) { totalCount pageInfo { hasNextPage endCursor } nodes {
        domainsConnection(first: 1) { totalCount pageInfo { hasNextPage endCursor } nodes { name records(first: 3) { owner } } }
        domains(first: 2) { recordsConnection(first: 2, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { id owner } } } } } }`,
    variables: { after: '3' },
    rewritten: true,
  },
  {
    name: 'one zone, and a record back to its zone',
    query: `{ domain(name: "z21.raw.test") { name records { owner rdata } } record(id: "1") { domain { records(first: 2) { id } } } }`,
    rewritten: true,
  },
  {
    name: 'a list with other fields stays as it is',
    query: `{ domains(first: 3) { nodes { records { owner recordType data { __typename } domain { name } } } } }`,
    rewritten: false,
  },
  {
    name: 'a key used twice in one zone (GraphQL merges the two) stays as it is',
    query: `{ domains(first: 3) { nodes { records(first: 3) { owner } ... on Domain { records(first: 3) { type } } } } }`,
    rewritten: false,
  },
  {
    name: 'a directive inside the list stays as it is; on the list it is kept',
    query: `query($yes: Boolean!) { domains(first: 3) { nodes { a: records { owner @include(if: $yes) }
        b: records @skip(if: $yes) { type } c: records @include(if: $yes) { rdata } } } }`,
    variables: { yes: true },
    rewritten: true,
  },
  {
    name: "lists read with their users' zones: several filters by variables, a directive, a fragment, a page",
    query: `query($o: String, $t: String, $e: RecordType, $f: Int, $yes: Boolean!) { users(first: 10) { nodes { email
        domains(first: $f) { name byOwner: records(owner: $o) { owner type } byType: records(type: $t, first: $f) { rdata }
          byEnum: records(recordType: $e) { ttl } again: records(owner: $o) { id } skipped: records @skip(if: $yes) { type }
          kept: records @include(if: $yes) { rdata } ... on Domain { inFragment: records(first: 1) { owner } }
          paged: recordsConnection(first: 1) { totalCount nodes { id } } }
        other: domains { name records { zone ttl } } } } }`,
    variables: { o: 'mail', t: 'ns', e: 'A', f: 2, yes: true },
    rewritten: true,
  },
  {
    name: 'a key restricted by read rules',
    query: `{ users(first: 10) { nodes { domains { name records { id owner type rdata ttl } } } } domains(first: 10) { nodes { name records { owner } } } }`,
    rewritten: true,
    key: () => restricted,
  },
];

test.each(CASES)("$name: every answer is graphql-js's", async ({ query, variables = {}, rewritten, key = () => ADMIN_KEY }) => {
  const plan = plainRecordLists(await getSchema(), parse(query), undefined);
  expect(plan !== undefined).toBe(rewritten);
  // what /graphql runs from the second time on: graphql-jit compiles the rewritten document
  if (plan) expect(isCompiledQuery(compileQuery(plan.schema, plan.document))).toBe(true);
  const expected = await byGraphQLJs(query, variables, key());
  expect(expected.errors).toBeUndefined();
  for (let run = 0; run < 3; run++) {
    const { status, body } = await overHttp(query, variables, key());
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data).toEqual(expected.data);
  }
});

test('the restricted key sees less than the admin key, so its case compares something', async () => {
  const query = `{ users(first: 10) { nodes { domains { records { id } } } } }`;
  const admin = await byGraphQLJs(query, {}, ADMIN_KEY);
  const mine = (await overHttp(query, {}, restricted)).body;
  const count = (data: any) => data.users.nodes.flatMap((u: any) => u.domains.flatMap((d: any) => d.records)).length;
  expect(count(mine.data)).toBeGreaterThan(0);
  expect(count(mine.data)).toBeLessThan(count(admin.data));
});

test('the escaped values (quotes, backslashes) come out as stored', async () => {
  const query = `{ domain(name: "z31.raw.test") { records(type: "TXT") { rdata } } }`;
  for (let run = 0; run < 3; run++) {
    const { body } = await overHttp(query, {}, ADMIN_KEY);
    expect(body.data.domain.records).toEqual([{ rdata: '"quoted \\"words\\"" "back\\\\slash"' }]);
  }
});

/** a query the plain lists serve, whose errors (message, path, locations) and data are graphql-js's, three times over */
async function expectErrorsAsGraphQLJs(query: string): Promise<void> {
  expect(plainRecordLists(await getSchema(), parse(query), undefined)).toBeDefined();
  const expected = await byGraphQLJs(query, {}, ADMIN_KEY);
  expect(expected.errors?.length).toBeGreaterThan(0);
  for (let run = 0; run < 3; run++) {
    const { body } = await overHttp(query, {}, ADMIN_KEY);
    expect(body.data).toEqual(expected.data);
    expect(body.errors?.map((e) => [e.message, e.path, e.locations])).toEqual(
      expected.errors.map((e: any) => [e.message, e.path, e.locations]),
    );
  }
}

test("a list's error keeps its message, path and locations, and nulls the answer as graphql-js does", async () => {
  await expectErrorsAsGraphQLJs(`{ domains(first: 2) { nodes { name records(first: 0) { owner } } } }`);
});

test("a list's error under a user's zones (read with the zones) is graphql-js's: message, path, locations", async () => {
  for (const list of ['records(first: 0) { owner }', 'records(type: "A", recordType: MX) { owner }']) {
    await expectErrorsAsGraphQLJs(`{ users(first: 2) { nodes { email domains { name ${list} ok: records(first: 1) { id } } } } }`);
  }
});

test('introspection and mutations are never rewritten (the extension stays unseen)', async () => {
  const schema = await getSchema();
  expect(
    plainRecordLists(schema, parse(`{ __schema { types { name } } domains(first: 1) { nodes { records { id } } } }`), undefined),
  ).toBeUndefined();
  expect(
    plainRecordLists(schema, parse(`mutation { createDomain(input: { userId: "1", zone: "x.raw.test" }) { records { id } } }`), undefined),
  ).toBeUndefined();
  const type = await overHttp(`{ __type(name: "Domain") { fields { name } } }`, {}, ADMIN_KEY);
  expect(type.body.data.__type.fields.map((f: any) => f.name)).not.toContain('_plainRecords');
  expect((await overHttp(`{ __type(name: "PlainRecordList") { name } }`, {}, ADMIN_KEY)).body.data.__type).toBeNull();
});
