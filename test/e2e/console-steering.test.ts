/**
 * The console's pool view (docs/steering.md, «The console»): a zone's Steering tab shows each steered RRset, what
 * it serves, its pools with each member's state, and the recent changes of what it serves; a member whose
 * external check is reported down is seen to go down on the page, its fallback served, without a reload.
 */
import 'reflect-metadata';
import type { Browser, Page } from 'playwright-core';
import { buildConsole, launchChromium } from '../support/console';
import { createUser, createUserKey, createZone } from '../support/fixtures';
import { startTestApp, TestApp } from '../support/test-app';

const ZONE = 'pools.steering.example';

let app: TestApp;
let browser: Browser;
let userKey: string;
let checkId: string;

beforeAll(async () => {
  buildConsole();
  app = await startTestApp();
  const userId = await createUser(app, 'pools@steering.example');
  userKey = await createUserKey(app, userId);
  await createZone(app, userId, ZONE);
  const check = await app.gql(
    `mutation($z: String!) { createSteeringCheck(zone: $z, input: { name: "origin", protocol: "external" }) { id } }`,
    {
      z: ZONE,
    },
  );
  checkId = check.data.createSteeringCheck.id;
  const steered = await app.gql(`mutation($z: String!, $i: SteeredRrsetInput!) { createSteeredRrset(zone: $z, input: $i) { id } }`, {
    z: ZONE,
    i: {
      owner: 'app',
      type: 'A',
      ttl: 300,
      pools: [{ members: [{ value: '192.0.2.10', checkId }] }, { members: [{ value: '192.0.2.99' }] }],
    },
  });
  expect(steered.errors).toBeUndefined();
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

test('the Steering tab shows each member’s state, and a member reported down goes down on the page', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page: Page = await context.newPage();
  await page.addInitScript(`sessionStorage.setItem('zonekeeper-console-key', ${JSON.stringify(userKey)})`);
  await page.goto(`${app.baseUrl}/console/#/zone/${ZONE}/steering`);
  const rrset = page.getByTestId('steered-app-A');
  const member = rrset.getByTestId('member-192.0.2.10');
  await member.getByTestId('member-status').filter({ hasText: 'Not decided yet' }).waitFor({ timeout: 20_000 });
  expect(await rrset.getByTestId('served').textContent()).toBe('192.0.2.10');
  expect(await member.textContent()).toContain('origin (reported)');

  const reported = await app.gql(`mutation($id: ID!) { reportSteeringStatus(id: $id, up: false, message: "origin drained") { status } }`, {
    id: checkId,
  });
  expect(reported.data.reportSteeringStatus.status).toBe('down');
  // the zone's live update (or the panel's own refresh) brings it: no reload
  await member.getByTestId('member-status').filter({ hasText: 'Down' }).waitFor({ timeout: 20_000 });
  expect(await member.textContent()).toContain('origin drained');
  expect(await rrset.getByTestId('served').textContent()).toBe('192.0.2.99');
  expect(await rrset.getByTestId('steering-changes').textContent()).toMatch(/192\.0\.2\.10 → 192\.0\.2\.99 \(pool 2\)/);
  await context.close();
});

test('a check held by the panic freeze shows failing and held on its member’s row, never up, and the home lists the zone under «Failover held»', async () => {
  // the prober's freeze (test/integration/steering-prober.test.ts) leaves the check up and held; the page is read as the prober left it
  await app.service.database.db.affected(
    `update steering_checks set status = 'up', held = 'panic', held_since = now(), last_ok = false, last_error = 'connect ECONNREFUSED' where id = $1`,
    [checkId],
  );
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page: Page = await context.newPage();
  await page.addInitScript(`sessionStorage.setItem('zonekeeper-console-key', ${JSON.stringify(userKey)})`);
  await page.goto(`${app.baseUrl}/console/#/zone/${ZONE}/steering`);
  const member = page.getByTestId('steered-app-A').getByTestId('member-192.0.2.10');
  const status = member.getByTestId('member-status');
  await status.filter({ hasText: 'Failing, held up by the panic freeze' }).waitFor({ timeout: 20_000 });
  expect(await status.getAttribute('data-condition')).toBe('FROZEN');
  expect(await status.textContent()).not.toMatch(/^Up/);
  await page.goto(`${app.baseUrl}/console/#/`);
  const home = page.getByRole('region', { name: 'Needs attention' });
  await home.getByRole('heading', { name: /Failover held/ }).waitFor({ timeout: 20_000 });
  expect(await home.textContent()).toMatch(/check origin fails but is held up by the panic freeze/);
  expect(await home.textContent()).not.toMatch(/Nothing needs attention/);
  await context.close();
});
