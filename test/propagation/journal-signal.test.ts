/**
 * Who wakes the journal's readers (src/db/journal-signal.ts): the process that committed journal rows, after
 * its commit, with at most one NOTIFY per 10 ms. Every way of writing the journal must wake the worker well
 * before its one-second poll would find the rows (checked in the journal itself: `published_at` against
 * `created_at`), and a stream of concurrent writes must send a few notifications, not one per commit (the
 * trigger it replaces serialised every commit on PostgreSQL's notify lock).
 */
import { Client } from 'pg';
import { createUser, createZone } from '../support/fixtures';
import { startTestApp, TestApp } from '../support/test-app';

const ZONE = 'signal.zk-journal.test';
/** a row published later than this after its commit was found by the poll, not woken by a signal */
const WOKEN_WITHIN_MS = 500;
let app: TestApp;
let db: Client;
let userId: string;

beforeAll(async () => {
  app = await startTestApp({ ROLES: 'api,worker' });
  db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
  userId = await createUser(app, 'signal@example.com');
  await createZone(app, userId, ZONE);
}, 60_000);

afterAll(async () => {
  await db?.end();
  await app?.close();
});

const lastJournalId = async () => Number((await db.query(`select coalesce(max(id), 0) as id from changes`)).rows[0].id);
const quiet = () => new Promise((resolve) => setTimeout(resolve, 100));

async function ok(query: string, variables?: Record<string, unknown>) {
  const res = await app.gql(query, variables);
  expect(res.errors).toBeUndefined();
  return res.data;
}

/** waits until the journal rows after `since` (at least `atLeast` of them) are all published; answers them */
async function published(since: number, atLeast: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await db.query(`select id, zone, kind, created_at, published_at from changes where id > $1 order by id`, [since]);
    if (rows.length >= atLeast && rows.every((row) => row.published_at)) return rows;
    if (Date.now() > deadline) throw new Error(`journal rows not published within 10 s: ${JSON.stringify(rows)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** every row was published soon after its commit (created_at is its transaction's start, a little earlier) */
function expectWoken(rows: { kind: string; zone: string; created_at: Date; published_at: Date }[]) {
  for (const row of rows) {
    const delay = row.published_at.getTime() - row.created_at.getTime();
    if (delay >= WOKEN_WITHIN_MS) throw new Error(`${row.kind} of ${row.zone} published ${delay} ms after it was written`);
  }
}

test('a record written through the API (one autocommit statement) wakes the worker', async () => {
  await quiet();
  const since = await lastJournalId();
  await ok(`mutation { createRecord(input: {zone: "${ZONE}", owner: "one", type: "A", rdata: "192.0.2.1", ttl: 300}) { id } }`);
  expectWoken(await published(since, 1));
}, 30_000);

test('a change set and a zone-file import (transactions with the zone locked) wake the worker', async () => {
  await quiet();
  let since = await lastJournalId();
  await ok(`mutation { applyZoneChanges(zone: "${ZONE}", changes: [{kind: ADD, owner: "set", type: "A", rdata: "192.0.2.2", ttl: 300}, {kind: ADD, owner: "set", type: "A", rdata: "192.0.2.3", ttl: 300}]) { serial } }`);
  expectWoken(await published(since, 1));

  await quiet();
  since = await lastJournalId();
  const text = (await ok(`{ exportZone(zone: "${ZONE}") }`)).exportZone as string;
  await ok(`mutation($t: String!) { importZone(zone: "${ZONE}", text: $t, mode: MERGE) { serial } }`, { t: `${text}imported 300 IN A 192.0.2.9\n` });
  expectWoken(await published(since, 1));
}, 30_000);

test('a zone created through the API is published with its catalog admission', async () => {
  await quiet();
  const since = await lastJournalId();
  await createZone(app, userId, 'created.zk-journal.test');
  const rows = await published(since, 2);
  expect(rows.map((row) => row.kind)).toEqual(['zone-created', 'zone-changed']);
  expectWoken(rows);
}, 30_000);

test('zone and user deletes (ORM transactions) wake the worker when they commit', async () => {
  await createZone(app, userId, 'deleted.zk-journal.test');
  const other = await createUser(app, 'signal-deleted@example.com');
  await createZone(app, other, 'owned.zk-journal.test');
  await published(0, 0);
  await quiet();

  let since = await lastJournalId();
  await ok(`mutation { deleteDomain(zone: "deleted.zk-journal.test") }`);
  let rows = await published(since, 2);
  expect(rows.map((row) => row.kind).sort()).toEqual(['zone-changed', 'zone-deleted']);
  expectWoken(rows);

  await quiet();
  since = await lastJournalId();
  await ok(`mutation($u: ID!) { deleteUser(id: $u) }`, { u: other });
  rows = await published(since, 2);
  expect(rows.map((row) => row.kind).sort()).toEqual(['zone-changed', 'zone-deleted']);
  expectWoken(rows);
}, 30_000);

test("the worker's own catalog admission (a transaction of the process's Database) wakes its drain", async () => {
  await quiet();
  const since = await lastJournalId();
  // a zone whose create committed but whose admission never ran (its process stopped in between)
  await db.query(`insert into domains (user_id, name, serial) values ($1, 'stranded.zk-journal.test', 1)`, [userId]);
  const rows = await published(since, 1);
  expect(rows).toEqual([expect.objectContaining({ kind: 'zone-changed', zone: app.settings.catalogZone })]);
  expectWoken(rows);
}, 30_000);

test('concurrent writes send a few notifications, not one per commit', async () => {
  const listener = new Client({ connectionString: app.settings.databaseUrl! });
  await listener.connect();
  let notifications = 0;
  listener.on('notification', (message) => {
    if (message.channel === 'zonekeeper_changes') notifications += 1;
  });
  await listener.query('listen zonekeeper_changes');
  try {
    await quiet();
    const since = await lastJournalId();
    const WRITES = 160;
    let next = 0;
    const started = Date.now();
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < WRITES) {
        const i = next++;
        await ok(`mutation { createRecord(input: {zone: "${ZONE}", owner: "burst${i}", type: "A", rdata: "192.0.2.1", ttl: 300}) { id } }`);
      }
    }));
    const elapsed = Date.now() - started;
    const rows = await published(since, WRITES);
    expect(rows).toHaveLength(WRITES);
    expectWoken(rows);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(notifications).toBeGreaterThan(0);
    // at most one per 10 ms (and the first); one per commit with the trigger
    expect(notifications).toBeLessThanOrEqual(Math.ceil(elapsed / 10) + 2);
    expect(notifications).toBeLessThan(WRITES / 2);
  } finally {
    await listener.end();
  }
}, 60_000);
