import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, createUserKey, createZone, errorCode } from '../support/fixtures';
import { runCli } from '../support/cli';
import { buildOnce } from '../support/build';

/**
 * Bulk zone creation (docs/scale.md, «Bulk creation»): GraphQL `createDomains`, REST `POST /api/domain/add-many`
 * and the CLI's `zone create --from-file` make many zones in one transaction and one catalog step, all or none;
 * a refused call names every refused zone and leaves no trace (no zone, record, journal row, event, count).
 */
let app: TestApp;
let userId: string;
const CREATE_MANY = `mutation($input: [CreateDomainInput!]!) { createDomains(input: $input) { id name serial } }`;

beforeAll(async () => {
  buildOnce();
  app = await startTestApp({ CATALOG_ZONE: 'catalog.bulk.test', DEFAULT_NS: 'ns1.bulk.net,ns2.bulk.net' });
  userId = await createUser(app, 'bulk@example.org');
}, 180_000);
afterAll(async () => {
  await app?.close();
});

const query = async (text: string, params: unknown[] = []) => app.service.database.db.rows(text, params);
const zonesOf = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}.bulk.test`);

/** what a call may leave behind, to compare before and after a refused one */
async function footprint() {
  const [row] = await query(
    `select (select count(*) from domains)::int as zones, (select count(*) from records)::int as records,
            (select count(*) from changes)::int as journal, (select count(*) from events)::int as events,
            (select sum(zone_count) from users)::int as counted,
            (select serial from catalog_state where name = 'catalog.bulk.test')::bigint as catalog`,
  );
  return row;
}

test('1,000 zones in one call: each with the default records, its journal row and event, in one catalog step', async () => {
  const names = zonesOf('k', 1000);
  const before = await footprint();
  const catalogSteps = async () => Number((await query(`select count(*) from changes where zone = 'catalog.bulk.test'`))[0].count);
  const stepsBefore = await catalogSteps();
  const started = Date.now();
  const res = await app.gql(CREATE_MANY, { input: names.map((zone) => ({ userId, zone })) });
  const ms = Date.now() - started;
  expect(res.errors).toBeUndefined();
  expect(res.data.createDomains.map((d: { name: string }) => d.name)).toEqual(names);
  // ids rise in the order given, as 1,000 single creates would leave them
  const ids = res.data.createDomains.map((d: { id: string }) => Number(d.id));
  expect([...ids].sort((a, b) => a - b)).toEqual(ids);

  const after = await footprint();
  expect(after.zones - before.zones).toBe(1000);
  // SOA, two NS (DEFAULT_NS) and the www CNAME each
  expect(after.records - before.records).toBe(4000);
  expect(after.counted - before.counted).toBe(1000);
  expect(after.events - before.events).toBe(1000);
  const records = await query(
    `select r.owner, r.type, r.rdata from records r join domains d on d.id = r.domain_id where d.name = 'k999.bulk.test' order by r.id`,
  );
  expect(records.map((r: any) => [r.owner, r.type])).toEqual([
    ['@', 'SOA'],
    ['@', 'NS'],
    ['@', 'NS'],
    ['www', 'CNAME'],
  ]);
  expect(records[3].rdata).toBe('k999.bulk.test.');
  // every zone a member of the catalog, joined in one step whose journal row lists all their PTRs
  expect(await catalogSteps()).toBe(stepsBefore + 1);
  const [step] = await query(`select added from changes where zone = 'catalog.bulk.test' order by id desc limit 1`);
  expect(step.added.filter((r: { type: string }) => r.type === 'PTR')).toHaveLength(1000);
  const [members] = await query(`select count(*)::int as n from domains where name like 'k%.bulk.test' and catalog_serial is not null`);
  expect(members.n).toBe(1000);
  const created = await query(`select count(*)::int as n from changes where kind = 'zone-created' and zone like 'k%.bulk.test'`);
  expect(created[0].n).toBe(1000);
  process.stdout.write(`1,000 zones in one createDomains: ${ms} ms (${Math.round(1000 / (ms / 1000))} zones/s)\n`);
}, 120_000);

test('a call with a taken name, a name twice and an invalid name creates none, and names each refused zone', async () => {
  await createZone(app, userId, 'taken.bulk.test');
  const before = await footprint();
  const input = ['fine1.bulk.test', 'taken.bulk.test', 'twice.bulk.test', 'bad..name.bulk.test', 'twice.bulk.test', 'fine2.bulk.test'];
  const res = await app.gql(CREATE_MANY, { input: input.map((zone) => ({ userId, zone })) });
  expect(errorCode(res)).toBe('ZONES_NOT_CREATED');
  const details = res.errors![0].extensions.details as { field: string; code: string; zone: string; message: string }[];
  expect(details.map((d) => [d.field, d.code, d.zone])).toEqual([
    ['input[1].zone', 'DUPLICATE_ZONE', 'taken.bulk.test'],
    // the name's own problem, as createDomain names it
    ['input[3].zone', 'NAME_EMPTY_LABEL', 'bad..name.bulk.test'],
    ['input[4].zone', 'DUPLICATE_ZONE', 'twice.bulk.test'],
  ]);
  expect(details[2].message).toContain('input[2]');
  expect(res.errors![0].message).toContain('3 refused');
  // nothing made, not even the valid ones
  expect(await footprint()).toEqual(before);
  expect(await query(`select name from domains where name in ('fine1.bulk.test', 'fine2.bulk.test', 'twice.bulk.test')`)).toEqual([]);
});

test("a template's records for every zone; an unknown template refuses the zones that name it", async () => {
  const template = await app.gql(
    `mutation($u: ID) { createRecordTemplate(input: {userId: $u, name: "web", records: [
        {owner: "@", type: "SOA", rdata: "ns1.bulk.net. hostmaster.{zone}. 0 3600 1800 604800 86400", ttl: 3600},
        {owner: "@", type: "NS", rdata: "ns1.bulk.net.", ttl: 3600},
        {owner: "@", type: "A", rdata: "192.0.2.80", ttl: 300}]}) { id } }`,
    { u: userId },
  );
  expect(template.errors).toBeUndefined();
  const refused = await app.gql(CREATE_MANY, {
    input: [
      { userId, zone: 't1.bulk.test', template: 'web' },
      { userId, zone: 't2.bulk.test', template: 'nope' },
    ],
  });
  expect(errorCode(refused)).toBe('ZONES_NOT_CREATED');
  expect(refused.errors![0].extensions.details.map((d: any) => [d.field, d.code])).toEqual([['input[1].template', 'TEMPLATE_NOT_FOUND']]);
  const made = await app.gql(CREATE_MANY, {
    input: [
      { userId, zone: 't1.bulk.test', template: 'web' },
      { userId, zone: 't2.bulk.test', template: 'web' },
      { userId, zone: 't3.bulk.test' },
    ],
  });
  expect(made.errors).toBeUndefined();
  const rows = await query(
    `select d.name, string_agg(r.type, ',' order by r.id) as types, min(r.rdata) filter (where r.type = 'A') as a
       from domains d join records r on r.domain_id = d.id where d.name like 't_.bulk.test' group by d.name order by d.name`,
  );
  expect(rows).toEqual([
    { name: 't1.bulk.test', types: 'SOA,NS,A', a: '192.0.2.80' },
    { name: 't2.bulk.test', types: 'SOA,NS,A', a: '192.0.2.80' },
    { name: 't3.bulk.test', types: 'SOA,NS,NS,CNAME', a: null },
  ]);
});

test("a user's key: its quota and another user's zone refuse the zones named, and nothing is made", async () => {
  const owner = await createUser(app, 'quota@example.org');
  const key = await createUserKey(app, owner);
  const other = await createUser(app, 'other@example.org');
  await createZone(app, other, 'held.example.com');
  await query('update users set max_zones = 3 where id = $1', [owner]);
  const before = await footprint();
  const nested = await app.gql(
    CREATE_MANY,
    {
      input: [
        { userId: owner, zone: 'mine.example.net' },
        { userId: owner, zone: 'a.held.example.com' },
      ],
    },
    key,
  );
  expect(errorCode(nested)).toBe('ZONES_NOT_CREATED');
  expect(nested.errors![0].extensions.details.map((d: any) => [d.field, d.code, d.zone])).toEqual([
    ['input[1].zone', 'ZONE_OWNED_BY_ANOTHER_USER', 'a.held.example.com'],
  ]);
  const overQuota = await app.gql(CREATE_MANY, { input: zonesOf('q', 4).map((zone) => ({ userId: owner, zone })) }, key);
  expect(errorCode(overQuota)).toBe('ZONES_NOT_CREATED');
  const details = overQuota.errors![0].extensions.details;
  expect(details.map((d: any) => d.code)).toEqual(['QUOTA_EXCEEDED', 'QUOTA_EXCEEDED', 'QUOTA_EXCEEDED', 'QUOTA_EXCEEDED']);
  expect(details[0]).toMatchObject({ field: 'input[0].maxZones', limit: 3, current: 0 });
  expect(await footprint()).toEqual(before);
  // within the quota it is made, counted against it
  const within = await app.gql(CREATE_MANY, { input: zonesOf('q', 3).map((zone) => ({ userId: owner, zone })) }, key);
  expect(within.errors).toBeUndefined();
  expect((await query('select zone_count from users where id = $1', [owner]))[0].zone_count).toBe(3);
});

test('REST: POST /api/domain/add-many creates them (201), or none with 400 ZONES_NOT_CREATED naming the zones', async () => {
  const made = await app.http
    .post('/api/domain/add-many')
    .set('X-API-Key', ADMIN_KEY)
    .send({ user_id: Number(userId), zones: ['r1.bulk.test', 'r2.bulk.test'] });
  expect(made.status).toBe(201);
  expect(made.body.map((z: { zone: string }) => z.zone)).toEqual(['r1.bulk.test', 'r2.bulk.test']);
  expect(made.body.every((z: { id: unknown }) => Number.isInteger(z.id))).toBe(true);
  const refused = await app.http
    .post('/api/domain/add-many')
    .set('X-API-Key', ADMIN_KEY)
    .send({ user_id: Number(userId), zones: ['r3.bulk.test', 'r1.bulk.test'] });
  expect(refused.status).toBe(400);
  expect(JSON.stringify(refused.body)).toContain('ZONES_NOT_CREATED');
  expect(JSON.stringify(refused.body)).toContain('input[1].zone');
  expect(await query(`select name from domains where name = 'r3.bulk.test'`)).toEqual([]);
});

test('CLI: zone create --from-file makes the zones of the file (comments and blank lines skipped), or none', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zk-bulk-'));
  const file = path.join(dir, 'zones.txt');
  writeFileSync(file, "# a provider's new customers\ncli1.bulk.test\n\ncli2.bulk.test.\n  CLI3.bulk.test\n");
  const run = await runCli(app.baseUrl, ['zone', 'create', 'bulk@example.org', '--from-file', file, '--json']);
  expect(run.err).toBe('');
  expect(run.code).toBe(0);
  expect(JSON.parse(run.out).map((z: { name: string }) => z.name)).toEqual(['cli1.bulk.test', 'cli2.bulk.test', 'cli3.bulk.test']);
  const bad = path.join(dir, 'bad.txt');
  writeFileSync(bad, 'cli4.bulk.test\ncli1.bulk.test\n');
  const refused = await runCli(app.baseUrl, ['zone', 'create', 'bulk@example.org', '--from-file', bad]);
  expect(refused.code).not.toBe(0);
  expect(refused.err).toContain('ZONES_NOT_CREATED');
  expect(refused.err).toContain('input[1].zone: cli1.bulk.test');
  expect(await query(`select name from domains where name = 'cli4.bulk.test'`)).toEqual([]);
}, 60_000);
