import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';
import { JOURNAL_CHANNEL } from '../../src/db/journal-signal';

/** Nested fields are batched: the number of SQL statements of a nested query does not grow with the rows. */
let app: TestApp;
const statements: string[] = [];

beforeAll(async () => {
  app = await startTestApp();
  // counted at the Database, which every statement of the process goes through (src/db/pool.ts)
  app.service.database.db.observeStatements((text) => statements.push(text));
});
afterAll(async () => {
  await app?.close();
});

async function countStatements(query: string): Promise<number> {
  statements.length = 0;
  const res = await app.gql(query);
  expect(res.errors).toBeUndefined();
  // not counted: the API key lookup, and what the zones just created set off in the same process on the same
  // pool up to SIGNAL_INTERVAL_MS after their commit, so that it may fall in the query: the journal signal
  // (`select pg_notify(...)`) and the journal's readers it wakes (live updates reading `changes`)
  return statements.filter(
    (sql) => /^\s*select/i.test(sql) && !/api_keys/.test(sql) && !sql.includes(JOURNAL_CHANNEL) && !/\bfrom changes\b/.test(sql),
  ).length;
}

const NESTED = `{ users(first: 100) { nodes { email domains(first: 3) { name user { email } records(first: 10) { owner type rdata domain { name } } } } } }`;

test('users { domains { records } } costs the same number of statements for 2 and for 12 users', async () => {
  const seed = async (from: number, to: number) => {
    for (let u = from; u < to; u++) {
      const id = await createUser(app, `u${u}@example.org`);
      for (let z = 0; z < 3; z++) await createZone(app, id, `z${z}.u${u}.test`);
    }
  };
  await seed(0, 2);
  const small = await countStatements(NESTED);
  await seed(2, 12);
  const large = await countStatements(NESTED);
  expect(large).toBe(small);
  expect(large).toBeLessThanOrEqual(5);
});

test('nested lists take first and filters, still one statement per level', async () => {
  const count = await countStatements(
    `{ users(first: 100) { nodes { domains(first: 2) { name records(type: "ns", first: 1) { type } } } } }`,
  );
  expect(count).toBeLessThanOrEqual(5);
  const res = await app.gql(
    `{ users(first: 100) { nodes { domains(first: 2) { name records(type: "ns", first: 1) { type } all: records(first: 10) { id } } } } }`,
  );
  const users = res.data.users.nodes.filter((u: { domains: unknown[] }) => u.domains.length);
  expect(users.length).toBeGreaterThan(2);
  for (const user of users) {
    expect(user.domains.length).toBeLessThanOrEqual(2);
    for (const domain of user.domains) {
      expect(domain.records).toEqual([{ type: 'NS' }]);
      expect(domain.all.length).toBe(4);
    }
  }
});

test('nested connections: first, after, totalCount and filters per parent, still one statement per level', async () => {
  const paged = `{ users(first: 100) { nodes { email domainsConnection(first: 2) { totalCount pageInfo { hasNextPage endCursor }
    nodes { name recordsConnection(first: 1, recordType: NS) { totalCount pageInfo { hasNextPage } nodes { type recordType } } } } } } }`;
  const count = await countStatements(paged);
  // users, then domains with their totals, then records with theirs (plus the root's own page query)
  expect(count).toBeLessThanOrEqual(5);
  const res = await app.gql(paged);
  expect(res.errors).toBeUndefined();
  const users = res.data.users.nodes.filter((u: any) => u.domainsConnection.totalCount > 0);
  expect(users.length).toBeGreaterThan(2);
  for (const user of users) {
    expect(user.domainsConnection.totalCount).toBe(3);
    expect(user.domainsConnection.nodes).toHaveLength(2);
    expect(user.domainsConnection.pageInfo.hasNextPage).toBe(true);
    for (const domain of user.domainsConnection.nodes) {
      // default zones hold two NS records: one shown, the other on the next page
      expect(domain.recordsConnection).toEqual({
        totalCount: 2,
        pageInfo: { hasNextPage: true },
        nodes: [{ type: 'NS', recordType: 'NS' }],
      });
    }
  }
  // the next page of one user's zones, by its cursor; past the end: empty, and the total still right
  const user = users[0];
  const next = await app.gql(
    `query($e: String, $a: String) { users(email: $e) { nodes { domainsConnection(first: 2, after: $a) { totalCount pageInfo { hasNextPage endCursor } nodes { name } } } } }`,
    { e: user.email, a: user.domainsConnection.pageInfo.endCursor },
  );
  const second = next.data.users.nodes[0].domainsConnection;
  expect(second.nodes).toHaveLength(1);
  expect(second.pageInfo.hasNextPage).toBe(false);
  expect(second.nodes[0].name).not.toBe(user.domainsConnection.nodes[0].name);
  const past = await app.gql(
    `query($e: String, $a: String) { users(email: $e) { nodes { domainsConnection(first: 2, after: $a) { totalCount nodes { name } pageInfo { hasNextPage endCursor } } } } }`,
    { e: user.email, a: second.pageInfo.endCursor },
  );
  expect(past.data.users.nodes[0].domainsConnection).toEqual({
    totalCount: 3,
    nodes: [],
    pageInfo: { hasNextPage: false, endCursor: null },
  });
  // bad arguments: a 4xx code naming the field
  const bad = await app.gql(`{ users(first: 1) { nodes { domainsConnection(first: 0) { totalCount } } } }`);
  expect(bad.errors?.[0].extensions.details[0].field).toBe('first');
  const cursor = await app.gql(`{ users(first: 1) { nodes { domainsConnection(after: "x") { totalCount } } } }`);
  expect(cursor.errors?.[0].extensions.details[0].field).toBe('after');
  const conflicting = await app.gql(`{ records(type: "A", recordType: MX) { totalCount } }`);
  expect(conflicting.errors?.[0].extensions.details[0].field).toBe('recordType');
});
