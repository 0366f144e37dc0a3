/**
 * Nameserver sets (docs/transfers.md, «Nameserver sets») through GraphQL: the admin creates, lists, updates and
 * deletes sets; `default` is the settings'; a zone is created in a set (its NS are the set's) and moved (its NS
 * follow only when they were the old set's); the database's constraints hold whatever the API lets through.
 */
import { Client } from 'pg';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createUserKey, createZone, errorCode } from '../support/fixtures';

let app: TestApp;
let db: Client;
let userId: string;
let userKey: string;

const SET_FIELDS = 'id name isDefault secondaries nsNames catalogZone zoneCount';
const CREATE = `mutation($i: NameserverSetInput!) { createNameserverSet(input: $i) { ${SET_FIELDS} } }`;
const MOVE = `mutation($z: String!, $s: String!) { moveZoneToNameserverSet(zone: $z, nameserverSet: $s) { name nameserverSet { name } } }`;

beforeAll(async () => {
  app = await startTestApp({
    SECONDARIES: '127.0.0.1:5399',
    DEFAULT_NS: 'ns1.default.test., ns2.default.test.',
    CATALOG_ZONE: 'catalog.default.test',
  });
  db = new Client({ connectionString: app.settings.databaseUrl });
  await db.connect();
  userId = await createUser(app, 'ns-sets@example.com');
  userKey = await createUserKey(app, userId);
}, 60_000);

afterAll(async () => {
  await db?.end();
  await app?.close();
});

async function apexNs(zone: string): Promise<string[]> {
  const { rows } = await db.query(
    `select r.rdata from records r join domains d on d.id = r.domain_id where d.name = $1 and r.owner = '@' and r.type = 'NS' order by r.rdata`,
    [zone],
  );
  return rows.map((r) => r.rdata);
}

test('the default set is the settings: SECONDARIES, DEFAULT_NS, CATALOG_ZONE; read-only through the API', async () => {
  const list = await app.gql(`{ nameserverSets { ${SET_FIELDS} } }`);
  expect(list.errors).toBeUndefined();
  expect(list.data.nameserverSets[0]).toMatchObject({
    name: 'default',
    isDefault: true,
    secondaries: ['127.0.0.1:5399'],
    nsNames: ['ns1.default.test.', 'ns2.default.test.'],
    catalogZone: 'catalog.default.test',
  });
  const update = await app.gql(`mutation { updateNameserverSet(name: "default", input: {secondaries: [], nsNames: ["a.test."]}) { id } }`);
  expect(errorCode(update)).toBe('NAMESERVER_SET_FROM_SETTINGS');
  const remove = await app.gql(`mutation { deleteNameserverSet(name: "default") }`);
  expect(errorCode(remove)).toBe('NAMESERVER_SET_FROM_SETTINGS');
  const named = await app.gql(CREATE, { i: { name: 'default', secondaries: [], nsNames: ['a.test.'], catalogZone: 'c.test' } });
  expect(errorCode(named)).toBe('NAMESERVER_SET_FROM_SETTINGS');
});

test('create: checked input, unique names and catalogs, not the default catalog', async () => {
  const made = await app.gql(CREATE, {
    i: {
      name: 'Premium',
      secondaries: ['192.0.2.10', '[2001:db8::1]:5300'],
      nsNames: ['NS1.premium.test', 'ns2.premium.test.'],
      catalogZone: 'Catalog.Premium.test.',
    },
  });
  expect(made.errors).toBeUndefined();
  expect(made.data.createNameserverSet).toMatchObject({
    name: 'premium',
    isDefault: false,
    secondaries: ['192.0.2.10:53', '[2001:db8::1]:5300'],
    nsNames: ['ns1.premium.test.', 'ns2.premium.test.'],
    catalogZone: 'catalog.premium.test',
    zoneCount: 0,
  });
  const again = await app.gql(CREATE, { i: { name: 'premium', secondaries: [], nsNames: ['a.test.'], catalogZone: 'other.test' } });
  expect(errorCode(again)).toBe('DUPLICATE_NAMESERVER_SET');
  const sameCatalog = await app.gql(CREATE, {
    i: { name: 'other', secondaries: [], nsNames: ['a.test.'], catalogZone: 'catalog.premium.test' },
  });
  expect(errorCode(sameCatalog)).toBe('DUPLICATE_NAMESERVER_SET');
  const defaultCatalog = await app.gql(CREATE, {
    i: { name: 'other', secondaries: [], nsNames: ['a.test.'], catalogZone: 'catalog.default.test' },
  });
  expect(errorCode(defaultCatalog)).toBe('DUPLICATE_NAMESERVER_SET');
  for (const [input, field] of [
    [{ name: 'bad name', secondaries: [], nsNames: ['a.test.'], catalogZone: 'x.test' }, 'name'],
    [{ name: 'x', secondaries: ['not-an-address'], nsNames: ['a.test.'], catalogZone: 'x.test' }, 'secondaries[0]'],
    [{ name: 'x', secondaries: ['192.0.2.1:53', '192.0.2.1'], nsNames: ['a.test.'], catalogZone: 'x.test' }, 'secondaries[1]'],
    [{ name: 'x', secondaries: [], nsNames: [], catalogZone: 'x.test' }, 'nsNames'],
    [{ name: 'x', secondaries: [], nsNames: ['not a name'], catalogZone: 'x.test' }, 'nsNames[0]'],
    [{ name: 'x', secondaries: [], nsNames: ['a.test.'], catalogZone: 'bad..name' }, 'catalogZone'],
  ] as const) {
    const refused = await app.gql(CREATE, { i: input });
    expect({ field, details: refused.errors?.[0]?.extensions?.details?.[0]?.field }).toEqual({ field, details: field });
  }
  const { rows } = await db.query(`select name from nameserver_sets order by id`);
  expect(rows.map((r) => r.name)).toEqual(['default', 'premium']);
});

test('a user key may neither manage sets nor choose one, but reads its zone’s set', async () => {
  expect(errorCode(await app.gql(`{ nameserverSets { name } }`, {}, userKey))).toBe('FORBIDDEN');
  const chosen = await app.gql(
    `mutation($u: ID!) { createDomain(input: {userId: $u, zone: "chosen.ns-sets.test", nameserverSet: "premium"}) { id } }`,
    { u: userId },
    userKey,
  );
  expect(errorCode(chosen)).toBe('FORBIDDEN');
  await createZone(app, userId, 'plain.ns-sets.test', userKey);
  const read = await app.gql(`{ domain(name: "plain.ns-sets.test") { nameserverSet { name nsNames } } }`, {}, userKey);
  expect(read.errors).toBeUndefined();
  expect(read.data.domain.nameserverSet).toEqual({ name: 'default', nsNames: ['ns1.default.test.', 'ns2.default.test.'] });
  expect(errorCode(await app.gql(MOVE, { z: 'plain.ns-sets.test', s: 'premium' }, userKey))).toBe('FORBIDDEN');
});

test('a zone created in a set gets its NS names and is in its catalog; the default set is as before', async () => {
  const made = await app.gql(
    `mutation($u: ID!) { createDomain(input: {userId: $u, zone: "in-premium.ns-sets.test", nameserverSet: "premium"}) { name nameserverSet { name } } }`,
    { u: userId },
  );
  expect(made.errors).toBeUndefined();
  expect(made.data.createDomain.nameserverSet.name).toBe('premium');
  expect(await apexNs('in-premium.ns-sets.test')).toEqual(['ns1.premium.test.', 'ns2.premium.test.']);
  expect(await apexNs('plain.ns-sets.test')).toEqual(['ns1.default.test.', 'ns2.default.test.']);
  const missing = await app.gql(
    `mutation($u: ID!) { createDomain(input: {userId: $u, zone: "nowhere.ns-sets.test", nameserverSet: "nope"}) { id } }`,
    { u: userId },
  );
  expect(errorCode(missing)).toBe('NAMESERVER_SET_NOT_FOUND');
  // each catalog's journal lists its own zone only
  const { rows } = await db.query(`select zone, added::text from changes where domain_id = 0 order by id`);
  const premium = rows.filter((r) => r.zone === 'catalog.premium.test').map((r) => r.added);
  const standard = rows.filter((r) => r.zone === 'catalog.default.test').map((r) => r.added);
  expect(premium.join()).toContain('in-premium.ns-sets.test.');
  expect(premium.join()).not.toContain('plain.ns-sets.test.');
  expect(standard.join()).toContain('plain.ns-sets.test.');
  expect(standard.join()).not.toContain('in-premium.ns-sets.test.');
});

test('a move: NS follow when they were the old set’s, stay with a warning otherwise; one move at a time', async () => {
  await createZone(app, userId, 'mover.ns-sets.test');
  const serialBefore = Number((await db.query(`select serial from domains where name = 'mover.ns-sets.test'`)).rows[0].serial);
  const moved = await app.gql(MOVE, { z: 'mover.ns-sets.test', s: 'premium' });
  expect(moved.errors).toBeUndefined();
  expect(moved.data.moveZoneToNameserverSet.nameserverSet.name).toBe('premium');
  expect(await apexNs('mover.ns-sets.test')).toEqual(['ns1.premium.test.', 'ns2.premium.test.']);
  const after = (await db.query(`select serial, nameserver_set from domains where name = 'mover.ns-sets.test'`)).rows[0];
  expect(Number(after.serial)).toBeGreaterThan(serialBefore);
  // it still leaves the default set (no secondary of premium serves it yet): another move waits
  const departures = await db.query(
    `select x.nameserver_set from catalog_departures x join domains d on d.id = x.domain_id where d.name = 'mover.ns-sets.test'`,
  );
  expect(departures.rows.map((r) => Number(r.nameserver_set))).toEqual([1]);
  expect(errorCode(await app.gql(MOVE, { z: 'mover.ns-sets.test', s: 'default' }))).toBe('ZONE_MOVE_IN_PROGRESS');

  // NS of its own: kept, with a warning
  await createZone(app, userId, 'own-ns.ns-sets.test');
  const replaced = await app.gql(
    `mutation { applyZoneChanges(zone: "own-ns.ns-sets.test", changes: [{kind: REPLACE_RRSET, owner: "@", type: "NS", ttl: 3600, rdatas: ["ns.elsewhere.test."]}], force: true) { serial } }`,
  );
  expect(replaced.errors).toBeUndefined();
  const kept = await app.gql(MOVE, { z: 'own-ns.ns-sets.test', s: 'premium' });
  expect(kept.errors).toBeUndefined();
  expect(kept.body.extensions?.warnings?.map((w: any) => w.code)).toEqual(['NS_KEPT_ON_MOVE']);
  expect(await apexNs('own-ns.ns-sets.test')).toEqual(['ns.elsewhere.test.']);
});

test('delete: refused while zones use the set (and by the database too), then taken', async () => {
  const inUse = await app.gql(`mutation { deleteNameserverSet(name: "premium") }`);
  expect(errorCode(inUse)).toBe('NAMESERVER_SET_IN_USE');
  const premiumId = Number((await db.query(`select id from nameserver_sets where name = 'premium'`)).rows[0].id);
  await expect(db.query('delete from nameserver_sets where id = $1', [premiumId])).rejects.toThrow(/foreign key/);
  // the default set's row keeps the settings' place: its columns stay null
  await expect(db.query(`update nameserver_sets set catalog_zone = 'x.test' where name = 'default'`)).rejects.toThrow(
    /nameserver_sets_default_from_settings/,
  );
  await expect(db.query(`insert into nameserver_sets (name) values ('nulls')`)).rejects.toThrow(/nameserver_sets_default_from_settings/);

  const empty = await app.gql(CREATE, {
    i: { name: 'empty', secondaries: ['192.0.2.20:53'], nsNames: ['ns.empty.test.'], catalogZone: 'catalog.empty.test' },
  });
  expect(empty.errors).toBeUndefined();
  const updated = await app.gql(
    `mutation { updateNameserverSet(name: "empty", input: {secondaries: ["192.0.2.21"], nsNames: ["ns.e.test"]}) { secondaries nsNames catalogZone } }`,
  );
  expect(updated.data.updateNameserverSet).toEqual({
    secondaries: ['192.0.2.21:53'],
    nsNames: ['ns.e.test.'],
    catalogZone: 'catalog.empty.test',
  });
  const removed = await app.gql(`mutation { deleteNameserverSet(name: "empty") }`);
  expect(removed.errors).toBeUndefined();
  expect(errorCode(await app.gql(`{ nameserverSet(name: "empty") { id } }`))).toBe('NAMESERVER_SET_NOT_FOUND');

  // each of them in the audit log, by the admin key, the refused delete not
  const { rows } = await db.query(
    `select kind, subject, actor_admin, detail from audit_events where kind like 'nameserver-set-%' or kind = 'zone-moved-to-nameserver-set' order by id`,
  );
  expect(rows.every((r) => r.actor_admin)).toBe(true);
  expect(rows.filter((r) => r.subject === 'nameserver-set:empty').map((r) => r.kind)).toEqual([
    'nameserver-set-created',
    'nameserver-set-changed',
    'nameserver-set-deleted',
  ]);
  expect(rows.filter((r) => r.subject === 'nameserver-set:premium').map((r) => r.kind)).toEqual(['nameserver-set-created']);
  expect(rows.find((r) => r.subject === 'zone:mover.ns-sets.test')).toMatchObject({
    kind: 'zone-moved-to-nameserver-set',
    detail: { from: 'default', to: 'premium' },
  });
});
