import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone, errorCode } from '../support/fixtures';

/** GraphQL documents built to hurt: fragment bombs, token floods, unknown operations, subscriptions. */
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
  // every list of the fragment named with its page, the remedy, and the setting that raises the ceiling
  const costs = 1 + 10000 * (1 + 10000 * 10000);
  expect(expensive.errors![0].message).toBe(
    `Query costs ${costs}; the limit is 200000 (GRAPHQL_MAX_COMPLEXITY, which the operator raises). Its lists, counted per parent: users (first: 10000), User.domains (first: 10000), Domain.records (first: 10000); give them a smaller \`first\` (and page with their connections)`,
  );
  expect(
    expensive.errors![0].extensions.details.slice(1).map((d: { code: string; list: string; items: number }) => [d.code, d.list, d.items]),
  ).toEqual([
    ['LIST_PAGE', 'users', 10000],
    ['LIST_PAGE', 'User.domains', 10000],
    ['LIST_PAGE', 'Domain.records', 10000],
  ]);
});

test('a token flood is refused before it is walked', async () => {
  const query = `{ ${Array.from({ length: 20000 }, (_, i) => `a${i}: __typename`).join(' ')} }`;
  const res = await app.http
    .post('/graphql')
    .set('X-API-Key', 'test-admin-key-0123456789abcdef')
    .set('content-type', 'application/json')
    .send({ query });
  expect(res.status).toBe(400);
  expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  expect(res.body.errors[0].message).toMatch(/token/i);
});

test('an operationName that names no operation is a 400, not a 500', async () => {
  const post = await app.http
    .post('/graphql')
    .set('X-API-Key', 'test-admin-key-0123456789abcdef')
    .set('content-type', 'application/json')
    .send({ query: '{ __typename }', operationName: 'X' });
  expect(post.status).toBe(400);
  expect(post.body.errors[0].extensions.code).toBe('OPERATION_RESOLUTION_FAILURE');
  const get = await app.http
    .get('/graphql')
    .query({ query: '{ __typename }', operationName: '\u0000' })
    .set('X-API-Key', 'test-admin-key-0123456789abcdef')
    .set('apollo-require-preflight', 'true');
  expect(get.status).toBe(400);
});

test('a subscription over HTTP is a clear 400 with a stable code (they are served over WebSocket)', async () => {
  const res = await app.gql('subscription { zoneChanged(zone: "x.example") { zone } }');
  expect(res.status).toBe(400);
  expect(errorCode(res)).toBe('OPERATION_NOT_SUPPORTED');
});

/**
 * A nested list is costed by what it can return: `first`, or MAX_PAGE_SIZE items per parent without it, which
 * is then all it returns. Costed at a guess of 10 items while returning every one, `domains(first: 100) { nodes
 * { records { id } } }` read 21,208 records under a cost ceiling of 5,000. Small limits here, so that a zone of
 * a few hundred records holds more than the cost ceiling's worth; the same query text runs twice, the second
 * time compiled by graphql-jit (FAST_PATHS=off: graphql-js both times), and both answers must agree.
 */
describe('nested lists under small limits (MAX_PAGE_SIZE 30, cost ceiling 2,000)', () => {
  const MAX_PAGE = 30;
  const BUDGET = 2000;
  const PER_ZONE = 250 + 4; // the added records and the default SOA, 2 NS and www CNAME
  const ZONES = ['a.nested-limits.test', 'b.nested-limits.test'];
  let small: TestApp;

  beforeAll(async () => {
    small = await startTestApp({ MAX_PAGE_SIZE: String(MAX_PAGE), GRAPHQL_MAX_COMPLEXITY: String(BUDGET) });
    const owner = await createUser(small, 'owner@nested-limits.test');
    const text = Array.from({ length: PER_ZONE - 4 }, (_, i) => `h${i} 3600 IN A 192.0.2.${(i % 250) + 1}`).join('\n');
    for (const zone of ZONES) {
      await createZone(small, owner, zone);
      const imported = await small.gql('mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t, mode: MERGE) { added } }', {
        z: zone,
        t: text,
      });
      expect(imported.errors).toBeUndefined();
    }
  }, 60_000);
  afterAll(async () => small?.close());

  /** the query run twice (graphql-js, then compiled): the two answers are the same, the first is returned */
  async function twice(query: string, variables?: Record<string, unknown>) {
    const first = await small.gql(query, variables);
    const second = await small.gql(query, variables);
    expect({ status: second.status, data: second.data, errors: second.errors }).toEqual({
      status: first.status,
      data: first.data,
      errors: first.errors,
    });
    return first;
  }

  test('every record of 100 zones without `first` costs MAX_PAGE_SIZE per zone, over the ceiling: refused', async () => {
    // the page of zones and, per zone, its `nodes` entry and 30 records; it cost 1 + 100 × (1 + 10) = 1,101, and
    // answered all 508 records
    const res = await twice('{ domains(first: 100) { nodes { records { id } } } }');
    expect(res.status).toBe(400);
    expect(res.data).toBeUndefined();
    expect(res.errors![0].extensions.details[0]).toMatchObject({ code: 'MAX_COMPLEXITY', limit: BUDGET });
    // each zone holds more than MAX_PAGE_SIZE records: costed at MAX_PAGE_SIZE a zone, and the list named
    expect(res.errors![0].message).toBe(
      `Query costs ${1 + 100 * (1 + MAX_PAGE)}; the limit is ${BUDGET} (GRAPHQL_MAX_COMPLEXITY, which the operator raises). Its lists, counted per parent: domains (first: 100), Domain.records (no first: counted as ${MAX_PAGE}); give Domain.records \`first\`, or the others a smaller one (and page with their connections)`,
    );
    expect(res.errors![0].extensions.details[1]).toMatchObject({ code: 'LIST_PAGE', list: 'domains', items: 100 });
    expect(res.errors![0].extensions.details[2]).toMatchObject({ code: 'LIST_WITHOUT_FIRST', list: 'Domain.records', items: MAX_PAGE });
    // a user's zones without `first` cost what the users hold (2 zones here), not MAX_PAGE_SIZE: it runs
    const zones = await twice('{ users(first: 30) { nodes { domains { id } } } }');
    expect(zones.errors).toBeUndefined();
    expect(zones.data.users.nodes.flatMap((u: { domains: unknown[] }) => u.domains)).toHaveLength(2);
  });

  test('a query whose lists have no `first` is refused naming each, what it was counted as, and the setting', async () => {
    // neither `domains` (a page: its default of 100) nor `records` (a nested list: MAX_PAGE_SIZE a zone, and
    // the zones here hold more) has `first`: cost 1 + 100 × (1 + 30), over the ceiling of 2,000
    const res = await twice('{ domains { nodes { name records { id } } } }');
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('QUERY_TOO_COMPLEX');
    expect(res.errors![0].message).toBe(
      `Query costs ${1 + 100 * (2 + MAX_PAGE)}; the limit is ${BUDGET} (GRAPHQL_MAX_COMPLEXITY, which the operator raises). Its lists, counted per parent: domains (no first: counted as 100), Domain.records (no first: counted as ${MAX_PAGE}); give domains, Domain.records \`first\` (and page with their connections)`,
    );
    expect(res.errors![0].extensions.details).toEqual([
      expect.objectContaining({
        code: 'MAX_COMPLEXITY',
        limit: BUDGET,
        message: `cost ${1 + 100 * (2 + MAX_PAGE)} exceeds ${BUDGET} (GRAPHQL_MAX_COMPLEXITY)`,
      }),
      expect.objectContaining({ code: 'LIST_WITHOUT_FIRST', list: 'domains', items: 100 }),
      expect.objectContaining({ code: 'LIST_WITHOUT_FIRST', list: 'Domain.records', items: MAX_PAGE }),
    ]);
    // given `first`, as the message says, the same question runs
    const paged = await twice('{ domains(first: 10) { nodes { name records(first: 10) { id } } } }');
    expect(paged.errors).toBeUndefined();
    expect(paged.data.domains.nodes).toHaveLength(ZONES.length);
  });

  test('a nested list without `first` that fits the ceiling returns at most MAX_PAGE_SIZE items per parent, the first by id', async () => {
    const res = await twice('{ domains(first: 2) { nodes { name records { id owner } } } }');
    expect(res.errors).toBeUndefined();
    const nodes = res.data.domains.nodes as { name: string; records: { id: string; owner: string }[] }[];
    expect(nodes.map((n) => n.name)).toEqual(ZONES);
    for (const zone of nodes) {
      expect(zone.records).toHaveLength(MAX_PAGE);
      const ids = zone.records.map((r) => Number(r.id));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    }
    expect(nodes.flatMap((n) => n.records)).toHaveLength(2 * MAX_PAGE);
    // a variable's default is what it costs and returns (not the argument's own default of 100)
    const byDefault = await twice('query($zones: Int = 2) { domains(first: $zones) { nodes { records { id } } } }');
    expect(byDefault.errors).toBeUndefined();
    expect(byDefault.data.domains.nodes.map((n: { records: unknown[] }) => n.records.length)).toEqual([MAX_PAGE, MAX_PAGE]);
    const users = await twice('{ users(first: 1) { nodes { domains { name } } } }');
    expect(users.data.users.nodes[0].domains.map((d: { name: string }) => d.name)).toEqual(ZONES);
  });

  test('`first` is costed as asked, and over MAX_PAGE_SIZE refused as a top-level page is', async () => {
    const some = await twice('{ domains(first: 2) { nodes { records(first: 7) { id } } } }');
    expect(some.data.domains.nodes.map((n: { records: unknown[] }) => n.records.length)).toEqual([7, 7]);
    const all = await twice(`{ domain(name: "${ZONES[0]}") { records(first: ${MAX_PAGE}) { id } } }`);
    expect(all.data.domain.records).toHaveLength(MAX_PAGE);
    const over = await twice(`{ domain(name: "${ZONES[0]}") { records(first: ${MAX_PAGE + 1}) { id } } }`);
    expect(over.errors![0].extensions.details[0]).toMatchObject({ field: 'first', code: 'PAGE_TOO_LARGE' });
    const userOver = await twice(`{ users(first: 1) { nodes { domains(first: ${MAX_PAGE + 1}) { id } } } }`);
    expect(userOver.errors![0].extensions.details[0].code).toBe('PAGE_TOO_LARGE');
    // the top-level list's own refusal, for comparison
    const top = await twice(`{ records(first: ${MAX_PAGE + 1}) { nodes { id } } }`);
    expect(top.errors![0].extensions.details[0].code).toBe('PAGE_TOO_LARGE');
  });

  test('the connection beside the list shows the truncation and pages through the rest', async () => {
    const query = `query($after: String) { domain(name: "${ZONES[0]}") {
      recordsConnection(first: ${MAX_PAGE}, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { id } } } }`;
    const page = await twice(query);
    expect(page.data.domain.recordsConnection).toMatchObject({ totalCount: PER_ZONE, pageInfo: { hasNextPage: true } });
    const list = await twice(`{ domain(name: "${ZONES[0]}") { records { id } } }`);
    expect(list.data.domain.records).toEqual(page.data.domain.recordsConnection.nodes);
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const res: any = await small.gql(query, { after });
      const connection = res.data.domain.recordsConnection;
      seen.push(...connection.nodes.map((n: { id: string }) => n.id));
      after = connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null;
    } while (after);
    expect(new Set(seen).size).toBe(PER_ZONE);
  });

  test("the REST layer's zone still comes with all its records", async () => {
    const zone = await small.http.get(`/api/domain/list/zone?name=${ZONES[0]}`).set('X-API-Key', ADMIN_KEY);
    expect(zone.status).toBe(200);
    expect(zone.body.records).toHaveLength(PER_ZONE);
    const list = await small.http.get('/api/domain/list').set('X-API-Key', ADMIN_KEY);
    expect(list.body.map((d: { records: unknown[] }) => d.records.length)).toEqual([PER_ZONE, PER_ZONE]);
  });
});
