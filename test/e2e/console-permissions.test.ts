/**
 * The console offers what the caller's role and key allow, no more (docs/console.md, «What a screen offers»):
 * `viewer { can }`, `Domain.permissions` and `Record.permissions` are the policy engine's answers
 * (PermissionsService), and each is checked here against what the API does when asked (a `false` is refused, a
 * `true` is done), per role (owner, admin, editor, viewer). Then in Debian's Chromium, signed in as each person:
 * the zone list offers "New zone…" only to those who may create one, the zone page no "Delete zone…", tab or
 * record control the role is refused, the SOA row never a Delete (a secondary zone: console-secondary.test.ts).
 * axe-core with no serious violation on the editor's and the viewer's screens. On a zone that requires an
 * approval, the editor's save is "sent for review"; the admin approves it with a comment in the zone's Review tab
 * (its plan shown), and the record is then listed.
 */
import 'reflect-metadata';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { buildConsole, CONSOLE_ARTIFACTS, expectAccessibleAtBothWidths, launchChromium } from '../support/console';
import { createUser, createZone, errorCode } from '../support/fixtures';
import { personGql, signIn } from '../support/people';
import { startTestApp, TestApp } from '../support/test-app';

const ARTIFACTS = path.join(CONSOLE_ARTIFACTS, 'permissions');
const ACCOUNT = 'team@permissions.example';
const ZONE = 'team.permissions.example';
const ROLES = ['owner', 'admin', 'editor', 'viewer'] as const;
type Role = (typeof ROLES)[number];
const person = (role: Role) => `${role}@permissions.example`;

let app: TestApp;
let browser: Browser;
let accountId: string;
let origin: string;
const tokens = {} as Record<Role, string>;

const PERMISSIONS = `query($z: String!) {
  viewer { can { createZone deleteZones manageKeys manageNameserverSets } }
  domain(name: $z) {
    kind
    permissions { editRecords editSoa deleteZone manageDnssec promote manageExtraSecondaries moveZone undeletableTypes }
  }
  records(zone: $z, first: 100) { nodes { id owner type rdata ttl permissions { edit delete } } }
}`;

async function asPerson(role: Role, query: string, variables: Record<string, unknown> = {}) {
  return personGql(app, tokens[role], query, variables);
}

beforeAll(async () => {
  buildConsole();
  app = await startTestApp();
  origin = app.baseUrl.replace('127.0.0.1', 'localhost');
  accountId = await createUser(app, ACCOUNT);
  await createZone(app, accountId, ZONE);
  // one person per role, each taking up the invitation at the first sign-in
  for (const role of ROLES) {
    const invited = await app.gql(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token } }`, {
      i: { userId: accountId, email: person(role), role: role.toUpperCase() },
    });
    expect(invited.errors).toBeUndefined();
    tokens[role] = await signIn(app, person(role));
  }
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

test('each answer is the API’s own: what is false is refused, what is true is done, per role', async () => {
  const seen: Record<string, unknown> = {};
  for (const role of ROLES) {
    const res = await asPerson(role, PERMISSIONS, { z: ZONE });
    expect(res.errors).toBeUndefined();
    const { viewer, domain, records } = res.data;
    const soa = records.nodes.find((r: any) => r.type === 'SOA');
    const www = records.nodes.find((r: any) => r.owner === 'www');
    seen[role] = { can: viewer.can, zone: domain.permissions, soa: soa.permissions, www: www.permissions };

    // create a zone: offered exactly when the API creates one
    const made = await asPerson(role, `mutation($u: ID!, $z: String!) { createDomain(input: { userId: $u, zone: $z }) { id } }`, {
      u: accountId,
      z: `made-by-${role}.permissions.example`,
    });
    expect({ role, created: made.errors === undefined }).toEqual({ role, created: viewer.can.createZone });

    // the SOA: never deletable, and the API says why (SOA_UNDELETABLE) to whoever may write it
    expect(soa.permissions.delete).toBe(false);
    const soaDeleted = await asPerson(role, `mutation($id: ID!) { deleteRecord(id: $id) }`, { id: soa.id });
    expect(errorCode(soaDeleted)).toBe(soa.permissions.edit ? 'SOA_UNDELETABLE' : 'FORBIDDEN_BY_POLICY');

    // a record's edit: done exactly when offered (a TTL change, put back as it was)
    const edited = await asPerson(role, `mutation($id: ID!, $i: RecordInput!) { updateRecord(id: $id, input: $i) { id } }`, {
      id: www.id,
      i: { zone: ZONE, owner: 'www', type: www.type, rdata: www.rdata, ttl: www.ttl === 300 ? 600 : 300 },
    });
    expect({ role, edited: edited.errors === undefined }).toEqual({ role, edited: www.permissions.edit });
    if (!edited.errors)
      await app.gql(`mutation($id: ID!, $i: RecordInput!) { updateRecord(id: $id, input: $i) { id } }`, {
        id: (await app.gql(`query($z: String!) { records(zone: $z, owner: "www") { nodes { id } } }`, { z: ZONE })).data.records.nodes[0]
          .id,
        i: { zone: ZONE, owner: 'www', type: www.type, rdata: www.rdata, ttl: www.ttl },
      });

    // adding a record: offered (editRecords) exactly when the API adds one
    const added = await asPerson(role, `mutation($i: RecordInput!) { createRecord(input: $i) { id } }`, {
      i: { zone: ZONE, owner: `by-${role}`, type: 'TXT', rdata: '"hello"', ttl: 300 },
    });
    expect({ role, added: added.errors === undefined }).toEqual({ role, added: domain.permissions.editRecords });

    // moving the zone to another account: the owner's; anyone else is refused by role
    const offered = await asPerson(
      role,
      `mutation($z: String!) { offerZoneTransfer(zone: $z, toEmail: "nobody@permissions.example") { id } }`,
      {
        z: ZONE,
      },
    );
    if (domain.permissions.moveZone) expect(errorCode(offered)).not.toMatch(/^FORBIDDEN/);
    else expect(errorCode(offered)).toMatch(/^FORBIDDEN/);
  }
  // what each role is offered (docs/people.md, «Roles»)
  expect(seen).toEqual({
    owner: {
      can: { createZone: true, deleteZones: true, manageKeys: true, manageNameserverSets: false },
      zone: expect.objectContaining({ editRecords: true, deleteZone: true, manageDnssec: true, moveZone: true, undeletableTypes: ['SOA'] }),
      soa: { edit: true, delete: false },
      www: { edit: true, delete: true },
    },
    admin: {
      can: { createZone: true, deleteZones: true, manageKeys: true, manageNameserverSets: false },
      zone: expect.objectContaining({ editRecords: true, deleteZone: true, manageDnssec: true, moveZone: false }),
      soa: { edit: true, delete: false },
      www: { edit: true, delete: true },
    },
    editor: {
      can: { createZone: false, deleteZones: false, manageKeys: false, manageNameserverSets: false },
      zone: expect.objectContaining({ editRecords: true, deleteZone: false, manageDnssec: true, moveZone: false }),
      soa: { edit: true, delete: false },
      www: { edit: true, delete: true },
    },
    viewer: {
      can: { createZone: false, deleteZones: false, manageKeys: false, manageNameserverSets: false },
      zone: expect.objectContaining({ editRecords: false, editSoa: false, deleteZone: false, manageDnssec: false, moveZone: false }),
      soa: { edit: false, delete: false },
      www: { edit: false, delete: false },
    },
  });

  // deleting the zone: the editor and the viewer are refused (deleteZone false); the zone is still there
  for (const role of ['editor', 'viewer'] as const) {
    const res = await asPerson(role, `mutation($z: String!) { deleteDomain(zone: $z) }`, { z: ZONE });
    expect(errorCode(res)).toBe('FORBIDDEN_BY_POLICY');
  }
  expect((await app.gql(`query($z: String!) { domain(name: $z) { name } }`, { z: ZONE })).data.domain.name).toBe(ZONE);
});

test('a key’s rules decide as a role’s do: an ACME key may add its challenge TXT, and nothing else is offered', async () => {
  const made = await app.gql(
    `mutation($u: ID!, $z: String!) { createApiKey(input: { userId: $u, name: "acme", preset: ACME, zone: $z }) { secret } }`,
    { u: accountId, z: ZONE },
  );
  expect(made.errors).toBeUndefined();
  const key = made.data.createApiKey.secret as string;
  const res = await app.gql(PERMISSIONS, { z: ZONE }, key);
  expect(res.errors).toBeUndefined();
  expect(res.data.viewer.can).toEqual({ createZone: false, deleteZones: false, manageKeys: false, manageNameserverSets: false });
  expect(res.data.domain.permissions).toMatchObject({
    editRecords: true,
    editSoa: false,
    deleteZone: false,
    manageDnssec: false,
    moveZone: false,
  });
  // the key reads only what it may write: its records, none of which it is refused
  expect(res.data.records.nodes.every((r: any) => r.permissions.edit)).toBe(true);
  // what is offered is done; the SOA it is not offered is refused
  const added = await app.gql(
    `mutation($i: RecordInput!) { createRecord(input: $i) { id permissions { edit delete } } }`,
    {
      i: { zone: ZONE, owner: '_acme-challenge', type: 'TXT', rdata: '"token"', ttl: 300 },
    },
    key,
  );
  expect(added.errors).toBeUndefined();
  expect(added.data.createRecord.permissions).toEqual({ edit: true, delete: true });
  const refused = await app.gql(
    `mutation($i: RecordInput!) { createRecord(input: $i) { id } }`,
    {
      i: { zone: ZONE, owner: 'www2', type: 'A', rdata: '192.0.2.7', ttl: 300 },
    },
    key,
  );
  expect(errorCode(refused)).toBe('FORBIDDEN_BY_POLICY');
});

/** waits for `wanted`; on a timeout, the error says what `shown` showed instead (a stale list, an error, a load) */
async function waitOrSay(wanted: Locator, shown: Locator, what: string): Promise<void> {
  await wanted.waitFor().catch(async (error: Error) => {
    throw new Error(`${error.message}\n${what} showed: ${await shown.textContent()}`, { cause: error });
  });
}

/** a page signed in as the person of `role` (the session's cookie, as a sign-in leaves it) */
async function pageAs(role: Role): Promise<{ context: BrowserContext; page: Page }> {
  // axe-core is injected as an inline script, which the console's own CSP (rightly) refuses
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  await context.addCookies([{ name: 'zk_session', value: tokens[role], url: origin }]);
  return { context, page: await context.newPage() };
}

for (const role of ROLES) {
  test(`the console offers the ${role} what the API allows the ${role}, and nothing else`, async () => {
    const { context, page } = await pageAs(role);
    try {
      const mayWrite = role !== 'viewer';
      const mayCreate = role === 'owner' || role === 'admin';
      await page.goto(`${origin}/console/#/`);
      await page.getByRole('link', { name: ZONE, exact: true }).waitFor();
      expect(await page.getByRole('button', { name: 'New zone…' }).count()).toBe(mayCreate ? 1 : 0);
      expect(await page.getByRole('link', { name: 'API & TSIG keys', exact: true }).count()).toBe(mayCreate ? 1 : 0);
      if (role === 'editor') await expectAccessibleAtBothWidths(page, ARTIFACTS, `zones-${role}`);

      await page.goto(`${origin}/console/#/zone/${ZONE}`);
      await page.getByRole('button', { name: /^Name/ }).waitFor();
      // the records are there, with each row's controls as its permissions say
      await page.getByText('ns1.', { exact: false }).first().waitFor();
      await page.waitForFunction(`document.querySelectorAll('table.records tbody tr').length > 2`);
      expect(await page.getByRole('button', { name: /^Delete @ SOA/ }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /^Edit @ SOA/ }).count()).toBe(mayWrite ? 1 : 0);
      expect(await page.getByRole('button', { name: /^Delete www CNAME/ }).count()).toBe(mayWrite ? 1 : 0);
      expect(await page.getByRole('button', { name: /^Disable www CNAME/ }).count()).toBe(mayWrite ? 1 : 0);
      expect(await page.getByRole('button', { name: 'Add record' }).count()).toBe(mayWrite ? 1 : 0);
      expect(await page.getByRole('button', { name: 'Delete zone…' }).count()).toBe(mayCreate ? 1 : 0);
      expect(await page.getByRole('link', { name: /^Change set/ }).count()).toBe(mayWrite ? 1 : 0);
      expect(await page.getByRole('link', { name: 'Move to another account' }).count()).toBe(role === 'owner' ? 1 : 0);
      expect(await page.getByTestId('zone-kind').textContent()).toBe('Primary');
      if (role === 'viewer') await expectAccessibleAtBothWidths(page, ARTIFACTS, `zone-${role}`);

      // the DNSSEC tab and the history, for the two roles that differ there (an owner and an admin have what an
      // editor has): a viewer sees the state and no control
      if (role !== 'editor' && role !== 'viewer') return;
      await page.getByRole('link', { name: 'DNSSEC' }).click();
      await page.getByTestId('dnssec-state').waitFor();
      expect(await page.getByRole('button', { name: 'Enable DNSSEC' }).count()).toBe(mayWrite ? 1 : 0);
      // the history: a revert writes the zone, so only a writer is offered one
      await page.getByRole('link', { name: 'History' }).click();
      await page.locator('ol.timeline li').first().waitFor();
      expect((await page.getByRole('button', { name: /^Revert to serial/ }).count()) > 0).toBe(mayWrite);
    } finally {
      await context.close();
    }
  }, 45_000);
}

test('a zone under review: the editor’s save is sent for review, the admin approves it in the queue, the record is then listed', async () => {
  const zone = 'review.permissions.example';
  await createZone(app, accountId, zone);
  expect((await app.gql(`mutation($z: String!) { setZoneRequiredApprovals(zone: $z, approvals: 1) }`, { z: zone })).errors).toBeUndefined();
  const editor = await pageAs('editor');
  const admin = await pageAs('admin');
  try {
    // the editor adds a record as any: the console says it is sent for review, not an error
    const page = editor.page;
    await page.goto(`${origin}/console/#/zone/${zone}`);
    expect(await page.getByTestId('zone-review').textContent()).toContain('1 approval');
    await page.getByRole('button', { name: 'Add record' }).click();
    await page.fill('#record-owner', 'proposed');
    await page.selectOption('#record-type', 'A');
    await page.fill('#rdata-address', '192.0.2.80');
    await page.getByRole('button', { name: 'Add now' }).click();
    const sent = page.getByRole('status').filter({ hasText: 'Sent for review: change request' });
    await sent.waitFor();
    const id = /change request (\d+)/.exec((await sent.textContent())!)![1];
    expect(await page.getByRole('alert').count()).toBe(0);
    // the editor sees it waiting in the zone's queue
    await page.getByRole('link', { name: 'Review', exact: true }).click();
    await page.getByTestId(`change-request-${id}`).waitFor();

    // the admin sees the queue: the request, its plan (the RRset before and after), and approves it with a comment
    const other = admin.page;
    await other.goto(`${origin}/console/#/zone/${zone}/review`);
    const card = other.getByTestId(`change-request-${id}`);
    await card.waitFor();
    expect(await card.textContent()).toContain(`Change request ${id} by ${person('editor')}`);
    expect(await card.getByRole('list', { name: `What change request ${id} changes` }).textContent()).toContain(
      'proposed 3600 A 192.0.2.80',
    );
    expect(await card.textContent()).toContain('0 of 1 approvals');
    await card.getByLabel('Comment').fill('looks right');
    await card.getByRole('button', { name: `Approve change request ${id}` }).click();
    await other
      .getByRole('status')
      .filter({ hasText: `Approved change request ${id}: applied` })
      .waitFor();
    // the queue empty (on a timeout: what the tab showed instead, a stale queue or an error)
    await waitOrSay(
      other.getByText('No change request is waiting.'),
      other.locator('section[aria-labelledby="review-title"]'),
      'the review tab',
    );

    // the record is then listed, and the review kept with the request
    await other.getByRole('link', { name: 'Records', exact: true }).click();
    await waitOrSay(other.getByText('192.0.2.80'), other.locator('section[aria-labelledby="zone-title"]'), 'the zone page');
    const request = await app.gql(`query($id: ID!) { changeRequest(id: $id) { status reviews { reviewer comment } } }`, { id });
    expect(request.data.changeRequest).toEqual({ status: 'APPLIED', reviews: [{ reviewer: person('admin'), comment: 'looks right' }] });
  } finally {
    await editor.context.close();
    await admin.context.close();
  }
}, 60_000);
