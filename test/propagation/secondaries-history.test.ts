/**
 * Propagation status follows the configured SECONDARIES whatever their history: with none configured a zone
 * says so; a zone made before a secondary was configured is adopted and reaches in_sync without any change to
 * it (a restart alone once left it pending for ever); a secondary taken out of SECONDARIES leaves the status
 * (and its rows go) instead of staying in_sync at an old serial.
 */
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { Client } from 'pg';
import { loadSettings } from '../../src/config/settings';
import { RunningService, startService } from '../../src/main';
import { ADMIN_KEY } from '../support/test-app';
import { createTestDatabase } from '../support/test-db';
import { freePort, Knot, startKnot, waitFor } from './knot';

const CATALOG = 'catalog.zk-history.test';
const KEY_NAME = 'zk-history-key';
const SECRET = randomBytes(32).toString('base64');
const ZONE = 'before.zk-history.test';

let knot: Knot;
let database: { url: string; drop(): Promise<void> };
let dnsPort: number;
let running: RunningService | undefined;

async function start(secondaries: string) {
  const service = await startService(
    loadSettings({
      DATABASE_URL: database.url,
      API_KEY: ADMIN_KEY,
      PORT: '0',
      HOST: '127.0.0.1',
      ROLES: 'api,dns,worker',
      DNS_LISTEN: `127.0.0.1:${dnsPort}`,
      SECONDARIES: secondaries,
      TSIG_KEY: `${KEY_NAME}:hmac-sha256:${SECRET}`,
      CATALOG_ZONE: CATALOG,
      LOG_LEVEL: 'silent',
    }),
  );
  running = service;
  const http = request(`http://127.0.0.1:${service.httpPort}`);
  const gql = async (query: string, variables?: object) => {
    const res = await http.post('/graphql').set('X-API-Key', ADMIN_KEY).send({ query, variables });
    expect(res.body.errors).toBeUndefined();
    return res.body.data;
  };
  const status = async () =>
    (
      await gql(`query($z: String) { domain(name: $z) { serial propagation { state message servers { server state servedSerial } } } }`, {
        z: ZONE,
      })
    ).domain;
  return { service, gql, status, http };
}

async function stop() {
  await running?.stop();
  running = undefined;
}

/** /metrics as a look-up of one series' value (0 when absent) */
async function scrape(http: ReturnType<typeof request>): Promise<(series: string) => number> {
  const text = (await http.get('/metrics')).text;
  return (series) =>
    Number(
      text
        .split('\n')
        .find((line) => line.startsWith(`${series} `))
        ?.split(' ')[1] ?? 0,
    );
}

async function statusRows(): Promise<string[]> {
  const client = new Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query('select server from zone_server_status order by server');
    return rows.map((r) => r.server);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  database = await createTestDatabase();
  dnsPort = await freePort();
  knot = await startKnot({ catalogZone: CATALOG, primaryPort: dnsPort, tsig: { name: KEY_NAME, secret: SECRET } });
}, 60_000);

afterAll(async () => {
  await stop();
  await knot?.stop();
  await database?.drop();
});

test('no secondaries configured: the zone says so (GraphQL and REST), not in_sync with an empty list', async () => {
  const app = await start('');
  const user = await app.gql(`mutation { createUser(input: {email: "history@zk-history.test"}) { id } }`);
  await app.gql(`mutation($u: ID!) { createDomain(input: {userId: $u, zone: "${ZONE}"}) { id } }`, { u: user.createUser.id });
  const status = await app.status();
  expect(status.propagation).toEqual({ state: 'no_secondaries', message: 'no secondaries configured (SECONDARIES is empty)', servers: [] });
  const rest = await app.http.get(`/api/domain/status/${ZONE}`).set('X-API-Key', ADMIN_KEY);
  expect(rest.body).toMatchObject({ state: 'no_secondaries', message: 'no secondaries configured (SECONDARIES is empty)', servers: [] });
  await stop();
}, 60_000);

test('a secondary configured after the zone was made: adopted, and in_sync with no change to the zone', async () => {
  const app = await start(`127.0.0.1:${knot.port}`);
  const before = await app.status();
  await waitFor(
    'the zone in sync on Knot',
    async () => {
      const status = await app.status();
      return status.propagation.state === 'in_sync' ? status : undefined;
    },
    30_000,
  );
  const after = await app.status();
  // nothing changed the zone: the same serial, now served
  expect(after.serial).toBe(before.serial);
  expect(after.propagation.servers).toEqual([{ server: `127.0.0.1:${knot.port}`, state: 'in_sync', servedSerial: before.serial }]);
  const metrics = await scrape(app.http);
  expect(metrics(`zonekeeper_secondary_zones_behind{server="127.0.0.1:${knot.port}"}`)).toBe(0);
  expect(metrics(`zonekeeper_secondary_lag_seconds{server="127.0.0.1:${knot.port}"}`)).toBe(0);
  await stop();
}, 60_000);

test('a secondary taken out of SECONDARIES leaves the status, and its rows go', async () => {
  const other = `127.0.0.1:${await freePort()}`;
  const app = await start(other);
  const status = await app.status();
  expect(status.propagation.servers.map((s: any) => s.server)).toEqual([other]);
  expect(status.propagation.state).toBe('pending');
  // nothing answers there: the zone (and the catalog's NOTIFY) is behind, and the NOTIFYs fail
  await waitFor(
    'the lag and the failed NOTIFYs on /metrics',
    async () => {
      const metrics = await scrape(app.http);
      return metrics(`zonekeeper_secondary_zones_behind{server="${other}"}`) >= 1 &&
        metrics(`zonekeeper_secondary_lag_seconds{server="${other}"}`) > 0 &&
        metrics(`zonekeeper_notify_total{server="${other}",outcome="failed"}`) >= 1
        ? true
        : undefined;
    },
    20_000,
  );
  await waitFor(
    'the removed server forgotten',
    async () => {
      const rows = await statusRows();
      return rows.every((server) => server === other) ? rows : undefined;
    },
    10_000,
  );
  await stop();
}, 60_000);
