/**
 * A nameserver set's NS names changed with its zones following (docs/transfers.md, «A set's NS names, followed by
 * its zones»), through GraphQL at a new user's size: the change answers at once and the worker walks the set's
 * zones; a zone whose apex NS were exactly the old names takes the new ones in one change set, a zone with NS of
 * its own keeps them, a zone whose rules refuse the new names keeps its own and is named; one follow at a time
 * per set; a change without `zonesFollow` leaves the zones as before. The worker runs in a process of its own
 * beside the API's, started once the follow is seen waiting.
 */
import { Client } from 'pg';
import { loadSettings } from '../../src/config/settings';
import { RunningService, startService } from '../../src/main';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, errorCode } from '../support/fixtures';
import { waitUntil } from '../support/wait-for';

let app: TestApp;
let db: Client;
let userId: string;
let worker: RunningService | undefined;

const ENV = { SECONDARIES: '', DEFAULT_NS: 'ns1.default.test., ns2.default.test.', CATALOG_ZONE: 'catalog.default.test' };
const OLD = ['ns1.gold.test.', 'ns2.gold.test.'];
const NEW = ['ns1.gold.test.', 'ns.inzone.follow.test.'];
const UPDATE = `mutation($n: String!, $i: NameserverSetUpdateInput!) { updateNameserverSet(name: $n, input: $i) { nsNames } }`;
const READ = `{ nameserverSet(name: "gold") { nsNames nsFollow { fromNames toNames zonesChanged zonesKept zonesLeft refused { zone code } } } }`;

beforeAll(async () => {
  app = await startTestApp(ENV);
  db = new Client({ connectionString: app.settings.databaseUrl });
  await db.connect();
  userId = await createUser(app, 'ns-follow@example.com');
  const made = await app.gql(`mutation($i: NameserverSetInput!) { createNameserverSet(input: $i) { name } }`, {
    i: { name: 'gold', secondaries: [], nsNames: OLD, catalogZone: 'catalog.gold.test' },
  });
  expect(made.errors).toBeUndefined();
  for (const zone of ['one', 'two', 'own', 'inzone']) await createZone(`${zone}.follow.test`, 'gold');
  await createZone('other.follow.test', null);
  const own = await app.gql(
    `mutation { applyZoneChanges(zone: "own.follow.test", changes: [{kind: REPLACE_RRSET, owner: "@", type: "NS", ttl: 3600, rdatas: ["ns.elsewhere.test."]}], force: true) { serial } }`,
  );
  expect(own.errors).toBeUndefined();
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await db?.end();
  await app?.close();
});

async function createZone(zone: string, set: string | null): Promise<void> {
  const made = await app.gql(
    `mutation($u: ID!, $z: String!, $s: String) { createDomain(input: {userId: $u, zone: $z, nameserverSet: $s}) { id } }`,
    {
      u: userId,
      z: zone,
      s: set,
    },
  );
  expect(made.errors).toBeUndefined();
}

/** a worker process of its own (in this one) on the app's database */
function startWorker(): Promise<RunningService> {
  return startService(
    loadSettings({
      ...ENV,
      DATABASE_URL: app.settings.databaseUrl,
      API_KEY: ADMIN_KEY,
      DNS_LISTEN: '',
      ROLES: 'worker',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      HEALTH_CHECK_INTERVAL: '0',
    }),
  );
}

async function zoneState(zone: string): Promise<{ ns: string[]; serial: number }> {
  const { rows } = await db.query(
    `select d.serial, array(select r.rdata from records r where r.domain_id = d.id and r.owner = '@' and r.type = 'NS' order by r.rdata) as ns
       from domains d where d.name = $1`,
    [zone],
  );
  return { ns: rows[0].ns, serial: Number(rows[0].serial) };
}

test('with zonesFollow, the zones that had the old names take the new ones, each in one change set; the others keep theirs', async () => {
  const zones = ['one', 'two', 'own', 'inzone', 'other'].map((z) => `${z}.follow.test`);
  const before = new Map<string, { ns: string[]; serial: number }>();
  for (const zone of zones) before.set(zone, await zoneState(zone));

  const changed = await app.gql(UPDATE, { n: 'gold', i: { secondaries: [], nsNames: NEW, zonesFollow: true } });
  expect(changed.errors).toBeUndefined();
  expect(changed.data.updateNameserverSet.nsNames).toEqual(NEW);
  // no worker yet: the follow waits, and says so
  const waiting = await app.gql(READ);
  expect(waiting.errors).toBeUndefined();
  expect(waiting.data.nameserverSet.nsFollow).toEqual({
    fromNames: OLD,
    toNames: NEW,
    zonesChanged: 0,
    zonesKept: 0,
    zonesLeft: 4,
    refused: [],
  });
  // one follow at a time: a second is refused, and nothing of it is written
  const again = await app.gql(UPDATE, { n: 'gold', i: { secondaries: [], nsNames: ['ns9.gold.test.'], zonesFollow: true } });
  expect(errorCode(again)).toBe('NS_FOLLOW_IN_PROGRESS');
  expect(again.errors![0].extensions.details[0].field).toBe('input.zonesFollow');
  expect((await app.gql(READ)).data.nameserverSet.nsNames).toEqual(NEW);
  expect((await zoneState('one.follow.test')).ns).toEqual(OLD);

  worker = await startWorker();
  await waitUntil('the follow ended', async () => (await app.gql(READ)).data.nameserverSet.nsFollow === null, 30_000);

  for (const zone of ['one.follow.test', 'two.follow.test']) {
    const after = await zoneState(zone);
    expect(after.ns).toEqual([...NEW].sort());
    expect(after.serial).toBe(before.get(zone)!.serial + 1);
  }
  // NS of its own, and a zone whose rules refuse an in-zone name server without an address: as they were
  for (const zone of ['own.follow.test', 'inzone.follow.test', 'other.follow.test'])
    expect(await zoneState(zone)).toEqual(before.get(zone));

  const { rows } = await db.query(`select actor_key_name, subject, detail from audit_events where kind = 'nameserver-set-ns-followed'`);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({
    subject: 'nameserver-set:gold',
    detail: {
      from: OLD,
      to: NEW,
      zonesChanged: 2,
      zonesKept: 2,
      refused: [{ zone: 'inzone.follow.test', code: 'NS_TARGET_NO_ADDRESS' }],
    },
  });
  // the history names the change's key
  const history = await app.gql(`{ domain(name: "one.follow.test") { changes(first: 1) { nodes { author { keyName admin } } } } }`);
  expect(history.errors).toBeUndefined();
  expect(JSON.stringify(history.data)).toContain("nameserver set gold's NS names");
});

test('without zonesFollow the zones keep their NS, as before', async () => {
  const before = await zoneState('one.follow.test');
  const changed = await app.gql(UPDATE, { n: 'gold', i: { secondaries: [], nsNames: ['ns7.gold.test.'] } });
  expect(changed.errors).toBeUndefined();
  expect((await app.gql(READ)).data.nameserverSet.nsFollow).toBeNull();
  const again = await app.gql(UPDATE, { n: 'gold', i: { secondaries: [], nsNames: ['ns8.gold.test.'], zonesFollow: true } });
  expect(again.errors).toBeUndefined();
  // the zones had ns7's names from no one: the walk changes none, and ends
  await waitUntil('the follow ended', async () => (await app.gql(READ)).data.nameserverSet.nsFollow === null, 30_000);
  expect(await zoneState('one.follow.test')).toEqual(before);
});

test('a worker that stops mid-walk gives the follow back; the next goes on from its last step, each zone changed once', async () => {
  await worker?.stop();
  worker = undefined;
  const made = await app.gql(`mutation($i: NameserverSetInput!) { createNameserverSet(input: $i) { name } }`, {
    i: { name: 'many', secondaries: [], nsNames: ['ns1.many.test.'], catalogZone: 'catalog.many.test' },
  });
  expect(made.errors).toBeUndefined();
  const names = Array.from({ length: 1000 }, (_, i) => `z${i}.many.test`);
  const bulk = await app.gql(`mutation($input: [CreateDomainInput!]!) { createDomains(input: $input) { id } }`, {
    input: names.map((zone) => ({ userId, zone, nameserverSet: 'many' })),
  });
  expect(bulk.errors).toBeUndefined();
  const serials = async () =>
    (
      await db.query(
        `select sum(serial)::text as sum from domains where nameserver_set = (select id from nameserver_sets where name = 'many')`,
      )
    ).rows[0].sum;
  const before = BigInt(await serials());
  const read = `{ nameserverSet(name: "many") { nsFollow { zonesChanged zonesLeft } } }`;
  expect(
    (await app.gql(UPDATE, { n: 'many', i: { secondaries: [], nsNames: ['ns2.many.test.'], zonesFollow: true } })).errors,
  ).toBeUndefined();

  const first = await startWorker();
  await waitUntil('the first step recorded', async () => (await app.gql(read)).data.nameserverSet.nsFollow?.zonesChanged > 0, 30_000);
  await first.stop();
  // given back at once, part of the way
  const { rows } = await db.query(`select lease_until, next_zone_id, zones_changed from nameserver_set_ns_follows`);
  expect(rows).toHaveLength(1);
  expect(rows[0].lease_until).toBeNull();
  expect(rows[0].zones_changed).toBeGreaterThan(0);
  expect(rows[0].zones_changed).toBeLessThan(1000);

  worker = await startWorker();
  await waitUntil('the follow ended', async () => (await app.gql(read)).data.nameserverSet.nsFollow === null, 60_000);
  const { rows: ns } = await db.query(
    `select count(*)::int as n from records r join domains d on d.id = r.domain_id
      where d.nameserver_set = (select id from nameserver_sets where name = 'many') and r.owner = '@' and r.type = 'NS' and r.rdata = 'ns2.many.test.'`,
  );
  expect(ns[0].n).toBe(1000);
  // one change set a zone: every serial rose by one, whichever worker changed it
  expect(BigInt(await serials()) - before).toBe(1000n);
  const { rows: audit } = await db.query(
    `select detail from audit_events where kind = 'nameserver-set-ns-followed' and subject = 'nameserver-set:many'`,
  );
  expect(audit.map((r) => r.detail.zonesChanged)).toEqual([1000]);
}, 120_000);
