/**
 * The first drill a team runs (docs/steering.md, «Vantages and the quorum»), as a new user would: a small install
 * (one zone, three HTTP checks on loopback endpoints, a 2 s interval, fall 2, the one default vantage, the panic
 * rule at its defaults), the two endpoints of the primary pool killed. Two of the three checks failing at once
 * are more than half of all checks, which once froze everything (the panic freeze); a small install is never
 * frozen now: the primary and a BIND secondary serve the living fallback within interval × fall + the
 * publication's bound (7 s), and every edge shows the dead members down, not frozen.
 */
import { randomBytes } from 'node:crypto';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';
import { BindSecondary, startBindSecondary } from '../support/bind-secondary';
import { createHealthCheck, Endpoint, servedA, steerWithFallback } from '../support/steering-endpoints';
import { freePort, waitFor } from './knot';

const ZONE = 'drill.zk-steer-drill.test';
const NAME = `app.${ZONE}`;
const TSIG = { name: 'zk-drill-key', secret: randomBytes(32).toString('base64') };
/** interval × fall (2 s × 2) and the publication's bound: the drill's promise */
const FAILOVER_MS = 7_000;

const endpoints = [new Endpoint(), new Endpoint(), new Endpoint()];
const [first, second, fallback] = endpoints;
let app: TestApp;
let bind: BindSecondary;
let dnsPort: number;

beforeAll(async () => {
  for (const endpoint of endpoints) await endpoint.start();
  dnsPort = await freePort();
  bind = await startBindSecondary({ zones: [ZONE], primaryPort: dnsPort, tsig: TSIG });
  // the defaults a new user has, but for the loopback endpoints the operator allows and the drill's interval
  app = await startTestApp({
    ROLES: 'api,dns,worker',
    DNS_LISTEN: `127.0.0.1:${dnsPort}`,
    SECONDARIES: `127.0.0.1:${bind.port}`,
    TSIG_KEY: `${TSIG.name}:hmac-sha256:${TSIG.secret}`,
    STEERING_CHECK_INTERVAL: '2',
    STEERING_FALL: '2',
    STEERING_ALLOW_NETWORKS: '127.0.0.0/8',
  });
  await createZone(app, await createUser(app, 'owner@zk-steer-drill.test'), ZONE);
}, 60_000);

afterAll(async () => {
  await app?.close();
  await bind?.stop();
  for (const endpoint of endpoints) await endpoint.stop();
});

async function gqlOk(query: string, variables: Record<string, unknown>) {
  const res = await app.gql(query, variables);
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data;
}

test('three checks, the primary pool’s two endpoints killed: failed over within 7 s at the primary and BIND, the members down, not frozen', async () => {
  const checks = [];
  for (const [name, endpoint] of [
    ['first', first],
    ['second', second],
    ['fallback', fallback],
  ] as const)
    checks.push(await createHealthCheck(gqlOk, ZONE, name, '127.0.0.1', endpoint.port));
  await steerWithFallback(gqlOk, ZONE, checks);
  const members = async () =>
    (
      await gqlOk(`query($n: String) { domain(name: $n) { steeredRrsets { pools { members { value healthy condition } } } } }`, {
        n: ZONE,
      })
    ).domain.steeredRrsets[0].pools.flatMap((p: { members: unknown[] }) => p.members);
  await waitFor('every check up', async () => ((await members()).every((m: any) => m.condition === 'UP') ? true : undefined), 15_000);
  await waitFor('BIND serving the first pool', async () =>
    JSON.stringify(await servedA(bind.port, NAME).catch(() => [])) === JSON.stringify(['192.0.2.1', '192.0.2.2']) ? true : undefined,
  );

  const killed = Date.now();
  await first.stop();
  await second.stop();
  const failedOver = async (port: number, where: string) =>
    waitFor(
      `${where} serving the fallback only`,
      async () => (JSON.stringify(await servedA(port, NAME).catch(() => [])) === JSON.stringify(['198.51.100.1']) ? Date.now() : undefined),
      FAILOVER_MS + 2_000,
      50,
    );
  const [atPrimary, atBind] = await Promise.all([failedOver(dnsPort, 'the primary'), failedOver(bind.port, 'BIND')]);
  expect(atPrimary - killed).toBeLessThanOrEqual(FAILOVER_MS);
  expect(atBind - killed).toBeLessThanOrEqual(FAILOVER_MS);

  // the members as every edge shows them: down, never frozen or healthy
  expect(await members()).toEqual([
    { value: '192.0.2.1', healthy: false, condition: 'DOWN' },
    { value: '192.0.2.2', healthy: false, condition: 'DOWN' },
    { value: '198.51.100.1', healthy: true, condition: 'UP' },
  ]);
  const rest = await app.http.get(`/api/domain/steering/${ZONE}`).set('X-API-Key', ADMIN_KEY);
  expect(rest.body.rrsets[0].pools[0].members.map((m: { condition: string }) => m.condition)).toEqual(['down', 'down']);
  // no panic was told, and nothing needs attention for the steering
  const feed = await app.http.get('/api/events?types=steering.panic&limit=10').set('X-API-Key', ADMIN_KEY);
  expect(feed.body.events).toEqual([]);
  expect((await gqlOk(`{ attention { steering { totalCount } } }`, {})).attention.steering.totalCount).toBe(0);
}, 90_000);
