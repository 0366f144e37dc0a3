/**
 * The catalog zone (RFC 9432) at more members than one AXFR page: every query is answered from the row its
 * name points at (SOA, a member's PTR, the `zones` empty non-terminal, names that do not exist), AXFR is sent
 * in pages and holds every member, IXFR follows the catalog's journal (RFC 1995), and zone creates from
 * many clients at once leave a catalog whose every serial has one content.
 */
import { Client } from 'pg';
import { startTestApp, TestApp } from '../support/test-app';
import { dig, freePort, records, waitFor } from './knot';
import type { QueueRun } from '../../src/services/write-engine';

const CATALOG = 'catalog.zk-cat.test';
/** more than one page of allRecords() (2000 rows) */
const BULK_ZONES = 2600;

let app: TestApp;
let dnsPort: number;
let db: Client;
let userId: string;
const at = () => ['@127.0.0.1', '-p', String(dnsPort), '+norec'];

beforeAll(async () => {
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns,worker', DNS_LISTEN: `127.0.0.1:${dnsPort}`, CATALOG_ZONE: CATALOG });
  const user = await app.gql(`mutation { createUser(input: {email: "catalog@example.com"}) { id } }`);
  expect(user.errors).toBeUndefined();
  userId = user.data.createUser.id;
  db = new Client({ connectionString: app.settings.databaseUrl });
  await db.connect();
}, 60_000);

afterAll(async () => {
  await db?.end();
  await app?.close();
});

async function createZone(name: string): Promise<{ id: string; serial: number }> {
  const res = await app.gql(`mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id serial } }`, {
    u: userId,
    z: name,
  });
  expect(res.errors).toBeUndefined();
  return res.data.createDomain;
}

const catalogSerial = async () => Number((await db.query('select serial from catalog_state where name = $1', [CATALOG])).rows[0].serial);

test('catalog queries: SOA, a member PTR, NODATA at zones, NXDOMAIN for names that do not exist', async () => {
  const zone = await createZone('one.zk-cat.test');
  const serial = await catalogSerial();
  const soa = await dig([...at(), CATALOG, 'SOA']);
  expect(soa.status).toBe('NOERROR');
  expect(soa.stdout).toMatch(/flags: qr aa/);
  expect(records(soa).map((r) => r.rdata)).toEqual([`invalid. invalid. ${serial} 3600 600 2147483646 0`]);

  const ptr = await dig([...at(), `z${zone.id}.zones.${CATALOG}`, 'PTR']);
  expect(ptr.status).toBe('NOERROR');
  expect(records(ptr).map((r) => [r.type, r.rdata])).toEqual([['PTR', 'one.zk-cat.test.']]);
  // the PTR owner exists, other types at it are NODATA
  const ptrNodata = await dig([...at(), `z${zone.id}.zones.${CATALOG}`, 'A']);
  expect(ptrNodata.status).toBe('NOERROR');
  expect(records(ptrNodata).filter((r) => r.type === 'A')).toEqual([]);

  // `zones` holds the members but no record of its own: NODATA (RFC 4592 §2.2.2), the SOA in authority
  const zones = await dig([...at(), `zones.${CATALOG}`, 'PTR']);
  expect(zones.status).toBe('NOERROR');
  expect(zones.stdout).toMatch(/AUTHORITY SECTION:\s*\ncatalog\.zk-cat\.test\.\s+\d+\s+IN\s+SOA/);

  for (const name of [
    `z999999999.zones.${CATALOG}`,
    `z0${zone.id}.zones.${CATALOG}`,
    `zx.zones.${CATALOG}`,
    `a.z${zone.id}.zones.${CATALOG}`,
    `nope.${CATALOG}`,
    `z99999999999999999999.zones.${CATALOG}`,
  ]) {
    const nx = await dig([...at(), name, 'PTR']);
    expect([name, nx.status]).toEqual([name, 'NXDOMAIN']);
    expect(nx.stdout).toMatch(/AUTHORITY SECTION:\s*\ncatalog\.zk-cat\.test\.\s+\d+\s+IN\s+SOA/);
  }
  const version = await dig([...at(), `version.${CATALOG}`, 'TXT']);
  expect(records(version).map((r) => r.rdata)).toEqual(['"2"']);
  const apexNs = await dig([...at(), CATALOG, 'NS']);
  expect(records(apexNs).map((r) => r.rdata)).toEqual(['invalid.']);
});

test('catalog AXFR in pages holds every member once; IXFR of the catalog from its journal', async () => {
  // members written straight to the database, as a migration from another system would (the API's speed is
  // not what is tested here); the catalog serial rises with them, as changeCatalog would raise it
  await db.query('begin');
  const [{ serial }] = (await db.query('update catalog_state set serial = serial + 1 where name = $1 returning serial', [CATALOG])).rows;
  await db.query(
    `insert into domains (user_id, name, serial, catalog_serial) select $1, 'bulk' || i || '.zk-cat.test', 1, $3 from generate_series(1, $2::int) as i`,
    [userId, BULK_ZONES, serial],
  );
  await db.query('commit');

  const before = await catalogSerial();
  const zone = await createZone('last.zk-cat.test');
  const after = await catalogSerial();
  expect(after).toBeGreaterThan(before);

  const axfr = await dig([...at(), CATALOG, 'AXFR']);
  const rows = records(axfr);
  expect(rows[0].type).toBe('SOA');
  expect(rows[rows.length - 1].type).toBe('SOA');
  expect(Number(rows[0].rdata.split(' ')[2])).toBe(after);
  const ptrs = rows.filter((r) => r.type === 'PTR');
  const { rows: members } = await db.query<{ id: string; name: string }>('select id, name from domains order by id');
  expect(ptrs.map((r) => `${r.name} ${r.rdata}`)).toEqual(members.map((m) => `z${m.id}.zones.${CATALOG}. ${m.name}.`));
  expect(ptrs.length).toBe(BULK_ZONES + 2);
  expect(rows.filter((r) => r.type === 'TXT').map((r) => r.rdata)).toEqual(['"2"']);
  expect(Number(/messages (\d+)/.exec(axfr.stdout)?.[1])).toBeGreaterThan(1);

  // IXFR from the serial before the last create: that one member added (RFC 1995 §4)
  const ixfr = records(await dig([...at(), CATALOG, `IXFR=${before}`]));
  expect(ixfr.map((r) => `${r.type} ${r.type === 'SOA' ? r.rdata.split(' ')[2] : r.rdata}`)).toEqual([
    `SOA ${after}`,
    `SOA ${before}`,
    `SOA ${after}`,
    'PTR last.zk-cat.test.',
    `SOA ${after}`,
  ]);
  expect(ixfr[3].name).toBe(`z${zone.id}.zones.${CATALOG}.`);
  // a serial the journal never had: the whole catalog (AXFR form)
  const fallback = records(await dig([...at(), CATALOG, 'IXFR=7']));
  expect(fallback.filter((r) => r.type === 'PTR').length).toBe(BULK_ZONES + 2);
}, 60_000);

test('concurrent creates and deletes: every catalog serial has one content, and every member its zone', async () => {
  const first = await catalogSerial();
  const ptrMap = async () =>
    new Map(
      records(await dig([...at(), CATALOG, 'AXFR']))
        .filter((r) => r.type === 'PTR')
        .map((r) => [r.name, r.rdata]),
    );
  // the catalog at `first`: the start of the replay below
  const members = await ptrMap();
  const names = Array.from({ length: 48 }, (_, i) => `c${i}.zk-cat.test`);
  const created = await Promise.all(names.map((n) => createZone(n)));
  // deletes of half of them, racing creates of more
  const more = Array.from({ length: 16 }, (_, i) => `d${i}.zk-cat.test`);
  await Promise.all([
    ...created
      .filter((_, i) => i % 2 === 0)
      .map(async (z) => {
        const res = await app.gql(`mutation($id: ID!) { deleteDomain(id: $id) }`, { id: z.id });
        expect(res.errors).toBeUndefined();
      }),
    ...more.map((n) => createZone(n)),
  ]);
  // no zone is left waiting: each create's answer came after its zone joined the catalog
  expect((await db.query('select count(*)::int as n from domains where catalog_serial is null')).rows[0].n).toBe(0);

  // the catalog's journal from `first` on is one chain, each change raising the serial, and replaying it
  // gives the members that AXFR sends
  const { rows: changes } = await db.query<{ serial_before: string; serial_after: string; removed: any[]; added: any[] }>(
    `select serial_before, serial_after, removed, added from changes where zone = $1 and id >= (select min(id) from changes where zone = $1 and serial_before = $2) order by id`,
    [CATALOG, first],
  );
  let serial = first;
  for (const change of changes) {
    expect(Number(change.serial_before)).toBe(serial);
    expect(Number(change.serial_after)).toBeGreaterThan(serial);
    serial = Number(change.serial_after);
    // a removal removes a member, an addition adds a new one
    for (const r of change.removed.filter((r) => r.type === 'PTR')) expect(members.delete(`${r.owner}.${CATALOG}.`)).toBe(true);
    for (const r of change.added.filter((r) => r.type === 'PTR')) {
      expect(members.has(`${r.owner}.${CATALOG}.`)).toBe(false);
      members.set(`${r.owner}.${CATALOG}.`, r.rdata);
    }
  }
  expect(serial).toBe(await catalogSerial());
  const ptrs = await ptrMap();
  expect([...ptrs].sort()).toEqual([...members].sort());
  const survivors = [
    ...created.filter((_, i) => i % 2 === 1),
    ...(await Promise.all(more.map(async (n) => (await app.gql(`query($n: String) { domain(name: $n) { id } }`, { n })).data.domain))),
  ];
  for (const zone of survivors) expect(ptrs.has(`z${zone.id}.zones.${CATALOG}.`)).toBe(true);
  for (const zone of created.filter((_, i) => i % 2 === 0)) expect(ptrs.has(`z${zone.id}.zones.${CATALOG}.`)).toBe(false);
  // every member names a zone the primary serves
  const { rows: zones } = await db.query<{ id: string; name: string }>('select id, name from domains');
  const byId = new Map(zones.map((z) => [`z${z.id}.zones.${CATALOG}.`, `${z.name}.`]));
  for (const [owner, rdata] of ptrs) expect(byId.get(owner)).toBe(rdata);
}, 60_000);

test('a zone that never joined the catalog leaves it unchanged when deleted; the worker admits a waiting zone', async () => {
  // a committed zone whose admission did not run (its process stopped in between), written straight to the
  // database; the worker admits it on its next poll
  const serial = await catalogSerial();
  const {
    rows: [waiting],
  } = await db.query<{ id: string }>(`insert into domains (user_id, name, serial) values ($1, 'waiting.zk-cat.test', 1) returning id`, [
    userId,
  ]);
  await waitFor('the worker to admit the waiting zone', async () =>
    (await db.query('select catalog_serial from domains where id = $1', [waiting.id])).rows[0].catalog_serial ? true : undefined,
  );
  const admitted = await catalogSerial();
  expect(admitted).toBeGreaterThan(serial);
  const ptr = await dig([...at(), `z${waiting.id}.zones.${CATALOG}`, 'PTR']);
  expect(records(ptr).map((r) => r.rdata)).toEqual(['waiting.zk-cat.test.']);

  // a zone deleted through the API before it joined: the catalog's serial and journal do not move. Another
  // connection holds the admission turn meanwhile, so that neither the worker nor a create admits it first.
  const holder = new Client({ connectionString: app.settings.databaseUrl });
  await holder.connect();
  try {
    await holder.query('begin');
    await holder.query(`select pg_advisory_xact_lock(hashtext('zonekeeper catalog admission ' || $1))`, [CATALOG]);
    const {
      rows: [never],
    } = await db.query<{ id: string }>(`insert into domains (user_id, name, serial) values ($1, 'never.zk-cat.test', 1) returning id`, [
      userId,
    ]);
    const journalBefore = (await db.query('select count(*)::int as n from changes where zone = $1', [CATALOG])).rows[0].n;
    const res = await app.gql(`mutation($id: ID!) { deleteDomain(id: $id) }`, { id: never.id });
    expect(res.errors).toBeUndefined();
    expect(await catalogSerial()).toBe(admitted);
    expect((await db.query('select count(*)::int as n from changes where zone = $1', [CATALOG])).rows[0].n).toBe(journalBefore);
    await holder.query('commit');
  } finally {
    await holder.end();
  }
}, 60_000);

test("a user's deletion deletes each zone as a zone's deletion does: journalled, out of the catalog, in its queue", async () => {
  const owner = await app.gql(`mutation { createUser(input: {email: "leaving@example.com"}) { id } }`);
  expect(owner.errors).toBeUndefined();
  const names = ['a.leaving.zk-cat.test', 'b.leaving.zk-cat.test', 'c.leaving.zk-cat.test'];
  const zones: { id: string; serial: number }[] = [];
  for (const z of names) {
    const res = await app.gql(`mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id serial } }`, {
      u: owner.data.createUser.id,
      z,
    });
    expect(res.errors).toBeUndefined();
    zones.push(res.data.createDomain);
  }
  const before = await catalogSerial();
  const runs: QueueRun[] = [];
  const stop = app.service.services.writeEngine.watchZoneQueues((run) => runs.push(run));
  try {
    const res = await app.gql(`mutation($u: ID!) { deleteUser(id: $u) }`, { u: owner.data.createUser.id });
    expect(res.errors).toBeUndefined();
  } finally {
    stop();
  }

  // each zone ran alone in its own zone's queue as a zone deletion
  const deletions = runs.filter((run) => 'jobs' in run && run.jobs.some((job) => 'wholeZone' in job));
  expect(deletions.map((run) => [run.zoneId, 'jobs' in run && run.jobs])).toEqual(
    zones.map((z) => [Number(z.id), [{ wholeZone: 'delete-zone' }]]),
  );
  // one zone-deleted journal row per zone, with the zone's records, and one catalog change per zone
  const { rows: journal } = await db.query<{ zone: string; serial_before: string; removed: { type: string }[] }>(
    `select zone, serial_before, removed from changes where kind = 'zone-deleted' and zone = any($1::text[]) order by id`,
    [names],
  );
  expect(journal.map((row) => [row.zone, Number(row.serial_before)])).toEqual(names.map((n, i) => [n, zones[i].serial]));
  for (const row of journal) expect(row.removed.map((r) => r.type)).toContain('SOA');
  const { rows: catalogChanges } = await db.query<{ removed: { type: string; rdata: string }[] }>(
    `select removed from changes where zone = $1 and id > (select max(id) from changes where zone = $1 and serial_after = $2) order by id`,
    [CATALOG, before],
  );
  expect(catalogChanges.map((change) => change.removed.filter((r) => r.type === 'PTR').map((r) => r.rdata))).toEqual(
    names.map((n) => [`${n}.`]),
  );

  // a secondary sees them gone: the catalog's IXFR from before removes their members (RFC 1995 §4), its AXFR
  // no longer holds them, and the primary no longer answers for them
  const after = await catalogSerial();
  expect(after).toBeGreaterThan(before);
  const ixfr = records(await dig([...at(), CATALOG, `IXFR=${before}`]));
  expect(Number(ixfr[0].rdata.split(' ')[2])).toBe(after);
  expect(ixfr.filter((r) => r.type === 'PTR').map((r) => [r.name, r.rdata])).toEqual(
    zones.map((z, i) => [`z${z.id}.zones.${CATALOG}.`, `${names[i]}.`]),
  );
  const ptrs = records(await dig([...at(), CATALOG, 'AXFR'])).filter((r) => r.type === 'PTR');
  for (const name of names) expect(ptrs.map((r) => r.rdata)).not.toContain(`${name}.`);
  for (const name of names) expect((await dig([...at(), name, 'SOA'])).status).toBe('REFUSED');
  expect((await db.query('select count(*)::int as n from domains where name = any($1::text[])', [names])).rows[0].n).toBe(0);
}, 60_000);
