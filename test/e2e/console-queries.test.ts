/**
 * The console's traffic (docs/console.md, «Queries»; docs/analytics.md), in Debian's Chromium: counts written
 * through the collector's own write (`writeTally`) are drawn on the zone's Queries tab per response code, a
 * minute no secondary covered as a gap (a hatched band, no bar; "gap" in the table, never 0), a minute covered in
 * part as a floor; the top names and the top NXDOMAIN names; and in the records view each RRset's Last queried:
 * its time, "unknown" while the coverage of the last week has a gap, "never" once it is whole. axe-core on the tab.
 */
import 'reflect-metadata';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { buildConsole, CONSOLE_ARTIFACTS, expectAccessibleAtBothWidths, launchChromium } from '../support/console';
import { CREATE_RECORD, createUser, createUserKey, createZone } from '../support/fixtures';
import { startTestApp, TestApp } from '../support/test-app';
import { writeTally, type CountRow, type CoverageRow } from '../../src/repositories/query-analytics';

const ARTIFACTS = path.join(CONSOLE_ARTIFACTS, 'queries');
const ZONE = 'traffic.example';
const MINUTE = 60_000;
const NOERROR = 0;
const SERVFAIL = 2;
const NXDOMAIN = 3;

let app: TestApp;
let browser: Browser;
let userKey: string;
let zoneId: number;
/** the minute the counts were written in: every other minute is counted from it */
let m0: number;
const iso = (ms: number) => new Date(ms).toISOString();

/** a secondary connected for each of these minutes (`coveredMs` of each), as the collector writes it */
async function covered(minutes: number[], coveredMs = MINUTE) {
  const coverage: CoverageRow[] = minutes.map((minute) => ({
    secondary: 'ns1',
    minute,
    firstAt: minute,
    coveredMs,
    frames: 1,
    answers: 1,
    unmatched: 0,
    malformed: 0,
    dropped: 0,
  }));
  await writeTally(app.service.database.db, [], coverage, new Date());
}

const range = (from: number, to: number) => Array.from({ length: (to - from) / MINUTE + 1 }, (_, i) => from + i * MINUTE);

beforeAll(async () => {
  buildConsole();
  app = await startTestApp();
  const userId = await createUser(app, 'traffic@queries.example');
  userKey = await createUserKey(app, userId);
  zoneId = Number(await createZone(app, userId, ZONE));
  for (const [owner, rdata] of [
    ['web', '192.0.2.1'],
    ['quiet', '192.0.2.2'],
  ]) {
    const res = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner, type: 'A', rdata, ttl: 300 } });
    expect(res.errors).toBeUndefined();
  }
  // ns1 sends from 40 minutes ago; 20 to 13 minutes ago nobody is connected (a gap); 25 minutes ago half a minute
  m0 = Math.floor(Date.now() / MINUTE) * MINUTE;
  const m = (ago: number) => m0 - ago * MINUTE;
  await covered([...range(m(40), m(26)), ...range(m(24), m(21)), ...range(m(12), m0)]);
  await covered([m(25)], 30_000);
  const count = (ago: number, owner: string, type: string, rcode: number, n: number): CountRow => ({
    zoneId,
    minute: m(ago),
    owner,
    type,
    rcode,
    secondary: 'ns1',
    count: n,
    lastAt: m(ago) + 10_000,
  });
  await writeTally(
    app.service.database.db,
    [
      count(30, 'web', 'A', NOERROR, 5),
      count(30, 'nope', 'A', NXDOMAIN, 2),
      count(25, 'web', 'A', NOERROR, 2),
      count(8, 'web', 'A', NOERROR, 3),
      count(8, 'web', 'AAAA', NOERROR, 1),
      count(8, 'web', 'A', SERVFAIL, 1),
      count(8, 'nope', 'A', NXDOMAIN, 4),
      count(8, 'typo', 'TXT', NXDOMAIN, 1),
    ],
    [],
    new Date(),
  );
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

async function openPage(tab: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  const page = await context.newPage();
  await page.addInitScript(`sessionStorage.setItem('zonekeeper-console-key', ${JSON.stringify(userKey)})`);
  await page.goto(`${app.baseUrl}/console/#/zone/${ZONE}/${tab}`);
  return page;
}

test('the Queries tab draws the answers per response code, a gap as a gap and a part-covered minute as a floor', async () => {
  const page = await openPage('queries');
  const m = (ago: number) => m0 - ago * MINUTE;
  await page.getByTestId('traffic-summary').waitFor({ timeout: 20_000 });
  await page.getByLabel('Range').selectOption('hour');
  const summary = page.getByTestId('traffic-summary').filter({ hasText: 'Last hour, by minute' });
  await summary.waitFor({ timeout: 20_000 });
  expect(await summary.textContent()).toContain('19 answers (NOERROR 11, NXDOMAIN 7, SERVFAIL 1)');
  expect(await summary.textContent()).toMatch(/minutes are gaps: no secondary was sending then, so their counts are unknown, not zero/);
  expect(await summary.textContent()).toContain('1 minute partly covered (ns1 not sending all of it)');

  // the chart: each minute's bar, a segment a response code
  const chart = page.getByTestId('query-chart');
  const segments = async (ago: number) =>
    chart
      .locator(`[data-testid="chart-bucket"][data-start="${iso(m(ago))}"] rect`)
      .evaluateAll((rects) => rects.map((r) => `${r.getAttribute('data-rcode')} ${r.getAttribute('data-count')}`));
  expect(await segments(30)).toEqual(['NOERROR 5', 'NXDOMAIN 2']);
  expect(await segments(8)).toEqual(['NOERROR 4', 'NXDOMAIN 5', 'SERVFAIL 1']);
  expect(await chart.locator(`[data-testid="chart-bucket"][data-start="${iso(m(25))}"]`).getAttribute('class')).toBe('partial');
  // a quiet covered minute has no bar, and is no gap either
  expect(await segments(35)).toEqual([]);
  const gaps = await chart
    .getByTestId('chart-gap')
    .evaluateAll((bands) => bands.map((b) => `${b.getAttribute('data-from')} ${b.getAttribute('data-until')}`));
  expect(gaps).toContain(`${iso(m(20))} ${iso(m(12))}`);
  // the window's start, before ns1 was first seen: a gap too, up to its first minute
  expect(gaps.some((band) => band.endsWith(` ${iso(m(40))}`))).toBe(true);
  // no bar anywhere in a gap
  for (let ago = 20; ago > 12; ago--) expect(await chart.locator(`[data-start="${iso(m(ago))}"]`).count()).toBe(0);
  // the band spans the plot's height: a gap is seen, not an empty stretch
  const band = await chart.getByTestId('chart-gap').first().boundingBox();
  expect(band?.height).toBeGreaterThan(100);

  // the same numbers as a table: a gap says so, never 0; a minute covered in part is "at least"
  const table = page.getByTestId('traffic-table');
  const row = (ago: number) => table.locator(`tr[data-start="${iso(m(ago))}"]`);
  const cells = (ago: number) => row(ago).locator('td').allTextContents();
  expect(await table.locator('thead th').allTextContents()).toEqual(['From', 'NOERROR', 'NXDOMAIN', 'SERVFAIL', 'Total', 'Covered']);
  expect(await cells(30)).toEqual(['5', '2', '0', '7', '100 %']);
  expect(await cells(25)).toEqual(['2', '0', '0', 'at least 2', '50 %']);
  expect(await cells(16)).toEqual(['gap: nobody was counting', '0 %']);
  expect(await cells(35)).toEqual(['0', '0', '0', '0', '100 %']);

  // the top names, all answers and NXDOMAIN's alone ("other" left out)
  const names = (id: string) =>
    page
      .getByTestId(id)
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((cell) => cell.textContent).join(' ')));
  expect(await names('top-names')).toEqual(['web 12', 'nope 6', 'typo 1']);
  expect(await names('top-nxdomain')).toEqual(['nope 6', 'typo 1']);

  await page.locator('summary', { hasText: 'The counts as a table' }).click();
  await expectAccessibleAtBothWidths(page, ARTIFACTS, 'queries-hour');
  await page.getByLabel('Range').selectOption('week');
  await page.getByTestId('traffic-summary').filter({ hasText: 'Last week, by hour' }).waitFor({ timeout: 20_000 });
  expect(await page.getByTestId('traffic-summary').textContent()).toContain('19 answers');
  await page.context().close();
});

test('the records view says when each RRset was last queried: its time, unknown over a gap, never once covered', async () => {
  // ns1 connected since 12 minutes ago until now, whatever minute the test begins in (no gap after web's query)
  const first = Math.floor(Date.now() / MINUTE) * MINUTE;
  await covered(range(m0 - 12 * MINUTE, first));
  const page = await openPage('records');
  const lastQueried = (owner: string) => page.locator('table.records tbody tr', { hasText: owner }).locator('[data-last-queried]').first();
  await page
    .getByTestId('record-count')
    .filter({ hasText: /of \d+ records/ })
    .waitFor({ timeout: 20_000 });
  await lastQueried('quiet').and(page.locator('[data-last-queried="unknown"]')).waitFor({ timeout: 20_000 });
  expect(await lastQueried('web').getAttribute('data-last-queried')).toBe('seen');
  expect(await lastQueried('web').textContent()).toMatch(/^([789]|1[012]) minutes ago$/);
  expect(await lastQueried('quiet').textContent()).toBe('unknown');
  expect(await lastQueried('quiet').getAttribute('title')).toMatch(/have a gap/);
  // the SOA is never asked for in these counts either: unknown too
  expect(await lastQueried('SOA').textContent()).toBe('unknown');

  // ns1 connected all of the last week and an hour (the gap filled in): not seen queried now reads "never"
  const now = Math.floor(Date.now() / MINUTE) * MINUTE;
  await covered(range(now - 7 * 86_400_000 - 60 * MINUTE, now));
  await page.reload();
  await lastQueried('quiet').and(page.locator('[data-last-queried="never"]')).waitFor({ timeout: 20_000 });
  expect(await lastQueried('quiet').textContent()).toBe('never');
  await expectAccessibleAtBothWidths(page, ARTIFACTS, 'records-last-queried');
  expect(await lastQueried('web').textContent()).toMatch(/minutes ago$/);
  // the coverage whole since: the time is all there is to say
  expect(await lastQueried('web').getAttribute('title')).toMatch(/^Last answered by a secondary at [^,]+, [^,]+\.$/);

  // the RRsets view shows it per RRset
  await page.getByLabel('Show', { exact: true }).selectOption('rrsets');
  const rrset = page.getByTestId('rrset').filter({ hasText: 'quiet' });
  expect(await rrset.locator('[data-last-queried]').textContent()).toBe('never');
  expect(
    await page.getByTestId('rrset').filter({ hasText: '192.0.2.1' }).locator('[data-last-queried]').getAttribute('data-last-queried'),
  ).toBe('seen');
  await page.context().close();
});
