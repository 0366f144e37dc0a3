/**
 * The console's view switch (docs/views.md, «The console»): on a zone's page the operator chooses a view and reads
 * the zone as that view serves it, each record marked (the base's, replaced by the view, hidden in it) with the
 * view's serial, the diff against the base listing exactly the RRsets the view replaces or hides, and the view's
 * history; an overlay cleared from the page is gone from the diff and in the history. A user who is not the
 * operator sees no view switch, and the page asks nothing about views.
 */
import 'reflect-metadata';
import type { Browser, Page } from 'playwright-core';
import { buildConsole, launchChromium } from '../support/console';
import { CREATE_RECORD, createTsigKey, createUser, createUserKey, createZone } from '../support/fixtures';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';

const ZONE = 'split.console.example';
const SET = `mutation($z: String!, $v: String!, $o: String!, $t: String!, $a: OverlayAction!, $r: [OverlayRecordInput!]) {
  setViewOverlay(zone: $z, view: $v, owner: $o, type: $t, action: $a, records: $r) }`;

let app: TestApp;
let browser: Browser;
let userKey: string;
let serialAfterOverlays: number;

beforeAll(async () => {
  buildConsole();
  app = await startTestApp();
  const userId = await createUser(app, 'split@console.example');
  userKey = await createUserKey(app, userId);
  await createZone(app, userId, ZONE);
  for (const input of [
    { zone: ZONE, owner: 'api', type: 'A', rdata: '203.0.113.7', ttl: 300 },
    { zone: ZONE, owner: 'note', type: 'TXT', rdata: '"outside only"', ttl: 300 },
    { zone: ZONE, owner: 'mail', type: 'A', rdata: '203.0.113.25', ttl: 300 },
  ])
    expect((await app.gql(CREATE_RECORD, { input })).errors).toBeUndefined();
  for (const name of ['inside', 'lab']) {
    const key = await createTsigKey(app, null, `console-${name}-key`);
    const made = await app.gql(`mutation($i: ViewInput!) { createView(input: $i) { id } }`, {
      i: { name, tsigKeyId: key.id, networks: ['10.0.0.0/8'] },
    });
    expect(made.errors).toBeUndefined();
  }
  const replaced = await app.gql(SET, { z: ZONE, v: 'inside', o: 'api', t: 'A', a: 'REPLACE', r: [{ rdata: '10.1.2.3', ttl: 900 }] });
  expect(replaced.errors).toBeUndefined();
  const hidden = await app.gql(SET, { z: ZONE, v: 'inside', o: 'note', t: 'TXT', a: 'HIDE' });
  expect(hidden.errors).toBeUndefined();
  serialAfterOverlays = hidden.data.setViewOverlay;
  // another view's overlay: not in the inside view's page
  expect((await app.gql(SET, { z: ZONE, v: 'lab', o: 'mail', t: 'A', a: 'HIDE' })).errors).toBeUndefined();
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

async function openZone(key: string): Promise<{ page: Page; asked: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const asked: string[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/graphql') && request.method() === 'POST') asked.push(request.postData() ?? '');
  });
  await page.addInitScript(`sessionStorage.setItem('zonekeeper-console-key', ${JSON.stringify(key)})`);
  await page.goto(`${app.baseUrl}/console/#/zone/${ZONE}/records`);
  await page.getByTestId('zone-serial').filter({ hasText: /^\d+$/ }).waitFor({ timeout: 20_000 });
  return { page, asked, close: () => context.close() };
}

const mark = (page: Page, owner: string, type: string) =>
  page.getByTestId(`view-record-${owner}-${type}`).getByTestId('view-mark').allTextContents();

test('the operator switches to a view: the records marked, the view’s serial, the diff of exactly what it replaces or hides, its history', async () => {
  const { page, close } = await openZone(ADMIN_KEY);
  const viewSwitch = page.getByTestId('view-switch');
  await viewSwitch.waitFor({ timeout: 20_000 });
  expect(await viewSwitch.locator('option').allTextContents()).toEqual(['Base zone', 'inside', 'lab']);
  await viewSwitch.selectOption('inside');
  const panel = page.getByTestId('view-panel');
  await panel.waitFor({ timeout: 20_000 });
  expect(await page.getByTestId('view-serial').textContent()).toBe(String(serialAfterOverlays));

  // every record as the view serves it: the view's own api A, the base's TXT hidden, the rest the base's
  expect(await mark(page, 'api', 'A')).toEqual(['Replaced by the view']);
  expect(await page.getByTestId('view-record-api-A').locator('td').allTextContents()).toEqual([
    'api',
    '900',
    'A',
    '10.1.2.3',
    'Replaced by the view',
  ]);
  expect(await mark(page, 'note', 'TXT')).toEqual(['Hidden in the view']);
  expect(await mark(page, 'mail', 'A')).toEqual(['Base']);
  expect(await page.getByTestId('view-record-note-TXT').getAttribute('class')).toBe('overlay-hide');

  // the diff: exactly the two RRsets, the base's records before and the view's after
  const diff = page.getByTestId('view-diff');
  expect(await diff.locator(':scope > li').count()).toBe(2);
  expect(await diff.locator(':scope > li h4').allTextContents()).toEqual(['api A: replaced', 'note TXT: hidden']);
  const apiDiff = page.getByTestId('view-diff-api-A');
  expect(await apiDiff.locator('li.removed .mono').allTextContents()).toEqual(['api 300 A 203.0.113.7']);
  expect(await apiDiff.locator('li.added .mono').allTextContents()).toEqual(['api 900 A 10.1.2.3']);
  const noteDiff = page.getByTestId('view-diff-note-TXT');
  expect(await noteDiff.locator('li.removed .mono').allTextContents()).toEqual(['note 300 TXT "outside only"']);
  expect(await noteDiff.locator('li.added').count()).toBe(0);

  // the view's history: its two overlay changes, newest first, with the view's serials
  const history = page.getByTestId('view-history');
  expect(await history.getByTestId('view-history-entry').allTextContents()).toEqual([
    'note TXT hidden',
    'api A replaced with 900 10.1.2.3',
  ]);
  expect((await history.locator('.meta').first().textContent()) ?? '').toContain(`Serial ${serialAfterOverlays} ·`);

  // clearing the hidden TXT from the page: gone from the diff, served as the base's, in the history
  await noteDiff.getByRole('button', { name: /Clear/ }).click();
  await page.getByRole('status').filter({ hasText: 'note TXT is the base’s again in inside' }).waitFor({ timeout: 20_000 });
  await diff.locator(':scope > li').nth(1).waitFor({ state: 'detached', timeout: 20_000 });
  expect(await diff.locator(':scope > li h4').allTextContents()).toEqual(['api A: replaced']);
  expect(await mark(page, 'note', 'TXT')).toEqual(['Base']);
  expect(await page.getByTestId('view-serial').textContent()).toBe(String(serialAfterOverlays + 1));
  expect(await history.getByTestId('view-history-entry').first().textContent()).toBe('note TXT cleared (the base’s again)');
  const served = await app.gql(`{ viewZone(zone: "${ZONE}", view: "inside") { serial diff { owner type } } }`);
  expect(served.data.viewZone).toEqual({ serial: serialAfterOverlays + 1, diff: [{ owner: 'api', type: 'A' }] });

  // back to the base zone: the tabs again
  await viewSwitch.selectOption('');
  await panel.waitFor({ state: 'detached', timeout: 20_000 });
  await close();
});

test('a user who is not the operator sees no view switch, and the page asks nothing about views', async () => {
  const { page, asked, close } = await openZone(userKey);
  await page.getByTestId('record-count').waitFor({ timeout: 20_000 });
  expect(await page.getByTestId('view-switch').count()).toBe(0);
  expect(await page.getByTestId('view-panel').count()).toBe(0);
  expect(asked.length).toBeGreaterThan(0);
  expect(asked.filter((body) => /\bviews\b|viewZone|viewHistory/.test(body))).toEqual([]);
  await close();
});
