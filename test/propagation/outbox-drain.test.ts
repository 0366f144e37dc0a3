/**
 * The worker's outbox drain under a stream of writes: every commit sends a notification, and the drains that
 * follow start at most once per 20 ms, so one claim statement publishes the journal rows of many commits. A lone
 * change after a quiet spell is still published at once. Claims are counted by the worker's metric
 * (`zonekeeper_propagation_events_total{kind="outbox_claim"}`), publication by the outbox (`change_outbox`) emptying.
 */
import { Client } from 'pg';
import { startTestApp, TestApp } from '../support/test-app';

const ZONE = 'drain.zk-outbox.test';
let app: TestApp;
let db: Client;

beforeAll(async () => {
  app = await startTestApp({ ROLES: 'api,worker' });
  db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
  const user = await app.gql(`mutation { createUser(input: {email: "outbox@example.com"}) { id } }`);
  const zone = await app.gql(`mutation($u: ID!) { createDomain(input: {userId: $u, zone: "${ZONE}"}) { id } }`, { u: user.data.createUser.id });
  expect(zone.errors).toBeUndefined();
}, 60_000);

afterAll(async () => {
  await db?.end();
  await app?.close();
});

const addRecord = async (owner: string) => {
  const res = await app.gql(`mutation($r: RecordInput!) { createRecord(input: $r) { id } }`, { r: { zone: ZONE, owner, type: 'A', rdata: '192.0.2.1', ttl: 300 } });
  expect(res.errors).toBeUndefined();
};

/** the worker's claims that published rows, so far (GET /metrics) */
async function claimsSoFar(): Promise<number> {
  const res = await app.http.get('/metrics');
  expect(res.status).toBe(200);
  const line = res.text.split('\n').find((l) => l.startsWith('zonekeeper_propagation_events_total{kind="outbox_claim"}'));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** waits until the outbox holds none of the zone's journal rows after `since`; returns them */
async function allPublished(since: number, count: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await db.query(
      `select c.id, c.created_at, (o.change_id is null) as published from changes c left join change_outbox o on o.change_id = c.id where c.zone = $1 and c.id > $2 order by c.id`,
      [ZONE, since]);
    if (rows.length === count && rows.every((row) => row.published)) return rows;
    if (Date.now() > deadline) throw new Error(`journal rows not published within 10 s: ${JSON.stringify(rows)}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const lastJournalId = async () => Number((await db.query(`select coalesce(max(id), 0) as id from changes`)).rows[0].id);

test('a stream of writes is published by a few claims, not one per commit', async () => {
  const since = await lastJournalId();
  const claimsBefore = await claimsSoFar();
  const started = Date.now();
  for (let i = 0; i < 60; i++) await addRecord(`stream${i}`);
  const elapsed = Date.now() - started;
  await allPublished(since, 60);
  const claims = (await claimsSoFar()) - claimsBefore;
  // at most one drain per 20 ms (plus the first and the last); one per commit before
  expect(claims).toBeGreaterThan(0);
  expect(claims).toBeLessThanOrEqual(Math.ceil(elapsed / 20) + 2);
  expect(claims).toBeLessThan(60);
}, 60_000);

test('a lone change after a quiet spell is published at once', async () => {
  await new Promise((resolve) => setTimeout(resolve, 100));
  const since = await lastJournalId();
  const written = Date.now();
  await addRecord('lone');
  await allPublished(since, 1);
  expect(Date.now() - written).toBeLessThan(250);
}, 30_000);
