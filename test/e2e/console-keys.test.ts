/**
 * The console's keys page with policies (docs/console.md, «Keys with policies»; docs/least-privilege.md), in
 * Debian's Chromium against the real service, signed in with a user's API key: an API key made from the page with
 * the ACME preset for one zone, an expiry and allowed networks (a network the API refuses is shown at its field);
 * its secret shown once; the list says what the key may do as the API stored it; the secret then does what the
 * page said (a TXT at `_acme-challenge.<zone>`, no A record: 403 FORBIDDEN_BY_POLICY; the other zone is not there
 * for it). A READ_ONLY key made from the page reads and is refused a write. A key revoked from the page is
 * refused (401). axe-core (0 serious or critical) on the keys page at 1280 and 390 px.
 */
import 'reflect-metadata';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { buildConsole, CONSOLE_ARTIFACTS, expectAccessibleAtBothWidths, launchChromium } from '../support/console';
import { CREATE_RECORD, createUser, createUserKey, createZone, errorCode } from '../support/fixtures';
import { startTestApp, TestApp } from '../support/test-app';

const ARTIFACTS = path.join(CONSOLE_ARTIFACTS, 'keys');
const ZONE = 'keys.example';
const OTHER = 'other-keys.example';
const PDNS_ZONES = '/api/v1/servers/localhost/zones';
/** what the datetime-local field takes (the browser's local time) */
const EXPIRES_LOCAL = '2031-06-30T12:00';
const NETWORKS = '127.0.0.0/8, ::1/128';
const ACME_WORDS = 'ACME challenges (TXT under _acme-challenge)';

let app: TestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let userId: string;
let userKey: string;
/** the secrets the page showed, by key name */
const secrets: Record<string, string> = {};

const expectAccessible = (screen: string) => expectAccessibleAtBothWidths(page, ARTIFACTS, screen);

/** the API keys part of the page (the section; its table's scroll region has the same name, and comes after) */
const apiKeys = () => page.getByRole('region', { name: 'API keys', exact: true }).first();
const newKeyForm = () => page.getByRole('form', { name: 'New API key' });
const keyRow = (name: string): Locator =>
  apiKeys()
    .getByRole('row')
    .filter({ has: page.getByRole('cell', { name, exact: true }) });
/** the lines of "What it may do" in a key's row */
const policyLines = (name: string) => keyRow(name).getByRole('listitem').allTextContents();

/** the key's policy as the API stored it (the admin key reads the user's keys) */
async function storedKey(name: string) {
  const res = await app.gql(
    `query($u: ID) { apiKeys(userId: $u) { id name userId revokedAt policy { restricted preset rules { zone owner types access }
       mayCreateZones mayDeleteZones mayManageKeys expiresAt idleDays allowedNetworks } } }`,
    { u: userId },
  );
  expect(res.errors).toBeUndefined();
  return res.data.apiKeys.find((k: { name: string }) => k.name === name);
}

const addRecord = (key: string, zone: string, owner: string, type: string, rdata: string) =>
  app.gql(CREATE_RECORD, { input: { zone, owner, type, rdata, ttl: 300 } }, key);
const restAdd = (key: string, zone: string, owner: string, rtype: string, rdata: string) =>
  app.http.post('/api/record/add').set('X-API-Key', key).type('form').send({ zone, owner, rtype, rdata, ttl: 300 });

/** the secret shown once after "Create API key", then "I have stored it" (the form comes back) */
async function takeSecret(name: string): Promise<string> {
  const shown = page.getByRole('status').filter({ hasText: 'The new API key' });
  await shown.waitFor();
  const secret = await shown.getByRole('textbox', { name: 'Secret' }).inputValue();
  expect(secret.length).toBeGreaterThan(20);
  secrets[name] = secret;
  return secret;
}

async function storedIt() {
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await newKeyForm().waitFor();
  expect(await page.getByRole('textbox', { name: 'Secret' }).count()).toBe(0);
}

beforeAll(async () => {
  buildConsole();
  app = await startTestApp();
  userId = await createUser(app, 'keys@example.org');
  userKey = await createUserKey(app, userId);
  await createZone(app, userId, ZONE);
  await createZone(app, userId, OTHER);
  browser = await launchChromium();
  // axe-core is injected as an inline script, which the console's own CSP (rightly) refuses
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  page = await context.newPage();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

test('signed in with a user key, the keys page lists the key and offers the policy form', async () => {
  await page.goto(`${app.baseUrl}/console/`);
  await page.getByRole('textbox', { name: 'API key', exact: true }).fill(userKey);
  await page.keyboard.press('Enter');
  await page.getByRole('link', { name: ZONE, exact: true }).waitFor();
  await page.getByRole('link', { name: 'API & TSIG keys', exact: true }).click();
  await page.getByRole('heading', { name: 'API keys', level: 2 }).waitFor();
  await keyRow('test').waitFor();
  expect(await policyLines('test')).toEqual(['Everything its account may do']);
  const form = newKeyForm();
  const access = form.getByRole('combobox', { name: 'What it may do' });
  expect(await access.locator('option').allTextContents()).toEqual([
    'Everything its account may do',
    'Read only',
    'One zone',
    ACME_WORDS,
    'Rules I write',
  ]);
  await expectAccessible('keys');
}, 60_000);

test('an ACME key for one zone, with an expiry and networks: a bad network is shown at its field; the secret once; the list says what the API stored', async () => {
  const form = newKeyForm();
  await form.getByRole('textbox', { name: 'Name', exact: true }).fill('acme-cert');
  await form.getByRole('combobox', { name: 'What it may do' }).selectOption({ label: ACME_WORDS });
  await form.getByRole('textbox', { name: 'Zone (empty: every zone)' }).fill(ZONE);
  await form.getByLabel('Expires (empty: never)').fill(EXPIRES_LOCAL);
  const networks = form.getByRole('textbox', { name: 'Networks it may be used from' });
  // a network the API refuses (INVALID_NETWORK, policy.allowedNetworks[1]): said at the field, nothing made
  await networks.fill('127.0.0.0/8, not-a-network');
  await form.getByRole('button', { name: 'Create API key' }).click();
  await form.getByText('"not-a-network" is not a CIDR block').waitFor();
  expect(await networks.getAttribute('aria-invalid')).toBe('true');
  expect(await networks.getAttribute('aria-describedby')).toContain('api-key-allowedNetworks-error');
  expect(await storedKey('acme-cert')).toBeUndefined();
  await expectAccessible('keys-network-refused');

  await networks.fill(NETWORKS);
  await form.getByRole('button', { name: 'Create API key' }).click();
  await takeSecret('acme-cert');
  await expectAccessible('keys-secret-once');
  await storedIt();

  // the browser's own words for the expiry it was given (its time zone), and the instant it sent
  const expires = await page.evaluate<{ words: string; iso: string }>(
    `({ words: new Date('${EXPIRES_LOCAL}').toLocaleString('en'), iso: new Date('${EXPIRES_LOCAL}').toISOString() })`,
  );
  await keyRow('acme-cert').waitFor();
  expect(await policyLines('acme-cert')).toEqual([
    `Preset: ${ACME_WORDS}`,
    `Write TXT at _acme-challenge.* in ${ZONE}`,
    `Expires ${expires.words}`,
    `Only from 127.0.0.0/8, ::1/128`,
  ]);
  expect(await keyRow('acme-cert').getByRole('cell').nth(3).textContent()).toBe('Never');
  await keyRow('acme-cert').getByRole('button', { name: 'Revoke acme-cert' }).waitFor();

  // what the page showed is what the API stored: the ACME preset's rule for that zone, the expiry, the networks
  const stored = await storedKey('acme-cert');
  expect(stored).toMatchObject({
    userId,
    revokedAt: null,
    policy: {
      restricted: true,
      preset: 'ACME',
      rules: [{ zone: ZONE, owner: '_acme-challenge.*', types: ['TXT'], access: 'WRITE' }],
      mayCreateZones: false,
      mayDeleteZones: false,
      mayManageKeys: false,
      idleDays: null,
      allowedNetworks: ['127.0.0.0/8', '::1/128'],
    },
  });
  expect(new Date(stored.policy.expiresAt).toISOString()).toBe(expires.iso);
  await expectAccessible('keys-acme');
}, 90_000);

test('the ACME secret writes a TXT at _acme-challenge.<zone> and is refused an A record and the other zone', async () => {
  const key = secrets['acme-cert'];
  const txt = await addRecord(key, ZONE, '_acme-challenge', 'TXT', '"challenge-token"');
  expect(txt.errors).toBeUndefined();
  expect(txt.data.createRecord).toMatchObject({ zone: ZONE, owner: '_acme-challenge', type: 'TXT' });
  // ...below a name too (the preset's wildcard owner), over the PowerDNS API as lego and cert-manager write it
  const pdns = await app.http
    .patch(`${PDNS_ZONES}/${ZONE}.`)
    .set('X-API-Key', key)
    .send({
      rrsets: [
        { name: `_acme-challenge.www.${ZONE}.`, type: 'TXT', ttl: 60, changetype: 'REPLACE', records: [{ content: '"www-token"' }] },
      ],
    });
  expect(pdns.status).toBe(204);

  const a = await addRecord(key, ZONE, 'host', 'A', '192.0.2.10');
  expect(errorCode(a)).toBe('FORBIDDEN_BY_POLICY');
  expect(a.errors![0].message).toMatch(`no rule lets this key write A at host.${ZONE}`);
  const rest = await restAdd(key, ZONE, 'host', 'A', '192.0.2.10');
  expect(rest.status).toBe(403);
  expect(rest.body.error).toBe('FORBIDDEN_BY_POLICY');
  // a TXT elsewhere in the zone is no challenge
  expect(errorCode(await addRecord(key, ZONE, 'host', 'TXT', '"not a challenge"'))).toBe('FORBIDDEN_BY_POLICY');
  // the other zone of the same account is not there for it
  expect(errorCode(await addRecord(key, OTHER, '_acme-challenge', 'TXT', '"other"'))).toBe('ZONE_NOT_FOUND');

  const records = await app.gql(`query($z: String) { records(zone: $z, first: 100) { nodes { owner type rdata } } }`, { z: ZONE });
  const lines = records.data.records.nodes.map((r: { owner: string; type: string; rdata: string }) => `${r.owner} ${r.type} ${r.rdata}`);
  expect(lines).toEqual(expect.arrayContaining(['_acme-challenge TXT "challenge-token"', '_acme-challenge.www TXT "www-token"']));
  // nothing at host: the new zone's default records have none there either
  expect(lines.filter((l: string) => l.startsWith('host '))).toEqual([]);

  // the page shows its use
  await page.reload();
  await keyRow('acme-cert').waitFor();
  expect(await keyRow('acme-cert').getByRole('cell').nth(3).textContent()).not.toBe('Never');
}, 60_000);

test('a READ_ONLY key for the zone reads it and is refused a write', async () => {
  const form = newKeyForm();
  await form.getByRole('textbox', { name: 'Name', exact: true }).fill('reader');
  await form.getByRole('combobox', { name: 'What it may do' }).selectOption({ label: 'Read only' });
  await form.getByRole('textbox', { name: 'Zone (empty: every zone)' }).fill(ZONE);
  await form.getByRole('button', { name: 'Create API key' }).click();
  const key = await takeSecret('reader');
  await storedIt();
  await keyRow('reader').waitFor();
  expect(await policyLines('reader')).toEqual(['Preset: Read only', `Read every type in ${ZONE}`]);
  expect((await storedKey('reader')).policy).toMatchObject({
    restricted: true,
    preset: 'READ_ONLY',
    rules: [{ zone: ZONE, owner: null, types: null, access: 'READ' }],
    expiresAt: null,
    allowedNetworks: null,
  });

  const read = await app.gql(`query($z: String) { records(zone: $z, first: 100) { totalCount } }`, { z: ZONE }, key);
  expect(read.errors).toBeUndefined();
  expect(read.data.records.totalCount).toBeGreaterThan(0);
  expect((await app.http.get(`${PDNS_ZONES}/${ZONE}.`).set('X-API-Key', key)).status).toBe(200);
  expect(errorCode(await addRecord(key, ZONE, '_acme-challenge', 'TXT', '"nope"'))).toBe('FORBIDDEN_BY_POLICY');
  const rest = await restAdd(key, ZONE, 'ro', 'A', '192.0.2.11');
  expect(rest.status).toBe(403);
  expect(rest.body.error).toBe('FORBIDDEN_BY_POLICY');
  await expectAccessible('keys-read-only');
}, 60_000);

test('a key revoked from the page is refused (401); the others still work', async () => {
  await keyRow('acme-cert').getByRole('button', { name: 'Revoke acme-cert' }).click();
  await page.getByRole('button', { name: 'Confirm revoking acme-cert' }).click();
  await page.getByRole('status').filter({ hasText: 'Revoked the API key acme-cert.' }).waitFor();
  await keyRow('acme-cert')
    .getByRole('cell', { name: /^revoked / })
    .waitFor();
  expect(await keyRow('acme-cert').getByRole('button').count()).toBe(0);
  expect((await storedKey('acme-cert')).revokedAt).not.toBeNull();

  const key = secrets['acme-cert'];
  const gql = await addRecord(key, ZONE, '_acme-challenge', 'TXT', '"after revoking"');
  expect(gql.status).toBe(401);
  expect(errorCode(gql)).toBe('UNAUTHENTICATED');
  expect((await restAdd(key, ZONE, '_acme-challenge', 'TXT', '"after revoking"')).status).toBe(401);
  expect((await app.http.get(`${PDNS_ZONES}/${ZONE}.`).set('X-API-Key', key)).status).toBe(401);
  // the read-only key and the signed-in key are untouched
  expect((await app.http.get(`${PDNS_ZONES}/${ZONE}.`).set('X-API-Key', secrets.reader)).status).toBe(200);
  await keyRow('reader').getByRole('button', { name: 'Revoke reader' }).waitFor();
  await expectAccessible('keys-revoked');
}, 60_000);
