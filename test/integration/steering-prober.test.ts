/**
 * Steering's prober on a real database (docs/steering.md): each due check is claimed by one prober however many
 * claim at once (FOR UPDATE SKIP LOCKED, the claim moving it one interval on), and the panic freeze: when every
 * check fails at once, two probers' worth of probes take nothing down, and the operator is told (gauge, event).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';
import { sleep, waitFor } from '../support/wait-for';
import { claimDueChecks } from '../../src/repositories/steering';
import { SteeringProber } from '../../src/worker/steering-checks';
import { DutyRunner } from '../../src/worker/duties';
import { steeringDuties } from '../../src/worker/duties/steering';
import { logger } from '../../src/logger';
import { metrics } from '../../src/metrics';

const ZONE = 'prober.zk-steering.test';
const CHECKS = 6;

let app: TestApp;
let server: http.Server;
let port: number;

beforeAll(async () => {
  server = http.createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  // no worker role: the test runs the probers itself
  app = await startTestApp({
    STEERING_CHECK_INTERVAL: '1',
    STEERING_CHECK_TIMEOUT_MS: '300',
    STEERING_FALL: '2',
    STEERING_RISE: '2',
    STEERING_ALLOW_NETWORKS: '127.0.0.0/8',
  });
  await createZone(app, await createUser(app, 'prober@zk-steering.test'), ZONE);
  for (let i = 0; i < CHECKS; i++) {
    const res = await app.gql(`mutation($z: String!, $i: SteeringCheckInput!) { createSteeringCheck(zone: $z, input: $i) { id } }`, {
      z: ZONE,
      i: { name: `c${i}`, protocol: 'tcp', address: '127.0.0.1', port },
    });
    if (res.errors) throw new Error(JSON.stringify(res.errors));
  }
}, 60_000);

afterAll(async () => {
  await app?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

const statuses = async (): Promise<string[]> =>
  (await app.gql(`query($n: String) { domain(name: $n) { steeringChecks { status } } }`, { n: ZONE })).data.domain.steeringChecks.map(
    (c: { status: string }) => c.status,
  );

test('each due check is claimed by one prober, however many claim at once, and is due again once within the next interval, not within half of it', async () => {
  const db = app.service.database.db;
  const claimedAt = Date.now();
  const claims = await Promise.all([1, 2, 3].map(() => claimDueChecks(db, 100, 1)));
  const ids = claims.flat().map((c) => c.id);
  expect(ids).toHaveLength(CHECKS);
  expect(new Set(ids).size).toBe(CHECKS);
  expect(await claimDueChecks(db, 100, 1)).toEqual([]);
  // within the next interval each is due again, once (on the beat of its schedule), and none within half an
  // interval of its claim
  const again: { id: number; after: number }[] = [];
  while (Date.now() < claimedAt + 1_400) {
    for (const check of await claimDueChecks(db, 100, 1)) again.push({ id: check.id, after: Date.now() - claimedAt });
    await sleep(50);
  }
  expect(again.map((c) => c.id).sort()).toEqual([...ids].sort());
  expect(Math.min(...again.map((c) => c.after))).toBeGreaterThanOrEqual(490);
});

test('the panic freeze: every check failing at once takes nothing down, and the operator is told', async () => {
  // two processes' probers, each kept by its own duty runner as a worker keeps it
  const probers = [1, 2].map(() => new DutyRunner(logger));
  for (const runner of probers)
    await runner.start(steeringDuties(new SteeringProber(app.settings, app.service.database.db, logger, app.service.services.writeEngine)));
  try {
    await waitFor('the checks to come up', async () => ((await statuses()).every((s) => s === 'up') ? true : undefined), 15_000);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    // every check fails its probes (fall is 2): well past fall, none went down
    await waitFor(
      'every check to have failed more than fall probes',
      async () => {
        const res = await app.gql(`query($n: String) { domain(name: $n) { steeringChecks { lastOk lastError } } }`, { n: ZONE });
        return res.data.domain.steeringChecks.every((c: any) => c.lastOk === false) ? true : undefined;
      },
      10_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await statuses()).toEqual(Array(CHECKS).fill('up'));
    expect(await metrics.getSingleMetricAsString('zonekeeper_steering_panic')).toMatch(/zonekeeper_steering_panic 1/);
    const events = await waitFor('the steering.panic event', async () => {
      const feed = await app.http.get('/api/events?types=steering.panic&limit=10').set('X-API-Key', ADMIN_KEY);
      return feed.body.events.length ? feed.body.events : undefined;
    });
    expect(events[0]).toMatchObject({ type: 'steering.panic', zone: null, data: { frozen: true, total: CHECKS } });
  } finally {
    for (const runner of probers) await runner.stop();
    // the endpoint back for the other tests of the file, none after this one
    server = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  }
}, 60_000);

test('a zone’s status changes within 250 ms are published as one change: one serial for both RRsets', async () => {
  const db = app.service.database.db;
  const zone = (await app.gql(`query($n: String) { domain(name: $n) { id serial steeringChecks { id name } } }`, { n: ZONE })).data.domain;
  const checkId = (name: string) => zone.steeringChecks.find((c: { name: string }) => c.name === name).id;
  for (const [owner, check] of [
    ['one', 'c0'],
    ['two', 'c1'],
  ]) {
    const res = await app.gql(`mutation($z: String!, $i: SteeredRrsetInput!) { createSteeredRrset(zone: $z, input: $i) { id } }`, {
      z: ZONE,
      i: { owner, type: 'A', pools: [{ members: [{ value: '192.0.2.1', checkId: checkId(check) }] }], backup: ['192.0.2.99'] },
    });
    if (res.errors) throw new Error(JSON.stringify(res.errors));
  }
  const serial = async () => (await app.gql(`query($n: String) { domain(name: $n) { serial } }`, { n: ZONE })).data.domain.serial;
  const before = await serial();
  const prober = new SteeringProber(app.settings, db, logger, app.service.services.writeEngine);
  // two checks go down 100 ms apart, each change handed to the publisher as the prober does
  await db.affected(`update steering_checks set status = 'down' where id = $1`, [checkId('c0')]);
  prober.zoneChanged(Number(zone.id));
  await new Promise((resolve) => setTimeout(resolve, 100));
  await db.affected(`update steering_checks set status = 'down' where id = $1`, [checkId('c1')]);
  prober.zoneChanged(Number(zone.id));
  await waitFor('the publication', async () => ((await serial()) !== before ? true : undefined), 5_000);
  await prober.stop();
  expect(await serial()).toBe(before + 1);
  const history = await app.gql(
    `query($n: String) { domain(name: $n) { changes(first: 1) { nodes { serviceNote added { owner type rdata } } } } }`,
    {
      n: ZONE,
    },
  );
  const [change] = history.data.domain.changes.nodes;
  expect(change.serviceNote).toBe('steering');
  expect(
    change.added
      .filter((r: { type: string }) => r.type === 'A')
      .map((r: { owner: string; rdata: string }) => `${r.owner} ${r.rdata}`)
      .sort(),
  ).toEqual(['one 192.0.2.99', 'two 192.0.2.99']);
});
