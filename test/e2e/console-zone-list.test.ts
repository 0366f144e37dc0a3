/**
 * The zone list as an operator sorts and filters it (docs/console.md, «Zones»): each zone's owner, kind, DNSSEC
 * state, record count and propagation state beside its serial, as the API answers them one zone at a time;
 * filtered by kind and by owner on the server (the pages and the total follow). Those columns cost the same
 * number of statements for 3 zones and for 40 (batched per level: Domain.recordCount, dnssecState, propagation),
 * so a 100,000-zone list still pages. In Debian's Chromium with the admin key; axe-core on the screen.
 */
import 'reflect-metadata';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { JOURNAL_CHANNEL } from '../../src/db/journal-signal';
import { buildConsole, CONSOLE_ARTIFACTS, expectAccessibleAtBothWidths, launchChromium } from '../support/console';
import { createUser, createZone, CREATE_RECORD } from '../support/fixtures';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';

const ARTIFACTS = path.join(CONSOLE_ARTIFACTS, 'zone-list');
const SIGNED = 'signed.list.example';
const PLAIN = 'plain.list.example';
const SECONDARY = 'secondary.list.example';

let app: TestApp;
let browser: Browser;
let page: Page;
let bobId: string;
const statements: string[] = [];

const LIST = `query($first: Int!, $kind: ZoneKind, $userId: ID) {
  domains(first: $first, kind: $kind, userId: $userId, orderBy: NAME) {
    totalCount
    nodes { name kind user { email } recordCount dnssecState propagation { state } }
  }
}`;

beforeAll(async () => {
  buildConsole();
  app = await startTestApp();
  app.service.database.db.observeStatements((text) => statements.push(text));
  const aliceId = await createUser(app, 'alice@list.example');
  bobId = await createUser(app, 'bob@list.example');
  await createZone(app, aliceId, SIGNED);
  await createZone(app, aliceId, PLAIN);
  for (const owner of ['a', 'b', 'c']) {
    const res = await app.gql(CREATE_RECORD, { input: { zone: PLAIN, owner, type: 'A', rdata: '192.0.2.1', ttl: 300 } });
    expect(res.errors).toBeUndefined();
  }
  const signed = await app.gql(`mutation($z: String!) { enableDnssec(input: { zone: $z }) { state } }`, { z: SIGNED });
  expect(signed.errors).toBeUndefined();
  const secondary = await app.gql(
    `mutation($u: ID!, $z: String!) { createDomain(input: { userId: $u, zone: $z, kind: SECONDARY, primaries: [{ address: "192.0.2.53" }] }) { id } }`,
    { u: bobId, z: SECONDARY },
  );
  expect(secondary.errors).toBeUndefined();
  browser = await launchChromium();
  // axe-core is injected as an inline script, which the console's own CSP (rightly) refuses
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  page = await context.newPage();
  // signed in with the admin key, as the sign-in form leaves it (this tab's sessionStorage)
  await page.addInitScript(`sessionStorage.setItem('zonekeeper-console-key', ${JSON.stringify(ADMIN_KEY)})`);
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** the zone's facts as the API gives them one zone at a time (its own dnssec, records and propagation) */
async function oneByOne(zone: string) {
  const res = await app.gql(
    `query($z: String!) { domain(name: $z) { kind user { email } dnssec { state } propagation { state } } records(zone: $z) { totalCount } }`,
    { z: zone },
  );
  expect(res.errors).toBeUndefined();
  const d = res.data.domain;
  return {
    kind: d.kind,
    owner: d.user.email,
    dnssec: d.dnssec.state,
    propagation: d.propagation.state,
    records: res.data.records.totalCount,
  };
}

test('each row shows the owner, kind, DNSSEC state, record count and propagation the API gives for the zone', async () => {
  await page.goto(`${app.baseUrl}/console/#/`);
  await page.locator('table.zones').getByRole('link', { name: SIGNED }).waitFor();
  const words: Record<string, string> = { PRIMARY: 'Primary', SECONDARY: 'Secondary', unsigned: 'Unsigned', signed: 'Signed' };
  const propagationWords: Record<string, string> = {
    in_sync: 'In sync',
    pending: 'Pending',
    error: 'Failing',
    no_secondaries: 'No secondaries',
  };
  for (const zone of [SIGNED, PLAIN, SECONDARY]) {
    const api = await oneByOne(zone);
    const cells = await page
      .locator('table.zones tbody tr')
      .filter({ has: page.getByRole('link', { name: zone, exact: true }) })
      .locator('td')
      .allTextContents();
    expect({ zone, cells: cells.slice(1, 6) }).toEqual({
      zone,
      cells: [api.owner, words[api.kind], words[api.dnssec], api.records.toLocaleString('en'), propagationWords[api.propagation]],
    });
  }
  // what the zones are: the signed one signed, the secondary one not served yet (pending), 3 more records in plain
  expect((await oneByOne(SIGNED)).dnssec).toBe('signed');
  expect((await oneByOne(SECONDARY)).kind).toBe('SECONDARY');
  // the default template's SOA, two NS and www CNAME, and the three A records
  expect((await oneByOne(PLAIN)).records).toBe(7);
  await expectAccessibleAtBothWidths(page, ARTIFACTS, 'zone-list');
}, 45_000);

test('filtered by kind and by owner on the server: the rows and the total follow', async () => {
  await page.getByLabel('Kind').selectOption('SECONDARY');
  await page.getByText('1 zone · page 1 of 1').waitFor();
  expect(await page.locator('table.zones tbody tr').count()).toBe(1);
  await page.getByRole('link', { name: SECONDARY }).waitFor();
  const api = await app.gql(LIST, { first: 100, kind: 'SECONDARY' });
  expect(api.data.domains.nodes.map((d: { name: string }) => d.name)).toEqual([SECONDARY]);

  await page.getByLabel('Kind').selectOption('');
  await page.getByLabel('Owner').selectOption({ label: 'alice@list.example' });
  await page.getByText('2 zones · page 1 of 1').waitFor();
  expect(await page.getByRole('link', { name: SECONDARY }).count()).toBe(0);
  await page.getByRole('link', { name: PLAIN }).waitFor();
  await page.getByLabel('Owner').selectOption('');
  await page.getByText('3 zones · page 1 of 1').waitFor();
}, 30_000);

test('the columns are batched: as many statements for 40 zones as for 3', async () => {
  const count = async () => {
    statements.length = 0;
    const res = await app.gql(LIST, { first: 100 }, ADMIN_KEY);
    expect(res.errors).toBeUndefined();
    // the key's lookup, the journal's signal and its readers (other work of the process) are not the query's
    return {
      zones: res.data.domains.nodes.length,
      selects: statements.filter(
        (sql) => /^\s*select/i.test(sql) && !/api_keys/.test(sql) && !sql.includes(JOURNAL_CHANNEL) && !/\bfrom changes\b/.test(sql),
      ).length,
    };
  };
  // the process's duties (the worker's polls) may send a statement of their own while the query runs: the fewest
  // of three answers is the query's
  const fewest = async () => {
    const counts = [await count(), await count(), await count()];
    return counts.reduce((a, b) => (b.selects < a.selects ? b : a));
  };
  const small = await fewest();
  for (let i = 0; i < 37; i++) await createZone(app, bobId, `many-${i}.list.example`);
  const large = await fewest();
  expect(small.zones).toBe(3);
  expect(large.zones).toBe(40);
  expect(large.selects).toBe(small.selects);
  expect(large.selects).toBeLessThanOrEqual(8);
}, 30_000);
