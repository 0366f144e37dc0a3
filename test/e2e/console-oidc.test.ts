/**
 * The console's OpenID Connect sign-in (docs/console.md, «People and teams»; docs/people.md, «Sign-in»), with
 * the test's own provider (test/support/oidc.ts) and Chromium's virtual authenticator: the sign-in page offers
 * the provider (by its OIDC_PROVIDER_NAME) when the service has one; an invited address signs in there and lands on its account's zones
 * with its role; once the person has a passkey, the next OpenID Connect sign-in waits for it (the second factor)
 * and the console asks for it before anything else. axe-core on the sign-in page and the second factor's.
 */
import 'reflect-metadata';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildConsole, launchChromium, severeAccessibilityViolations } from '../support/console';
import { createUser, createZone } from '../support/fixtures';
import { atProviderLogin, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OidcProvider, providerPort, startOidcProvider } from '../support/oidc';
import { startTestApp, TestApp } from '../support/test-app';

const PERSON = 'carol@example.org';
const ZONE = 'oidc-console.example';
/** OIDC_PROVIDER_NAME: the words of the sign-in page's button */
const PROVIDER = 'Example SSO';

let app: TestApp;
let provider: OidcProvider;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** WebAuthn needs a secure context and a domain for the RP ID: localhost, not 127.0.0.1 */
let origin: string;
let account: string;

async function expectAccessible(screen: string) {
  expect({ screen, severe: await severeAccessibilityViolations(page) }).toEqual({ screen, severe: [] });
}

beforeAll(async () => {
  buildConsole();
  const port = await providerPort();
  app = await startTestApp({ OIDC_ISSUER: `http://127.0.0.1:${port}`, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_PROVIDER_NAME: PROVIDER });
  origin = app.baseUrl.replace('127.0.0.1', 'localhost');
  provider = await startOidcProvider(port, `${origin}/auth/oidc/callback`);
  account = await createUser(app, 'oidc-team@example.org');
  await createZone(app, account, ZONE);
  const invited = await app.gql(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token } }`, {
    i: { userId: account, email: PERSON, role: 'EDITOR' },
  });
  expect(invited.errors).toBeUndefined();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await provider?.stop();
  await app?.close();
});

/** the sign-in page's OpenID Connect link, the provider's login, and back to the console */
async function signInWithProvider() {
  await page.getByRole('link', { name: `Sign in with ${PROVIDER}` }).click();
  await atProviderLogin(page, PERSON);
  await page.waitForURL(`${origin}/console/**`);
}

test('an invited address signs in with the provider and sees its account with its role', async () => {
  await page.goto(`${origin}/console/`);
  await page.getByRole('link', { name: `Sign in with ${PROVIDER}` }).waitFor();
  // what the page asked: the service's sign-in methods
  const methods = await app.http.get('/auth/methods');
  expect(methods.body).toEqual({ oidc: true, oidcProvider: PROVIDER, passkey: true });
  await expectAccessible('sign-in with OpenID Connect');
  await signInWithProvider();
  await page.getByRole('link', { name: ZONE }).waitFor();
  // one account: its address and the role instead of a switcher
  await page.getByText('oidc-team@example.org · Editor').waitFor();
  await page.getByText(PERSON).first().waitFor();
  // an editor manages no member: the page lists them without the invitation form
  await page.getByRole('link', { name: 'Members' }).click();
  await page.getByRole('cell', { name: `${PERSON} (you)` }).waitFor();
  expect(await page.getByRole('button', { name: 'Create invitation' }).count()).toBe(0);
  // nor keys: the Keys screen is not offered
  expect(await page.getByRole('link', { name: 'API & TSIG keys' }).count()).toBe(0);
}, 90_000);

test('with a passkey, the next OpenID Connect sign-in asks for it before anything else', async () => {
  await page.getByRole('link', { name: 'Your sign-in' }).click();
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByRole('status').filter({ hasText: 'The passkey was added' }).waitFor();
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await page.getByRole('alert').filter({ hasText: 'Signed out.' }).waitFor();

  await signInWithProvider();
  await page.getByRole('heading', { name: 'Confirm with your passkey' }).waitFor();
  // the session allows nothing until then
  const before = await page.evaluate<number>(
    `fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-requested-with': 'test' },
       body: JSON.stringify({ query: '{ me { email } }' }) }).then((r) => r.status)`,
  );
  expect(before).toBe(401);
  await expectAccessible('second factor');
  await page.getByRole('button', { name: 'Use my passkey' }).click();
  await page.getByRole('link', { name: ZONE }).waitFor();
  const me = await page.evaluate<any>(
    `fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-requested-with': 'test' },
       body: JSON.stringify({ query: '{ me { email role } }' }) }).then((r) => r.json())`,
  );
  expect(me).toEqual({ data: { me: { email: PERSON, role: 'EDITOR' } } });
}, 90_000);
