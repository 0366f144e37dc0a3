import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { buildConsole, CONSOLE_ARTIFACTS, launchChromium, severeAccessibilityViolations } from '../support/console';
import { CREATE_RECORD, createUserKey, createZone } from '../support/fixtures';
import { startServiceWithKnot } from '../support/knot-fleet';
import { TestApp } from '../support/test-app';
import { Knot, servedSerial, waitFor } from '../propagation/knot';

/**
 * The web console (docs/console.md), end to end, in Debian's Chromium (headless, no browser download) against the real
 * service on its test database with a real Knot secondary (catalog zone, NOTIFY, IXFR). Each main screen is
 * checked with axe-core (no serious or critical violation) and kept as a screenshot in test-artifacts/console/
 * (not committed), at 1280 and 390 px wide. The first load and the 10,000-record zone are measured and written
 * to test-artifacts/console/metrics.json (docs/console.md quotes them).
 */
const ARTIFACTS = CONSOLE_ARTIFACTS;
const CATALOG = 'catalog.console.test';
const TSIG = { name: 'console-test-key', secret: randomBytes(32).toString('base64') };
const ZONE = 'console.example';
const BIG_ZONE = 'big.console.example';
const BIG_RECORDS = 10_000;

let app: TestApp;
/** where the console is used: localhost, where the service's loopback address leads (src/http/console.ts) */
let origin: string;
let knot: Knot;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let userId: string;
let userKey: string;
const metrics: Record<string, number> = {};
const external: string[] = [];

beforeAll(async () => {
  buildConsole();
  ({ app, knot, userId } = await startServiceWithKnot({ catalog: CATALOG, tsig: TSIG, user: 'console@example.org' }));
  origin = app.baseUrl.replace('127.0.0.1', 'localhost');
  userKey = await createUserKey(app, userId);
  await createZone(app, userId, ZONE);
  browser = await launchChromium();
  // axe-core is injected as an inline script, which the console's own CSP (rightly) refuses
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  page = await context.newPage();
  page.on('request', (request) => {
    const url = request.url();
    const service = [app.baseUrl, origin].some((at) => url.startsWith(at) || url.startsWith(at.replace('http', 'ws')));
    if (!service && !url.startsWith('data:')) external.push(url);
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  if (Object.keys(metrics).length) writeFileSync(path.join(ARTIFACTS, 'metrics.json'), JSON.stringify(metrics, null, 2) + '\n');
  await browser?.close();
  await app?.close();
  await knot?.stop();
});

/** axe-core on the page as it is: no serious or critical violation */
async function expectAccessible(target: Page, screen: string) {
  expect({ screen, severe: await severeAccessibilityViolations(target) }).toEqual({ screen, severe: [] });
}

/** the screen at 1280 px and, in a second page of the same tab storage, at 390 px */
async function keepScreenshots(name: string) {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}-1280.png`), fullPage: true });
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(100);
  // nothing sticks out sideways at 390 px but the records table's own scroll box
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  expect({ name, overflow }).toEqual({ name, overflow: 0 });
  // the records table's Type and TTL cells (and their headers) show their whole text at 390 px
  const cut = await page.evaluate<string[]>(
    "[...document.querySelectorAll('table.records .col-type, table.records .col-ttl')].filter((c) => c.scrollWidth > c.clientWidth).map((c) => c.textContent)",
  );
  expect({ name, cut }).toEqual({ name, cut: [] });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}-390.png`), fullPage: true });
  await expectAccessible(page, `${name} at 390 px`);
  await page.setViewportSize(size);
  // after the full-page screenshots' and the viewport's changes of device metrics, headless Chromium once stopped
  // producing frames, and every later click waited for a stable element in vain: ask it to show the page again
  await page.bringToFront();
}

async function zoneSerial(zone: string): Promise<number> {
  const res = await app.gql(`query($n: String) { domain(name: $n) { serial } }`, { n: zone });
  expect(res.errors).toBeUndefined();
  return res.data.domain.serial;
}

async function recordsOf(zone: string): Promise<string[]> {
  const res = await app.gql(`query($z: String) { records(zone: $z, first: 1000) { nodes { owner type rdata } } }`, { z: zone });
  expect(res.errors).toBeUndefined();
  return res.data.records.nodes.map((r: { owner: string; type: string; rdata: string }) => `${r.owner} ${r.type} ${r.rdata}`);
}

test('/ leads to /console; the page and its assets come from the service, with a same-origin CSP', async () => {
  const host = new URL(origin).host;
  const root = await app.http.get('/').set('host', host);
  expect(root.status).toBe(302);
  expect(root.headers.location).toBe('/console/');
  const index = await app.http.get('/console/').set('host', host);
  expect(index.status).toBe(200);
  expect(index.headers['content-security-policy']).toContain("script-src 'self'");
  const assets = [...index.text.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1]);
  expect(assets.length).toBeGreaterThanOrEqual(2);
  for (const asset of assets) {
    expect(asset.startsWith('/console/assets/')).toBe(true);
    const response = await app.http.get(asset);
    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toContain('immutable');
  }
  // the service's other routes are untouched
  expect((await app.http.get('/health')).status).toBe(200);
  expect((await app.http.get('/nothing-here')).status).toBe(404);
});

test('first load: a wrong key is refused with a clear message; the right one signs in, by keyboard alone', async () => {
  let bytes = 0;
  const count = (response: Response) =>
    response
      .body()
      .then((body) => (bytes += body.length + Object.entries(response.headers()).reduce((n, [k, v]) => n + k.length + v.length + 4, 0)))
      .catch(() => undefined);
  page.on('response', count);
  const started = Date.now();
  // from the address the service listens on (the README's), led to localhost
  await page.goto(`${app.baseUrl}/`);
  // interactive: the key field has the focus and takes typing
  await page.locator('#api-key:focus').waitFor();
  metrics.firstLoadInteractiveMs = Date.now() - started;
  await page.waitForLoadState('networkidle');
  page.off('response', count);
  metrics.firstLoadBytes = bytes;
  // page.evaluate's strings run in the page (this project's TypeScript has no DOM types)
  const timing = await page.evaluate<{ domContentLoaded: number }>(
    "({ domContentLoaded: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd })",
  );
  metrics.firstLoadDomContentLoadedMs = Math.round(timing.domContentLoaded);
  await page.screenshot({ path: path.join(ARTIFACTS, 'sign-in-1280.png') });
  await expectAccessible(page, 'sign-in');

  await page.keyboard.type('not-a-key-of-this-service');
  await page.keyboard.press('Enter');
  await page.getByRole('alert').filter({ hasText: 'refused' }).waitFor();
  expect(await page.locator('#api-key').isVisible()).toBe(true);
  await page.screenshot({ path: path.join(ARTIFACTS, 'sign-in-refused-1280.png') });

  await page.fill('#api-key', userKey);
  await page.keyboard.press('Enter');
  await page.getByRole('link', { name: ZONE }).waitFor();
  // the key is kept for this tab only
  expect(await page.evaluate<string[]>('Object.keys(sessionStorage)')).toContain('zonekeeper-console-key');
  expect(await page.evaluate<string[]>('Object.keys(localStorage)')).toEqual([]);
  await keepScreenshots('zones');
  await expectAccessible(page, 'zones');
}, 60_000);

test('zones: server-side search by name prefix, and paging', async () => {
  // 51 zones: two pages of 50
  for (let i = 0; i < 50; i++) await createZone(app, userId, `page${i}.console.example`);
  await page.reload();
  await page.getByText('51 zones · page 1 of 2').waitFor();
  expect(await page.locator('table.zones tbody tr').count()).toBe(50);
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByText('51 zones · page 2 of 2').waitFor();
  // the page number is the tab's own; the rows follow once the server answers (under load, later)
  await page.locator('table.zones tbody tr').nth(1).waitFor({ state: 'detached' });
  expect(await page.locator('table.zones tbody tr').count()).toBe(1);
  expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
  await page.getByRole('button', { name: 'Previous' }).click();
  await page.getByText('51 zones · page 1 of 2').waitFor();
  // a prefix: page1 and page10 … page19, in any letter case, the count and pages those of the search
  await page.fill('#zone-search', 'PAGE1');
  await page.keyboard.press('Enter');
  await page.getByText('11 zones · page 1 of 1').waitFor();
  await page.locator('table.zones tbody tr').nth(11).waitFor({ state: 'detached' });
  // sorted by name by the server (page1, page10 … page19), then the other way from the sortable header
  const byName = ['page1', ...Array.from({ length: 10 }, (_, i) => `page1${i}`)].map((z) => `${z}.console.example`);
  expect(await page.locator('table.zones tbody tr td:first-child').allTextContents()).toEqual(byName);
  await page.getByRole('button', { name: 'Zone', exact: true }).click();
  expect(await page.locator('table.zones th[aria-sort="descending"]').textContent()).toContain('Zone');
  // the header turns at once; the rows follow once the server answers the new order
  await page
    .locator('table.zones tbody tr')
    .first()
    .getByText(byName[byName.length - 1], { exact: true })
    .waitFor();
  expect(await page.locator('table.zones tbody tr td:first-child').allTextContents()).toEqual(byName.slice().reverse());
  await page.getByRole('button', { name: 'Zone', exact: true }).click();
  // the whole name, with a final dot: that zone alone (page10… do not start with `page1.`)
  await page.fill('#zone-search', 'PAGE1.console.example.');
  await page.keyboard.press('Enter');
  await page.getByText('1 zone · page 1 of 1').waitFor();
  expect(await page.getByRole('link', { name: 'page1.console.example' }).count()).toBe(1);
  // an IDN zone reads in its Unicode form, its A-label on a second line; the zone's own heading too
  await createZone(app, userId, 'bücher.console.example');
  await page.fill('#zone-search', 'bücher');
  await page.keyboard.press('Enter');
  await page.getByRole('link', { name: 'bücher.console.example', exact: true }).waitFor();
  expect(await page.locator('table.zones .a-label').allTextContents()).toEqual(['xn--bcher-kva.console.example']);
  await page.getByRole('link', { name: 'bücher.console.example', exact: true }).click();
  await page.getByRole('heading', { name: 'bücher.console.example', exact: true }).waitFor();
  await page.getByText('xn--bcher-kva.console.example', { exact: true }).waitFor();
  await page.evaluate("location.hash = '#/'");
  await page.fill('#zone-search', 'nope.example');
  await page.keyboard.press('Enter');
  await page.getByText('No zone name starts with nope.example.').waitFor();
  await page.getByRole('button', { name: 'Show all' }).click();
  await page.getByRole('link', { name: ZONE, exact: true }).click();
  await page.getByRole('heading', { name: ZONE }).waitFor();
}, 60_000);

async function addRecord(owner: string, type: string, fields: Record<string, string>) {
  await page.getByRole('button', { name: 'Add record' }).click();
  await page.fill('#record-owner', owner);
  await page.selectOption('#record-type', type);
  for (const [name, value] of Object.entries(fields)) await page.fill(`#rdata-${name}`, value);
}

test('records: typed forms from recordTypes add records of several types; a refused one shows the error at its field', async () => {
  const added = [
    ['web', 'A', { address: '192.0.2.10' }, 'web A 192.0.2.10'],
    ['web', 'AAAA', { address: '2001:db8::10' }, 'web AAAA 2001:db8::10'],
    ['@', 'MX', { preference: '10', exchange: 'mail.console.example.' }, '@ MX 10 mail.console.example.'],
    [
      '_sip._tcp',
      'SRV',
      { priority: '10', weight: '5', port: '5060', target: 'sip.console.example.' },
      '_sip._tcp SRV 10 5 5060 sip.console.example.',
    ],
    ['@', 'CAA', { flags: '0', tag: 'issue', value: 'letsencrypt.org' }, '@ CAA 0 issue "letsencrypt.org"'],
    ['info', 'TXT', { 'txt-data': '"hello console"' }, 'info TXT "hello console"'],
  ] as const;
  for (const [owner, type, fields] of added) {
    await addRecord(owner, type, fields);
    await page.getByRole('button', { name: 'Add now' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Added ${owner} ${type}` })
      .waitFor();
  }
  const stored = await recordsOf(ZONE);
  for (const [, , , line] of added) expect(stored).toContain(line);
  // after a save the focus is back on "Add record" (not the page), and the live region said what was saved
  expect(await page.evaluate('document.activeElement?.textContent')).toBe('Add record');
  expect(await page.locator('p[aria-live="polite"][role="status"]').filter({ hasText: 'Added info TXT' }).count()).toBe(1);
  // the form's labels are words; the API's field names are in each field's help text
  await page.getByRole('button', { name: 'Add record' }).click();
  const form = page.locator('section.panel');
  for (const [label, field] of [
    ['Name', 'owner'],
    ['Type', 'type'],
    ['TTL', 'ttl'],
    ['Address', 'rdata'],
    ['Comment', 'comment'],
  ]) {
    const input = form.getByLabel(label, { exact: true });
    const hints = (await input.getAttribute('aria-describedby'))!.split(' ');
    expect(await form.locator(`[id="${hints[0]}"] code`).allTextContents()).toContain(field);
  }
  // the TTL is chosen among the server's allowed values (serverSettings.allowedTtls: ALLOWED_TTLS_BEYOND_REST's
  // default here, any TTL, so the usual steps from a minute to two days)
  const offered = await form.locator('#record-ttl option').evaluateAll((options) => options.map((o) => o.getAttribute('value')));
  expect(offered).toEqual(['60', '120', '300', '600', '900', '1800', '3600', '7200', '14400', '28800', '43200', '86400', '172800']);
  expect(await form.locator('#record-ttl').inputValue()).toBe('3600');
  await page.getByRole('button', { name: 'Cancel' }).click();

  // refused by the service: the message is at the RDATA fields, and the form keeps what was typed
  await addRecord('bad', 'A', { address: '300.1.2.3' });
  await page.getByRole('button', { name: 'Add now' }).click();
  const error = page.locator('#rdata-error');
  await error.waitFor();
  expect(await error.textContent()).toContain('300.1.2.3');
  expect(await page.locator('#rdata-address').getAttribute('aria-invalid')).toBe('true');
  expect(await page.locator('#rdata-address').getAttribute('aria-describedby')).toContain('rdata-error');
  expect(await page.inputValue('#rdata-address')).toBe('300.1.2.3');
  // a bad owner is shown at the owner
  await page.fill('#record-owner', 'bad..owner');
  await page.fill('#rdata-address', '192.0.2.99');
  await page.getByRole('button', { name: 'Add now' }).click();
  await page.locator('#owner-error').waitFor();
  await keepScreenshots('record-form-error');
  await expectAccessible(page, 'record form with errors');
  await page.getByRole('button', { name: 'Cancel' }).click();
  expect(await recordsOf(ZONE)).not.toContain('bad A 300.1.2.3');

  // filter (type on the server, text in the browser) and sort
  await page.selectOption('#record-type-filter', 'A');
  await page.getByText(/^1 of 1 records$/).waitFor();
  await page.selectOption('#record-type-filter', '');
  await page.fill('#record-text-filter', 'sip.console');
  await page.getByText(/^1 of \d+ records$/).waitFor();
  await page.fill('#record-text-filter', '');
  await page.getByRole('button', { name: 'TTL' }).click();
  await page.getByRole('button', { name: 'Type' }).click();
  expect(await page.locator('th[aria-sort="ascending"]').textContent()).toContain('Type');
  expect(await page.locator('tbody td.col-type').first().textContent()).toBe('A');

  // edit: the form is prefilled from the record, the change is saved
  await page.getByRole('button', { name: 'Edit web A 192.0.2.10' }).click();
  expect(await page.inputValue('#rdata-address')).toBe('192.0.2.10');
  await page.fill('#rdata-address', '192.0.2.11');
  // the RRset's comment (docs/changes.md, «Comments»), saved with the record and shown in its row
  expect(await page.inputValue('#record-comment')).toBe('');
  await page.fill('#record-comment', 'the web server, rack 4');
  await page.getByRole('button', { name: 'Save now' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved web A 192.0.2.11' }).waitFor();
  const commented = page.locator('tbody tr', { has: page.getByRole('button', { name: 'Edit web A 192.0.2.11' }) });
  await commented.locator('td.col-comment', { hasText: 'the web server, rack 4' }).waitFor();
  const commentStored = await app.gql(`query($z: String!) { records(zone: $z, owner: "web", type: "A") { nodes { comment } } }`, {
    z: ZONE,
  });
  expect(commentStored.data.records.nodes).toEqual([{ comment: 'the web server, rack 4' }]);
  // the focus is back on the row saved
  await page.getByRole('button', { name: 'Edit web A 192.0.2.11' }).waitFor();
  expect(await page.evaluate("document.activeElement?.getAttribute('aria-label')")).toBe('Edit web A 192.0.2.11');
  // delete
  await page.getByRole('button', { name: 'Delete info TXT "hello console"' }).click();
  await page.getByRole('button', { name: 'Delete now' }).click();
  await page.getByRole('status').filter({ hasText: 'Deleted info TXT' }).waitFor();
  const after = await recordsOf(ZONE);
  expect(after).toContain('web A 192.0.2.11');
  expect(after).not.toContain('web A 192.0.2.10');
  expect(after).not.toContain('info TXT "hello console"');
  await keepScreenshots('records');
  await expectAccessible(page, 'records');
}, 120_000);

test('a change set applied while someone else changed the zone shows what they changed; applied on top, it is one serial step', async () => {
  await addRecord('stage1', 'A', { address: '192.0.2.21' });
  await page.getByRole('button', { name: 'Add to change set' }).click();
  await addRecord('stage2', 'TXT', { 'txt-data': '"staged"' });
  await page.getByRole('button', { name: 'Add to change set' }).click();
  await page.getByRole('link', { name: 'Change set (2)' }).click();
  await page.getByText('2 staged changes, based on serial').waitFor();
  const base = await zoneSerial(ZONE);

  // meanwhile, another client changes the zone through the API
  const concurrent = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: 'other', type: 'A', ttl: 3600, rdata: '198.51.100.7' } });
  expect(concurrent.errors).toBeUndefined();

  await page.getByRole('button', { name: `Apply 2 changes (expects serial ${base})` }).click();
  const conflict = page.locator('.conflict');
  await conflict.waitFor();
  expect(await conflict.textContent()).toContain('other 3600 A 198.51.100.7');
  expect(await recordsOf(ZONE)).not.toContain('stage1 A 192.0.2.21');
  await keepScreenshots('change-set-conflict');
  await expectAccessible(page, 'change set conflict');

  const current = await zoneSerial(ZONE);
  await page.getByRole('button', { name: `Apply mine on top of serial ${current}` }).click();
  await page.getByText(/Applied: the zone is now at serial/).waitFor();
  const stored = await recordsOf(ZONE);
  expect(stored).toContain('stage1 A 192.0.2.21');
  expect(stored).toContain('stage2 TXT "staged"');
  expect(stored).toContain('other A 198.51.100.7');
  expect(await zoneSerial(ZONE)).not.toBe(current);
}, 60_000);

test('history: each change with its author and diff; revert brings the zone back in one action', async () => {
  await page.getByRole('link', { name: 'History' }).click();
  const newest = page.locator('ol.timeline > li').first();
  await newest.waitFor();
  expect(await newest.textContent()).toContain('key “test”');
  await newest.locator('summary').click();
  expect(await newest.textContent()).toContain('stage1 3600 A 192.0.2.21');
  await keepScreenshots('history');
  await expectAccessible(page, 'history');

  const before = await zoneSerial(ZONE);
  await newest.getByRole('button', { name: /^Revert to serial/ }).click();
  await newest.getByRole('button', { name: /^Confirm: revert to serial/ }).click();
  await page.getByText(/Reverted to the records of serial/).waitFor();
  const stored = await recordsOf(ZONE);
  expect(stored).not.toContain('stage1 A 192.0.2.21');
  expect(stored).not.toContain('stage2 TXT "staged"');
  expect(stored).toContain('other A 198.51.100.7');
  expect(await zoneSerial(ZONE)).not.toBe(before);
}, 60_000);

test('propagation: the Knot secondary is shown reaching the current serial, live', async () => {
  await page.getByRole('link', { name: 'Propagation' }).click();
  const server = page.getByTestId('server');
  await server.waitFor();
  expect(await server.textContent()).toContain(`127.0.0.1:${knot.port}`);
  // a change made now is followed live (propagationChanged over graphql-ws), up to the served serial
  const change = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: 'live', type: 'A', ttl: 3600, rdata: '192.0.2.77' } });
  expect(change.errors).toBeUndefined();
  const serial = await zoneSerial(ZONE);
  await page.getByText(`Serves serial ${serial}, the current one.`).waitFor({ timeout: 30_000 });
  await waitFor(
    'the secondary to serve the new serial',
    async () => ((await servedSerial(knot.port, ZONE)) === serial ? true : undefined),
    10_000,
  );
  expect(await page.locator('li.server.server-in_sync').count()).toBe(1);
  await keepScreenshots('propagation');
  await expectAccessible(page, 'propagation');
}, 60_000);

test('a change made elsewhere is followed live on a zone page just opened (zoneChanged after the newest change it loaded)', async () => {
  // opened afresh: the page subscribes once its first load is in, after the newest change that load saw
  await page.evaluate(`location.hash = '#/'`);
  await page.evaluate(`location.hash = '#/zone/${ZONE}/records'`);
  await page.getByRole('heading', { name: ZONE }).waitFor();
  // the table loaded (a record made earlier is shown), so the change below is patched in, not read with a reload
  await page.getByRole('cell', { name: '198.51.100.7', exact: true }).waitFor();
  await page.getByText(/^Loading records/).waitFor({ state: 'detached' });
  const change = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: 'followed', type: 'A', ttl: 3600, rdata: '192.0.2.78' } });
  expect(change.errors).toBeUndefined();
  const serial = await zoneSerial(ZONE);
  await page
    .getByRole('status')
    .filter({ hasText: `last change seen live: serial ${serial}` })
    .waitFor({ timeout: 15_000 });
  // and the page reloaded the zone: its serial is the new one
  await page
    .getByTestId('zone-serial')
    .filter({ hasText: String(serial) })
    .waitFor();
  // the records table shows the new record, read for its RRset alone (the rest of the table kept as it was)
  await page.getByRole('cell', { name: '192.0.2.78', exact: true }).waitFor({ timeout: 10_000 });
  await page.getByRole('cell', { name: '198.51.100.7', exact: true }).waitFor();
}, 60_000);

test('zone file: export shows the master file; an import is previewed as a dry run, then applied', async () => {
  await page.evaluate(`location.hash = '#/zone/${ZONE}/file'`);
  await page.getByRole('button', { name: 'Show the zone file' }).click();
  const file = page.getByLabel(`Zone file of ${ZONE}`);
  await file.waitFor();
  expect(await file.textContent()).toMatch(/other\S*\s+3600\s+IN\s+A\s+198\.51\.100\.7/);
  expect(await page.getByRole('link', { name: `Download ${ZONE}.zone` }).getAttribute('download')).toBe(`${ZONE}.zone`);

  // a refused file: its problem with its line, nothing written
  await page.fill('#import-text', 'imp0 3600 IN A 192.0.2.50\nimp1 3600 IN A 300.1.1.1\n');
  await page.getByRole('button', { name: 'Preview (dry run)' }).click();
  await page.locator('#import-problems').filter({ hasText: 'line 2' }).waitFor();

  await page.fill('#import-text', 'imp1 3600 IN A 192.0.2.50\nimp2 3600 IN TXT "imported"\n');
  await page.getByRole('button', { name: 'Preview (dry run)' }).click();
  const preview = page.getByRole('list', { name: 'Records the import would change' });
  await preview.waitFor();
  expect(await preview.textContent()).toContain('imp1');
  expect(await preview.textContent()).toContain('"imported"');
  // a dry run writes nothing
  expect((await recordsOf(ZONE)).some((r) => r.startsWith('imp1 '))).toBe(false);
  await keepScreenshots('zone-file-preview');
  await expectAccessible(page, 'zone file preview');
  await page.getByRole('button', { name: 'Apply the import' }).click();
  await page.getByRole('status').filter({ hasText: 'Imported: 2 added' }).waitFor();
  const stored = await recordsOf(ZONE);
  expect(stored).toContain('imp1 A 192.0.2.50');
  expect(stored).toContain('imp2 TXT "imported"');
}, 60_000);

test('keys: a new API key and a new TSIG key show their secret once; a TSIG key is revoked', async () => {
  await page.evaluate("location.hash = '#/keys'");
  await page.getByRole('heading', { name: 'API keys', exact: true }).waitFor();
  await page.getByRole('cell', { name: 'test', exact: true }).waitFor();
  await page.fill('#api-key-name', 'made in the console');
  await page.getByRole('button', { name: 'Create API key' }).click();
  const secret = await page.locator('#new-secret').inputValue();
  expect(secret.length).toBeGreaterThan(20);
  // the secret shown is a working key of the signed-in user
  const withNewKey = await app.gql(`{ domains(name: "${ZONE}") { totalCount } }`, {}, secret);
  expect(withNewKey.data.domains.totalCount).toBe(1);
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await page.getByRole('cell', { name: 'made in the console', exact: true }).waitFor();
  expect(await page.locator('#new-secret').count()).toBe(0);

  // the user id is left empty: the form sends the signed-in key's own user (the API refuses a user key without it)
  await page.fill('#tsig-key-name', 'acme.console.example');
  await page.getByRole('button', { name: 'Create TSIG key' }).click();
  expect((await page.locator('#new-secret').inputValue()).length).toBeGreaterThan(20);
  const made = await app.gql(`{ tsigKeys { name userId } }`);
  expect(made.data.tsigKeys.find((k: { name: string }) => k.name === 'acme.console.example').userId).toBe(userId);
  await keepScreenshots('keys');
  await expectAccessible(page, 'keys');
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await page.getByRole('button', { name: 'Revoke acme.console.example' }).click();
  await page.getByRole('button', { name: 'Confirm revoking acme.console.example' }).click();
  await page.getByRole('status').filter({ hasText: 'Revoked the TSIG key acme.console.example' }).waitFor();
  const tsig = await app.gql(`{ tsigKeys { name revokedAt } }`);
  expect(tsig.data.tsigKeys.find((k: { name: string }) => k.name === 'acme.console.example').revokedAt).not.toBeNull();
}, 60_000);

test('a zone created in the browser for the key’s own user; DNSSEC enabled there shows its keys and DS; rolled, disabled, deleted', async () => {
  const SIGNED = 'signed.console.example';
  await page.evaluate("location.hash = '#/'");
  await page.getByRole('button', { name: 'New zone…' }).click();
  // a user key sees only its own user (`users`), so the zone is created for it without a choice
  expect(await page.getByTestId('new-zone-owner').textContent()).toBe('console@example.org');
  await page.fill('#new-zone-name', 'Signed.Console.Example.');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: SIGNED, exact: true }).waitFor();
  const made = await app.gql(`query($n: String) { domain(name: $n) { user { id } } }`, { n: SIGNED });
  expect(made.data.domain.user.id).toBe(userId);
  // the same name again is refused at the name field
  await page.evaluate("location.hash = '#/'");
  await page.getByRole('button', { name: 'New zone…' }).click();
  await page.fill('#new-zone-name', SIGNED);
  await page.getByRole('button', { name: 'Create zone' }).click();
  await page.locator('#new-zone-name-error').waitFor();
  expect(await page.locator('#new-zone-name-error').textContent()).toBe(`A zone named ${SIGNED} already exists.`);
  expect(await page.locator('#new-zone-name').getAttribute('aria-invalid')).toBe('true');
  await page.getByRole('button', { name: 'Cancel' }).click();

  // DNSSEC: unsigned, then signed with NSEC3 from the form
  await page.evaluate(`location.hash = '#/zone/${SIGNED}/dnssec'`);
  await page.getByText('Not signed.').waitFor();
  await page.getByLabel('NSEC3 (hashed names, RFC 5155)').check();
  await page.getByRole('button', { name: 'Enable DNSSEC' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `Signed ${SIGNED}` })
    .waitFor({ timeout: 30_000 });
  const api = await app.gql(`query($n: String) { domain(name: $n) { dnssec { enabled denial ds keys { keyTag role state } } } }`, {
    n: SIGNED,
  });
  const dnssec = api.data.domain.dnssec;
  expect(dnssec.enabled).toBe(true);
  expect(dnssec.denial).toBe('NSEC3');
  expect(dnssec.ds.length).toBeGreaterThanOrEqual(1);
  expect(await page.getByTestId('ds-record').allTextContents()).toEqual(dnssec.ds);
  expect(await page.getByTestId('dnssec-state').textContent()).toContain('NSEC3');
  const rows = await page.getByTestId('dnssec-key').allTextContents();
  expect(rows.length).toBe(dnssec.keys.length);
  for (const key of dnssec.keys) expect(rows.some((row) => row.startsWith(`${key.keyTag}${key.role}`))).toBe(true);
  expect(rows.join(' ')).toContain('ECDSAP256SHA256');
  // the DS goes to the clipboard by keyboard alone
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  await page
    .getByRole('button', { name: /^Copy the DS record/ })
    .first()
    .focus();
  await page.keyboard.press('Enter');
  await page.getByRole('status').filter({ hasText: 'Copied the DS record' }).waitFor();
  expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(dnssec.ds[0]);
  await keepScreenshots('dnssec');
  await expectAccessible(page, 'dnssec');

  // a ZSK roll starts; a second one while it runs is refused with the service's code, shown as an alert
  await page.getByRole('button', { name: 'Start a ZSK roll' }).click();
  await page.getByRole('status').filter({ hasText: 'Started a ZSK roll' }).waitFor();
  await waitFor(
    'the new ZSK in the table',
    async () => ((await page.getByTestId('dnssec-key').count()) > dnssec.keys.length ? true : undefined),
    10_000,
  );
  await page.getByRole('button', { name: 'Start a ZSK roll' }).click();
  const refused = page.getByRole('alert').filter({ hasText: 'DNSSEC_ROLL_IN_PROGRESS' });
  await refused.waitFor();
  expect(await refused.textContent()).toContain(`ZSK roll of ${SIGNED} is under way`);
  // an algorithm roll is one roll too: refused while the ZSK's runs (src/services/dnssec/algorithm-rollover.ts)
  await page.getByRole('button', { name: 'Roll to ED25519' }).click();
  await page.getByRole('alert').filter({ hasText: 'one at a time' }).waitFor();

  // disabling asks first, and says the zone stays signed until the parent's DS is gone (RFC 8078)
  await page.getByRole('button', { name: 'Disable DNSSEC…' }).click();
  const confirm = page.getByRole('group', { name: `Disable DNSSEC for ${SIGNED}?` });
  await confirm.waitFor();
  expect(await confirm.textContent()).toContain('stays signed until the parent no longer serves its DS');
  await keepScreenshots('dnssec-disable');
  await confirm.getByRole('button', { name: 'Unsign once the parent’s DS is gone' }).click();
  await page.getByTestId('dnssec-disable-at').waitFor();
  expect(await page.getByTestId('dnssec-state').textContent()).toContain('Being unsigned.');
  const disabling = await app.gql(`query($n: String) { domain(name: $n) { dnssec { state disableAt } } }`, { n: SIGNED });
  expect(disabling.data.domain.dnssec).toMatchObject({ state: 'disabling', disableAt: expect.any(String) });
  await page.getByRole('button', { name: 'The parent has no DS: unsign now' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `DNSSEC disabled for ${SIGNED}` })
    .waitFor();
  const off = await app.gql(`query($n: String) { domain(name: $n) { dnssec { enabled } } }`, { n: SIGNED });
  expect(off.data.domain.dnssec.enabled).toBe(false);

  // deleting the zone asks first too
  await page.getByRole('button', { name: 'Delete zone…' }).click();
  await page.getByRole('button', { name: `Delete ${SIGNED} now` }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `Deleted the zone ${SIGNED}.` })
    .waitFor();
  const gone = await app.gql(`query($n: String) { domains(name: $n) { totalCount } }`, { n: SIGNED });
  expect(gone.data.domains.totalCount).toBe(0);
  expect(await page.getByRole('link', { name: SIGNED }).count()).toBe(0);
}, 120_000);

test('a zone created in the browser with a template of its user holds the template’s records', async () => {
  const saved = await app.gql(`mutation($i: CreateRecordTemplateInput!) { createRecordTemplate(input: $i) { id } }`, {
    i: {
      userId,
      name: 'console-web',
      records: [
        { owner: '@', type: 'SOA', rdata: 'ns1.console.example. hostmaster.{zone}. 1 3600 900 604800 300' },
        { owner: '@', type: 'NS', rdata: 'ns1.console.example.' },
        { owner: 'web', type: 'A', rdata: '192.0.2.90' },
      ],
    },
  });
  expect(saved.errors).toBeUndefined();
  await page.evaluate("location.hash = '#/'");
  await page.getByRole('button', { name: 'New zone…' }).click();
  await page.locator('#new-zone-template option[value="console-web"]').waitFor({ state: 'attached' });
  await page.fill('#new-zone-name', 'templated.console.example');
  await page.selectOption('#new-zone-template', 'console-web');
  await page.getByRole('button', { name: 'Create zone' }).click();
  await page.getByRole('heading', { name: 'templated.console.example', exact: true }).waitFor();
  expect((await recordsOf('templated.console.example')).map((r) => r.replace(/ SOA .*/, ' SOA')).sort()).toEqual([
    '@ NS ns1.console.example.',
    '@ SOA',
    'web A 192.0.2.90',
  ]);
});

test(`a ${BIG_RECORDS.toLocaleString('en')}-record zone loads page by page and scrolls in a virtualised table`, async () => {
  await createZone(app, userId, BIG_ZONE);
  const lines = Array.from({ length: BIG_RECORDS }, (_, i) => `h${i} 3600 IN A 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  const imported = await app.gql(`mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t, mode: MERGE) { added } }`, {
    z: BIG_ZONE,
    t: lines.join('\n') + '\n',
  });
  expect(imported.errors).toBeUndefined();
  const count = await app.gql(`query($z: String) { records(zone: $z, first: 1) { totalCount } }`, { z: BIG_ZONE });
  const total: number = count.data.records.totalCount;
  expect(total).toBeGreaterThanOrEqual(BIG_RECORDS);
  // from the zone list to the zone, as a person goes there: every page of records loaded and the table drawn
  await page.goto(`${origin}/console/#/`);
  await page.fill('#zone-search', BIG_ZONE);
  await page.keyboard.press('Enter');
  await page.getByRole('link', { name: BIG_ZONE }).waitFor();
  const started = Date.now();
  await page.getByRole('link', { name: BIG_ZONE }).click();
  await page.getByText(`${total.toLocaleString('en')} of ${total.toLocaleString('en')} records`).waitFor({ timeout: 60_000 });
  metrics.bigZoneRecords = total;
  metrics.bigZoneRenderMs = Date.now() - started;
  // only the rows in view are in the DOM
  const rows = await page.locator('table.records tbody tr').count();
  expect(rows).toBeLessThan(60);
  // scrolling to the end shows the last rows at once
  const scrolled = Date.now();
  await page.locator('.grid-scroll').evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await page.getByRole('cell', { name: 'h9999', exact: true }).waitFor();
  metrics.bigZoneScrollToEndMs = Date.now() - scrolled;
  // sorting 10,000 rows by data, descending
  const sorted = Date.now();
  await page.getByRole('button', { name: 'Value' }).click();
  await page.getByRole('button', { name: 'Value' }).click();
  await page.locator('th[aria-sort="descending"]').waitFor();
  metrics.bigZoneSortMs = Date.now() - sorted;
  await keepScreenshots('records-10k');

  // a change made elsewhere is applied from its zoneChanged event: only its RRset (and the SOA) are read again,
  // not the 10,000 records, and the table keeps its scroll position
  const recordReads: { owner?: string; type?: string }[] = [];
  const watch = (request: import('playwright-core').Request) => {
    // urql sends a query as a GET (its parameters in the URL) when it fits, else as a POST
    const url = new URL(request.url());
    if (!url.pathname.endsWith('/graphql')) return;
    const body = (
      request.method() === 'GET'
        ? { operationName: url.searchParams.get('operationName'), variables: JSON.parse(url.searchParams.get('variables') ?? '{}') }
        : request.postDataJSON()
    ) as { operationName?: string; variables?: { owner?: string; type?: string } } | null;
    if (body?.operationName === 'ZoneRecords') recordReads.push(body.variables ?? {});
  };
  page.on('request', watch);
  const scrollBefore = await page.locator('.grid-scroll').evaluate((el) => el.scrollTop);
  const change = await app.gql(CREATE_RECORD, { input: { zone: BIG_ZONE, owner: 'h5000', type: 'TXT', ttl: 3600, rdata: '"live"' } });
  expect(change.errors).toBeUndefined();
  await page.getByText(`${(total + 1).toLocaleString('en')} of ${(total + 1).toLocaleString('en')} records`).waitFor();
  page.off('request', watch);
  expect(recordReads.length).toBeGreaterThan(0);
  expect(recordReads.every((v) => v.owner !== undefined)).toBe(true);
  expect(recordReads.map((v) => `${v.owner} ${v.type}`).sort()).toEqual(['@ SOA', 'h5000 TXT']);
  expect(await page.locator('.grid-scroll').evaluate((el) => el.scrollTop)).toBe(scrollBefore);
}, 120_000);

test('a record disabled in the console leaves the served records for the Disabled records panel, is enabled there, and the history says so', async () => {
  await page.evaluate(`location.hash = '#/'`);
  await page.evaluate(`location.hash = '#/zone/${ZONE}/records'`);
  await page.getByRole('heading', { name: ZONE }).waitFor();
  const name = 'Disable other A 198.51.100.7';
  await page.getByRole('button', { name }).click();
  await page.getByRole('status').filter({ hasText: 'Disabled other A 198.51.100.7.' }).waitFor();
  const panel = page.locator('section.disabled-records');
  await panel.getByText('other 3600 A 198.51.100.7').waitFor();
  expect(await recordsOf(ZONE)).not.toContain('other A 198.51.100.7');
  await keepScreenshots('disabled-records');
  await expectAccessible(page, 'disabled records');

  await panel.getByRole('button', { name: 'Enable other A 198.51.100.7' }).click();
  await page.getByRole('status').filter({ hasText: 'Enabled other A 198.51.100.7.' }).waitFor();
  await panel.waitFor({ state: 'detached' });
  expect(await recordsOf(ZONE)).toContain('other A 198.51.100.7');

  await page.getByRole('link', { name: 'History' }).click();
  const [enabled, disabled] = [page.locator('ol.timeline > li').nth(0), page.locator('ol.timeline > li').nth(1)];
  await enabled.locator('summary').click();
  expect(await enabled.textContent()).toContain('other 3600 A 198.51.100.7 (enabled)');
  await disabled.locator('summary').click();
  expect(await disabled.textContent()).toContain('other 3600 A 198.51.100.7 (disabled)');
}, 60_000);

test('a revoked key signs the tab out with a clear message', async () => {
  const keys = await app.gql(`query($u: ID) { apiKeys(userId: $u) { id name } }`, { u: userId });
  // the zone's subscriptions are open: the service closes them (4403) once the key is revoked, and the tab
  // signs out without waiting for the next request
  await page.evaluate("location.hash = '#/'");
  await page.getByRole('link', { name: ZONE, exact: true }).click();
  await page.getByRole('heading', { name: ZONE }).waitFor();
  await page.waitForTimeout(500);
  const revoked = await app.gql(`mutation($id: ID!) { revokeApiKey(id: $id) { id } }`, { id: keys.data.apiKeys[0].id });
  expect(revoked.errors).toBeUndefined();
  await page.getByRole('alert').filter({ hasText: 'revoked' }).waitFor({ timeout: 20_000 });
  expect(await page.evaluate<string | null>("sessionStorage.getItem('zonekeeper-console-key')")).toBeNull();
  expect(external).toEqual([]);
}, 60_000);
