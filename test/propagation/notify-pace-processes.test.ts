/**
 * A secondary's NOTIFY pace learnt across processes (docs/propagation.md, «NOTIFY»; docs/scale.md): the DNS primary
 * runs in one service process (ROLES=api,dns), the worker that sends the NOTIFYs in another (ROLES=api,worker), on
 * one database, with a Knot secondary that takes its zones from the catalog. The worker starts at
 * NOTIFY_RATE_PER_SECONDARY=5; Knot asks the other process's primary for each zone it is NOTIFYed of, and those
 * requests reach the worker through PostgreSQL (src/services/transfers/secondary-requests-relay.ts): seen taking
 * the whole pace while NOTIFYs queue, Knot is paced faster. A worker that heard nothing would keep 5 a second.
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { buildOnce } from '../support/build';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';
import { ADMIN_KEY } from '../support/test-app';
import { createTestDatabase } from '../support/test-db';
import { dig, freePort, Knot, servedSerial, startKnot, waitFor } from './knot';

const CATALOG = 'catalog.zk-pace.test';
const KEY_NAME = 'zk-pace-key';
const SECRET = randomBytes(32).toString('base64');
/** NOTIFYs a second to Knot before its pace is learnt: the floor (MIN_RATE), so that only a rise can be seen */
const START_RATE = 5;
/** zones made, then changed: at the starting pace their NOTIFYs take 24 s */
const ZONES = Array.from({ length: 120 }, (_, i) => `z${i}.zk-pace.test`);

let database: { url: string; drop(): Promise<void> };
let knot: Knot;
let dnsPort: number;
const processes: ServiceProcess[] = [];

/** a service process with these roles (the built service), once its API answers and, with the dns role, its primary */
async function startProcess(roles: string): Promise<ReturnType<typeof request>> {
  const port = await freePort();
  const service = startServiceProcess(
    {
      DATABASE_URL: database.url,
      API_KEY: ADMIN_KEY,
      PORT: String(port),
      HOST: '127.0.0.1',
      ROLES: roles,
      DNS_LISTEN: roles.includes('dns') ? `127.0.0.1:${dnsPort}` : '',
      SECONDARIES: `127.0.0.1:${knot.port}`,
      TSIG_KEY: `${KEY_NAME}:hmac-sha256:${SECRET}`,
      CATALOG_ZONE: CATALOG,
      NOTIFY_RATE_PER_SECONDARY: String(START_RATE),
      DEFAULT_WWW_CNAME: 'off',
      HEALTH_CHECK_INTERVAL: '0',
      LOG_LEVEL: 'warn',
    },
    { ownEnvironment: true },
  );
  processes.push(service);
  const http = request(`http://127.0.0.1:${port}`);
  await waitFor(
    `the service (${roles}) to answer`,
    async () => {
      if (service.child.exitCode !== null) throw new Error(`the service exited: ${service.output()}`);
      if ((await http.get('/ready').catch(() => undefined))?.status !== 200) return undefined;
      if (!roles.includes('dns')) return true;
      const soa = await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', CATALOG, 'SOA']).catch(() => undefined);
      return soa?.status === 'NOERROR' ? true : undefined;
    },
    30_000,
    100,
  );
  return http;
}

async function gql(http: ReturnType<typeof request>, query: string, variables: Record<string, unknown> = {}) {
  const res = await http.post('/graphql').set('X-API-Key', ADMIN_KEY).send({ query, variables });
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
}

/** the pace (NOTIFYs a second) the worker gives Knot now, from its /metrics */
async function paceOfKnot(worker: ReturnType<typeof request>): Promise<number | undefined> {
  const metrics = (await worker.get('/metrics')).text;
  const pace = new RegExp(`^zonekeeper_notify_pace\\{server="127\\.0\\.0\\.1:${knot.port}"\\} ([\\d.]+)$`, 'm').exec(metrics);
  return pace ? Number(pace[1]) : undefined;
}

/** how many of the zones Knot serves at these serials or later (20 SOA queries at a time) */
async function servedAt(serials: Map<string, number>): Promise<number> {
  const zones = [...serials];
  let served = 0;
  for (let i = 0; i < zones.length; i += 20) {
    const answers = await Promise.all(
      zones.slice(i, i + 20).map(async ([zone, serial]) => ((await servedSerial(knot.port, zone)) ?? -1) >= serial),
    );
    served += answers.filter(Boolean).length;
  }
  return served;
}

beforeAll(() => buildOnce(), 300_000);

beforeAll(async () => {
  database = await createTestDatabase({ migrated: true });
  dnsPort = await freePort();
  knot = await startKnot({ catalogZone: CATALOG, primaryPort: dnsPort, tsig: { name: KEY_NAME, secret: SECRET } });
}, 60_000);

afterAll(async () => {
  for (const service of processes) await service.stop();
  await knot?.stop();
  await database?.drop();
});

test("the worker learns Knot's pace from what Knot asks the other process's primary", async () => {
  const primary = await startProcess('api,dns');
  const worker = await startProcess('api,worker');
  const user = await gql(primary, 'mutation { createUser(input: {email: "pace@zk-pace.test"}) { id } }');
  const made = await gql(primary, 'mutation($input: [CreateDomainInput!]!) { createDomains(input: $input) { name serial } }', {
    input: ZONES.map((zone) => ({ userId: user.createUser.id, zone })),
  });
  const first = new Map<string, number>(made.createDomains.map((zone: { name: string; serial: number }) => [zone.name, zone.serial]));
  await waitFor('Knot to serve every zone', async () => ((await servedAt(first)) === ZONES.length ? true : undefined), 120_000, 500);

  // a change to every zone: a NOTIFY each, queued at Knot's pace, which Knot takes as fast as it is sent
  const started = Date.now();
  const changed = new Map<string, number>();
  for (const zone of ZONES) {
    const result = await gql(
      primary,
      'mutation($z: String!) { applyZoneChanges(zone: $z, changes: [{kind: ADD, owner: "paced", type: "TXT", rdata: "\\"1\\"", ttl: 300}]) { serial } }',
      { z: zone },
    );
    changed.set(zone, result.applyZoneChanges.serial);
  }
  const rose = await waitFor(
    "Knot's pace to rise above where it started",
    async () => {
      const pace = await paceOfKnot(worker);
      return pace !== undefined && pace > START_RATE ? pace : undefined;
    },
    60_000,
    200,
  );
  await waitFor(
    'Knot to serve every zone at its new serial',
    async () => ((await servedAt(changed)) === ZONES.length ? true : undefined),
    120_000,
    500,
  );
  process.stdout.write(
    `Knot paced at ${rose} a second (from ${START_RATE}); ${ZONES.length} changed zones served ${((Date.now() - started) / 1000).toFixed(1)} s after the first change (${ZONES.length / START_RATE} s at the starting pace)\n`,
  );
}, 300_000);
