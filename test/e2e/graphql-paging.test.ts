/**
 * Every connection pages both ways (Relay's cursor connections: docs/graphql.md, «Pages»): `first`/`after`
 * forward and `last`/`before` backward walk the same nodes in the same order, each page's `pageInfo` (both
 * cursors, both flags) is what the list holds around it, and a window between two cursors holds what lies
 * between. A cursor is bound to its list, order and arguments: another's is refused naming the argument,
 * a zone's id is still taken as `after` (what cursors were), and a backward page is read by keyset, never by
 * OFFSET. Runs with FAST_PATHS on and off (.ci/run).
 */
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, CREATE_RECORD, errorCode } from '../support/fixtures';

let app: TestApp;
let userId: string;
const ZONE = 'paged.example';
const SIGNED = 'signed.paged.example';
const statements: string[] = [];

beforeAll(async () => {
  app = await startTestApp({ ALLOWED_TTLS: 'any' });
  app.service.database.db.observeStatements((text) => statements.push(text));
  userId = await createUser(app, 'pages@example.org');
  for (let u = 0; u < 6; u++) await createUser(app, `other${u}@example.org`);
  // zones whose name order is not their creation order, in one call
  const names = Array.from({ length: 23 }, (_, i) => `z${String((i * 7) % 23).padStart(2, '0')}.paged.test`);
  const made = await app.gql(`mutation($input: [CreateDomainInput!]!) { createDomains(input: $input) { id } }`, {
    input: [ZONE, SIGNED, ...names].map((zone) => ({ userId, zone })),
  });
  if (made.errors) throw new Error(JSON.stringify(made.errors));
  // records one by one: each is a change of the zone's history too
  for (let i = 0; i < 17; i++) {
    const res = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: `host${i}`, type: 'A', rdata: `192.0.2.${i + 1}`, ttl: 300 } });
    if (res.errors) throw new Error(JSON.stringify(res.errors));
  }
  // the audit log's events: each key made is one
  for (let k = 0; k < 9; k++) {
    const res = await app.gql(`mutation($u: ID!, $n: String!) { createApiKey(input: {userId: $u, name: $n}) { secret } }`, {
      u: userId,
      n: `key${k}`,
    });
    if (res.errors) throw new Error(JSON.stringify(res.errors));
  }
  const signed = await app.gql(`mutation($z: String!) { enableDnssec(input: { zone: $z }) { state } }`, { z: SIGNED });
  if (signed.errors) throw new Error(JSON.stringify(signed.errors));
  // a roll of its ZSK: a new key's steps, more events to page through
  const rolled = await app.gql(`mutation($z: String!) { rollDnssecKey(zone: $z, role: ZSK) { state } }`, { z: SIGNED });
  if (rolled.errors) throw new Error(JSON.stringify(rolled.errors));
}, 120_000);
afterAll(async () => app?.close());

const PAGE_FIELDS = `totalCount nodes { id } edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }`;

interface Page {
  totalCount: number;
  nodes: { id: string }[];
  edges: { cursor: string; node: { id: string } }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

/** a connection as a test meets it: a query of it with some page arguments, and where its page is in the answer */
interface Listed {
  name: string;
  query: (args: string) => string;
  page: (data: any) => Page;
}

const CONNECTIONS: Listed[] = [
  { name: 'Query.domains', query: (a) => `{ domains(userId: $user ${a}) { ${PAGE_FIELDS} } }`, page: (d) => d.domains },
  {
    name: 'Query.domains (NAME_DESC)',
    query: (a) => `{ domains(userId: $user, orderBy: NAME_DESC ${a}) { ${PAGE_FIELDS} } }`,
    page: (d) => d.domains,
  },
  {
    name: 'Query.domains (RECORDS_DESC)',
    query: (a) => `{ domains(userId: $user, orderBy: RECORDS_DESC ${a}) { ${PAGE_FIELDS} } }`,
    page: (d) => d.domains,
  },
  { name: 'Query.records', query: (a) => `{ records(zone: "${ZONE}" ${a}) { ${PAGE_FIELDS} } }`, page: (d) => d.records },
  { name: 'Query.searchRecords', query: (a) => `{ searchRecords(query: "paged" ${a}) { ${PAGE_FIELDS} } }`, page: (d) => d.searchRecords },
  { name: 'Query.users', query: (a) => `{ users(${a}) { ${PAGE_FIELDS} } }`, page: (d) => d.users },
  { name: 'Query.auditEvents', query: (a) => `{ auditEvents(${a}) { ${PAGE_FIELDS} } }`, page: (d) => d.auditEvents },
  {
    name: 'User.domainsConnection',
    query: (a) => `{ user(id: $user) { domainsConnection(${a}) { ${PAGE_FIELDS} } } }`,
    page: (d) => d.user.domainsConnection,
  },
  {
    name: 'Domain.recordsConnection',
    query: (a) => `{ domain(name: "${ZONE}") { recordsConnection(${a}) { ${PAGE_FIELDS} } } }`,
    page: (d) => d.domain.recordsConnection,
  },
  {
    name: 'Domain.changes',
    query: (a) => `{ domain(name: "${ZONE}") { changes(${a}) { ${PAGE_FIELDS} } } }`,
    page: (d) => d.domain.changes,
  },
  {
    name: 'Domain.dnssecEvents',
    query: (a) => `{ domain(name: "${SIGNED}") { dnssecEvents(${a}) { ${PAGE_FIELDS} } } }`,
    page: (d) => d.domain.dnssecEvents,
  },
];

/** the query with its page arguments as variables (`$user` always: the lists of the test's user) */
async function ask(listed: Listed, args: Record<string, unknown>) {
  const names = Object.keys(args);
  const text = listed.query(names.map((n) => `, ${n}: $${n}`).join(' ')).replace(/\(\s*,/, '(');
  const used = text.includes('$user') ? ['user', ...names] : names;
  const types: Record<string, string> = { user: 'ID!', first: 'Int', last: 'Int', after: 'String', before: 'String' };
  const head = used.length ? `query(${used.map((n) => `$${n}: ${types[n]}`).join(', ')})` : 'query';
  return app.gql(`${head} ${text.replace(/\(\)/, '')}`, { ...(text.includes('$user') ? { user: userId } : {}), ...args });
}

async function pageOf(listed: Listed, args: Record<string, unknown>): Promise<Page> {
  const res = await ask(listed, args);
  if (res.errors) throw new Error(`${listed.name} ${JSON.stringify(args)}: ${JSON.stringify(res.errors)}`);
  const page = listed.page(res.data);
  // the Relay shape: the same nodes as `nodes`, the page's cursors its first and last edge's
  expect(page.edges.map((e) => e.node)).toEqual(page.nodes);
  expect(page.pageInfo.startCursor).toBe(page.edges[0]?.cursor ?? null);
  expect(page.pageInfo.endCursor).toBe(page.edges[page.edges.length - 1]?.cursor ?? null);
  return page;
}

const ids = (page: Page) => page.nodes.map((n) => n.id);

describe.each(CONNECTIONS.map((listed) => [listed.name, listed] as const))('%s', (_name, listed) => {
  let all: string[];
  let size: number;
  beforeAll(async () => {
    const whole = await pageOf(listed, { first: 1000 });
    all = ids(whole);
    expect(whole.totalCount).toBe(all.length);
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(new Set(all).size).toBe(all.length);
    // three pages at least, the last one short
    size = Math.max(1, Math.floor((all.length - 1) / 3));
  });

  test('forward with first/after and backward with last/before walk the same nodes, each page told what lies around it', async () => {
    const forward: string[] = [];
    let page = await pageOf(listed, { first: size });
    for (;;) {
      expect(page.pageInfo.hasPreviousPage).toBe(forward.length > 0);
      forward.push(...ids(page));
      expect(page.pageInfo.hasNextPage).toBe(forward.length < all.length);
      if (!page.pageInfo.hasNextPage) break;
      page = await pageOf(listed, { first: size, after: page.pageInfo.endCursor });
    }
    expect(forward).toEqual(all);

    const backward: string[] = [];
    page = await pageOf(listed, { last: size });
    for (;;) {
      expect(page.pageInfo.hasNextPage).toBe(backward.length > 0);
      backward.unshift(...ids(page));
      expect(page.pageInfo.hasPreviousPage).toBe(backward.length < all.length);
      if (!page.pageInfo.hasPreviousPage) break;
      page = await pageOf(listed, { last: size, before: page.pageInfo.startCursor });
    }
    expect(backward).toEqual(all);
  });

  test('a window between two cursors holds what lies between them, from either end', async () => {
    const edges = (await pageOf(listed, { first: 1000 })).edges;
    const [from, to] = [0, all.length - 1];
    const between = all.slice(from + 1, to);
    const head = await pageOf(listed, { after: edges[from].cursor, before: edges[to].cursor, first: 1000 });
    expect(ids(head)).toEqual(between);
    expect(head.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
    const tail = await pageOf(listed, { after: edges[from].cursor, before: edges[to].cursor, last: 2 });
    expect(ids(tail)).toEqual(between.slice(-2));
    expect(tail.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
    // past the end either way: empty, and what lies the other way still told
    const past = await pageOf(listed, { first: 5, after: edges[edges.length - 1].cursor });
    expect(past.nodes).toEqual([]);
    expect(past.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true, startCursor: null, endCursor: null });
    const before = await pageOf(listed, { last: 5, before: edges[0].cursor });
    expect(before.nodes).toEqual([]);
    expect(before.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false, startCursor: null, endCursor: null });
  });

  test('an id, as cursors were, is still taken as `after`; not as `before`; first and last together are refused', async () => {
    const byCursor = await pageOf(listed, { first: 2, after: (await pageOf(listed, { first: 1 })).pageInfo.endCursor });
    const byId = await pageOf(listed, { first: 2, after: all[0] });
    expect(ids(byId)).toEqual(ids(byCursor));
    const before = await ask(listed, { last: 2, before: all[2] });
    expect(errorCode(before)).toBe('INVALID_INPUT');
    expect(before.errors![0].extensions.details[0]).toMatchObject({ field: 'before', code: 'INVALID_CURSOR' });
    const both = await ask(listed, { first: 2, last: 2 });
    expect(both.errors![0].extensions.details[0]).toMatchObject({ field: 'last', code: 'FIRST_AND_LAST' });
  });
});

test('a cursor of another list, order or set of arguments is refused, naming the argument', async () => {
  const cursorOf = async (listed: Listed) => (await pageOf(listed, { first: 1 })).pageInfo.endCursor!;
  const [zones, byName, records, nested] = [CONNECTIONS[0], CONNECTIONS[1], CONNECTIONS[3], CONNECTIONS[8]];
  const refusal = async (listed: Listed, args: Record<string, unknown>) => {
    const res = await ask(listed, args);
    expect(errorCode(res)).toBe('INVALID_INPUT');
    return res.errors![0].extensions.details[0];
  };
  expect(await refusal(zones, { first: 2, after: await cursorOf(records) })).toMatchObject({
    field: 'after',
    code: 'CURSOR_LIST_MISMATCH',
  });
  expect(await refusal(records, { last: 2, before: await cursorOf(nested) })).toMatchObject({
    field: 'before',
    code: 'CURSOR_LIST_MISMATCH',
  });
  const order = await refusal(zones, { first: 2, after: await cursorOf(byName) });
  expect(order).toMatchObject({ field: 'after', code: 'CURSOR_ORDER_MISMATCH' });
  expect(order.message).toContain('NAME_DESC');
  // the same list under another filter: its cursors are no place in this one
  const mxOnly: Listed = { ...records, query: (a) => `{ records(zone: "${ZONE}", type: "MX" ${a}) { ${PAGE_FIELDS} } }` };
  expect(await refusal(mxOnly, { first: 2, after: await cursorOf(records) })).toMatchObject({
    field: 'after',
    code: 'CURSOR_FILTER_MISMATCH',
  });
  // another parent's nested list: another zone's records
  const otherZone: Listed = {
    ...nested,
    query: (a) => `{ domain(name: "${SIGNED}") { recordsConnection(${a}) { ${PAGE_FIELDS} } } }`,
    page: (d) => d.domain.recordsConnection,
  };
  expect(await refusal(otherZone, { first: 2, after: await cursorOf(nested) })).toMatchObject({
    field: 'after',
    code: 'CURSOR_FILTER_MISMATCH',
  });
  expect(await refusal(zones, { first: 2, after: 'bm90LWEtY3Vyc29y' })).toMatchObject({ field: 'after', code: 'INVALID_CURSOR' });
});

test('a page from the end is read by keyset, backwards on the index, never by OFFSET', async () => {
  const last = await pageOf(CONNECTIONS[3], { last: 3 });
  statements.length = 0;
  const previous = await pageOf(CONNECTIONS[3], { last: 3, before: last.pageInfo.startCursor });
  expect(previous.nodes).toHaveLength(3);
  const reads = statements.filter((text) => /\bfrom records r\b/.test(text));
  for (const text of reads) expect(text).not.toMatch(/\boffset\b/i);
  // the page itself: the index read backwards from its cursor, as far as the page and one more
  expect(reads.some((text) => /r\.id < \$\d+ order by r\.id desc limit \$\d+/.test(text))).toBe(true);
});
