/**
 * Passkeys (docs/people.md) in Chromium's virtual authenticator (WebAuthn domain over CDP), with
 * @simplewebauthn/browser in the page and @simplewebauthn/server in the service: a person signed in registers
 * one, then signs in with it; a replayed assertion and an assertion made on another origin are refused and
 * audited.
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../support/console';
import { createUser } from '../support/fixtures';
import { signIn } from '../support/people';
import { startTestApp, TestApp } from '../support/test-app';
import { atProviderLogin, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OidcProvider, providerPort, startOidcProvider } from '../support/oidc';

// the package's bundle for pages (its exports map names no subpath): what the console would load
const BROWSER_LIBRARY = readFileSync(
  path.join(__dirname, '..', '..', 'node_modules', '@simplewebauthn', 'browser', 'dist', 'bundle', 'index.umd.min.js'),
  'utf8',
);

let app: TestApp;
let provider: OidcProvider;
let db: Client;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** WebAuthn needs a secure context and a domain for the RP ID: localhost, not 127.0.0.1 */
let origin: string;

/** a page of the service (any: the ceremony's origin is the page's), with the browser library */
async function openAt(at: Page, url: string): Promise<void> {
  await at.goto(url);
  await at.addScriptTag({ content: BROWSER_LIBRARY });
}

/** a POST from the page, as the console makes it (same origin, X-Requested-With), and its answer */
function post(at: Page, path: string, body: unknown): Promise<{ status: number; body: any }> {
  return at.evaluate(
    `fetch(${JSON.stringify(path)}, { method: 'POST', headers: { 'content-type': 'application/json', 'x-requested-with': 'console' },
       body: ${JSON.stringify(JSON.stringify(body))} }).then(async (r) => ({ status: r.status, body: await r.json().catch(() => null) }))`,
  );
}

/** an assertion of the page's passkey for these options */
function assertion(at: Page, options: unknown): Promise<any> {
  return at.evaluate(`SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: ${JSON.stringify(options)} })`);
}

async function lastRefusal(): Promise<string> {
  const { rows } = await db.query(`select detail from audit_events where kind = 'sign-in-failed' order by id desc limit 1`);
  return rows[0]?.detail?.reason ?? '';
}

beforeAll(async () => {
  const port = await providerPort();
  app = await startTestApp({ OIDC_ISSUER: `http://127.0.0.1:${port}`, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET });
  origin = app.baseUrl.replace('127.0.0.1', 'localhost');
  provider = await startOidcProvider(port, `${origin}/auth/oidc/callback`);
  db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
  browser = await launchChromium();
  context = await browser.newContext();
  page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  await openAt(page, `${origin}/health`);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await provider?.stop();
  await db?.end();
  await app?.close();
});

it('registers a passkey for the person signed in, then signs in with it alone', async () => {
  const token = await signIn(app, 'pat@example.org');
  await context.addCookies([{ name: 'zk_session', value: token, url: origin }]);
  const options = await post(page, '/auth/passkey/register/options', {});
  expect(options.status).toBe(200);
  const response = await page.evaluate(`SimpleWebAuthnBrowser.startRegistration({ optionsJSON: ${JSON.stringify(options.body)} })`);
  const registered = await post(page, '/auth/passkey/register', { response });
  expect(registered.status).toBe(201);
  const { rows } = await db.query(`select p.email from passkeys k join people p on p.id = k.person_id where k.id = $1`, [
    registered.body.id,
  ]);
  expect(rows).toEqual([{ email: 'pat@example.org' }]);

  await context.clearCookies();
  const signInOptions = await post(page, '/auth/passkey/sign-in/options', {});
  const signedIn = await post(page, '/auth/passkey/sign-in', { response: await assertion(page, signInOptions.body) });
  expect(signedIn).toEqual({ status: 200, body: { email: 'pat@example.org' } });
  const cookie = (await context.cookies(origin)).find((c) => c.name === 'zk_session');
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
  const me = await post(page, '/graphql', { query: '{ me { email } }' });
  expect(me.body).toEqual({ data: { me: { email: 'pat@example.org' } } });
  const audit = await db.query(
    `select kind, detail from audit_events where actor_email = 'pat@example.org' and kind in ('passkey-added', 'signed-in') order by id`,
  );
  expect(audit.rows.map((r: any) => r.kind)).toEqual(['signed-in', 'passkey-added', 'signed-in']);
  expect(audit.rows[2].detail).toEqual({ method: 'passkey' });
});

it('refuses a replayed assertion, and one made for another challenge', async () => {
  const options = await post(page, '/auth/passkey/sign-in/options', {});
  const made = await assertion(page, options.body);
  expect((await post(page, '/auth/passkey/sign-in', { response: made })).status).toBe(200);
  const replayed = await post(page, '/auth/passkey/sign-in', { response: made });
  expect([replayed.status, replayed.body.error]).toEqual([401, 'SIGN_IN_FAILED']);
  expect(await lastRefusal()).toMatch(/used already/);
  await post(page, '/auth/passkey/sign-in/options', {});
  const again = await post(page, '/auth/passkey/sign-in', { response: made });
  expect(again.status).toBe(401);
  expect(await lastRefusal()).toMatch(/challenge/i);
});

it('refuses an assertion made on another origin (a phishing page relaying it)', async () => {
  const options = await post(page, '/auth/passkey/sign-in/options', {});
  // a page of another origin with the same RP ID (another port of localhost: an RP ID has no port, an origin
  // has): the authenticator signs for it, and the origin it was made on is in the signed client data
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let made: unknown;
  try {
    // the same tab (its virtual authenticator holds the passkey), on the other origin
    await openAt(page, `http://localhost:${(server.address() as AddressInfo).port}/`);
    made = await assertion(page, options.body);
  } finally {
    await openAt(page, `${origin}/health`);
    await new Promise((resolve) => server.close(resolve));
  }
  const relayed = await post(page, '/auth/passkey/sign-in', { response: made });
  expect(relayed.status).toBe(401);
  expect(await lastRefusal()).toMatch(/origin/i);
});

it('asks a person with a passkey for it after an OIDC sign-in (a second factor)', async () => {
  await context.clearCookies();
  await page.goto(`${origin}/auth/oidc/start`);
  await atProviderLogin(page, 'pat@example.org');
  await page.waitForURL(`${origin}/console/`);
  await openAt(page, `${origin}/health`);
  // signed in, but nothing is allowed before the passkey
  const before = await post(page, '/graphql', { query: '{ me { email } }' });
  expect(before.status).toBe(401);
  const options = await post(page, '/auth/passkey/second-factor/options', {});
  expect(options.status).toBe(200);
  const passed = await post(page, '/auth/passkey/second-factor', { response: await assertion(page, options.body) });
  expect(passed).toEqual({ status: 200, body: { email: 'pat@example.org' } });
  const after = await post(page, '/graphql', { query: '{ me { email } }' });
  expect(after.body).toEqual({ data: { me: { email: 'pat@example.org' } } });
  const { rows } = await db.query(
    `select kind, detail from audit_events where actor_email = 'pat@example.org' and kind in ('signed-in', 'second-factor-passed') order by id desc limit 2`,
  );
  expect(rows).toEqual([
    { kind: 'second-factor-passed', detail: { method: 'passkey' } },
    { kind: 'signed-in', detail: { method: 'oidc', secondFactor: 'awaited' } },
  ]);
});

it('a passkey joining from an invitation link takes that invitation alone; the address’s others wait for an OIDC sign-in and its second factor', async () => {
  // the link's holder proves the link, not the address: a leaked viewer link must not hand over an owner invitation
  const email = 'lee@example.org';
  const viewerOf = await createUser(app, 'lee-viewer-account@example.org');
  const ownerOf = await createUser(app, 'lee-owner-account@example.org');
  const invite = async (userId: string, role: string): Promise<string> => {
    const made = await app.gql(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token } }`, { i: { userId, email, role } });
    expect(made.errors).toBeUndefined();
    return made.data.inviteMember.token;
  };
  const viewerLink = await invite(viewerOf, 'VIEWER');
  await invite(ownerOf, 'OWNER');
  const memberships = async () =>
    (
      await db.query(
        `select m.user_id::text as account, m.role from memberships m join people p on p.id = m.person_id where p.email = $1 order by m.user_id`,
        [email],
      )
    ).rows;
  const viewerOnly = [{ account: viewerOf, role: 'viewer' }];

  // a browser of its own, with an authenticator of its own (one passkey in it: the sign-ins below are hers)
  const own = await browser.newContext();
  try {
    const at = await own.newPage();
    const cdp = await own.newCDPSession(at);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });
    await openAt(at, `${origin}/health`);
    const options = await post(at, '/auth/passkey/invitation/options', { token: viewerLink });
    expect(options.status).toBe(200);
    const response = await at.evaluate(`SimpleWebAuthnBrowser.startRegistration({ optionsJSON: ${JSON.stringify(options.body)} })`);
    const joined = await post(at, '/auth/passkey/invitation', { token: viewerLink, response });
    expect(joined.status).toBe(201);
    expect(await memberships()).toEqual(viewerOnly);

    // a passkey sign-in proves the passkey's owner, not the address: still the one account
    await own.clearCookies();
    const signInOptions = await post(at, '/auth/passkey/sign-in/options', {});
    const signedIn = await post(at, '/auth/passkey/sign-in', { response: await assertion(at, signInOptions.body) });
    expect(signedIn).toEqual({ status: 200, body: { email } });
    expect(await memberships()).toEqual(viewerOnly);

    // OIDC proves the address, but a person with a passkey presents it first: until then nothing is taken, and
    // a sign-out meanwhile ends that session (audited), as it ends a whole one
    const oidcSignIn = async () => {
      await own.clearCookies();
      await at.goto(`${origin}/auth/oidc/start`);
      await atProviderLogin(at, email);
      await at.waitForURL(`${origin}/console/`);
      await openAt(at, `${origin}/health`);
    };
    await oidcSignIn();
    expect(await memberships()).toEqual(viewerOnly);
    const live = async () =>
      (
        await db.query(
          `select s.id from sessions s join people p on p.id = s.person_id where p.email = $1 and s.ended_at is null and s.awaiting_second_factor`,
          [email],
        )
      ).rows;
    const [waiting] = await live();
    expect(waiting).toBeDefined();
    expect((await post(at, '/auth/sign-out', {})).status).toBe(204);
    expect(await live()).toEqual([]);
    const ended = await db.query(`select detail from audit_events where kind = 'session-ended' and subject = $1`, [
      `session:${waiting.id}`,
    ]);
    expect(ended.rows).toEqual([{ detail: { everywhere: false, secondFactor: 'awaited' } }]);

    await oidcSignIn();
    const factorOptions = await post(at, '/auth/passkey/second-factor/options', {});
    const passed = await post(at, '/auth/passkey/second-factor', { response: await assertion(at, factorOptions.body) });
    expect(passed).toEqual({ status: 200, body: { email } });
    expect(await memberships()).toEqual([...viewerOnly, { account: ownerOf, role: 'owner' }]);
  } finally {
    await own.close();
  }
});
