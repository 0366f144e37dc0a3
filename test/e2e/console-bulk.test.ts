/**
 * Bulk work in the console (docs/console.md, «Bulk changes and RRsets»), as an editor signed in, in Debian's
 * Chromium: records picked in the table are deleted together, and the RRsets picked in the RRset view (records
 * grouped by name and type) get a new TTL together, each as ONE change set (one applyZoneChanges: one serial
 * step, one entry in the zone's history, holding exactly those records); the SOA is never offered for either.
 * What the page shows is checked against what the API answers; axe-core on the new screens.
 *
 * The service names its own database as its standby (DATABASE_REPLICA_URL): every write's answer then carries its
 * Consistency-Token (docs/deployment.md, «Reading from standbys»), while the database, being the primary itself,
 * serves no read as a standby, so every read stays where it was. What the console does with the token is seen
 * from the browser: the request that follows a save sends back the token the save's answer carried.
 */
import 'reflect-metadata';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Locator, Page, Request, Response } from 'playwright-core';
import { buildConsole, CONSOLE_ARTIFACTS, expectAccessibleAtBothWidths, launchChromium } from '../support/console';
import { createUser, createZone, CREATE_RECORD } from '../support/fixtures';
import { signIn } from '../support/people';
import { startTestApp, TestApp } from '../support/test-app';

const ARTIFACTS = path.join(CONSOLE_ARTIFACTS, 'bulk');
const ACCOUNT = 'team@bulk.example';
const EDITOR = 'editor@bulk.example';
const ZONE = 'bulk.example';

let app: TestApp;
let browser: Browser;
let page: Page;

interface Change {
  serialBefore: number;
  serialAfter: number;
  added: { owner: string; type: string; ttl: number; rdata: string }[];
  removed: { owner: string; type: string; ttl: number; rdata: string }[];
}

/** the zone's records (SOA aside) as `owner ttl type rdata`, its change count and its newest change */
async function zoneNow(): Promise<{ records: string[]; changes: number; newest: Change }> {
  const res = await app.gql(
    `query($z: String!) {
      records(zone: $z, first: 100) { nodes { owner type ttl rdata } }
      domain(name: $z) { changes(first: 1) { totalCount nodes { serialBefore serialAfter added { owner type ttl rdata } removed { owner type ttl rdata } } } }
    }`,
    { z: ZONE },
  );
  expect(res.errors).toBeUndefined();
  return {
    records: res.data.records.nodes
      .filter((r: any) => r.type !== 'SOA')
      .map((r: any) => `${r.owner} ${r.ttl} ${r.type} ${r.rdata}`)
      .sort(),
    changes: res.data.domain.changes.totalCount,
    newest: res.data.domain.changes.nodes[0],
  };
}

/** a change's records as lines, the SOA's serial step aside */
const lines = (list: Change['added']) =>
  list
    .filter((r) => r.type !== 'SOA')
    .map((r) => `${r.owner} ${r.ttl} ${r.type} ${r.rdata}`)
    .sort();

beforeAll(async () => {
  buildConsole();
  app = await startTestApp((databaseUrl) => ({ DATABASE_REPLICA_URL: databaseUrl }));
  const origin = app.baseUrl.replace('127.0.0.1', 'localhost');
  const accountId = await createUser(app, ACCOUNT);
  await createZone(app, accountId, ZONE);
  for (const [owner, type, rdata] of [
    ['a', 'A', '192.0.2.1'],
    ['a', 'A', '192.0.2.2'],
    ['a', 'A', '192.0.2.3'],
    ['b', 'TXT', '"bee"'],
    ['c', 'TXT', '"sea"'],
    ['d', 'A', '192.0.2.4'],
  ]) {
    const res = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner, type, rdata, ttl: 300 } });
    expect(res.errors).toBeUndefined();
  }
  const invited = await app.gql(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token } }`, {
    i: { userId: accountId, email: EDITOR, role: 'EDITOR' },
  });
  expect(invited.errors).toBeUndefined();
  const token = await signIn(app, EDITOR);
  browser = await launchChromium();
  // axe-core is injected as an inline script, which the console's own CSP (rightly) refuses
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  await context.addCookies([{ name: 'zk_session', value: token, url: origin }]);
  page = await context.newPage();
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.goto(`${origin}/console/#/zone/${ZONE}`);
  await page.getByRole('checkbox', { name: 'Select d A 192.0.2.4' }).waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

test('records picked in the table are deleted in one change set; the SOA is never offered', async () => {
  expect(await page.getByRole('checkbox', { name: /^Select @ SOA/ }).count()).toBe(0);
  const before = await zoneNow();
  for (const name of ['Select a A 192.0.2.1', 'Select b TXT "bee"', 'Select c TXT "sea"'])
    await page.getByRole('checkbox', { name, exact: true }).check();
  await page.getByRole('heading', { name: '3 records selected (3 RRsets)' }).waitFor();
  await expectAccessibleAtBothWidths(page, ARTIFACTS, 'bulk-selected');
  await page.getByRole('button', { name: 'Delete selected…' }).click();
  await page.getByRole('button', { name: 'Delete 3 records now' }).click();
  await page.getByRole('status').filter({ hasText: 'Deleted 3 records in one change set.' }).waitFor();

  const after = await zoneNow();
  expect(after.changes).toBe(before.changes + 1);
  expect(lines(after.newest.added)).toEqual([]);
  expect(lines(after.newest.removed)).toEqual(['a 300 A 192.0.2.1', 'b 300 TXT "bee"', 'c 300 TXT "sea"']);
  expect(after.records.filter((r) => /^[abcd] /.test(r))).toEqual(['a 300 A 192.0.2.2', 'a 300 A 192.0.2.3', 'd 300 A 192.0.2.4']);
  // the table is the API's: the rows are gone, the selection with them
  await page.waitForFunction(`!document.body.innerText.includes('"bee"')`);
  expect(await page.getByRole('heading', { name: /selected/ }).count()).toBe(0);
}, 45_000);

test('RRsets picked in the RRset view get a new TTL in one change set', async () => {
  await page.getByLabel('Show', { exact: true }).selectOption('rrsets');
  await page.getByRole('checkbox', { name: 'Select the RRset a A' }).waitFor();
  // the RRset of a holds its two records in one row
  const row = page.getByTestId('rrset').filter({ hasText: '192.0.2.2' });
  expect(await row.textContent()).toContain('192.0.2.3');
  await expectAccessibleAtBothWidths(page, ARTIFACTS, 'rrsets');
  const before = await zoneNow();
  await page.getByRole('checkbox', { name: 'Select the RRset a A' }).check();
  await page.getByRole('checkbox', { name: 'Select the RRset d A' }).check();
  await page.getByRole('heading', { name: '3 records selected (2 RRsets)' }).waitFor();
  // a TTL that is no number is refused at its field, and nothing is sent
  await page.getByLabel('New TTL for their RRsets').fill('soon');
  await page.getByRole('button', { name: 'Set TTL' }).click();
  await page.getByText('A TTL is a whole number of seconds.').waitFor();
  expect((await zoneNow()).changes).toBe(before.changes);
  await page.getByLabel('New TTL for their RRsets').fill('900');
  await page.getByRole('button', { name: 'Set TTL' }).click();
  await page.getByRole('status').filter({ hasText: 'Set the TTL of 2 RRsets to 900 in one change set.' }).waitFor();

  const after = await zoneNow();
  expect(after.changes).toBe(before.changes + 1);
  expect(lines(after.newest.removed)).toEqual(['a 300 A 192.0.2.2', 'a 300 A 192.0.2.3', 'd 300 A 192.0.2.4']);
  expect(lines(after.newest.added)).toEqual(['a 900 A 192.0.2.2', 'a 900 A 192.0.2.3', 'd 900 A 192.0.2.4']);
  expect(after.records.filter((r) => /^[ad] /.test(r))).toEqual(['a 900 A 192.0.2.2', 'a 900 A 192.0.2.3', 'd 900 A 192.0.2.4']);
  await page.waitForFunction(`[...document.querySelectorAll('[data-testid=rrset]')].some((r) => r.textContent.includes('900'))`);
}, 45_000);

test("a save's answer carries a Consistency-Token, and the console's next request sends it back", async () => {
  // the named "standby" is the primary itself: shown as such, serving no read
  expect((await app.http.get('/ready')).body.standbys).toEqual([expect.objectContaining({ state: 'primary' })]);
  // what went over the wire, in the order the browser saw it: each request with the token it sent, each answer
  // with the token it carried
  const wire: { kind: 'request' | 'answer'; url: string; save: boolean; token: Promise<string | undefined> }[] = [];
  const isSave = (request: Request) => request.method() === 'POST' && /"query":"\s*mutation/.test(request.postData() ?? '');
  const onRequest = (request: Request) => {
    if (!request.url().startsWith(new URL(page.url()).origin) || request.url().includes('/console/')) return;
    wire.push({
      kind: 'request',
      url: request.url(),
      save: isSave(request),
      token: request.allHeaders().then((h) => h['consistency-token']),
    });
  };
  const onAnswer = (response: Response) => {
    if (!isSave(response.request())) return;
    wire.push({ kind: 'answer', url: response.url(), save: true, token: response.allHeaders().then((h) => h['consistency-token']) });
  };
  page.on('request', onRequest);
  page.on('response', onAnswer);
  try {
    // a page loaded afresh: the console holds no token yet, so what its requests send after the save is the save's
    await page.reload();
    await page.getByLabel('Show', { exact: true }).selectOption('rrsets');
    await page.getByRole('checkbox', { name: 'Select the RRset d A' }).check();
    await page.getByRole('heading', { name: '1 record selected (1 RRset)' }).waitFor();
    await page.getByLabel('New TTL for their RRsets').fill('3600');
    await page.getByRole('button', { name: 'Set TTL' }).click();
    await page.getByRole('status').filter({ hasText: 'Set the TTL of 1 RRset to 3600 in one change set.' }).waitFor();
    // the table read again after the save
    await page.waitForFunction(
      `[...document.querySelectorAll('[data-testid=rrset]')].some((r) => r.textContent.includes('192.0.2.4') && r.textContent.includes('3600'))`,
    );
  } finally {
    page.off('request', onRequest);
    page.off('response', onAnswer);
  }
  const answer = wire.findIndex((entry) => entry.kind === 'answer');
  expect(answer).toBeGreaterThan(0);
  const received = await wire[answer].token;
  expect(received).toMatch(/^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/);
  // no request of the page loaded afresh sent one before the save's answer came, the save included
  const before = await Promise.all(wire.slice(0, answer).map((entry) => entry.token));
  expect(before.filter((token) => token !== undefined)).toEqual([]);
  expect(wire.slice(0, answer).some((entry) => entry.save)).toBe(true);
  // the next request (the table read again), and every one after it, sends back what the save's answer carried
  const after = wire.slice(answer + 1).filter((entry) => entry.kind === 'request');
  expect(after.length).toBeGreaterThan(0);
  expect(after[0].url).toMatch(/\/graphql$/);
  expect(await Promise.all(after.map((entry) => entry.token))).toEqual(after.map(() => received));
}, 45_000);

test('a change set previewed: a refused change named, then each RRset before and after, the serial and the warning, nothing written; an apex NS change applied once confirmed', async () => {
  const serial = async () =>
    (await app.gql(`query($z: String!) { domain(name: $z) { serial } }`, { z: ZONE })).data.domain.serial as number;
  const before = await zoneNow();
  const serialBefore = await serial();
  // d's TTL as the cases before this one left it
  const dTtl = before.records.find((r) => /^d \d+ A /.test(r))!.split(' ')[1];
  await page.getByLabel('Show', { exact: true }).selectOption('records');
  // staged: d's address replaced, and an alias to a name the zone does not hold (TARGET_MISSING, RFC 1034 §3.6.2)
  await page.getByRole('button', { name: 'Edit d A 192.0.2.4' }).click();
  await page.fill('#rdata-address', '192.0.2.5');
  await page.getByRole('button', { name: 'Add to change set' }).click();
  await page.getByRole('button', { name: 'Add record' }).click();
  await page.fill('#record-owner', 'alias');
  await page.selectOption('#record-type', 'CNAME');
  await page.fill('#rdata-cname', `nowhere.${ZONE}.`);
  await page.getByRole('button', { name: 'Add to change set' }).click();
  // and a delegation whose name server inside it has no address here (GLUE_MISSING, an error: the set is refused)
  await page.getByRole('button', { name: 'Add record' }).click();
  await page.fill('#record-owner', 'sub');
  await page.selectOption('#record-type', 'NS');
  await page.fill('#rdata-nsdname', `ns.sub.${ZONE}.`);
  await page.getByRole('button', { name: 'Add to change set' }).click();
  await page.getByRole('link', { name: 'Change set (3)' }).click();
  await page.getByRole('button', { name: 'Preview (dry run)' }).click();
  const refusal = page.getByTestId('change-set-refusal');
  await refusal.waitFor();
  expect(await refusal.innerText()).toMatch(
    new RegExp(
      `^The change set breaks a zone rule\\. Nothing was written.*\\nChange 3 \\(add sub \\d+ NS ns\\.sub\\.${ZONE}\\.\\): GLUE_MISSING \\(error\\) at sub NS: `,
      's',
    ),
  );
  // marked at its place in the list too, and no plan shown
  expect(await page.locator('ol.staged li.has-error').innerText()).toContain('GLUE_MISSING');
  expect(await page.getByTestId('change-set-plan').count()).toBe(0);
  await page.getByRole('button', { name: /^Unstage: add sub / }).click();
  await page.getByRole('button', { name: 'Preview (dry run)' }).click();

  const plan = page.getByTestId('change-set-plan');
  const heading = await plan.getByRole('heading', { name: /^Preview: the zone would go from serial/ }).textContent();
  const [, from, to] = /from serial (\d+) to (\d+)/.exec(heading!)!.map(Number);
  expect(from).toBe(serialBefore);
  expect(to).toBeGreaterThan(serialBefore);
  const rrset = (name: string) => plan.getByTestId('plan-rrset').filter({ has: page.getByRole('heading', { name }) });
  expect(await rrset('d A').getByRole('list', { name: 'Before' }).innerText()).toBe(`d ${dTtl} A 192.0.2.4`);
  expect(await rrset('d A').getByRole('list', { name: 'After' }).innerText()).toBe(`d ${dTtl} A 192.0.2.5`);
  expect(await rrset('alias CNAME').getByRole('list', { name: 'Before' }).count()).toBe(0);
  expect(await rrset('alias CNAME').innerText()).toContain('(none)');
  expect(await rrset('alias CNAME').getByRole('list', { name: 'After' }).innerText()).toMatch(
    new RegExp(`^alias \\d+ CNAME nowhere\\.${ZONE}\\.$`),
  );
  const warnings = await plan.getByRole('list', { name: 'Warnings' }).innerText();
  expect(warnings).toMatch(/^TARGET_MISSING \(warning\) at alias CNAME: /);
  expect(await plan.getByRole('list', { name: 'Errors' }).count()).toBe(0);
  await expectAccessibleAtBothWidths(page, ARTIFACTS, 'change-set-preview');
  // a dry run: nothing written
  expect(await serial()).toBe(serialBefore);
  expect(await zoneNow()).toEqual(before);

  // the apex NS changed too: held back (CHANGE_NEEDS_FORCE), said in words, applied with "Apply anyway"
  await page.getByRole('link', { name: 'Records' }).click();
  const apexNs = page.getByRole('button', { name: /^Edit @ NS / }).first();
  const oldNs = (await apexNs.getAttribute('aria-label'))!.replace('Edit @ NS ', '');
  await apexNs.click();
  await page.fill('#rdata-nsdname', 'ns9.elsewhere.example.');
  await page.getByRole('button', { name: 'Add to change set' }).click();
  await page.getByRole('link', { name: 'Change set (3)' }).click();
  await page.getByRole('button', { name: `Apply 3 changes (expects serial ${serialBefore})` }).click();
  const held = page.getByTestId('change-set-needs-force');
  await held.getByRole('heading', { name: 'This change set needs your confirmation' }).waitFor();
  expect(await held.innerText()).toContain(`It changes the NS records at the apex of ${ZONE}`);
  await expectAccessibleAtBothWidths(page, ARTIFACTS, 'change-set-needs-force');
  expect(await serial()).toBe(serialBefore);
  await held.getByRole('button', { name: 'Apply anyway' }).click();
  await shown(page.getByRole('status').filter({ hasText: `Applied: the zone is now at serial ${to}.` }), 'the apply said');
  expect(await page.getByRole('status').getByRole('list', { name: 'Warnings' }).innerText()).toContain('TARGET_MISSING');

  const after = await zoneNow();
  expect(after.changes).toBe(before.changes + 1);
  expect(after.records).toContain('@ 3600 NS ns9.elsewhere.example.');
  expect(after.records.filter((r) => r.endsWith(` NS ${oldNs}`))).toEqual([]);
  expect(after.records).toContain(`d ${dTtl} A 192.0.2.5`);
  await page.getByRole('link', { name: 'Records' }).click();
  await shown(page.getByRole('button', { name: 'Edit @ NS ns9.elsewhere.example.' }), 'the records tab');
}, 30_000);

/** waits for `locator`; if it does not come within 10 s, fails with what the page's main part showed (`what`) */
async function shown(locator: Locator, what: string): Promise<void> {
  try {
    // Playwright's own 30 s: a tab that reads the zone again takes seconds on a CI host running three lanes
    await locator.waitFor({ timeout: 30_000 });
  } catch (error) {
    const text = await page
      .locator('main')
      .innerText()
      .catch((failure: Error) => `(not read: ${failure.message})`);
    throw new Error(`${(error as Error).message}\n${what} showed:\n${text.slice(0, 3000)}`, { cause: error });
  }
}
