/**
 * What the worker does after a write, in one commit (worker/duties/outbox-drain.ts, OutboxDrain.claimBatch): the outbox claim
 * that publishes the write's journal row and the webhook fan-out's step that passes its event (or writes its
 * deliveries) are one transaction, one WAL flush, where they were two. Seen in the rows themselves: a row's
 * `xmin` is the transaction that wrote its version, so the journal row's (published_at set), the fan-out's
 * place's (moved past the event) and the delivery's are one transaction's. And a fan-out step with nothing to
 * pass writes nothing: the place's row is not locked (a lock sets its `xmax`, and costs a WAL flush).
 *
 * The drain and the webhook fan-out are made here and not run as duties (the service runs ROLES=api): each step
 * is taken by the test, once the write's event is settled (events.ts: no older transaction still running, which
 * on a database shared with other work may take a while), so what each step does is certain.
 */
import { Client } from 'pg';
import pino from 'pino';
import { Database } from '../../src/db/pool';
import { logger } from '../../src/logger';
import { PropagationRepository } from '../../src/repositories/propagation';
import type { Logger } from '../../src/logger';
import { NameserverFleet } from '../../src/worker/duties/nameserver-sets';
import { OutboxDrain } from '../../src/worker/duties/outbox-drain';
import { Notifier } from '../../src/worker/notifier';
import { WebhookFanout } from '../../src/worker/webhook-fanout';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createUser, createZone } from '../support/fixtures';
import { waitUntil } from '../support/wait-for';

const ZONE = 'one-commit.zk-worker.test';
let app: TestApp;
let db: Client;
let database: Database;
let worker: OutboxDrain;
let duty: WebhookFanout;
/** the drain's wakes of the deliveries (whether the fan-out too): no pass runs here, the test takes each step */
const deliveryWakes: boolean[] = [];

/** an outbox drain taking the fan-out along, as the worker makes it, logging to `log` */
function drainWith(log: Logger): OutboxDrain {
  const notifier = new Notifier(app.settings, new PropagationRepository(database), log);
  notifier.stop();
  const fleet = new NameserverFleet(app.settings, database, notifier);
  return new OutboxDrain(app.settings, database, log, notifier, fleet, () => undefined, {
    fanout: duty,
    wakeDeliveries: (fanOutToo) => void deliveryWakes.push(fanOutToo),
  });
}

beforeAll(async () => {
  app = await startTestApp({ ROLES: 'api', WEBHOOK_ALLOW: '127.0.0.0/8' });
  db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
  database = new Database({ connectionString: app.settings.databaseUrl!, poolSize: 2 });
  duty = new WebhookFanout(database);
  worker = drainWith(logger);
  await createZone(app, await createUser(app, 'one-commit@example.com'), ZONE);
}, 60_000);

afterAll(async () => {
  await database?.close();
  await db?.end();
  await app?.close();
});

/** a write, once its event is settled; its journal row's id and its event's */
async function write(owner: string): Promise<{ changeId: number; eventId: number }> {
  const res = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner, type: 'A', rdata: '192.0.2.1', ttl: 300 } });
  expect(res.errors).toBeUndefined();
  const { rows } = await db.query(
    `select c.id as change_id, e.id as event_id from changes c join events e on e.change_id = c.id
      where c.id = (select max(id) from changes where zone = $1)`,
    [ZONE],
  );
  const ids = { changeId: Number(rows[0].change_id), eventId: Number(rows[0].event_id) };
  await waitUntil(
    `${owner}'s event settled`,
    async () =>
      (await db.query(`select xid < pg_snapshot_xmin(pg_current_snapshot()) as settled from events where id = $1`, [ids.eventId])).rows[0]
        .settled,
    20_000,
  );
  return ids;
}

const fanoutRow = async () =>
  (await db.query(`select xmin::text as xmin, xmax::text as xmax, event_id from webhook_fanout where id = 1`)).rows[0] as {
    xmin: string;
    xmax: string;
    event_id: string;
  };
const changeXmin = async (id: number) =>
  (await db.query(`select xmin::text as xmin from changes where id = $1`, [id])).rows[0].xmin as string;

test("no subscription: a write's journal row is published and its event passed in one statement", async () => {
  // the zone's creation: its journal row and events, out of the way
  while ((await worker.claimBatch()).fanoutMore);
  for (let i = 0; i < 3; i++) {
    const { changeId, eventId } = await write(`alone${i}`);
    expect(await worker.claimBatch()).toEqual({ claimed: 1, fanoutMore: false });
    const place = await fanoutRow();
    expect(Number(place.event_id)).toBe(eventId);
    expect(await changeXmin(changeId)).toBe(place.xmin);
    expect(duty.passesUnsubscribed).toBe(true);
  }
}, 60_000);

test('a fan-out step with nothing to pass locks nothing', async () => {
  const before = await fanoutRow();
  // the drain's (claim and pass in one statement) and the duty's own
  expect(await worker.claimBatch()).toEqual({ claimed: 0, fanoutMore: false });
  expect(await duty.fanOut()).toBe(0);
  expect(await fanoutRow()).toEqual(before);
}, 30_000);

test("with a subscription: a write's journal row is published and its delivery written in one transaction", async () => {
  const res = await app.http.post('/api/webhook/add').set('X-API-Key', ADMIN_KEY).send({ url: 'http://127.0.0.1:9/hook' });
  expect(res.status).toBe(201);
  // the first write after the subscription: the pass finds it enabled and passes nothing; the drain's next step
  // is the transaction, which writes the delivery
  const first = await write('first');
  expect(await worker.claimBatch()).toEqual({ claimed: 1, fanoutMore: true });
  expect(duty.passesUnsubscribed).toBe(false);
  expect(await worker.claimBatch()).toEqual({ claimed: 0, fanoutMore: false });
  expect((await db.query(`select 1 from webhook_deliveries where event_id = $1`, [first.eventId])).rowCount).toBe(1);
  for (let i = 0; i < 2; i++) {
    const { changeId, eventId } = await write(`subscribed${i}`);
    expect(await worker.claimBatch()).toEqual({ claimed: 1, fanoutMore: false });
    const { rows } = await db.query(`select xmin::text as xmin from webhook_deliveries where event_id = $1`, [eventId]);
    expect(rows).toHaveLength(1);
    const published = await changeXmin(changeId);
    expect(rows[0].xmin).toBe(published);
    expect((await fanoutRow()).xmin).toBe(published);
  }
  // nothing more to pass: the transaction's step locks nothing either
  const before = await fanoutRow();
  expect(await worker.claimBatch()).toEqual({ claimed: 0, fanoutMore: false });
  expect(await fanoutRow()).toEqual(before);
}, 60_000);

test("the claim's commit does not wait for the disk, and that setting ends with its transaction", async () => {
  while ((await worker.claimBatch()).fanoutMore);
  await write('unhurried');
  const single = new Database({ connectionString: app.settings.databaseUrl!, poolSize: 1 });
  try {
    // the connection's own setting made durable, whatever the server's default (CI's embedded lane runs with it off)
    await single.rows(`set synchronous_commit = on`);
    const inside = await single.transaction(async (sql) => {
      const claimed = await new PropagationRepository(sql).claimChanges(10, [], 1_000);
      const [row] = await sql.rows<{ setting: string }>(`select current_setting('synchronous_commit') as setting`);
      return { claimed: claimed.length, setting: row.setting };
    });
    expect(inside).toEqual({ claimed: 1, setting: 'off' });
    // the pool's one connection, lent again: every other statement on it commits durably
    const [after] = await single.rows<{ setting: string }>(`select current_setting('synchronous_commit') as setting`);
    expect(after.setting).toBe('on');
  } finally {
    await single.close();
  }
}, 60_000);

test('a fan-out that keeps failing is told once, and its return once; the claims go on alone meanwhile', async () => {
  while ((await worker.claimBatch()).fanoutMore);
  const lines: { level: number; msg: string }[] = [];
  const captured = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const watched = drainWith(captured);
  // a real fault of the fan-out's own statement: its place's table gone for a while
  await db.query(`alter table webhook_fanout rename to webhook_fanout_away`);
  deliveryWakes.length = 0;
  try {
    for (let i = 0; i < 3; i++) {
      await write(`failing${i}`);
      expect(await watched.claimBatch()).toEqual({ claimed: 1, fanoutMore: false });
    }
    // the deliveries' own pass is asked to take the fan-out's step, at each failure
    expect(deliveryWakes).toEqual([true, true, true]);
  } finally {
    await db.query(`alter table webhook_fanout_away rename to webhook_fanout`);
  }
  await write('back');
  expect((await watched.claimBatch()).claimed).toBe(1);
  const told = lines.filter((line) => line.msg.includes('webhook fan-out'));
  expect(told.map((line) => line.level)).toEqual([40, 20, 20, 30]);
}, 60_000);
