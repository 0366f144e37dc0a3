/**
 * The console as a team that came from PowerDNS-Admin works in it (docs/console.md, «Search», «Administration»,
 * «Audit log»): the top bar's search finds a record across every zone and leads to it; the zone list sorts by a
 * column on the server; the operator (the admin key) lists the accounts with their quotas, members and keys,
 * revokes a key, moves a zone into an account, and filters the audit log; a user's key is offered none of the
 * operator's screens; a person signed in with a passkey is offered them once made an operator (docs/people.md,
 * «The operator») and uses them, and no longer once revoked. In Debian's Chromium, one browser for every case;
 * axe-core on the new screens.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  buildConsole,
  CONSOLE_ARTIFACTS,
  expectAccessibleAtBothWidths,
  gqlFromPage,
  launchChromium,
  passkeyBrowser,
} from '../support/console';
import { createUser, createUserKey, createZone, CREATE_RECORD } from '../support/fixtures';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';

const ARTIFACTS = path.join(CONSOLE_ARTIFACTS, 'admin');

let app: TestApp;
let browser: Browser;
let page: Page;
let aliceId: string;
let bobId: string;
let aliceKey: string;

beforeAll(async () => {
  buildConsole();
  app = await startTestApp();
  aliceId = await createUser(app, 'alice@admin.example');
  bobId = await createUser(app, 'bob@admin.example');
  await createZone(app, aliceId, 'small.admin.example');
  await createZone(app, bobId, 'large.admin.example');
  await createZone(app, bobId, 'moving.admin.example');
  for (const owner of ['a', 'b', 'c'])
    expect(
      (await app.gql(CREATE_RECORD, { input: { zone: 'large.admin.example', owner, type: 'A', rdata: '192.0.2.1', ttl: 300 } })).errors,
    ).toBeUndefined();
  const needle = { zone: 'small.admin.example', owner: 'build', type: 'TXT', rdata: '"the-needle-build"', ttl: 300 };
  expect((await app.gql(CREATE_RECORD, { input: needle })).errors).toBeUndefined();
  aliceKey = await createUserKey(app, aliceId);
  browser = await launchChromium();
  // axe-core is injected as an inline script, which the console's own CSP (rightly) refuses
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  page = await context.newPage();
  await page.addInitScript(`sessionStorage.setItem('zonekeeper-console-key', ${JSON.stringify(ADMIN_KEY)})`);
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

test('the search box finds a record by a part of its content, and its name leads to it in its zone', async () => {
  await page.goto(`${app.baseUrl}/console/#/`);
  await page.getByRole('searchbox', { name: 'Search records by name or content' }).fill('NEEDLE');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Records matching “NEEDLE”' }).waitFor();
  await page.getByText('1 record found').waitFor();
  const row = page.locator('table.search-results tbody tr');
  expect(await row.locator('td').allTextContents()).toEqual([
    'build.small.admin.example',
    'small.admin.example',
    'TXT',
    '300',
    '"the-needle-build"',
  ]);
  await expectAccessibleAtBothWidths(page, ARTIFACTS, 'search');
  await row.getByRole('link', { name: 'build.small.admin.example' }).click();
  await page.getByRole('heading', { name: 'small.admin.example', level: 1 }).waitFor();
  // the zone's records, filtered to the record's owner
  expect(await page.locator('#record-text-filter').inputValue()).toBe('build');
  await page.getByText('"the-needle-build"').first().waitFor();
}, 40_000);

test('the zone list sorts by record count on the server, either way', async () => {
  await page.goto(`${app.baseUrl}/console/#/`);
  const names = () => page.locator('table.zones tbody tr td:first-child a').allTextContents();
  await page.locator('table.zones').getByRole('link', { name: 'large.admin.example' }).waitFor();
  await page.getByRole('button', { name: 'Records', exact: true }).click();
  await page.locator('table.zones th[aria-sort="ascending"]', { hasText: 'Records' }).waitFor();
  // 4 records (SOA, 2 NS, www) in the two others, 7 in large: it comes last, then first the other way
  await page.waitForFunction(`document.querySelector('table.zones tbody tr:last-child a')?.textContent === 'large.admin.example'`);
  await page.getByRole('button', { name: 'Records', exact: true }).click();
  await page.locator('table.zones th[aria-sort="descending"]', { hasText: 'Records' }).waitFor();
  await page.waitForFunction(`document.querySelector('table.zones tbody tr:first-child a')?.textContent === 'large.admin.example'`);
  const api = await app.gql(`{ domains(orderBy: RECORDS_DESC, first: 10) { nodes { name } } }`);
  expect(await names()).toEqual(api.data.domains.nodes.map((n: { name: string }) => n.name));
}, 30_000);

test('the administration lists every account; one opened shows its keys, revokes one and takes a zone', async () => {
  await page.getByRole('link', { name: 'Administration' }).click();
  await page.getByRole('heading', { name: 'Administration', level: 1 }).waitFor();
  const accounts = page.locator('table.admin-users tbody tr');
  await accounts.first().waitFor();
  const emails = await accounts.locator('td:first-child').allTextContents();
  expect(emails).toEqual(expect.arrayContaining(['alice@admin.example', 'bob@admin.example']));
  const alice = accounts.filter({ hasText: 'alice@admin.example' });
  // 1 zone, the service's default zone quota
  const cells = await alice.locator('td').allTextContents();
  expect(cells[1]).toBe('1');
  expect(cells[2]).toMatch(/^[\d,]+ \(default\)$/);
  await alice.getByRole('button', { name: 'alice@admin.example' }).click();
  await page.getByRole('heading', { name: 'alice@admin.example', level: 2 }).waitFor();
  await page.getByText('No member: the account is used by its keys only.').waitFor();
  await page.getByRole('button', { name: 'Revoke test' }).click();
  await page.getByRole('button', { name: 'Confirm revoking test' }).click();
  await page.getByText('Revoked the API key test.').waitFor();
  expect((await app.http.post('/graphql').set('X-API-Key', aliceKey).send({ query: '{ viewer { can { createZone } } }' })).status).toBe(
    401,
  );
  await page.getByLabel('Zone name').fill('moving.admin.example');
  await page.getByRole('button', { name: 'Move the zone' }).click();
  await page.getByText('Moved the zone moving.admin.example to alice@admin.example.').waitFor();
  const moved = await app.gql(`{ domain(name: "moving.admin.example") { user { email } } }`);
  expect(moved.data.domain.user.email).toBe('alice@admin.example');
  await expectAccessibleAtBothWidths(page, ARTIFACTS, 'administration');
}, 40_000);

test('the audit log filters by zone and by action', async () => {
  await page.getByRole('link', { name: 'Audit log' }).click();
  await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
  await page.getByLabel('Zone').fill('moving.admin.example');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByText('1 event', { exact: true }).waitFor();
  expect(await page.locator('table.audit-events tbody tr td').nth(1).textContent()).toBe('zone-moved-by-admin');
  await page.getByLabel('Zone').fill('');
  await page.getByLabel('Action (e.g. api-key-revoked)').fill('api-key-revoked');
  await page.getByRole('button', { name: 'Filter' }).click();
  // the zone's filter also showed "1 event": wait for the new filter's row, not the count, before reading it
  await page.getByRole('cell', { name: 'api-key-revoked', exact: true }).waitFor();
  await page.getByText('1 event', { exact: true }).waitFor();
  expect(await page.locator('table.audit-events tbody tr td').nth(2).textContent()).toMatch(/^api-key:\d+$/);
  // a time range before anything happened: nothing
  await page.getByLabel('Until').fill('2000-01-01T00:00');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByText('No event matches.').waitFor();
  await expectAccessibleAtBothWidths(page, ARTIFACTS, 'audit-log');
}, 30_000);

test("a user's key is offered none of the operator's screens", async () => {
  const userPage = await browser.newPage();
  await userPage.addInitScript(`sessionStorage.setItem('zonekeeper-console-key', ${JSON.stringify(await createUserKey(app, aliceId))})`);
  await userPage.goto(`${app.baseUrl}/console/#/admin`);
  await userPage.getByRole('heading', { name: 'Zones', level: 1 }).waitFor();
  expect(await userPage.getByRole('link', { name: 'Administration' }).count()).toBe(0);
  expect(await userPage.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
  await userPage.close();
}, 20_000);

test('a person signed in with a passkey is offered the operator’s screens once an operator, uses them, and not once revoked', async () => {
  // WebAuthn needs a secure context and a domain for the RP ID: localhost, not 127.0.0.1
  const origin = app.baseUrl.replace('127.0.0.1', 'localhost');
  await createZone(app, bobId, 'by-person.admin.example');
  const invited = await app.gql(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { link } }`, {
    i: { userId: aliceId, email: 'oscar@admin.example', role: 'VIEWER' },
  });
  expect(invited.errors).toBeUndefined();
  const { context, page: person } = await passkeyBrowser(browser);
  try {
    // joined by the link with a passkey: a viewer of alice's account, no operator
    await person.goto(`${origin}${invited.data.inviteMember.link}`);
    await person.getByRole('button', { name: 'Create a passkey and join' }).click();
    await person.getByText('alice@admin.example · Viewer').waitFor();
    await person.getByRole('link', { name: 'Members' }).waitFor();
    expect(await person.getByRole('link', { name: 'Administration' }).count()).toBe(0);
    expect(await person.getByRole('link', { name: 'Audit log' }).count()).toBe(0);

    // made an operator by the admin key; signed in again with the passkey alone
    const granted = await app.gql(`mutation { grantOperator(person: "oscar@admin.example") { grant } }`);
    expect(granted.data).toEqual({ grantOperator: { grant: 'HAND' } });
    await person.getByRole('button', { name: 'Sign out', exact: true }).click();
    await person.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await person.getByText('alice@admin.example · Viewer').waitFor();
    await person.getByRole('link', { name: 'Administration' }).click();
    await person.getByRole('heading', { name: 'Administration', level: 1 }).waitFor();

    // an operator's every link, at 1400 px: the links on one line, the whole top bar two lines at most
    await person.setViewportSize({ width: 1400, height: 900 });
    const bar = await person.evaluate<{ links: string[]; tops: number[]; linkHeight: number; barHeight: number }>(`(() => {
      const links = [...document.querySelectorAll('header nav[aria-label="Main"] a')];
      const bar = document.querySelector('header.topbar').getBoundingClientRect();
      return { links: links.map((a) => a.textContent), tops: [...new Set(links.map((a) => Math.round(a.getBoundingClientRect().top)))],
        linkHeight: links[0].getBoundingClientRect().height, barHeight: bar.height };
    })()`);
    await person.screenshot({ path: path.join(ARTIFACTS, 'operator-nav-1400.png') });
    expect(bar.links).toEqual([
      'Zones',
      'API & TSIG keys',
      'Webhooks',
      'Nameserver sets',
      'Administration',
      'Audit log',
      'Members',
      'Your sign-in',
      'GraphiQL',
    ]);
    expect({ rows: bar.tops.length, twoLinesAtMost: bar.barHeight < 5 * bar.linkHeight }).toEqual({ rows: 1, twoLinesAtMost: true });
    await person.setViewportSize({ width: 1280, height: 900 });
    const accounts = person.locator('table.admin-users tbody tr');
    await accounts.first().waitFor();
    expect(await accounts.locator('td:first-child').allTextContents()).toEqual(
      expect.arrayContaining(['alice@admin.example', 'bob@admin.example']),
    );
    // the operators: the person, by hand; an address the service knows no person of is refused with the API's word
    const operators = person.locator('table.operators tbody tr');
    await operators.filter({ hasText: 'oscar@admin.example' }).waitFor();
    expect((await operators.locator('td').allTextContents()).slice(0, 2)).toEqual(['oscar@admin.example', 'by hand']);
    await person.getByLabel('Person’s e-mail address').fill('nobody@admin.example');
    await person.getByRole('button', { name: 'Make operator' }).click();
    await person.locator('#operator-grant-error', { hasText: 'Person Not Found' }).waitFor();
    // a zone of another account moved into alice's, from the person's session
    await accounts.filter({ hasText: 'alice@admin.example' }).getByRole('button', { name: 'alice@admin.example' }).click();
    await person.getByRole('heading', { name: 'alice@admin.example', level: 2 }).waitFor();
    await person.getByLabel('Zone name').fill('by-person.admin.example');
    await person.getByRole('button', { name: 'Move the zone' }).click();
    await person.getByText('Moved the zone by-person.admin.example to alice@admin.example.').waitFor();
    const moved = await app.gql(`{ domain(name: "by-person.admin.example") { user { email } } }`);
    expect(moved.data.domain.user.email).toBe('alice@admin.example');
    await expectAccessibleAtBothWidths(person, ARTIFACTS, 'administration-by-person');

    // the audit log names the person as the move's actor
    await person.getByRole('link', { name: 'Audit log' }).click();
    await person.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    await person.getByLabel('Zone').fill('by-person.admin.example');
    await person.getByRole('button', { name: 'Filter' }).click();
    await person.getByText('1 event', { exact: true }).waitFor();
    const cells = await person.locator('table.audit-events tbody tr td').allTextContents();
    expect(cells).toEqual(expect.arrayContaining(['zone-moved-by-admin', 'oscar@admin.example']));

    // the person revokes themselves on the Administration (the admin key remains): the next request of the same
    // session is refused, and a fresh load offers none of the screens
    await person.getByRole('link', { name: 'Administration' }).click();
    await person.getByRole('button', { name: 'Revoke oscar@admin.example' }).click();
    await person.getByRole('button', { name: 'Confirm revoking oscar@admin.example' }).click();
    await person.getByText('oscar@admin.example is no operator any more.').waitFor();
    expect((await app.gql(`{ operators { email } }`)).data).toEqual({ operators: [] });
    const refused = await gqlFromPage(person, `{ auditEvents(first: 1) { totalCount } }`);
    expect(refused.errors[0].extensions.code).toBe('FORBIDDEN');
    // a hash change alone keeps the page (and what it was told): the console loaded afresh
    await person.goto(`${origin}/console/#/admin`);
    await person.reload();
    await person.getByRole('heading', { name: 'Zones', level: 1 }).waitFor();
    await person.getByRole('link', { name: 'Members' }).waitFor();
    expect(await person.getByRole('link', { name: 'Administration' }).count()).toBe(0);
    expect(await person.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
  } finally {
    await context.close();
  }
}, 90_000);
