/**
 * A zone change's statement runs under the plan PostgreSQL makes once a connection, without its values
 * (`RowOptions.plan: 'generic'`, src/db/pool.ts): planning it for its values cost as much as running it, on
 * every write. What makes that safe is that the generic plan reads the zone by key whatever the values: every
 * scan of a zone's records and signer records probes an id or an owner, none reads the zone whole. Read here
 * from PostgreSQL's own plan of the statements the write engine sends (the Database's observers see each), on
 * zones of 2,000 records with their statistics taken.
 */
import { Sql } from '../../src/db/pool';
import { forcedGenericPlan, scansOf } from '../support/plans';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';

let app: TestApp;
let userId: number;
const RECORDS = 2000;

beforeAll(async () => {
  app = await startTestApp();
  const user = await app.http.post('/api/user/add').set('x-api-key', ADMIN_KEY).send({ email: 'plans@example.com' }).expect(201);
  userId = user.body.id;
  // another zone's view overlays, many: a write reads a zone's own overlays by key, not every zone's
  await app.http.post('/api/domain/add').set('x-api-key', ADMIN_KEY).send({ user_id: userId, zone: 'elsewhere.plans.test' }).expect(201);
  await db().rows(`insert into tsig_keys (name, algorithm, secret) values ('plans-view.', 'hmac-sha256', '\\x00')`);
  await db().rows(`insert into views (name, tsig_key_id) select 'plans', id from tsig_keys where name = 'plans-view.'`);
  await db().rows(
    `insert into view_overlays (domain_id, view_id, owner, type, action)
     select d.id, v.id, 'host' || n, 'A', 'hide' from domains d, views v, generate_series(1, $1::int) as n
      where d.name = 'elsewhere.plans.test' and v.name = 'plans'`,
    [RECORDS],
  );
  // and its disabled records and protected RRsets, as many: all of each table is one zone's
  await db().rows(
    `insert into disabled_records (domain_id, owner, type, rdata, ttl)
     select d.id, 'off' || n, 'A', '192.0.2.1', 300 from domains d, generate_series(1, $1::int) as n where d.name = 'elsewhere.plans.test'`,
    [RECORDS],
  );
  await db().rows(
    `insert into protected_rrsets (domain_id, owner, type)
     select d.id, 'kept' || n, 'A' from domains d, generate_series(1, $1::int) as n where d.name = 'elsewhere.plans.test'`,
    [RECORDS],
  );
  for (const table of ['view_overlays', 'disabled_records', 'protected_rrsets']) await db().rows(`analyze ${table}`);
}, 60_000);

afterAll(async () => {
  await app?.close();
});

const db = () => app.service.database.db;
/** how the statement is planned: `plan_cache_mode`, and `enable_seqscan` beside it when off */
const modeOf = (sql: Sql, options?: { plan: 'generic' }) =>
  sql
    .rows(`select current_setting('plan_cache_mode') as mode, current_setting('enable_seqscan') as seqscan`, [], options)
    .then(([row]) => (row.seqscan === 'off' ? `${row.mode}, by index` : (row.mode as string)));

test('a statement asked for its generic plan runs under it alone, and the connection is left as it was', async () => {
  expect(await modeOf(db(), { plan: 'generic' })).toBe('force_generic_plan, by index');
  expect(await modeOf(db())).toBe('auto');
  // on one connection: the setting ends with the statement's own transaction
  expect(await db().connection(async (sql) => [await modeOf(sql, { plan: 'generic' }), await modeOf(sql)])).toEqual([
    'force_generic_plan, by index',
    'auto',
  ]);
  // in a caller's transaction it runs as any other statement: a setting there would outlive it
  expect(await db().transaction((sql) => modeOf(sql, { plan: 'generic' }))).toBe('auto');
});

test('a statement that fails under its generic plan rolls its transaction back and leaves the connection usable', async () => {
  await expect(db().rows('select 1 / 0', [], { plan: 'generic' })).rejects.toMatchObject({ code: '22012' });
  await expect(
    db().connection(async (sql) => {
      await sql.rows('select 1 / 0', [], { plan: 'generic' }).catch(() => undefined);
      return modeOf(sql);
    }),
  ).resolves.toBe('auto');
});

/** a zone of RECORDS A records (hostN), signed with `denial` when given, with its tables' statistics taken */
async function zoneOf(zone: string, denial?: 'NSEC' | 'NSEC3'): Promise<void> {
  await app.http.post('/api/domain/add').set('x-api-key', ADMIN_KEY).send({ user_id: userId, zone }).expect(201);
  await db().rows(
    `insert into records (domain_id, owner, type, rdata, ttl)
     select d.id, 'host' || n, 'A', '192.0.2.' || (n % 250), 300 from domains d cross join generate_series(1, $2::int) as n where d.name = $1`,
    [zone, RECORDS],
  );
  await db().rows('update domains set record_count = record_count + $2 where name = $1', [zone, RECORDS]);
  if (denial) {
    const enabled = await app.gql(`mutation($i: EnableDnssecInput!) { enableDnssec(input: $i) { enabled } }`, { i: { zone, denial } });
    expect(enabled.errors).toBeUndefined();
  }
  await db().rows('analyze records');
  await db().rows('analyze dnssec_records');
}

/** the zone change statements (text and values) the process sends while `work` runs */
async function zoneChanges(work: () => Promise<unknown>): Promise<{ text: string; params: unknown[] }[]> {
  const sent: { text: string; params: unknown[] }[] = [];
  const stop = db().observeStatements((text, params) => {
    if (text.startsWith('with lim as')) sent.push({ text, params: [...params] });
  });
  try {
    await work();
  } finally {
    stop();
  }
  return sent;
}

/** what a REST client sends: an add, an edit and a delete of one record, twice over (the second on the zone's head) */
async function changesOf(zone: string): Promise<{ text: string; params: unknown[] }[]> {
  const api = app.http;
  return zoneChanges(async () => {
    for (const owner of ['new1', 'new2']) {
      const { body } = await api
        .post('/api/record/add')
        .set('x-api-key', ADMIN_KEY)
        .send({ zone, owner, rtype: 'A', ttl: '3600', rdata: '192.0.2.1' })
        .expect(201);
      await api
        .put(`/api/record/edit/${body.id}`)
        .set('x-api-key', ADMIN_KEY)
        .send({ zone, owner, rtype: 'A', ttl: '3600', rdata: '192.0.2.2' })
        .expect(200);
      await api.delete(`/api/record/delete/${body.id}`).set('x-api-key', ADMIN_KEY).expect(204);
    }
  });
}

/** the tables of a zone's data, each read by zone (`domain_id`) and more */
const ZONE_TABLES = ['records', 'dnssec_records', 'changes', 'events', 'view_overlays', 'disabled_records', 'protected_rrsets'];

/**
 * The scans of a zone's tables in `plan` that read more than a probe would: any scan not by an index, and an
 * index scan expected to return 50 rows or more (the zone's 2,000 would be about 2,000), unless it is a
 * question of its own whether the zone has any (an InitPlan by the zone alone: an EXISTS stops at its first
 * row, so a zone with none reads one index page)
 */
const wholeReads = (plan: any) =>
  ZONE_TABLES.flatMap((relation) =>
    scansOf(plan, relation)
      .filter(
        (scan) =>
          !/^Index/.test(scan['Node Type']) ||
          (scan['Plan Rows'] >= 50 && !(scan['Parent Relationship'] === 'InitPlan' && /^\(domain_id = \$\d+\)$/.test(scan['Index Cond']))),
      )
      .map((scan) => `${scan['Node Type']} on ${relation}: ${scan['Plan Rows']} rows, ${scan['Index Cond'] ?? scan.Filter}`),
  );

describe.each([['unsigned'], ['NSEC'], ['NSEC3']] as const)('%s', (signing) => {
  const zone = `${signing.toLowerCase()}.plans.test`;

  test('every zone change reads the zone by key under its generic plan', async () => {
    await zoneOf(zone, signing === 'unsigned' ? undefined : signing);
    const changes = await changesOf(zone);
    // six changes, each written by one such statement at least (one decided again writes again)
    expect(changes.length).toBeGreaterThanOrEqual(6);
    for (const { text, params } of changes) {
      const plan = await db().connection((sql) => forcedGenericPlan(sql, text, params));
      expect(scansOf(plan, 'records').length + scansOf(plan, 'dnssec_records').length).toBeGreaterThan(0);
      expect(wholeReads(plan)).toEqual([]);
    }
    // what the check sees of a statement that reads the zone whole
    const [{ id }] = await db().rows('select id from domains where name = $1', [zone]);
    const whole = await db().connection((sql) => forcedGenericPlan(sql, 'select count(*) from records where domain_id = $1', [id]));
    expect(wholeReads(whole)).not.toEqual([]);
  }, 60_000);
});
