/**
 * The notifier's state is bounded: an entry per zone and secondary lives while its NOTIFY is
 * folded, sent or retried, and goes after; a worker that notified many zones holds nothing for them later.
 * Against a real Knot secondary (RFC 1996 NOTIFY answered with NOERROR for the catalog it serves).
 */
import { randomBytes } from 'node:crypto';
import { Database } from '../../src/db/pool';
import pino from 'pino';
import { logger } from '../../src/logger';
import { PropagationRepository } from '../../src/repositories/propagation';
import { Notifier } from '../../src/worker/notifier';
import { createUser, createZone } from '../support/fixtures';
import { startServiceWithKnot } from '../support/knot-fleet';
import { TestApp } from '../support/test-app';
import { freePort, Knot, sleep, waitFor } from './knot';

const CATALOG = 'catalog.zk-notify.test';
const KEY_NAME = 'zk-notify-key';
const SECRET = randomBytes(32).toString('base64');

let knot: Knot;
let app: TestApp;
let db: Database;

beforeAll(async () => {
  // no worker: the test runs a notifier of its own
  ({ app, knot } = await startServiceWithKnot({ catalog: CATALOG, tsig: { name: KEY_NAME, secret: SECRET }, env: { ROLES: 'api,dns' } }));
  db = new Database({ connectionString: app.settings.databaseUrl!, poolSize: 2 });
}, 60_000);

afterAll(async () => {
  await db?.close();
  await app?.close();
  await knot?.stop();
});

test('entries go once their NOTIFY is answered or has nothing to announce', async () => {
  const notifier = new Notifier(app.settings, new PropagationRepository(db), logger);
  try {
    // zones that do not exist (deleted meanwhile): nothing to announce, nothing kept
    for (let i = 0; i < 200; i++) notifier.notifyAll(`gone${i}.zk-notify.test`);
    // the catalog, which Knot serves: sent, answered, then forgotten; a second request within the window is
    // folded into one trailing NOTIFY
    notifier.notifyAll(CATALOG);
    notifier.notifyAll(CATALOG);
    expect(notifier.size).toBeGreaterThan(0);
    await waitFor('the catalog NOTIFYs to be answered', async () => (notifier.stats.answered >= 2 ? true : undefined));
    await waitFor('the notifier to forget idle entries', async () => (notifier.size === 0 ? true : undefined));
    expect(notifier.stats).toEqual({ sent: 2, answered: 2, failed: 0 });
    // and it works again for the same zone afterwards
    notifier.notifyAll(CATALOG);
    await waitFor('a third NOTIFY to be answered', async () => (notifier.stats.answered >= 3 ? true : undefined));
    await waitFor('the notifier to forget it again', async () => (notifier.size === 0 ? true : undefined));
  } finally {
    notifier.stop();
  }
}, 60_000);

test('a failed NOTIFY is logged with its server and reason, once a minute per server with the failures it stands for', async () => {
  const userId = await createUser(app, 'notify-log@example.org');
  const zones = ['one.zk-notify-log.test', 'two.zk-notify-log.test'];
  for (const zone of zones) await createZone(app, userId, zone);
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  // nothing listens there: each NOTIFY fails, and is retried
  const silent = { host: '127.0.0.1', port: await freePort() };
  const notifier = new Notifier({ ...app.settings, secondaries: [silent] }, new PropagationRepository(db), log);
  try {
    for (const zone of zones) notifier.notifyAll(zone);
    await waitFor('the NOTIFYs to fail and be retried', async () => (notifier.stats.failed >= 4 ? true : undefined));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'NOTIFY failed, retrying', server: `127.0.0.1:${silent.port}`, failures: 1 });
    expect(zones).toContain(lines[0].zone);
    expect(lines[0].reason).toMatch(/^NOTIFY: /);
  } finally {
    notifier.stop();
  }
}, 60_000);

test('a NOTIFY still queued when its zone is found served goes; one asked for after that stays', async () => {
  // the slowest pace, a burst of one: the first NOTIFY leaves, the others queue (a port where nothing answers)
  const notifier = new Notifier({ ...app.settings, notifyRatePerSecondary: 5 }, new PropagationRepository(db), logger);
  const server = { host: '127.0.0.1', port: await freePort() };
  const zones = Array.from({ length: 40 }, (_, i) => `served${i}.zk-notify.test`);
  try {
    for (const zone of zones) notifier.request(zone, server);
    expect(notifier.paceOf(server)!.queued).toBeGreaterThanOrEqual(38);
    await sleep(5);
    // a status check claimed now finds every zone served; the last one changes again meanwhile
    const claimedAt = Date.now();
    await sleep(5);
    notifier.request(zones[39], server);
    for (const zone of zones) notifier.served(zone, server, claimedAt);
    // only the later change's NOTIFY waits: the others were told of what the server serves
    expect(notifier.paceOf(server)!.queued).toBe(1);
  } finally {
    notifier.stop();
  }
});
