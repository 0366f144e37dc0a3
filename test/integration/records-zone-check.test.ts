/**
 * A record's zone, checked once per statement (Migration20261204010000_records_zone_check) where the foreign key
 * records → domains checked it once per row: the same three guarantees. A record names a zone that is there
 * (else the foreign key's error, which db-errors.ts maps to ZONE_NOT_FOUND); the zone stays there until the
 * transaction that wrote its records ends (a concurrent delete waits); deleting a zone deletes its records.
 */
import { DatabaseError } from 'pg';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';

let app: TestApp;
let userId: string;

beforeAll(async () => {
  app = await startTestApp();
  userId = await createUser(app, 'records-zone-check@example.org');
}, 60_000);

afterAll(async () => {
  await app?.close();
});

const db = () => app.service.database.db;
const zoneId = async (name: string) => Number((await db().rows('select id from domains where name = $1', [name]))[0].id);
const recordsOf = async (id: number) => Number((await db().rows('select count(*) as n from records where domain_id = $1', [id]))[0].n);

/** the error a statement failed with */
async function failure(work: () => Promise<unknown>): Promise<DatabaseError> {
  try {
    await work();
  } catch (error) {
    if (error instanceof DatabaseError) return error;
    throw error;
  }
  throw new Error('the statement did not fail');
}

test('a record of no zone is refused with the foreign key’s error, the whole statement with it', async () => {
  await createZone(app, userId, 'check-one.zone-check.test');
  const id = await zoneId('check-one.zone-check.test');
  const before = await recordsOf(id);
  const missing = id + 1_000_000;
  const alone = await failure(() =>
    db().rows(`insert into records (domain_id, owner, type, rdata, ttl) values ($1, 'a', 'A', '192.0.2.1', 300)`, [missing]),
  );
  expect(alone.code).toBe('23503');
  expect(alone.constraint).toBe('records_domain_id_foreign');
  expect(alone.detail).toContain(`(${missing})`);
  // one row of a zone that is not there fails the rows of the zone that is
  const mixed = await failure(() =>
    db().rows(
      `insert into records (domain_id, owner, type, rdata, ttl) values ($1, 'b', 'A', '192.0.2.2', 300), ($2, 'c', 'A', '192.0.2.3', 300)`,
      [id, missing],
    ),
  );
  expect(mixed.code).toBe('23503');
  expect(await recordsOf(id)).toBe(before);
  // a record moved to a zone that is not there, the same
  const moved = await failure(() => db().rows(`update records set domain_id = $2 where domain_id = $1 and type = 'SOA'`, [id, missing]));
  expect(moved.code).toBe('23503');
  // rows of zones that are there are taken
  await db().rows(`insert into records (domain_id, owner, type, rdata, ttl) values ($1, 'd', 'A', '192.0.2.4', 300)`, [id]);
  expect(await recordsOf(id)).toBe(before + 1);
});

test('deleting a zone deletes its records, and no other zone’s', async () => {
  await createZone(app, userId, 'check-gone.zone-check.test');
  await createZone(app, userId, 'check-kept.zone-check.test');
  const gone = await zoneId('check-gone.zone-check.test');
  const kept = await zoneId('check-kept.zone-check.test');
  const keptBefore = await recordsOf(kept);
  expect(await recordsOf(gone)).toBeGreaterThan(0);
  await db().rows('delete from domains where id = $1', [gone]);
  expect(await recordsOf(gone)).toBe(0);
  expect(await recordsOf(kept)).toBe(keptBefore);
});

test('a zone whose records a transaction wrote is not deleted before that transaction ends', async () => {
  await createZone(app, userId, 'check-held.zone-check.test');
  const id = await zoneId('check-held.zone-check.test');
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let written!: () => void;
  const wrote = new Promise<void>((resolve) => (written = resolve));
  const writer = db().transaction(async (sql) => {
    await sql.rows(`insert into records (domain_id, owner, type, rdata, ttl) values ($1, 'held', 'A', '192.0.2.5', 300)`, [id]);
    written();
    await released;
  });
  await wrote;
  // the zone row is held (for key share) by the writer: a delete waits, here until its lock timeout
  const waited = await failure(() =>
    db().transaction(async (sql) => {
      await sql.rows(`set local lock_timeout = '300ms'`);
      await sql.rows('delete from domains where id = $1', [id]);
    }),
  );
  expect(waited.code).toBe('55P03');
  release();
  await writer;
  expect(await recordsOf(id)).toBeGreaterThan(0);
  await db().rows('delete from domains where id = $1', [id]);
  expect(await recordsOf(id)).toBe(0);
});
