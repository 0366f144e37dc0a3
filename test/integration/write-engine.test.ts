import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';
import { changeZone, QueueRun, watchZoneQueues } from '../../src/services/write-engine';
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
  const stop = watchZoneQueues(app.service.database.db, (run) => runs.push(run));
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
  const stop = watchZoneQueues(app.service.database.db, (run) => {
    runs.push(run);
    // the edit has read, learned the zone and joined its queue: the running change may finish
    if ('queued' in run) open();
  });
  try {
    // a change of the zone by name that holds the zone's turn until the edit has queued
    const running = changeZone(
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
