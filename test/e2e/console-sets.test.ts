/**
 * The console's nameserver sets (docs/console.md, «Nameserver sets»; docs/transfers.md), on the service's default
 * settings, in Debian's Chromium signed in with the admin key: the screen lists `default` read-only, refuses a bad
 * name at its field, creates a set and edits it; a zone's page shows its set, moves the zone to the new one (its
 * set changes on the page and in the API), shows the API's refusal of a second move while the first is in
 * progress; deleting the set the zone uses is refused with the API's words, an unused one is deleted. A user key
 * sees neither the screen's link nor the move control. axe-core on the new screen and the zone's page, at 1280 px
 * and 390 px. What the page shows is checked against what the API answers.
 */
import 'reflect-metadata';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildConsole, CONSOLE_ARTIFACTS, launchChromium, expectAccessibleAtBothWidths } from '../support/console';
import { createUser, createUserKey, createZone } from '../support/fixtures';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';

const ARTIFACTS = path.join(CONSOLE_ARTIFACTS, 'sets');
const ZONE = 'sets-console.example';

let app: TestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let userKey: string;

/** axe at both widths, no sideways overflow, screenshots (test/support/console.ts) */
const expectAccessible = (screen: string) => expectAccessibleAtBothWidths(page, ARTIFACTS, screen);

/** the API's answer as the admin key sees it */
async function admin(query: string, variables: Record<string, unknown> = {}) {
  const res = await app.gql(query, variables);
  expect(res.errors).toBeUndefined();
  return res.data;
}

const setsOfApi = async () =>
  (await admin(`{ nameserverSets { name secondaries nsNames catalogZone isDefault zoneCount } }`)).nameserverSets as {
    name: string;
    secondaries: string[];
    nsNames: string[];
    catalogZone: string;
    isDefault: boolean;
    zoneCount: number;
  }[];

const focusedText = () => page.evaluate<string>('document.activeElement?.textContent ?? ""');

async function signInWith(key: string) {
  await page.goto(`${app.baseUrl}/console/`);
  await page.locator('#api-key').waitFor();
  await page.fill('#api-key', key);
  await page.keyboard.press('Enter');
  await page.getByRole('link', { name: 'Zones', exact: true }).waitFor();
}

beforeAll(async () => {
  buildConsole();
  app = await startTestApp();
  const userId = await createUser(app, 'sets@example.org');
  userKey = await createUserKey(app, userId);
  await createZone(app, userId, ZONE);
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

test('the admin key lists the sets (default read-only), is told of a bad name at its field, creates and edits a set', async () => {
  await signInWith(ADMIN_KEY);
  await page.getByRole('link', { name: 'Nameserver sets' }).click();
  await page.getByRole('heading', { name: 'Nameserver sets', level: 1 }).waitFor();
  const defaultRow = page.getByRole('row', { name: /^default/ });
  await defaultRow.getByText('From the settings').waitFor();
  expect(await defaultRow.getByRole('button').count()).toBe(0);
  const [fromSettings] = await setsOfApi();
  expect(fromSettings.isDefault).toBe(true);
  await defaultRow.getByText(fromSettings.catalogZone, { exact: true }).waitFor();

  // a bad name: the API's problem at the name field, which takes the focus
  await page.getByLabel('Name', { exact: true }).fill('Gold_Tier');
  await page.getByLabel('Secondaries', { exact: true }).fill('192.0.2.53');
  await page.getByLabel('NS names', { exact: true }).fill('ns1.gold.example\nns2.gold.example');
  await page.getByLabel('Catalog zone', { exact: true }).fill('catalog.gold.example');
  await page.getByRole('button', { name: 'Create the set' }).click();
  await page.locator('#new-set-name[aria-invalid="true"]').waitFor();
  expect(await page.locator('#new-set-name-error').textContent()).toContain('lower-case letters');
  expect(await page.evaluate<string>('document.activeElement?.id')).toBe('new-set-name');
  expect((await setsOfApi()).map((s) => s.name)).toEqual(['default']);
  await expectAccessible('sets-refused');

  await page.getByLabel('Name', { exact: true }).fill('gold');
  await page.getByRole('button', { name: 'Create the set' }).click();
  await page.getByRole('status').filter({ hasText: 'The nameserver set gold was created.' }).waitFor();
  expect(await page.evaluate<string>('document.activeElement?.id')).toBe('new-set-name');
  const gold = (await setsOfApi()).find((s) => s.name === 'gold');
  expect(gold).toEqual({
    name: 'gold',
    secondaries: ['192.0.2.53:53'],
    nsNames: ['ns1.gold.example.', 'ns2.gold.example.'],
    catalogZone: 'catalog.gold.example',
    isDefault: false,
    zoneCount: 0,
  });
  const goldRow = page.getByRole('row', { name: /^gold/ });
  for (const text of [...gold!.secondaries, ...gold!.nsNames, gold!.catalogZone]) await goldRow.getByText(text, { exact: true }).waitFor();

  // edit: a third NS name; the focus goes back to the row's edit button
  await goldRow.getByRole('button', { name: 'Edit gold' }).click();
  await page.getByRole('heading', { name: 'Edit the nameserver set gold' }).waitFor();
  await page.locator('#edit-set-nsNames').fill('ns1.gold.example\nns2.gold.example\nns3.gold.example');
  await page.getByRole('button', { name: 'Save gold' }).click();
  await page.getByRole('status').filter({ hasText: 'The nameserver set gold was saved.' }).waitFor();
  await goldRow.getByText('ns3.gold.example.', { exact: true }).waitFor();
  await page.waitForFunction(`document.activeElement?.textContent === 'Edit gold'`);
  expect((await setsOfApi()).find((s) => s.name === 'gold')!.nsNames).toEqual([
    'ns1.gold.example.',
    'ns2.gold.example.',
    'ns3.gold.example.',
  ]);
  await expectAccessible('sets');
}, 90_000);

test("a zone's page shows its set; the admin moves it, and a second move while the first is in progress is refused", async () => {
  await page.goto(`${app.baseUrl}/console/#/zone/${ZONE}`);
  const shown = page.getByTestId('zone-nameserver-set');
  await page.waitForFunction(`document.querySelector('[data-testid="zone-nameserver-set"]')?.textContent === 'default'`);
  expect(await shown.textContent()).toBe('default');
  await page.getByRole('button', { name: 'Move to another set…' }).click();
  await page.getByLabel('New nameserver set').waitFor();
  // the zone's own set is not offered
  const offered = await page.locator('#move-set-target option').evaluateAll((options) => options.map((o) => o.getAttribute('value')));
  expect(offered).toEqual(['gold']);
  await expectAccessible('zone-move');
  await page.getByRole('button', { name: `Move ${ZONE}` }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `${ZONE} moved to the nameserver set gold.` })
    .waitFor();
  await page.waitForFunction(`document.querySelector('[data-testid="zone-nameserver-set"]')?.textContent === 'gold'`);
  expect(await focusedText()).toBe('Move to another set…');
  const moved = await admin(`query($z: String!) { domain(name: $z) { nameserverSet { name } } }`, { z: ZONE });
  expect(moved.domain.nameserverSet.name).toBe('gold');
  // the NS records followed (they were default's NS names) exactly when the page gave no warning of them kept
  const note = (await page.getByTestId('zone-set-note').textContent())!;
  const ns = await admin(`query($z: String) { records(zone: $z, type: "NS", owner: "@", first: 50) { nodes { rdata } } }`, { z: ZONE });
  const apexNs = ns.records.nodes.map((r: { rdata: string }) => r.rdata).sort();
  const goldNs = ['ns1.gold.example.', 'ns2.gold.example.', 'ns3.gold.example.'];
  expect(note.includes('NS records were kept')).toBe(JSON.stringify(apexNs) !== JSON.stringify(goldNs));

  // gold's secondary (192.0.2.53) never serves it here: the move is still in progress, a second one is refused
  await page.getByRole('button', { name: 'Move to another set…' }).click();
  await page.getByLabel('New nameserver set').waitFor();
  expect(await page.locator('#move-set-target').inputValue()).toBe('default');
  await page.getByRole('button', { name: `Move ${ZONE}` }).click();
  await page.getByRole('alert').filter({ hasText: 'is still moving from its last set' }).waitFor();
  const again = await app.gql(`mutation($z: String!) { moveZoneToNameserverSet(zone: $z, nameserverSet: "default") { id } }`, { z: ZONE });
  expect(again.errors?.[0]?.extensions?.code).toBe('ZONE_MOVE_IN_PROGRESS');
  expect((await admin(`query($z: String!) { domain(name: $z) { nameserverSet { name } } }`, { z: ZONE })).domain.nameserverSet.name).toBe(
    'gold',
  );
  await page.getByRole('button', { name: 'Cancel' }).click();
}, 60_000);

test('deleting the set a zone uses is refused with the API’s words; an unused set is deleted', async () => {
  await page.getByRole('link', { name: 'Nameserver sets' }).click();
  const goldRow = page.getByRole('row', { name: /^gold/ });
  await goldRow.getByRole('button', { name: 'Delete gold…' }).waitFor();
  expect((await setsOfApi()).find((s) => s.name === 'gold')!.zoneCount).toBe(1);
  expect(await goldRow.locator('td').nth(3).textContent()).toBe('1');
  await goldRow.getByRole('button', { name: 'Delete gold…' }).click();
  await goldRow.getByRole('button', { name: 'Delete gold now' }).click();
  await page.getByRole('alert').filter({ hasText: 'still serves zones' }).waitFor();
  await page.waitForFunction(`document.activeElement?.textContent === 'Delete gold…'`);
  expect((await setsOfApi()).map((s) => s.name)).toEqual(['default', 'gold']);

  await admin(
    `mutation { createNameserverSet(input: { name: "spare", secondaries: ["192.0.2.54"], nsNames: ["ns1.spare.example"], catalogZone: "catalog.spare.example" }) { id } }`,
  );
  await page.reload();
  const spareRow = page.getByRole('row', { name: /^spare/ });
  await spareRow.getByRole('button', { name: 'Delete spare…' }).click();
  await spareRow.getByRole('button', { name: 'Delete spare now' }).click();
  await page.getByRole('status').filter({ hasText: 'The nameserver set spare was deleted.' }).waitFor();
  await spareRow.waitFor({ state: 'detached' });
  expect((await setsOfApi()).map((s) => s.name)).toEqual(['default', 'gold']);
}, 60_000);

test("a user key sees its zone's set but neither the sets screen nor the move control", async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signInWith(userKey);
  await page.getByRole('link', { name: ZONE }).click();
  await page.waitForFunction(`document.querySelector('[data-testid="zone-nameserver-set"]')?.textContent === 'gold'`);
  expect(await page.getByRole('button', { name: 'Move to another set…' }).count()).toBe(0);
  expect(await page.getByRole('link', { name: 'Nameserver sets' }).count()).toBe(0);
  // the API agrees: the sets are the admin's
  const refused = await app.gql(`{ nameserverSets { name } }`, {}, userKey);
  expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
}, 60_000);
