/**
 * Steering end to end (docs/steering.md), with real parts: HTTP endpoints on loopback that the test starts and
 * stops, the worker's prober checking them every second (fall 2, rise 2; the operator allows loopback with
 * STEERING_ALLOW_NETWORKS), and the served A RRset read by AXFR from the DNS primary and asked of a Knot secondary
 * that takes the zone from it (catalog, NOTIFY, IXFR) and knows nothing of steering. A killed endpoint leaves the
 * served RRset and comes back once it answers again (after the 30 s hold of flap damping); with every pool down
 * the backup is served; each served change is the service's own (the history's note `steering`, a
 * `steering.changed` event). Rules by subnet or geography are refused.
 */
import { randomBytes } from 'node:crypto';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone, errorCode } from '../support/fixtures';
import { Endpoint } from '../support/steering-endpoints';
import { dig, freePort, Knot, records, startKnot, waitFor } from './knot';

const ZONE = 'steer.zk-steering.test';
const CATALOG = 'catalog.zk-steering.test';
const KEY_NAME = 'zk-steering-key';
const SECRET = randomBytes(32).toString('base64');

const endpoints = [new Endpoint(), new Endpoint(), new Endpoint(), new Endpoint()];
const [first, second, fallback, steady] = endpoints;
let app: TestApp;
let dnsPort: number;
/** a Knot secondary fed by the primary (catalog, NOTIFY, IXFR), knowing nothing of steering */
let knot: Knot;

beforeAll(async () => {
  for (const endpoint of endpoints) await endpoint.start();
  dnsPort = await freePort();
  knot = await startKnot({ catalogZone: CATALOG, primaryPort: dnsPort, tsig: { name: KEY_NAME, secret: SECRET } });
  app = await startTestApp({
    ROLES: 'api,dns,worker',
    DNS_LISTEN: `127.0.0.1:${dnsPort}`,
    SECONDARIES: `127.0.0.1:${knot.port}`,
    CATALOG_ZONE: CATALOG,
    TSIG_KEY: `${KEY_NAME}:hmac-sha256:${SECRET}`,
    STEERING_CHECK_INTERVAL: '1',
    STEERING_CHECK_TIMEOUT_MS: '500',
    STEERING_FALL: '2',
    STEERING_RISE: '2',
    STEERING_ALLOW_NETWORKS: '127.0.0.0/8',
  });
  await createZone(app, await createUser(app, 'owner@zk-steering.test'), ZONE);
}, 60_000);

afterAll(async () => {
  await app?.close();
  await knot?.stop();
  for (const endpoint of endpoints) await endpoint.stop();
});

/** the A records at app as the primary serves them by AXFR */
async function servedA(): Promise<string[]> {
  const axfr = records(await dig(['@127.0.0.1', '-p', String(dnsPort), '-y', `hmac-sha256:${KEY_NAME}:${SECRET}`, ZONE, 'AXFR']));
  return axfr
    .filter((r) => r.name === `app.${ZONE}.` && r.type === 'A')
    .map((r) => r.rdata)
    .sort();
}

/** the A records at app as the Knot secondary answers them */
async function knotA(): Promise<string[]> {
  const answer = records(await dig(['@127.0.0.1', '-p', String(knot.port), '+norec', `app.${ZONE}`, 'A']));
  return answer
    .filter((r) => r.type === 'A')
    .map((r) => r.rdata)
    .sort();
}

/** waits until the primary serves `expected` at app, then until the Knot secondary does (answering nothing for none) */
async function servedBecomes(what: string, expected: string[], timeoutMs: number): Promise<void> {
  const wanted = JSON.stringify([...expected].sort());
  for (const [where, read, allowMs] of [
    ['the primary', servedA, timeoutMs],
    ['the Knot secondary', knotA, 5_000],
  ] as const) {
    let last: string[] = [];
    await waitFor(
      `${what} at ${where}`,
      async () => {
        last = await read();
        return JSON.stringify(last) === wanted ? true : undefined;
      },
      allowMs,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; served: ${JSON.stringify(last)}`);
    });
  }
}

const CREATE_CHECK = `mutation($z: String!, $i: SteeringCheckInput!) { createSteeringCheck(zone: $z, input: $i) { id name status } }`;
const CREATE_RRSET = `mutation($z: String!, $i: SteeredRrsetInput!) { createSteeredRrset(zone: $z, input: $i) { id served } }`;
const STATE = `query($n: String) { domain(name: $n) {
  steeredRrsets { id owner type served pools { minHealthy members { value admin healthy check { name status lastOk lastError latencyMs since } } } }
  changes(first: 20) { nodes { author { keyName } serviceNote added { owner type rdata } removed { owner type rdata } } } } }`;

async function createCheck(name: string, endpoint: Endpoint, protocol = 'http'): Promise<string> {
  const input =
    protocol === 'tcp'
      ? { name, protocol, address: '127.0.0.1', port: endpoint.port }
      : { name, protocol, address: '127.0.0.1', port: endpoint.port, path: '/health', host: `app.${ZONE}`, bodyContains: 'healthy' };
  const res = await app.gql(CREATE_CHECK, { z: ZONE, i: input });
  expect(res.errors).toBeUndefined();
  expect(res.data.createSteeringCheck).toMatchObject({ name, status: 'unknown' });
  return res.data.createSteeringCheck.id;
}

test('a killed endpoint leaves the served A RRset, all down serves the backup, and they come back; each change is steering’s', async () => {
  const c1 = await createCheck('first', first);
  const c2 = await createCheck('second', second);
  const c3 = await createCheck('fallback', fallback, 'tcp');
  // checks that keep passing: with them, the three failing at once are not more than half of all (no panic freeze)
  for (const n of [1, 2, 3, 4]) await createCheck(`steady-${n}`, steady);

  const created = await app.gql(CREATE_RRSET, {
    z: ZONE,
    i: {
      owner: 'app',
      type: 'A',
      pools: [
        {
          minHealthy: 1,
          members: [
            { value: '192.0.2.1', checkId: c1 },
            { value: '192.0.2.2', checkId: c2, weight: 3 },
          ],
        },
        { members: [{ value: '198.51.100.1', checkId: c3 }] },
      ],
      backup: ['203.0.113.9'],
    },
  });
  expect(created.errors).toBeUndefined();
  // weights are taken and stored, and the answer says once that they are not served
  expect(created.body.extensions?.warnings?.map((w: any) => w.code)).toContain('WEIGHTS_NOT_SERVED');
  // unknown checks serve: the first answer is the first pool, written with the definition
  expect(created.data.createSteeredRrset.served.sort()).toEqual(['192.0.2.1', '192.0.2.2']);
  await servedBecomes('the first pool to be served', ['192.0.2.1', '192.0.2.2'], 5_000);

  // the checks decide: up
  await waitFor(
    'the checks to be up',
    async () => {
      const [rrset] = (await app.gql(STATE, { n: ZONE })).data.domain.steeredRrsets;
      return rrset.pools.flatMap((p: any) => p.members).every((m: any) => m.check.status === 'up') ? true : undefined;
    },
    10_000,
  );

  // one endpoint killed: out of the served RRset within fall (2 probes at 1 s) and the publication
  await first.stop();
  await servedBecomes('the killed endpoint to leave', ['192.0.2.2'], 8_000);
  const [afterKill] = (await app.gql(STATE, { n: ZONE })).data.domain.steeredRrsets;
  const killed = afterKill.pools[0].members.find((m: any) => m.value === '192.0.2.1');
  expect(killed).toMatchObject({ healthy: false, check: { name: 'first', status: 'down', lastOk: false } });
  expect(killed.check.lastError).toMatch(/ECONNREFUSED|connect/);

  // every pool down: the backup values
  await second.stop();
  await fallback.stop();
  await servedBecomes('the backup to be served', ['203.0.113.9'], 8_000);

  // back: each after the 30 s hold since it went down, and rise (2 probes)
  await first.start();
  await second.start();
  await fallback.start();
  await servedBecomes('the first pool to be served again', ['192.0.2.1', '192.0.2.2'], 45_000);

  // the history: every served change is steering's own, none a person's
  const domain = (await app.gql(STATE, { n: ZONE })).data.domain;
  const steered = domain.changes.nodes.filter((c: any) => [...c.added, ...c.removed].some((r: any) => r.owner === 'app'));
  expect(steered.length).toBeGreaterThanOrEqual(4);
  const byWorker = steered.filter((c: any) => c.serviceNote === 'steering');
  // the definition's own change names its person; every change after it is the prober's
  expect(byWorker.length).toBe(steered.length - 1);
  for (const change of byWorker) expect(change.author).toBeNull();
  const backup = byWorker.find((c: any) => c.added.some((r: any) => r.rdata === '203.0.113.9'));
  expect(backup).toBeDefined();

  // the events: one steering.changed per served change
  // the feed serves an event once every older transaction has ended
  const events = await waitFor('a steering.changed event per served change', async () => {
    const feed = await app.http.get('/api/events?types=steering.changed&limit=100').set('X-API-Key', ADMIN_KEY);
    return feed.body.events.length >= steered.length ? feed.body.events : undefined;
  });
  expect(events.every((e: any) => e.zone === ZONE && e.data.owner === 'app' && e.data.type === 'A')).toBe(true);
  const served = events.map((e: any) => e.data.served);
  expect(served).toContainEqual(['192.0.2.2']);
  expect(served).toContainEqual(['203.0.113.9']);
  expect(events.find((e: any) => e.data.source === 'backup')).toBeDefined();
  expect(served.length).toBe(steered.length);
}, 120_000);

test('a rule by subnet or geography names its own pools (the RRset’s answer everyone else)', async () => {
  const res = await app.gql(CREATE_RRSET, {
    z: ZONE,
    i: { owner: 'geo', type: 'A', pools: [{ members: [{ value: '192.0.2.7' }] }], rules: [{ geos: ['EU'] }] },
  });
  expect(errorCode(res)).toBe('INVALID_INPUT');
  expect(res.errors?.[0].message).toMatch(/rules\[0\]\.pools: 1 to 16 pools/);
});

test('a check’s address follows the outbound rule', async () => {
  const res = await app.gql(CREATE_CHECK, { z: ZONE, i: { name: 'metadata', protocol: 'http', address: '169.254.169.254' } });
  expect(res.errors?.[0].extensions?.details?.[0]).toMatchObject({ field: 'address', code: 'ADDRESS_NOT_ALLOWED' });
});
