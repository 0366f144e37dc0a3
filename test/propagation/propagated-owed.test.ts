/**
 * The `zone.propagated` event is never lost (docs/events.md): a status check's outcome commits before the zone's
 * announcement (repositories/propagation.ts), so a database that fails between the two leaves the zone in sync at
 * its secondaries and never checked again. Here the announcement fails for real (a trigger on the database refuses
 * it) while Knot takes the change: the status row is in sync, the event not said. Once the database takes it again,
 * the next round of checks says it, once.
 */
import { randomBytes } from 'node:crypto';
import { CREATE_RECORD, createUser, createZone, feedFrom } from '../support/fixtures';
import { startTestApp, TestApp } from '../support/test-app';
import { freePort, Knot, servedSerial, sleep, startKnot, waitFor } from './knot';

const CATALOG = 'catalog.propagated-owed.test';
const ZONE = 'owed.propagated-owed.test';
const tsig = { name: 'propagated-owed-key', secret: randomBytes(32).toString('base64') };

let app: TestApp;
let knot: Knot;
const db = () => app.service.database.db;

beforeAll(async () => {
  const dnsPort = await freePort();
  knot = await startKnot({ catalogZone: CATALOG, primaryPort: dnsPort, tsig });
  app = await startTestApp({
    ROLES: 'api,dns,worker',
    DNS_LISTEN: `127.0.0.1:${dnsPort}`,
    SECONDARIES: `127.0.0.1:${knot.port}`,
    TSIG_KEY: `${tsig.name}:hmac-sha256:${tsig.secret}`,
    CATALOG_ZONE: CATALOG,
  });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await knot?.stop();
});

/** the `zone.propagated` events of the zone in the feed from `after` */
const propagated = async (after?: string) =>
  (await feedFrom(app, after)).events.filter((e) => e.type === 'zone.propagated' && e.zone === ZONE).map((e) => e.data.serial);

const serialOf = async (zone: string) =>
  Number((await db().rows<{ serial: string }>('select serial from domains where name = $1', [zone]))[0].serial);

test('an announcement that failed after the check committed is said by the next round, once', async () => {
  const userId = await createUser(app, 'owed@propagated-owed.test');
  await createZone(app, userId, ZONE);
  const first = await serialOf(ZONE);
  await waitFor(`${ZONE} propagated at ${first}`, async () => ((await propagated()).includes(first) ? true : undefined));
  const { next } = await feedFrom(app);

  // the database refuses every announcement from now on
  await db().rows(`create function refuse_announcement() returns trigger language plpgsql as $$
                     begin raise exception 'the test refuses the announcement'; end $$`);
  await db().rows(`create trigger refuse_announcement before update of propagated_serial on domains
                     for each row execute function refuse_announcement()`);
  const made = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: 'app', type: 'A', rdata: '192.0.2.7', ttl: 300 } });
  expect(made.errors).toBeUndefined();
  const second = await serialOf(ZONE);
  expect(second).not.toBe(first);
  await waitFor(`Knot to serve ${ZONE} at ${second}`, async () => ((await servedSerial(knot.port, ZONE)) === second ? true : undefined));
  // the check's outcome committed: in sync, never checked again; the announcement did not
  await waitFor('the status row in sync at the new serial', async () => {
    const rows = await db().rows<{ state: string; served_serial: string; next_check_at: string }>(
      `select s.state, s.served_serial, s.next_check_at::text from zone_server_status s join domains d on d.id = s.domain_id where d.name = $1`,
      [ZONE],
    );
    return rows.length === 1 && rows[0].state === 'in_sync' && Number(rows[0].served_serial) === second ? rows[0] : undefined;
  });
  await sleep(1500);
  const [zoneRow] = await db().rows<{ propagated_serial: string }>('select propagated_serial from domains where name = $1', [ZONE]);
  expect(Number(zoneRow.propagated_serial)).toBe(first);
  expect(await propagated(next)).toEqual([]);

  // the database takes it again: the next round says what was owed
  await db().rows('drop trigger refuse_announcement on domains');
  await db().rows('drop function refuse_announcement()');
  await waitFor(`${ZONE} propagated at ${second}`, async () => ((await propagated(next)).includes(second) ? true : undefined));
  await sleep(1500);
  expect(await propagated(next)).toEqual([second]);
}, 90_000);
