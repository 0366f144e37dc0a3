/**
 * DNSSEC key events (docs/dnssec.md, «Key events») on a real service with its worker, accelerated timings
 * (TTLs of 1 s, a propagation delay of 1 s; RFC 7583): enabling DNSSEC shows the new keys' events in the zone's
 * history (`Domain.dnssecEvents`); a ZSK roll by hand arrives on the `dnssecKeyChanged` subscription
 * (graphql-ws) step by step, in order, as the worker takes the steps; a KSK roll whose parent is elsewhere
 * swaps on the operator's confirmation (`ds-confirmed`); disabling (RFC 8078: DS-delete first, unsigned once the
 * DS is confirmed gone) removes every key. Meanwhile the user's
 * history (`Domain.changes`) and `zoneChanged` still show no signer step, though the journal holds them; and a
 * key that may not read the zone's DNSKEY is refused both.
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { loadSettings } from '../../src/config/settings';
import { RunningService, startService } from '../../src/main';
import { ADMIN_KEY as ADMIN, startTestApp, TestApp } from '../support/test-app';
import { createUser, createUserKey, createZone, errorCode } from '../support/fixtures';
import { waitFor, waitUntil } from '../support/wait-for';

const ZONE = 'events.zk-keys.test';

let app: TestApp;
let userId: string;
let userKey: string;
let db: PgClient;
const clients: Client[] = [];

beforeAll(async () => {
  app = await startTestApp({ ROLES: 'api,worker', ALLOWED_TTLS: 'any', DNSSEC_PROPAGATION_DELAY: '1' });
  userId = await createUser(app, 'keys@example.org');
  userKey = await createUserKey(app, userId);
  await createZone(app, userId, ZONE);
  const imported = await app.gql(`mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t) { serial } }`, {
    z: ZONE,
    t: `$ORIGIN ${ZONE}.\n@ 1 IN SOA ns1.${ZONE}. hostmaster.${ZONE}. 1 7200 3600 1209600 1\n@ 1 IN NS ns1.${ZONE}.\nns1 1 IN A 192.0.2.1\nwww 1 IN A 192.0.2.2\n`,
  });
  expect(imported.errors).toBeUndefined();
  db = new PgClient({ connectionString: app.settings.databaseUrl });
  await db.connect();
}, 60_000);

afterEach(async () => {
  for (const client of clients.splice(0)) await client.dispose();
});

afterAll(async () => {
  await db?.end();
  await app?.close();
});

interface Event {
  id: string;
  keyId: string;
  keyTag: number;
  role: string;
  algorithm: string;
  fromState: string | null;
  toState: string;
  reason: string;
  at: string;
}

const EVENT_FIELDS = 'id keyId keyTag role algorithm fromState toState reason at';

async function gqlOk(query: string, variables: Record<string, unknown> = {}, key?: string): Promise<any> {
  const res = await app.gql(query, variables, key);
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data;
}

/** the zone's key events, oldest first (the connection gives them newest first) */
async function history(): Promise<Event[]> {
  const data = await gqlOk(`query($z: String) { domain(name: $z) { dnssecEvents(first: 100) { totalCount nodes { ${EVENT_FIELDS} } } } }`, {
    z: ZONE,
  });
  expect(data.domain.dnssecEvents.totalCount).toBe(data.domain.dnssecEvents.nodes.length);
  return [...data.domain.dnssecEvents.nodes].reverse();
}

async function keys(): Promise<{ id: string; keyTag: number; role: string; state: string }[]> {
  return (await gqlOk(`query($z: String) { domain(name: $z) { dnssec { keys { id keyTag role state } } } }`, { z: ZONE })).domain.dnssec
    .keys;
}

/** a graphql-ws client of the service */
function connect(key: string): Client {
  const client = createClient({
    url: app.baseUrl.replace('http', 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { 'x-api-key': key },
    retryAttempts: 0,
  });
  clients.push(client);
  return client;
}

/** subscribes and collects what arrives (events and errors) */
function subscribe(client: Client, query: string, variables: Record<string, unknown>) {
  const events: any[] = [];
  const errors: any[] = [];
  const stop = client.subscribe(
    { query, variables },
    { next: (value) => events.push(value), error: (error) => errors.push(error), complete: () => undefined },
  );
  return { events, errors, stop };
}

const subscriptionsHeld = () => app.service.services.liveUpdates.subscriberCount();

const KEY_CHANGED = `subscription($zone: String!) { dnssecKeyChanged(zone: $zone) { zone event { ${EVENT_FIELDS} } } }`;
const KEY_CHANGED_AFTER = `subscription($zone: String!, $after: ID) { dnssecKeyChanged(zone: $zone, after: $after) { zone event { ${EVENT_FIELDS} } } }`;
const ZONE_CHANGED = `subscription($zone: String!) { zoneChanged(zone: $zone) { change { kind added { owner type } } } }`;

/** what an event says, without its ids and time */
const step = (e: Event) => ({ keyTag: e.keyTag, role: e.role, fromState: e.fromState, toState: e.toState, reason: e.reason });

describe('DNSSEC key events', () => {
  let ksk: number;
  let zsk: number;
  let afterEnable: number;

  it('enabling DNSSEC shows the new keys as active in the history, not in the user changes', async () => {
    const enabled = await gqlOk(
      `mutation($z: String!) { enableDnssec(input: {zone: $z}) { keys { keyTag role state } } }`,
      { z: ZONE },
      userKey,
    );
    ksk = enabled.enableDnssec.keys.find((k: any) => k.role === 'KSK').keyTag;
    zsk = enabled.enableDnssec.keys.find((k: any) => k.role === 'ZSK').keyTag;
    const events = await history();
    expect(events.map(step)).toEqual([
      { keyTag: ksk, role: 'KSK', fromState: null, toState: 'active', reason: 'enabled' },
      { keyTag: zsk, role: 'ZSK', fromState: null, toState: 'active', reason: 'enabled' },
    ]);
    expect(events.every((e) => e.algorithm === 'ECDSAP256SHA256')).toBe(true);
    const stored = await keys();
    expect(events.map((e) => e.keyId).sort()).toEqual(stored.map((k) => k.id).sort());
    afterEnable = events.length;
    // the same over REST, newest first, in snake_case
    const rest = await app.http.get(`/api/domain/dnssec/${ZONE}/events`).set('X-API-Key', userKey);
    expect(rest.status).toBe(200);
    expect(rest.body).toEqual(
      [...events].reverse().map((e) => ({
        id: Number(e.id),
        key_id: Number(e.keyId),
        key_tag: e.keyTag,
        role: e.role,
        algorithm: e.algorithm,
        from_state: e.fromState,
        to_state: e.toState,
        reason: e.reason,
        at: e.at,
      })),
    );
    const changes = await gqlOk(`query($z: String) { domain(name: $z) { changes(first: 100) { nodes { kind } } } }`, { z: ZONE });
    expect(changes.domain.changes.nodes.map((n: any) => n.kind)).toEqual(['zone-changed', 'zone-created']);
  });

  it('a ZSK roll by hand arrives on dnssecKeyChanged step by step, in order, while zoneChanged stays quiet', async () => {
    const client = connect(userKey);
    const keySub = subscribe(client, KEY_CHANGED, { zone: ZONE });
    const zoneSub = subscribe(client, ZONE_CHANGED, { zone: ZONE });
    await waitUntil('both subscriptions registered', () => subscriptionsHeld() >= 2);

    const rolled = await gqlOk(
      `mutation($z: String!) { rollDnssecKey(zone: $z, role: ZSK) { keys { keyTag role state } } }`,
      { z: ZONE },
      userKey,
    );
    const fresh = rolled.rollDnssecKey.keys.find((k: any) => k.role === 'ZSK' && k.state === 'published').keyTag;
    // published by hand, then (the DNSKEY TTL + the delay later) active with the old one retired, then (the
    // zone's largest TTL + the delay later) the old one removed: the worker's steps
    await waitUntil('the roll to end (four key events)', () => keySub.events.length >= 4 || keySub.errors.length > 0, 60_000, 50);
    expect(keySub.errors).toEqual([]);
    const arrived: Event[] = keySub.events.map((e) => e.data.dnssecKeyChanged.event);
    expect(keySub.events.every((e) => e.data.dnssecKeyChanged.zone === ZONE)).toBe(true);
    expect(arrived.map(step)).toEqual([
      { keyTag: fresh, role: 'ZSK', fromState: null, toState: 'published', reason: 'rolled-by-hand' },
      { keyTag: zsk, role: 'ZSK', fromState: 'active', toState: 'retired', reason: 'scheduled' },
      { keyTag: fresh, role: 'ZSK', fromState: 'published', toState: 'active', reason: 'scheduled' },
      { keyTag: zsk, role: 'ZSK', fromState: 'retired', toState: 'removed', reason: 'scheduled' },
    ]);
    // in the order they committed, each once
    const ids = arrived.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    // the history holds the same events after the enable's
    expect((await history()).slice(afterEnable)).toEqual(arrived);
    // a subscription resumed after the enable's last event is sent the roll's four steps from the past, in order
    const enabledEvents = (await history()).slice(0, afterEnable);
    const resumed = subscribe(client, KEY_CHANGED_AFTER, { zone: ZONE, after: enabledEvents[enabledEvents.length - 1].id });
    await waitUntil(
      'the resumed subscription to be sent the roll',
      () => resumed.events.length >= 4 || resumed.errors.length > 0,
      10_000,
      50,
    );
    expect(resumed.events.map((e) => e.data.dnssecKeyChanged.event)).toEqual(arrived);
    resumed.stop();

    // the journal holds the roll's signer steps, and neither zoneChanged nor the user's history shows one: the
    // first zoneChanged event is the user's next change
    const signed = await db.query(`select count(*)::int as n from changes where zone = $1 and kind = 'zone-signed'`, [ZONE]);
    expect(signed.rows[0].n).toBeGreaterThanOrEqual(4);
    expect(zoneSub.events).toEqual([]);
    await gqlOk(
      `mutation($z: String!) { applyZoneChanges(zone: $z, changes: [{kind: ADD, owner: "after-roll", type: "A", rdata: "192.0.2.9", ttl: 1}]) { serial } }`,
      { z: ZONE },
      userKey,
    );
    await waitUntil('the user change on zoneChanged', () => zoneSub.events.length >= 1 || zoneSub.errors.length > 0);
    const change = zoneSub.events[0].data.zoneChanged.change;
    expect(change.kind).toBe('zone-changed');
    expect(change.added.filter((r: any) => r.type !== 'SOA')).toEqual([{ owner: 'after-roll', type: 'A' }]);
    const changes = await gqlOk(`query($z: String) { domain(name: $z) { changes(first: 100) { totalCount nodes { kind } } } }`, {
      z: ZONE,
    });
    const kinds = changes.domain.changes.nodes.map((n: any) => n.kind);
    expect(kinds).not.toContain('zone-signed');
    expect(kinds).toContain('zone-changed');
    expect(changes.domain.changes.totalCount).toBe(kinds.length);
    keySub.stop();
    zoneSub.stop();
    zsk = fresh;
  }, 90_000);

  it('pages the history newest first', async () => {
    const all = (await history()).reverse();
    const first = await gqlOk(
      `query($z: String) { domain(name: $z) { dnssecEvents(first: 2) { pageInfo { hasNextPage endCursor } nodes { id } } } }`,
      { z: ZONE },
    );
    expect(first.domain.dnssecEvents.nodes.map((n: any) => n.id)).toEqual(all.slice(0, 2).map((e) => e.id));
    expect(first.domain.dnssecEvents.pageInfo.hasNextPage).toBe(true);
    const next = await gqlOk(
      `query($z: String, $a: String) { domain(name: $z) { dnssecEvents(first: 100, after: $a) { pageInfo { hasNextPage } nodes { id } } } }`,
      {
        z: ZONE,
        a: first.domain.dnssecEvents.pageInfo.endCursor,
      },
    );
    expect(next.domain.dnssecEvents.nodes.map((n: any) => n.id)).toEqual(all.slice(2).map((e) => e.id));
    expect(next.domain.dnssecEvents.pageInfo.hasNextPage).toBe(false);
  });

  it('a KSK roll whose parent is elsewhere swaps on the confirmation (ds-confirmed), then withdraws the old key', async () => {
    const before = (await history()).length;
    const rolled = await gqlOk(
      `mutation($z: String!) { rollDnssecKey(zone: $z, role: KSK) { keys { keyTag role state } } }`,
      { z: ZONE },
      userKey,
    );
    const fresh = rolled.rollDnssecKey.keys.find((k: any) => k.role === 'KSK' && k.state === 'generated').keyTag;
    // no parent here: the roll waits for the operator's word
    expect((await history()).slice(before).map(step)).toEqual([
      { keyTag: fresh, role: 'KSK', fromState: null, toState: 'generated', reason: 'rolled-by-hand' },
    ]);
    await gqlOk(`mutation($z: String!) { confirmDnssecDsPublished(zone: $z) { zone } }`, { z: ZONE }, userKey);
    const events = await waitFor(
      'the KSK roll to end',
      async () => {
        const now = (await history()).slice(before);
        return now.length >= 4 ? now : undefined;
      },
      60_000,
      250,
    );
    expect(events.map(step)).toEqual([
      { keyTag: fresh, role: 'KSK', fromState: null, toState: 'generated', reason: 'rolled-by-hand' },
      { keyTag: ksk, role: 'KSK', fromState: 'active', toState: 'retired', reason: 'ds-confirmed' },
      { keyTag: fresh, role: 'KSK', fromState: 'generated', toState: 'active', reason: 'ds-confirmed' },
      { keyTag: ksk, role: 'KSK', fromState: 'retired', toState: 'removed', reason: 'scheduled' },
    ]);
    ksk = fresh;
  }, 90_000);

  it('refuses a key that may not read the zone’s DNSKEY, in the history and on the subscription', async () => {
    const acme = await gqlOk(
      `mutation($u: ID!, $z: String) { createApiKey(input: {userId: $u, name: "acme", preset: ACME, zone: $z}) { secret } }`,
      { u: userId, z: ZONE },
    );
    const key = acme.createApiKey.secret;
    const listed = await app.gql(`query($z: String) { domain(name: $z) { dnssecEvents { nodes { id } } } }`, { z: ZONE }, key);
    expect(errorCode(listed)).toBe('FORBIDDEN_BY_POLICY');
    const sub = subscribe(connect(key), KEY_CHANGED, { zone: ZONE });
    await waitUntil('the subscription refused', () => sub.errors.length > 0 || sub.events.length > 0);
    expect(JSON.stringify(sub.errors.length ? sub.errors : sub.events)).toContain('FORBIDDEN_BY_POLICY');
    // a READ_ONLY key reads the DNSKEY, so it sees the events
    const reader = await gqlOk(
      `mutation($u: ID!, $z: String) { createApiKey(input: {userId: $u, name: "reader", preset: READ_ONLY, zone: $z}) { secret } }`,
      { u: userId, z: ZONE },
    );
    const read = await gqlOk(
      `query($z: String) { domain(name: $z) { dnssecEvents { totalCount } } }`,
      { z: ZONE },
      reader.createApiKey.secret,
    );
    expect(read.domain.dnssecEvents.totalCount).toBe((await history()).length);
    // the ACME key still reads what it may: its zone's changes
    expect(errorCode(await app.gql(`query($z: String) { domain(name: $z) { changes { totalCount } } }`, { z: ZONE }, key))).toBeUndefined();
  });

  it('disabling removes every key (disabled), and the events outlive the destroyed keys', async () => {
    await waitUntil('the earlier subscriptions to end', () => subscriptionsHeld() === 0);
    const client = connect(userKey);
    const sub = subscribe(client, KEY_CHANGED, { zone: ZONE });
    await waitUntil('the subscription registered', () => subscriptionsHeld() >= 1);
    const before = (await history()).length;
    // RFC 8078: the zone first publishes the DS-delete pair and stays signed; its keys do not move yet
    const disabling = await gqlOk(`mutation($z: String!) { disableDnssec(zone: $z) { state } }`, { z: ZONE }, userKey);
    expect(disabling.disableDnssec.state).toBe('disabling');
    expect((await history()).length).toBe(before);
    // no parent here and no DNSSEC_PARENT_DS_SERVERS: the operator's word that the DS is gone; the worker
    // unsigns the zone after the DS TTL plus the propagation delay
    await gqlOk(`mutation($z: String!) { confirmDnssecDsRemoved(zone: $z) { state } }`, { z: ZONE }, userKey);
    await waitUntil('the worker to unsign the zone', async () => (await history()).length >= before + 2, 30_000);
    // in the keys' order: the ZSK was made by the earlier roll
    const expected = [
      { keyTag: zsk, role: 'ZSK', fromState: 'active', toState: 'removed', reason: 'disabled' },
      { keyTag: ksk, role: 'KSK', fromState: 'active', toState: 'removed', reason: 'disabled' },
    ];
    expect((await history()).slice(before).map(step)).toEqual(expected);
    await waitUntil('the removals on the subscription', () => sub.events.length >= 2 || sub.errors.length > 0);
    expect(sub.events.map((e) => step(e.data.dnssecKeyChanged.event))).toEqual(expected);
    expect(await keys()).toEqual([]);
    sub.stop();
  });
});

describe('a key past its lifetime, rolled by a worker in another process', () => {
  let api: TestApp;
  let worker: RunningService;
  // both processes seal and open the zone's keys: one key-encryption key
  const kek = randomBytes(32).toString('base64');

  beforeAll(async () => {
    api = await startTestApp({ ROLES: 'api', DNSSEC_KEY_ENCRYPTION_KEY: kek });
    // the worker (its own pool and LISTEN connection, as another process has) where a ZSK lives 2 s: it starts
    // the roll by itself, and the API process's subscribers hear of it through the journal's NOTIFY
    worker = await startService(
      loadSettings({
        DATABASE_URL: api.settings.databaseUrl!,
        API_KEY: ADMIN,
        PORT: '0',
        HOST: '127.0.0.1',
        DNS_LISTEN: '',
        ROLES: 'worker',
        LOG_LEVEL: 'silent',
        ALLOWED_TTLS: 'any',
        DNSSEC_PROPAGATION_DELAY: '1',
        DNSSEC_ZSK_LIFETIME: '2',
        DNSSEC_KEY_ENCRYPTION_KEY: kek,
      }),
    );
    const user = await createUser(api, 'lifetime@example.org');
    await createZone(api, user, 'lifetime.zk-keys.test');
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
  });

  it('starts its roll by itself (lifetime), and the step arrives on dnssecKeyChanged', async () => {
    const client = createClient({
      url: api.baseUrl.replace('http', 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': ADMIN },
      retryAttempts: 0,
    });
    clients.push(client);
    const sub = subscribe(client, KEY_CHANGED, { zone: 'lifetime.zk-keys.test' });
    await waitUntil('the subscription registered', () => api.service.services.liveUpdates.subscriberCount() >= 1);
    const enabled = await api.gql(`mutation { enableDnssec(input: {zone: "lifetime.zk-keys.test"}) { keys { keyTag role } } }`);
    expect(enabled.errors).toBeUndefined();
    const zsk = enabled.data.enableDnssec.keys.find((k: any) => k.role === 'ZSK').keyTag;
    await waitUntil(
      'the lifetime roll',
      () => sub.events.some((e) => e.data.dnssecKeyChanged.event.reason === 'lifetime') || sub.errors.length > 0,
      30_000,
    );
    expect(sub.errors).toEqual([]);
    const arrived: Event[] = sub.events.map((e) => e.data.dnssecKeyChanged.event);
    // the enable's two keys, then the new ZSK published because the old one's lifetime is over
    expect(arrived.slice(0, 3).map((e) => [e.role, e.fromState, e.toState, e.reason])).toEqual([
      ['KSK', null, 'active', 'enabled'],
      ['ZSK', null, 'active', 'enabled'],
      ['ZSK', null, 'published', 'lifetime'],
    ]);
    expect(arrived[1].keyTag).toBe(zsk);
    expect(arrived[2].keyTag).not.toBe(zsk);
  }, 60_000);
});
