/**
 * Webhooks and zone health in the console (docs/console.md, «Webhooks», «Health»), one browser for every case:
 * a subscription added on the Webhooks screen to a real receiver on 127.0.0.1 (WEBHOOK_ALLOW in this file) that
 * verifies each delivery's signature with the Standard Webhooks library, its secret shown once; a zone change
 * delivered and seen among its deliveries; redelivered after its secret is rotated (the receiver then knows only the
 * new secret the screen showed); deleted after a confirmation. A sign-in that acts in no account is offered no
 * Webhooks, which the API refuses it too. The zone list's health column and the zone's Health tab: unknown until
 * "Check now"; while the health checker's only root server refuses every query, a check leaves the zone unknown and
 * the banner says the checker reaches no root server (on the tab and the home screen); once the root answers (and
 * delegates nothing), "Check now" finds the zone failing (not delegated, its nameservers' names without
 * addresses) and the banner is gone. The tab says scheduled checks are off (HEALTH_CHECK_INTERVAL=0 in the test
 * app). axe-core with no serious violation on both screens.
 */
import 'reflect-metadata';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { buildConsole, CONSOLE_ARTIFACTS, expectAccessibleAtBothWidths, launchChromium } from '../support/console';
import { CREATE_RECORD, createUser, createUserKey, createZone, errorCode } from '../support/fixtures';
import { FakeRoot, startFakeRoot } from '../support/fake-root';
import { personGql, signIn } from '../support/people';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor, waitUntil } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';

const ARTIFACTS = path.join(CONSOLE_ARTIFACTS, 'webhooks-health');
const ZONE = 'hooked.webhooks.example';

let app: TestApp;
let browser: Browser;
let root: FakeRoot;
let userKey: string;
const rx = new WebhookReceiver();

async function consoleAs(key: string, screen: string): Promise<Page> {
  // axe-core is injected as an inline script, which the console's own CSP (rightly) refuses
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    bypassCSP: true,
    // the secret's Copy button, read back from the clipboard
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const page = await context.newPage();
  await page.addInitScript(`sessionStorage.setItem('zonekeeper-console-key', ${JSON.stringify(key)})`);
  await page.goto(`${app.baseUrl}/console/#/${screen}`);
  return page;
}

beforeAll(async () => {
  buildConsole();
  // the health checker's only root server: it refuses everything at first (the checker reaches no root)
  root = await startFakeRoot('refuse');
  await rx.start();
  app = await startTestApp({
    ROLES: 'api,worker',
    WEBHOOK_ALLOW: '127.0.0.0/8',
    WEBHOOK_RETRY_BASE_MS: '100',
    WEBHOOK_RETRY_MAX_SECONDS: '1',
    HEALTH_ROOT_HINTS: root.hint,
  });
  const userId = await createUser(app, 'hooks@webhooks.example');
  userKey = await createUserKey(app, userId);
  await createZone(app, userId, ZONE);
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await rx.stop();
  await root?.stop();
});

test('a webhook added in the console: its secret once, a delivery of a zone change, redelivered under a rotated secret, deleted', async () => {
  const page = await consoleAs(userKey, 'webhooks');
  try {
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByText('No webhook yet.').waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).getAttribute('aria-current')).toBe(
      'page',
    );

    // a URL the service refuses: the field says why
    await page.getByLabel('URL', { exact: true }).fill('ftp://example.org/');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.locator('#webhook-url-error').waitFor();
    expect(await page.getByLabel('URL', { exact: true }).getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('URL', { exact: true }).fill(rx.url);
    await page.getByLabel('Zones').fill(ZONE);
    await page.getByRole('checkbox', { name: 'zone.changed' }).check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secretField = page.getByLabel('Secret', { exact: true });
    await secretField.waitFor();
    const first = await secretField.inputValue();
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/);
    rx.secrets = [first];
    // copied whole by its button
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(first);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await secretField.waitFor({ state: 'detached' });
    const row = page.locator('table.webhooks tbody tr');
    expect(await row.count()).toBe(1);
    expect(await row.locator('td').allTextContents()).toEqual([rx.url, 'zone.changed', ZONE, 'Enabled', expect.stringContaining('Rotate')]);
    // never shown again: not on the page, nor in what the API answers
    expect(await page.content()).not.toContain(first);
    const listed = await app.gql(`{ webhooks { id url eventTypes zones enabled } }`, {}, userKey);
    expect(listed.data.webhooks).toEqual([
      { id: expect.any(String), url: rx.url, eventTypes: ['zone.changed'], zones: [ZONE], enabled: true },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');

    // a change of the zone: delivered, signed with the secret shown, and listed among the deliveries
    const changed = await app.gql(
      CREATE_RECORD,
      { input: { zone: ZONE, owner: 'www2', type: 'A', rdata: '192.0.2.7', ttl: 300 } },
      userKey,
    );
    expect(changed.errors).toBeUndefined();
    await waitUntil('the zone change delivered', () => rx.received.length === 1);
    expect(rx.received[0]).toMatchObject({ type: 'zone.changed', zone: ZONE });
    await page.getByRole('button', { name: `Deliveries of ${rx.url}` }).click();
    await page.getByRole('heading', { name: `Deliveries to ${rx.url}` }).waitFor();
    const delivery = page.locator('table.deliveries tbody tr');
    const cells = async () => (await delivery.count()) === 1 && (await delivery.locator('td').allTextContents());
    const seen = await waitFor('the delivery listed as delivered', async () => {
      const found = await cells();
      if (found && found[3] === 'Delivered') return found;
      await page.getByRole('button', { name: 'Refresh deliveries' }).click();
      return undefined;
    });
    expect(seen.slice(0, 5)).toEqual(['zone.changed', ZONE, '1', 'Delivered', '200']);
    expect(seen[5]).toMatch(/\d/);
    await expectAccessibleAtBothWidths(page, ARTIFACTS, 'webhooks');

    // a new secret, shown once; the previous one signs too for a while, which the list says
    await page.getByRole('button', { name: `Rotate secret of ${rx.url}` }).click();
    await secretField.waitFor();
    const second = await secretField.inputValue();
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await secretField.waitFor({ state: 'detached' });
    await row.getByText(/the previous secret signs too until/).waitFor();
    expect(await page.content()).not.toContain(second);

    // redelivered by hand, to a receiver that now knows only the new secret: the same event (its webhook-id) again
    rx.secrets = [second];
    await page.getByRole('button', { name: /^Redeliver zone\.changed event \d+$/ }).click();
    await page.getByText(/^Redelivering the zone\.changed event \d+ \(1 delivery\)\.$/).waitFor();
    await waitUntil('the redelivery, verified under the new secret', () => rx.received.length === 2);
    const picked = ({ id, type, zone }: { id: string; type: string; zone: string | undefined }) => ({ id, type, zone });
    expect(picked(rx.received[1])).toEqual(picked(rx.received[0]));
    expect(rx.unverified).toEqual([]);
    await waitFor('the redelivery listed as delivered', async () => {
      await page.getByRole('button', { name: 'Refresh deliveries' }).click();
      const found = await cells();
      // attempts count again from the redelivery
      return found && found[3] === 'Delivered' && found[2] === '1' ? true : undefined;
    });

    // deleted after a confirmation; Cancel first leaves it
    await page.getByRole('button', { name: `Delete ${rx.url}`, exact: true }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await row.count()).toBe(1);
    await page.getByRole('button', { name: `Delete ${rx.url}`, exact: true }).click();
    await page.getByRole('button', { name: `Confirm deleting ${rx.url}` }).click();
    await page.getByText(`Deleted the webhook ${rx.url} and its deliveries.`).waitFor();
    await page.getByText('No webhook yet.').waitFor();
    expect(await page.getByRole('heading', { name: `Deliveries to ${rx.url}` }).count()).toBe(0);
    expect((await app.gql(`{ webhooks { id } }`, {}, userKey)).data.webhooks).toEqual([]);
  } finally {
    await page.context().close();
  }
}, 40_000);

test('a sign-in that acts in no account is offered no webhooks, which the API refuses it', async () => {
  const token = await signIn(app, 'nobody@webhooks.example');
  const refused = await personGql(app, token, `mutation($u: String!) { createWebhook(url: $u) { secret } }`, { u: rx.url });
  expect(errorCode(refused)).toBe('FORBIDDEN_BY_ROLE');
  const origin = app.baseUrl.replace('127.0.0.1', 'localhost');
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addCookies([{ name: 'zk_session', value: token, url: origin }]);
  const page = await context.newPage();
  try {
    await page.goto(`${origin}/console/#/webhooks`);
    await page.getByText('This sign-in acts in no account: there are no webhooks to show.').waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Your sign-in' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Webhooks' }).count()).toBe(0);
  } finally {
    await context.close();
  }
}, 20_000);

test('the zone list shows each zone’s health; the Health tab checks now and lists the finding', async () => {
  const page = await consoleAs(userKey, '');
  try {
    // the zone's row: Zone, Owner, Kind, DNSSEC, Records, Propagation, Health, …
    const healthCell = page
      .locator('table.zones tbody tr')
      .filter({ has: page.getByRole('link', { name: ZONE, exact: true }) })
      .locator('td')
      .nth(6);
    await healthCell.waitFor();
    expect(await healthCell.textContent()).toBe('Unknown');
    expect(await page.getByRole('columnheader', { name: 'Health' }).count()).toBe(1);
    // the server filters by health: nothing fails before a check
    await page.getByLabel('Health', { exact: true }).selectOption({ label: 'Failing' });
    await page.getByText('No zone’s health is Failing.').waitFor();
    await page.getByLabel('Health', { exact: true }).selectOption({ label: 'Every state' });
    await page.getByRole('link', { name: ZONE, exact: true }).click();
    await page.getByRole('link', { name: 'Health', exact: true }).click();
    await page.waitForURL(`**/#/zone/${ZONE}/health`);
    await page.getByRole('heading', { name: 'Health', level: 2 }).waitFor();
    expect(await page.getByRole('link', { name: 'Health', exact: true }).getAttribute('aria-current')).toBe('page');
    await page.getByText('Not checked yet: “Check now” checks it.').waitFor();
    expect(await page.getByTestId('health-state').textContent()).toBe('Unknown');
    // no promise of a schedule the settings turned off
    await page.getByText('Scheduled checks are off (HEALTH_CHECK_INTERVAL is 0)', { exact: false }).waitFor();
    expect(await page.getByText('checks each zone every').count()).toBe(0);

    // the root refuses: the check finds nothing of the zone, the banner says why, once for every zone
    await page.getByRole('button', { name: 'Check now' }).click();
    const banner = page.getByTestId('health-root-banner');
    await banner.waitFor();
    expect(await banner.textContent()).toMatch(/^The health checker reaches no root server/);
    expect(await page.getByTestId('health-state').textContent()).toBe('Unknown');
    expect(await page.locator('table.health-findings tbody tr').count()).toBe(0);
    const home = await consoleAs(userKey, '');
    try {
      await home.getByRole('heading', { name: 'Needs attention' }).waitFor();
      await home.getByTestId('health-root-banner').waitFor();
    } finally {
      await home.context().close();
    }

    // the root answers (and delegates nothing): the zone is seen, and found failing
    root.mode = 'empty';
    await page.getByRole('button', { name: 'Check now' }).click();
    const finding = page.locator('table.health-findings tbody tr');
    await finding.first().waitFor();
    expect(await page.getByTestId('health-state').textContent()).toBe('Failing');
    await page.getByText(/last checked .*\d/).waitFor();
    // what the screen shows is what the API stored: the zone's nameservers (its template's, served by no one
    // here) do not answer, and its parent is not found
    const stored = await app.gql(
      `query($z: String!) { domain(name: $z) { health { state findings { code severity } } } }`,
      { z: ZONE },
      userKey,
    );
    const { state, findings } = stored.data.domain.health;
    expect(state).toBe('critical');
    expect(findings.map((f: { code: string }) => f.code)).toEqual(expect.arrayContaining(['LAME_DELEGATION', 'NOT_DELEGATED']));
    await waitUntil('the banner to go', async () => (await banner.count()) === 0);
    const rows: string[][] = [];
    for (let i = 0; i < (await finding.count()); i++) rows.push(await finding.nth(i).locator('td').allTextContents());
    expect(rows.map((r) => r.slice(0, 2))).toEqual(
      findings.map((f: { code: string; severity: string }) => [f.code, f.severity[0].toUpperCase() + f.severity.slice(1)]),
    );
    for (const [, , , message, since] of rows) {
      expect(message.length).toBeGreaterThan(10);
      expect(since).toMatch(/\d/);
    }
    await expectAccessibleAtBothWidths(page, ARTIFACTS, 'zone-health');

    // back on the list, the zone's state follows, and the filter finds it among the failing zones only
    await page.getByRole('link', { name: 'Zones', exact: true }).first().click();
    await waitUntil('the list shows the zone failing', async () => (await healthCell.textContent()) === 'Failing');
    await page.getByLabel('Health', { exact: true }).selectOption({ label: 'OK' });
    await page.getByText('No zone’s health is OK.').waitFor();
    await page.getByLabel('Health', { exact: true }).selectOption({ label: 'Failing' });
    await page.getByText(/^1 zone · page 1 of 1$/).waitFor();
    expect(await healthCell.textContent()).toBe('Failing');
    const counts = await app.gql(
      `{ critical: domains(first: 10, health: critical) { totalCount nodes { name } } unknown: domains(first: 10, health: unknown) { totalCount } }`,
      {},
      userKey,
    );
    expect(counts.data).toEqual({ critical: { totalCount: 1, nodes: [{ name: ZONE }] }, unknown: { totalCount: 0 } });
  } finally {
    await page.context().close();
  }
}, 30_000);
