/**
 * The edges of a person's session (docs/people.md, docs/audit-log.md): the idle and absolute timeouts (on small
 * settings and on the defaults), each end by a timeout audited once however many requests present the session
 * at once; the cookie's attributes as Set-Cookie carries them, `Secure` only behind TLS (a TLS-terminating proxy
 * that TRUST_PROXY trusts), not on plain http; an ID token issued to another client refused by its audience;
 * the GraphQL WebSocket refusing the cookie from a page of another site.
 *
 * Two services: `plain` on the default settings, reached over plain http; `short` with the smallest timeouts
 * the settings take (idle 60 s, absolute 300 s) and TRUST_PROXY=loopback, reached through a TLS proxy of the
 * test's own. One real OpenID provider (oidc-provider) for both. A session's age is set in the database (its
 * `created_at`, `last_seen_at`), not waited for.
 */
import 'reflect-metadata';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import WebSocket from 'ws';
import { launchChromium } from '../support/console';
import { selfSignedCertificate } from '../support/self-signed';
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
import { endTimedOutSessionsNow } from '../../src/services/people/sessions.service';
import { personGql, sessionHeaders, signIn } from '../support/people';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait-for';

let plain: TestApp;
let short: TestApp;
let proxy: { origin: string; close(): Promise<void> };
let provider: OidcProvider;
let browser: Browser;
let plainDb: Client;
let shortDb: Client;

const ME = `{ me { email } }`;

/**
 * A TLS-terminating reverse proxy in front of `port`, as a load balancer is: HTTPS in (a self-signed
 * certificate for 127.0.0.1, made by openssl), plain HTTP to the service with X-Forwarded-Proto `https` and
 * X-Forwarded-For; the Host header as the browser sent it.
 */
async function startTlsProxy(port: number): Promise<{ origin: string; close(): Promise<void> }> {
  const { key, cert } = selfSignedCertificate('127.0.0.1', 'IP:127.0.0.1');
  const server = https.createServer({ key, cert }, (req, res) => {
    const upstream = http.request(
      {
        host: '127.0.0.1',
        port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'x-forwarded-proto': 'https', 'x-forwarded-for': req.socket.remoteAddress ?? '' },
      },
      (answer) => {
        // the raw list keeps every Set-Cookie as the service wrote it
        res.writeHead(answer.statusCode!, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function sessionIdOf(db: Client, token: string): Promise<number> {
  const { rows } = await db.query(`select id from sessions where token_hash = $1`, [createHash('sha256').update(token).digest('hex')]);
  return Number(rows[0].id);
}

async function endedEvents(db: Client, sessionId: number) {
  const { rows } = await db.query(
    `select detail, actor_key_type, actor_key_id, actor_email, source_address from audit_events
      where kind = 'session-ended' and subject = $1 order by id`,
    [`session:${sessionId}`],
  );
  return rows;
}

beforeAll(async () => {
  const port = await providerPort();
  const oidc = { OIDC_ISSUER: `http://127.0.0.1:${port}`, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, RATE_LIMIT_PER_SECOND: '0' };
  plain = await startTestApp(oidc);
  short = await startTestApp({ ...oidc, SESSION_IDLE_TIMEOUT: '60', SESSION_ABSOLUTE_TIMEOUT: '300', TRUST_PROXY: 'loopback' });
  proxy = await startTlsProxy(short.service.httpPort!);
  provider = await startOidcProvider(port, [`${plain.baseUrl}/auth/oidc/callback`, `${proxy.origin}/auth/oidc/callback`].join(','));
  plainDb = new Client({ connectionString: plain.settings.databaseUrl! });
  shortDb = new Client({ connectionString: short.settings.databaseUrl! });
  await plainDb.connect();
  await shortDb.connect();
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await provider?.stop();
  await proxy?.close();
  await plainDb?.end();
  await shortDb?.end();
  await plain?.close();
  await short?.close();
});

describe('timeouts', () => {
  it('the absolute timeout ends a session still in use, answers 401, and audits it once', async () => {
    const token = await signIn(short, 'busy@example.org');
    const id = await sessionIdOf(shortDb, token);
    // signed in 290 s ago and used all along (seen now): still within SESSION_ABSOLUTE_TIMEOUT=300
    await shortDb.query(`update sessions set created_at = now() - interval '290 seconds', last_seen_at = now() where id = $1`, [id]);
    expect((await personGql(short, token, ME)).data).toEqual({ me: { email: 'busy@example.org' } });
    // 301 s: refused though it was seen this very second (not idle)
    await shortDb.query(`update sessions set created_at = now() - interval '301 seconds', last_seen_at = now() where id = $1`, [id]);
    const refused = await personGql(short, token, ME);
    expect([refused.status, refused.errors?.[0]?.extensions?.code]).toEqual([401, 'UNAUTHENTICATED']);
    expect(await endedEvents(shortDb, id)).toEqual([
      {
        detail: { reason: 'absolute-timeout' },
        actor_key_type: 'session',
        actor_key_id: String(id),
        actor_email: 'busy@example.org',
        source_address: '127.0.0.1',
      },
    ]);
    // marked ended at the moment it timed out (sign-in + 300 s), not when it was found so
    const { rows } = await shortDb.query(`select extract(epoch from ended_at - created_at)::int as lived from sessions where id = $1`, [
      id,
    ]);
    expect(rows[0].lived).toBe(300);
    // presented again, over REST and sign-out too: still refused, nothing more recorded
    expect((await short.http.get('/api/domain/list').set(sessionHeaders(token))).status).toBe(401);
    expect((await short.http.post('/auth/sign-out').set(sessionHeaders(token))).status).toBe(204);
    expect(await endedEvents(shortDb, id)).toHaveLength(1);
  });

  it('the idle timeout: a session presented by many requests at once is ended and audited exactly once', async () => {
    const token = await signIn(short, 'idle@example.org');
    const other = await signIn(short, 'idle@example.org');
    const id = await sessionIdOf(shortDb, token);
    await shortDb.query(`update sessions set last_seen_at = now() - interval '59 seconds' where id = $1`, [id]);
    expect((await personGql(short, token, ME)).status).toBe(200);
    // that request moved last_seen_at to now (seen 59 s ago, past a quarter of SESSION_IDLE_TIMEOUT=60: activity
    // keeps the session alive even at the shortest idle setting)
    const idle = async () =>
      (await shortDb.query(`select extract(epoch from now() - last_seen_at)::float8 as idle from sessions where id = $1`, [id])).rows[0]
        .idle;
    expect(await idle()).toBeLessThan(5);
    // 61 s without one: past SESSION_IDLE_TIMEOUT=60
    await shortDb.query(`update sessions set last_seen_at = now() - interval '61 seconds' where id = $1`, [id]);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 2
          ? personGql(short, token, ME).then((r) => r.status)
          : short.http
              .get('/api/domain/list')
              .set(sessionHeaders(token))
              .then((r) => r.status),
      ),
    );
    expect(answers).toEqual(Array(12).fill(401));
    const events = await endedEvents(shortDb, id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ detail: { reason: 'idle-timeout' }, actor_email: 'idle@example.org' });
    // the person's other session goes on, and no longer lists the one that timed out
    const list = await personGql(short, other, `{ mySessions { id current } }`);
    expect(list.data.mySessions).toEqual([{ id: String(await sessionIdOf(shortDb, other)), current: true }]);
  });

  it('a session that timed out and is never presented again is ended and audited by the sweep (the worker’s), once', async () => {
    const idleToken = await signIn(short, 'unseen@example.org');
    const oldToken = await signIn(short, 'unseen@example.org');
    const liveToken = await signIn(short, 'unseen@example.org');
    const [idle, old, live] = [
      await sessionIdOf(shortDb, idleToken),
      await sessionIdOf(shortDb, oldToken),
      await sessionIdOf(shortDb, liveToken),
    ];
    await shortDb.query(`update sessions set last_seen_at = now() - interval '2 minutes' where id = $1`, [idle]);
    await shortDb.query(`update sessions set created_at = now() - interval '6 minutes', last_seen_at = now() where id = $1`, [old]);
    expect(await endTimedOutSessionsNow(short.service.database.db, short.settings.sessions)).toBeGreaterThanOrEqual(2);
    const ended = async (id: number) =>
      (await shortDb.query(`select ended_at is not null as ended from sessions where id = $1`, [id])).rows[0].ended;
    expect([await ended(idle), await ended(old), await ended(live)]).toEqual([true, true, false]);
    expect((await endedEvents(shortDb, idle)).map((e) => e.detail)).toEqual([{ reason: 'idle-timeout' }]);
    expect((await endedEvents(shortDb, old)).map((e) => e.detail)).toEqual([{ reason: 'absolute-timeout' }]);
    // swept once: neither a second sweep nor the token presented afterwards records it again
    await endTimedOutSessionsNow(short.service.database.db, short.settings.sessions);
    expect((await personGql(short, idleToken, ME)).status).toBe(401);
    expect(await endedEvents(shortDb, idle)).toHaveLength(1);
    expect((await personGql(short, liveToken, ME)).status).toBe(200);
  });

  it('on the default settings (idle 30 min, absolute 12 h) the same ages are no timeout; past them, the earlier end is the reason', async () => {
    expect(plain.settings.sessions).toMatchObject({ idleSeconds: 1800, absoluteSeconds: 43_200 });
    const token = await signIn(plain, 'default@example.org');
    const id = await sessionIdOf(plainDb, token);
    await plainDb.query(
      `update sessions set created_at = now() - interval '301 seconds', last_seen_at = now() - interval '61 seconds' where id = $1`,
      [id],
    );
    expect((await personGql(plain, token, ME)).status).toBe(200);
    await plainDb.query(`update sessions set created_at = now() - interval '12 hours 1 second', last_seen_at = now() where id = $1`, [id]);
    expect((await personGql(plain, token, ME)).status).toBe(401);
    expect((await endedEvents(plainDb, id)).map((e) => e.detail)).toEqual([{ reason: 'absolute-timeout' }]);
    // idle for 2 hours, signed in 13 hours ago: it went idle (1.5 h ago) before its 12 hours were up (1 h ago)
    const late = await signIn(plain, 'default@example.org');
    const lateId = await sessionIdOf(plainDb, late);
    await plainDb.query(
      `update sessions set created_at = now() - interval '13 hours', last_seen_at = now() - interval '2 hours' where id = $1`,
      [lateId],
    );
    expect((await personGql(plain, late, ME)).status).toBe(401);
    expect((await endedEvents(plainDb, lateId)).map((e) => e.detail)).toEqual([{ reason: 'idle-timeout' }]);
  });
});

describe('the cookie', () => {
  let context: BrowserContext;
  let page: Page;
  afterEach(async () => {
    await context?.close();
  });

  /** signs in through the browser at `origin`; the Set-Cookie headers of the service's answer to the callback */
  async function signInThrough(origin: string, login: string): Promise<{ status: number; setCookies: string[] }> {
    const answered = new Promise<{ status: number; setCookies: string[] }>((resolve) => {
      page.on('response', (response) => {
        if (!response.url().startsWith(`${origin}/auth/oidc/callback`)) return;
        void response.headersArray().then((headers) =>
          resolve({
            status: response.status(),
            setCookies: headers.filter((h) => h.name.toLowerCase() === 'set-cookie').flatMap((h) => h.value.split('\n')),
          }),
        );
      });
    });
    await page.goto(`${origin}/auth/oidc/start`);
    await atProviderLogin(page, login);
    return answered;
  }

  const sessionCookie = (setCookies: string[]) => setCookies.find((c) => c.startsWith('zk_session='))!;
  const attributes = (cookie: string) =>
    cookie
      .split(';')
      .slice(1)
      .map((a) => a.trim())
      .sort();

  it('over TLS (a proxy that TRUST_PROXY trusts): HttpOnly, Secure, SameSite=Lax, Path=/, no expiry; the session works there', async () => {
    context = await browser.newContext({ ignoreHTTPSErrors: true });
    page = await context.newPage();
    const answer = await signInThrough(proxy.origin, 'tls@example.org');
    expect(answer.status).toBe(303);
    expect(attributes(sessionCookie(answer.setCookies))).toEqual(['HttpOnly', 'Path=/', 'SameSite=Lax', 'Secure']);
    // the browser keeps it for the https origin, and the console's requests there carry it
    expect((await context.cookies(proxy.origin)).find((c) => c.name === 'zk_session')).toMatchObject({
      httpOnly: true,
      secure: true,
      sameSite: 'Lax',
    });
    const me =
      await page.evaluate(`fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-requested-with': 'console' },
      body: JSON.stringify({ query: '{ me { email } }' }) }).then((r) => r.json())`);
    expect(me).toEqual({ data: { me: { email: 'tls@example.org' } } });
  });

  it('on plain http to the loopback address: no Secure, the rest the same (the short service reached without its proxy)', async () => {
    context = await browser.newContext();
    page = await context.newPage();
    // the provider knows the plain service's callback; the short one (TRUST_PROXY) on plain http is shown with sign-out's cookie below
    const answer = await signInThrough(plain.baseUrl, 'plain@example.org');
    expect(answer.status).toBe(303);
    expect(attributes(sessionCookie(answer.setCookies))).toEqual(['HttpOnly', 'Path=/', 'SameSite=Lax']);
    const token = await signIn(short, 'plain@example.org');
    const out = await short.http.post('/auth/sign-out').set(sessionHeaders(token));
    expect(out.status).toBe(204);
    expect(attributes(sessionCookie(out.headers['set-cookie'] as unknown as string[]))).not.toContain('Secure');
  });

  it('X-Forwarded-Proto from a client that no TRUST_PROXY trusts does not make it Secure (the default settings)', async () => {
    expect(plain.settings.sessions.trustProxy).toBeUndefined();
    context = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-proto': 'https' } });
    page = await context.newPage();
    const answer = await signInThrough(plain.baseUrl, 'forged@example.org');
    expect(answer.status).toBe(303);
    expect(attributes(sessionCookie(answer.setCookies))).toEqual(['HttpOnly', 'Path=/', 'SameSite=Lax']);
  });
});

describe('the PowerDNS API with a cookie', () => {
  it('a request without the CSRF gate’s header is refused in PowerDNS’s shape ({"error"}), one with it is answered', async () => {
    const token = await signIn(plain, 'pdns-cookie@example.org');
    const crossSite = await plain.http.get('/api/v1/servers/localhost/zones').set('cookie', `zk_session=${token}`);
    expect(crossSite.status).toBe(403);
    expect(Object.keys(crossSite.body)).toEqual(['error']);
    expect(typeof crossSite.body.error).toBe('string');
    const sameSite = await plain.http.get('/api/v1/servers/localhost/zones').set(sessionHeaders(token));
    expect(sameSite.status).toBe(200);
    expect(Array.isArray(sameSite.body)).toBe(true);
  });
});

describe('OpenID Connect', () => {
  let context: BrowserContext;
  let page: Page;
  afterEach(async () => {
    await context?.close();
  });
  const callback = () => `${plain.baseUrl}/auth/oidc/callback`;

  /** holds the browser's requests to the callback (holdOidcCallbacks); `onCallback` decides each */
  const holdCallbacks = (onCallback: (url: URL) => Promise<URL | undefined>) => holdOidcCallbacks(context, page, callback(), onCallback);

  it('refuses an ID token issued to another client (its audience), signed by the provider with the right nonce; audited', async () => {
    // 1. the other client's sign-in of the same person at the same provider: a code, redeemed by that client
    context = await browser.newContext();
    page = await context.newPage();
    const verifier = randomBytes(32).toString('base64url');
    const authorization = new URL(`${provider.issuer}/auth`);
    for (const [name, value] of Object.entries({
      client_id: OTHER_CLIENT_ID,
      redirect_uri: callback(),
      response_type: 'code',
      scope: 'openid email',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 'other-state',
      nonce: 'other-nonce',
    }))
      authorization.searchParams.set(name, value);
    let code: string | undefined;
    await holdCallbacks(async (url) => {
      code = url.searchParams.get('code') ?? undefined;
      return undefined;
    });
    await page.goto(authorization.href);
    await atProviderLogin(page, 'alice@example.org');
    await waitUntil('the code of the other client', () => code !== undefined);
    await context.close();
    const redeemed = await fetch(`${provider.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: code!,
        redirect_uri: callback(),
        code_verifier: verifier,
        client_id: OTHER_CLIENT_ID,
        client_secret: `${OTHER_CLIENT_ID}-secret-0123456789abcdef0123456789abcdef`,
      }),
    });
    expect(redeemed.status).toBe(200);
    const tokens = (await redeemed.json()) as { id_token: string };
    const claims = JSON.parse(Buffer.from(tokens.id_token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ aud: OTHER_CLIENT_ID, iss: provider.issuer, email: 'alice@example.org', nonce: 'other-nonce' });

    // 2. that token response handed to the service for its own code (the provider answers its next token request
    // with it), with the service's flow made to expect that nonce: only the audience is wrong
    const armed = await fetch(`${provider.issuer}/test/next-token-response`, { method: 'POST', body: JSON.stringify(tokens) });
    expect(armed.status).toBe(200);
    const signedInBefore = (await plainDb.query(`select count(*)::int as n from audit_events where kind = 'signed-in'`)).rows[0].n;
    context = await browser.newContext();
    page = await context.newPage();
    await holdCallbacks(async (url) => {
      await plainDb.query(`update sign_in_flows set nonce = 'other-nonce'`);
      return url;
    });
    const answered = new Promise<{ status: number; body: string }>((resolve) => {
      page.on('response', (response) => {
        if (response.url().startsWith(callback()))
          void response.text().then(
            (body) => resolve({ status: response.status(), body }),
            () => resolve({ status: response.status(), body: '' }),
          );
      });
    });
    await page.goto(`${plain.baseUrl}/auth/oidc/start`);
    await atProviderLogin(page, 'alice@example.org');
    const answer = await answered;
    expect([answer.status, JSON.parse(answer.body).error]).toEqual([401, 'SIGN_IN_FAILED']);
    const { rows } = await plainDb.query(
      `select detail, actor_key_id, source_address from audit_events where kind = 'sign-in-failed' order by id desc limit 1`,
    );
    expect(rows[0]).toMatchObject({ detail: { method: 'oidc' }, actor_key_id: null, source_address: '127.0.0.1' });
    expect(rows[0].detail.reason).toMatch(/"aud"/);
    expect((await context.cookies(plain.baseUrl)).some((c) => c.name === 'zk_session')).toBe(false);
    expect((await plainDb.query(`select count(*)::int as n from audit_events where kind = 'signed-in'`)).rows[0].n).toBe(signedInBefore);
  });
});

describe('the GraphQL WebSocket', () => {
  /**
   * A graphql-ws connection as a browser page would open it (the cookie, an Origin), asking `query`: what
   * arrived before the server closed it (or 3 s passed).
   */
  async function overSocket(
    headers: Record<string, string>,
    payload: Record<string, unknown> = {},
    query = `{ me { email } }`,
    base = plain.baseUrl,
  ) {
    const socket = new WebSocket(`${base.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', { headers });
    const messages: any[] = [];
    let closeCode: number | undefined;
    await new Promise<void>((resolve) => {
      const done = setTimeout(resolve, 3000);
      socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload })));
      socket.on('message', (data) => {
        const message = JSON.parse((data as Buffer).toString('utf8'));
        messages.push(message);
        if (message.type === 'connection_ack') socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
        if (message.type === 'complete') {
          clearTimeout(done);
          resolve();
        }
      });
      socket.on('close', (code) => {
        closeCode = code;
        clearTimeout(done);
        resolve();
      });
      socket.on('error', () => undefined);
    });
    socket.close();
    return { types: messages.map((m) => m.type), data: messages.find((m) => m.type === 'next')?.payload?.data, closeCode };
  }

  it('takes the cookie with this service’s Origin, and refuses it with another site’s (closed, no data)', async () => {
    const token = await signIn(plain, 'socket@example.org');
    const own = await overSocket({ cookie: `zk_session=${token}`, origin: plain.baseUrl });
    expect(own.types).toEqual(['connection_ack', 'next', 'complete']);
    expect(own.data).toEqual({ me: { email: 'socket@example.org' } });

    const crossSite = await overSocket({ cookie: `zk_session=${token}`, origin: 'https://evil.example' });
    expect(crossSite).toEqual({ types: [], data: undefined, closeCode: 4403 });
    // another port of the same host is another origin too
    const otherPort = await overSocket({ cookie: `zk_session=${token}`, origin: plain.baseUrl.replace(/:\d+$/, ':1') });
    expect(otherPort.closeCode).toBe(4403);
    // no Origin at all (not a browser page) with only a cookie: refused as well
    expect((await overSocket({ cookie: `zk_session=${token}` })).closeCode).toBe(4403);
    // the session still works (a refused socket ends nothing)
    expect((await personGql(plain, token, ME)).status).toBe(200);
  });

  it('behind a TLS proxy that TRUST_PROXY trusts, the cookie with the https origin is taken; without TRUST_PROXY a forged X-Forwarded-Proto is not', async () => {
    // as the proxy passes the upgrade on: the browser's Host and Origin, X-Forwarded-Proto https, from the loopback
    const token = await signIn(short, 'tls-socket@example.org');
    const https = short.baseUrl.replace('http:', 'https:');
    const behind = await overSocket(
      { cookie: `zk_session=${token}`, origin: https, 'x-forwarded-proto': 'https' },
      {},
      undefined,
      short.baseUrl,
    );
    expect(behind.types).toEqual(['connection_ack', 'next', 'complete']);
    expect(behind.data).toEqual({ me: { email: 'tls-socket@example.org' } });
    // the same service, the https Origin without the proxy's header: another origin than its own
    expect((await overSocket({ cookie: `zk_session=${token}`, origin: https }, {}, undefined, short.baseUrl)).closeCode).toBe(4403);
    // default settings trust no proxy: the header changes nothing
    const plainToken = await signIn(plain, 'forged-socket@example.org');
    const forged = await overSocket({
      cookie: `zk_session=${plainToken}`,
      origin: plain.baseUrl.replace('http:', 'https:'),
      'x-forwarded-proto': 'https',
    });
    expect(forged.closeCode).toBe(4403);
  });

  it('an open WebSocket does not keep its session from going idle: its checks are the service’s, not the person’s activity', async () => {
    const token = await signIn(plain, 'open-tab@example.org');
    const id = await sessionIdOf(plainDb, token);
    const lastSeen = async () =>
      (await plainDb.query(`select extract(epoch from now() - last_seen_at)::int as idle from sessions where id = $1`, [id])).rows[0]
        .idle as number;
    const socket = new WebSocket(`${plain.baseUrl.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', {
      headers: { cookie: `zk_session=${token}`, origin: plain.baseUrl },
    });
    const acked = new Promise<void>((resolve) =>
      socket.on('message', (data) => JSON.parse((data as Buffer).toString('utf8')).type === 'connection_ack' && resolve()),
    );
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: {} })));
    await acked;
    // opening it was the person's doing; then nothing for 10 minutes but the tab's socket, open through a few of
    // the service's checks (every 2 s)
    await plainDb.query(`update sessions set last_seen_at = now() - interval '10 minutes' where id = $1`, [id]);
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    expect(await lastSeen()).toBeGreaterThanOrEqual(600);
    socket.close();
    // a request of the person's is activity: it moves last_seen_at
    expect((await personGql(plain, token, ME)).status).toBe(200);
    expect(await lastSeen()).toBeLessThan(5);
  });

  it('a tool with an API key and no Origin is let in as before', async () => {
    const tool = await overSocket({}, { 'X-API-Key': ADMIN_KEY }, `{ __typename }`);
    expect(tool).toEqual({ types: ['connection_ack', 'next', 'complete'], data: { __typename: 'Query' }, closeCode: undefined });
  });
});
