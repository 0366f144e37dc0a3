import 'reflect-metadata';
import { Client } from 'pg';
import request from 'supertest';
import { loadSettings } from '../../src/config/settings';
import { RunningService, startService } from '../../src/main';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createUser, createZone, errorCode } from '../support/fixtures';

/**
 * A protected RRset holds against every interleaving (docs/changes.md, «A zone's rules»): two service processes on
 * one database (each its own write engine, its own zone queue and zone heads), the one locking an RRset while the
 * other creates a record in it, round after round. A lock and a write of one RRset are ordered: whichever commits
 * first, the other sees it. The lock's audit row names the zone's serial when it was taken (read holding the zone
 * row's lock), so a record written after the lock committed is one whose journal row's serial is above it.
 */
const ROUNDS = 200;
const ZONE = 'race.test';
let app: TestApp;
let other: { service: RunningService; http: ReturnType<typeof request> };
let databaseUrl: string;
let db: Client;

beforeAll(async () => {
  app = await startTestApp((url) => {
    databaseUrl = url;
    return {};
  });
  const service = await startService(
    loadSettings({
      DATABASE_URL: databaseUrl,
      API_KEY: ADMIN_KEY,
      PORT: '0',
      HOST: '127.0.0.1',
      DNS_LISTEN: '',
      ROLES: 'api',
      LOG_LEVEL: 'silent',
      HEALTH_CHECK_INTERVAL: '0',
    }),
  );
  other = { service, http: request(`http://127.0.0.1:${service.httpPort}`) };
  db = new Client({ connectionString: databaseUrl });
  await db.connect();
  await createZone(app, await createUser(app, 'race@example.org'), ZONE);
}, 120_000);
afterAll(async () => {
  await db?.end();
  await other?.service.stop();
  await app?.close();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test(`${ROUNDS} rounds of lockRrset on one process and createRecord on another: no write lands after the lock committed`, async () => {
  const outcomes: { owner: string; created: boolean; code?: string }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const owner = `r${round}`;
    // each side starts after a pause of its own (0 to 4 ms), so that the rounds try many interleavings
    const [locked, created] = await Promise.all([
      pause(round % 5).then(() =>
        app.gql(`mutation($z: String!, $o: String!) { lockRrset(zone: $z, owner: $o, type: "A") { owner } }`, { z: ZONE, o: owner }),
      ),
      pause((round * 7) % 4).then(() =>
        other.http
          .post('/graphql')
          .set('X-API-Key', ADMIN_KEY)
          .send({ query: CREATE_RECORD, variables: { input: { zone: ZONE, owner, type: 'A', rdata: '192.0.2.1', ttl: 300 } } }),
      ),
    ]);
    expect(errorCode(locked)).toBeUndefined();
    const code = errorCode(created.body);
    // the write either came first (written) or met the lock (refused): never anything else
    if (code !== undefined) expect(code).toBe('RRSET_PROTECTED');
    outcomes.push({ owner, created: code === undefined, code });
  }

  // the serial each lock was taken at, and the serial each record's write made
  const locks = await db.query<{ owner: string; serial: string }>(
    `select detail->>'owner' as owner, detail->>'serial' as serial from audit_events where kind = 'rrset-locked' and subject = $1`,
    [`zone:${ZONE}`],
  );
  const lockedAt = new Map(locks.rows.map((r) => [r.owner, Number(r.serial)]));
  const writes = await db.query<{ owner: string; serial: string }>(
    `select a->>'owner' as owner, c.serial_after as serial from changes c, jsonb_array_elements(c.added) a
      where c.zone = $1 and a->>'type' = 'A'`,
    [ZONE],
  );
  const writtenAt = new Map(writes.rows.map((r) => [r.owner, Number(r.serial)]));
  const late = outcomes
    .filter((o) => o.created)
    .filter((o) => writtenAt.get(o.owner)! > lockedAt.get(o.owner)!)
    .map((o) => `${o.owner}: written at serial ${writtenAt.get(o.owner)}, locked at ${lockedAt.get(o.owner)}`);
  expect(late).toEqual([]);
  // and what each answered is what the zone holds: a refused write left no record
  const served = await db.query<{ owner: string }>(
    `select r.owner from records r join domains d on d.id = r.domain_id where d.name = $1 and r.type = 'A'`,
    [ZONE],
  );
  expect(served.rows.map((r) => r.owner).sort()).toEqual(
    outcomes
      .filter((o) => o.created)
      .map((o) => o.owner)
      .sort(),
  );
  // both orders happened: the rounds raced
  const created = outcomes.filter((o) => o.created).length;
  console.log(`lock/write race: ${created} of ${ROUNDS} writes came first, ${ROUNDS - created} met the lock`);
  expect(created).toBeGreaterThan(0);
  expect(created).toBeLessThan(ROUNDS);
}, 300_000);
