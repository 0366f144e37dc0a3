/**
 * A zone's traffic through REST (GET /api/domain/queries/{zone}, /api/domain/top-names/{zone}) and the CLI
 * (`zonekeeper zone queries`), answering what GraphQL's Domain.queries and topQueriedNames answer: counts written
 * through the collector's own write (`writeTally`), a covered minute and a gap told apart.
 */
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';
import { buildOnce } from '../support/build';
import { runCli } from '../support/cli';
import { writeTally, type CountRow } from '../../src/repositories/query-analytics';

let app: TestApp;
const zone = 'traffic.example';
const MINUTE = 60_000;
// a minute two minutes back, covered by ns1, with 5 NOERROR answers for www and 3 NXDOMAIN for nope
const minute = Math.floor(Date.now() / MINUTE) * MINUTE - 2 * MINUTE;
const since = new Date(minute - 2 * MINUTE).toISOString();
const until = new Date(minute + MINUTE).toISOString();

beforeAll(async () => {
  app = await startTestApp();
  const zoneId = Number(await createZone(app, await createUser(app, 'traffic@example.org'), zone));
  const row = (owner: string, rcode: number, count: number): CountRow => ({
    zoneId,
    minute,
    owner,
    type: 'A',
    rcode,
    secondary: 'ns1',
    count,
    lastAt: minute + 1000,
  });
  await writeTally(
    app.service.database.db,
    [row('www', 0, 5), row('nope', 3, 3)],
    [{ secondary: 'ns1', minute, firstAt: minute, coveredMs: MINUTE, frames: 8, answers: 8, unmatched: 0, malformed: 0, dropped: 0 }],
    new Date(),
  );
});
afterAll(() => app?.close());

const get = (path: string, query: Record<string, string>) => app.http.get(`/api${path}`).query(query).set('X-API-Key', ADMIN_KEY);

test('REST answers the buckets and the top names as GraphQL does', async () => {
  const res = await get(`/domain/queries/${zone}`, { since, until, step: 'MINUTE', by: 'RCODE' });
  expect(res.status).toBe(200);
  expect(res.body.zone).toBe(zone);
  expect(res.body.step).toBe(60);
  const gql = await app.gql(
    `query($z: String!, $s: DateTimeISO!, $u: DateTimeISO) { domain(name: $z) { queries(since: $s, until: $u, step: MINUTE, by: [RCODE]) {
      since until step buckets { start total coverage missing droppedFrames counts { rcode type owner secondary count } } } } }`,
    { z: zone, s: since, u: until },
  );
  expect(gql.errors).toBeUndefined();
  const { zone: named, ...stats } = res.body;
  expect(named).toBe(zone);
  expect(stats).toEqual(gql.data.domain.queries);
  // the minutes before the one covered are gaps (no secondary yet), never zeros; the covered one counts 8
  const buckets = res.body.buckets as { start: string; total: number | null; counts: { rcode: string; count: number }[] }[];
  expect(buckets.map((b) => b.total)).toEqual([null, null, 8]);
  expect(buckets[2].counts.map((c) => `${c.rcode} ${c.count}`).sort()).toEqual(['NOERROR 5', 'NXDOMAIN 3']);

  const top = await get(`/domain/top-names/${zone}`, { since, rcode: 'NXDOMAIN' });
  expect(top.status).toBe(200);
  expect(top.body).toEqual([{ owner: 'nope', count: 3 }]);
  const all = await get(`/domain/top-names/${zone}`, { since, first: '1' });
  expect(all.body).toEqual([{ owner: 'www', count: 5 }]);
  // a bad input is refused naming its parameter
  const bad = await get(`/domain/queries/${zone}`, { since: 'yesterday' });
  expect(bad.status).toBe(422);
  expect(bad.body.details[0].field).toBe('since');
});

test('the CLI prints a row per bucket, a column per RCODE, a gap as a gap', async () => {
  buildOnce();
  const out = await runCli(app.baseUrl, ['zone', 'queries', zone, '--since', since, '--until', until, '--step', 'minute']);
  expect(out).toMatchObject({ code: 0, err: '' });
  const lines = out.out.trim().split('\n');
  expect(lines[0]).toContain(`zone ${zone}`);
  expect(lines[1].split(/\s+/)).toEqual(['START', 'TOTAL', 'NOERROR', 'NXDOMAIN', 'COVERAGE', 'MISSING']);
  const rows = lines.slice(-3).map((line) => line.trim().split(/\s+/));
  expect(rows.map((r) => r[1])).toEqual(['gap', 'gap', '8']);
  expect(rows[2].slice(1, 5)).toEqual(['8', '5', '3', '100']);
});
