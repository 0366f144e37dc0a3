/**
 * Flap damping (docs/steering.md), with real parts: an HTTP endpoint on loopback up for 1 s and down (503) for 1 s,
 * over and over for 30 s, probed every second with the most eager thresholds (fall 1, rise 1: without damping
 * every probe that differs from the last would be a served change, some fifteen of them), causes at most 4 served
 * changes: the zone's history holds at most 4 changes by the service's note `steering` at the steered owner, and
 * the check ends pinned down (the fourth change within 5 minutes pins it). The prober did see the flapping: its
 * last probe's outcome, read twice a second, turns over and over.
 *
 * The hold is 3 s here (`STEERING_HOLD`, 30 s by default): the damping's rule is the same, its clock ten times
 * faster, so that the pin comes within some ten seconds of flapping instead of a minute and a half.
 */
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';
import { Endpoint } from '../support/steering-endpoints';
import { sleep, waitFor } from '../support/wait-for';

const ZONE = 'flap.zk-steer-flap.test';
const FLAP_MS = 1_000;
const FLAPPING_FOR_MS = 30_000;
const MOST_SERVED_CHANGES = 4;

const flapping = new Endpoint();
const steady = new Endpoint();
let app: TestApp;

beforeAll(async () => {
  await flapping.start();
  await steady.start();
  app = await startTestApp({
    ROLES: 'api,worker',
    STEERING_CHECK_INTERVAL: '1',
    STEERING_CHECK_TIMEOUT_MS: '500',
    STEERING_FALL: '1',
    STEERING_RISE: '1',
    STEERING_HOLD: '3',
    STEERING_ALLOW_NETWORKS: '127.0.0.0/8',
  });
  await createZone(app, await createUser(app, 'owner@zk-steer-flap.test'), ZONE);
}, 60_000);

afterAll(async () => {
  await app?.close();
  await flapping.stop();
  await steady.stop();
});

async function gqlOk(query: string, variables?: Record<string, unknown>): Promise<any> {
  const res = await app.gql(query, variables);
  expect(res.errors).toBeUndefined();
  return res.data;
}

const CREATE_CHECK = `mutation($z: String!, $i: SteeringCheckInput!) { createSteeringCheck(zone: $z, input: $i) { id } }`;
const STATE = `query($n: String) { domain(name: $n) {
  steeringChecks { name status pinned lastOk checkedAt }
  changes(first: 100) { nodes { serviceNote added { owner } removed { owner } } } } }`;

test('an endpoint 1 s up, 1 s down for 30 s causes at most 4 served changes', async () => {
  const check = async (name: string, endpoint: Endpoint) =>
    (
      await gqlOk(CREATE_CHECK, {
        z: ZONE,
        i: { name, protocol: 'http', address: '127.0.0.1', port: endpoint.port, path: '/health' },
      })
    ).createSteeringCheck.id;
  const flappy = await check('flapping', flapping);
  // checks that keep passing: the flapping one failing is never more than half of all (no panic freeze)
  for (const n of [1, 2, 3]) await check(`steady-${n}`, steady);
  await gqlOk(`mutation($z: String!, $i: SteeredRrsetInput!) { createSteeredRrset(zone: $z, input: $i) { id } }`, {
    z: ZONE,
    i: {
      owner: 'app',
      type: 'A',
      pools: [{ members: [{ value: '192.0.2.1', checkId: flappy }] }, { members: [{ value: '198.51.100.1' }] }],
    },
  });
  await waitFor('the flapping check to be up', async () => {
    const { domain } = await gqlOk(STATE, { n: ZONE });
    return domain.steeringChecks.find((c: any) => c.name === 'flapping').status === 'up' ? true : undefined;
  });

  // the endpoint flaps; what the prober saw is read twice a second
  const until = Date.now() + FLAPPING_FOR_MS;
  const seen: boolean[] = [];
  let lastCheckedAt = '';
  const watching = (async () => {
    while (Date.now() < until) {
      const { domain } = await gqlOk(STATE, { n: ZONE });
      const state = domain.steeringChecks.find((c: any) => c.name === 'flapping');
      if (state.checkedAt !== lastCheckedAt) {
        lastCheckedAt = state.checkedAt;
        seen.push(state.lastOk);
      }
      await sleep(FLAP_MS / 2);
    }
  })();
  while (Date.now() < until) {
    flapping.failing = !flapping.failing;
    await sleep(FLAP_MS);
  }
  await watching;
  flapping.failing = false;

  const { domain } = await gqlOk(STATE, { n: ZONE });
  const turns = seen.filter((ok, i) => i > 0 && ok !== seen[i - 1]).length;
  const served = domain.changes.nodes.filter(
    (c: any) => c.serviceNote === 'steering' && [...c.added, ...c.removed].some((r: any) => r.owner === 'app'),
  );
  const flappingCheck = domain.steeringChecks.find((c: any) => c.name === 'flapping');
  console.log(`flapping: ${seen.length} probes read, ${turns} turns of their outcome, ${served.length} served changes`);
  // the prober saw it flap: without damping each turn would be a served change
  expect(turns).toBeGreaterThanOrEqual(10);
  expect(served.length).toBeGreaterThanOrEqual(1);
  expect(served.length).toBeLessThanOrEqual(MOST_SERVED_CHANGES);
  expect(flappingCheck).toMatchObject({ status: 'down', pinned: true });
}, 90_000);
