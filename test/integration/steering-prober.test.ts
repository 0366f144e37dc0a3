/**
 * Steering's prober on a real database (docs/steering.md): each due check is claimed by one prober however many
 * of a vantage claim at once (FOR UPDATE SKIP LOCKED, the claim moving it one interval on), each vantage on its own
 * schedule, and the panic freeze: when twenty checks across four networks fail at once, two probers' worth of
 * probes of the one vantage take nothing down, every edge shows the checks frozen, and the operator is told
 * (gauge, event, the home's attention).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';
import { sleep, waitFor } from '../support/wait-for';
import { claimDueVotes, registerVantage } from '../../src/repositories/steering-vantages';
import { SteeringProber } from '../../src/worker/steering-checks';
import { DutyRunner } from '../../src/worker/duties';
import { steeringDuties } from '../../src/worker/duties/steering';
import { logger } from '../../src/logger';
import { metrics } from '../../src/metrics';

const ZONE = 'prober.zk-steering.test';
const CHECKS = 6;
/** the checks of the panic freeze's test: at least STEERING_PANIC_MIN_CHECKS (10), across four networks */
const PANIC_CHECKS = 20;

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

test('each due check is claimed by one prober of a vantage, however many claim at once, and is due again once within the next interval, not within half of it; each vantage has its own schedule', async () => {
  const db = app.service.database.db;
  await registerVantage(db, 'here', true);
  await registerVantage(db, 'there', true);
  const claimedAt = Date.now();
  const claims = await Promise.all([1, 2, 3].map(() => claimDueVotes(db, 'here', 100, 1)));
  const ids = claims.flat().map((c) => c.id);
  expect(ids).toHaveLength(CHECKS);
  expect(new Set(ids).size).toBe(CHECKS);
  expect(await claimDueVotes(db, 'here', 100, 1)).toEqual([]);
  // the other vantage's claims are its own: every check, once
  const there = (await Promise.all([1, 2].map(() => claimDueVotes(db, 'there', 100, 1)))).flat().map((c) => c.id);
  expect(there.sort()).toEqual([...ids].sort());
  // within the next interval each is due again, once (on the beat of its schedule), and none within half an
  // interval of its claim
  const again: { id: number; after: number }[] = [];
  while (Date.now() < claimedAt + 1_400) {
    for (const check of await claimDueVotes(db, 'here', 100, 1)) again.push({ id: check.id, after: Date.now() - claimedAt });
    await sleep(50);
  }
  expect(again.map((c) => c.id).sort()).toEqual([...ids].sort());
  expect(Math.min(...again.map((c) => c.after))).toBeGreaterThanOrEqual(490);
});

test('the panic freeze of one vantage: twenty checks across four networks failing at once take nothing down, every member shows frozen, the operator is told', async () => {
  // fourteen checks more, on three more networks (127.0.1.1, 127.0.2.1, 127.0.3.1): twenty across four
  const others = await Promise.all(
    [1, 2, 3].map(async (net) => {
      const other = http.createServer((_req, res) => res.end('ok'));
      await new Promise<void>((resolve) => other.listen(0, `127.0.${net}.1`, resolve));
      return { other, address: `127.0.${net}.1`, port: (other.address() as AddressInfo).port };
    }),
  );
  const ids: string[] = [];
  for (let i = 0; i < PANIC_CHECKS - CHECKS; i++) {
    const { address, port: otherPort } = others[i % others.length];
    const res = await app.gql(`mutation($z: String!, $i: SteeringCheckInput!) { createSteeringCheck(zone: $z, input: $i) { id } }`, {
      z: ZONE,
      i: { name: `p${i}`, protocol: 'tcp', address, port: otherPort },
    });
    if (res.errors) throw new Error(JSON.stringify(res.errors));
    ids.push(res.data.createSteeringCheck.id);
  }
  // a steered RRset following one of them, for the member's row
  const steered = await app.gql(`mutation($z: String!, $i: SteeredRrsetInput!) { createSteeredRrset(zone: $z, input: $i) { id } }`, {
    z: ZONE,
    i: { owner: 'frozen', type: 'A', pools: [{ members: [{ value: '192.0.2.7', checkId: ids[0] }] }], backup: ['192.0.2.99'] },
  });
  if (steered.errors) throw new Error(JSON.stringify(steered.errors));
  // two processes' probers of the one vantage, each kept by its own duty runner as a worker keeps it
  const probers = [1, 2].map(() => new DutyRunner(logger));
  for (const runner of probers)
    await runner.start(steeringDuties(new SteeringProber(app.settings, app.service.database.db, logger, app.service.services.writeEngine)));
  try {
    await waitFor('the checks to come up', async () => ((await statuses()).every((s) => s === 'up') ? true : undefined), 15_000);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    for (const { other } of others) {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
    // every check fails its probes (fall is 2): well past fall, none went down, each shows frozen
    await waitFor(
      'every check to be held by the panic freeze',
      async () => {
        const res = await app.gql(`query($n: String) { domain(name: $n) { steeringChecks { lastOk condition heldSince } } }`, { n: ZONE });
        return res.data.domain.steeringChecks.every((c: any) => c.lastOk === false && c.condition === 'FROZEN' && c.heldSince)
          ? true
          : undefined;
      },
      10_000,
    );
    await sleep(2_000);
    expect(await statuses()).toEqual(Array(PANIC_CHECKS).fill('up'));
    expect(await metrics.getSingleMetricAsString('zonekeeper_steering_panic')).toMatch(/zonekeeper_steering_panic 1/);
    const scraped = await app.http.get('/metrics');
    expect(scraped.text).toMatch(new RegExp(`zonekeeper_steering_checks_held\\{reason="panic"\\} ${PANIC_CHECKS}`));
    const events = await waitFor('the steering.panic event', async () => {
      const feed = await app.http.get('/api/events?types=steering.panic&limit=10').set('X-API-Key', ADMIN_KEY);
      return feed.body.events.length ? feed.body.events : undefined;
    });
    expect(events[0]).toMatchObject({
      type: 'steering.panic',
      zone: null,
      data: { frozen: true, total: PANIC_CHECKS, failingNetworks: 4, vantage: 'primary' },
    });
    // the member's row, on every edge, says frozen, never up and healthy
    const member = (
      await app.gql(`query($n: String) { domain(name: $n) { steeredRrsets { served pools { members { healthy condition } } } } }`, {
        n: ZONE,
      })
    ).data.domain.steeredRrsets[0];
    expect(member).toEqual({ served: ['192.0.2.7'], pools: [{ members: [{ healthy: false, condition: 'FROZEN' }] }] });
    const rest = await app.http.get(`/api/domain/steering/${ZONE}`).set('X-API-Key', ADMIN_KEY);
    expect(rest.status).toBe(200);
    expect(rest.body.rrsets[0].pools[0].members[0]).toMatchObject({ healthy: false, condition: 'frozen', status: 'up' });
    expect(rest.body.checks.every((c: { condition: string }) => c.condition === 'frozen')).toBe(true);
    // and the home's list of what needs attention names the zone and why
    const attention = await app.gql(`{ attention { steering { totalCount items { zone { name } kind detail } } } }`);
    expect(attention.data.attention.steering.totalCount).toBe(1);
    expect(attention.data.attention.steering.items[0]).toMatchObject({ zone: { name: ZONE }, kind: 'STEERING_HELD' });
    expect(attention.data.attention.steering.items[0].detail).toMatch(/check p0 fails but is held up by the panic freeze/);
  } finally {
    for (const runner of probers) await runner.stop();
    // the endpoint back for the other tests of the file, the panic's checks and RRset gone
    for (const id of ids) await app.service.database.db.affected(`delete from steering_checks where id = $1`, [id]);
    await app.service.database.db.affected(`delete from steered_rrsets where owner = 'frozen'`);
    server = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  }
}, 90_000);

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
