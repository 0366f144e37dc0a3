/**
 * A team's first day in the console, on the service's default settings (no OpenID Connect: passkeys at
 * http://localhost, the README's «Web console»), one walk per role of src/auth/roles.ts (owner, admin, editor,
 * viewer; docs/people.md, «Roles»), in Debian's Chromium with a virtual authenticator per person (CDP WebAuthn):
 * the account's owner invites each person on the Members screen and reads the one-time link there; the invitee
 * opens it in a browser of their own, creates a passkey and joins, signs out and signs in with the passkey alone,
 * and is offered exactly what the role allows (New zone, Keys, Members' invitations, Webhooks' write controls, Add
 * record, a record's Edit and Delete, Delete zone, Move to another account, Enable DNSSEC), as `viewer { can }`
 * answers; a control that is hidden, sent anyway from the page with the session, is refused by the API with its
 * stable code (403), and nothing is written. One service, one browser.
 */
import 'reflect-metadata';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildConsole, gqlFromPage, launchChromium, passkeyBrowser, requestFromPage } from '../support/console';
import { createUser, createZone } from '../support/fixtures';
import { signIn } from '../support/people';
import { startTestApp, TestApp } from '../support/test-app';

const ACCOUNT = 'team@roles.example';
const ZONE = 'roles.example';
const FIRST_OWNER = 'olga@roles.example';
const ROLES = ['owner', 'admin', 'editor', 'viewer'] as const;
type Role = (typeof ROLES)[number];
const WORDS: Record<Role, string> = { owner: 'Owner', admin: 'Admin', editor: 'Editor', viewer: 'Viewer' };
const person = (role: Role) => `${role}@roles.example`;
const HOOK_URL = 'https://93.184.216.34/role-walk';

/** what each role is offered (docs/people.md, «Roles»): the roles matrix, stated here, never read from the service */
const OFFERS: Record<
  Role,
  {
    createZone: boolean;
    keys: boolean;
    /** a key that may do everything the account may (an admin's keys are restricted ones) */
    unrestrictedKeys: boolean;
    /** the roles whose members it invites and manages (an admin: not owners) */
    memberRoles: string[];
    invite: boolean;
    webhooks: boolean;
    write: boolean;
    move: boolean;
  }
> = {
  owner: {
    createZone: true,
    keys: true,
    unrestrictedKeys: true,
    memberRoles: ['OWNER', 'ADMIN', 'EDITOR', 'VIEWER'],
    invite: true,
    webhooks: true,
    write: true,
    move: true,
  },
  admin: {
    createZone: true,
    keys: true,
    unrestrictedKeys: false,
    memberRoles: ['ADMIN', 'EDITOR', 'VIEWER'],
    invite: true,
    webhooks: true,
    write: true,
    move: false,
  },
  editor: {
    createZone: false,
    keys: false,
    unrestrictedKeys: false,
    memberRoles: [],
    invite: false,
    webhooks: true,
    write: true,
    move: false,
  },
  viewer: {
    createZone: false,
    keys: false,
    unrestrictedKeys: false,
    memberRoles: [],
    invite: false,
    webhooks: false,
    write: false,
    move: false,
  },
};

let app: TestApp;
let browser: Browser;
let accountId: string;
/** WebAuthn needs a secure context and a domain for the RP ID: localhost, not 127.0.0.1 */
let origin: string;
let owner: { context: BrowserContext; page: Page };
const links = {} as Record<Role, string>;

/** the API's answer as the admin key sees it */
async function admin(query: string, variables: Record<string, unknown> = {}) {
  const res = await app.gql(query, variables);
  expect(res.errors).toBeUndefined();
  return res.data;
}

beforeAll(async () => {
  buildConsole();
  app = await startTestApp();
  origin = app.baseUrl.replace('127.0.0.1', 'localhost');
  accountId = await createUser(app, ACCOUNT);
  await createZone(app, accountId, ZONE);
  // the account's first owner, moving over: her invitation taken up at her first sign-in (as in console-teams)
  await admin(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token } }`, {
    i: { userId: accountId, email: FIRST_OWNER, role: 'OWNER' },
  });
  const token = await signIn(app, FIRST_OWNER);
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addCookies([{ name: 'zk_session', value: token, url: origin }]);
  owner = { context, page: await context.newPage() };
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

test('the owner invites one person per role on the Members screen and is shown each one-time link', async () => {
  const { page } = owner;
  await page.goto(`${origin}/console/#/members`);
  await page.getByRole('heading', { name: 'Invite someone' }).waitFor();
  for (const role of ROLES) {
    await page.fill('#invite-email', person(role));
    await page.selectOption('#invite-role', role.toUpperCase());
    await page.getByRole('button', { name: 'Create invitation' }).click();
    await page.getByRole('heading', { name: `Invitation link for ${person(role)}` }).waitFor();
    links[role] = await page.locator('#invitation-link').inputValue();
    expect(links[role]).toMatch(new RegExp(`^${origin.replace(/[.]/g, '\\.')}/console/#/invitation/[A-Za-z0-9_%-]+$`));
    await page.getByRole('button', { name: 'Done' }).click();
  }
  // the API's own word: four open invitations, each with its role
  const open = await admin(`query($u: ID!) { invitations(userId: $u) { email role } }`, { u: accountId });
  expect(open.invitations.map((i: any) => [i.email, i.role]).sort()).toEqual(ROLES.map((r) => [person(r), r.toUpperCase()]).sort());
  await owner.context.close();
});

for (const role of ROLES) {
  test(`the ${role} joins by the link with a passkey, signs in with it, and is offered what the role allows, no more`, async () => {
    const offers = OFFERS[role];
    const { context, page } = await passkeyBrowser(browser);
    try {
      // the link as the owner passed it on, in a browser with no session: a passkey made, the person joined
      await page.goto(links[role]);
      await page.getByRole('button', { name: 'Create a passkey and join' }).click();
      await page.getByText(`${ACCOUNT} · ${WORDS[role]}`).waitFor();
      // signed out, then in again with the passkey alone (no OpenID Connect: the default settings)
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.getByText(`${ACCOUNT} · ${WORDS[role]}`).waitFor();
      const me = await gqlFromPage(
        page,
        `{ me { email role accountId } viewer { can { createZone deleteZones manageKeys manageUnrestrictedKeys memberRoles manageNameserverSets manageWebhooks } } }`,
      );
      expect(me.data).toEqual({
        me: { email: person(role), role: role.toUpperCase(), accountId },
        viewer: {
          can: {
            createZone: offers.createZone,
            deleteZones: offers.createZone,
            manageKeys: offers.keys,
            manageUnrestrictedKeys: offers.unrestrictedKeys,
            memberRoles: offers.memberRoles,
            manageNameserverSets: false,
            manageWebhooks: offers.webhooks,
          },
        },
      });

      // the zones and the header's screens
      await page.getByRole('link', { name: ZONE, exact: true }).waitFor();
      const count = (name: string | RegExp, kind: 'button' | 'link' | 'heading' = 'button') =>
        page.getByRole(kind, { name, exact: typeof name === 'string' }).count();
      expect({
        role,
        newZone: await count('New zone…'),
        keys: await count('API & TSIG keys', 'link'),
        members: await count('Members', 'link'),
        webhooks: await count('Webhooks', 'link'),
        operator: (await count('Administration', 'link')) + (await count('Nameserver sets', 'link')),
      }).toEqual({ role, newZone: +offers.createZone, keys: +offers.keys, members: 1, webhooks: 1, operator: 0 });

      // the zone: its record controls, Delete zone, Move, and the DNSSEC tab's
      await page.goto(`${origin}/console/#/zone/${ZONE}`);
      await page.waitForFunction(`document.querySelectorAll('table.records tbody tr').length > 2`);
      // the controls come with the zone's permissions, a query of their own: what the role is offered is awaited
      // before anything is counted
      if (offers.write) await page.getByRole('button', { name: 'Add record', exact: true }).waitFor();
      if (offers.createZone) await page.getByRole('button', { name: 'Delete zone…', exact: true }).waitFor();
      if (offers.move) await page.getByRole('link', { name: 'Move to another account', exact: true }).waitFor();
      expect({
        role,
        addRecord: await count('Add record'),
        editWww: await count(/^Edit www CNAME/),
        deleteWww: await count(/^Delete www CNAME/),
        deleteSoa: await count(/^Delete @ SOA/),
        deleteZone: await count('Delete zone…'),
        move: await count('Move to another account', 'link'),
      }).toEqual({
        role,
        addRecord: +offers.write,
        editWww: +offers.write,
        deleteWww: +offers.write,
        deleteSoa: 0,
        deleteZone: +offers.createZone,
        move: +offers.move,
      });
      await page.getByRole('link', { name: 'DNSSEC' }).click();
      await page.getByTestId('dnssec-state').waitFor();
      if (offers.write) await page.getByRole('button', { name: 'Enable DNSSEC', exact: true }).waitFor();
      expect({ role, enable: await count('Enable DNSSEC') }).toEqual({ role, enable: +offers.write });

      // Members: every member sees the people; only who manages them is offered an invitation
      await page.getByRole('link', { name: 'Members' }).click();
      await page.getByRole('heading', { name: 'People in this account' }).waitFor();
      await page.getByRole('cell', { name: `${person(role)} (you)` }).waitFor();
      if (offers.invite) await page.getByRole('heading', { name: 'Invite someone', exact: true }).waitFor();
      else await page.getByText('Your role in this account lets you see its members, not invite or change them').waitFor();
      expect({ role, invite: await count('Invite someone', 'heading') }).toEqual({ role, invite: +offers.invite });
      // only the roles it manages are offered: an admin invites no owner, and changes or removes none
      const inviteRoles = offers.invite ? await page.locator('#invite-role option').evaluateAll((os) => os.map((o: any) => o.value)) : [];
      const ownerRow = page.getByRole('row').filter({ hasText: FIRST_OWNER });
      expect({
        role,
        inviteRoles,
        ownerRoleSelect: await ownerRow.getByRole('combobox').count(),
        ownerRemove: await ownerRow.getByRole('button', { name: `Remove ${FIRST_OWNER}` }).count(),
        ownerRecovery: await ownerRow.getByRole('button', { name: `Make a recovery link for ${FIRST_OWNER}` }).count(),
      }).toEqual({
        role,
        inviteRoles: offers.memberRoles,
        ownerRoleSelect: +(role === 'owner'),
        ownerRemove: +(role === 'owner'),
        ownerRecovery: +(role === 'owner'),
      });

      // API and TSIG keys, its address opened directly: the forms for who may make keys, and only what they may give
      await page.goto(`${origin}/console/#/keys`);
      await page.getByRole('heading', { name: 'API keys and TSIG keys', level: 1 }).waitFor();
      if (offers.keys) await page.getByRole('heading', { name: 'New API key' }).waitFor();
      else await page.getByText('Your role in this account does not let you see or make its API keys and TSIG keys').waitFor();
      expect({
        role,
        forms: (await count('New API key', 'heading')) + (await count('New TSIG key', 'heading')),
        everything: await page.locator('#api-key-access option[value="UNRESTRICTED"]').count(),
      }).toEqual({ role, forms: offers.keys ? 2 : 0, everything: +offers.unrestrictedKeys });
      if (role === 'admin') {
        // the form starts with rules (a key that may do everything is refused an admin), and what it makes is taken
        expect(await page.locator('#api-key-access').inputValue()).toBe('RULES');
        await page.fill('#api-key-name', 'made by the admin');
        await page.getByRole('button', { name: 'Create API key' }).click();
        await page.getByText('The new API key').first().waitFor();
      }

      // Webhooks: every member sees the list; a viewer is offered no New webhook and is told why
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('heading', { name: 'Subscriptions' }).waitFor();
      await page.getByText('No webhook yet.').waitFor();
      if (!offers.webhooks) await page.getByText('Your role in this account lets you see its webhooks, not add or change them.').waitFor();
      else await page.getByRole('heading', { name: 'New webhook', exact: true }).waitFor();
      expect({ role, newWebhook: await count('New webhook', 'heading') }).toEqual({ role, newWebhook: +offers.webhooks });

      // what is offered is done: a webhook added and deleted by this person, through the REST API
      if (offers.webhooks) {
        const made = await requestFromPage(page, 'POST', '/api/webhook/add', { url: HOOK_URL, events: '*' });
        expect([made.status, made.body.url]).toEqual([201, HOOK_URL]);
        expect((await requestFromPage(page, 'DELETE', `/api/webhook/delete/${made.body.id}`)).status).toBe(204);
      }

      // what is hidden, sent anyway from the page with this session: refused with the catalogue's stable code
      // (the REST routes: 403; a GraphQL field: its error's code)
      const rest = (method: string, to: string, body?: unknown) => () => requestFromPage(page, method, to, body);
      const refused: [string, () => Promise<{ status: number; body: any }>, number, string][] = [];
      if (role === 'owner')
        // the operator's Administration screen: a person, even an owner, makes no account (the admin key's)
        refused.push(['a new account', rest('POST', '/api/user/add', { email: 'new@roles.example' }), 403, 'FORBIDDEN']);
      if (role === 'admin')
        // Move to another account: the owner's alone (a GraphQL field; no REST route moves a zone)
        refused.push([
          'a zone moved',
          rest('POST', '/graphql', {
            query: `mutation($z: String!) { offerZoneTransfer(zone: $z, toEmail: "else@roles.example") { id } }`,
            variables: { z: ZONE },
          }),
          200,
          'FORBIDDEN_BY_ROLE',
        ]);
      if (role === 'editor' || role === 'viewer')
        refused.push([
          'a new zone',
          rest('POST', '/api/domain/add', { user_id: Number(accountId), zone: `by-${role}.roles.example` }),
          403,
          'FORBIDDEN_BY_POLICY',
        ]);
      if (role === 'viewer') {
        refused.push([
          'a record',
          rest('POST', '/api/record/add', { zone: ZONE, owner: 'by-viewer', rtype: 'TXT', rdata: '"x"', ttl: 300 }),
          403,
          'FORBIDDEN_BY_POLICY',
        ]);
        refused.push(['a webhook', rest('POST', '/api/webhook/add', { url: HOOK_URL, events: '*' }), 403, 'FORBIDDEN_BY_ROLE']);
      }
      for (const [what, send, expected, code] of refused) {
        const { status, body } = await send();
        const answered = body?.error ?? body?.errors?.[0]?.extensions?.code;
        expect({ role, what, status, code: answered }).toEqual({ role, what, status: expected, code });
        if (code === 'FORBIDDEN_BY_ROLE' && what === 'a webhook')
          expect(body.details).toEqual([expect.objectContaining({ field: 'role', code: 'FORBIDDEN_BY_ROLE' })]);
      }
      // nothing of it written: no zone, record or webhook made, the zone still in its account
      const after = await admin(
        `query($u: ID!, $z: String!) { user(id: $u) { domains { name } } records(zone: $z, owner: "by-viewer") { nodes { id } } webhooks { url } }`,
        { u: accountId, z: ZONE },
      );
      expect(after).toEqual({ user: { domains: [{ name: ZONE }] }, records: { nodes: [] }, webhooks: [] });
      expect((await admin(`{ zoneTransfers { id } }`)).zoneTransfers).toEqual([]);
    } finally {
      await context.close();
    }
  }, 30_000);
}
