import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { loadSettings } from '../../src/config/settings';
import { ensureDatabase } from '../../src/db/database';
import { RunningPostgres, startEmbeddedPostgres } from '../../src/db/embedded-postgres';
import { RunningService, startService } from '../../src/main';
import { ADMIN_KEY } from '../support/test-app';
import { freePort } from '../support/free-port';
import { sleep, waitFor, waitUntil } from '../support/wait-for';
import { Answer, WebhookReceiver } from '../support/webhook-receiver';

/**
 * Events out under faults (docs/events.md, «Guarantees»): a burst of record creations over REST in eight zones, 16 at a time,
 * while the PostgreSQL the service uses (a cluster of this test's own, never the shared one) is stopped with a
 * fast shutdown and started again, and while the webhook receiver (a real HTTP server here, verifying every
 * signature with the Standard Webhooks library and the subscription's secret) answers 500, never answers, or
 * answers after the service stopped waiting, for part of the burst. Every acknowledged write has exactly one
 * `zone.changed` event in the feed, and it reaches the receiver at least once, in order of serial per zone,
 * under one `webhook-id` on every attempt; a refused write has no event.
 */
const ZONES = ['wf-a.test', 'wf-b.test', 'wf-c.test', 'wf-d.test', 'wf-e.test', 'wf-f.test', 'wf-g.test', 'wf-h.test'];
const WRITES = 300;
const AT_ONCE = 16;
const TIMEOUT_MS = 800;

/**
 * The endpoint's answers: of its first `faulty.requests` requests, one is answered 500 (a third), never (a sixth: the
 * service's WEBHOOK_TIMEOUT_MS ends it), or with a 200 after that timeout (a sixth: the receiver took it, the service
 * saw a failure and sends it again: the duplicate a receiver dedupes by webhook-id); else 200 at once. What a 2xx
 * (or the late 200) took is what the receiver acted on.
 */
const faulty = { requests: 0 };
const faultyAnswer = (_req: unknown, index: number): Answer => {
  const roll = Math.random();
  if (index >= faulty.requests || roll >= 2 / 3) return 200;
  return roll < 1 / 3 ? 500 : roll < 1 / 2 ? 'hang' : { status: 200, afterMs: TIMEOUT_MS + 400 };
};
const late = (answered: Answer) => typeof answered === 'object';

/** webhook-id → the verified message, in the order first taken */
function takenBy(receiver: WebhookReceiver): Map<string, { type: string; data: any }> {
  const taken = new Map<string, { type: string; data: any }>();
  for (const message of receiver.received) if (!taken.has(message.id)) taken.set(message.id, message);
  return taken;
}

describe('webhooks through a PostgreSQL restart and a failing receiver', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-webhook-faults-pg-'));
  const receiver = new WebhookReceiver();
  receiver.answer = faultyAnswer;
  let port: number;
  let cluster: RunningPostgres | undefined;
  let service: RunningService;
  let api: ReturnType<typeof request>;

  const startCluster = async () => {
    cluster = await startEmbeddedPostgres({ dir, persistent: true, port });
  };
  const stopCluster = async () => {
    await cluster?.stop();
    cluster = undefined;
  };
  const gql = (query: string, variables?: Record<string, unknown>) =>
    api.post('/graphql').set('X-API-Key', ADMIN_KEY).set('content-type', 'application/json').send({ query, variables });

  beforeAll(async () => {
    port = await freePort();
    await startCluster();
    const databaseUrl = await ensureDatabase(cluster!.adminUrl, 'zk_webhook_faults');
    await receiver.start();
    const settings = loadSettings({
      DATABASE_URL: databaseUrl,
      API_KEY: ADMIN_KEY,
      PORT: '0',
      HOST: '127.0.0.1',
      DNS_LISTEN: '',
      SECONDARIES: '',
      ROLES: 'api,worker',
      LOG_LEVEL: 'silent',
      HEALTH_CHECK_INTERVAL: '0',
      WEBHOOK_ALLOW: '127.0.0.0/8',
      WEBHOOK_RETRY_BASE_MS: '100',
      WEBHOOK_RETRY_MAX_SECONDS: '1',
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_CONNECT_TIMEOUT_MS: '500',
    });
    service = await startService(settings);
    api = request(`http://127.0.0.1:${service.httpPort}`);
    const user = await gql('mutation { createUser(input: {email: "webhook-faults@example.org"}) { id } }');
    expect(user.body.errors).toBeUndefined();
    for (const zone of ZONES) {
      const created = await gql('mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }', {
        u: user.body.data.createUser.id,
        z: zone,
      });
      expect(created.body.errors).toBeUndefined();
    }
    const sub = await api
      .post('/api/webhook/add')
      .set('X-API-Key', ADMIN_KEY)
      .send({ url: receiver.url, events: ['zone.changed'], zones: ZONES });
    expect(sub.status).toBe(201);
    receiver.secrets = [sub.body.secret];
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await stopCluster();
    await receiver.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every acknowledged change: one event in the feed, delivered at least once, in serial order per zone, one webhook-id', async () => {
    const started = Date.now();
    const acknowledged = new Map<string, string>(); // owner → zone
    const refused = new Map<string, number>(); // owner → status
    let next = 0;
    const writer = async () => {
      while (acknowledged.size < WRITES && next < WRITES * 10) {
        const n = next++;
        const zone = ZONES[n % ZONES.length];
        // one write in twelve is invalid (an A record's rdata that is no address): refused with a 4xx, never an event
        const bad = n % 12 === 5;
        const owner = `${bad ? 'bad' : 'w'}${n}`;
        const res = await api
          .post('/api/record/add')
          .set('X-API-Key', ADMIN_KEY)
          .send({ zone, owner, rtype: 'A', rdata: bad ? 'not-an-address' : `198.51.100.${(n % 250) + 1}`, ttl: 3600 });
        if (res.status === 201) acknowledged.set(owner, zone);
        else refused.set(owner, res.status);
        if (res.status === 503) await sleep(20);
      }
    };
    // a zone's queue waits on each of its failures (a timeout, a retry's delay): enough of them to retry, spread over
    // eight zones, not so many that the queues take a minute
    faulty.requests = 80;
    const writers = Array.from({ length: AT_ONCE }, writer);
    await waitUntil('writes acknowledged before the outage', () => acknowledged.size >= 80, 30_000);
    await stopCluster();
    await waitUntil('writes refused with 503 during the outage', () => [...refused.values()].filter((s) => s === 503).length >= 8, 30_000);
    await startCluster();
    const back = Date.now();
    await Promise.all(writers);
    const burstMs = Date.now() - started;

    // the writers stop once 300 are acknowledged; those under way then are answered too
    expect(acknowledged.size).toBeGreaterThanOrEqual(WRITES);
    const statuses = new Set(refused.values());
    expect(statuses.has(503)).toBe(true);
    expect([...statuses].every((s) => s === 503 || s === 422)).toBe(true);
    expect([...refused.keys()].some((owner) => owner.startsWith('bad'))).toBe(true);

    // the feed: every change of the eight zones, each acknowledged owner named by exactly one zone.changed event
    const readFeed = async () => {
      const events: any[] = [];
      let after = '';
      for (;;) {
        const res = await api.get('/api/events').query({ after, limit: 1000, types: 'zone.changed' }).set('X-API-Key', ADMIN_KEY);
        expect(res.status).toBe(200);
        if (!res.body.events.length) return events.filter((e) => ZONES.includes(e.zone));
        events.push(...res.body.events);
        after = res.body.next;
      }
    };
    const events = await waitFor('the feed to hold every acknowledged change', async () => {
      const all = await readFeed();
      return all.length >= acknowledged.size ? all : undefined;
    });
    const eventsOf = new Map<string, number[]>();
    for (const event of events)
      for (const record of event.data.added)
        if (record.type === 'A') eventsOf.set(record.owner, [...(eventsOf.get(record.owner) ?? []), event.id]);
    expect([...acknowledged.keys()].filter((owner) => eventsOf.get(owner)?.length !== 1)).toEqual([]);
    expect([...refused.keys()].filter((owner) => eventsOf.has(owner))).toEqual([]);
    expect(events.length).toBe(acknowledged.size);
    for (const event of events) expect(event.data.zone).toBe(acknowledged.get(event.data.added.find((r: any) => r.type === 'A').owner));

    // the receiver: every event taken at least once, verified, each webhook-id the event's on every attempt
    await waitUntil(
      'every event delivered',
      () => {
        const taken = takenBy(receiver);
        return events.every((e) => taken.has(`evt_${e.id}`));
      },
      45_000,
    );
    // what the outage kept from being stored (deliveries the receiver took, failures) was stored on the database's
    // return, not left to the deliveries' leases (WEBHOOK_CONNECT_TIMEOUT_MS + WEBHOOK_TIMEOUT_MS + 30 s = 32 s here),
    // their zones' queues held until then
    const deliveredAfterReturnMs = Date.now() - back;
    expect(deliveredAfterReturnMs).toBeLessThan(25_000);
    expect(receiver.unverified).toEqual([]);
    const byId = new Map(events.map((e) => [`evt_${e.id}`, e]));
    for (const attempt of receiver.requests) {
      const event = byId.get(attempt.id);
      expect(event).toBeDefined();
      const sent = JSON.parse(attempt.body);
      expect({ zone: sent.data.zone, serial: sent.data.serial }).toEqual({ zone: event.zone, serial: event.data.serial });
    }
    const attemptsOf = new Map<string, number>();
    for (const attempt of receiver.requests) attemptsOf.set(attempt.id, (attemptsOf.get(attempt.id) ?? 0) + 1);
    const retried = [...attemptsOf.values()].filter((n) => n > 1).length;
    expect(retried).toBeGreaterThan(0);
    expect(receiver.requests.some((a) => late(a.answered))).toBe(true);

    // in order per zone: the serials of a zone's events in the order the receiver first took them rise
    for (const zone of ZONES) {
      const serials = [...takenBy(receiver).values()].filter((m) => m.data.zone === zone).map((m) => m.data.serial as number);
      expect(serials.length).toBe(events.filter((e) => e.zone === zone).length);
      expect(serials).toEqual([...serials].sort((a, b) => a - b));
    }
    const duplicates = receiver.requests.filter((a) => a.answered === 200 || late(a.answered)).length - takenBy(receiver).size;
    console.log(
      `webhook faults: ${acknowledged.size} writes acknowledged, ${refused.size} refused, burst ${burstMs} ms; ` +
        `${receiver.requests.length} delivery attempts for ${events.length} events (${retried} retried, ${duplicates} taken twice), ` +
        `all delivered ${Date.now() - started} ms after the burst began, ${deliveredAfterReturnMs} ms after the database's return`,
    );
  }, 120_000);
});
