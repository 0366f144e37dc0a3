/**
 * Signing in from a terminal (docs/people.md, «Signing in from a terminal»; RFC 8628): the built CLI's
 * `zonekeeper login` against a real OpenID provider (oidc-provider, its device flow on) finished in Chromium at
 * the provider's device page, then `zone approve` by that session, though an API key is set beside it; and with
 * a passkey's person on a second device (this service's approval page). The poll is paced (slow_down), a code
 * expires, an unknown or used device code gets nothing, and the approval page takes no other site's form.
 */
import 'reflect-metadata';
import { statSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { buildOnce } from '../support/build';
import { cliConfigDir, runCli, startCli } from '../support/cli';
import { launchChromium } from '../support/console';
import { atProviderLogin, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OidcProvider, providerPort, startOidcProvider } from '../support/oidc';
import { signIn } from '../support/people';
import { startTestApp, TestApp } from '../support/test-app';
import { sleep, waitFor } from '../support/wait-for';

let app: TestApp;
let provider: OidcProvider;
let browser: Browser;
let account: string;
let deployKey: string;

/** rows of the service's database */
const rows = (text: string) => app.service.database.db.rows(text);

const cli = (args: string[], env: Record<string, string | undefined> = {}) => runCli(app.baseUrl, args, env);

/** the form RFC 8628 posts, to the service's /auth/device routes */
const post = (route: string, form: Record<string, string>) =>
  app.http.post(`/auth/device${route}`).type('form').send(new URLSearchParams(form).toString());

/** the URL the CLI printed for the person to open, once it printed it */
const printedUrl = async (err: () => string): Promise<string> =>
  waitFor('the CLI printing its code', () => /\(or open (\S+)\)/.exec(err())?.[1]);

beforeAll(async () => {
  buildOnce();
  const port = await providerPort();
  app = await startTestApp({ OIDC_ISSUER: `http://127.0.0.1:${port}`, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, RATE_LIMIT_PER_SECOND: '0' });
  provider = await startOidcProvider(port, `${app.baseUrl}/auth/oidc/callback`);
  account = JSON.parse((await cli(['--json', 'user', 'add', 'device@example.org'])).out).id;
  deployKey = JSON.parse((await cli(['--json', 'key', 'create', account, 'deploy'])).out).secret;
  expect((await cli(['zone', 'add', account, 'device.example'])).code).toBe(0);
  const set = await app.gql(`mutation { setZoneRequiredApprovals(zone: "device.example", approvals: 1) }`);
  expect(set.errors).toBeUndefined();
  for (const email of ['alice@example.org', 'bob@example.org']) {
    const invited = await app.gql(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token } }`, {
      i: { userId: account, email, role: 'EDITOR' },
    });
    expect(invited.errors).toBeUndefined();
  }
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await provider?.stop();
  await app?.close();
});

/** a change the deploy key proposes on the zone under review: the request's id */
async function proposal(name: string, address: string): Promise<string> {
  const added = await cli(['record', 'add', 'device.example', name, 'A', address, '--ttl', '300'], { ZONEKEEPER_API_KEY: deployKey });
  expect(added).toMatchObject({ code: 0, err: '' });
  return /change request (\d+)/.exec(added.out)![1];
}

it('zonekeeper login: the device flow at the OIDC provider, then zone approve with that session, the key set beside it', async () => {
  const id = await proposal('api', '192.0.2.80');
  const login = startCli(app.baseUrl, ['login'], { ZONEKEEPER_API_KEY: deployKey });
  const url = await printedUrl(login.err);
  expect(url.startsWith(`${provider.issuer}/device`)).toBe(true);
  const page: Page = await (await browser.newContext()).newPage();
  await page.goto(url);
  // the provider's confirmation of the code, its login and consent, its success page
  await page.locator('button[autofocus]', { hasText: 'Continue' }).click();
  await atProviderLogin(page, 'alice@example.org');
  await page.getByText('Sign-in Success').waitFor();
  const done = await login.done;
  expect(done).toMatchObject({ code: 0, out: expect.stringMatching(/^signed in to http:\/\/127\.0\.0\.1:\d+ as alice@example\.org /) });
  // the session is a credential: the file only its owner reads
  expect(statSync(path.join(cliConfigDir(), 'sessions.json')).mode & 0o777).toBe(0o600);

  // the key reviews nothing; the stored session (a person) does, though ZONEKEEPER_API_KEY is set
  const approved = await cli(['zone', 'approve', id, '--comment', 'from the terminal'], { ZONEKEEPER_API_KEY: deployKey });
  expect(approved.code).toBe(0);
  expect(approved.out).toMatch(new RegExp(`^change request ${id} \\(device\\.example\\): applied, 1 of 1 approvals`));
  expect(approved.out).toContain('approved by alice@example.org: from the terminal');
  const whoami = await rows(`select kind, detail from audit_events where kind = 'signed-in' and actor_email = 'alice@example.org'`);
  expect(whoami).toEqual([{ kind: 'signed-in', detail: { method: 'oidc' } }]);

  // logout ends the session at the service and forgets it
  expect((await cli(['logout'])).out).toBe(`signed out of ${app.baseUrl} (alice@example.org)\n`);
  const byKey = await cli(['zone', 'approve', await proposal('files', '192.0.2.81')], { ZONEKEEPER_API_KEY: deployKey });
  expect(byKey).toMatchObject({ code: 1, err: expect.stringContaining('NOT_SIGNED_IN') });
  expect(byKey.err).toContain('zonekeeper login');
}, 90_000);

it('a person who has a passkey is refused at the provider (the passkey is their second factor): audited, no session', async () => {
  // carol's passkey, as a registration stores it: what the sign-in reads is that she has one
  await rows(`insert into people (email) values ('carol@example.org')`);
  await rows(
    `insert into passkeys (person_id, credential_id, public_key) select id, 'carol-credential', '\\x00' from people where email = 'carol@example.org'`,
  );
  const login = startCli(app.baseUrl, ['login'], { ZONEKEEPER_API_KEY: deployKey });
  const page: Page = await (await browser.newContext()).newPage();
  await page.goto(await printedUrl(login.err));
  await page.locator('button[autofocus]', { hasText: 'Continue' }).click();
  await atProviderLogin(page, 'carol@example.org');
  const done = await login.done;
  expect(done.code).toBe(1);
  expect(done.err).toContain('error: ACCESS_DENIED: the sign-in ended: this person has a passkey, asked as a second factor');
  const refused = await rows(`select detail from audit_events where kind = 'sign-in-failed' order by id desc limit 1`);
  expect(refused[0].detail).toMatchObject({ method: 'oidc', reason: expect.stringContaining('has a passkey') });
  expect(await rows(`select 1 from sessions s join people p on p.id = s.person_id where p.email = 'carol@example.org'`)).toEqual([]);
}, 90_000);

it('paces the polls (slow_down, the interval grown), expires the code, and hands the session out once', async () => {
  const begun = await post('', { method: 'oidc' });
  expect(begun.status).toBe(200);
  expect(begun.headers['cache-control']).toBe('no-store');
  expect(begun.body).toMatchObject({ user_code: expect.any(String), verification_uri: `${provider.issuer}/device`, expires_in: 600 });
  const { device_code: deviceCode, interval } = begun.body;
  expect(deviceCode).toMatch(/^zk_device_/);
  const first = await post('/token', { device_code: deviceCode });
  expect(first.body).toMatchObject({ error: 'authorization_pending' });
  const second = await post('/token', { device_code: deviceCode });
  expect(second.status).toBe(400);
  expect(second.body).toEqual({
    error: 'slow_down',
    error_description: `polled sooner than the interval: wait ${interval + 5} s between polls`,
  });
  expect((await post('/token', { device_code: 'zk_device_nothing' })).body).toMatchObject({ error: 'invalid_grant' });

  // a code the provider expires: expired_token, then nothing more
  await provider.setDeviceCodeSeconds(2);
  const short = await post('', { method: 'oidc' });
  expect(short.body.expires_in).toBe(2);
  await sleep(2500);
  expect((await post('/token', { device_code: short.body.device_code })).body).toMatchObject({ error: 'expired_token' });
  expect((await post('/token', { device_code: short.body.device_code })).body).toMatchObject({ error: 'invalid_grant' });
  await provider.setDeviceCodeSeconds(600);
  expect((await post('', { method: 'sideways' })).status).toBe(422);
}, 60_000);

it('zonekeeper login --passkey: approved on a second device by a person signed in there; once, and no other site posts it', async () => {
  const id = await proposal('smtp', '192.0.2.82');
  const login = startCli(app.baseUrl, ['login', '--passkey'], { ZONEKEEPER_API_KEY: deployKey });
  const url = await printedUrl(login.err);
  expect(url).toMatch(new RegExp(`^${app.baseUrl}/auth/device/approve\\?code=[B-DF-HJ-NP-TV-XZ]{4}-[B-DF-HJ-NP-TV-XZ]{4}$`));
  const code = new URL(url).searchParams.get('code')!;

  // another site's form (its Origin) is refused, though it carries a session cookie
  const bobSession = await signIn(app, 'bob@example.org');
  const forged = await app.http
    .post('/auth/device/approve')
    .set({ cookie: `zk_session=${bobSession}`, origin: 'https://elsewhere.example' })
    .type('form')
    .send({ code, verdict: 'approve' });
  expect(forged.status).toBe(403);

  // not signed in on that device: the page says to sign in first
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  await page.getByText('Sign in first').waitFor();
  // signed in there (the console's cookie, as a passkey's sign-in sets it): the code, approved
  const aliceSession = await signIn(app, 'alice@example.org');
  await context.addCookies([{ name: 'zk_session', value: aliceSession, url: app.baseUrl, httpOnly: true, sameSite: 'Lax' }]);
  await page.goto(url);
  expect(await page.locator('input[name="code"]').inputValue()).toBe(code);
  await page.getByText('Signed in as alice@example.org').waitFor();
  await page.locator('button[value="approve"]').click();
  await page.getByText('The terminal is signed in as you').waitFor();
  const done = await login.done;
  expect(done).toMatchObject({ code: 0, out: expect.stringContaining('as alice@example.org') });
  // answered once: the same code again is no terminal's
  await page.goto(url);
  await page.locator('button[value="approve"]').click();
  await page.getByText('no terminal is waiting for this code').waitFor();
  const approved = await rows(`select actor_email from audit_events where kind = 'device-sign-in-approved'`);
  expect(approved).toEqual([{ actor_email: 'alice@example.org' }]);

  const reviewed = await cli(['zone', 'approve', id], { ZONEKEEPER_API_KEY: deployKey });
  expect(reviewed.code).toBe(0);
  expect(reviewed.out).toContain('approved by alice@example.org');
  expect((await cli(['logout'])).code).toBe(0);
}, 90_000);

it('a provider that does not answer: 503 IDENTITY_PROVIDER_UNAVAILABLE, nothing begun', async () => {
  await provider.stop();
  const begun = await post('', { method: 'oidc' });
  expect(begun.status).toBe(503);
  expect(begun.body).toMatchObject({ error: 'IDENTITY_PROVIDER_UNAVAILABLE' });
});
