/**
 * A person's first passkey from an invitation link (docs/people.md, «Passkeys»; docs/console.md), on the
 * service's default settings (no OpenID Connect provider): the invitation token stands for the invited address.
 * The API first: a missing, unknown, expired or used token, an address that can sign in already, a request
 * without the CSRF header: refused with the catalogue's code naming `token`, nothing written. Then in Debian's
 * Chromium with a virtual authenticator (CDP WebAuthn domain): the owner invites an address; a fresh browser
 * with no session opens the link, creates a passkey and joins, signed in as a member with the invited role; the
 * audit log names the address; the same link again is refused; another browser signs in with that passkey.
 */
import 'reflect-metadata';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { Browser } from 'playwright-core';
import {
  buildConsole,
  CONSOLE_ARTIFACTS,
  expectAccessibleAtBothWidths,
  gqlFromPage,
  launchChromium,
  passkeyBrowser,
} from '../support/console';
import { createUser, createZone } from '../support/fixtures';
import { personGql, signIn } from '../support/people';
import { startTestApp, TestApp } from '../support/test-app';

const ARTIFACTS = path.join(CONSOLE_ARTIFACTS, 'invitation');
const OWNER = 'olga@example.org';
const ACCOUNT = 'shop@example.org';
const ZONE = 'shop.example';
const NEWCOMER = 'nina@example.org';

let app: TestApp;
let db: Client;
let browser: Browser;
let accountId: string;
/** WebAuthn needs a secure context and a domain for the RP ID: localhost, not 127.0.0.1 (the console leads there) */
let origin: string;

/** the API's answer as the admin key sees it */
async function admin(query: string, variables: Record<string, unknown> = {}) {
  const res = await app.gql(query, variables);
  expect(res.errors).toBeUndefined();
  return res.data;
}

async function invite(email: string, role: string, zones?: string[]): Promise<{ token: string; link: string; id: string }> {
  const data = await admin(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token link invitation { id } } }`, {
    i: { userId: accountId, email, role, zones },
  });
  return { token: data.inviteMember.token, link: data.inviteMember.link, id: data.inviteMember.invitation.id };
}

/** what a refused request must not have written: the rows of people, passkeys, sessions, members, challenges */
async function written(): Promise<Record<string, number>> {
  const { rows } = await db.query(`select
      (select count(*)::int from people) as people, (select count(*)::int from passkeys) as passkeys,
      (select count(*)::int from sessions) as sessions, (select count(*)::int from memberships) as memberships,
      (select count(*)::int from webauthn_challenges) as challenges,
      (select count(*)::int from invitations where accepted_at is not null) as taken`);
  return rows[0];
}

/** a POST to the invitation's passkey routes as the console makes it (JSON, X-Requested-With) */
const post = (route: string, body: object) =>
  app.http.post(`/auth/passkey/${route}`).set({ 'x-requested-with': 'zonekeeper-console', 'content-type': 'application/json' }).send(body);

/** a browser context of its own (no cookie) with a virtual authenticator on its page */
const freshBrowser = () => passkeyBrowser(browser);
const fromPage = gqlFromPage;

beforeAll(async () => {
  buildConsole();
  app = await startTestApp();
  origin = app.baseUrl.replace('127.0.0.1', 'localhost');
  db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
  accountId = await createUser(app, ACCOUNT);
  await createZone(app, accountId, ZONE);
  // the account's owner, a person (signed in as a sign-in method would begin it): she takes her invitation
  await invite(OWNER, 'OWNER');
  await signIn(app, OWNER);
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await db?.end();
  await app?.close();
});

test('at a loopback address the console and / lead to localhost, the path kept; at localhost the console is served', async () => {
  const port = new URL(app.baseUrl).port;
  for (const [host, path, location] of [
    [`127.0.0.1:${port}`, '/', `http://localhost:${port}/console/`],
    [`127.0.0.1:${port}`, '/console/', `http://localhost:${port}/console/`],
    [`127.0.0.1:${port}`, '/console/?from=mail', `http://localhost:${port}/console/?from=mail`],
    [`[::1]:${port}`, '/console/', `http://localhost:${port}/console/`],
    [`localhost:${port}`, '/', '/console/'],
  ]) {
    const res = await app.http.get(path).set('host', host).redirects(0);
    expect({ host, path, status: res.status, location: res.headers.location }).toEqual({ host, path, status: 302, location });
  }
  const served = await app.http.get('/console/').set('host', `localhost:${port}`).redirects(0);
  expect([served.status, served.headers['content-type']]).toEqual([200, expect.stringMatching(/^text\/html/)]);
});

describe('the API refuses a bad token with the catalogue’s code naming `token`, and writes nothing', () => {
  test('a missing, unknown or expired token', async () => {
    const expired = await invite('late@example.org', 'VIEWER');
    await db.query(`update invitations set expires_at = now() - interval '1 second' where id = $1`, [expired.id]);
    const before = await written();
    for (const route of ['invitation/options', 'invitation']) {
      const missing = await post(route, {});
      expect([missing.status, missing.body.error, missing.body.details[0].field]).toEqual([422, 'INVALID_INPUT', 'token']);
      for (const token of ['zk_invite_unknown', expired.token]) {
        const res = await post(route, { token, response: { id: 'x', rawId: 'x', type: 'public-key', response: {} } });
        expect([res.status, res.body.error]).toEqual([404, 'INVITATION_NOT_FOUND']);
        expect(res.body.details).toEqual([expect.objectContaining({ field: 'token', code: 'INVITATION_NOT_FOUND' })]);
      }
    }
    expect(await written()).toEqual(before);
    await admin(`mutation($id: ID!) { revokeInvitation(id: $id) { id } }`, { id: expired.id });
  });

  test('an address that can sign in already: sign in instead (the link’s holder gains no way into that person)', async () => {
    const forOwner = await invite(OWNER, 'VIEWER');
    const before = await written();
    for (const route of ['invitation/options', 'invitation']) {
      const res = await post(route, { token: forOwner.token });
      expect([res.status, res.body.error, res.body.details[0].field]).toEqual([409, 'INVITATION_NEEDS_SIGN_IN', 'token']);
    }
    expect(await written()).toEqual(before);
    await admin(`mutation($id: ID!) { revokeInvitation(id: $id) { id } }`, { id: forOwner.id });
  });

  test('without the CSRF header, or with no ceremony under way: refused, the invitation stays open', async () => {
    const open = await invite('someone@example.org', 'VIEWER');
    const before = await written();
    const crossSite = await app.http
      .post('/auth/passkey/invitation/options')
      .set('content-type', 'application/json')
      .send({ token: open.token });
    expect([crossSite.status, crossSite.body.error]).toEqual([403, 'CSRF_REFUSED']);
    const noCeremony = await post('invitation', { token: open.token, response: { id: 'x', rawId: 'x', type: 'public-key', response: {} } });
    expect([noCeremony.status, noCeremony.body.error]).toEqual([401, 'SIGN_IN_FAILED']);
    expect(await written()).toEqual(before);
    expect((await admin(`query($u: ID!) { invitations(userId: $u) { id } }`, { u: accountId })).invitations).toEqual([{ id: open.id }]);
    await admin(`mutation($id: ID!) { revokeInvitation(id: $id) { id } }`, { id: open.id });
  });
});

test('a new person opens the link with no session, creates a passkey and joins; the link is then used; the passkey signs in elsewhere', async () => {
  // the owner invites, as a person (her session), an editor of the one zone
  const owner = await signIn(app, OWNER);
  const made = await personGql(app, owner, `mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token link } }`, {
    i: { userId: accountId, email: NEWCOMER, role: 'EDITOR', zones: [ZONE] },
  });
  expect(made.errors).toBeUndefined();
  const { token, link } = made.data.inviteMember;
  expect(link.endsWith(`/console/#/invitation/${encodeURIComponent(token)}`)).toBe(true);

  const first = await freshBrowser();
  expect(await first.context.cookies(origin)).toEqual([]);
  // the link opened where the service listens by default (127.0.0.1, as the README gives it): the console leads
  // to localhost, where a passkey can be made, the invitation's fragment kept
  await first.page.goto(`${app.baseUrl}${link.slice(link.indexOf('/console/'))}`);
  await first.page.getByText('Sign in to accept the invitation.').waitFor();
  expect(first.page.url()).toBe(`${origin}/console/#/invitation/${encodeURIComponent(token)}`);
  await first.page.getByRole('heading', { name: 'New here? Join with a passkey' }).waitFor();
  await expectAccessibleAtBothWidths(first.page, ARTIFACTS, 'invitation-join');
  await first.page.getByRole('button', { name: 'Create a passkey and join' }).click();
  // signed in: the console's header names the account and the role; the zones are the first screen
  await first.page.getByText(`${ACCOUNT} · Editor`).waitFor();
  await first.page.getByRole('link', { name: ZONE }).waitFor();
  expect(first.page.url()).toBe(`${origin}/console/#/`);
  const me = await fromPage(first.page, `{ me { email accountId role memberships { userId role zones } } }`);
  expect(me.data.me).toEqual({
    email: NEWCOMER,
    accountId,
    role: 'EDITOR',
    memberships: [{ userId: accountId, role: 'EDITOR', zones: [ZONE] }],
  });
  const cookie = (await first.context.cookies(origin)).find((c) => c.name === 'zk_session');
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
  // the API's own word: a member, the invitation no longer open, one passkey of hers
  const members = await admin(`query($u: ID!) { members(userId: $u) { email role zones } invitations(userId: $u) { id } }`, {
    u: accountId,
  });
  expect(members.members).toEqual(
    expect.arrayContaining([{ email: NEWCOMER, role: 'EDITOR', zones: [ZONE] }, expect.objectContaining({ email: OWNER, role: 'OWNER' })]),
  );
  expect(members.invitations).toEqual([]);
  expect((await fromPage(first.page, `{ myPasskeys { id } }`)).data.myPasskeys).toHaveLength(1);
  // the audit log names the person by e-mail: she joined, her session began, and (as that session) she added her passkey
  const { rows: audit } = await db.query(
    `select kind, actor_key_type, detail from audit_events where actor_email = $1 and kind in ('member-joined', 'passkey-added', 'signed-in') order by id`,
    [NEWCOMER],
  );
  expect(audit.map((r: any) => r.kind)).toEqual(['member-joined', 'signed-in', 'passkey-added']);
  expect(audit.every((r: any) => r.actor_key_type === 'session')).toBe(true);
  expect(audit[1].detail).toMatchObject({ method: 'passkey' });

  // the same link again, in another browser: refused with the API's words, nothing written
  const again = await freshBrowser();
  const before = await written();
  await again.page.goto(`${origin}/console/#/invitation/${encodeURIComponent(token)}`);
  await again.page.getByRole('button', { name: 'Create a passkey and join' }).click();
  await again.page.getByRole('alert').filter({ hasText: 'The invitation is unknown, used or expired' }).waitFor();
  const used = await post('invitation/options', { token });
  expect([used.status, used.body.error, used.body.details[0].field]).toEqual([404, 'INVITATION_NOT_FOUND', 'token']);
  expect(await written()).toEqual(before);
  await again.context.close();

  // another browser with no session, holding the same passkey (copied from the first authenticator, as a
  // synced passkey would be): it signs in with it alone, no OpenID Connect (the default settings)
  const { credentials } = await first.cdp.send('WebAuthn.getCredentials', { authenticatorId: first.authenticatorId });
  expect(credentials).toHaveLength(1);
  await first.context.close();
  const second = await freshBrowser();
  await second.cdp.send('WebAuthn.addCredential', { authenticatorId: second.authenticatorId, credential: credentials[0] });
  await second.page.goto(`${origin}/console/`);
  await second.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await second.page.getByText(`${ACCOUNT} · Editor`).waitFor();
  expect((await fromPage(second.page, `{ me { email role } }`)).data.me).toEqual({ email: NEWCOMER, role: 'EDITOR' });
  expect((await app.http.get('/auth/methods')).body).toEqual({ oidc: false, oidcProvider: null, passkey: true });
  await second.context.close();
}, 120_000);
