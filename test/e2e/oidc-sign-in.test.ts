/**
 * Sign-in with OpenID Connect through Chromium, against a real OpenID provider (oidc-provider) in a process of
 * its own (docs/people.md): the invited address signs in end to end; a wrong state, a wrong nonce, an expired
 * code, a code of another client and an unverified address are refused and audited. The ID token's `groups`
 * claim makes a person an operator (OIDC_OPERATOR_CLAIM, OIDC_OPERATOR_VALUES) and a sign-in without it takes
 * that back, never a grant by hand.
 */
import 'reflect-metadata';
import { createHash, randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../support/console';
import { createUser } from '../support/fixtures';
import {
  atProviderLogin,
  holdOidcCallbacks,
  OIDC_CLIENT_ID,
  OIDC_CLIENT_SECRET,
  OidcProvider,
  OTHER_CLIENT_ID,
  providerPort,
  startOidcProvider,
} from '../support/oidc';
import { startTestApp, TestApp } from '../support/test-app';
import { sleep, waitUntil } from '../support/wait-for';

let app: TestApp;
let provider: OidcProvider;
let browser: Browser;
let db: Client;
let account: string;
let context: BrowserContext;
let page: Page;

const callback = () => `${app.baseUrl}/auth/oidc/callback`;

/** the provider's login and consent in this test's page */
const atProvider = (login: string) => atProviderLogin(page, login);

/** holds the browser's requests to the service's callback (holdOidcCallbacks); `onCallback` decides each */
const holdCallbacks = (onCallback: (url: URL) => Promise<URL | undefined>) => holdOidcCallbacks(context, page, callback(), onCallback);

/**
 * Signs in through the browser as `login`; `onCallback` may change the provider's redirect back before the
 * service takes it. The service's answer to the callback.
 */
async function signInAs(login: string, onCallback?: (url: URL) => Promise<URL>): Promise<{ status: number; body: string }> {
  if (onCallback) await holdCallbacks(onCallback);
  const answered = new Promise<{ status: number; body: string }>((resolve) => {
    page.on('response', (response) => {
      if (!response.url().startsWith(callback())) return;
      void response.text().then(
        (body) => resolve({ status: response.status(), body }),
        () => resolve({ status: response.status(), body: '' }),
      );
    });
  });
  await page.goto(`${app.baseUrl}/auth/oidc/start`);
  await atProvider(login);
  return answered;
}

async function lastRefusal(): Promise<string> {
  const { rows } = await db.query(`select detail from audit_events where kind = 'sign-in-failed' order by id desc limit 1`);
  return rows[0]?.detail?.reason ?? '';
}

beforeAll(async () => {
  const port = await providerPort();
  app = await startTestApp({
    OIDC_ISSUER: `http://127.0.0.1:${port}`,
    OIDC_CLIENT_ID,
    OIDC_CLIENT_SECRET,
    RATE_LIMIT_PER_SECOND: '0',
    // the operator mapping (docs/people.md, «The operator»): the provider releases `groups` under its own scope
    OIDC_SCOPES: 'groups',
    OIDC_OPERATOR_CLAIM: 'groups',
    OIDC_OPERATOR_VALUES: 'zonekeeper-operators, dns admins',
  });
  provider = await startOidcProvider(port, callback());
  db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
  account = await createUser(app, 'oidc-account@example.org');
  const invited = await app.gql(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token } }`, {
    i: { userId: account, email: 'alice@example.org', role: 'EDITOR' },
  });
  expect(invited.errors).toBeUndefined();
  browser = await launchChromium();
}, 90_000);

beforeEach(async () => {
  context = await browser.newContext();
  page = await context.newPage();
});
afterEach(async () => {
  await context?.close();
});

afterAll(async () => {
  await browser?.close();
  await provider?.stop();
  await db?.end();
  await app?.close();
});

it('signs an invited address in end to end: an HttpOnly SameSite cookie, the role of the invitation, audited', async () => {
  const answer = await signInAs('alice@example.org');
  expect(answer.status).toBe(303);
  const cookie = (await context.cookies(app.baseUrl)).find((c) => c.name === 'zk_session');
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false });
  // the page itself asks, as the console does (same origin, X-Requested-With)
  const me =
    await page.evaluate(`fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-requested-with': 'console' },
      body: JSON.stringify({ query: '{ me { email role accountId } }' }) }).then((r) => r.json())`);
  expect(me).toEqual({ data: { me: { email: 'alice@example.org', role: 'EDITOR', accountId: account } } });
  const { rows } = await db.query(
    `select detail from audit_events where kind = 'signed-in' and actor_email = 'alice@example.org' order by id desc limit 1`,
  );
  expect(rows[0].detail).toEqual({ method: 'oidc' });
});

it('refuses a wrong state', async () => {
  const answer = await signInAs('alice@example.org', async (url) => {
    url.searchParams.set('state', 'not-the-state');
    return url;
  });
  expect([answer.status, JSON.parse(answer.body).error]).toEqual([401, 'SIGN_IN_FAILED']);
  expect(await lastRefusal()).toMatch(/state/i);
  expect((await context.cookies(app.baseUrl)).some((c) => c.name === 'zk_session')).toBe(false);
});

it('refuses an ID token with another nonce', async () => {
  const answer = await signInAs('alice@example.org', async (url) => {
    await db.query(`update sign_in_flows set nonce = 'another-nonce'`);
    return url;
  });
  expect(answer.status).toBe(401);
  expect(await lastRefusal()).toMatch(/nonce/i);
});

it('refuses an expired code', async () => {
  await provider.setCodeSeconds(1);
  try {
    const answer = await signInAs('alice@example.org', async (url) => {
      // past the code's life (RFC 6749 §4.1.2: short-lived); a bound on the wait, not a timing assertion
      await sleep(2500);
      return url;
    });
    expect(answer.status).toBe(401);
    expect(await lastRefusal()).toMatch(/invalid_grant/);
  } finally {
    await provider.setCodeSeconds(60);
  }
});

it('refuses a code issued to another client', async () => {
  // a code the provider issued to another client, for this browser's person, comes back to the service
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const otherAuthorization = new URL(`${provider.issuer}/auth`);
  for (const [name, value] of Object.entries({
    client_id: OTHER_CLIENT_ID,
    redirect_uri: callback(),
    response_type: 'code',
    scope: 'openid email',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'other',
    nonce: 'other',
  }))
    otherAuthorization.searchParams.set(name, value);
  let otherCode: string | undefined;
  await holdCallbacks(async (url) => {
    otherCode = url.searchParams.get('code') ?? undefined;
    return undefined;
  });
  await page.goto(otherAuthorization.href);
  await atProvider('alice@example.org');
  await waitUntil('the code of the other client', () => otherCode !== undefined);
  await context.close();
  context = await browser.newContext();
  page = await context.newPage();
  expect(otherCode).toBeDefined();
  const answer = await signInAs('alice@example.org', async (url) => {
    url.searchParams.set('code', otherCode!);
    return url;
  });
  expect(answer.status).toBe(401);
  expect(await lastRefusal()).toMatch(/invalid_grant/);
});

it('refuses an address the provider has not verified, and makes no person of it', async () => {
  const answer = await signInAs('unverified@example.org');
  expect(answer.status).toBe(401);
  expect(await lastRefusal()).toMatch(/not verified/);
  const { rows } = await db.query(`select 1 from people where email = 'unverified@example.org'`);
  expect(rows).toEqual([]);
});

/** what the page's session may do, as the console asks it */
async function administers(): Promise<boolean> {
  const answer: any =
    await page.evaluate(`fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-requested-with': 'console' },
      body: JSON.stringify({ query: '{ viewer { can { administer } } }' }) }).then((r) => r.json())`);
  return answer.data.viewer.can.administer;
}

async function operatorGrant(email: string): Promise<string | null> {
  const { rows } = await db.query(`select operator_grant from people where email = $1`, [email]);
  return rows[0]?.operator_grant ?? null;
}

async function operatorEvents(email: string): Promise<{ kind: string; actor_email: string | null; detail: any }[]> {
  const { rows } = await db.query(
    `select kind, actor_email, detail from audit_events
      where kind in ('operator-granted', 'operator-revoked') and subject = (select 'person:' || id from people where email = $1) order by id`,
    [email],
  );
  return rows;
}

it('a sign-in whose groups claim holds an operator value makes the person an operator; one without it takes that back', async () => {
  const login = 'olga@example.org';
  await provider.setGroups(login, ['staff', 'zonekeeper-operators']);
  expect((await signInAs(login)).status).toBe(303);
  expect(await operatorGrant(login)).toBe('oidc');
  expect(await administers()).toBe(true);
  const { rows } = await db.query(`select id from people where email = $1`, [login]);
  const personId = Number(rows[0].id);
  expect(await operatorEvents(login)).toEqual([
    { kind: 'operator-granted', actor_email: login, detail: { personId, grant: 'oidc', claim: 'groups' } },
  ]);
  // signed in again with the claim: nothing changes, nothing more audited
  await context.clearCookies();
  expect((await signInAs(login)).status).toBe(303);
  expect(await operatorEvents(login)).toHaveLength(1);

  // the provider no longer names the group: the next sign-in takes the grant back (a session begun before keeps
  // the person's grant as it is now: none)
  await provider.setGroups(login, ['staff']);
  await context.clearCookies();
  expect((await signInAs(login)).status).toBe(303);
  expect(await operatorGrant(login)).toBeNull();
  expect(await administers()).toBe(false);
  expect((await operatorEvents(login)).at(-1)).toEqual({
    kind: 'operator-revoked',
    actor_email: login,
    detail: { personId, grant: 'oidc', claim: 'groups' },
  });

  // a claim of one string, with a space in the value (OIDC_OPERATOR_VALUES is split at commas only)
  await provider.setGroups(login, 'dns admins');
  await context.clearCookies();
  expect((await signInAs(login)).status).toBe(303);
  expect(await operatorGrant(login)).toBe('oidc');
  // neither a value of another case nor a part of one counts
  for (const groups of [['Zonekeeper-Operators'], 'dns', null]) {
    await provider.setGroups(login, groups);
    await context.clearCookies();
    expect((await signInAs(login)).status).toBe(303);
    expect({ groups, grant: await operatorGrant(login) }).toEqual({ groups, grant: null });
    await provider.setGroups(login, 'dns admins');
    await context.clearCookies();
    expect((await signInAs(login)).status).toBe(303);
  }
}, 90_000);

it('a grant by hand is not taken back by a sign-in without the claim, nor turned into one by OIDC with it', async () => {
  const login = 'hana@example.org';
  expect((await signInAs(login)).status).toBe(303);
  expect(await operatorGrant(login)).toBeNull();
  const granted = await app.gql(`mutation($p: String!) { grantOperator(person: $p) { grant } }`, { p: login });
  expect(granted.data).toEqual({ grantOperator: { grant: 'HAND' } });
  await context.clearCookies();
  expect((await signInAs(login)).status).toBe(303);
  expect(await operatorGrant(login)).toBe('hand');
  expect(await administers()).toBe(true);
  await provider.setGroups(login, ['zonekeeper-operators']);
  await context.clearCookies();
  expect((await signInAs(login)).status).toBe(303);
  expect(await operatorGrant(login)).toBe('hand');
  // one event: the admin key's grant
  expect(await operatorEvents(login)).toEqual([
    { kind: 'operator-granted', actor_email: null, detail: { personId: expect.any(Number), grant: 'hand' } },
  ]);
}, 90_000);
