/**
 * The landing screen's «Needs attention» (docs/console.md, «Home»): one query (`attention`) lists, across the
 * zones the caller may see, the zones whose nameserver set's secondaries fail, the secondary zones whose primaries
 * refuse them, and the signed zones waiting for their DS at the parent; another user's key sees none of them, a
 * restricted key only its zone's. In Debian's Chromium each item links to the zone's view of the matter; a user
 * with nothing to see is told so. axe-core with no serious violation on the screen.
 */
import 'reflect-metadata';
import { createSocket, type Socket } from 'node:dgram';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { buildConsole, CONSOLE_ARTIFACTS, expectAccessibleAtBothWidths, launchChromium } from '../support/console';
import { createUser, createUserKey, createZone } from '../support/fixtures';
import { FakeRoot, startFakeRoot } from '../support/fake-root';
import { freePort } from '../support/free-port';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const ARTIFACTS = path.join(CONSOLE_ARTIFACTS, 'home');
const BEHIND = 'behind.home.example';
const SIGNED = 'signed.home.example';
const SECONDARY = 'refused.home.example';
const CALM = 'calm.home.example';
const UNHEALTHY = 'unhealthy.home.example';
const BOBS = 'bobs.home.example';

let app: TestApp;
let refuser: Socket;
let refuserPort: number;
/** the health checker's root: it answers and delegates nothing (no zone is delegated) */
let root: FakeRoot;
let browser: Browser;
let aliceKey: string;
let bobKey: string;
let aliceId: string;

const ATTENTION = `query($first: Int!) { attention(first: $first) {
  secondariesBehind { totalCount items { zone { name } kind since detail } }
  failedTransfers { totalCount items { zone { name } kind since detail } }
  dsAtParent { totalCount items { zone { name } kind since detail } }
  health { totalCount items { zone { name } kind since detail } }
} }`;

type Item = { zone: { name: string }; kind: string; since: string | null; detail: string };
type List = { totalCount: number; items: Item[] };
type Answer = { secondariesBehind: List; failedTransfers: List; dsAtParent: List; health: List };

async function attentionOf(key: string, first = 20): Promise<Answer> {
  const res = await app.gql(ATTENTION, { first }, key);
  expect(res.errors).toBeUndefined();
  return res.data.attention;
}

const names = (list: List) => list.items.map((item) => item.zone.name);

beforeAll(async () => {
  buildConsole();
  // a DNS server that refuses everything (RFC 1035 §4.1.1, RCODE 5): a secondary that does not serve the zone,
  // a primary that refuses its transfer, and the root servers of the health checker (docs/health.md)
  refuserPort = await freePort();
  refuser = createSocket('udp4');
  refuser.on('message', (query, peer) => {
    if (query.length < 12) return;
    const answer = Buffer.from(query);
    answer[2] |= 0x80; // QR
    answer[3] = (answer[3] & 0xf0) | 5; // REFUSED
    refuser.send(answer, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => refuser.bind(refuserPort, '127.0.0.1', resolve));

  root = await startFakeRoot('empty');
  app = await startTestApp({ ROLES: 'api,worker', HEALTH_ROOT_HINTS: root.hint });
  aliceId = await createUser(app, 'alice@home.example');
  const bobId = await createUser(app, 'bob@home.example');
  aliceKey = await createUserKey(app, aliceId);
  bobKey = await createUserKey(app, bobId);
  for (const zone of [BEHIND, SIGNED, CALM, UNHEALTHY]) await createZone(app, aliceId, zone);
  await createZone(app, bobId, BOBS);

  // BEHIND: in a nameserver set whose one secondary refuses it
  const set = await app.gql(`mutation($i: NameserverSetInput!) { createNameserverSet(input: $i) { id } }`, {
    i: {
      name: 'refusing',
      secondaries: [`127.0.0.1:${refuserPort}`],
      nsNames: ['ns1.refusing.example'],
      catalogZone: 'catalog.refusing.example',
    },
  });
  expect(set.errors).toBeUndefined();
  const moved = await app.gql(`mutation($z: String!) { moveZoneToNameserverSet(zone: $z, nameserverSet: "refusing") { name } }`, {
    z: BEHIND,
  });
  expect(moved.errors).toBeUndefined();
  // SIGNED: signed, its parent (outside the service) not yet serving its DS
  const signed = await app.gql(`mutation($z: String!) { enableDnssec(input: { zone: $z }) { state } }`, { z: SIGNED }, aliceKey);
  expect(signed.errors).toBeUndefined();
  // SECONDARY: taken from a primary that refuses it (the admin key may name a loopback primary)
  const secondary = await app.gql(
    `mutation($u: ID!, $z: String!, $p: Int!) { createDomain(input: { userId: $u, zone: $z, kind: SECONDARY, primaries: [{ address: "127.0.0.1", port: $p }] }) { id } }`,
    { u: aliceId, z: SECONDARY, p: refuserPort },
  );
  expect(secondary.errors).toBeUndefined();
  // UNHEALTHY: checked now, not delegated and its nameservers' names without addresses (the root delegates
  // nothing); the others are never checked (the test app's HEALTH_CHECK_INTERVAL is 0) and stay unknown
  const checked = await app.gql(`mutation($z: String!) { checkHealth(zone: $z) { state findings { code } } }`, { z: UNHEALTHY }, aliceKey);
  expect(checked.errors).toBeUndefined();
  expect(checked.data.checkHealth.state).toBe('critical');

  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  refuser?.close();
  await root?.stop();
});

async function consoleAs(key: string): Promise<Page> {
  // axe-core is injected as an inline script, which the console's own CSP (rightly) refuses
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  const page = await context.newPage();
  await page.addInitScript(`sessionStorage.setItem('zonekeeper-console-key', ${JSON.stringify(key)})`);
  await page.goto(`${app.baseUrl}/console/#/`);
  return page;
}

test('one query lists each zone that needs attention, once its trouble is there, and nothing else', async () => {
  // the worker's checks: the secondary refused past its fast checks (state error), the refresh refused
  const alice = await waitFor(
    'the refused secondary and the refused transfer',
    async () => {
      const answer = await attentionOf(aliceKey);
      return answer.secondariesBehind.totalCount && answer.failedTransfers.totalCount ? answer : undefined;
    },
    30_000,
    200,
  );
  expect(names(alice.secondariesBehind)).toEqual([BEHIND]);
  expect(alice.secondariesBehind.items[0]).toMatchObject({ kind: 'SECONDARIES_BEHIND' });
  expect(alice.secondariesBehind.items[0].detail).toContain(`127.0.0.1:${refuserPort} failing`);
  expect(alice.secondariesBehind.items[0].since).not.toBeNull();

  expect(names(alice.failedTransfers)).toEqual([SECONDARY]);
  expect(alice.failedTransfers.items[0]).toMatchObject({ kind: 'TRANSFER_FAILED' });
  expect(alice.failedTransfers.items[0].detail).toMatch(/^never transferred: .*REFUSED/i);
  // what the zone's own fields say of it
  const own = await app.gql(`query($z: String!) { domain(name: $z) { secondary { state lastError } } }`, { z: SECONDARY }, aliceKey);
  expect(own.data.domain.secondary.state).toBe('PENDING');
  expect(alice.failedTransfers.items[0].detail).toContain(own.data.domain.secondary.lastError);

  expect(names(alice.dsAtParent)).toEqual([SIGNED]);
  expect(alice.dsAtParent.items[0]).toMatchObject({ kind: 'DS_AT_PARENT' });
  expect(alice.dsAtParent.items[0].detail).toContain('DS to publish at the parent');

  expect(names(alice.health)).toEqual([UNHEALTHY]);
  expect(alice.health.items[0]).toMatchObject({ kind: 'HEALTH' });
  expect(alice.health.items[0].detail).toMatch(/^critical: LAME_DELEGATION at .*; NOT_DELEGATED$/);
  expect(alice.health.items[0].since).not.toBeNull();

  // the admin sees the same (every zone); bounded lists keep their counts
  const admin = await attentionOf(ADMIN_KEY, 0);
  expect(
    [admin.secondariesBehind, admin.failedTransfers, admin.dsAtParent, admin.health].map((l) => [l.totalCount, l.items.length]),
  ).toEqual([
    [1, 0],
    [1, 0],
    [1, 0],
    [1, 0],
  ]);
  // a limit outside its range names its field
  const refused = await app.gql(ATTENTION, { first: 101 }, aliceKey);
  expect(refused.errors?.[0].extensions.details[0].field).toBe('first');
}, 45_000);

test('another user’s key sees none of them; a key restricted to one zone sees only that zone’s', async () => {
  const bob = await attentionOf(bobKey);
  expect([bob.secondariesBehind, bob.failedTransfers, bob.dsAtParent, bob.health].map((l) => [l.totalCount, names(l)])).toEqual([
    [0, []],
    [0, []],
    [0, []],
    [0, []],
  ]);
  const made = await app.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { secret } }`, {
    i: { userId: aliceId, name: 'one zone', preset: 'ONE_ZONE', zone: SIGNED },
  });
  expect(made.errors).toBeUndefined();
  const restricted = await attentionOf(made.data.createApiKey.secret);
  expect([restricted.secondariesBehind, restricted.failedTransfers, restricted.dsAtParent, restricted.health].map((l) => names(l))).toEqual(
    [[], [], [SIGNED], []],
  );
}, 20_000);

test('the landing screen shows the counts and the zones, each a link to its view; bob is told nothing needs attention', async () => {
  const page = await consoleAs(aliceKey);
  const region = page.getByRole('region', { name: 'Needs attention' });
  const counts = region.getByRole('list', { name: 'Counts' });
  await counts.waitFor();
  expect(await counts.getByRole('listitem').allTextContents()).toEqual([
    'Secondaries behind: 1',
    'Failed transfers: 1',
    'DS to publish at the parent: 1',
    'Zones with health findings: 1',
    'Failover held: 0',
  ]);
  for (const [title, zone] of [
    ['Secondaries behind', BEHIND],
    ['Failed transfers', SECONDARY],
    ['DS to publish at the parent', SIGNED],
    ['Zones with health findings', UNHEALTHY],
  ]) {
    await region.getByRole('heading', { name: `${title} (1)`, level: 3 }).waitFor();
    const list = region.getByRole('list', { name: `${title} (1)` });
    expect(await list.getByRole('link').allTextContents()).toEqual([zone]);
  }
  expect(await region.getByRole('link', { name: CALM }).count()).toBe(0);
  await expectAccessibleAtBothWidths(page, ARTIFACTS, 'home');

  // one click from the zone's view of the matter
  await region.getByRole('link', { name: SIGNED }).click();
  await page.waitForURL(`**/#/zone/${SIGNED}/dnssec`);
  await page.getByRole('heading', { name: SIGNED, exact: true }).waitFor();
  await page.goBack();
  await region.getByRole('link', { name: BEHIND }).click();
  await page.waitForURL(`**/#/zone/${BEHIND}/propagation`);
  await page.getByRole('heading', { name: BEHIND, exact: true }).waitFor();
  await page.goBack();
  await region.getByRole('link', { name: SECONDARY }).click();
  await page.waitForURL(`**/#/zone/${SECONDARY}`);
  await page.getByRole('heading', { name: 'Secondary zone' }).waitFor();
  await page.context().close();

  const bobPage = await consoleAs(bobKey);
  const bobRegion = bobPage.getByRole('region', { name: 'Needs attention' });
  await bobRegion.getByText('Nothing needs attention.').waitFor();
  expect(await bobRegion.getByRole('link').count()).toBe(0);
  await expectAccessibleAtBothWidths(bobPage, ARTIFACTS, 'home-empty');
  await bobPage.context().close();
}, 45_000);
