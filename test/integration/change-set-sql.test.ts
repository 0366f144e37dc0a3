/**
 * What a change set costs PostgreSQL, asserted by its statements and the rows their plans read, not by time.
 *
 * The read of a change set (`readZone` with `touching`: the records at the set's owners and its records by id,
 * src/repositories/zone-writes.ts) as PostgreSQL runs it once the statement has run five times on a connection
 * and the plan kept is the generic one, made without the values. That plan must probe the zone once per owner
 * and per id, and never read the zone's other records: the plan kept with `owner = any($1) or id = any($2)`
 * scanned the zone and compared every record with every owner of the set, so a 1,000-rrset PATCH grew slower
 * with each set it added (bench/FINDINGS.md, «The PowerDNS API: the 1,000-rrset stall»).
 *
 * A set that replaces an RRset's values (the ACME clients' TXT, a PATCH REPLACE) is two statements, the read
 * and the write, as one that only adds; only a set that removes a record and adds one of the same identity (a
 * TTL changed) deletes first, in a transaction.
 */
import { readZone } from '../../src/repositories/zone-writes';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';
import { genericPlan, rowsRead } from '../support/plans';
import type { RequestContext } from '../../src/services/context';

let app: TestApp;
const ZONE = 'plan.change-sets.test';
/** more records than the set's owners: a plan that reads the zone reads all of them */
const RECORDS = 3000;
const SMALL_ZONES = 1000;

beforeAll(async () => {
  app = await startTestApp();
  const userId = await createUser(app, 'change-set-plan@example.org');
  await createZone(app, userId, ZONE);
  const db = app.service.database.db;
  // the table as the inserts leave it, with no statistics until the test runs ANALYZE (the bench's PostgreSQL
  // runs without autovacuum): the planner's view when the bench's connections kept the scan
  await db.rows('alter table records set (autovacuum_enabled = false)');
  await db.rows(
    `insert into records (domain_id, owner, type, rdata, ttl)
     select d.id, 'host' || n, 'A', '192.0.2.' || (n % 250), 3600 from domains d cross join generate_series(1, $2::int) as n where d.name = $1`,
    [ZONE, RECORDS],
  );
  // beside it, many small zones, as a service of many users holds: to the statistics the average zone is small,
  // and so is any zone whose rows the plan made without the values may read (a scan kept after ANALYZE too)
  await db.rows(
    `with z as (insert into domains (user_id, name, serial, record_count, catalog_serial)
       select $1::bigint, 'small' || n || '.change-sets.test', 1, 3, 1 from generate_series(1, $2::int) as n returning id)
     insert into records (domain_id, owner, type, rdata, ttl) select z.id, '@', 'NS', 'ns' || n || '.example.net.', 3600 from z cross join generate_series(1, 3) as n`,
    [userId, SMALL_ZONES],
  );
}, 60_000);

afterAll(async () => {
  await app?.close();
});

/** a PATCH of 1,000 rrsets at new names, as the change-set service asks for it: the apex, the set's owners, and some records by id */
const touching = (recordIds: number[]) => ({
  owners: ['@', ...Array.from({ length: 1000 }, (_, i) => `new${i}`)],
  recordIds,
});

/** the statement `readZone` sends for the request, and its parameters */
async function readStatement(request: Parameters<typeof readZone>[1]): Promise<{ text: string; params: unknown[] }> {
  let statement: { text: string; params: unknown[] } | undefined;
  const capture = { rows: async (text: string, params: unknown[]) => ((statement = { text, params }), []) } as any;
  await readZone(capture, request, false);
  return statement!;
}

const idsOf = async (owners: string[]): Promise<number[]> =>
  (
    await app.service.database.db.rows(
      'select r.id from records r join domains d on d.id = r.domain_id where d.name = $1 and r.owner = any($2::text[])',
      [ZONE, owners],
    )
  ).map((row) => Number(row.id));

test('reads the records at the set’s owners and its records by id, each once, in id order', async () => {
  const db = app.service.database.db;
  const [host7, host9] = [await idsOf(['host7']), await idsOf(['host9'])].map(([id]) => id);
  // host7 by owner and by id: one row
  const zone = await db.connection((sql) =>
    readZone(sql, { zone: { name: ZONE }, touching: { owners: ['@', 'host7', 'absent'], recordIds: [host7, host9] } }, false),
  );
  const apex = await idsOf(['@']);
  expect(zone!.sameOwner.map((r) => r.id)).toEqual([...apex, host7, host9].sort((a, b) => a - b));
  expect(zone!.sameOwner.filter((r) => r.owner === 'host7')).toEqual([
    { id: host7, owner: 'host7', type: 'A', rdata: '192.0.2.7', ttl: 3600 },
  ]);
});

test.each([
  ['without statistics', false],
  ['after ANALYZE', true],
])(
  'the plan kept for a 1,000-owner set’s read probes the zone per owner and per id (%s), reading none of its other records',
  async (_, analyze) => {
    const db = app.service.database.db;
    if (analyze) await db.rows('analyze records');
    const { text, params } = await readStatement({ zone: { name: ZONE }, touching: touching(await idsOf(['host1', 'host2', 'host3'])) });
    const plan = await db.connection((sql) => genericPlan(sql, text, params));
    // the generic plan shows the parameters, a plan for the values shows them as constants
    expect(plan['Index Cond']).toMatch(/\$\d+/);
    // the apex's SOA and NS and the three records by id, not the zone's 3,000 records
    expect(rowsRead(plan, 'records')).toBeLessThan(20);
  },
);

const ctx = (): RequestContext => ({ db: app.service.database.db, principal: { kind: 'admin', keyId: 0 } });

/** the statements `work` sends, but the journal's wake-up and its readers' (the worker, the change feed) */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const stop = app.service.database.db.observeStatements((text) => seen.push(text.replace(/\s+/g, ' ').trim()));
  try {
    await work();
  } finally {
    stop();
  }
  // (whether any secondary ever sent query analytics is asked at most once in 10 s, whichever write comes then:
  // the in-use guard's, not the write's)
  return seen.filter(
    (text) => !/pg_notify|from changes|zone_secondaries|catalog_serial is null|secondary_zone_state|from "query_secondaries"/.test(text),
  );
}

const rrset = async (owner: string) =>
  (
    await app.service.database.db.rows(
      'select r.type, r.rdata, r.ttl from records r join domains d on d.id = r.domain_id where d.name = $1 and r.owner = $2 order by r.rdata',
      [ZONE, owner],
    )
  ).map((row) => ({ type: row.type, rdata: row.rdata, ttl: Number(row.ttl) }));

test('a REPLACE of an RRset with new values is one statement on the zone this process holds, the write with its delete', async () => {
  const { zoneChanges } = app.service.services;
  const replace = (rdatas: string[], ttl = 300) =>
    zoneChanges.apply(ctx(), { zone: ZONE, changes: [{ kind: 'REPLACE_RRSET', owner: '_acme-challenge', type: 'TXT', ttl, rdatas }] });
  await replace(['"token-1"', '"token-2"']);
  // the zone as the first REPLACE left it is the process's (write-engine/zone-heads.ts): no read, the write proves it
  const sql = await statementsOf(() => replace(['"token-3"']));
  expect(sql).toHaveLength(1);
  expect(sql[0]).toMatch(/^with lim as .*del as \(delete from records/);
  expect(await rrset('_acme-challenge')).toEqual([{ type: 'TXT', rdata: '"token-3"', ttl: 300 }]);
  // the journal row says what went and what came
  const [journal] = await app.service.database.db.rows(`select removed, added from changes where zone = $1 order by id desc limit 1`, [
    ZONE,
  ]);
  expect(
    journal.removed
      .filter((r: any) => r.type === 'TXT')
      .map((r: any) => r.rdata)
      .sort(),
  ).toEqual(['"token-1"', '"token-2"']);
  expect(journal.added.filter((r: any) => r.type === 'TXT').map((r: any) => r.rdata)).toEqual(['"token-3"']);
});

test('a REPLACE that keeps a value with a new TTL deletes first, in a transaction holding the zone row', async () => {
  const { zoneChanges } = app.service.services;
  const replace = (ttl: number) =>
    zoneChanges.apply(ctx(), { zone: ZONE, changes: [{ kind: 'REPLACE_RRSET', owner: 'ttl', type: 'A', ttl, rdatas: ['192.0.2.80'] }] });
  await replace(300);
  const sql = await statementsOf(() => replace(900));
  // the optimistic read, then the locked attempt: begin, lock, read, delete, write, commit
  expect(sql.filter((text) => /^delete from records s using/.test(text))).toHaveLength(1);
  expect(sql).toContain('begin');
  expect(await rrset('ttl')).toEqual([{ type: 'A', rdata: '192.0.2.80', ttl: 900 }]);
});

test('a set of new records sends them once: the journal’s additions are the inserts’ parameter and the SOA', async () => {
  const { zoneChanges } = app.service.services;
  const names = Array.from({ length: 200 }, (_, i) => `once${i}`);
  const sent: unknown[][] = [];
  const stop = app.service.database.db.observeStatements((text, params) => {
    if (/^with lim as/.test(text.trim())) sent.push([...params]);
  });
  try {
    await zoneChanges.apply(ctx(), {
      zone: ZONE,
      changes: names.map((owner, i) => ({ kind: 'REPLACE_RRSET', owner, type: 'A', ttl: 300, rdatas: [`198.51.100.${i % 250}`] })),
    });
  } finally {
    stop();
  }
  expect(sent).toHaveLength(1);
  // one parameter names the records' RDATA, not two
  const holding = sent[0].filter((value) => typeof value === 'string' && value.includes('"rdata":"198.51.100.199"'));
  expect(holding).toHaveLength(1);
  const [journal] = await app.service.database.db.rows(`select added, removed from changes where zone = $1 order by id desc limit 1`, [
    ZONE,
  ]);
  expect(journal.added).toHaveLength(201);
  expect(journal.added.slice(0, 200)).toEqual(names.map((owner, i) => ({ owner, type: 'A', ttl: 300, rdata: `198.51.100.${i % 250}` })));
  expect(journal.added[200]).toMatchObject({ owner: '@', type: 'SOA' });
  expect(journal.removed).toEqual([expect.objectContaining({ owner: '@', type: 'SOA' })]);
});
