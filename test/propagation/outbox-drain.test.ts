/**
 * The worker's outbox drain under a stream of writes: the writers' notifications (at most one per 10 ms per
 * process, db/journal-signal.ts) wake drains that start at most once per 20 ms, so one claim statement
 * publishes the journal rows of many commits. A lone change is still published by a drain its own
 * notification wakes (zonekeeper_outbox_drains_total by woken_by), not left to the worker's one-second poll.
 * Claims are observed in the journal itself: `published_at` is the claiming statement's `now()`, so the
 * distinct values count the claims that published the rows. (How often a paced run may start is
 * test/unit/journal-signal.test.ts's subject, on a fake clock.)
 */
import { Client } from 'pg';
import { outboxDrains } from '../../src/metrics';
import { createUser, createZone } from '../support/fixtures';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor, waitUntil } from '../support/wait-for';

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
  const res = await app.gql(`mutation($r: RecordInput!) { createRecord(input: $r) { id } }`, {
    r: { zone: ZONE, owner, type: 'A', rdata: '192.0.2.1', ttl: 300 },
  });
  expect(res.errors).toBeUndefined();
};

async function journalSince(id: number): Promise<{ id: number; createdAt: Date; publishedAt: Date | null }[]> {
  const { rows } = await db.query(`select id, created_at, published_at from changes where zone = $1 and id > $2 order by id`, [ZONE, id]);
  return rows.map((row) => ({ id: Number(row.id), createdAt: row.created_at, publishedAt: row.published_at }));
}

function allPublished(since: number, count: number) {
  return waitFor(
    `${count} journal rows after ${since} published`,
    async () => {
      const rows = await journalSince(since);
      return rows.length === count && rows.every((row) => row.publishedAt) ? rows : undefined;
    },
    10_000,
    20,
  );
}

const lastJournalId = async () => Number((await db.query(`select coalesce(max(id), 0) as id from changes`)).rows[0].id);

const drainsWokenByNotification = async () =>
  (await outboxDrains.get()).values.find((value) => value.labels.woken_by === 'notification')?.value ?? 0;

test('a stream of writes is published by fewer claims than commits', async () => {
  const since = await lastJournalId();
  // eight writers at once: commits land while a drain runs or waits for its interval, however fast the machine
  const WRITES = 60;
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < WRITES) await addRecord(`stream${next++}`);
    }),
  );
  const rows = await allPublished(since, WRITES);
  const claims = new Set(rows.map((row) => row.publishedAt!.getTime())).size;
  // one claim per commit before the drains were paced
  expect(claims).toBeLessThan(WRITES);
}, 60_000);

test("a lone change is published by a drain its commit's notification wakes", async () => {
  const since = await lastJournalId();
  const drains = await drainsWokenByNotification();
  await addRecord('lone');
  await allPublished(since, 1);
  await waitUntil('an outbox drain woken by a notification', async () => (await drainsWokenByNotification()) > drains);
}, 30_000);
