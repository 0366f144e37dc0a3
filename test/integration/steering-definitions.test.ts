/**
 * Steering's definitions through GraphQL (docs/steering.md), without a prober (its checks stay unknown, so their
 * members are served): a steered RRset's records are written with it, in its change; pausing a member and
 * deleting the RRset are changes of the served records too, each with its steering.changed event; a check in use
 * is not deleted; a CNAME serves one target; and the key's policy decides as for the records themselves.
 */
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone, errorCode } from '../support/fixtures';
import { waitFor } from '../support/wait-for';

const ZONE = 'defs.zk-steering.test';
const OTHER = 'other.zk-steering.test';

let app: TestApp;
let userId: string;

const CREATE_CHECK = `mutation($z: String!, $i: SteeringCheckInput!) { createSteeringCheck(zone: $z, input: $i) { id name status port path } }`;
const CREATE_RRSET = `mutation($z: String!, $i: SteeredRrsetInput!) { createSteeredRrset(zone: $z, input: $i) { id owner type ttl served allDown maxAnswers } }`;
const PAUSE = `mutation($id: ID!, $v: String!, $a: String!) { setSteeringMemberAdmin(id: $id, value: $v, admin: $a) { served pools { members { value admin healthy } } } }`;

async function served(owner: string, type: string, zone = ZONE): Promise<string[]> {
  const res = await app.gql(`query($z: String) { domain(name: $z) { records(first: 100) { owner type rdata } } }`, { z: zone });
  return res.data.domain.records
    .filter((r: any) => r.owner === owner && r.type === type)
    .map((r: any) => r.rdata)
    .sort();
}

async function makeKey(policy: Record<string, unknown>): Promise<string> {
  const res = await app.gql(`mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }`, {
    input: { userId, name: 'steering', policy },
  });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.createApiKey.secret;
}

beforeAll(async () => {
  app = await startTestApp({ STEERING_ALLOW_NETWORKS: '192.0.2.0/24' });
  userId = await createUser(app, 'defs@zk-steering.test');
  await createZone(app, userId, ZONE);
  await createZone(app, await createUser(app, 'other@zk-steering.test'), OTHER);
}, 60_000);

afterAll(async () => {
  await app?.close();
});

test('a steered RRset is served with its definition; pausing and deleting are changes of the served records', async () => {
  const check = await app.gql(CREATE_CHECK, { z: ZONE, i: { name: 'web', protocol: 'https', address: '192.0.2.80' } });
  expect(check.errors).toBeUndefined();
  expect(check.data.createSteeringCheck).toMatchObject({ name: 'web', status: 'unknown', port: 443, path: '/' });
  const checkId = check.data.createSteeringCheck.id;
  expect(errorCode(await app.gql(CREATE_CHECK, { z: ZONE, i: { name: 'web', protocol: 'tcp', address: '192.0.2.81', port: 22 } }))).toBe(
    'DUPLICATE_STEERING',
  );

  const created = await app.gql(CREATE_RRSET, {
    z: ZONE,
    i: {
      owner: 'api',
      type: 'A',
      pools: [{ members: [{ value: '192.0.2.80', checkId }, { value: '192.0.2.81' }] }, { members: [{ value: '198.51.100.1' }] }],
      backup: ['203.0.113.1'],
      allDown: 'EMPTY',
    },
  });
  expect(created.errors).toBeUndefined();
  // 60 s when none is given (ALLOWED_TTLS_BEYOND_REST takes any TTL by default)
  expect(created.data.createSteeredRrset).toMatchObject({ owner: 'api', type: 'A', ttl: 60, allDown: 'empty', maxAnswers: 8 });
  expect(await served('api', 'A')).toEqual(['192.0.2.80', '192.0.2.81']);
  const id = created.data.createSteeredRrset.id;
  expect(
    errorCode(await app.gql(CREATE_RRSET, { z: ZONE, i: { owner: 'api', type: 'A', pools: [{ members: [{ value: '192.0.2.9' }] }] } })),
  ).toBe('DUPLICATE_STEERING');

  // paused members leave; with the first pool empty the next one is served
  let paused = await app.gql(PAUSE, { id, v: '192.0.2.80', a: 'down' });
  expect(paused.errors).toBeUndefined();
  expect(await served('api', 'A')).toEqual(['192.0.2.81']);
  paused = await app.gql(PAUSE, { id, v: '192.0.2.81', a: 'down' });
  expect(paused.data.setSteeringMemberAdmin.served).toEqual(['198.51.100.1']);
  expect(await served('api', 'A')).toEqual(['198.51.100.1']);
  expect(errorCode(await app.gql(PAUSE, { id, v: '192.0.2.99', a: 'down' }))).toBe('INVALID_INPUT');

  // a check followed by a member is not deleted; the RRset's deletion takes its records along
  expect(errorCode(await app.gql(`mutation($id: ID!) { deleteSteeringCheck(id: $id) }`, { id: checkId }))).toBe('STEERING_CHECK_IN_USE');
  expect((await app.gql(`mutation($id: ID!) { deleteSteeredRrset(id: $id) }`, { id })).errors).toBeUndefined();
  expect(await served('api', 'A')).toEqual([]);
  expect((await app.gql(`mutation($id: ID!) { deleteSteeringCheck(id: $id) }`, { id: checkId })).errors).toBeUndefined();

  // the feed serves an event once every older transaction has ended: wait for the four
  const ofApi = await waitFor('the four steering.changed events', async () => {
    const events = await app.http.get('/api/events?types=steering.changed&limit=100').set('X-API-Key', ADMIN_KEY);
    const mine = events.body.events.filter((e: any) => e.zone === ZONE && e.data.owner === 'api').map((e: any) => e.data);
    return mine.length >= 4 ? mine : undefined;
  });
  expect(ofApi.map((e: any) => [e.source, e.served])).toEqual([
    ['pool 1', ['192.0.2.80', '192.0.2.81']],
    ['pool 1', ['192.0.2.81']],
    ['pool 2', ['198.51.100.1']],
    ['empty', []],
  ]);
});

test('a steered CNAME serves one target, and stands alone at its owner', async () => {
  const created = await app.gql(CREATE_RRSET, {
    z: ZONE,
    i: { owner: 'cdn', type: 'CNAME', pools: [{ members: [{ value: 'a.cdn.example.' }, { value: 'b.cdn.example.' }] }] },
  });
  expect(created.errors).toBeUndefined();
  expect(await served('cdn', 'CNAME')).toEqual(['a.cdn.example.']);
  const beside = await app.gql(`mutation($input: RecordInput!) { createRecord(input: $input) { id } }`, {
    input: { zone: ZONE, owner: 'cdn', type: 'TXT', rdata: '"x"', ttl: 300 },
  });
  expect(errorCode(beside)).toBe('CNAME_CONFLICT');
  expect(
    errorCode(await app.gql(CREATE_RRSET, { z: ZONE, i: { owner: '@', type: 'CNAME', pools: [{ members: [{ value: 'a.example.' }] }] } })),
  ).toMatch(/CNAME/);
});

test('the key’s policy decides as for records: the owner and type for an RRset, some record of the zone for a check', async () => {
  const key = await makeKey({
    rules: [
      { zone: ZONE, access: 'READ' },
      { zone: ZONE, owner: 'dyn.*', access: 'WRITE' },
    ],
  });
  const mine = await app.gql(
    CREATE_RRSET,
    { z: ZONE, i: { owner: 'dyn.web', type: 'A', pools: [{ members: [{ value: '192.0.2.7' }] }] } },
    key,
  );
  expect(mine.errors).toBeUndefined();
  const elsewhere = await app.gql(
    CREATE_RRSET,
    { z: ZONE, i: { owner: 'web', type: 'A', pools: [{ members: [{ value: '192.0.2.7' }] }] } },
    key,
  );
  expect(errorCode(elsewhere)).toBe('FORBIDDEN_BY_POLICY');
  expect(elsewhere.errors![0].message).toMatch(/write A at web\./);
  expect(await served('web', 'A')).toEqual([]);
  // where the RRset already serves what the definition would: nothing to stage, and still the key's write, refused
  const admin = await app.gql(`mutation($input: ZoneChangeInput!) { applyZoneChanges(zone: "${ZONE}", changes: [$input]) { serial } }`, {
    input: { kind: 'REPLACE_RRSET', owner: 'same', type: 'A', ttl: 300, rdatas: ['192.0.2.8'] },
  });
  expect(admin.errors).toBeUndefined();
  const unchanged = await app.gql(
    CREATE_RRSET,
    { z: ZONE, i: { owner: 'same', type: 'A', ttl: 300, pools: [{ members: [{ value: '192.0.2.8' }] }] } },
    key,
  );
  expect(errorCode(unchanged)).toBe('FORBIDDEN_BY_POLICY');
  const steered = await app.gql(`query($z: String) { domain(name: $z) { steeredRrsets { owner } } }`, { z: ZONE });
  expect(steered.data.domain.steeredRrsets.map((r: any) => r.owner)).not.toContain('same');
  // another account's zone is not there for the key
  expect(errorCode(await app.gql(CREATE_CHECK, { z: OTHER, i: { name: 'x', protocol: 'tcp', address: '192.0.2.1', port: 80 } }, key))).toBe(
    'ZONE_NOT_FOUND',
  );

  const readOnly = await makeKey({ rules: [{ zone: ZONE, access: 'READ' }] });
  expect(
    errorCode(await app.gql(CREATE_CHECK, { z: ZONE, i: { name: 'ro', protocol: 'tcp', address: '192.0.2.1', port: 80 } }, readOnly)),
  ).toBe('FORBIDDEN_BY_POLICY');
  // it reads the steered RRsets its rules let it read
  const read = await app.gql(`query($z: String) { domain(name: $z) { steeredRrsets { owner type } } }`, { z: ZONE }, readOnly);
  expect(read.data.domain.steeredRrsets.map((r: any) => `${r.owner} ${r.type}`).sort()).toEqual(['cdn CNAME', 'dyn.web A']);
});
