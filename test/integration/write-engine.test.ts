import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';
import type { QueueRun } from '../../src/services/write-engine';
import type { RequestContext } from '../../src/services/context';

/**
 * The write engine's per-zone queue is keyed by the zone's id, whatever the caller named: record edits and
 * deletes by record id queue with the changes that name the zone by name. What is asserted is the queue's own
 * account of what it ran (`watchZoneQueues`), not timing.
 */
let app: TestApp;
const ZONE = 'engine.test';
let zoneId: number;

beforeAll(async () => {
  app = await startTestApp({ SERIAL_POLICY: 'increment' });
  const userId = await createUser(app, 'engine@example.org');
  zoneId = Number(await createZone(app, userId, ZONE));
});
afterAll(async () => {
  await app?.close();
});

const ctx = (): RequestContext => ({ db: app.service.database.db, principal: { kind: 'admin', keyId: 0 } });
const a = (owner: string, last: number) => ({ zone: ZONE, owner, type: 'A', rdata: `192.0.2.${last}`, ttl: 3600 });
const query = async (text: string, params: unknown[] = []) => app.service.database.db.rows(text, params);

test('a record edit and a delete by id run in the same queue, and the same batch, as by-name changes of their zone', async () => {
  const { records, zoneChanges } = app.service.services;
  // created through the engine: the queue knows the zone of these records from their insert
  const edited = await records.create(ctx(), a('edit-me', 1));
  const deleted = await records.create(ctx(), a('delete-me', 2));
  const serialBefore = Number((await query('select serial from domains where id = $1', [zoneId]))[0].serial);

  const runs: QueueRun[] = [];
  const stop = app.service.services.writeEngine.watchZoneQueues((run) => runs.push(run));
  try {
    // all submitted in one turn of the event loop: the first finds the zone idle and runs alone, the others
    // queue behind it and then run together
    await Promise.all([
      records.create(ctx(), a('first', 3)),
      records.update(ctx(), edited.id, a('edit-me', 4)),
      records.delete(ctx(), deleted.id),
      zoneChanges.apply(ctx(), { zone: ZONE, changes: [{ kind: 'ADD', ...a('set', 5) }] }),
      records.create(ctx(), a('last', 6)),
    ]);
  } finally {
    stop();
  }

  expect(runs).toEqual([
    { zoneId, together: false, jobs: [{ name: ZONE }] },
    { zoneId, queued: { recordId: edited.id } },
    { zoneId, queued: { recordId: deleted.id } },
    { zoneId, queued: { name: ZONE } },
    { zoneId, queued: { name: ZONE } },
    { zoneId, together: true, jobs: [{ recordId: edited.id }, { recordId: deleted.id }, { name: ZONE }, { name: ZONE }] },
  ]);
  // each change its own serial step and journal row, in the order queued
  const rows = await query(
    `select serial_before, serial_after, added from changes where domain_id = $1 and serial_before >= $2 order by id`,
    [zoneId, serialBefore],
  );
  expect(rows.map((r: any) => [Number(r.serial_before), Number(r.serial_after)])).toEqual(
    [1, 2, 3, 4, 5].map((i) => [serialBefore + i - 1, serialBefore + i]),
  );
  const stored = await query(`select owner, rdata from records where domain_id = $1 and type = 'A' order by owner`, [zoneId]);
  expect(stored).toEqual([
    { owner: 'edit-me', rdata: '192.0.2.4' },
    { owner: 'first', rdata: '192.0.2.3' },
    { owner: 'last', rdata: '192.0.2.6' },
    { owner: 'set', rdata: '192.0.2.5' },
  ]);
});

test('an edit of a record the process has not seen learns its zone from its first read, and queues behind the running change', async () => {
  const { records, settings } = app.service.services;
  // written behind the engine's back: no read of this process has seen the record
  const [{ id }] = await query(
    `insert into records (domain_id, owner, type, rdata, ttl) values ($1, 'unseen', 'A', '192.0.2.7', 3600) returning id`,
    [zoneId],
  );
  const recordId = Number(id);

  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const runs: QueueRun[] = [];
  const stop = app.service.services.writeEngine.watchZoneQueues((run) => {
    runs.push(run);
    // the edit has read, learned the zone and joined its queue: the running change may finish
    if ('queued' in run) open();
  });
  try {
    // a change of the zone by name that holds the zone's turn until the edit has queued
    const running = app.service.services.writeEngine.changeZone(
      app.service.database.db,
      settings,
      ctx().principal,
      { zone: { name: ZONE }, owner: 'held' },
      async (change) => {
        await gate;
        change.insert(a('held', 8));
        return change.commit();
      },
    );
    const edit = records.update(ctx(), recordId, a('unseen', 9));
    await Promise.all([running, edit]);
  } finally {
    stop();
  }
  expect(runs).toEqual([
    { zoneId, together: false, jobs: [{ name: ZONE }] },
    { zoneId, queued: { recordId } },
    { zoneId, together: false, jobs: [{ recordId }] },
  ]);
  expect(await query(`select rdata from records where id = $1`, [recordId])).toEqual([{ rdata: '192.0.2.9' }]);
});

/** the statements `work` sends, but the journal's wake-up and its readers' (the worker, the change feed) */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const stop = app.service.database.db.observeStatements((text) => seen.push(text.replace(/\s+/g, ' ').trim()));
  try {
    await work();
  } finally {
    stop();
  }
  return seen.filter(
    (text) => !/pg_notify|from changes|zone_secondaries|catalog_serial is null|secondary_zone_state|alias_refresh/.test(text),
  );
}

const serialOf = async () => Number((await query('select serial from domains where id = $1', [zoneId]))[0].serial);
const cname = (owner: string, target: string) => ({ zone: ZONE, owner, type: 'CNAME', rdata: target, ttl: 3600 });

test('a change of a zone this process wrote last is decided on its head: one statement, its write, the serial once up and journalled', async () => {
  const { records } = app.service.services;
  await records.create(ctx(), a('warm', 10));
  const before = await serialOf();
  const sql = await statementsOf(() => records.create(ctx(), a('head-1', 11)));
  expect(sql).toHaveLength(1);
  expect(sql[0]).toMatch(/^with lim as .*update domains set serial/);
  expect(await serialOf()).toBe(before + 1);
  const [journal] = await query(`select serial_before, serial_after, added from changes where domain_id = $1 order by id desc limit 1`, [
    zoneId,
  ]);
  expect([Number(journal.serial_before), Number(journal.serial_after)]).toEqual([before, before + 1]);
  expect(journal.added.map((r: any) => `${r.owner} ${r.type} ${r.rdata}`)).toEqual([
    'head-1 A 192.0.2.11',
    `@ SOA ${journal.added[1].rdata}`,
  ]);
  // the rules see the records the head knows: a CNAME beside the A just written is refused, and a refusal is
  // never the head's alone (the zone may have moved): it is made again on a read, which writes nothing
  let refusal: Promise<unknown> | undefined;
  const refusedSql = await statementsOf(() =>
    (refusal = records.create(ctx(), cname('head-1', 'elsewhere.example.'))).catch(() => undefined),
  );
  await expect(refusal).rejects.toMatchObject({ code: 'CNAME_CONFLICT' });
  expect(refusedSql).toHaveLength(1);
  expect(refusedSql[0]).toMatch(/^select d\.id, d\.name, d\.serial/);
});

test('a record written behind the process at an owner its head takes for empty: the write does not apply, and the change is decided on a read', async () => {
  const { records } = app.service.services;
  await records.create(ctx(), a('warm-2', 12));
  // behind the engine's back, without even a serial step: only the write's own check on the owner can see it
  await query(`insert into records (domain_id, owner, type, rdata, ttl) values ($1, 'ghost', 'A', '192.0.2.13', 3600)`, [zoneId]);
  const before = await serialOf();
  await expect(records.create(ctx(), cname('ghost', 'elsewhere.example.'))).rejects.toMatchObject({ code: 'CNAME_CONFLICT' });
  expect(await serialOf()).toBe(before);
  expect(await query(`select type from records where domain_id = $1 and owner = 'ghost'`, [zoneId])).toEqual([{ type: 'A' }]);
});

test('a zone changed by another writer (its serial moved): a refusal the head would make is decided again on the zone as it is', async () => {
  const { records } = app.service.services;
  await records.create(ctx(), cname('moved', 'elsewhere.example.'));
  // the head knows a CNAME at `moved`; another process removes it and steps the serial
  await query(`delete from records where domain_id = $1 and owner = 'moved'`, [zoneId]);
  await query(`update domains set serial = serial + 1 where id = $1`, [zoneId]);
  const before = await serialOf();
  const sql = await statementsOf(() => records.create(ctx(), a('moved', 14)));
  // no write on the head (it would be refused): the read, then the write
  expect(sql).toHaveLength(2);
  expect(sql[0]).toMatch(/^select d\.id, d\.name, d\.serial/);
  expect(await serialOf()).toBe(before + 1);
  expect(await query(`select type, rdata from records where domain_id = $1 and owner = 'moved'`, [zoneId])).toEqual([
    { type: 'A', rdata: '192.0.2.14' },
  ]);
  // and a write on a head whose serial moved writes nothing, then reads and writes
  await query(`update domains set serial = serial + 1 where id = $1`, [zoneId]);
  const again = await statementsOf(() => records.create(ctx(), a('moved-2', 15)));
  expect(again.map((text) => text.slice(0, 20))).toEqual([again[0].slice(0, 20), 'select d.id, d.name,', again[0].slice(0, 20)]);
  expect(again[0]).toMatch(/^with lim as/);
  expect(await serialOf()).toBe(before + 3);
});

test('a head that grew past the records it holds forgets its owners but the apex: the next change is still its write alone', async () => {
  const { records, zoneChanges } = app.service.services;
  // 5,000 records at new owners: the head then holds more than its 4,096 and forgets the owners it knew
  const changes = Array.from({ length: 5000 }, (_, i) => ({
    kind: 'ADD' as const,
    owner: `bulk-${i}`,
    type: 'A',
    rdata: '192.0.2.50',
    ttl: 3600,
  }));
  await zoneChanges.apply(ctx(), { zone: ZONE, changes });
  const before = await serialOf();
  const sql = await statementsOf(() => records.create(ctx(), a('after-bulk', 51)));
  // the apex (SOA, NS) known still: the write's proof holds, no read after it
  expect(sql).toHaveLength(1);
  expect(sql[0]).toMatch(/^with lim as .*update domains set serial/);
  expect(await serialOf()).toBe(before + 1);
});

test("the zone of the records a change inserted is remembered for a few, not for a bulk set's, whose first edit learns it by its read", async () => {
  const { records, zoneChanges } = app.service.services;
  const { writeEngine } = app.service.services;
  const keys = { of: (zone: { recordId: number }) => writeEngine.zoneIdOf(zone) };
  const created = await records.create(ctx(), a('remembered', 20));
  expect(keys.of({ recordId: created.id })).toBe(zoneId);
  const idsOf = async (prefix: string) =>
    (await query(`select id from records where domain_id = $1 and owner like $2 order by id`, [zoneId, `${prefix}-%`])).map((row) =>
      Number(row.id),
    );
  const set = (prefix: string, count: number) =>
    zoneChanges.apply(ctx(), {
      zone: ZONE,
      changes: Array.from({ length: count }, (_, i) => ({ kind: 'ADD', ...a(`${prefix}-${i}`, 21) })),
    });
  // a set that hands no ids back: up to 16 records are remembered, as a record created alone
  await set('learn-few', 16);
  const few = await idsOf('learn-few');
  expect(few).toHaveLength(16);
  expect(few.map((id) => keys.of({ recordId: id }))).toEqual(few.map(() => zoneId));
  await set('learn-bulk', 17);
  const bulk = await idsOf('learn-bulk');
  expect(bulk).toHaveLength(17);
  expect(bulk.map((id) => keys.of({ recordId: id }))).toEqual(bulk.map(() => undefined));
  // its records are edited by id all the same; the edit's read tells the zone
  await records.update(ctx(), bulk[3], a('learn-bulk-3', 22));
  expect(await query(`select rdata from records where id = $1`, [bulk[3]])).toEqual([{ rdata: '192.0.2.22' }]);
  expect(keys.of({ recordId: bulk[3] })).toBe(zoneId);
});
