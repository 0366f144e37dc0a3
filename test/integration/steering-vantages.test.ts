/**
 * Two vantages (docs/steering.md, «Vantages and the quorum»), each a prober process of its own (ROLES=prober, the
 * built service) in a network namespace the test makes (test/support/test-hosts.ts), reaching PostgreSQL through
 * its veth and the endpoints (addresses of this machine, 198.19.255.0/24) through its route. The API and the DNS
 * primary run in this process, without a prober. One vantage loses its route to the endpoints: nothing served
 * changes (one of two votes is no quorum), and within two intervals it shows isolated (GraphQL, REST, the home's
 * attention, a `steering.vantage` event). Then two endpoints really die: they go down within the bound, decided
 * by the sound vantage alone.
 */
import 'reflect-metadata';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { buildOnce } from '../support/build';
import { createUser, createZone } from '../support/fixtures';
import { createHealthCheck, Endpoint, servedA, steerWithFallback } from '../support/steering-endpoints';
import { holdEndpointAddress, makeTestHost, TestHost } from '../support/test-hosts';
import { freePort } from '../support/free-port';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { waitFor } from '../support/wait-for';

const ZONE = 'vantages.zk-steer-vantages.test';
const NAME = `app.${ZONE}`;
const INTERVAL_S = 2;
const steering = {
  STEERING_CHECK_INTERVAL: String(INTERVAL_S),
  STEERING_FALL: '2',
  STEERING_RISE: '2',
  STEERING_ALLOW_NETWORKS: '198.18.0.0/15',
};

const addresses: { address: string; release(): void }[] = [];
let endpoints: Endpoint[] = [];
let app: TestApp;
let dnsPort: number;
const hosts: TestHost[] = [];
const probers: ServiceProcess[] = [];

beforeAll(async () => {
  buildOnce();
  for (const n of [1, 2, 3]) addresses.push(holdEndpointAddress(n));
  endpoints = addresses.map(({ address }) => new Endpoint(address));
  for (const endpoint of endpoints) await endpoint.start();
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns', DNS_LISTEN: `127.0.0.1:${dnsPort}`, ...steering });
  await createZone(app, await createUser(app, 'owner@zk-steer-vantages.test'), ZONE);
  const database = new URL(app.settings.databaseUrl as string);
  for (const [index, vantage] of [
    [1, 'east'],
    [2, 'west'],
  ] as const) {
    const host = await makeTestHost(index, Number(database.port));
    hosts.push(host);
    const url = new URL(database.href);
    url.hostname = host.gateway;
    url.port = String(host.relayPort);
    const prober = startServiceProcess(
      {
        DATABASE_URL: url.href,
        API_KEY: ADMIN_KEY,
        ROLES: 'prober',
        DNS_LISTEN: '',
        SECONDARIES: '',
        HEALTH_CHECK_INTERVAL: '0',
        LOG_LEVEL: 'info',
        STEERING_VANTAGE: vantage,
        ...steering,
      },
      { spawn: host.spawn },
    );
    probers.push(prober);
  }
}, 120_000);

afterAll(async () => {
  for (const prober of probers) await prober.stop();
  await app?.close();
  for (const host of hosts) await host.remove();
  for (const endpoint of endpoints) await endpoint.stop();
  for (const { release } of addresses) release();
});

async function gqlOk(query: string, variables: Record<string, unknown> = {}) {
  const res = await app.gql(query, variables);
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data;
}

const vantages = async (): Promise<Record<string, { isolated: boolean; isolatedReason: string | null }>> =>
  Object.fromEntries((await gqlOk(`{ steeringVantages { name isolated isolatedReason } }`)).steeringVantages.map((v: any) => [v.name, v]));
const checks = async () =>
  (
    await gqlOk(
      `query($n: String) { domain(name: $n) { serial steeringChecks { name status condition votes { vantage isolated lastOk } } } }`,
      {
        n: ZONE,
      },
    )
  ).domain;

test('one vantage cut off takes nothing down and shows isolated within two intervals; endpoints that really die go down by the sound vantage', async () => {
  const [first, second] = endpoints;
  const ids: string[] = [];
  for (const [i, name] of ['first', 'second', 'fallback'].entries())
    ids.push(await createHealthCheck(gqlOk, ZONE, name, addresses[i].address, endpoints[i].port));
  await steerWithFallback(gqlOk, ZONE, ids);
  // both vantages probe every check, and see each up
  await waitFor(
    'both vantages voting up on every check',
    async () => {
      const zone = await checks();
      return zone.steeringChecks.every((c: any) => c.condition === 'UP' && c.votes.filter((v: any) => v.lastOk === true).length === 2)
        ? true
        : undefined;
    },
    30_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${JSON.stringify(probers.map((p) => p.output().slice(-2000)))}`);
  });
  const before = await checks();

  // west loses its route to the endpoints (not to the database)
  const cut = Date.now();
  hosts[1].cutOff();
  await waitFor('west isolated', async () => ((await vantages()).west?.isolated ? true : undefined), 4 * INTERVAL_S * 1000, 100).catch(
    async (error: Error) => {
      throw new Error(
        `${error.message}\n${JSON.stringify(await checks())}\n${JSON.stringify(await vantages())}\n${probers.map((p) => p.output().slice(-3000)).join('\n---\n')}`,
      );
    },
  );
  expect(Date.now() - cut).toBeLessThanOrEqual(2 * INTERVAL_S * 1000 + 1_000);
  const seen = await vantages();
  expect(seen.east.isolated).toBe(false);
  expect(seen.west.isolatedReason).toMatch(/checks fail that the other vantages see pass/);
  // nothing served changed: no serial step, every check up, the first pool served
  await new Promise((resolve) => setTimeout(resolve, 2 * INTERVAL_S * 1000));
  const during = await checks();
  expect(during.serial).toBe(before.serial);
  expect(during.steeringChecks.map((c: any) => c.condition)).toEqual(['UP', 'UP', 'UP']);
  expect(await servedA(dnsPort, NAME)).toEqual(['192.0.2.1', '192.0.2.2']);
  // shown on every edge: REST, the home's attention (what the console's home reads), an event
  const rest = await app.http.get('/api/steering/vantages').set('X-API-Key', ADMIN_KEY);
  expect(rest.status).toBe(200);
  expect(rest.body.vantages.find((v: any) => v.name === 'west')).toMatchObject({ isolated: true });
  const attention = (await gqlOk(`{ attention { steering { totalCount items { zone { name } detail } } } }`)).attention.steering;
  expect(attention.items[0].zone.name).toBe(ZONE);
  expect(attention.items[0].detail).toMatch(/vantage west is isolated/);
  // the feed serves an event once every transaction older than its own has ended (src/repositories/events.ts)
  const events = await waitFor('the steering.vantage event', async () => {
    const feed = await app.http.get('/api/events?types=steering.vantage&limit=10').set('X-API-Key', ADMIN_KEY);
    return feed.body.events.length ? feed.body.events : undefined;
  });
  expect(events).toEqual([expect.objectContaining({ data: expect.objectContaining({ vantage: 'west', isolated: true }) })]);

  // two endpoints really die: down within interval × fall and the publication's bound, by east's votes alone
  const killed = Date.now();
  await first.stop();
  await second.stop();
  await waitFor(
    'the fallback served',
    async () => (JSON.stringify(await servedA(dnsPort, NAME).catch(() => [])) === JSON.stringify(['198.51.100.1']) ? true : undefined),
    12_000,
    50,
  );
  expect(Date.now() - killed).toBeLessThanOrEqual(INTERVAL_S * 2 * 1000 + 3_000);
  const after = await checks();
  expect(after.steeringChecks.map((c: any) => c.condition)).toEqual(['DOWN', 'DOWN', 'UP']);
  const firstVotes = after.steeringChecks[0].votes;
  expect(firstVotes).toEqual(
    expect.arrayContaining([
      { vantage: 'east', isolated: false, lastOk: false },
      { vantage: 'west', isolated: true, lastOk: false },
    ]),
  );
  // west still fails what east passes (the fallback): it stays isolated
  expect((await vantages()).west.isolated).toBe(true);
}, 120_000);
