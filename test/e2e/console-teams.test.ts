/**
 * The console for teams (docs/console.md, «People»; docs/people.md), on the service's default settings (no
 * OpenID Connect provider: the sign-in page offers passkeys and API keys only), in Debian's Chromium with a
 * virtual authenticator (CDP WebAuthn domain): a person signed in registers a passkey on "Your sign-in", signs
 * out, signs in with the passkey alone, switches between the two accounts she owns, invites a member and sees
 * the one-time link, changes a role (the focus stays on it), sees the last owner refused leaving with the API's
 * words, creates an API key with rules, networks and an expiry and sees its rules, a TSIG key of her account
 * (the defect: it was sent without the account's id), sees her e-mail in a zone's history, offers a zone to the
 * other account and accepts it there, removes her passkey and signs out everywhere. axe-core on each new screen.
 * What the page shows is checked against what the API answers.
 */
import 'reflect-metadata';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  buildConsole,
  CONSOLE_ARTIFACTS,
  launchChromium,
  expectAccessibleAtBothWidths,
  gqlFromPage,
  passkeyBrowser,
} from '../support/console';
import { createUser, createZone } from '../support/fixtures';
import { signIn } from '../support/people';
import { startTestApp, TestApp } from '../support/test-app';

const ARTIFACTS = path.join(CONSOLE_ARTIFACTS, 'teams');
const PERSON = 'ana@example.org';
const AGENCY = 'agency@example.org';
const CUSTOMER = 'customer@example.org';
const AGENCY_ZONE = 'agency.example';
const CUSTOMER_ZONE = 'customer.example';
const MOVED_ZONE = 'moving.example';

let app: TestApp;
let db: Client;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** WebAuthn needs a secure context and a domain for the RP ID: localhost, not 127.0.0.1 */
let origin: string;
let agencyId: string;
let customerId: string;

/** axe at both widths, no sideways overflow, screenshots (test/support/console.ts) */
const expectAccessible = (screen: string) => expectAccessibleAtBothWidths(page, ARTIFACTS, screen);

/** the API's answer as the admin key sees it */
async function admin(query: string, variables: Record<string, unknown> = {}) {
  const res = await app.gql(query, variables);
  expect(res.errors).toBeUndefined();
  return res.data;
}

/** a GraphQL request from the page, with its session cookie and the CSRF header (test/support/console.ts) */
const fromPage = (query: string, variables: Record<string, unknown> = {}) => gqlFromPage(page, query, variables);

async function invite(userId: string, email: string, role: string) {
  await admin(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token } }`, { i: { userId, email, role } });
}

beforeAll(async () => {
  buildConsole();
  app = await startTestApp();
  origin = app.baseUrl.replace('127.0.0.1', 'localhost');
  db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
  agencyId = await createUser(app, AGENCY);
  customerId = await createUser(app, CUSTOMER);
  await createZone(app, agencyId, AGENCY_ZONE);
  await createZone(app, agencyId, MOVED_ZONE);
  await createZone(app, customerId, CUSTOMER_ZONE);
  // Ana owns both accounts (an agency and its customer): her first sign-in takes up both invitations
  await invite(agencyId, PERSON, 'OWNER');
  await invite(customerId, PERSON, 'OWNER');
  browser = await launchChromium();
  // axe-core is injected as an inline script, which the console's own CSP (rightly) refuses
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await db?.end();
  await app?.close();
});

test('a person registers a passkey in the console, signs out, and signs in with the passkey alone', async () => {
  // the person's first session, as a sign-in method would begin it; the browser holds its cookie
  const token = await signIn(app, PERSON);
  await context.addCookies([{ name: 'zk_session', value: token, url: origin }]);
  await page.goto(`${origin}/console/#/account`);
  await page.getByRole('heading', { name: 'Your sign-in', level: 1 }).waitFor();
  await page.getByText('No passkey yet.').waitFor();
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByRole('status').filter({ hasText: 'The passkey was added' }).waitFor();
  // the list is the API's: one passkey of this person, and the focus is back on the button
  const listed = await fromPage(`{ myPasskeys { id } }`);
  expect(listed.data.myPasskeys).toHaveLength(1);
  expect(await page.locator('table.passkeys tbody tr').count()).toBe(1);
  expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Add a passkey');
  // the same authenticator again: refused by the browser (the service's options exclude it), said in words
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page
    .getByText(
      'No passkey was made. This device or security key already holds a passkey of yours for this site: sign in with it, or add another device instead.',
    )
    .waitFor();
  expect(await page.getByText(/authenticator was previously registered/i).count()).toBe(0);
  expect((await fromPage(`{ myPasskeys { id } }`)).data.myPasskeys).toHaveLength(1);
  // this browser's session is listed and marked
  await page.getByText('(this browser)').waitFor();
  await expectAccessible('account');

  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await page.getByRole('alert').filter({ hasText: 'Signed out.' }).waitFor();
  const { rows: ended } = await db.query(
    `select ended_at is not null as ended from sessions where person_id = (select id from people where email = $1)`,
    [PERSON],
  );
  expect(ended).toEqual([{ ended: true }]);

  // default settings: no OpenID Connect provider, so no button for it; passkeys and API keys
  await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
  expect(await page.getByRole('link', { name: /Sign in with (?!a passkey)/ }).count()).toBe(0);
  expect((await app.http.get('/auth/methods')).body).toEqual({ oidc: false, oidcProvider: null, passkey: true });
  await expectAccessible('sign-in-people');
  // a device without her passkey: the browser's refusal (NotAllowedError, as a cancel or a timeout) in words
  const elsewhere = await passkeyBrowser(browser);
  try {
    await elsewhere.page.goto(`${origin}/console/`);
    await elsewhere.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    const said = elsewhere.page.getByText('You are not signed in. The request was cancelled or timed out, or this device holds no passkey');
    await said.waitFor();
    expect(await said.textContent()).not.toMatch(/w3\.org|operation either timed out/);
  } finally {
    await elsewhere.context.close();
  }
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.getByRole('link', { name: 'Members' }).waitFor();
  await page.getByText(PERSON).first().waitFor();
  const me = await fromPage(`{ me { email accountId } }`);
  expect(me.data.me).toEqual({ email: PERSON, accountId: agencyId });
  const { rows: audit } = await db.query(
    `select detail from audit_events where kind = 'signed-in' and actor_email = $1 order by id desc limit 1`,
    [PERSON],
  );
  expect(audit[0].detail).toEqual({ method: 'passkey' });
}, 90_000);

test('the account switcher: the zones are those of the account chosen', async () => {
  await page.goto(`${origin}/console/#/`);
  await page.getByRole('link', { name: AGENCY_ZONE }).waitFor();
  expect(await page.getByRole('link', { name: CUSTOMER_ZONE }).count()).toBe(0);
  await page.selectOption('#account-switcher', customerId);
  await page.getByRole('link', { name: CUSTOMER_ZONE }).waitFor();
  expect(await page.getByRole('link', { name: AGENCY_ZONE }).count()).toBe(0);
  expect((await fromPage(`{ me { accountId role } }`)).data.me).toEqual({ accountId: customerId, role: 'OWNER' });
  await page.getByText(`Now acting in the account ${CUSTOMER}.`).waitFor({ state: 'attached' });
  await expectAccessible('zones-switched');
  await page.selectOption('#account-switcher', agencyId);
  await page.getByRole('link', { name: AGENCY_ZONE }).waitFor();
}, 60_000);

test('members: an invitation shows its one-time link; a role changed; the last owner cannot leave', async () => {
  await page.getByRole('link', { name: 'Members' }).click();
  await page.getByRole('heading', { name: 'People in this account' }).waitFor();
  await page.getByRole('cell', { name: `${PERSON} (you)` }).waitFor();
  await page.fill('#invite-email', 'bob@example.org');
  await page.selectOption('#invite-role', 'EDITOR');
  await page.fill('#invite-zones', AGENCY_ZONE);
  await page.getByRole('button', { name: 'Create invitation' }).click();
  const link = await page.locator('#invitation-link').inputValue();
  expect(link).toMatch(new RegExp(`^${origin.replace(/[.]/g, '\\.')}/console/#/invitation/[A-Za-z0-9_-]+`));
  // the focus is on the link, to copy it
  expect(await page.evaluate<string>('document.activeElement.id')).toBe('invitation-link');
  const open = await admin(`query($u: ID!) { invitations(userId: $u) { email role zones } }`, { u: agencyId });
  expect(open.invitations).toEqual([{ email: 'bob@example.org', role: 'EDITOR', zones: [AGENCY_ZONE] }]);
  await page.getByRole('cell', { name: 'bob@example.org', exact: true }).waitFor();
  await expectAccessible('members');
  await page.getByRole('button', { name: 'Done' }).click();

  // Bob takes the link (his first sign-in takes it up); the list shows him with his role
  await signIn(app, 'bob@example.org');
  await page.reload();
  await page.getByRole('combobox', { name: 'Role of bob@example.org' }).waitFor();
  expect(await page.locator('#role-' + (await personId('bob@example.org'))).inputValue()).toBe('EDITOR');
  await page.selectOption(`#role-${await personId('bob@example.org')}`, 'VIEWER');
  await page.getByRole('button', { name: 'Save role' }).click();
  await page.getByText('bob@example.org is now viewer.').waitFor();
  const members = await admin(`query($u: ID!) { members(userId: $u) { email role } }`, { u: agencyId });
  expect(members.members).toContainEqual({ email: 'bob@example.org', role: 'VIEWER' });
  expect(await page.evaluate<string>('document.activeElement.id')).toBe(`role-${await personId('bob@example.org')}`);

  // the last owner leaving: the API's refusal (LAST_OWNER), in its words
  await page.getByRole('button', { name: 'Leave the account' }).click();
  await page.getByRole('button', { name: 'Confirm leaving' }).click();
  await page.getByRole('alert').filter({ hasText: 'The last owner of an account cannot leave it' }).waitFor();
  expect((await admin(`query($u: ID!) { members(userId: $u) { email role } }`, { u: agencyId })).members).toContainEqual({
    email: PERSON,
    role: 'OWNER',
  });
}, 60_000);

async function personId(email: string): Promise<string> {
  const { rows } = await db.query(`select id from people where email = $1`, [email]);
  return String(rows[0].id);
}

test('keys: an API key with rules, networks and an expiry shows its rules; a TSIG key is the account’s', async () => {
  await page.getByRole('link', { name: 'API & TSIG keys', exact: true }).click();
  await page.getByRole('heading', { name: 'API keys', exact: true }).waitFor();
  await page.fill('#api-key-name', 'deploy');
  await page.selectOption('#api-key-access', 'RULES');
  await page.selectOption('#api-key-rule-0-access', 'WRITE');
  await page.fill('#api-key-rule-0-zone', AGENCY_ZONE);
  await page.fill('#api-key-rule-0-owner', 'app.*');
  await page.fill('#api-key-rule-0-types', 'txt, A');
  await page.getByRole('button', { name: 'Add a rule' }).click();
  await page.selectOption('#api-key-rule-1-access', 'READ');
  await page.fill('#api-key-allowedNetworks', '192.0.2.0/24, 2001:db8::/32');
  await page.fill('#api-key-expiresAt', '2031-06-30T12:00');
  await expectAccessible('keys-policy-form');
  await page.getByRole('button', { name: 'Create API key' }).click();
  expect((await page.locator('#new-secret').inputValue()).length).toBeGreaterThan(20);
  await page.getByRole('button', { name: 'I have stored it' }).click();
  // the focus goes back to the form's first field
  await page.waitForFunction(`document.activeElement && document.activeElement.id === 'api-key-name'`);
  const row = page.getByRole('row').filter({ hasText: 'deploy' });
  await row.getByText(`Write A, TXT at app.* in ${AGENCY_ZONE}`).waitFor();
  await row.getByText('Read every type in every zone').waitFor();
  await row.getByText('Only from 192.0.2.0/24, 2001:db8::/32').waitFor();
  // what the page shows is what the API stored
  const keys = await admin(
    `query($u: ID) { apiKeys(userId: $u) { name userId policy { restricted rules { zone owner types access } allowedNetworks expiresAt } } }`,
    {
      u: agencyId,
    },
  );
  const deploy = keys.apiKeys.find((k: any) => k.name === 'deploy');
  expect(deploy).toMatchObject({
    userId: agencyId,
    policy: {
      restricted: true,
      rules: [
        { zone: AGENCY_ZONE, owner: 'app.*', types: ['A', 'TXT'], access: 'WRITE' },
        { zone: null, owner: null, types: null, access: 'READ' },
      ],
      allowedNetworks: ['192.0.2.0/24', '2001:db8::/32'],
    },
  });
  expect(new Date(deploy.policy.expiresAt).getFullYear()).toBe(2031);
  await expectAccessible('keys-with-policy');

  // a TSIG key made by a person (no admin key): the form sends the account's id, the API takes it
  await page.fill('#tsig-key-name', 'ana.agency.example');
  await page.getByRole('button', { name: 'Create TSIG key' }).click();
  expect((await page.locator('#new-secret').inputValue()).length).toBeGreaterThan(20);
  const tsig = await admin(`{ tsigKeys { name userId } }`);
  expect(tsig.tsigKeys.find((k: any) => k.name === 'ana.agency.example').userId).toBe(agencyId);
  await page.getByRole('button', { name: 'I have stored it' }).click();
}, 60_000);

test('history names the person who made a change by e-mail', async () => {
  const made = await fromPage(`mutation($i: RecordInput!) { createRecord(input: $i) { id } }`, {
    i: { zone: AGENCY_ZONE, owner: 'www2', type: 'A', rdata: '192.0.2.7', ttl: 300 },
  });
  expect(made.errors).toBeUndefined();
  await page.goto(`${origin}/console/#/zone/${AGENCY_ZONE}/history`);
  await page.getByRole('heading', { name: 'History' }).waitFor();
  const newest = page.locator('ol.timeline > li').first();
  await newest.getByText(PERSON).waitFor();
  const api = await admin(`query($n: String) { domain(name: $n) { changes(first: 1) { nodes { author { email } } } } }`, {
    n: AGENCY_ZONE,
  });
  expect(api.domain.changes.nodes[0].author.email).toBe(PERSON);
  expect(await newest.textContent()).not.toMatch(/user \d/);
  await expectAccessible('history-by-person');
}, 60_000);

test('a zone offered to the other account from its page, and accepted there', async () => {
  await page.goto(`${origin}/console/#/zone/${MOVED_ZONE}/transfer`);
  await page.getByRole('heading', { name: 'Move to another account' }).waitFor();
  await page.fill('#transfer-email', CUSTOMER);
  await page.getByRole('button', { name: 'Offer the zone' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `${MOVED_ZONE} is offered to ${CUSTOMER}` })
    .waitFor();
  const offered = await admin(`{ zoneTransfers { zone fromUserId toUserId } }`);
  expect(offered.zoneTransfers).toEqual([{ zone: MOVED_ZONE, fromUserId: agencyId, toUserId: customerId }]);
  await expectAccessible('zone-transfer');

  await page.goto(`${origin}/console/#/`);
  await page.selectOption('#account-switcher', customerId);
  await page.getByRole('heading', { name: 'Zones offered to this account' }).waitFor();
  await page.getByRole('button', { name: `Accept ${MOVED_ZONE}` }).click();
  await page.getByText(`${MOVED_ZONE} is now a zone of this account.`).waitFor();
  await page.waitForFunction(`document.activeElement && document.activeElement.id === 'incoming-title'`);
  await page.getByRole('link', { name: MOVED_ZONE }).waitFor();
  const moved = await admin(`query($n: String) { domain(name: $n) { user { id } } }`, { n: MOVED_ZONE });
  expect(moved.domain.user.id).toBe(customerId);
}, 60_000);

test('an invitation link opened signed out: the sign-in says why, and after it the invitation is accepted', async () => {
  const thirdId = await createUser(app, 'third@example.org');
  const created = await admin(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token } }`, {
    i: { userId: thirdId, email: PERSON, role: 'VIEWER' },
  });
  await page.goto(`${origin}/console/#/account`);
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await page.getByRole('alert').filter({ hasText: 'Signed out.' }).waitFor();
  // the link, as the inviter passed it on, opened in this (signed-out) tab
  await page.goto(`${origin}/console/#/invitation/${encodeURIComponent(created.inviteMember.token)}`);
  await page.getByText('Sign in to accept the invitation.').waitFor();
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.getByRole('heading', { name: 'An invitation' }).waitFor();
  await expectAccessible('invitation');
  await page.getByRole('button', { name: 'Accept the invitation' }).click();
  await page.getByRole('status').filter({ hasText: 'You are now viewer of the account third@example.org.' }).waitFor();
  // the API's own word: Ana is a viewer of the third account (the sign-in took the invitation; the page's
  // accept answered with that membership), and the invitation is no longer open
  const members = await admin(`query($u: ID!) { members(userId: $u) { email role } invitations(userId: $u) { id } }`, { u: thirdId });
  expect(members.members).toEqual([{ email: PERSON, role: 'VIEWER' }]);
  expect(members.invitations).toEqual([]);
}, 60_000);

test('a passkey removed; one other session ended; sign out everywhere ends every session of the person', async () => {
  // two more sessions of Ana's elsewhere (begun as a passkey sign-in would: a passkey sign-in awaits no factor)
  const ended = await app.service.services.sessions.start(app.service.database.db, PERSON, { method: 'passkey' });
  const elsewhere = await app.service.services.sessions.start(app.service.database.db, PERSON, { method: 'passkey' });
  const live = async () =>
    (
      await db.query(
        `select count(*)::int as live from sessions where person_id = (select id from people where email = $1) and ended_at is null`,
        [PERSON],
      )
    ).rows[0].live as number;
  const answers = async (token: string) =>
    (
      await app.http
        .post('/graphql')
        .set({ cookie: `zk_session=${token}`, 'x-requested-with': 'test' })
        .send({ query: '{ me { email } }' })
    ).status;
  await page.goto(`${origin}/console/#/account`);
  await page.getByRole('heading', { name: 'Passkeys' }).waitFor();
  await page.getByRole('button', { name: /^Remove Passkey 1/ }).click();
  await page.getByRole('button', { name: /Confirm removing Passkey 1/ }).click();
  await page.getByText('No passkey yet.').waitFor();
  expect((await fromPage(`{ myPasskeys { id } }`)).data.myPasskeys).toEqual([]);
  expect(await page.locator('table.sessions tbody tr').count()).toBe(3);

  // "End" on one other session: that one ends, this browser's and the third stay (the API's list says so)
  const endButtons = page.getByRole('button', { name: /^End the session of / });
  expect(await endButtons.count()).toBe(2);
  await endButtons.first().click();
  await page.getByRole('status').filter({ hasText: 'That session was ended.' }).waitFor();
  await page.locator('table.sessions tbody tr').nth(2).waitFor({ state: 'detached' });
  expect(await live()).toBe(2);
  expect([await answers(ended.token), await answers(elsewhere.token)].sort()).toEqual([200, 401]);
  const listed = (await fromPage(`{ mySessions { current } }`)).data.mySessions;
  expect(listed.map((s: { current: boolean }) => s.current).sort()).toEqual([false, true]);

  await page.getByRole('button', { name: 'Sign out everywhere' }).click();
  await page.getByRole('alert').filter({ hasText: 'Signed out on every device.' }).waitFor();
  expect(await live()).toBe(0);
  expect(await answers(ended.token)).toBe(401);
  expect(await answers(elsewhere.token)).toBe(401);
}, 60_000);
