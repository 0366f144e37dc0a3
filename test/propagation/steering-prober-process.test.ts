/**
 * Nothing served changes by itself (docs/steering.md): the prober runs in a service process of its own (the
 * worker role, a real process), the API and the DNS primary in another. One member's endpoint is dead, so its
 * check is down and the primary serves the other member only. Killing the prober's process with SIGKILL changes
 * nothing served while no prober runs; a new prober process (whose start decides every steered zone again)
 * changes nothing either: the check's state is read from PostgreSQL, not started again from unknown (an unknown
 * check's member would be served), so the answer, the serial and the history stay as they were while it probes.
 */
import 'reflect-metadata';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { buildOnce } from '../support/build';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { createUser, createZone } from '../support/fixtures';
import { Endpoint, servedA } from '../support/steering-endpoints';
import { freePort, servedSerial, sleep, waitFor } from './knot';

const ZONE = 'proc.zk-steer-proc.test';
const NAME = `app.${ZONE}`;
const INTERVAL_S = 1;
const steering = {
  STEERING_CHECK_INTERVAL: String(INTERVAL_S),
  STEERING_CHECK_TIMEOUT_MS: '500',
  STEERING_FALL: '2',
  STEERING_RISE: '2',
  STEERING_ALLOW_NETWORKS: '127.0.0.0/8',
};

const alive = new Endpoint();
const dead = new Endpoint();
const steady = new Endpoint();
let app: TestApp;
let dnsPort: number;
const probers: ServiceProcess[] = [];

/** a service process with the worker role only (the built service, as a user runs it): the prober and every other duty */
function startProber(): ServiceProcess {
  const prober = startServiceProcess({
    DATABASE_URL: app.settings.databaseUrl,
    API_KEY: ADMIN_KEY,
    ROLES: 'worker',
    DNS_LISTEN: '',
    SECONDARIES: '',
    HEALTH_CHECK_INTERVAL: '0',
    LOG_LEVEL: 'info',
    ...steering,
  });
  probers.push(prober);
  return prober;
}

beforeAll(async () => {
  buildOnce();
  for (const endpoint of [alive, dead, steady]) await endpoint.start();
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns', DNS_LISTEN: `127.0.0.1:${dnsPort}`, ...steering });
  await createZone(app, await createUser(app, 'owner@zk-steer-proc.test'), ZONE);
}, 60_000);

afterAll(async () => {
  for (const prober of probers) await prober.stop('SIGKILL');
  await app?.close();
  for (const endpoint of [alive, dead, steady]) await endpoint.stop();
});

async function gqlOk(query: string, variables?: Record<string, unknown>): Promise<any> {
  const res = await app.gql(query, variables);
  expect(res.errors).toBeUndefined();
  return res.data;
}

const CREATE_CHECK = `mutation($z: String!, $i: SteeringCheckInput!) { createSteeringCheck(zone: $z, input: $i) { id } }`;
const STATE = `query($n: String) { domain(name: $n) {
  steeringChecks { name status since checkedAt }
  changes(first: 50) { nodes { serviceNote } } } }`;

async function state() {
  const { domain } = await gqlOk(STATE, { n: ZONE });
  const checks = Object.fromEntries(domain.steeringChecks.map((c: any) => [c.name, c]));
  return { checks, steeringChanges: domain.changes.nodes.filter((c: any) => c.serviceNote === 'steering').length };
}

/** what the primary serves at app, asked every 100 ms for `ms`: every answer seen */
async function servedDuring(ms: number): Promise<Set<string>> {
  const answers = new Set<string>();
  const until = Date.now() + ms;
  while (Date.now() < until) {
    answers.add(JSON.stringify(await servedA(dnsPort, NAME)));
    await sleep(100);
  }
  return answers;
}

test('killing the prober’s process with SIGKILL, and starting another, changes nothing served by itself', async () => {
  const check = async (name: string, endpoint: Endpoint) =>
    (
      await gqlOk(CREATE_CHECK, {
        z: ZONE,
        i: { name, protocol: 'http', address: '127.0.0.1', port: endpoint.port, path: '/health' },
      })
    ).createSteeringCheck.id;
  const [c1, c2] = [await check('alive', alive), await check('dead', dead)];
  for (const n of [1, 2, 3]) await check(`steady-${n}`, steady);
  await gqlOk(`mutation($z: String!, $i: SteeredRrsetInput!) { createSteeredRrset(zone: $z, input: $i) { id } }`, {
    z: ZONE,
    i: {
      owner: 'app',
      type: 'A',
      pools: [
        {
          members: [
            { value: '192.0.2.1', checkId: c1 },
            { value: '192.0.2.2', checkId: c2 },
          ],
        },
      ],
      backup: ['203.0.113.9'],
    },
  });

  // the first prober: the dead endpoint's check goes down and its member out
  const first = startProber();
  await dead.stop();
  await waitFor(
    'the dead member to be out of the served answer',
    async () => (JSON.stringify(await servedA(dnsPort, NAME)) === JSON.stringify(['192.0.2.1']) ? true : undefined),
    60_000,
    100,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${first.output().slice(-3000)}`);
  });
  await waitFor('the alive check to be up', async () => ((await state()).checks.alive.status === 'up' ? true : undefined), 20_000, 200);
  const before = await state();
  const serial = await servedSerial(dnsPort, ZONE);
  expect(before.checks.dead.status).toBe('down');

  // killed: for three intervals without a prober, nothing served changes
  first.child.kill('SIGKILL');
  await waitFor('the prober to be gone', () => (first.child.signalCode === 'SIGKILL' ? true : undefined), 5_000);
  expect([...(await servedDuring(3 * INTERVAL_S * 1000))]).toEqual([JSON.stringify(['192.0.2.1'])]);
  expect(await servedSerial(dnsPort, ZONE)).toBe(serial);

  // a new prober: it decides the zone again at its start and probes on, the dead endpoint still dead
  const restartedAt = Date.now();
  const second = startProber();
  const answers = new Set<string>();
  await waitFor(
    'the new prober to have probed every check three times',
    async () => {
      answers.add(JSON.stringify(await servedA(dnsPort, NAME)));
      const { checks } = await state();
      return Object.values(checks).every((c: any) => Date.parse(c.checkedAt) > restartedAt + 2 * INTERVAL_S * 1000) ? true : undefined;
    },
    60_000,
    100,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${second.output().slice(-3000)}`);
  });
  for (const answer of await servedDuring(1000)) answers.add(answer);
  expect([...answers]).toEqual([JSON.stringify(['192.0.2.1'])]);
  expect(await servedSerial(dnsPort, ZONE)).toBe(serial);
  const after = await state();
  expect(after.steeringChanges).toBe(before.steeringChanges);
  for (const name of ['alive', 'dead'])
    expect({ name, status: after.checks[name].status, since: after.checks[name].since }).toEqual({
      name,
      status: before.checks[name].status,
      since: before.checks[name].since,
    });
  second.child.kill('SIGTERM');
}, 150_000);
