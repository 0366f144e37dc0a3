/**
 * A view's history of a zone (docs/views.md, «History per view»): `viewHistory(zone, view)` reads the view's
 * `view.changed` events, newest first, each with who, when, the RRset, the action, a replace's records and the
 * view's serial; another view's and another zone's changes are not in it; paging by `before`; the operator's only.
 */
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createTsigKey, createUser, createUserKey, createZone, errorCode } from '../support/fixtures';

const ZONE = 'vh.example';
const OTHER = 'vh-other.example';
const SET = `mutation($z: String!, $v: String!, $o: String!, $t: String!, $a: OverlayAction!, $r: [OverlayRecordInput!]) {
  setViewOverlay(zone: $z, view: $v, owner: $o, type: $t, action: $a, records: $r) }`;
const HISTORY = `query($z: String!, $v: String!, $f: Int, $b: ID) {
  viewHistory(zone: $z, view: $v, first: $f, before: $b) {
    id createdAt owner type action serial records { ttl rdata } author { keyId keyName userId admin email } } }`;

let app: TestApp;
let userKey: string;

beforeAll(async () => {
  app = await startTestApp();
  const userId = await createUser(app, 'vh@vh.example');
  userKey = await createUserKey(app, userId);
  await createZone(app, userId, ZONE);
  await createZone(app, userId, OTHER);
  for (const name of ['inside', 'lab']) {
    const key = await createTsigKey(app, null, `vh-${name}-key`);
    const made = await app.gql(`mutation($i: ViewInput!) { createView(input: $i) { id } }`, { i: { name, tsigKeyId: key.id } });
    expect(made.errors).toBeUndefined();
  }
}, 60_000);

afterAll(async () => {
  await app?.close();
});

async function overlay(vars: Record<string, unknown>): Promise<number> {
  const res = await app.gql(SET, vars);
  expect(res.errors).toBeUndefined();
  return res.data.setViewOverlay;
}

test("a view's history lists its overlay changes, newest first, with author, records and the view's serial", async () => {
  const started = Date.now();
  const s1 = await overlay({ z: ZONE, v: 'inside', o: 'api', t: 'A', a: 'REPLACE', r: [{ rdata: '10.1.2.3', ttl: 300 }] });
  // another view's change and another zone's: not in this view's history of this zone
  await overlay({ z: ZONE, v: 'lab', o: 'api', t: 'A', a: 'HIDE' });
  await overlay({ z: OTHER, v: 'inside', o: 'api', t: 'A', a: 'HIDE' });
  const s2 = await overlay({ z: ZONE, v: 'inside', o: 'www', t: 'CNAME', a: 'HIDE' });
  // cleared through REST: the same operation, the same record of it
  const cleared = await app.http.delete(`/api/domain/views/${ZONE}/inside/api/A`).set('X-API-Key', ADMIN_KEY);
  expect(cleared.status).toBe(200);
  const s3: number = cleared.body.serial;
  expect(s3).toBe(s2 + 1);

  const res = await app.gql(HISTORY, { z: ZONE, v: 'inside' });
  expect(res.errors).toBeUndefined();
  const list = res.data.viewHistory;
  const admin = list[0].author;
  expect(admin).toEqual({ keyId: expect.any(String), keyName: expect.any(String), userId: null, admin: true, email: null });
  expect(list.map(({ owner, type, action, serial, records, author }: any) => ({ owner, type, action, serial, records, author }))).toEqual([
    { owner: 'api', type: 'A', action: 'CLEAR', serial: s3, records: [], author: admin },
    { owner: 'www', type: 'CNAME', action: 'HIDE', serial: s2, records: [], author: admin },
    { owner: 'api', type: 'A', action: 'REPLACE', serial: s1, records: [{ ttl: 300, rdata: '10.1.2.3' }], author: admin },
  ]);
  expect(s2).toBe(s1 + 1);
  for (const entry of list) expect(Date.parse(entry.createdAt)).toBeGreaterThanOrEqual(started - 1000);
  // the view's serial now is the newest change's
  const zoneNow = await app.gql(`{ viewZone(zone: "${ZONE}", view: "inside") { serial } }`);
  expect(zoneNow.data.viewZone.serial).toBe(s3);

  // paging: the first two, then the rest before the second's id
  const first = await app.gql(HISTORY, { z: ZONE, v: 'inside', f: 2 });
  expect(first.data.viewHistory.map((e: any) => e.serial)).toEqual([s3, s2]);
  const rest = await app.gql(HISTORY, { z: ZONE, v: 'inside', f: 2, b: first.data.viewHistory[1].id });
  expect(rest.data.viewHistory.map((e: any) => e.serial)).toEqual([s1]);

  // the other view's history of the zone holds its own change only
  const lab = await app.gql(HISTORY, { z: ZONE, v: 'lab' });
  expect(lab.data.viewHistory.map((e: any) => [e.owner, e.type, e.action])).toEqual([['api', 'A', 'HIDE']]);
});

test("refusals: a user's key is FORBIDDEN, an unknown view or zone is not found, a page size out of 1..100 names `first`", async () => {
  expect(errorCode(await app.gql(HISTORY, { z: ZONE, v: 'inside' }, userKey))).toBe('FORBIDDEN');
  expect(errorCode(await app.gql(HISTORY, { z: ZONE, v: 'nowhere' }))).toBe('VIEW_NOT_FOUND');
  expect(errorCode(await app.gql(HISTORY, { z: 'none.example', v: 'inside' }))).toBe('ZONE_NOT_FOUND');
  for (const f of [0, 101]) {
    const res = await app.gql(HISTORY, { z: ZONE, v: 'inside', f });
    expect(res.status).toBeLessThan(500);
    expect(res.errors?.[0].extensions.details?.[0]?.field ?? res.errors?.[0].extensions.field).toBe('first');
  }
});

test('a write that changes nothing writes nothing: the same overlay again, a clear of none, keep the serial and the history', async () => {
  const zone = 'vh-same.example';
  await createZone(app, await createUser(app, 'vh-same@vh.example'), zone);
  const CLEAR = `mutation($z: String!, $v: String!, $o: String!, $t: String!) { clearViewOverlay(zone: $z, view: $v, owner: $o, type: $t) }`;
  const clear = async (vars: Record<string, unknown>): Promise<number> => {
    const res = await app.gql(CLEAR, vars);
    expect(res.errors).toBeUndefined();
    return res.data.clearViewOverlay;
  };
  const baseSerial = (await app.gql(`query($n: String) { domain(name: $n) { serial } }`, { n: zone })).data.domain.serial;
  const historyOf = async (view: string) => (await app.gql(HISTORY, { z: zone, v: view })).data.viewHistory.map((e: any) => e.serial);

  // a clear of an overlay that is not there, in a view that never overlaid the zone: the base's serial, no event
  expect(await clear({ z: zone, v: 'lab', o: 'api', t: 'A' })).toBe(baseSerial);
  expect((await app.gql(`{ viewZone(zone: "${zone}", view: "lab") { serial } }`)).data.viewZone.serial).toBe(baseSerial);
  expect(await historyOf('lab')).toEqual([]);

  const records = [
    { rdata: '10.1.2.3', ttl: 300 },
    { rdata: '10.1.2.4', ttl: 300 },
  ];
  const set = await overlay({ z: zone, v: 'inside', o: 'api', t: 'A', a: 'REPLACE', r: records });
  const hidden = await overlay({ z: zone, v: 'inside', o: 'www', t: 'CNAME', a: 'HIDE' });
  // the same replace again (its records in another order), the same hide again, a clear of an RRset not overlaid
  expect(await overlay({ z: zone, v: 'inside', o: 'api', t: 'A', a: 'REPLACE', r: [...records].reverse() })).toBe(hidden);
  expect(await overlay({ z: zone, v: 'inside', o: 'www', t: 'CNAME', a: 'HIDE' })).toBe(hidden);
  expect(await clear({ z: zone, v: 'inside', o: 'mail', t: 'A' })).toBe(hidden);
  expect((await app.gql(`{ viewZone(zone: "${zone}", view: "inside") { serial } }`)).data.viewZone.serial).toBe(hidden);
  expect(await historyOf('inside')).toEqual([hidden, set]);

  // a change of the TTL alone is a change: the serial steps
  const retimed = await overlay({ z: zone, v: 'inside', o: 'api', t: 'A', a: 'REPLACE', r: records.map((r) => ({ ...r, ttl: 600 })) });
  expect(retimed).toBe(hidden + 1);
  expect(await historyOf('inside')).toEqual([retimed, hidden, set]);
});
