/**
 * Who wakes the journal's readers (src/db/journal-signal.ts): the process that committed journal rows, after
 * its commit, with at most one NOTIFY per 10 ms. Every way of writing the journal must send that notification
 * (seen here on a LISTEN connection of the test's own) and the worker's drain must be woken by it, not only
 * found by its one-second poll (zonekeeper_outbox_drains_total by woken_by, which the worker counts); and a
 * stream of concurrent writes must send fewer notifications than commits (the trigger it replaces notified
 * once per commit and serialised every commit on PostgreSQL's notify lock). The pacing itself, one
 * notification per interval, is test/unit/journal-signal.test.ts's.
 */
import { Client } from 'pg';
import { outboxDrains } from '../../src/metrics';
import { createUser, createZone } from '../support/fixtures';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor, waitUntil } from '../support/wait-for';

const ZONE = 'signal.zk-journal.test';
let app: TestApp;
let db: Client;
let listener: Client;
/** notifications on the readers' channel seen by the test's own LISTEN connection */
let notifications = 0;
let userId: string;

beforeAll(async () => {
  app = await startTestApp({ ROLES: 'api,worker' });
  db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
  listener = new Client({ connectionString: app.settings.databaseUrl! });
  await listener.connect();
  listener.on('notification', (message) => {
    if (message.channel === 'zonekeeper_changes') notifications += 1;
  });
  await listener.query('listen zonekeeper_changes');
  userId = await createUser(app, 'signal@example.com');
  await createZone(app, userId, ZONE);
}, 60_000);

afterAll(async () => {
  await listener?.end();
  await db?.end();
  await app?.close();
});

const lastJournalId = async () => Number((await db.query(`select coalesce(max(id), 0) as id from changes`)).rows[0].id);
const drainsWokenByNotification = async () =>
  (await outboxDrains.get()).values.find((value) => value.labels.woken_by === 'notification')?.value ?? 0;

async function ok(query: string, variables?: Record<string, unknown>) {
  const res = await app.gql(query, variables);
  expect(res.errors).toBeUndefined();
  return res.data;
}

/** waits until the journal rows after `since` (at least `atLeast` of them) are all published; answers them */
function published(since: number, atLeast: number) {
  return waitFor(
    `${atLeast} journal row(s) after ${since} published`,
    async () => {
      const { rows } = await db.query(`select id, zone, kind, created_at, published_at from changes where id > $1 order by id`, [since]);
      return rows.length >= atLeast && rows.every((row) => row.published_at) ? rows : undefined;
    },
    10_000,
    20,
  );
}

/**
 * Runs `write` and answers the journal rows it wrote (at least `atLeast`), once they are published, the writer
 * has sent its notification and the worker has run a drain woken by a notification.
 */
async function writeAndWake(write: () => Promise<unknown>, atLeast: number) {
  const since = await lastJournalId();
  const seen = notifications;
  const drains = await drainsWokenByNotification();
  await write();
  const rows = await published(since, atLeast);
  await waitUntil('a notification on zonekeeper_changes after the write', () => notifications > seen);
  await waitUntil('an outbox drain woken by a notification after the write', async () => (await drainsWokenByNotification()) > drains);
  return rows;
}

test('a record written through the API (one autocommit statement) wakes the worker', async () => {
  await writeAndWake(
    () => ok(`mutation { createRecord(input: {zone: "${ZONE}", owner: "one", type: "A", rdata: "192.0.2.1", ttl: 300}) { id } }`),
    1,
  );
}, 30_000);

test('a change set and a zone-file import (transactions with the zone locked) wake the worker', async () => {
  await writeAndWake(
    () =>
      ok(
        `mutation { applyZoneChanges(zone: "${ZONE}", changes: [{kind: ADD, owner: "set", type: "A", rdata: "192.0.2.2", ttl: 300}, {kind: ADD, owner: "set", type: "A", rdata: "192.0.2.3", ttl: 300}]) { serial } }`,
      ),
    1,
  );

  const text = (await ok(`{ exportZone(zone: "${ZONE}") }`)).exportZone as string;
  await writeAndWake(
    () =>
      ok(`mutation($t: String!) { importZone(zone: "${ZONE}", text: $t, mode: MERGE) { serial } }`, {
        t: `${text}imported 300 IN A 192.0.2.9\n`,
      }),
    1,
  );
}, 30_000);

test('a zone created through the API is published with its catalog admission', async () => {
  const rows = await writeAndWake(() => createZone(app, userId, 'created.zk-journal.test'), 2);
  expect(rows.map((row) => row.kind)).toEqual(['zone-created', 'zone-changed']);
}, 30_000);

test('zone and user deletes (transactions of the write engine) wake the worker when they commit', async () => {
  await createZone(app, userId, 'deleted.zk-journal.test');
  const other = await createUser(app, 'signal-deleted@example.com');
  await createZone(app, other, 'owned.zk-journal.test');
  await published(0, 0);

  let rows = await writeAndWake(() => ok(`mutation { deleteDomain(zone: "deleted.zk-journal.test") }`), 2);
  expect(rows.map((row) => row.kind).sort()).toEqual(['zone-changed', 'zone-deleted']);

  rows = await writeAndWake(() => ok(`mutation($u: ID!) { deleteUser(id: $u) }`, { u: other }), 2);
  expect(rows.map((row) => row.kind).sort()).toEqual(['zone-changed', 'zone-deleted']);
}, 30_000);

test("the worker's own catalog admission (a transaction of the process's Database) wakes its drain", async () => {
  // a zone whose create committed but whose admission never ran (its process stopped in between): the
  // worker's poll admits it, and the admission's commit notifies
  const rows = await writeAndWake(
    () => db.query(`insert into domains (user_id, name, serial) values ($1, 'stranded.zk-journal.test', 1)`, [userId]),
    1,
  );
  expect(rows).toEqual([expect.objectContaining({ kind: 'zone-changed', zone: app.settings.catalogZone })]);
}, 30_000);

test('concurrent writes send fewer notifications than commits', async () => {
  const WRITES = 160;
  let next = 0;
  const before = notifications;
  const rows = await writeAndWake(
    () =>
      Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < WRITES) {
            const i = next++;
            await ok(
              `mutation { createRecord(input: {zone: "${ZONE}", owner: "burst${i}", type: "A", rdata: "192.0.2.1", ttl: 300}) { id } }`,
            );
          }
        }),
      ),
    WRITES,
  );
  expect(rows).toHaveLength(WRITES);
  // one per commit with the trigger; commits that come while a notification is on its way or within its
  // interval share the next one
  expect(notifications - before).toBeLessThan(WRITES);
}, 60_000);
