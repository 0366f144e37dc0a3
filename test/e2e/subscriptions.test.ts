import { Client as PgClient } from 'pg';
import { Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, createUserKey, createZone } from '../support/fixtures';
import { waitUntil } from '../support/wait-for';
import { buildContext } from '../../src/graphql/context';
import { LiveUpdates, MAX_QUEUED_EVENTS, SlowSubscriberError } from '../../src/services/operations/live-updates';

/**
 * Live updates over WebSocket with the graphql-ws protocol, tested with graphql-ws's own
 * client: a change made over REST arrives on zoneChanged; a secondary's state changing arrives on
 * propagationChanged; the key is checked in connection_init and again while subscribed.
 */
let app: TestApp;
let userId: string;
let userKey: string;
const clients: Client[] = [];

beforeAll(async () => {
  // a configured secondary whose status rows the test writes itself (ROLES is api: no worker asks it)
  app = await startTestApp({ SECONDARIES: '127.0.0.1:9' });
  userId = await createUser(app, 'live@example.org');
  userKey = await createUserKey(app, userId);
  await createZone(app, userId, 'live.example');
});
afterAll(async () => {
  await app.close();
});

/** a graphql-ws client; `closed` resolves with the close code when the server closes the connection */
function connect(payload: Record<string, unknown>) {
  let closedWith: (code: number) => void = () => undefined;
  const closed = new Promise<number>((resolve) => {
    closedWith = resolve;
  });
  const client = createClient({
    url: app.baseUrl.replace('http', 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: payload,
    retryAttempts: 0,
    lazy: false,
    // the refused connections are the point of some tests: no console noise for them
    onNonLazyError: () => undefined,
    on: { closed: (event: any) => closedWith(event.code) },
  });
  clients.push(client);
  return { client, closed };
}

/** subscribes and collects what arrives; `next()` waits for the next event */
function subscribe(client: Client, query: string, variables: Record<string, unknown>) {
  const events: any[] = [];
  const errors: any[] = [];
  let notify: () => void = () => undefined;
  const stop = client.subscribe(
    { query, variables },
    {
      next: (value) => {
        events.push(value);
        notify();
      },
      error: (error) => {
        errors.push(error);
        notify();
      },
      complete: () => notify(),
    },
  );
  const next = async (count: number, ms = 10_000) => {
    const deadline = Date.now() + ms;
    while (events.length < count && errors.length === 0 && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        notify = resolve;
        setTimeout(resolve, 200);
      });
    }
    return events;
  };
  return { events, errors, next, stop };
}

/**
 * A subscription is live once the service has registered it (LiveUpdates), which the graphql-ws protocol does
 * not acknowledge to the client (connection_ack is for the connection): the tests wait for the server's count.
 * Each test starts with none (afterEach closes its clients; the server forgets their subscriptions soon after).
 */
const subscriptionsHeld = () => app.service.services.liveUpdates.subscriberCount();
async function subscribed(count = 1) {
  await waitUntil(`${count} subscription(s) registered by the server`, () => subscriptionsHeld() >= count);
}
beforeEach(async () => {
  await waitUntil('the subscriptions of earlier tests to end', () => subscriptionsHeld() === 0);
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.dispose();
});

const ZONE_CHANGED = `subscription($zone: String!) { zoneChanged(zone: $zone) { zone change { kind serialAfter author { keyName admin } added { owner type rdata } } } }`;

test('a change made over REST arrives on zoneChanged, with its records and author', async () => {
  const { client } = connect({ 'x-api-key': userKey });
  const sub = subscribe(client, ZONE_CHANGED, { zone: 'live.example' });
  await subscribed(); // subscribed before the change
  const res = await app.http
    .post('/api/record/add')
    .set('X-API-Key', ADMIN_KEY)
    .send({ zone: 'live.example', owner: 'pushed', rtype: 'A', rdata: '192.0.2.5', ttl: 3600 });
  expect(res.status).toBe(201);
  const events = await sub.next(1);
  expect(sub.errors).toEqual([]);
  expect(events[0].data.zoneChanged.zone).toBe('live.example');
  expect(events[0].data.zoneChanged.change.kind).toBe('zone-changed');
  expect(events[0].data.zoneChanged.change.author).toEqual({ keyName: expect.any(String), admin: true });
  expect(events[0].data.zoneChanged.change.added).toEqual(expect.arrayContaining([{ owner: 'pushed', type: 'A', rdata: '192.0.2.5' }]));
  sub.stop();
});

test('a change that waits for an older transaction arrives once that transaction ends, with no commit after it to wake the feed', async () => {
  const { client } = connect({ 'x-api-key': userKey });
  const sub = subscribe(client, ZONE_CHANGED, { zone: 'live.example' });
  await subscribed();
  // a transaction older than the change (it has an id, so the feed serves nothing committed after it began)
  const older = new PgClient({ connectionString: app.service.settings.databaseUrl });
  await older.connect();
  try {
    await older.query('begin');
    await older.query('select pg_current_xact_id()');
    const res = await app.http
      .post('/api/record/add')
      .set('X-API-Key', ADMIN_KEY)
      .send({ zone: 'live.example', owner: 'waited', rtype: 'A', rdata: '192.0.2.6', ttl: 3600 });
    expect(res.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sub.events).toEqual([]); // its commit woke the feed, which found it waiting
    await older.query('commit'); // no NOTIFY: the feed reads again by itself
    const events = await sub.next(1, 5000);
    expect(sub.errors).toEqual([]);
    expect(events.map((event) => event.data.zoneChanged.change.added.map((r: any) => r.owner))).toEqual([
      expect.arrayContaining(['waited']),
    ]);
  } finally {
    await older.end();
    sub.stop();
  }
});

const ZONE_CHANGED_AFTER = `subscription($zone: String!, $after: ID) { zoneChanged(zone: $zone, after: $after) { change { id serialAfter added { owner } } } }`;

async function addRecord(owner: string) {
  const res = await app.http
    .post('/api/record/add')
    .set('X-API-Key', ADMIN_KEY)
    .send({ zone: 'live.example', owner, rtype: 'A', rdata: '192.0.2.7', ttl: 3600 });
  expect(res.status).toBe(201);
}

async function newestChangeId(): Promise<string> {
  const res = await app.http
    .post('/graphql')
    .set('X-API-Key', ADMIN_KEY)
    .send({ query: `{ domain(name: "live.example") { changes(first: 1) { nodes { id } } } }` });
  return res.body.data.domain.changes.nodes[0].id;
}

test('zoneChanged after a change resumes there: the changes since come first, then the live ones, none twice', async () => {
  await addRecord('resume-0');
  const mark = await newestChangeId();
  await addRecord('resume-1');
  await addRecord('resume-2');
  const { client } = connect({ 'x-api-key': userKey });
  const sub = subscribe(client, ZONE_CHANGED_AFTER, { zone: 'live.example', after: mark });
  await sub.next(2);
  await addRecord('resume-3');
  const events = await sub.next(3);
  expect(sub.errors).toEqual([]);
  // each change also raised the SOA's serial (owner '@')
  const owners = events.map((e) => e.data.zoneChanged.change.added.map((r: any) => r.owner).filter((owner: string) => owner !== '@'));
  expect(owners).toEqual([['resume-1'], ['resume-2'], ['resume-3']]);
  const ids = events.map((e) => Number(e.data.zoneChanged.change.id));
  expect(ids[0]).toBeGreaterThan(Number(mark));
  expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  // nothing more arrives (no event sent twice by the catch-up and the live feed)
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(events).toHaveLength(3);
  sub.stop();
});

test('a change committed while the subscription is being made is not lost when the client subscribes after the newest change it read', async () => {
  // the client cannot know when the server has registered its subscription (graphql-ws does not acknowledge
  // it): with `after`, a change made at once still arrives
  for (let round = 0; round < 5; round++) {
    const mark = await newestChangeId();
    const { client } = connect({ 'x-api-key': userKey });
    const sub = subscribe(client, ZONE_CHANGED_AFTER, { zone: 'live.example', after: mark });
    await addRecord(`race-${round}`);
    const events = await sub.next(1);
    expect(sub.errors).toEqual([]);
    expect(events.map((e) => e.data.zoneChanged.change.added.map((r: any) => r.owner))).toEqual([
      expect.arrayContaining([`race-${round}`]),
    ]);
    sub.stop();
  }
});

/** a subscription refused before its first event: graphql-ws sends the error as its one result */
const refusal = (sub: ReturnType<typeof subscribe>) => (sub.errors[0]?.[0] ?? sub.events[0]?.errors?.[0])?.extensions;

test('zoneChanged with a bad or too old `after` is refused, naming the field', async () => {
  const { client } = connect({ 'x-api-key': userKey });
  const bad = subscribe(client, ZONE_CHANGED_AFTER, { zone: 'live.example', after: 'yesterday' });
  await bad.next(1);
  expect(refusal(bad)).toMatchObject({ code: 'INVALID_INPUT', details: [{ field: 'after', code: 'INVALID_ID' }] });
  await createZone(app, userId, 'backlog.example');
  const pg = new PgClient({ connectionString: app.service.settings.databaseUrl });
  await pg.connect();
  try {
    // more than 1,000 changes after the cursor, in a zone of its own: its journal grown by hand (as many serial
    // steps, already published), which is what 1,001 writes would leave
    const [{ id, serial }] = (
      await pg.query(`select max(id) as id, max(serial_after) as serial from changes where zone = 'backlog.example'`)
    ).rows;
    await pg.query(
      `insert into changes (zone, domain_id, kind, serial_before, serial_after, added, removed, published_at)
       select zone, domain_id, 'zone-changed', $2::bigint + n - 1, $2::bigint + n, '[]', '[]', now()
         from changes, generate_series(1, ${MAX_QUEUED_EVENTS + 1}) n where id = $1`,
      [id, serial],
    );
    const old = subscribe(client, ZONE_CHANGED_AFTER, { zone: 'backlog.example', after: String(id) });
    await old.next(1);
    expect(refusal(old)).toMatchObject({ code: 'INVALID_INPUT', details: [{ field: 'after', code: 'TOO_OLD' }] });
    expect(old.events.filter((event) => event.data)).toEqual([]); // no change sent
  } finally {
    await pg.end();
  }
});

test("a secondary's state changing arrives on propagationChanged", async () => {
  const { client } = connect({ 'X-API-KEY': ADMIN_KEY });
  const sub = subscribe(
    client,
    `subscription { propagationChanged(zone: "live.example") { zone propagation { state servers { server state servedSerial } } } }`,
    {},
  );
  await subscribed();
  // what the propagation worker writes when a secondary reports the zone's serial
  const db = new PgClient({ connectionString: app.service.settings.databaseUrl });
  await db.connect();
  try {
    await db.query(`insert into zone_server_status (domain_id, server, state, served_serial, attempts, updated_at)
      select id, '127.0.0.1:9', 'in_sync', serial, 1, now() from domains where name = 'live.example'`);
  } finally {
    await db.end();
  }
  const events = await sub.next(1);
  expect(sub.errors).toEqual([]);
  expect(events[0].data.propagationChanged.propagation.servers).toEqual(
    expect.arrayContaining([{ server: '127.0.0.1:9', state: 'in_sync', servedSerial: expect.any(Number) }]),
  );
  sub.stop();
});

test("keys: a wrong key is refused (4403), another user's zone is not found, a revoked key closes the connection", async () => {
  const wrong = connect({ 'X-API-Key': 'wrong-key-0123456789abcdef' });
  subscribe(wrong.client, ZONE_CHANGED, { zone: 'live.example' });
  expect(await wrong.closed).toBe(4403);

  const other = await createUser(app, 'other-live@example.org');
  const otherKey = await createUserKey(app, other);
  const foreign = connect({ 'X-API-Key': otherKey });
  const sub = subscribe(foreign.client, ZONE_CHANGED, { zone: 'live.example' });
  await sub.next(1, 3000);
  expect(sub.errors.length + sub.events.length).toBeGreaterThan(0);
  const reported = sub.errors.length ? sub.errors[0] : sub.events[0];
  expect(JSON.stringify(reported)).toContain('ZONE_NOT_FOUND');

  const keyRes = await app.gql(`mutation($u: ID!) { createApiKey(input: {userId: $u, name: "doomed"}) { secret apiKey { id } } }`, {
    u: userId,
  });
  const doomed = connect({ 'X-API-Key': keyRes.data.createApiKey.secret });
  subscribe(doomed.client, ZONE_CHANGED, { zone: 'live.example' });
  await subscribed(); // the key is revoked while subscribed, not before
  expect(
    (await app.gql(`mutation($id: ID!) { revokeApiKey(id: $id) { id } }`, { id: keyRes.data.createApiKey.apiKey.id })).errors,
  ).toBeUndefined();
  expect(await doomed.closed).toBe(4403);
});

test('a subscriber that does not keep up is dropped, not buffered without bound', async () => {
  const live = new LiveUpdates(app.service.services.domains);
  const ctx = await buildContext(app.service.database.db, app.service.services, ADMIN_KEY);
  const iterator = await live.subscribe(ctx, 'live.example', 'propagation');
  const domain = await app.service.services.domains.get(ctx, { name: 'live.example' });
  for (let i = 0; i <= MAX_QUEUED_EVENTS; i++) live.publishPropagation(domain.id);
  await expect(iterator.next()).rejects.toBeInstanceOf(SlowSubscriberError);
  expect(live.subscriberCount()).toBe(0);
});
