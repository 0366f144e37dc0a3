/**
 * CSRF as a person meets it (docs/people.md «CSRF»), in Debian's Chromium: a person signed in to
 * the service at http://localhost:<port> (the session cookie as the service sets it: HttpOnly, SameSite=Lax)
 * opens a page of another site that posts forms and runs fetches at the service. Nothing changes: no zone, no
 * record, the session still live. Two attackers:
 *
 * - a page of another site (http://127.0.0.1:<other port>): SameSite=Lax keeps the cookie off its POSTs, so the
 *   service sees requests without a credential;
 * - a page of the same site but another origin (http://localhost:<other port>, a sibling app on the same host):
 *   SameSite lets the cookie go with its POSTs, and it is the service's own gate (X-Requested-With, Origin,
 *   Sec-Fetch-Site: src/http/request-gates.ts) that refuses them.
 *
 * What reached the service and what it answered is read at the service's HTTP server (a listener the test adds
 * before the service's own), so the cookie's presence and the refusal are facts, not inferences from what the
 * page may see. The control at the end sends the very same mutation, REST form and sign-out from a page of the
 * service's own origin with the console's header: each goes through, so the test could fail.
 */
import 'reflect-metadata';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../support/console';
import { createUser, createZone } from '../support/fixtures';
import { signIn } from '../support/people';
import { startTestApp, TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait-for';

const VICTIM_ZONE = 'csrf-victim.test';
const PERSON = 'owner@csrf.example';
const CREATE_DOMAIN = `mutation($input: CreateDomainInput!) { createDomain(input: $input) { id name } }`;

let app: TestApp;
let db: Client;
let browser: Browser;
let attacker: http.Server;
let account: string;
let token: string;
/** the service as the browser reaches it (localhost: WebAuthn's and the console's) */
let service: string;
let attackerPort: number;

/** a request as it reached the service's HTTP server, and the service's answer */
interface Seen {
  method: string;
  path: string;
  upgrade: boolean;
  cookie: boolean;
  origin?: string;
  fetchSite?: string;
  requestedWith?: string;
  contentType?: string;
  status?: number;
  body?: string;
  setCookie?: string;
  allowOrigin?: string;
}
const seen: Seen[] = [];

/** the state a forged request would change */
async function state() {
  const domains = await db.query(`select name from domains order by name`);
  const records = await db.query(`select count(*)::int as n from records`);
  const sessions = await db.query(
    `select count(*)::int as n from sessions s join people p on p.id = s.person_id where p.email = $1 and s.ended_at is null`,
    [PERSON],
  );
  return {
    domains: domains.rows.map((r) => r.name as string),
    records: records.rows[0].n as number,
    liveSessions: sessions.rows[0].n as number,
  };
}

const graphqlBody = (zone: string) => ({ query: CREATE_DOMAIN, variables: { input: { userId: account, zone } } });
const recordFields = (owner: string) => ({ zone: VICTIM_ZONE, owner, rtype: 'A', rdata: '192.0.2.66', ttl: '300' });

const html = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const hiddenFields = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${html(name)}" value="${html(value)}">`)
    .join('');
const autoSubmit = (action: string, fields: Record<string, string>, enctype = 'application/x-www-form-urlencoded') =>
  `<form method="POST" action="${html(action)}" enctype="${enctype}">${hiddenFields(fields)}</form><script>document.forms[0].submit()</script>`;
/** a script whose outcome the test reads from `window.outcome` */
const script = (body: string) => `<script>window.outcome = (async () => { ${body} })().catch((e) => ({ error: String(e) }));</script>`;

/** the attacker's pages: each makes one forged request at the service, as a page of whatever origin serves it */
function attackerPage(kind: string, zone: string): string {
  const mutation = JSON.stringify(graphqlBody(zone));
  switch (kind) {
    // (a) JSON smuggled in a text/plain form: the body is `name=value\r\n`, the `=` lands inside a string
    case 'form-text-plain':
      return autoSubmit(`${service}/graphql`, { [`${mutation.slice(0, -1)},"pad":"`]: '"}' }, 'text/plain');
    // (a) the same mutation as an ordinary form
    case 'form-urlencoded':
      return autoSubmit(`${service}/graphql`, { query: CREATE_DOMAIN, variables: JSON.stringify(graphqlBody(zone).variables) });
    // (b) a credentialed JSON fetch: not a simple request, so the browser asks first (CORS preflight)
    case 'fetch-cors':
      return script(`const r = await fetch(${JSON.stringify(`${service}/graphql`)}, { method: 'POST', credentials: 'include',
        headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(mutation)} });
        return { status: r.status, body: await r.text() };`);
    // (c) a simple request the page cannot read the answer of, sent with the cookie where the browser allows
    case 'fetch-no-cors':
      return script(`const r = await fetch(${JSON.stringify(`${service}/graphql`)}, { method: 'POST', mode: 'no-cors', credentials: 'include',
        headers: { 'content-type': 'text/plain' }, body: ${JSON.stringify(mutation)} });
        return { type: r.type, status: r.status };`);
    // (d) the REST interface's writes and the sign-out, as forms
    case 'form-rest-domain':
      return autoSubmit(`${service}/api/domain/add`, { user_id: account, zone });
    case 'form-rest-record':
      return autoSubmit(`${service}/api/record/add`, recordFields(zone.split('.')[0]));
    case 'form-sign-out':
      return autoSubmit(`${service}/auth/sign-out`, {});
    // (e) a GraphQL socket (graphql-ws runs mutations too): no header can be set, the upgrade's Origin tells
    case 'websocket':
      return script(`const ws = new WebSocket(${JSON.stringify(`${service.replace('http', 'ws')}/graphql`)}, 'graphql-transport-ws');
        const messages = [];
        return await new Promise((resolve) => {
          ws.onopen = () => ws.send(JSON.stringify({ type: 'connection_init', payload: {} }));
          ws.onmessage = (m) => { messages.push(JSON.parse(m.data).type);
            if (messages.includes('connection_ack')) ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: ${mutation} })); };
          ws.onclose = (e) => resolve({ code: e.code, reason: e.reason, messages });
          setTimeout(() => resolve({ timeout: true, messages }), 5000);
        });`);
    default:
      throw new Error(`no page ${kind}`);
  }
}

/** every request the service's HTTP server takes, its headers and answer, from before the service's own handler */
function tapService(server: http.Server): void {
  const hasCookie = (req: http.IncomingMessage) => /(?:^|;\s*)zk_session=/.test(req.headers.cookie ?? '');
  const describe = (req: http.IncomingMessage, upgrade: boolean): Seen => ({
    method: req.method ?? '',
    path: (req.url ?? '').split('?')[0],
    upgrade,
    cookie: hasCookie(req),
    origin: req.headers.origin,
    fetchSite: req.headers['sec-fetch-site'],
    requestedWith: req.headers['x-requested-with'] as string | undefined,
    contentType: req.headers['content-type'],
  });
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const entry = describe(req, false);
    seen.push(entry);
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown) => {
      if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) chunks.push(Buffer.from(chunk));
    };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => http.ServerResponse;
    res.write = ((...args: unknown[]) => (keep(args[0]), write(...args))) as typeof res.write;
    res.end = ((...args: unknown[]) => (typeof args[0] !== 'function' && keep(args[0]), end(...args))) as typeof res.end;
    res.once('finish', () => {
      entry.status = res.statusCode;
      entry.body = Buffer.concat(chunks).toString('utf8').slice(0, 300);
      const setCookie = res.getHeader('set-cookie');
      if (setCookie !== undefined) entry.setCookie = String(setCookie);
      const allowOrigin = res.getHeader('access-control-allow-origin');
      if (allowOrigin !== undefined) entry.allowOrigin = String(allowOrigin);
    });
  });
  server.prependListener('upgrade', (req: http.IncomingMessage) => {
    seen.push(describe(req, true));
  });
}

/** a browser context of the person: the session cookie as the service sets it (setSessionCookie, over http) */
async function personContext(): Promise<BrowserContext> {
  const context = await browser.newContext();
  await context.addCookies([
    { name: 'zk_session', value: token, domain: 'localhost', path: '/', httpOnly: true, secure: false, sameSite: 'Lax' },
  ]);
  return context;
}

const cookieInBrowser = async (context: BrowserContext) =>
  (await context.cookies(service)).find((c) => c.name === 'zk_session')?.value === token;

/**
 * One attack: the person opens the attacker's page at `from`; a form's answer shows in the tab (the form
 * navigates it), a script's outcome is what the page could learn. Returns what reached the service.
 */
async function attack(context: BrowserContext, from: string, kind: string, zone: string) {
  const page: Page = await context.newPage();
  const start = seen.length;
  try {
    const url = `${from}/${kind}?zone=${encodeURIComponent(zone)}`;
    let pageSaw: unknown;
    if (kind.startsWith('form-')) {
      const answer = page.waitForResponse((r) => r.url().startsWith(service) && r.request().method() === 'POST', { timeout: 15_000 });
      // a 204 (the sign-out) leaves the tab on the attacker's page, whose navigation then never settles
      await page.goto(url, { waitUntil: 'commit' });
      const response = await answer;
      pageSaw = { status: response.status(), url: new URL(response.url()).pathname };
      // the tab shows the service's answer (a 204 leaves it where it was) before it is closed: closing it while
      // that navigation still loads left page.close() hanging until the context closed (same-site pages)
      if (response.status() !== 204) await page.waitForURL((at) => at.href.startsWith(service), { waitUntil: 'load' });
    } else {
      await page.goto(url);
      pageSaw = await page.evaluate('window.outcome');
    }
    // the service has answered what reached it (a preflight or an upgrade included)
    await waitUntil(`the service's answers to ${kind}`, () => seen.slice(start).every((s) => s.upgrade || s.status !== undefined));
    const reached = seen.slice(start).filter((s) => s.path !== '/favicon.ico');
    console.log(`${from} ${kind}: the page saw ${JSON.stringify(pageSaw)}; the service got ${JSON.stringify(reached)}`);
    return { pageSaw: pageSaw as any, reached };
  } finally {
    await page.close();
  }
}

const errorCodeOf = (body: string | undefined): string | undefined => {
  const parsed = JSON.parse(body ?? 'null');
  return parsed?.error ?? parsed?.errors?.[0]?.extensions?.code;
};

beforeAll(async () => {
  app = await startTestApp();
  service = app.baseUrl.replace('127.0.0.1', 'localhost');
  tapService(app.service.httpServer!);
  db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
  account = await createUser(app, 'csrf-account@example.org');
  await createZone(app, account, VICTIM_ZONE);
  // the admin key invites the account's owner; the first sign-in of the address takes the invitation up
  const invited = await app.gql(`mutation($input: InviteMemberInput!) { inviteMember(input: $input) { token } }`, {
    input: { userId: account, email: PERSON, role: 'OWNER' },
  });
  expect(invited.errors).toBeUndefined();
  token = await signIn(app, PERSON);

  attacker = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://attacker');
    try {
      const page = attackerPage(url.pathname.slice(1), url.searchParams.get('zone') ?? '');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><title>win a prize</title>${page}`);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerPort = (attacker.address() as AddressInfo).port;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (attacker ? attacker.close(resolve) : resolve(undefined)));
  await db?.end();
  await app?.close();
});

it('the person is signed in: the session is live and owns the account', async () => {
  expect(await state()).toEqual({ domains: [VICTIM_ZONE], records: expect.any(Number), liveSessions: 1 });
});

describe('a page of another site (http://127.0.0.1:<port>): SameSite=Lax keeps the cookie off, nothing changes', () => {
  let context: BrowserContext;
  let before: Awaited<ReturnType<typeof state>>;
  const from = () => `http://127.0.0.1:${attackerPort}`;
  beforeAll(async () => {
    context = await personContext();
    before = await state();
  });
  afterAll(() => context?.close());

  it.each(['form-text-plain', 'form-urlencoded', 'form-rest-domain', 'form-rest-record'])(
    '%s: reaches the service without the cookie, 401, nothing created',
    async (kind) => {
      const { pageSaw, reached } = await attack(context, from(), kind, `cross-${kind}.test`);
      expect(reached).toHaveLength(1);
      expect(reached[0]).toMatchObject({ method: 'POST', cookie: false, origin: from(), fetchSite: 'cross-site', status: 401 });
      expect(errorCodeOf(reached[0].body)).toBe('UNAUTHENTICATED');
      expect(pageSaw.status).toBe(401);
      expect(await state()).toEqual(before);
    },
  );

  it('fetch-cors: the credentialed JSON fetch stops at its preflight; the POST is never sent', async () => {
    const { pageSaw, reached } = await attack(context, from(), 'fetch-cors', 'cross-fetch-cors.test');
    expect(pageSaw.error).toMatch(/TypeError: Failed to fetch/);
    // Express's automatic OPTIONS answer ("GET, HEAD"), without Access-Control-Allow-Origin: nothing is granted
    expect(reached.map((s) => [s.method, s.cookie, s.allowOrigin])).toEqual([['OPTIONS', false, undefined]]);
    expect(await state()).toEqual(before);
  });

  it('fetch-no-cors: the text/plain POST goes without the cookie, 401, the page sees an opaque answer', async () => {
    const { pageSaw, reached } = await attack(context, from(), 'fetch-no-cors', 'cross-fetch-no-cors.test');
    expect(pageSaw).toEqual({ type: 'opaque', status: 0 });
    expect(reached).toHaveLength(1);
    expect(reached[0]).toMatchObject({ method: 'POST', cookie: false, fetchSite: 'cross-site', contentType: 'text/plain', status: 401 });
    expect(await state()).toEqual(before);
  });

  it('websocket: the upgrade goes without the cookie; the socket is refused, the mutation never runs', async () => {
    const { pageSaw, reached } = await attack(context, from(), 'websocket', 'cross-websocket.test');
    expect(reached.map((s) => [s.upgrade, s.cookie])).toEqual([[true, false]]);
    expect(pageSaw.messages).not.toContain('next');
    expect(pageSaw.code).toBe(4403);
    expect(await state()).toEqual(before);
  });

  it('form-sign-out: reaches the service without the cookie; the session stays live', async () => {
    const { reached } = await attack(context, from(), 'form-sign-out', 'cross-sign-out.test');
    expect(reached).toHaveLength(1);
    expect(reached[0]).toMatchObject({ method: 'POST', cookie: false, origin: from(), fetchSite: 'cross-site' });
    expect(await state()).toEqual(before);
  });

  /**
   * A forced sign-out: the cross-site form above carries no cookie (SameSite=Lax), and an answer clearing it would
   * still sign the person out of the console; /auth/sign-out is refused cross-site with or without the cookie
   * (src/http/sign-in.ts), so the browser keeps it.
   */
  it('form-sign-out: the browser keeps its cookie', async () => {
    expect(await cookieInBrowser(context)).toBe(true);
  });
});

describe('a page of the same site, another origin (http://localhost:<port>): the cookie goes, the gate refuses', () => {
  let context: BrowserContext;
  let before: Awaited<ReturnType<typeof state>>;
  const from = () => `http://localhost:${attackerPort}`;
  beforeAll(async () => {
    context = await personContext();
    before = await state();
  });
  afterAll(() => context?.close());

  it.each(['form-text-plain', 'form-urlencoded', 'form-rest-domain', 'form-rest-record', 'form-sign-out'])(
    '%s: reaches the service with the cookie, 403 CSRF_REFUSED, nothing changed',
    async (kind) => {
      const { pageSaw, reached } = await attack(context, from(), kind, `sibling-${kind}.test`);
      expect(reached).toHaveLength(1);
      expect(reached[0]).toMatchObject({
        method: 'POST',
        cookie: true,
        origin: from(),
        fetchSite: 'same-site',
        requestedWith: undefined,
        status: 403,
      });
      expect(errorCodeOf(reached[0].body)).toBe('CSRF_REFUSED');
      expect(pageSaw.status).toBe(403);
      expect(await state()).toEqual(before);
      expect(await cookieInBrowser(context)).toBe(true);
    },
  );

  it('fetch-cors: the preflight (never with a cookie) is not granted; the POST is never sent', async () => {
    const { pageSaw, reached } = await attack(context, from(), 'fetch-cors', 'sibling-fetch-cors.test');
    expect(pageSaw.error).toMatch(/TypeError: Failed to fetch/);
    expect(reached.map((s) => [s.method, s.cookie, s.allowOrigin])).toEqual([['OPTIONS', false, undefined]]);
    expect(await state()).toEqual(before);
  });

  it('fetch-no-cors: the text/plain POST goes with the cookie, 403 CSRF_REFUSED', async () => {
    const { pageSaw, reached } = await attack(context, from(), 'fetch-no-cors', 'sibling-fetch-no-cors.test');
    expect(pageSaw).toEqual({ type: 'opaque', status: 0 });
    expect(reached).toHaveLength(1);
    expect(reached[0]).toMatchObject({ method: 'POST', cookie: true, origin: from(), fetchSite: 'same-site', status: 403 });
    expect(errorCodeOf(reached[0].body)).toBe('CSRF_REFUSED');
    expect(await state()).toEqual(before);
  });

  it('websocket: the upgrade goes with the cookie and another Origin; the socket is refused, the mutation never runs', async () => {
    const { pageSaw, reached } = await attack(context, from(), 'websocket', 'sibling-websocket.test');
    expect(reached.map((s) => [s.upgrade, s.cookie, s.origin])).toEqual([[true, true, from()]]);
    expect(pageSaw.messages).not.toContain('next');
    expect(pageSaw.code).toBe(4403);
    expect(await state()).toEqual(before);
  });
});

describe('the control: the same requests from a page of the service, with the console header, go through', () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    context = await personContext();
    page = await context.newPage();
    await page.goto(`${service}/health`);
  });
  afterAll(() => context?.close());

  /** a POST from the service's own page as the console sends it (src/console: X-Requested-With) */
  const post = (path: string, contentType: string, body: string): Promise<{ status: number; body: any }> =>
    page.evaluate(
      `fetch(${JSON.stringify(path)}, { method: 'POST', headers: { 'content-type': ${JSON.stringify(contentType)}, 'x-requested-with': 'zonekeeper-console' },
         body: ${JSON.stringify(body)} }).then(async (r) => ({ status: r.status, body: await r.json().catch(() => null) }))`,
    );

  it('the GraphQL mutation of the fetch attacks creates the zone', async () => {
    const before = await state();
    const made = await post('/graphql', 'application/json', JSON.stringify(graphqlBody('cross-fetch-cors.test')));
    expect(made.status).toBe(200);
    expect(made.body.errors).toBeUndefined();
    expect(made.body.data.createDomain.name).toBe('cross-fetch-cors.test');
    expect((await state()).domains).toEqual([...before.domains, 'cross-fetch-cors.test'].sort());
  });

  it('the REST form bodies of the form attacks create the zone and the record', async () => {
    const before = await state();
    const zone = await post(
      '/api/domain/add',
      'application/x-www-form-urlencoded',
      new URLSearchParams({ user_id: account, zone: 'cross-form-rest-domain.test' }).toString(),
    );
    expect(zone.status).toBe(201);
    const record = await post(
      '/api/record/add',
      'application/x-www-form-urlencoded',
      new URLSearchParams(recordFields('cross-form-rest-record')).toString(),
    );
    expect(record.status).toBe(201);
    const after = await state();
    expect(after.domains).toContain('cross-form-rest-domain.test');
    expect(after.records).toBeGreaterThan(before.records);
  });

  it('the sign-out ends the session and clears the cookie', async () => {
    expect((await state()).liveSessions).toBe(1);
    const out = await page.evaluate<number>(
      `fetch('/auth/sign-out', { method: 'POST', headers: { 'x-requested-with': 'zonekeeper-console' } }).then((r) => r.status)`,
    );
    expect(out).toBe(204);
    expect((await state()).liveSessions).toBe(0);
    expect(await cookieInBrowser(context)).toBe(false);
  });
});
