/**
 * An account's totals (User.queries, GET /api/user/queries/{id}): the answers of all the zones a user owns summed
 * in each bucket, split by zone, with the coverage a zone's read has; OWNER refused (an account's owners are
 * unbounded); another user, and a key restricted to part of the account, refused. Counts written through the
 * collector's own write (`writeTally`).
 */
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, createUserKey, createZone, errorCode } from '../support/fixtures';
import { writeTally, type CountRow } from '../../src/repositories/query-analytics';

let app: TestApp;
let alice: string;
let bob: string;
const MINUTE = 60_000;
// a minute two minutes back, covered by ns1; the minute before it no secondary covered (a gap)
const minute = Math.floor(Date.now() / MINUTE) * MINUTE - 2 * MINUTE;
const since = new Date(minute - MINUTE).toISOString();
const until = new Date(minute + MINUTE).toISOString();

const STATS = `since until step buckets { start total coverage missing droppedFrames counts { rcode type owner secondary zone count } }`;
const USER_QUERIES = `query($id: ID!, $s: DateTimeISO!, $u: DateTimeISO, $by: [AccountQueryDimension!]!) {
  user(id: $id) { queries(since: $s, until: $u, step: MINUTE, by: $by) { ${STATS} } } }`;

beforeAll(async () => {
  app = await startTestApp();
  alice = await createUser(app, 'alice-traffic@example.org');
  bob = await createUser(app, 'bob-traffic@example.org');
  const zones = {
    a: Number(await createZone(app, alice, 'alice-one.example')),
    b: Number(await createZone(app, alice, 'alice-two.example')),
    c: Number(await createZone(app, bob, 'bob.example')),
  };
  const row = (zoneId: number, owner: string, type: string, rcode: number, count: number): CountRow => ({
    zoneId,
    minute,
    owner,
    type,
    rcode,
    secondary: 'ns1',
    count,
    lastAt: minute + 1000,
  });
  await writeTally(
    app.service.database.db,
    [
      row(zones.a, 'www', 'A', 0, 5),
      row(zones.a, 'nope', 'A', 3, 2),
      row(zones.b, '@', 'MX', 0, 7),
      row(zones.b, 'www', 'AAAA', 0, 1),
      row(zones.c, 'www', 'A', 0, 100),
    ],
    [{ secondary: 'ns1', minute, firstAt: minute, coveredMs: MINUTE, frames: 115, answers: 115, unmatched: 0, malformed: 0, dropped: 0 }],
    new Date(),
  );
});
afterAll(() => app?.close());

const counts = (bucket: { counts: { rcode: string | null; zone: string | null; count: number }[] }) =>
  bucket.counts.map((c) => [c.zone ?? c.rcode, c.count].join(' ')).sort();

test("an account's totals sum its zones, not another user's; split by zone; a gap is a gap", async () => {
  const res = await app.gql(USER_QUERIES, { id: alice, s: since, u: until, by: ['RCODE'] });
  expect(res.errors).toBeUndefined();
  const stats = res.data.user.queries;
  expect(stats.step).toBe(60);
  // the minute before ns1's first is no secondary's: unknown, not zero
  expect(stats.buckets.map((b: { total: number | null }) => b.total)).toEqual([null, 15]);
  expect(stats.buckets[1]).toMatchObject({ coverage: 1, missing: [], droppedFrames: 0 });
  expect(counts(stats.buckets[1])).toEqual(['NOERROR 13', 'NXDOMAIN 2']);

  const split = await app.gql(USER_QUERIES, { id: alice, s: since, u: until, by: ['ZONE', 'RCODE'] });
  expect(split.errors).toBeUndefined();
  const rows = split.data.user.queries.buckets[1].counts.map(
    (c: { zone: string; rcode: string; count: number }) => `${c.zone} ${c.rcode} ${c.count}`,
  );
  expect(rows.sort()).toEqual(['alice-one.example NOERROR 5', 'alice-one.example NXDOMAIN 2', 'alice-two.example NOERROR 8']);

  // the same answer, for every user of a page, as the zone reads have it (one statement per level)
  const both = await app.gql(
    `query($s: DateTimeISO!, $u: DateTimeISO) { users(first: 10) { nodes { email queries(since: $s, until: $u, step: MINUTE) { buckets { total } } } } }`,
    { s: since, u: until },
  );
  expect(both.errors).toBeUndefined();
  const totals = Object.fromEntries(
    both.data.users.nodes.map((n: { email: string; queries: { buckets: { total: number | null }[] } }) => [
      n.email,
      n.queries.buckets[1].total,
    ]),
  );
  expect(totals).toMatchObject({ 'alice-traffic@example.org': 15, 'bob-traffic@example.org': 100 });

  // REST answers what GraphQL does
  const rest = await app.http
    .get(`/api/user/queries/${alice}`)
    .query({ since, until, step: 'MINUTE', by: 'ZONE,RCODE' })
    .set('X-API-Key', ADMIN_KEY);
  expect(rest.status).toBe(200);
  const { user, ...restStats } = rest.body;
  expect(user).toBe(Number(alice));
  expect(restStats.buckets.map((b: { total: number | null }) => b.total)).toEqual([null, 15]);
  expect(counts(restStats.buckets[1])).toEqual(counts(split.data.user.queries.buckets[1]));
});

test('OWNER across an account is refused, naming `by`', async () => {
  const res = await app.gql(USER_QUERIES, { id: alice, s: since, by: ['OWNER'] });
  // the schema's own enum has no OWNER: refused before anything is read
  expect(res.errors?.[0].message).toMatch(/AccountQueryDimension/);
  const rest = await app.http.get(`/api/user/queries/${alice}`).query({ since, by: 'RCODE,OWNER' }).set('X-API-Key', ADMIN_KEY);
  expect(rest.status).toBe(422);
  expect(rest.body.details[0].field).toBe('by');
  expect(rest.body.details[0].message).toMatch(/OWNER/);
});

test("a user reads its own totals, never another user's; a key restricted to part of the account is refused", async () => {
  const aliceKey = await createUserKey(app, alice);
  const own = await app.gql(USER_QUERIES, { id: alice, s: since, u: until, by: ['RCODE'] }, aliceKey);
  expect(own.errors).toBeUndefined();
  expect(own.data.user.queries.buckets[1].total).toBe(15);

  const other = await app.gql(USER_QUERIES, { id: bob, s: since, u: until, by: ['RCODE'] }, aliceKey);
  expect(errorCode(other)).toBe('USER_NOT_FOUND');
  const otherRest = await app.http.get(`/api/user/queries/${bob}`).query({ since }).set('X-API-Key', aliceKey);
  expect(otherRest.status).toBe(404);

  // a key that reads one of alice's zones whole, not the other: an account's totals name both zones' traffic
  const scoped = await app.gql(`mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }`, {
    input: { userId: alice, name: 'one-zone', policy: { rules: [{ zone: 'alice-one.example', access: 'READ' }] } },
  });
  expect(scoped.errors).toBeUndefined();
  const refused = await app.gql(USER_QUERIES, { id: alice, s: since, u: until, by: ['RCODE'] }, scoped.data.createApiKey.secret);
  expect(errorCode(refused)).toBe('FORBIDDEN_BY_POLICY');
  expect(refused.errors?.[0].message).toMatch(/alice-two\.example/);
});
