/**
 * Nothing committed is lost when the primary and the worker are down: changes made while only the API runs
 * sit in the outbox and reach Knot once the dns and worker roles start again. Serials never go back across
 * restarts (zones and catalog).
 */
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { Client } from 'pg';
import { loadSettings } from '../../src/config/settings';
import { RunningService, startService } from '../../src/main';
import { ADMIN_KEY } from '../support/test-app';
import { createTestDatabase } from '../support/test-db';
import { dig, freePort, Knot, records, servedSerial, startKnot, waitFor } from './knot';

const CATALOG = 'catalog.zk-two.test';
const KEY_NAME = 'zk-restart-key';
const SECRET = randomBytes(32).toString('base64');

let knot: Knot;
let database: { url: string; drop(): Promise<void> };
let dnsPort: number;
let running: RunningService | undefined;

async function start(roles: string): Promise<{ service: RunningService; gql: (q: string, v?: object) => Promise<any> }> {
  const settings = loadSettings({
    DATABASE_URL: database.url,
    API_KEY: ADMIN_KEY,
    PORT: '0',
    HOST: '127.0.0.1',
    ROLES: roles,
    DNS_LISTEN: roles.includes('dns') ? `127.0.0.1:${dnsPort}` : '',
    SECONDARIES: `127.0.0.1:${knot.port}`,
    TSIG_KEY: `${KEY_NAME}:hmac-sha256:${SECRET}`,
    CATALOG_ZONE: CATALOG,
    LOG_LEVEL: 'silent',
  });
  const service = await startService(settings);
  running = service;
  const http = request(`http://127.0.0.1:${service.httpPort}`);
  return {
    service,
    async gql(query, variables) {
      const res = await http.post('/graphql').set('X-API-Key', ADMIN_KEY).send({ query, variables });
      expect(res.body.errors).toBeUndefined();
      return res.body.data;
    },
  };
}

async function stop(service: RunningService) {
  await service.stop();
  if (running === service) running = undefined;
}

beforeAll(async () => {
  database = await createTestDatabase();
  dnsPort = await freePort();
  knot = await startKnot({ catalogZone: CATALOG, primaryPort: dnsPort, tsig: { name: KEY_NAME, secret: SECRET } });
}, 60_000);

afterAll(async () => {
  if (running) await running.stop();
  await knot?.stop();
  await database?.drop();
});

const aRecord = async (name: string) =>
  records(await dig(['@127.0.0.1', '-p', String(knot.port), '+norec', name, 'A']))
    .filter((r) => r.type === 'A')
    .map((r) => r.rdata);

test('changes made while the primary and the worker are down reach Knot after the restart', async () => {
  const first = await start('api,dns,worker');
  const user = await first.gql(`mutation { createUser(input: {email: "restart@example.com"}) { id } }`);
  const one = (
    await first.gql(`mutation($u: ID!) { createDomain(input: {userId: $u, zone: "one.zk-two.test"}) { id serial } }`, {
      u: user.createUser.id,
    })
  ).createDomain;
  await waitFor('Knot to serve one.zk-two.test', async () =>
    (await servedSerial(knot.port, 'one.zk-two.test')) === one.serial ? true : undefined,
  );
  await stop(first.service);

  // only the API runs: the changes commit with their outbox rows, nobody publishes them
  const apiOnly = await start('api');
  const two = (
    await apiOnly.gql(`mutation($u: ID!) { createDomain(input: {userId: $u, zone: "two.zk-two.test"}) { id serial } }`, {
      u: user.createUser.id,
    })
  ).createDomain;
  await apiOnly.gql(
    `mutation { createRecord(input: {zone: "one.zk-two.test", owner: "late", type: "A", rdata: "203.0.113.5", ttl: 300}) { id } }`,
  );
  await apiOnly.gql(
    `mutation { createRecord(input: {zone: "two.zk-two.test", owner: "late", type: "A", rdata: "203.0.113.6", ttl: 300}) { id } }`,
  );
  const db = new Client({ connectionString: database.url });
  db.on('error', () => undefined);
  await db.connect();
  const { rows } = await db.query('select count(*)::int as n from changes where published_at is null');
  expect(rows[0].n).toBeGreaterThanOrEqual(4); // zone created + catalog + two record changes
  const catalogBefore = Number((await db.query('select serial from catalog_state where name = $1', [CATALOG])).rows[0].serial);
  expect(await aRecord('late.one.zk-two.test')).toEqual([]);
  await stop(apiOnly.service);

  // the primary and the worker come back: the outbox is drained, Knot follows
  const second = await start('api,dns,worker');
  await waitFor('Knot to serve late.one.zk-two.test', async () =>
    (await aRecord('late.one.zk-two.test')).join() === '203.0.113.5' ? true : undefined,
  );
  await waitFor('Knot to serve the zone created while down', async () =>
    (await aRecord('late.two.zk-two.test')).join() === '203.0.113.6' ? true : undefined,
  );
  expect(two.serial).toBeGreaterThan(0);
  const unpublished = await db.query('select count(*)::int as n from changes where published_at is null');
  expect(unpublished.rows[0].n).toBe(0);

  // serials never go back: the catalog's and the zones' serials after a restart are at least what they were
  const catalogAfter = Number((await db.query('select serial from catalog_state where name = $1', [CATALOG])).rows[0].serial);
  expect(catalogAfter).toBe(catalogBefore);
  const soa = records(await dig(['@127.0.0.1', '-p', String(dnsPort), CATALOG, 'SOA']));
  expect(Number(soa[0].rdata.split(' ')[2])).toBe(catalogBefore);
  await second.gql(`mutation { deleteDomain(zone: "two.zk-two.test") }`);
  const catalogLast = Number((await db.query('select serial from catalog_state where name = $1', [CATALOG])).rows[0].serial);
  expect(catalogLast).toBeGreaterThan(catalogBefore);
  await waitFor('Knot to drop two.zk-two.test', async () =>
    (await servedSerial(knot.port, 'two.zk-two.test')) === undefined ? true : undefined,
  );
  await db.end();
  await stop(second.service);
});
