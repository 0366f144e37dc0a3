/**
 * A client project as a front end builds one on this API (test/client: graphql-codegen's client preset over
 * schema.graphql, Apollo Client's normalised cache, TypeScript strict): its generated types are current and
 * compile, and its cache follows the zone through a change set, a record created and removed, and a change made
 * elsewhere (a zoneChanged event), each from what the write or the event answered, with no read of the zone
 * again, ending where a fresh read of the zone is (docs/graphql.md). Its zone list pages through 1,000 zones
 * with Apollo's `relayStylePagination`, forward and back, and a cursor of another order is refused.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createUserKey, createZone } from '../support/fixtures';
import { waitUntil } from '../support/wait-for';
import { ZonePage } from '../client/zone-cache';
import { ZoneList } from '../client/zone-pages';
import { ZonePagesDocument } from '../client/operations';

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

test("Apollo's relayStylePagination pages through 1,000 zones forward and back, each zone once each way in order; another order's cursor is refused", async () => {
  const owner = await createUser(app, 'pages@example.org');
  // names whose alphabetical order is not their creation order (a step prime to 1,000 walks every number once)
  const names = Array.from({ length: 1000 }, (_, i) => `z${String((i * 389) % 1000).padStart(3, '0')}.pages.example`);
  const made = await app.gql(`mutation($input: [CreateDomainInput!]!) { createDomains(input: $input) { id } }`, {
    input: names.map((zone) => ({ userId: owner, zone })),
  });
  expect(made.errors).toBeUndefined();
  const key = await createUserKey(app, owner);
  const byName = [...names].sort();
  const zoneNames = (list: { edges: readonly { node: { name: string } }[] }) => list.edges.map((edge) => edge.node.name);

  for (const [order, expected] of [
    ['CREATED', names],
    ['NAME', byName],
    ['NAME_DESC', [...byName].reverse()],
  ] as const) {
    const forward = new ZoneList(app.baseUrl, key);
    const backward = new ZoneList(app.baseUrl, key);
    try {
      const ahead = await forward.pageForward(order, 95);
      expect({ order, names: zoneNames(ahead) }).toEqual({ order, names: expected });
      expect(ahead.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
      // one request a page: 11 pages of 95 for 1,000 zones
      expect(forward.requests).toBe(11);
      const back = await backward.pageBackward(order, 95);
      expect({ order, names: zoneNames(back) }).toEqual({ order, names: expected });
      expect(back.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
      expect(backward.requests).toBe(11);
      // each edge's cursor is the one the server gave for that zone, whichever way it was paged
      expect(back.edges.map((edge) => edge.cursor)).toEqual(ahead.edges.map((edge) => edge.cursor));
    } finally {
      await forward.close();
      await backward.close();
    }
  }

  // a cursor of the NAME list given to the CREATED list: refused, naming `after`, not read as a place in it
  const list = new ZoneList(app.baseUrl, key);
  try {
    const nameCursor = (await list.client.query({ query: ZonePagesDocument, variables: { orderBy: 'NAME', first: 10 } })).data!.domains
      .pageInfo.endCursor;
    const refused = await list.client.query({
      query: ZonePagesDocument,
      variables: { orderBy: 'CREATED', first: 10, after: nameCursor },
      errorPolicy: 'all',
    });
    const detail = (refused.error as { errors?: { extensions?: { code?: string; details?: unknown[] } }[] } | undefined)?.errors?.[0]
      ?.extensions;
    expect(detail?.code).toBe('INVALID_INPUT');
    expect(detail?.details?.[0]).toMatchObject({ field: 'after', code: 'CURSOR_ORDER_MISMATCH' });
  } finally {
    await list.close();
  }
}, 120_000);
