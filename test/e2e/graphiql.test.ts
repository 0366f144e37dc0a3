import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Browser, chromium } from 'playwright-core';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';

/**
 * A browser's GET /graphql serves GraphiQL from the service itself (no CDN), with a field for
 * the API key and the schema's docs. Tested in Debian's Chromium, headless; the screenshot is kept in
 * test-artifacts/ (not committed).
 */
const ARTIFACTS = path.join(__dirname, '..', '..', 'test-artifacts');
let app: TestApp;
let browser: Browser;

beforeAll(async () => {
  app = await startTestApp();
  const userId = await createUser(app, 'graphiql@example.org');
  await createZone(app, userId, 'graphiql.example');
  // the machine has no internet: no background networking, no component updates (playwright gives the
  // browser a fresh temporary profile of its own)
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

test('GET /graphql as HTML is GraphiQL, every asset from the service; JSON clients still get Apollo', async () => {
  const page = await app.http.get('/graphql').set('Accept', 'text/html');
  expect(page.status).toBe(200);
  expect(page.headers['content-type']).toMatch(/text\/html/);
  const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  expect(assets.length).toBe(4);
  for (const asset of assets) {
    expect(asset.startsWith('/graphiql/')).toBe(true);
    expect((await app.http.get(asset)).status).toBe(200);
  }
  // an operation sent as GET asks for JSON: it is an operation, and needs a key
  const operation = await app.http.get('/graphql').query({ query: '{ __typename }' }).set('Accept', 'application/json');
  expect(operation.status).toBe(401);
});

test('in a real browser: the key is given, a query runs, its answer shows, and the docs list the schema', async () => {
  const page = await browser.newPage();
  const external: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(app.baseUrl)) external.push(request.url());
  });
  await page.goto(`${app.baseUrl}/graphql?query=${encodeURIComponent('{ domains { nodes { name } } }')}`);
  await page.fill('#api-key', ADMIN_KEY);
  await page.click('#use-key');
  await page.waitForSelector('.graphiql-execute-button');
  await page.click('.graphiql-execute-button');
  await page.locator('.result-window', { hasText: 'graphiql.example' }).waitFor({ timeout: 20_000 });
  // the schema came by introspection with the key: the documentation explorer lists the root types
  await page.click('[aria-label="Show Documentation Explorer"]');
  await page.locator('.graphiql-doc-explorer', { hasText: 'Query' }).waitFor({ timeout: 20_000 });
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, 'graphiql.png'), fullPage: true });
  expect(external).toEqual([]);
  await page.close();
}, 60_000);
