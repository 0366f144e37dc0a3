import { Database } from '../../src/db/pool';
import { createServices, Services } from '../../src/services';
import type { RequestContext } from '../../src/services/context';
import type { QueueRun } from '../../src/services/write-engine';
import type { Principal } from '../../src/auth/principal';
import { createUser, createZone } from '../support/fixtures';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * What the write engine remembers between changes (its queues and the zone ids they learned, the zones' change
 * rates, the catalog admissions) belongs to the engine the services were made with, not to the process: two
 * services made on one database keep apart what each learned, and an engine takes work on its own database
 * (or a view of it) only.
 */
let app: TestApp;
let other: Services;
let userId: string;
const ZONE = 'instances.test';
let zoneId: number;

beforeAll(async () => {
  // one change a zone, then one a second: the second change of a user within the second is refused
  app = await startTestApp({ ZONE_CHANGES_PER_SECOND: '1', ZONE_CHANGES_BURST: '1' });
  userId = await createUser(app, 'instances@example.org');
  zoneId = Number(await createZone(app, userId, ZONE));
  other = createServices(app.settings, app.service.database.db);
}, 60_000);
afterAll(async () => {
  await other?.zoneFiles.close();
  await app?.close();
});

const user = (): Principal => ({ kind: 'user', keyId: 0, userId: Number(userId) });
const ctx = (principal: Principal = user()): RequestContext => ({ db: app.service.database.db, principal });
const a = (owner: string, last: number) => ({ zone: ZONE, owner, type: 'A', rdata: `192.0.2.${last}`, ttl: 3600 });

test('two services on one database: each engine runs and learns only its own changes', async () => {
  const ours = app.service.services;
  const runsOfOurs: QueueRun[] = [];
  const runsOfOther: QueueRun[] = [];
  const stopOurs = ours.writeEngine.watchZoneQueues((run) => runsOfOurs.push(run));
  const stopOther = other.writeEngine.watchZoneQueues((run) => runsOfOther.push(run));
  let created: { id: number };
  try {
    created = await other.records.create(ctx({ kind: 'admin', keyId: 0 }), a('other', 1));
  } finally {
    stopOurs();
    stopOther();
  }
  expect(runsOfOther.length).toBeGreaterThan(0);
  expect(runsOfOther.every((run) => run.zoneId === zoneId)).toBe(true);
  expect(runsOfOurs).toEqual([]);
  // the record's zone is known to the engine that wrote it, not to the other one
  expect(other.writeEngine.zoneIdOf({ recordId: created.id })).toBe(zoneId);
  expect(ours.writeEngine.zoneIdOf({ recordId: created.id })).toBeUndefined();
});

test("a zone's change rate is its engine's: the one engine refuses a user's second change, the other takes it", async () => {
  const ours = app.service.services;
  // wait out the second the fixtures' and the test above's changes may have started (admin's are not counted)
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await ours.records.create(ctx(), a('first', 2));
  await expect(ours.records.create(ctx(), a('second', 3))).rejects.toMatchObject({ code: 'RATE_LIMITED' });
  await expect(other.records.create(ctx(), a('second', 3))).resolves.toMatchObject({ owner: 'second' });
  await expect(other.records.create(ctx(), a('third', 4))).rejects.toMatchObject({ code: 'RATE_LIMITED' });
});

test('an engine takes a view of its database as its own, and refuses another database', async () => {
  const engine = app.service.services.writeEngine;
  const admin: Principal = { kind: 'admin', keyId: 0 };
  const serialOf = (db: Database) =>
    engine.changeZone(db, app.settings, admin, { zone: { name: ZONE }, owner: '@' }, async (change) => change.zone.serial);
  await expect(serialOf(app.service.database.db.withFailoverWaitAtMost(0))).resolves.toEqual(expect.any(Number));
  const elsewhere = new Database({ connectionString: app.settings.databaseUrl!, poolSize: 1 });
  try {
    await expect(serialOf(elsewhere)).rejects.toThrow(/another database than its write engine's/);
  } finally {
    await elsewhere.close();
  }
});
