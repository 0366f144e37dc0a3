/**
 * What a write of a signed zone costs the database (docs/dnssec.md, «Speed»): a record added to a zone the
 * process knows signed asks the signer's questions with the zone's read, so it is two statements, as in an
 * unsigned zone (the read, the write with the signer's records); a change whose owners are told only by its
 * decision (a delete by record id) asks them in one statement of its own. Counted at the Database, which
 * every statement of the process goes through (src/db/pool.ts).
 */
import { questionsAbout } from '../../src/dns/dnssec/incremental';
import { readZone } from '../../src/repositories/zone-writes';
import { signerWriteCtes } from '../../src/repositories/dnssec';
import { genericPlan, indexEntriesRead, rowsRead } from '../support/plans';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';

let app: TestApp;
let userId: number;
const statements: string[] = [];

beforeAll(async () => {
  app = await startTestApp();
  app.service.database.db.observeStatements((text) => statements.push(text.replace(/\s+/g, ' ')));
  const user = await app.http.post('/api/user/add').set('x-api-key', ADMIN_KEY).send({ email: 'signed-writes@example.com' }).expect(201);
  userId = user.body.id;
}, 60_000);

afterAll(async () => {
  await app?.close();
});

/** the statements of `work` about the zone: the journal's wake-up (pg_notify) and its readers are not the write's */
async function zoneStatements(work: () => Promise<unknown>): Promise<string[]> {
  statements.length = 0;
  await work();
  // (and the "in use" guard's look for analytics, made at most every 10 s per process, not per write)
  return statements.filter((text) => !/pg_notify|from changes|from "query_secondaries"/.test(text));
}

/** a zone of its own, signed with `denial` (NSEC or NSEC3) */
async function signedZone(zone: string, denial: string): Promise<void> {
  await app.http.post('/api/domain/add').set('x-api-key', ADMIN_KEY).send({ user_id: userId, zone }).expect(201);
  const enabled = await app.gql(`mutation($i: EnableDnssecInput!) { enableDnssec(input: $i) { enabled } }`, { i: { zone, denial } });
  expect(enabled.errors).toBeUndefined();
}

/** a new A record, as a REST client adds one */
const addRecord = (zone: string, owner: string, rdata: string) =>
  app.http.post('/api/record/add').set('x-api-key', ADMIN_KEY).send({ zone, owner, rtype: 'A', ttl: '3600', rdata }).expect(201);

describe.each(['NSEC', 'NSEC3'])('%s', (denial) => {
  const zone = `${denial.toLowerCase()}.signed-writes.test`;

  beforeAll(() => signedZone(zone, denial));
  const add = (owner: string) => addRecord(zone, owner, '192.0.2.7');

  it('adds a record, signed: first the read with the signer’s questions and the write, then on the zone’s head, one statement', async () => {
    const sql = await zoneStatements(() => add('host1'));
    expect(sql).toHaveLength(3);
    expect(sql[0]).toMatch(/^select d\.id, d\.name, d\.serial.* as signer from domains d/);
    expect(sql[1]).toMatch(/^with lim as .*insert into dnssec_records/);
    // the zone read whole, once, for its head (write-engine/zone-heads.ts)
    expect(sql[2]).toMatch(/as whole_signer from domains d/);
    const onHead = await zoneStatements(() => add('host2'));
    expect(onHead).toHaveLength(1);
    expect(onHead[0]).toMatch(/^with lim as .*exists \(select 1 from dnssec_zones z .*insert into dnssec_records/);
    // deeper names too (NSEC3: their empty non-terminals join the chain)
    expect(await zoneStatements(() => add('a.b.deep'))).toHaveLength(1);
  });

  it('deletes a record by id in three: its owner is known after the read, so the signer asks once on its own', async () => {
    const { body } = await add('gone');
    const sql = await zoneStatements(() => app.http.delete(`/api/record/delete/${body.id}`).set('x-api-key', ADMIN_KEY).expect(204));
    expect(sql).toHaveLength(3);
    expect(sql[1]).toMatch(/^select \(with nb as/);
  });
});

/**
 * A new zone of 500 records (hostN A), signed with NSEC: about three times as many signer records, and the
 * tables' statistics as the inserts left them. Returns the service's database.
 */
async function signedZoneOf500(zone: string) {
  await app.http.post('/api/domain/add').set('x-api-key', ADMIN_KEY).send({ user_id: userId, zone }).expect(201);
  const db = app.service.database.db;
  await db.rows(
    `insert into records (domain_id, owner, type, rdata, ttl)
     select d.id, 'host' || n, 'A', '192.0.2.' || (n % 250), 300 from domains d cross join generate_series(1, 500) as n where d.name = $1`,
    [zone],
  );
  const enabled = await app.gql(`mutation($i: EnableDnssecInput!) { enableDnssec(input: $i) { enabled } }`, {
    i: { zone, denial: 'NSEC' },
  });
  expect(enabled.errors).toBeUndefined();
  return db;
}

test('the read with the signer’s questions keeps one generic plan, and that plan probes the zone by index', async () => {
  const zone = 'plan.signed-writes.test';
  const db = await signedZoneOf500(zone);
  // the statement of a record added at a new owner, as the write engine sends it
  let statement: { text: string; params: unknown[] } | undefined;
  const capture = { rows: async (text: string, params: unknown[]) => ((statement = { text, params }), []) } as any;
  await readZone(capture, { zone: { name: zone }, owner: 'new' }, false, questionsAbout(zone, ['new', '@'], { kind: 'nsec' }));
  const { text, params } = statement!;
  const plan = await db.connection((sql) => genericPlan(sql, text, params));
  // the generic plan shows the parameters, a plan for the values shows them as constants
  expect(plan['Index Cond']).toMatch(/\$\d+/);
  // the owner, the apex and the chain's neighbours, not the zone's 500 records and their signer records
  expect(rowsRead(plan, 'records')).toBeLessThan(20);
  expect(rowsRead(plan, 'dnssec_records')).toBeLessThan(40);
});

test('the write removes the signer records it replaces by their ids, without reading the zone’s other signer records', async () => {
  const zone = 'delete-plan.signed-writes.test';
  const db = await signedZoneOf500(zone);
  // what a new name removes: the SOA's RRSIG, its predecessor's NSEC and that NSEC's RRSIG
  const removed = await db.rows(
    `select s.id, s.owner, s.type, s.rdata, s.ttl from dnssec_records s join domains d on d.id = s.domain_id
      where d.name = $1 and s.owner in ('@', 'host99') and s.type in ('RRSIG', 'NSEC') order by s.id limit 3`,
    [zone],
  );
  expect(removed).toHaveLength(3);
  const params: unknown[] = [];
  const add = (value: unknown) => `$${params.push(value)}`;
  const [{ id: domainId }] = await db.rows('select id from domains where name = $1', [zone]);
  const domain = add(domainId);
  const { parts: ctes } = signerWriteCtes(
    add,
    removed.map((r) => ({ id: Number(r.id), owner: r.owner, type: r.type, rdata: r.rdata, ttl: Number(r.ttl) })),
    [],
  );
  const text = `with dom as (select id from domains where id = ${domain}::bigint), ${ctes.join(', ')} select 1`;
  // in a transaction rolled back: the rows stay for the tests after
  const plan = await db.connection((sql) => genericPlan(sql, text, params, { rolledBack: true }));
  // the three rows by primary key, not the zone's 1,500 signer records on (domain_id, owner)
  expect(indexEntriesRead(plan, 'dnssec_records_domain_owner_index')).toBe(0);
  expect(indexEntriesRead(plan, 'dnssec_records_pkey')).toBeLessThan(10);
});

describe.each(['NSEC', 'NSEC3'])('%s: signer records written over the rows they replace', (denial) => {
  const zone = `in-place-${denial.toLowerCase()}.signed-writes.test`;
  const db = () => app.service.database.db;
  /** the apex SOA's RRSIG rows and the denial records (NSEC or NSEC3), by id */
  const signerRows = () =>
    db().rows<{ id: string; owner: string; type: string; rdata: string }>(
      `select s.id, s.owner, s.type, s.rdata from dnssec_records s join domains d on d.id = s.domain_id
        where d.name = $1 and (s.type = $2 or (s.owner = '@' and s.type = 'RRSIG' and s.rdata like 'SOA %')) order by s.id`,
      [zone, denial],
    );

  beforeAll(() => signedZone(zone, denial));
  const add = (owner: string) => addRecord(zone, owner, '192.0.2.8');

  it('keeps the SOA RRSIG’s row and the rewritten NSEC/NSEC3 rows, and journals what they held', async () => {
    // the first on a read, the next on the zone's head (write-engine/zone-heads.ts): both paths
    for (const owner of ['m1', 'm2', 'm3']) {
      const before = await signerRows();
      const soaSig = before.find((r) => r.type === 'RRSIG')!;
      await add(owner);
      const after = await signerRows();
      const soaSigAfter = after.find((r) => r.type === 'RRSIG')!;
      // the SOA's RRSIG is new (the serial moved) in the row it had
      expect(soaSigAfter.id).toBe(soaSig.id);
      expect(soaSigAfter.rdata).not.toBe(soaSig.rdata);
      // the denial record whose next owner (or hash) moved is rewritten in its row; one new row joins the chain
      const rewritten = before.filter((r) => r.type === denial && after.some((a) => a.id === r.id && a.rdata !== r.rdata));
      expect(rewritten.length).toBeGreaterThanOrEqual(1);
      expect(after.filter((r) => r.type === denial).length).toBeGreaterThan(before.filter((r) => r.type === denial).length);
      // the journal (and so IXFR, RFC 1995) still says what the rows held before
      const [change] = await db().rows<{ signer_removed: { type: string; rdata: string }[] }>(
        'select c.signer_removed from changes c where c.zone = $1 order by c.id desc limit 1',
        [zone],
      );
      expect(change.signer_removed.map((r) => r.rdata)).toEqual(expect.arrayContaining([soaSig.rdata, ...rewritten.map((r) => r.rdata)]));
    }
  });
});

test('a record written over a removed row that is gone is inserted, not lost', async () => {
  const zone = 'gone-row.signed-writes.test';
  const db = await signedZoneOf500(zone);
  const [{ id: domainId }] = await db.rows('select id from domains where name = $1', [zone]);
  const [soaSig] = await db.rows(
    `select s.id, s.owner, s.type, s.rdata, s.ttl, s.expires_at from dnssec_records s
      where s.domain_id = $1 and s.owner = '@' and s.type = 'RRSIG' and s.rdata like 'SOA %'`,
    [domainId],
  );
  const params: unknown[] = [];
  const add = (value: unknown) => `$${params.push(value)}`;
  const domain = add(domainId);
  const removed = [{ id: Number(soaSig.id), owner: '@', type: 'RRSIG', rdata: soaSig.rdata, ttl: Number(soaSig.ttl) }];
  const added = [{ owner: '@', type: 'RRSIG', rdata: soaSig.rdata, ttl: 7, expiresAt: 2_000_000_000 }];
  const { parts, inserted, idsOf } = signerWriteCtes(add, removed, added);
  const text = `with dom as (select id from domains where id = ${domain}::bigint), ${parts.join(', ')} select ${inserted} as inserted`;
  await db.connection(async (sql) => {
    await sql.rows('begin');
    try {
      // the row gone (by another hand than a change of the zone's serial)
      await sql.rows('delete from dnssec_records where id = $1', [soaSig.id]);
      const [row] = await sql.rows(text, params);
      expect(idsOf(row.inserted)).toEqual([Number(soaSig.id)]);
      const rows = await sql.rows('select ttl, rdata from dnssec_records where id = $1', [soaSig.id]);
      expect(rows).toEqual([{ ttl: 7, rdata: soaSig.rdata }]);
    } finally {
      await sql.rows('rollback');
    }
  });
});
