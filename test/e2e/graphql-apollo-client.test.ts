/**
 * A client project as a front end builds one on this API (test/client: graphql-codegen's client preset over
 * schema.graphql, Apollo Client's normalised cache, TypeScript strict): its generated types are current and
 * compile, and its cache follows the zone through a change set, a record created and removed, and a change made
 * elsewhere (a zoneChanged event), each from what the write or the event answered, with no read of the zone
 * again, ending where a fresh read of the zone is (docs/graphql.md).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createUserKey, createZone } from '../support/fixtures';
import { waitUntil } from '../support/wait-for';
import { ZonePage } from '../client/zone-cache';

const ROOT = path.join(__dirname, '..', '..');
const ZONE = 'apollo.example';
let app: TestApp;
let page: ZonePage;

beforeAll(async () => {
  app = await startTestApp({ ALLOWED_TTLS: 'any' });
  const userId = await createUser(app, 'apollo@example.org');
  await createZone(app, userId, ZONE);
  page = new ZonePage(app.baseUrl, await createUserKey(app, userId));
});
afterAll(async () => {
  await page?.close();
  await app?.close();
});

/** an answer without the cache's `__typename`s */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value, (key, v: unknown) => (key === '__typename' ? undefined : v)));

/** the zone as a fresh read answers it, the page's own query sent by another client */
async function fresh() {
  const res = await app.gql(
    `query($name: String!) { domain(name: $name) { id name serial recordCount records { id owner type rdata ttl } } }`,
    {
      name: ZONE,
    },
  );
  expect(res.errors).toBeUndefined();
  return res.data.domain;
}

test('the client project: its generated types are current and it compiles with tsc --strict', () => {
  const codegen = spawnSync(process.execPath, [path.join(ROOT, 'test/client/codegen.cjs'), '--check'], { encoding: 'utf8' });
  expect(codegen.stderr).toBe('');
  expect(codegen.status).toBe(0);
  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(ROOT, 'test/client/tsconfig.json')], {
    encoding: 'utf8',
  });
  expect(tsc.stdout + tsc.stderr).toBe('');
  expect(tsc.status).toBe(0);
}, 120_000);

test('the cache follows writes and events from what they answer, without reading the zone again', async () => {
  await page.load(ZONE);
  expect(plain(page.held(ZONE))).toEqual(await fresh());
  const afterLoad = page.requests;

  // a change set: one record added, one removed
  const www = (await fresh()).records.find((r: { owner: string }) => r.owner === 'www');
  await page.applyChanges(ZONE, [
    { kind: 'REMOVE', id: www.id },
    { kind: 'ADD', owner: 'api', type: 'A', rdata: '192.0.2.80', ttl: 300 },
  ]);
  expect(plain(page.held(ZONE))).toEqual(await fresh());

  // one record created, then removed
  await page.createRecord({ zone: ZONE, owner: 'txt', type: 'TXT', rdata: '"hello"', ttl: 300 });
  expect(plain(page.held(ZONE))).toEqual(await fresh());
  const txt = page.held(ZONE)!.records.find((r) => r.owner === 'txt')!;
  await page.removeRecord(txt.id);
  expect(plain(page.held(ZONE))).toEqual(await fresh());
  // the three writes, and nothing more: the zone was not read again
  expect(page.requests).toBe(afterLoad + 3);

  // a change made elsewhere arrives as an event, and the cache follows it too
  let events = 0;
  const stop = page.follow(ZONE, () => events++);
  try {
    await waitUntil('the subscription registered', () => app.service.services.liveUpdates.subscriberCount() >= 1);
    const api = (await fresh()).records.find((r: { owner: string }) => r.owner === 'api');
    const elsewhere = await app.gql(
      `mutation($zone: String!, $changes: [ZoneChangeInput!]!) { applyZoneChanges(zone: $zone, changes: $changes) { serial } }`,
      {
        zone: ZONE,
        changes: [
          { kind: 'REMOVE', id: api.id },
          { kind: 'ADD', owner: 'api', type: 'AAAA', rdata: '2001:db8::80', ttl: 300 },
        ],
      },
    );
    expect(elsewhere.errors).toBeUndefined();
    await waitUntil('the event', () => events >= 1);
    expect(plain(page.held(ZONE))).toEqual(await fresh());
    expect(page.requests).toBe(afterLoad + 3);
  } finally {
    stop();
  }
});
