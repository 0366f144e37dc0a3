/**
 * Zone transfer between accounts (docs/people.md, «Moving a zone to another account»): the admin key's move;
 * an offer by the owning account's owner accepted by the receiving account's owner (keys and a person signed
 * in); who may not offer or accept; the receiving account's quota; an expired offer; and what the accounts' keys
 * see afterwards. The role-by-operation matrix is in policy-matrix.test.ts.
 */
import 'reflect-metadata';
import { Client } from 'pg';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createUserKey, createZone, errorCode } from '../support/fixtures';
import { personGql, signIn } from '../support/people';

let app: TestApp;
let db: Client;
let alice: string;
let bob: string;
let aliceKey: string;
let bobKey: string;
/** a person, owner of bob's account, and people of alice's account with lesser roles */
let bobOwner: string;
let aliceViewer: string;
let aliceEditor: string;
/** restricted keys of alice's account (ONE_ZONE of a zone offered) */
let aliceOneZoneKey: string;
let aliceKeysZoneKey: string;

const OFFER = `mutation($z: String!, $u: ID, $e: String) { offerZoneTransfer(zone: $z, toUserId: $u, toEmail: $e) { id zone fromUserId toUserId offeredBy expiresAt } }`;
const ACCEPT = `mutation($id: ID!) { acceptZoneTransfer(id: $id) { id zone } }`;
const CANCEL = `mutation($id: ID!) { cancelZoneTransfer(id: $id) { id } }`;
const MOVE = `mutation($z: String!, $u: ID!) { moveZone(zone: $z, toUserId: $u) }`;
const ZONE = `query($n: String!) { domain(name: $n) { name serial } }`;
const TRANSFERS = `{ zoneTransfers { id zone toUserId } }`;

async function invite(userId: string, email: string, role: string, zones?: string[]): Promise<string> {
  const made = await app.gql(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token } }`, {
    i: { userId, email, role, zones },
  });
  expect(made.errors).toBeUndefined();
  return signIn(app, email);
}

async function ownerOf(zone: string): Promise<string> {
  const { rows } = await db.query(`select user_id::text as u from domains where name = $1`, [zone]);
  return rows[0].u;
}

async function auditKinds(zone: string): Promise<string[]> {
  const { rows } = await db.query(`select kind from audit_events where subject = $1 order by id`, [`zone:${zone}`]);
  return rows.map((r) => r.kind);
}

async function offer(zone: string, key = aliceKey, to: Record<string, unknown> = { u: bob }) {
  const res = await app.gql(OFFER, { z: zone, ...to }, key);
  expect(res.errors).toBeUndefined();
  return res.data.offerZoneTransfer.id as string;
}

async function oneZoneKey(zone: string): Promise<string> {
  const made = await app.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { secret } }`, {
    i: { userId: alice, name: `one zone ${zone}`, preset: 'ONE_ZONE', zone },
  });
  expect(made.errors).toBeUndefined();
  return made.data.createApiKey.secret;
}

beforeAll(async () => {
  app = await startTestApp({ RATE_LIMIT_PER_SECOND: '0', KEY_RATE_LIMIT_PER_SECOND: '0' });
  db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
  alice = await createUser(app, 'zt-alice@example.org');
  bob = await createUser(app, 'zt-bob@example.org');
  for (const zone of [
    'zt-admin.test',
    'zt-keys.test',
    'zt-person.test',
    'zt-roles.test',
    'zt-quota.test',
    'zt-expired.test',
    'zt-nest.test',
    'a.zt-nest.test',
  ])
    await createZone(app, alice, zone);
  aliceKey = await createUserKey(app, alice);
  bobKey = await createUserKey(app, bob);
  aliceOneZoneKey = await oneZoneKey('zt-roles.test');
  aliceKeysZoneKey = await oneZoneKey('zt-keys.test');
  bobOwner = await invite(bob, 'zt-bob-owner@example.org', 'OWNER');
  aliceViewer = await invite(alice, 'zt-alice-viewer@example.org', 'VIEWER');
  aliceEditor = await invite(alice, 'zt-alice-editor@example.org', 'EDITOR');
}, 60_000);

afterAll(async () => {
  await db?.end();
  await app?.close();
});

it('the admin key moves a zone at once: the old account’s key no longer sees it, the new one does; the serial stays', async () => {
  const before = await app.gql(ZONE, { n: 'zt-admin.test' }, aliceKey);
  // an offer of the zone goes with the admin's move
  await offer('zt-admin.test');
  expect(errorCode(await app.gql(MOVE, { z: 'zt-admin.test', u: bob }, aliceKey))).toBe('FORBIDDEN');
  const moved = await app.gql(MOVE, { z: 'zt-admin.test', u: bob });
  expect(moved.errors).toBeUndefined();
  expect(await ownerOf('zt-admin.test')).toBe(bob);
  expect(errorCode(await app.gql(ZONE, { n: 'zt-admin.test' }, aliceKey))).toBe('ZONE_NOT_FOUND');
  expect((await app.gql(ZONE, { n: 'zt-admin.test' }, bobKey)).data.domain).toEqual(before.data.domain);
  expect(await auditKinds('zt-admin.test')).toEqual(['zone-transfer-offered', 'zone-moved-by-admin']);
  expect((await db.query(`select count(*)::int as n from zone_transfers`)).rows[0].n).toBe(0);
  const { rows } = await db.query(`select kind, serial_before, serial_after from changes where zone = $1 order by id desc limit 1`, [
    'zt-admin.test',
  ]);
  expect(rows[0]).toMatchObject({ kind: 'zone-moved', serial_before: rows[0].serial_after });
  // the new owner reads the move in the zone's history, as every other journal row
  const history = await app.gql(
    `query($n: String!) { domain(name: $n) { changes(first: 2) { nodes { kind entryKind serialBefore serialAfter } } } }`,
    { n: 'zt-admin.test' },
    bobKey,
  );
  expect(history.errors).toBeUndefined();
  expect(history.data.domain.changes.nodes[0]).toEqual({
    kind: 'zone-moved',
    entryKind: 'ZONE_MOVED',
    serialBefore: Number(rows[0].serial_after),
    serialAfter: Number(rows[0].serial_after),
  });
  const { rows: counts } = await db.query(`select id::text, zone_count from users where id in ($1, $2) order by id`, [alice, bob]);
  expect(counts.map((c) => c.zone_count)).toEqual([7, 1]);
  expect(errorCode(await app.gql(MOVE, { z: 'zt-admin.test', u: bob }))).toBe('ZONE_TRANSFER_TO_SAME_ACCOUNT');
});

it('an offer by the owning account’s key, accepted by the receiving account’s key', async () => {
  const id = await offer('zt-keys.test', aliceKey, { e: 'ZT-Bob@example.org' });
  const seen = await app.gql(TRANSFERS, {}, bobKey);
  expect(seen.data.zoneTransfers).toEqual([{ id, zone: 'zt-keys.test', toUserId: bob }]);
  // the offering side cannot take its own offer, nor offer the zone twice
  expect(errorCode(await app.gql(ACCEPT, { id }, aliceKey))).toBe('ZONE_TRANSFER_NOT_FOUND');
  expect(errorCode(await app.gql(OFFER, { z: 'zt-keys.test', u: bob }, aliceKey))).toBe('ZONE_TRANSFER_PENDING');
  expect((await app.gql(ZONE, { n: 'zt-keys.test' }, aliceKeysZoneKey)).data.domain.name).toBe('zt-keys.test');
  const accepted = await app.gql(ACCEPT, { id }, bobKey);
  expect(accepted.errors).toBeUndefined();
  expect(await ownerOf('zt-keys.test')).toBe(bob);
  expect(errorCode(await app.gql(ZONE, { n: 'zt-keys.test' }, aliceKey))).toBe('ZONE_NOT_FOUND');
  // the key whose rule names the zone lost it with nothing rewritten: a rule reaches only its key's user's zones
  expect(errorCode(await app.gql(ZONE, { n: 'zt-keys.test' }, aliceKeysZoneKey))).toBe('ZONE_NOT_FOUND');
  expect((await app.gql(ZONE, { n: 'zt-keys.test' }, bobKey)).data.domain.name).toBe('zt-keys.test');
  expect(await auditKinds('zt-keys.test')).toEqual(['zone-transfer-offered', 'zone-transfer-accepted']);
  expect(errorCode(await app.gql(ACCEPT, { id }, bobKey))).toBe('ZONE_TRANSFER_NOT_FOUND');
});

it('an offer accepted by a person signed in as the receiving account’s owner; the history names the person', async () => {
  const id = await offer('zt-person.test');
  const accepted = await personGql(app, bobOwner, ACCEPT, { id });
  expect(accepted.errors).toBeUndefined();
  expect(await ownerOf('zt-person.test')).toBe(bob);
  const { rows } = await db.query(`select kind, author_email from changes where zone = $1 order by id desc limit 1`, ['zt-person.test']);
  expect(rows[0]).toEqual({ kind: 'zone-moved', author_email: 'zt-bob-owner@example.org' });
  // the move is an event of the new owner's, naming its journal row (docs/events.md): what live subscribers read
  const { rows: events } = await db.query(
    `select e.user_id::text, e.change_id = c.id as names_row from events e join changes c on c.zone = e.zone and c.kind = 'zone-moved'
      where e.type = 'zone.moved' and e.zone = $1`,
    ['zt-person.test'],
  );
  expect(events).toEqual([{ user_id: bob, names_row: true }]);
});

it('an editor, a viewer or a restricted key may not offer; none but the receiving owner accepts; either side cancels', async () => {
  expect(errorCode(await personGql(app, aliceViewer, OFFER, { z: 'zt-roles.test', u: bob }))).toBe('FORBIDDEN_BY_ROLE');
  expect(errorCode(await personGql(app, aliceEditor, OFFER, { z: 'zt-roles.test', u: bob }))).toBe('FORBIDDEN_BY_ROLE');
  expect(errorCode(await app.gql(OFFER, { z: 'zt-roles.test', u: bob }, aliceOneZoneKey))).toBe('FORBIDDEN_BY_POLICY');
  expect(errorCode(await app.gql(OFFER, { z: 'zt-roles.test', u: bob }, bobKey))).toBe('ZONE_NOT_FOUND');
  expect((await db.query(`select count(*)::int as n from zone_transfers`)).rows[0].n).toBe(0);
  const id = await offer('zt-roles.test');
  // a person of the offering account, its restricted key: not the receiving side
  expect(errorCode(await personGql(app, aliceViewer, ACCEPT, { id }))).toBe('ZONE_TRANSFER_NOT_FOUND');
  expect(errorCode(await app.gql(ACCEPT, { id }, aliceOneZoneKey))).toBe('ZONE_TRANSFER_NOT_FOUND');
  // the offering side's viewer may not cancel; the receiving owner may
  expect(errorCode(await personGql(app, aliceViewer, CANCEL, { id }))).toBe('FORBIDDEN_BY_ROLE');
  expect((await personGql(app, bobOwner, CANCEL, { id })).errors).toBeUndefined();
  expect(await ownerOf('zt-roles.test')).toBe(alice);
  expect(await auditKinds('zt-roles.test')).toEqual(['zone-transfer-offered', 'zone-transfer-cancelled']);
});

it('the receiving account’s quota refuses the move, which writes nothing', async () => {
  const id = await offer('zt-quota.test');
  const limits = `mutation($id: ID!, $i: UserLimitsInput!) { setUserLimits(id: $id, input: $i) { maxZones } }`;
  const { rows: before } = await db.query(`select zone_count from users where id = $1`, [bob]);
  expect((await app.gql(limits, { id: bob, i: { maxZones: before[0].zone_count } })).errors).toBeUndefined();
  const refused = await app.gql(ACCEPT, { id }, bobKey);
  expect(errorCode(refused)).toBe('QUOTA_EXCEEDED');
  expect(refused.errors![0].extensions.details[0].field).toBe('maxZones');
  expect(await ownerOf('zt-quota.test')).toBe(alice);
  expect((await db.query(`select zone_count from users where id = $1`, [bob])).rows).toEqual(before);
  expect(
    (await db.query(`select count(*)::int as n from changes where zone = $1 and kind = 'zone-moved'`, ['zt-quota.test'])).rows[0].n,
  ).toBe(0);
  // the offer is still there, and taken once the quota allows it
  await app.gql(limits, { id: bob, i: { maxZones: null } });
  expect((await app.gql(ACCEPT, { id }, bobKey)).errors).toBeUndefined();
  expect(await ownerOf('zt-quota.test')).toBe(bob);
});

it('an expired offer is refused and leaves the zone where it is', async () => {
  const id = await offer('zt-expired.test');
  await db.query(`update zone_transfers set expires_at = now() - interval '1 second' where id = $1`, [id]);
  expect((await app.gql(TRANSFERS, {}, bobKey)).data.zoneTransfers).toEqual([]);
  const refused = await app.gql(ACCEPT, { id }, bobKey);
  expect(errorCode(refused)).toBe('ZONE_TRANSFER_EXPIRED');
  expect(refused.errors![0].extensions.details[0].field).toBe('id');
  expect(await ownerOf('zt-expired.test')).toBe(alice);
  // an expired offer does not block a new one
  const again = await offer('zt-expired.test');
  expect(again).not.toBe(id);
});

it('a zone that would contain (or lie inside) a zone of another account does not move there', async () => {
  const id = await offer('zt-nest.test');
  const refused = await app.gql(ACCEPT, { id }, bobKey);
  expect(errorCode(refused)).toBe('ZONE_OWNED_BY_ANOTHER_USER');
  expect(refused.errors![0].extensions.details[0].field).toBe('zone');
  expect(await ownerOf('zt-nest.test')).toBe(alice);
  expect((await app.gql(CANCEL, { id }, aliceKey)).errors).toBeUndefined();
});
