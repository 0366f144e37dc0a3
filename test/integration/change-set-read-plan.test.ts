/**
 * The read of a change set (`readZone` with `touching`: the records at the set's owners and its records by id,
 * src/repositories/zone-writes.ts) as PostgreSQL runs it once the statement has run five times on a connection
 * and the plan kept is the generic one, made without the values. That plan must probe the zone once per owner
 * and per id, and never read the zone's other records: the plan kept with `owner = any($1) or id = any($2)`
 * scanned the zone and compared every record with every owner of the set, so a 1,000-rrset PATCH grew slower
 * with each set it added (bench/FINDINGS.md, «Issue 40: the 1,000-rrset stall»). What is asserted is the rows
 * the plan read, not time.
 */
import { readZone } from '../../src/repositories/zone-writes';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';
import { genericPlan, rowsRead } from '../support/plans';

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
