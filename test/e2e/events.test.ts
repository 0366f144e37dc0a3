import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Client as PgClient } from 'pg';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createTsigKey, createUser, createUserKey, createZone } from '../support/fixtures';
import { sleep, waitFor, waitUntil } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';
import { guardedLookup, postMessage } from '../../src/outbound/webhook-post';
import { mayConnect } from '../../src/outbound/addresses';

/**
 * Events out (docs/events.md), end to end: the service with its worker, a real receiver on 127.0.0.1 (allowed by
 * WEBHOOK_ALLOW in this file) that verifies every delivery's signature with the Standard Webhooks library, the
 * pull feed, and the outbound address checks.
 */

let app: TestApp;
let userId: string;
let userKey: string;
let otherId: string;
const receivers: WebhookReceiver[] = [];

async function receiver(): Promise<WebhookReceiver> {
  const r = await new WebhookReceiver().start();
  receivers.push(r);
  return r;
}

async function subscribe(key: string, url: string, body: Record<string, unknown> = {}): Promise<{ id: number; secret: string }> {
  const res = await app.http
    .post('/api/webhook/add')
    .set('X-API-Key', key)
    .send({ url, ...body });
  if (res.status !== 201) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function addRecord(zone: string, owner: string, rdata: string, key = ADMIN_KEY): Promise<void> {
  const res = await app.gql(CREATE_RECORD, { input: { zone, owner, type: 'A', rdata, ttl: 3600 } }, key);
  if (res.errors) throw new Error(JSON.stringify(res.errors));
}

async function feed(key: string, after = '', limit = 1000): Promise<{ events: any[]; next: string }> {
  const res = await app.http.get('/api/events').query({ after, limit }).set('X-API-Key', key);
  if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

beforeAll(async () => {
  app = await startTestApp({
    ROLES: 'api,worker',
    WEBHOOK_ALLOW: '127.0.0.0/8',
    WEBHOOK_RETRY_BASE_MS: '100',
    WEBHOOK_RETRY_MAX_SECONDS: '1',
    WEBHOOK_TIMEOUT_MS: '8000',
    WEBHOOK_CONNECT_TIMEOUT_MS: '1000',
    // a retired secret signs for 7.2 s: the rotation test waits for two overlaps to end
    WEBHOOK_SECRET_OVERLAP_HOURS: '0.002',
    WEBHOOK_MAX_SECRETS: '4',
  });
  userId = await createUser(app, 'events-user@example.org');
  userKey = await createUserKey(app, userId);
  otherId = await createUser(app, 'events-other@example.org');
}, 60_000);

afterAll(async () => {
  await app?.close();
  for (const r of receivers) await r.stop();
});

describe('webhooks', () => {
  it("delivers a user's zone events, signed, in order per zone, and never another user's", async () => {
    const rx = await receiver();
    const sub = await subscribe(userKey, rx.url, { events: '*' });
    expect(sub.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/);
    rx.secrets = [sub.secret];

    await createZone(app, userId, 'ev-one.test');
    await createZone(app, otherId, 'ev-other.test');
    for (let i = 1; i <= 5; i++) await addRecord('ev-one.test', `h${i}`, `192.0.2.${i}`);
    await addRecord('ev-other.test', 'x', '192.0.2.99');
    const del = await app.gql(`mutation { deleteDomain(zone: "ev-one.test") }`);
    expect(del.errors).toBeUndefined();

    await waitUntil('zone.deleted of ev-one.test delivered', () => rx.typesOf('ev-one.test').includes('zone.deleted'));
    expect(rx.unverified).toEqual([]);
    expect(rx.typesOf('ev-one.test')).toEqual(['zone.created', ...Array(5).fill('zone.changed'), 'zone.deleted']);
    const changes = rx.received.filter((r) => r.type === 'zone.changed');
    // serials rise in delivery order, and each names its records and author
    const serials = changes.map((c) => c.data.serial);
    expect([...serials].sort((a, b) => a - b)).toEqual(serials);
    expect(changes[0].data.added).toEqual(
      expect.arrayContaining([expect.objectContaining({ owner: 'h1', type: 'A', rdata: '192.0.2.1' })]),
    );
    expect(changes[0].data.author).toEqual(expect.objectContaining({ keyName: expect.any(String) }));
    expect(rx.received.some((r) => r.zone === 'ev-other.test')).toBe(false);

    const list = await app.http.get('/api/webhook/list').set('X-API-Key', userKey);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([expect.objectContaining({ id: sub.id, url: rx.url, events: ['*'] })]);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    const deliveries = await app.http.get(`/api/webhook/deliveries/${sub.id}`).set('X-API-Key', userKey);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.length).toBe(7);
    expect(deliveries.body[0]).toEqual(
      expect.objectContaining({ type: 'zone.deleted', status: 'delivered', attempts: 1, response_code: 200 }),
    );
    // another user's key does not see it
    const otherKey = await createUserKey(app, otherId);
    expect((await app.http.get(`/api/webhook/deliveries/${sub.id}`).set('X-API-Key', otherKey)).status).toBe(404);
    expect((await app.http.delete(`/api/webhook/delete/${sub.id}`).set('X-API-Key', userKey)).status).toBe(204);
  }, 60_000);

  it('delivers the backlog of an endpoint that answered 500 for a while, then 200', async () => {
    const rx = await receiver();
    let failing = true;
    let refused = 0;
    rx.answer = () => (failing ? (refused++, 500) : 200);
    const sub = await subscribe(userKey, rx.url, { events: ['zone.created', 'zone.changed'] });
    rx.secrets = [sub.secret];
    await createZone(app, userId, 'ev-backlog.test');
    for (let i = 1; i <= 4; i++) await addRecord('ev-backlog.test', `b${i}`, `192.0.2.${i}`);
    await waitUntil('a few refused attempts', () => refused >= 3);
    const pending = await app.http.get(`/api/webhook/deliveries/${sub.id}`).set('X-API-Key', userKey);
    expect(pending.body.some((d: any) => d.status === 'pending' && d.response_code === 500)).toBe(true);
    failing = false;
    await waitUntil('the backlog delivered', () => rx.typesOf('ev-backlog.test').length === 5, 30_000);
    expect(rx.typesOf('ev-backlog.test')).toEqual(['zone.created', 'zone.changed', 'zone.changed', 'zone.changed', 'zone.changed']);
    await app.http.delete(`/api/webhook/delete/${sub.id}`).set('X-API-Key', userKey);
  }, 60_000);

  it('a hanging endpoint does not delay a healthy one', async () => {
    const stuck = await receiver();
    stuck.answer = () => 'hang';
    const healthy = await receiver();
    // a subscription names zones that exist
    await createZone(app, userId, 'ev-hang.test');
    const a = await subscribe(userKey, stuck.url, { zones: 'ev-hang.test' });
    const b = await subscribe(userKey, healthy.url, { zones: ['ev-hang.test'] });
    healthy.secrets = [b.secret];
    const started = Date.now();
    for (let i = 1; i <= 4; i++) await addRecord('ev-hang.test', `k${i}`, `192.0.2.${i}`);
    await waitUntil('the healthy endpoint has every event', () => healthy.typesOf('ev-hang.test').length === 4, 20_000);
    // within one of the hanging endpoint's WEBHOOK_TIMEOUT_MS (8 s), where waiting behind it would take four
    expect(Date.now() - started).toBeLessThan(7000);
    await app.http.delete(`/api/webhook/delete/${a.id}`).set('X-API-Key', userKey);
    await app.http.delete(`/api/webhook/delete/${b.id}`).set('X-API-Key', userKey);
  }, 60_000);

  it('a slow endpoint: at most WEBHOOK_CONCURRENCY (4) under way, its zones in parallel, each in order through a failed attempt', async () => {
    // a receiver that answers after 60 ms: 503 until every change is written (each zone's queue then holds its four
    // events, sent as a run), then 500 to the first attempt of every third event: a queue's run ends at the failure,
    // and the zone's next events wait for the retry's success
    let open = false;
    let underWay = 0;
    let most = 0;
    let failedOnce = 0;
    const seen = new Set<string>();
    const taken = new Map<string, number[]>();
    const server = http.createServer((req, res) => {
      underWay += 1;
      most = Math.max(most, underWay);
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () =>
        setTimeout(() => {
          underWay -= 1;
          if (!open) {
            res.statusCode = 503;
            return res.end('closed');
          }
          const id = String(req.headers['webhook-id']);
          const first = !seen.has(id);
          seen.add(id);
          if (first && seen.size % 3 === 0) {
            failedOnce += 1;
            res.statusCode = 500;
            return res.end('later');
          }
          const { data } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          taken.set(data.zone, [...(taken.get(data.zone) ?? []), data.serial]);
          res.end('ok');
        }, 60),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const zones = Array.from({ length: 6 }, (_, i) => `ev-slow${i}.test`);
      for (const zone of zones) await createZone(app, userId, zone);
      const sub = await subscribe(userKey, `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`, {
        zones,
        events: ['zone.changed'],
      });
      for (let i = 1; i <= 4; i++) for (const zone of zones) await addRecord(zone, `s${i}`, `192.0.2.${i}`);
      open = true;
      await waitUntil('every zone has its 4 events', () => zones.every((z) => (taken.get(z) ?? []).length >= 4), 30_000);
      expect(most).toBeLessThanOrEqual(4);
      expect(most).toBeGreaterThan(1);
      expect(failedOnce).toBeGreaterThan(0);
      for (const zone of zones) {
        const serials = taken.get(zone)!;
        expect([...serials].sort((a, b) => a - b)).toEqual(serials);
        expect(new Set(serials).size).toBe(4);
      }
      await app.http.delete(`/api/webhook/delete/${sub.id}`).set('X-API-Key', userKey);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 60_000);

  it('rotated twice within the overlap: each retired secret signs until its own overlap ends, then not; redelivered by hand', async () => {
    // WEBHOOK_SECRET_OVERLAP_HOURS is 0.002 in this file: a retired secret signs for 7.2 s from its rotation
    await createZone(app, userId, 'ev-rotate.test');
    const rx = await receiver();
    const sub = await subscribe(userKey, rx.url, { zones: 'ev-rotate.test', events: 'zone.changed' });
    const rotate = async (body: Record<string, unknown> = {}) => {
      const res = await app.http.post(`/api/webhook/rotate/${sub.id}`).set('X-API-Key', userKey).send(body);
      if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
      return res.body as {
        secret: string;
        previous_secret_until: string | null;
        previous_secrets: { retired_at: string; until: string }[];
      };
    };
    const first = await rotate();
    await sleep(3000);
    // the second rotation to a secret the receiver has already (one of its own making)
    const own = `whsec_${randomBytes(32).toString('base64')}`;
    const second = await rotate({ secret: own });
    expect(second.secret).toBe(own);
    const [original, firstRotated] = [sub.secret, first.secret];
    rx.secrets = [original, firstRotated, own];

    // the original secret still ends at the first rotation's end (the second did not move it), the first
    // rotation's secret 7.2 s after the second rotation
    expect(second.previous_secrets).toEqual([first.previous_secrets[0], expect.objectContaining({ until: expect.any(String) })]);
    const [originalEnds, firstEnds] = second.previous_secrets.map((p) => Date.parse(p.until));
    expect(originalEnds - Date.parse(first.previous_secrets[0].retired_at)).toBe(7200);
    expect(firstEnds - Date.parse(second.previous_secrets[1].retired_at)).toBe(7200);
    expect(firstEnds - originalEnds).toBeGreaterThanOrEqual(2900);
    expect(second.previous_secret_until).toBe(second.previous_secrets[1].until);

    /** a change of the zone, and which of the receiver's secrets verify its delivery */
    const change = async (owner: string) => {
      const before = rx.requests.length;
      await addRecord('ev-rotate.test', owner, '192.0.2.1');
      await waitUntil(`the change of ${owner} delivered`, () => rx.requests.length > before);
      const request = rx.requests[before];
      return { id: request.id, verifiedBy: request.verifiedBy, at: request.at };
    };
    const named = (secrets: string[]) =>
      secrets.map((secret) => ({ [original]: 'original', [firstRotated]: 'first', [own]: 'own' })[secret]);

    // within both overlaps: the three secrets sign, each verifies on its own
    const both = await change('r1');
    expect({ verifiedBy: named(both.verifiedBy), beforeOriginalEnds: both.at < originalEnds }).toEqual({
      verifiedBy: ['original', 'first', 'own'],
      beforeOriginalEnds: true,
    });
    // the original secret's overlap is over, the first rotation's is not: a receiver on the original fails now
    await sleep(originalEnds - Date.now() + 300);
    const one = await change('r2');
    expect({ verifiedBy: named(one.verifiedBy), beforeFirstEnds: one.at < firstEnds }).toEqual({
      verifiedBy: ['first', 'own'],
      beforeFirstEnds: true,
    });
    // both overlaps over: the current secret alone
    await sleep(firstEnds - Date.now() + 300);
    const none = await change('r3');
    expect(named(none.verifiedBy)).toEqual(['own']);
    const [listed] = (await app.http.get('/api/webhook/list').set('X-API-Key', userKey)).body.filter((w: any) => w.id === sub.id);
    expect(listed).toEqual(expect.objectContaining({ previous_secrets: [], previous_secret_until: null }));

    // redelivered by hand: the same webhook-id, signed with the secrets of now
    const again = await app.http
      .post(`/api/webhook/redeliver/${sub.id}`)
      .set('X-API-Key', userKey)
      .send({ events: [both.id.slice(4)] });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ redelivered: 1 });
    await waitUntil('redelivered', () => rx.requests.filter((r) => r.id === both.id).length === 2);
    expect(named(rx.requests.filter((r) => r.id === both.id)[1].verifiedBy)).toEqual(['own']);

    // events it never had are refused, each named, and nothing is redelivered
    const count = rx.requests.length;
    const unknown = await app.http
      .post(`/api/webhook/redeliver/${sub.id}`)
      .set('X-API-Key', userKey)
      .send({ events: [one.id.slice(4), 999999999] });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(
      expect.objectContaining({
        error: 'EVENT_NOT_FOUND',
        details: [expect.objectContaining({ field: 'events[1]', code: 'EVENT_NOT_FOUND', message: expect.stringContaining('999999999') })],
      }),
    );
    const viaGraphql = await app.gql(
      `mutation($id: ID!, $events: [ID!]) { redeliverWebhook(id: $id, events: $events) }`,
      { id: String(sub.id), events: ['999999998'] },
      userKey,
    );
    expect(viaGraphql.errors?.[0].extensions).toEqual(
      expect.objectContaining({ code: 'EVENT_NOT_FOUND', details: [expect.objectContaining({ field: 'events[0]' })] }),
    );
    const deliveries = (await app.http.get(`/api/webhook/deliveries/${sub.id}`).set('X-API-Key', userKey)).body;
    expect(deliveries.find((d: any) => d.event_id === Number(one.id.slice(4)))).toEqual(expect.objectContaining({ status: 'delivered' }));
    await sleep(500);
    expect(rx.requests.length).toBe(count);
    expect(rx.unverified).toEqual([]);
  }, 60_000);

  it("refuses a rotation's unknown fields and bad secrets by name, and a rotation past WEBHOOK_MAX_SECRETS", async () => {
    await createZone(app, userId, 'ev-refuse.test');
    const sub = await subscribe(userKey, 'http://127.0.0.1:9/never', { zones: 'ev-refuse.test', events: 'zone.deleted' });
    const rotate = (body: Record<string, unknown>) => app.http.post(`/api/webhook/rotate/${sub.id}`).set('X-API-Key', userKey).send(body);
    const secretOf = (bytes: number) => `whsec_${randomBytes(bytes).toString('base64')}`;
    const refusals: [Record<string, unknown>, string, string][] = [
      [{ secret: secretOf(32), sekret: secretOf(32) }, 'sekret', 'UNKNOWN_FIELD'],
      [{ secret: randomBytes(32).toString('base64') }, 'secret', 'INVALID_SECRET'],
      [{ secret: `whsec_${randomBytes(32).toString('hex')}!` }, 'secret', 'INVALID_SECRET'],
      [{ secret: `whsec_${randomBytes(32).toString('base64url')}` }, 'secret', 'INVALID_SECRET'],
      [{ secret: secretOf(23) }, 'secret', 'SECRET_TOO_SHORT'],
      [{ secret: secretOf(65) }, 'secret', 'SECRET_TOO_LONG'],
      [{ secret: sub.secret }, 'secret', 'SECRET_IN_USE'],
    ];
    const answers = [];
    for (const [body] of refusals) {
      const res = await rotate(body);
      answers.push({ status: res.status, field: res.body.details?.[0]?.field, code: res.body.details?.[0]?.code });
      expect(JSON.stringify(res.body)).not.toContain(String(body.secret));
    }
    expect(answers).toEqual(refusals.map(([, field, code]) => ({ status: 422, field, code })));
    const viaGraphql = await app.gql(
      `mutation($id: ID!, $secret: String) { rotateWebhookSecret(id: $id, secret: $secret) { secret } }`,
      { id: String(sub.id), secret: secretOf(8) },
      userKey,
    );
    expect(viaGraphql.errors?.[0].extensions).toEqual(
      expect.objectContaining({
        code: 'INVALID_INPUT',
        details: [expect.objectContaining({ field: 'secret', code: 'SECRET_TOO_SHORT', limit: 24 })],
      }),
    );
    const listed = async () =>
      (await app.http.get('/api/webhook/list').set('X-API-Key', userKey)).body.find((w: any) => w.id === sub.id).previous_secrets;
    // none of these rotated anything
    expect(await listed()).toEqual([]);
    // another user's webhook is not found, whatever the body holds
    const otherKey = await createUserKey(app, otherId);
    const notTheirs = await app.http
      .post(`/api/webhook/rotate/${sub.id}`)
      .set('X-API-Key', otherKey)
      .send({ secret: secretOf(8) });
    expect({ status: notTheirs.status, error: notTheirs.body.error }).toEqual({ status: 404, error: 'WEBHOOK_NOT_FOUND' });

    // 24 and 64 bytes are taken; WEBHOOK_MAX_SECRETS (4 in this file) sign at once, and a rotation past them is
    // refused, naming the setting, before anything is written
    for (const body of [{ secret: secretOf(24) }, { secret: secretOf(64) }, {}]) expect((await rotate(body)).status).toBe(200);
    expect(await listed()).toHaveLength(3);
    const past = await rotate({});
    expect(past.status).toBe(409);
    expect(past.body).toEqual(
      expect.objectContaining({ error: 'TOO_MANY_WEBHOOK_SECRETS', message: expect.stringContaining('WEBHOOK_MAX_SECRETS=4') }),
    );
    expect(past.body.details).toEqual([expect.objectContaining({ code: 'TOO_MANY_WEBHOOK_SECRETS', limit: 4 })]);
    expect(await listed()).toHaveLength(3);
    await app.http.delete(`/api/webhook/delete/${sub.id}`).set('X-API-Key', userKey);
  }, 30_000);

  it("a subscription's zones that are no zone of the key's are refused naming each; a bad zone name is named once", async () => {
    await createZone(app, userId, 'ev-mine.test');
    await createZone(app, otherId, 'ev-theirs.test');
    const before = (await app.http.get('/api/webhook/list').set('X-API-Key', userKey)).body.length;
    const unknown = await app.http
      .post('/api/webhook/add')
      .set('X-API-Key', userKey)
      .send({ url: 'http://127.0.0.1:9/never', zones: ['ev-mine.test', 'ev-none.test', 'ev-theirs.test'] });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(
      expect.objectContaining({
        error: 'ZONE_NOT_FOUND',
        message: expect.stringMatching(/ev-none\.test.*ev-theirs\.test/),
        details: [
          expect.objectContaining({ field: 'zones[1]', code: 'ZONE_NOT_FOUND', message: expect.stringContaining('ev-none.test') }),
          expect.objectContaining({ field: 'zones[2]', code: 'ZONE_NOT_FOUND', message: expect.stringContaining('ev-theirs.test') }),
        ],
      }),
    );
    const viaGraphql = await app.gql(
      `mutation($zones: [String!]) { createWebhook(url: "http://127.0.0.1:9/never", zones: $zones) { secret } }`,
      { zones: ['ev-none.test'] },
      userKey,
    );
    expect(viaGraphql.errors?.[0].extensions).toEqual(
      expect.objectContaining({ code: 'ZONE_NOT_FOUND', details: [expect.objectContaining({ field: 'zones[0]' })] }),
    );

    // a name wrong in three labels is named once, and every wrong name is named
    const bad = await app.http
      .post('/api/webhook/add')
      .set('X-API-Key', userKey)
      .send({ url: 'http://127.0.0.1:9/never', zones: ['a b.c d.e f.test', 'ev-mine.test', 'x..y.test'] });
    expect(bad.status).toBe(422);
    expect(bad.body.details).toEqual([
      expect.objectContaining({ field: 'zones[0]', code: 'NAME_INVALID_CHARACTER' }),
      expect.objectContaining({ field: 'zones[2]', code: 'NAME_EMPTY_LABEL' }),
    ]);
    // none was made
    expect((await app.http.get('/api/webhook/list').set('X-API-Key', userKey)).body.length).toBe(before);
    // the admin key's subscription may name any user's zone, not one that does not exist
    expect(
      (
        await app.http
          .post('/api/webhook/add')
          .set('X-API-Key', ADMIN_KEY)
          .send({ url: 'http://127.0.0.1:9/never', zones: 'ev-theirs.test' })
      ).status,
    ).toBe(201);
    expect(
      (await app.http.post('/api/webhook/add').set('X-API-Key', ADMIN_KEY).send({ url: 'http://127.0.0.1:9/never', zones: 'ev-none.test' }))
        .status,
    ).toBe(404);
  }, 30_000);

  it('refuses endpoints at non-public addresses, at subscription and at connect time', async () => {
    for (const url of ['http://169.254.169.254/latest', 'http://10.0.0.1/x', 'http://[::1]:8080/', 'https://100.64.0.1/']) {
      const res = await app.http.post('/api/webhook/add').set('X-API-Key', userKey).send({ url });
      expect(res.status).toBe(422);
      expect(JSON.stringify(res.body)).toContain('ADDRESS_NOT_ALLOWED');
    }
    const bad = await app.http.post('/api/webhook/add').set('X-API-Key', userKey).send({ url: 'ftp://example.org/' });
    expect(bad.status).toBe(422);
    const badType = await app.http
      .post('/api/webhook/add')
      .set('X-API-Key', userKey)
      .send({ url: 'http://127.0.0.1/', events: 'zone.exploded' });
    expect(badType.status).toBe(422);
    expect(JSON.stringify(badType.body)).toContain('INVALID_CHOICE');

    // without WEBHOOK_ALLOW, loopback is refused too, and at connect time a name that resolves to it (rebinding)
    for (const address of ['127.0.0.1', '169.254.169.254', '10.0.0.1', '::ffff:127.0.0.1']) expect(mayConnect(address, []).ok).toBe(false);
    expect(mayConnect('93.184.216.34', []).ok).toBe(true);
    const rx = await receiver();
    const settings = { ...app.settings, webhooks: { ...app.settings.webhooks, allow: [] } };
    const agents = { http: new http.Agent(), https: new https.Agent() };
    const message = { body: '{}', headers: { 'content-type': 'application/json' } };
    const direct = await postMessage(settings.webhooks, agents, rx.url, message);
    expect(direct).toEqual({ status: null, error: expect.stringContaining('refused') });
    const byName = await postMessage(settings.webhooks, agents, rx.url.replace('127.0.0.1', 'localhost'), message);
    expect(byName.status).toBeNull();
    expect(byName.error).toContain('refused');
    expect(rx.received.length + rx.unverified.length).toBe(0);
    agents.http.destroy();
    agents.https.destroy();
    await new Promise<void>((resolve, reject) =>
      guardedLookup([])('localhost', {}, (error) => (error ? resolve() : reject(new Error('localhost was not refused')))),
    );
  }, 30_000);
});

describe('the pull feed', () => {
  it('serves events in order from any cursor, each key seeing only its own zones', async () => {
    await createZone(app, userId, 'ev-feed.test');
    await createZone(app, otherId, 'ev-feed-other.test');
    for (let i = 1; i <= 3; i++) await addRecord('ev-feed.test', `f${i}`, `192.0.2.${i}`, userKey);

    const all = await waitFor('the feed to hold the new zone changes', async () => {
      const page = await feed(ADMIN_KEY);
      return page.events.filter((e) => e.zone === 'ev-feed.test').length === 4 ? page : undefined;
    });
    expect(all.events.some((e) => e.zone === 'ev-feed-other.test')).toBe(true);
    for (const e of all.events) expect(Object.keys(e).sort()).toEqual(['data', 'id', 'timestamp', 'type', 'zone']);

    const mine = await feed(userKey);
    expect(mine.events.length).toBeGreaterThan(0);
    expect(mine.events.every((e) => !String(e.zone).startsWith('ev-other') && e.zone !== 'ev-feed-other.test')).toBe(true);
    expect(mine.events.filter((e) => e.zone === 'ev-feed.test').map((e) => e.type)).toEqual([
      'zone.created',
      'zone.changed',
      'zone.changed',
      'zone.changed',
    ]);

    // page by page from any cursor: the same events in the same order
    const paged: any[] = [];
    let cursor = '';
    for (;;) {
      const page = await feed(ADMIN_KEY, cursor, 3);
      if (!page.events.length) break;
      paged.push(...page.events);
      cursor = page.next;
    }
    expect(paged.map((e) => e.id)).toEqual(all.events.map((e) => e.id));
    // from a cursor in the middle: the rest
    const middle = await feed(ADMIN_KEY, '', 2);
    const rest = await feed(ADMIN_KEY, middle.next);
    expect([...middle.events, ...rest.events].map((e) => e.id)).toEqual(all.events.map((e) => e.id));

    const gql = await app.gql(`{ events(limit: 2) { events { id type zone data } next } }`, {}, userKey);
    expect(gql.errors).toBeUndefined();
    expect(gql.data.events.events.map((e: any) => Number(e.id))).toEqual(mine.events.slice(0, 2).map((e) => e.id));

    const badCursor = await app.http.get('/api/events').query({ after: 'nonsense' }).set('X-API-Key', userKey);
    expect(badCursor.status).toBe(422);
    expect(JSON.stringify(badCursor.body)).toContain('INVALID_CURSOR');
    expect((await app.http.get('/api/events')).status).toBe(401);
  }, 60_000);

  it('a key whose rules name one zone sees only that zone, and only the records it may read', async () => {
    await createZone(app, userId, 'ev-scope-a.test');
    await createZone(app, userId, 'ev-scope-b.test');
    const res = await app.gql(`mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }`, {
      input: { userId, name: 'scoped', policy: { rules: [{ zone: 'ev-scope-a.test', owner: 'web', access: 'READ' }] } },
    });
    expect(res.errors).toBeUndefined();
    const scoped = res.data.createApiKey.secret;
    await addRecord('ev-scope-a.test', 'web', '192.0.2.10');
    await addRecord('ev-scope-a.test', 'mail', '192.0.2.11');
    await addRecord('ev-scope-b.test', 'web', '192.0.2.12');
    const page = await waitFor('the scoped feed', async () => {
      const p = await feed(scoped);
      return p.events.filter((e) => e.type === 'zone.changed').length === 2 ? p : undefined;
    });
    expect(new Set(page.events.map((e) => e.zone))).toEqual(new Set(['ev-scope-a.test']));
    const owners = page.events.filter((e) => e.type === 'zone.changed').flatMap((e) => e.data.added.map((r: any) => r.owner));
    expect(owners).toEqual(['web']);
  }, 30_000);
});

describe("a view's overlay changes", () => {
  const SET = `mutation($z: String!, $v: String!, $o: String!, $t: String!, $a: OverlayAction!, $r: [OverlayRecordInput!]) {
    setViewOverlay(zone: $z, view: $v, owner: $o, type: $t, action: $a, records: $r) }`;
  const CLEAR = `mutation($z: String!, $v: String!, $o: String!, $t: String!) { clearViewOverlay(zone: $z, view: $v, owner: $o, type: $t) }`;

  it("each set and clear is one view.changed naming the view, the RRset, the action and the view's serial: the operator's event", async () => {
    const zone = 'ev-view.test';
    await createZone(app, userId, zone);
    await addRecord(zone, 'api', '203.0.113.7');
    const key = await createTsigKey(app, null, 'ev-inside-key');
    const made = await app.gql(`mutation($i: ViewInput!) { createView(input: $i) { id } }`, {
      i: { name: 'ev-inside', tsigKeyId: key.id, networks: ['10.0.0.0/8'] },
    });
    expect(made.errors).toBeUndefined();
    const rx = await receiver();
    const sub = await subscribe(ADMIN_KEY, rx.url, { events: ['view.changed'], zones: [zone] });
    rx.secrets = [sub.secret];

    const serials: number[] = [];
    const replace = await app.gql(SET, { z: zone, v: 'ev-inside', o: 'api', t: 'A', a: 'REPLACE', r: [{ rdata: '10.1.2.3', ttl: 300 }] });
    expect(replace.errors).toBeUndefined();
    serials.push(replace.data.setViewOverlay);
    const hide = await app.gql(SET, { z: zone, v: 'ev-inside', o: 'www', t: 'TXT', a: 'HIDE' });
    expect(hide.errors).toBeUndefined();
    serials.push(hide.data.setViewOverlay);
    // a refused overlay (no such view) steps nothing and tells nothing
    expect((await app.gql(CLEAR, { z: zone, v: 'ev-nowhere', o: 'api', t: 'A' })).errors?.[0].extensions.code).toBe('VIEW_NOT_FOUND');
    const clear = await app.gql(CLEAR, { z: zone, v: 'ev-inside', o: 'api', t: 'A' });
    expect(clear.errors).toBeUndefined();
    serials.push(clear.data.clearViewOverlay);
    expect(serials[1]).toBe(serials[0] + 1);
    expect(serials[2]).toBe(serials[1] + 1);

    await waitUntil('three view.changed delivered', () => rx.typesOf(zone).length >= 3);
    expect(rx.unverified).toEqual([]);
    // each names its view by id too, and its author as a zone.changed does (the admin key: no user)
    const viewId = made.data.createView.id;
    const author = { keyId: expect.any(Number), keyName: expect.any(String) };
    const expected = [
      {
        zone,
        view: 'ev-inside',
        viewId: Number(viewId),
        owner: 'api',
        type: 'A',
        action: 'replace',
        serial: serials[0],
        records: [{ ttl: 300, rdata: '10.1.2.3' }],
        author,
      },
      {
        zone,
        view: 'ev-inside',
        viewId: Number(viewId),
        owner: 'www',
        type: 'TXT',
        action: 'hide',
        serial: serials[1],
        records: [],
        author,
      },
      {
        zone,
        view: 'ev-inside',
        viewId: Number(viewId),
        owner: 'api',
        type: 'A',
        action: 'clear',
        serial: serials[2],
        records: [],
        author,
      },
    ];
    expect(rx.received.filter((r) => r.zone === zone).map((r) => [r.type, r.data])).toEqual(expected.map((data) => ['view.changed', data]));
    // the feed: the operator reads them in the same order; the zone's owner, who may not read views, does not
    const all = await feed(ADMIN_KEY);
    expect(all.events.filter((e) => e.type === 'view.changed' && e.zone === zone).map((e) => e.data)).toEqual(expected);
    const mine = await feed(userKey);
    expect(mine.events.some((e) => e.zone === zone && e.type === 'zone.created')).toBe(true);
    expect(mine.events.filter((e) => e.type === 'view.changed')).toEqual([]);
    await app.http.delete(`/api/webhook/delete/${sub.id}`).set('X-API-Key', ADMIN_KEY);
  }, 30_000);
});

describe('one feed, three readers', () => {
  // a change whose transaction took its journal id and event id early and commits late, behind more than a
  // thousand others that committed meanwhile (what a slow transaction beside a busy zone does): the webhooks,
  // the pull feed and a live subscription each deliver it, since each reads the events in the feed's order
  it('a change committed late behind more than 1,000 others reaches every feed', async () => {
    await createZone(app, userId, 'ev-late.test');
    await createZone(app, userId, 'ev-busy.test');
    const rx = await receiver();
    rx.secrets = [(await subscribe(userKey, rx.url, { events: ['zone.changed'], zones: ['ev-late.test'] })).secret];
    const before = await feed(userKey, '', 1);
    let cursor = before.next;
    for (let page = await feed(userKey, cursor); page.events.length; page = await feed(userKey, cursor)) cursor = page.next;

    const live: any[] = [];
    const ws = createClient({
      url: app.baseUrl.replace('http', 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': userKey },
      retryAttempts: 0,
    });
    const stop = ws.subscribe(
      { query: `subscription { zoneChanged(zone: "ev-late.test") { change { id added { owner rdata } } } }` },
      { next: (value) => live.push(value), error: (error) => live.push({ error }), complete: () => undefined },
    );
    await waitUntil('the subscription registered', () => app.service.services.liveUpdates.subscriberCount() === 1);

    const late = new PgClient({ connectionString: app.service.settings.databaseUrl });
    const busy = new PgClient({ connectionString: app.service.settings.databaseUrl });
    await late.connect();
    await busy.connect();
    try {
      // the late change: its journal row and event, as a change's statement writes them, in a transaction left open
      await late.query('begin');
      await late.query(
        `with chg as (insert into changes (domain_id, zone, kind, serial_before, serial_after, added, removed, published_at)
           select id, name, 'zone-changed', serial, serial + 1, '[{"owner": "late", "type": "A", "ttl": 3600, "rdata": "192.0.2.77"}]', '[]', now()
             from domains where name = 'ev-late.test' returning id, domain_id, zone, serial_before, serial_after)
         insert into events (type, domain_id, zone, user_id, change_id, data)
           select 'zone.changed', chg.domain_id, chg.zone, d.user_id, chg.id,
                  jsonb_build_object('zone', chg.zone, 'serial', chg.serial_after, 'serialBefore', chg.serial_before)
             from chg join domains d on d.id = chg.domain_id`,
      );
      // 1,001 changes of another zone, each with its event, committed while the late one is open
      await busy.query(
        `with chg as (insert into changes (domain_id, zone, kind, serial_before, serial_after, added, removed, published_at)
           select id, name, 'zone-changed', serial + n - 1, serial + n, '[]', '[]', now()
             from domains, generate_series(1, 1001) n where name = 'ev-busy.test' returning id, domain_id, zone, serial_after)
         insert into events (type, domain_id, zone, user_id, change_id, data)
           select 'zone.changed', chg.domain_id, chg.zone, d.user_id, chg.id, jsonb_build_object('zone', chg.zone, 'serial', chg.serial_after)
             from chg join domains d on d.id = chg.domain_id order by chg.id`,
      );
      await busy.query(`select pg_notify('zonekeeper_changes', '')`);
      // the readers read what settled meanwhile: nothing of the late change yet
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(live).toEqual([]);
      await late.query('commit');
      await late.query(`select pg_notify('zonekeeper_changes', '')`);

      const [{ id: lateId }] = (await late.query(`select max(id) as id from changes where zone = 'ev-late.test'`)).rows;
      await waitUntil('the late change on the live subscription', () => live.length > 0);
      expect(live[0].data.zoneChanged.change).toEqual({ id: String(lateId), added: [{ owner: 'late', rdata: '192.0.2.77' }] });
      const pulled = await waitFor('the late change on the pull feed', async () => {
        const events: any[] = [];
        for (
          let after = cursor, page = await feed(userKey, after);
          page.events.length;
          after = page.next, page = await feed(userKey, after)
        )
          events.push(...page.events);
        return events.some((e) => e.zone === 'ev-late.test') ? events : undefined;
      });
      expect(pulled.filter((e) => e.zone === 'ev-busy.test')).toHaveLength(1001);
      // in the feed's order: the late change first, its transaction being the older
      expect(pulled.filter((e) => e.type === 'zone.changed')[0]).toEqual(
        expect.objectContaining({ zone: 'ev-late.test', data: expect.objectContaining({ changeId: Number(lateId) }) }),
      );
      await waitUntil('the late change delivered to the webhook', () => rx.typesOf('ev-late.test').includes('zone.changed'));
      expect(rx.received.find((r) => r.zone === 'ev-late.test')?.data).toEqual(expect.objectContaining({ changeId: Number(lateId) }));
    } finally {
      stop();
      await ws.dispose();
      await late.end();
      await busy.end();
    }
  }, 60_000);
});
