/**
 * The worker's outbox drain under a stream of writes: the writers' notifications (at most one per 10 ms per
 * process, db/journal-signal.ts) wake drains that start at most once per 20 ms, so one claim statement
 * publishes the journal rows of many commits. A lone
 * change after a quiet spell is still published at once. Observed in the journal itself: `published_at` is the
 * claiming statement's `now()`, so the distinct values count the claims that published the rows.
 */
import { Client } from 'pg';
import { createUser, createZone } from '../support/fixtures';
import { startTestApp, TestApp } from '../support/test-app';

const ZONE = 'drain.zk-outbox.test';
let app: TestApp;
let db: Client;

beforeAll(async () => {
  app = await startTestApp({ ROLES: 'api,worker' });
  db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
  await createZone(app, await createUser(app, 'outbox@example.com'), ZONE);
}, 60_000);

afterAll(async () => {
  await db?.end();
  await app?.close();
});

const addRecord = async (owner: string) => {
  const res = await app.gql(`mutation($r: RecordInput!) { createRecord(input: $r) { id } }`, { r: { zone: ZONE, owner, type: 'A', rdata: '192.0.2.1', ttl: 300 } });
  expect(res.errors).toBeUndefined();
};

async function journalSince(id: number): Promise<{ id: number; createdAt: Date; publishedAt: Date | null }[]> {
  const { rows } = await db.query(`select id, created_at, published_at from changes where zone = $1 and id > $2 order by id`, [ZONE, id]);
  return rows.map((row) => ({ id: Number(row.id), createdAt: row.created_at, publishedAt: row.published_at }));
}

async function allPublished(since: number, count: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rows = await journalSince(since);
    if (rows.length === count && rows.every((row) => row.publishedAt)) return rows;
    if (Date.now() > deadline) throw new Error(`journal rows not published within 10 s: ${JSON.stringify(rows)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const lastJournalId = async () => Number((await db.query(`select coalesce(max(id), 0) as id from changes`)).rows[0].id);

test('a stream of writes is published by a few claims, not one per commit', async () => {
  const since = await lastJournalId();
  const started = Date.now();
  for (let i = 0; i < 60; i++) await addRecord(`stream${i}`);
  const elapsed = Date.now() - started;
  const rows = await allPublished(since, 60);
  const claims = new Set(rows.map((row) => row.publishedAt!.getTime())).size;
  // at most one drain per 20 ms (plus the first and the last); one per commit before
  expect(claims).toBeLessThanOrEqual(Math.ceil(elapsed / 20) + 2);
  expect(claims).toBeLessThan(60);
}, 60_000);

test('a lone change after a quiet spell is published at once', async () => {
  await new Promise((resolve) => setTimeout(resolve, 100));
  const since = await lastJournalId();
  await addRecord('lone');
  const [row] = await allPublished(since, 1);
  // woken by the commit's notification, not by the worker's one-second poll (generous for a loaded machine)
  expect(row.publishedAt!.getTime() - row.createdAt.getTime()).toBeLessThan(500);
}, 30_000);
