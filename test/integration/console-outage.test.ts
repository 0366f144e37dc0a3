import 'reflect-metadata';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { loadSettings } from '../../src/config/settings';
import { ensureDatabase } from '../../src/db/database';
import { RunningPostgres, startEmbeddedPostgres } from '../../src/db/embedded-postgres';
import { RunningService, startService } from '../../src/main';
import { buildConsole, CONSOLE_ARTIFACTS, launchChromium, severeAccessibilityViolations } from '../support/console';
import { freePort } from '../support/free-port';
import { ADMIN_KEY } from '../support/test-app';
import { waitUntil } from '../support/wait-for';

/**
 * The console's error state for a database outage: on a PostgreSQL cluster of this test's own (never
 * the shared one), stopped under the running service, the console says the database is away (the API's 503
 * DATABASE_UNAVAILABLE) instead of a blank page, keeps the tab signed in, and its "Try again" serves again once
 * the database is back.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-console-outage-pg-'));
let port: number;
let cluster: RunningPostgres | undefined;
let service: RunningService;
let browser: Browser;
let page: Page;
let baseUrl: string;
/** where a person opens the console: localhost, where the loopback address leads (src/http/console.ts) */
let consoleUrl: string;

beforeAll(async () => {
  buildConsole();
  port = await freePort();
  cluster = await startEmbeddedPostgres({ dir, persistent: true, port });
  const databaseUrl = await ensureDatabase(cluster.adminUrl, 'zk_console_outage');
  service = await startService(
    loadSettings({
      DATABASE_URL: databaseUrl,
      API_KEY: ADMIN_KEY,
      PORT: '0',
      HOST: '127.0.0.1',
      DNS_LISTEN: '',
      ROLES: 'api',
      SECONDARIES: '',
      LOG_LEVEL: 'silent',
    }),
  );
  baseUrl = `http://127.0.0.1:${service.httpPort}`;
  consoleUrl = `http://localhost:${service.httpPort}`;
  const gql = (query: string) => request(baseUrl).post('/graphql').set('X-API-Key', ADMIN_KEY).send({ query });
  const user = await gql('mutation { createUser(input: {email: "outage@example.org"}) { id } }');
  await gql(`mutation { createDomain(input: {userId: "${user.body.data.createUser.id}", zone: "outage.example"}) { id } }`);
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true })).newPage();
  mkdirSync(CONSOLE_ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('the database down: a clear 503 message, still signed in, and Try again serves once it is back', async () => {
  await page.goto(`${consoleUrl}/console/`);
  await page.fill('#api-key', ADMIN_KEY);
  await page.keyboard.press('Enter');
  await page.getByRole('link', { name: 'outage.example' }).waitFor();

  await cluster!.stop();
  cluster = undefined;
  await waitUntil('the service to report the database away', async () => (await request(baseUrl).get('/ready')).status === 503, 30_000);
  // a new search asks the service, which answers 503 DATABASE_UNAVAILABLE
  await page.fill('#zone-search', 'outage.example');
  await page.keyboard.press('Enter');
  const alert = page.getByRole('alert').filter({ hasText: 'cannot reach its database' });
  await alert.waitFor();
  expect(await alert.textContent()).toContain('(503)');
  expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
  await page.screenshot({ path: path.join(CONSOLE_ARTIFACTS, 'database-down-1280.png'), fullPage: true });
  expect(await severeAccessibilityViolations(page)).toEqual([]);

  // a browser with a person's session cookie, opened while the database is away: whether the session is live
  // cannot be known, so the console says so (with Try again) rather than asking for a sign-in
  const other = await browser.newContext();
  await other.addCookies([{ name: 'zk_session', value: 'zk_session_opened_during_the_outage', url: consoleUrl }]);
  const second = await other.newPage();
  await second.goto(`${consoleUrl}/console/`);
  await second.getByRole('alert').filter({ hasText: 'cannot reach its database' }).waitFor();
  expect(await second.locator('#api-key').count()).toBe(0);
  expect(await second.getByRole('button', { name: 'Try again' }).isVisible()).toBe(true);
  await other.close();

  cluster = await startEmbeddedPostgres({ dir, persistent: true, port });
  await waitUntil('the service to serve again', async () => (await request(baseUrl).get('/ready')).status === 200, 30_000);
  await page.getByRole('button', { name: 'Try again' }).click();
  await page.getByText('1 zone · page 1 of 1').waitFor();
  expect(await page.getByRole('link', { name: 'outage.example' }).isVisible()).toBe(true);
}, 90_000);
