import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';
import { JOURNAL_CHANNEL } from '../../src/db/journal-signal';

/** Nested fields are batched: the number of SQL statements of a nested query does not grow with the rows. */
let app: TestApp;
const statements: string[] = [];
const withValues: { text: string; params: readonly unknown[] }[] = [];

beforeAll(async () => {
  app = await startTestApp();
  // counted at the Database, which every statement of the process goes through (src/db/pool.ts)
  app.service.database.db.observeStatements((text, params) => {
    statements.push(text);
    withValues.push({ text, params });
  });
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
  // the users page, then the domains page and their totals, then the records page and theirs: one statement each
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

/** the rows a plan's scans of `relation` read (kept or removed by their filter), over all their loops */
function rowsRead(plan: any, relation: string): number {
  const own = plan['Relation Name'] === relation ? (plan['Actual Rows'] + (plan['Rows Removed by Filter'] ?? 0)) * plan['Actual Loops'] : 0;
  return own + (plan.Plans ?? []).reduce((sum: number, child: any) => sum + rowsRead(child, relation), 0);
}

/**
 * What the statements of `query` that read the pages of `relation` (not its counts) read from it, as
 * PostgreSQL's own EXPLAIN ANALYZE of each, run again with the same values.
 */
async function pageRowsRead(query: string, relation: string, variables: Record<string, unknown> = {}): Promise<number[]> {
  withValues.length = 0;
  const res = await app.gql(query, variables);
  expect(res.errors).toBeUndefined();
  const pages = withValues.filter(
    ({ text }) => new RegExp(`\\bfrom ${relation} \\w\\b`).test(text) && !/count\(\*\) as count/.test(text) && /^\s*select/i.test(text),
  );
  expect(pages.length).toBeGreaterThan(0);
  const read: number[] = [];
  for (const { text, params } of pages) {
    const [row] = await app.service.database.db.rows(`explain (analyze, format json) ${text}`, [...params]);
    read.push(rowsRead(row['QUERY PLAN'][0].Plan, relation));
  }
  return read;
}

test('a nested list reads at most its page of each parent, not every child of every parent', async () => {
  const userId = await createUser(app, 'wide@example.org');
  const zones = ['a.wide.test', 'b.wide.test', 'c.wide.test'];
  for (const zone of zones) await createZone(app, userId, zone);
  // 200 more records per zone, written by hand: what is measured is the read
  await app.service.database.db.rows(
    `insert into records (domain_id, owner, type, rdata, ttl)
     select d.id, 'host' || n, 'A', '192.0.2.' || (n % 250), 300 from domains d cross join generate_series(1, 200) as n
      where d.user_id = $1`,
    [Number(userId)],
  );
  // the planner's statistics, as autovacuum keeps them on a running service: without them it takes the fresh
  // tables for a few pages and reads each zone whole by whatever index, which is not what is measured here
  await app.service.database.db.rows('analyze records, domains');
  const PAGE = 5;
  const perZoneCeiling = zones.length * (PAGE + 1);

  const list = `query($e: String) { users(email: $e) { nodes { domains(first: 10) { name records(first: ${PAGE}) { id } } } } }`;
  for (const read of await pageRowsRead(list, 'records', { e: 'wide@example.org' })) expect(read).toBeLessThanOrEqual(perZoneCeiling);
  const listed = (await app.gql(list, { e: 'wide@example.org' })).data.users.nodes[0].domains;
  expect(listed.map((d: any) => d.records.length)).toEqual([PAGE, PAGE, PAGE]);

  // a connection's page and the next one by its cursor: first + 1 rows per zone, and totals counted apart
  const paged = `query($e: String, $a: String) { users(email: $e) { nodes { domains(first: 10) { name
    recordsConnection(first: ${PAGE}, after: $a) { totalCount pageInfo { hasNextPage endCursor } nodes { id } } } } } }`;
  for (const read of await pageRowsRead(paged, 'records', { e: 'wide@example.org' })) expect(read).toBeLessThanOrEqual(perZoneCeiling);
  const first = (await app.gql(paged, { e: 'wide@example.org' })).data.users.nodes[0].domains;
  for (const domain of first) {
    expect(domain.recordsConnection.totalCount).toBe(204);
    expect(domain.recordsConnection.nodes).toHaveLength(PAGE);
    expect(domain.recordsConnection.pageInfo.hasNextPage).toBe(true);
  }
  // the cursor of the first zone's page pages that zone's records; another zone's list refuses it
  const cursor = first[0].recordsConnection.pageInfo.endCursor;
  const firstZone = `query($e: String, $a: String) { users(email: $e) { nodes { domains(first: 1) { name
    recordsConnection(first: ${PAGE}, after: $a) { totalCount pageInfo { hasNextPage endCursor } nodes { id } } } } } }`;
  for (const read of await pageRowsRead(firstZone, 'records', { e: 'wide@example.org', a: cursor }))
    expect(read).toBeLessThanOrEqual(PAGE + 1);
  const second = (await app.gql(firstZone, { e: 'wide@example.org', a: cursor })).data.users.nodes[0].domains;
  const firstIds = first[0].recordsConnection.nodes.map((n: any) => Number(n.id));
  const secondIds = second[0].recordsConnection.nodes.map((n: any) => Number(n.id));
  expect(secondIds).toHaveLength(PAGE);
  expect(Math.min(...secondIds)).toBeGreaterThan(Math.max(...firstIds));
  const elsewhere = await app.gql(paged, { e: 'wide@example.org', a: cursor });
  expect(elsewhere.errors?.[0].extensions.details[0]).toMatchObject({ field: 'after', code: 'CURSOR_FILTER_MISMATCH' });
  expect(elsewhere.errors?.[0].path).toEqual(['users', 'nodes', 0, 'domains', 1, 'recordsConnection']);

  // a user's zones go through the same statement (a few dozen zones fit one page, which PostgreSQL rightly reads
  // whole, so only the answer is checked here): the first of each user's, and the total apart
  const users = `query($e: String) { users(email: $e) { nodes {
    domains(first: 1) { name } domainsConnection(first: 1) { totalCount pageInfo { hasNextPage } nodes { name } } } } }`;
  const answer = (await app.gql(users, { e: 'wide@example.org' })).data.users.nodes[0];
  expect(answer.domains).toEqual([{ name: 'a.wide.test' }]);
  expect(answer.domainsConnection).toEqual({ totalCount: 3, pageInfo: { hasNextPage: true }, nodes: [{ name: 'a.wide.test' }] });
});

test("the bench's nested shape reads users, their zones and the zones' records: three statements (the records read once, with the zones)", async () => {
  const id = await createUser(app, 'ahead@example.org');
  for (let z = 0; z < 2; z++) await createZone(app, id, `z${z}.ahead.test`);
  const query = `{ users(first: 100) { nodes { email domains(first: 10) { name records(first: 10) { owner type rdata ttl } } } } }`;
  await app.gql(query);
  const count = await countStatements(query);
  expect(count).toBe(3);
});

test("each record's counts (lastQueried, queryCount) are read in the records' own statement, under a zone list and ahead with a user's zones", async () => {
  const id = await createUser(app, 'counted@example.org');
  for (let z = 0; z < 2; z++) await createZone(app, id, `z${z}.counted.test`);
  const counts = `lastQueried day: queryCount week: queryCount(since: "${new Date(Date.now() - 7 * 86_400_000).toISOString()}")`;
  // what the statements of one answer read of the records and of the counts (other work of the process that may
  // fall in the answer's time, as the zones' creation sets off, reads neither)
  const read = async (query: string) => {
    await app.gql(query);
    statements.length = 0;
    const res = await app.gql(query);
    expect(res.errors).toBeUndefined();
    const reads = (table: RegExp) => statements.filter((sql) => table.test(sql));
    return { records: reads(/\bfrom records r\b/), analytics: reads(/\bquery_(counts|last_seen|rollups)\b/) };
  };
  const expectRead = ({ records, analytics }: { records: string[]; analytics: string[] }) => {
    expect(records).toHaveLength(1);
    if (app.service.settings.fastPaths) {
      // the plain record lists: the records' statement reads their counts (no statement of the counts' own, nor
      // of the rollups' marks)
      expect(analytics).toEqual(records);
    } else {
      // graphql-js as written (FAST_PATHS=off, .ci/run): each record's fields through their loaders, the counts
      // in one statement a window for the level (two windows here: the default day's, which `lastQueried` shares,
      // and the week's) and the marks in one for the operation
      expect(analytics.filter((sql) => records.includes(sql))).toEqual([]);
      expect(analytics).toHaveLength(3);
    }
  };
  // under a zone list
  expectRead(await read(`{ domains(userId: "${id}", first: 10) { nodes { name records(first: 10) { owner type ${counts} } } } }`));
  // the bench's shape: users, their zones and the zones' records with their counts (read ahead with the zones on
  // the fast path)
  expectRead(
    await read(`{ users(first: 100) { nodes { email domains(first: 10) { name records(first: 10) { owner type ${counts} } } } } }`),
  );
});

test("the console's zone list reads each zone's health state with its page, without its findings, and its count beside its page", async () => {
  const id = await createUser(app, 'listing@example.org');
  for (let z = 0; z < 3; z++) await createZone(app, id, `z${z}.listing.test`);
  const list = (health: string) =>
    `{ domains(userId: "${id}", first: 2, orderBy: NAME) { totalCount nodes { name user { email } recordCount dnssecState health { ${health} } } } }`;
  const read = async (query: string) => {
    statements.length = 0;
    const res = await app.gql(query);
    expect(res.errors).toBeUndefined();
    expect(res.data.domains.totalCount).toBe(3);
    return [...statements];
  };
  const reads = (texts: string[], table: string) => texts.filter((sql) => new RegExp(`\\b(from|join) ${table}\\b`).test(sql)).length;
  const states = await read(list('state'));
  expect(reads(states, 'zone_health')).toBe(1);
  expect(reads(states, 'zone_health_findings')).toBe(0);
  // the states come with the page itself: its zones' owners, facts and health in one statement
  expect(states.filter((sql) => /\bjoin users u\b/.test(sql) && /\bjoin zone_health\b/.test(sql))).toHaveLength(1);
  // the owners and the facts come with the page: no statement of their own by the page's ids
  expect(states.filter((sql) => /\bfrom (users|domains d left join dnssec_zones)\b.*= any\(/s.test(sql))).toEqual([]);
  expect(states.filter((sql) => /\bjoin users u\b/.test(sql))).toHaveLength(1);
  const answer = (await app.gql(list('state'))).data.domains.nodes;
  expect(answer[0]).toMatchObject({ name: 'z0.listing.test', user: { email: 'listing@example.org' }, dnssecState: 'unsigned' });
  expect(answer[0].recordCount).toBeGreaterThan(0);
  // asked for, through a fragment too, the findings are read: one statement for the page's zones
  const findings = await read(list('state ...on ZoneHealth { findings { code } }'));
  expect(reads(findings, 'zone_health_findings')).toBe(1);
  // the propagation's state: the zones' serials and their servers' rows in one statement (one snapshot), the
  // page's own: the list is its page and its count
  const propagation = await read(list('state } propagation { state'));
  const serversRead = propagation.filter((sql) => /\bzone_server_status\b/.test(sql));
  expect(serversRead).toHaveLength(1);
  expect(serversRead[0]).toMatch(/\bd\.serial\b/);
  expect(serversRead[0]).toMatch(/\bjoin users u\b/);
  // (the caller's key, read again when its cached look-up has expired on a slow host, is not the page's)
  expect(propagation.filter((sql) => /^\s*select/i.test(sql) && !/\bfrom api_keys\b/.test(sql))).toHaveLength(2);
  // the count is asked for before the page is read, not once its zones are answered
  const count = statements.findIndex((sql) => /^\s*select count\(\*\) as count from domains/i.test(sql));
  const page = statements.findIndex((sql) => /order by d\.name/i.test(sql));
  expect(count).toBeGreaterThanOrEqual(0);
  expect(page).toBeGreaterThan(count);
});
