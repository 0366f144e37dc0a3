/**
 * A secondary zone in the console (docs/console.md, «Secondary zones»): transferred from a customer's BIND
 * (test/support/bind-primary.ts), it shows its kind, primaries, transfer state, last refresh and expiry, and no
 * edit control, since the API refuses every edit of it (ZONE_IS_SECONDARY) and its permissions say so
 * (Domain.permissions, Record.permissions, per role); Promote makes it a primary zone with its controls.
 * axe-core with no serious violation on the screen.
 */
import 'reflect-metadata';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { buildConsole, CONSOLE_ARTIFACTS, expectAccessibleAtBothWidths, launchChromium } from '../support/console';
import { createTsigKey, createUser, errorCode } from '../support/fixtures';
import { freePort } from '../support/free-port';
import { personGql, signIn } from '../support/people';
import { BindPrimary, startBindPrimary } from '../support/bind-primary';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const ARTIFACTS = path.join(CONSOLE_ARTIFACTS, 'secondary');
const ACCOUNT = 'team@secondary.example';
const SECONDARY = 'from-elsewhere.secondary.example';
const ROLES = ['owner', 'admin', 'editor', 'viewer'] as const;
type Role = (typeof ROLES)[number];
const person = (role: Role) => `${role}@secondary.example`;

let app: TestApp;
let bind: BindPrimary | undefined;
let browser: Browser;
let accountId: string;
let origin: string;
const tokens = {} as Record<Role, string>;

const PERMISSIONS = `query($z: String!) {
  domain(name: $z) { kind permissions { editRecords manageDnssec promote } }
  records(zone: $z, first: 100) { nodes { id owner type permissions { edit delete } } }
}`;

const asPerson = (role: Role, query: string, variables: Record<string, unknown> = {}) => personGql(app, tokens[role], query, variables);

beforeAll(async () => {
  buildConsole();
  app = await startTestApp({ ROLES: 'api,worker' });
  origin = app.baseUrl.replace('127.0.0.1', 'localhost');
  accountId = await createUser(app, ACCOUNT);
  for (const role of ROLES) {
    const invited = await app.gql(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token } }`, {
      i: { userId: accountId, email: person(role), role: role.toUpperCase() },
    });
    expect(invited.errors).toBeUndefined();
    tokens[role] = await signIn(app, person(role));
  }
  // a secondary zone of the account, from a customer's BIND (the admin key may name a loopback primary)
  const key = await createTsigKey(app, accountId, 'secondary-transfer-key');
  bind = await startBindPrimary({
    zone: SECONDARY,
    records: [`@ NS ns1.${SECONDARY}.`, 'ns1 A 192.0.2.53', 'www A 192.0.2.1'],
    soa: { serial: 7, refresh: 3600, retry: 60, expire: 86400 },
    notifyPort: await freePort(),
    tsig: key,
  });
  const created = await app.gql(
    `mutation($u: ID!, $z: String!, $p: [ServerInput!]) { createDomain(input: { userId: $u, zone: $z, kind: SECONDARY, primaries: $p }) { id } }`,
    { u: accountId, z: SECONDARY, p: [{ address: '127.0.0.1', port: bind.port, tsigKeyName: key.name }] },
  );
  expect(created.errors).toBeUndefined();
  await waitFor('the secondary zone transferred', async () => {
    const res = await app.gql(`query($z: String!) { domain(name: $z) { serial secondary { lastSuccessAt } } }`, { z: SECONDARY });
    return res.data?.domain.secondary?.lastSuccessAt ? true : undefined;
  });
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await bind?.stop();
  await app?.close();
});

test('a secondary zone: nothing to edit, Promote for those who may write it all', async () => {
  for (const role of ROLES) {
    const res = await asPerson(role, PERMISSIONS, { z: SECONDARY });
    expect(res.errors).toBeUndefined();
    const { domain, records } = res.data;
    expect(domain.kind).toBe('SECONDARY');
    expect({ role, editRecords: domain.permissions.editRecords, manageDnssec: domain.permissions.manageDnssec }).toEqual({
      role,
      editRecords: false,
      manageDnssec: false,
    });
    expect(records.nodes.every((r: any) => !r.permissions.edit && !r.permissions.delete)).toBe(true);
    expect({ role, promote: domain.permissions.promote }).toEqual({ role, promote: role !== 'viewer' });
    // the API refuses the edit the console does not offer
    const added = await asPerson(role, `mutation($i: RecordInput!) { createRecord(input: $i) { id } }`, {
      i: { zone: SECONDARY, owner: 'mine', type: 'A', rdata: '192.0.2.9', ttl: 300 },
    });
    // (the viewer is refused either way: by the zone's kind, asked first, or by its role)
    expect(errorCode(added)).toMatch(role === 'viewer' ? /^(ZONE_IS_SECONDARY|FORBIDDEN_BY_POLICY)$/ : /^ZONE_IS_SECONDARY$/);
  }
});

test('a secondary zone in the console: kind, primaries, transfer state, no edit control; Promote makes it a primary', async () => {
  // the account's admin, signed in
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  await context.addCookies([{ name: 'zk_session', value: tokens.admin, url: origin }]);
  const page = await context.newPage();
  try {
    await page.goto(`${origin}/console/#/zone/${SECONDARY}`);
    await page.getByRole('heading', { name: 'Secondary zone' }).waitFor();
    expect(await page.getByTestId('zone-kind').textContent()).toBe('Secondary');
    expect(await page.getByTestId('secondary-state').textContent()).toMatch(/^In sync/);
    const facts = (await page.getByTestId('secondary-status').textContent())!;
    expect(facts).toContain(`127.0.0.1:${bind!.port}`);
    expect(facts).toContain('TSIG secondary-transfer-key');
    expect(facts).toMatch(/Last refresh.*\d/);
    expect(facts).toMatch(/Expires.*\d/);
    await page.waitForFunction(`document.querySelectorAll('table.records tbody tr').length >= 4`);
    // (the admin may delete the zone: "Delete zone…" stays; no record's Delete)
    for (const control of ['Add record', /^Edit /, /^Delete (?!zone)/, /^Disable /]) {
      expect({ control: String(control), count: await page.getByRole('button', { name: control }).count() }).toEqual({
        control: String(control),
        count: 0,
      });
    }
    expect(await page.getByRole('link', { name: /^Change set/ }).count()).toBe(0);
    await expectAccessibleAtBothWidths(page, ARTIFACTS, 'secondary-zone');

    await page.getByRole('button', { name: 'Promote to primary…' }).click();
    await page.getByRole('button', { name: 'Promote now' }).click();
    await page.getByRole('button', { name: 'Add record' }).waitFor();
    expect(await page.getByTestId('zone-kind').textContent()).toBe('Primary');
    expect(await page.getByRole('heading', { name: 'Secondary zone' }).count()).toBe(0);
    expect((await app.gql(`query($z: String!) { domain(name: $z) { kind } }`, { z: SECONDARY })).data.domain.kind).toBe('PRIMARY');
  } finally {
    await context.close();
  }
}, 45_000);
