/**
 * Recovery links (docs/people.md, «Recovery»): a member who lost every passkey gets a one-time link from
 * someone who manages them; following it in a browser (Chromium's virtual authenticator) registers a new passkey
 * through the same ceremony as an invitation's, ends the person's other sessions and signs them in. Once,
 * before it expires, stored hashed, audited; refused to those who do not manage the member, in this account and
 * in every other account of the person.
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildConsole, launchChromium, requestFromPage } from '../support/console';
import { createUser, createUserKey, errorCode } from '../support/fixtures';
import { personGql, signIn } from '../support/people';
import { startTestApp, TestApp } from '../support/test-app';

const BROWSER_LIBRARY = readFileSync(
  path.join(__dirname, '..', '..', 'node_modules', '@simplewebauthn', 'browser', 'dist', 'bundle', 'index.umd.min.js'),
  'utf8',
);
const RECOVER = `mutation($u: ID!, $p: ID!) { createRecoveryLink(userId: $u, personId: $p) { token link recoveryLink { id personId email userId expiresAt } } }`;
const INVITE = `mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token } }`;

let app: TestApp;
let db: Client;
let browser: Browser;
/** WebAuthn needs a domain for the RP ID: localhost, not 127.0.0.1 */
let origin: string;
let account: string;
let otherAccount: string;

/** a person who is a member of `userId` with `role` (an invitation the first sign-in takes), signed in */
async function member(email: string, role: string, userId = account): Promise<{ token: string; id: string }> {
  const made = await app.gql(INVITE, { i: { userId, email, role } });
  expect(made.errors).toBeUndefined();
  const token = await signIn(app, email);
  return { token, id: (await personGql(app, token, `{ me { personId } }`)).data.me.personId };
}

/** a browser of its own with an authenticator of its own (the new laptop), at the service's origin */
async function newLaptop(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  await page.goto(`${origin}/health`);
  await page.addScriptTag({ content: BROWSER_LIBRARY });
  return { context, page };
}

/** a POST from the page, as the console makes it (same origin, X-Requested-With: test/support/console.ts) */
const post = (at: Page, to: string, body: unknown) => requestFromPage(at, 'POST', to, body);

/** the recovery ceremony in the page: options, the authenticator's new passkey, the registration */
async function recover(at: Page, token: string): Promise<{ status: number; body: any }> {
  const options = await post(at, '/auth/passkey/recovery/options', { token });
  if (options.status !== 200) return options;
  const response = await at.evaluate(`SimpleWebAuthnBrowser.startRegistration({ optionsJSON: ${JSON.stringify(options.body)} })`);
  return post(at, '/auth/passkey/recovery', { token, response });
}

beforeAll(async () => {
  buildConsole();
  app = await startTestApp({ RATE_LIMIT_PER_SECOND: '0', KEY_RATE_LIMIT_PER_SECOND: '0' });
  origin = app.baseUrl.replace('127.0.0.1', 'localhost');
  db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
  account = await createUser(app, 'rl-account@example.org');
  otherAccount = await createUser(app, 'rl-other@example.org');
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await db?.end();
  await app?.close();
});

it('an owner makes a link; following it registers a new passkey, ends the old sessions and signs in, once', async () => {
  const owner = await member('rl-owner@example.org', 'OWNER');
  const lost = await member('rl-editor@example.org', 'EDITOR');
  const otherSession = await signIn(app, 'rl-editor@example.org');
  const made = await personGql(app, owner.token, RECOVER, { u: account, p: lost.id });
  expect(made.errors).toBeUndefined();
  const { token, link, recoveryLink } = made.data.createRecoveryLink;
  expect(link).toBe(`/console/#/recovery/${encodeURIComponent(token)}`);
  expect(recoveryLink).toMatchObject({ personId: lost.id, email: 'rl-editor@example.org', userId: account });
  // good for RECOVERY_LINK_TTL (default a day)
  const ttl = new Date(recoveryLink.expiresAt).getTime() - Date.now();
  expect(ttl).toBeGreaterThan(86_400_000 - 60_000);
  expect(ttl).toBeLessThanOrEqual(86_400_000);
  // stored as its hash only
  const stored = await db.query(`select token_hash from recovery_links where id = $1`, [recoveryLink.id]);
  expect(stored.rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
  expect(stored.rows[0].token_hash).not.toContain(token);

  const { context, page } = await newLaptop();
  try {
    const options = await post(page, '/auth/passkey/recovery/options', { token });
    // the options name the person: the new passkey is theirs
    expect(options.body.user.name).toBe('rl-editor@example.org');
    const response = await page.evaluate(`SimpleWebAuthnBrowser.startRegistration({ optionsJSON: ${JSON.stringify(options.body)} })`);
    const recovered = await post(page, '/auth/passkey/recovery', { token, response });
    expect(recovered).toEqual({ status: 201, body: { email: 'rl-editor@example.org', accountId: Number(account), role: 'editor' } });
    // signed in on the new laptop, in the link's account
    const me = await post(page, '/graphql', { query: '{ me { email accountId role } }' });
    expect(me.body).toEqual({ data: { me: { email: 'rl-editor@example.org', accountId: account, role: 'EDITOR' } } });
    // the old sessions are over
    expect((await personGql(app, lost.token, `{ me { email } }`)).status).toBe(401);
    expect((await personGql(app, otherSession, `{ me { email } }`)).status).toBe(401);
    // the passkey is the person's, and signs in alone
    const passkeys = await db.query(`select p.email from passkeys k join people p on p.id = k.person_id where p.id = $1`, [lost.id]);
    expect(passkeys.rows).toEqual([{ email: 'rl-editor@example.org' }]);
    await context.clearCookies();
    const signInOptions = await post(page, '/auth/passkey/sign-in/options', {});
    const assertion = await page.evaluate(
      `SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: ${JSON.stringify(signInOptions.body)} })`,
    );
    expect(await post(page, '/auth/passkey/sign-in', { response: assertion })).toEqual({
      status: 200,
      body: { email: 'rl-editor@example.org' },
    });
    // once: the link taken, its options and its registration are refused, naming the token
    const again = await post(page, '/auth/passkey/recovery/options', { token });
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ error: 'RECOVERY_LINK_NOT_FOUND', details: [{ field: 'token', code: 'RECOVERY_LINK_NOT_FOUND' }] });
  } finally {
    await context.close();
  }

  const audit = await db.query(
    `select kind, actor_email, detail from audit_events
      where kind in ('recovery-link-made', 'recovery-link-used', 'session-ended', 'passkey-added')
        and id >= (select id from audit_events where kind = 'recovery-link-made' and detail->>'recoveryLink' = $1)
      order by id`,
    [String(recoveryLink.id)],
  );
  const linkId = Number(recoveryLink.id);
  expect(audit.rows.map((r) => [r.kind, r.actor_email, r.detail])).toEqual([
    ['recovery-link-made', 'rl-owner@example.org', { person: Number(lost.id), recoveryLink: linkId }],
    ['session-ended', 'rl-editor@example.org', { reason: 'recovery' }],
    ['session-ended', 'rl-editor@example.org', { reason: 'recovery' }],
    ['recovery-link-used', 'rl-editor@example.org', { person: Number(lost.id), recoveryLink: linkId }],
    ['passkey-added', 'rl-editor@example.org', { recoveryLink: linkId }],
  ]);
});

it('is refused once expired, withdrawn by a newer link, and after the member left the account', async () => {
  const lost = await member('rl-viewer@example.org', 'VIEWER');
  const first = (await app.gql(RECOVER, { u: account, p: lost.id })).data.createRecoveryLink;
  const second = (await app.gql(RECOVER, { u: account, p: lost.id })).data.createRecoveryLink;
  const { context, page } = await newLaptop();
  try {
    const withdrawn = await post(page, '/auth/passkey/recovery/options', { token: first.token });
    expect([withdrawn.status, withdrawn.body.error]).toEqual([404, 'RECOVERY_LINK_NOT_FOUND']);
    await db.query(`update recovery_links set expires_at = now() - interval '1 second' where id = $1`, [second.recoveryLink.id]);
    const expired = await post(page, '/auth/passkey/recovery/options', { token: second.token });
    expect([expired.status, expired.body.error]).toEqual([404, 'RECOVERY_LINK_NOT_FOUND']);
    const third = (await app.gql(RECOVER, { u: account, p: lost.id })).data.createRecoveryLink;
    const removed = await app.gql(`mutation($u: ID!, $p: ID!) { removeMember(userId: $u, personId: $p) { role } }`, {
      u: account,
      p: lost.id,
    });
    expect(removed.errors).toBeUndefined();
    const gone = await recover(page, third.token);
    expect([gone.status, gone.body.error]).toEqual([404, 'RECOVERY_LINK_NOT_FOUND']);
    // an invitation's token is no recovery link, and a recovery token no invitation
    const invitation = (await app.gql(INVITE, { i: { userId: account, email: 'rl-new@example.org', role: 'VIEWER' } })).data.inviteMember;
    expect((await post(page, '/auth/passkey/recovery/options', { token: invitation.token })).status).toBe(404);
    expect((await post(page, '/auth/passkey/invitation/options', { token: third.token })).status).toBe(404);
    // nothing was written for any of them
    expect((await db.query(`select count(*)::int as n from passkeys where person_id = $1`, [lost.id])).rows[0].n).toBe(0);
    expect(
      (await db.query(`select count(*)::int as n from recovery_links where used_at is not null and person_id = $1`, [lost.id])).rows[0].n,
    ).toBe(0);
  } finally {
    await context.close();
  }
});

it('is made only by those who manage the member here and in every other account of theirs', async () => {
  const admin = await member('rl-admin@example.org', 'ADMIN');
  const editor = await member('rl-editor2@example.org', 'EDITOR');
  const owner2 = await member('rl-owner2@example.org', 'OWNER');
  const both = await member('rl-both@example.org', 'VIEWER');
  // a member of another account too, as its owner
  await member('rl-both@example.org', 'OWNER', otherAccount);
  const count = async () => Number((await db.query(`select count(*) from recovery_links`)).rows[0].count);
  const before = await count();

  // an editor manages nobody; an admin no owner; an admin of this account not the person's place elsewhere
  expect(errorCode(await personGql(app, editor.token, RECOVER, { u: account, p: admin.id }))).toBe('FORBIDDEN_BY_ROLE');
  expect(errorCode(await personGql(app, admin.token, RECOVER, { u: account, p: owner2.id }))).toBe('FORBIDDEN_BY_ROLE');
  const elsewhere = await personGql(app, admin.token, RECOVER, { u: account, p: both.id });
  expect(errorCode(elsewhere)).toBe('FORBIDDEN_BY_ROLE');
  expect(elsewhere.errors![0].extensions.details[0].field).toBe('personId');
  // an account's own key is its owner, but not in the other account
  const key = await createUserKey(app, account);
  expect(errorCode(await app.gql(RECOVER, { u: account, p: both.id }, key))).toBe('FORBIDDEN_BY_ROLE');
  // an outsider does not learn of the account; a non-member is answered as such
  expect(errorCode(await app.gql(RECOVER, { u: otherAccount, p: editor.id }, key))).toBe('USER_NOT_FOUND');
  expect(errorCode(await app.gql(RECOVER, { u: account, p: '999999' }))).toBe('MEMBER_NOT_FOUND');
  expect(await count()).toBe(before);

  // the admin manages an editor here; the operator's admin key manages everyone everywhere
  expect((await personGql(app, admin.token, RECOVER, { u: account, p: editor.id })).errors).toBeUndefined();
  expect((await app.gql(RECOVER, { u: account, p: both.id })).errors).toBeUndefined();
  expect(await count()).toBe(before + 2);
});

it('in the console: an owner’s "Recovery link" on the Members screen, and its page making the new passkey', async () => {
  const owner = await member('rl-console-owner@example.org', 'OWNER');
  const lost = await member('rl-console-viewer@example.org', 'VIEWER');
  const ownerContext = await browser.newContext();
  const { context, page } = await newLaptop();
  try {
    await ownerContext.addCookies([{ name: 'zk_session', value: owner.token, url: origin }]);
    const members = await ownerContext.newPage();
    await members.goto(`${origin}/console/#/members`);
    await members.getByRole('button', { name: 'Make a recovery link for rl-console-viewer@example.org' }).click();
    const field = members.locator('#recovery-link');
    await field.waitFor();
    // the field has the focus, to copy the link; the link is whole, at the console's origin
    expect(await members.evaluate('document.activeElement?.id')).toBe('recovery-link');
    const link = await field.inputValue();
    expect(link).toMatch(new RegExp(`^${origin}/console/#/recovery/zk_recover_`));
    // no recovery link for oneself (a person signed in registers a passkey under "Your sign-in")
    expect(await members.getByRole('button', { name: 'Make a recovery link for rl-console-owner@example.org' }).count()).toBe(0);

    await page.goto(link);
    await page.getByRole('button', { name: 'Create a new passkey' }).click();
    await page.waitForURL(`${origin}/console/#/`);
    const me = await post(page, '/graphql', { query: '{ me { email role } }' });
    expect(me.body).toEqual({ data: { me: { email: 'rl-console-viewer@example.org', role: 'VIEWER' } } });
    expect((await personGql(app, lost.token, `{ me { email } }`)).status).toBe(401);
  } finally {
    await ownerContext.close();
    await context.close();
  }
});
