import 'reflect-metadata';
import request from 'supertest';
import { Client } from 'pg';
import { loadSettings } from '../../src/config/settings';
import { RunningService, startService } from '../../src/main';
import { AutoFailoverFormation } from '../support/auto-failover';
import { expectNothingLost, writeLoad } from '../support/failover-load';
import { freePort } from '../support/free-port';
import { ADMIN_KEY } from '../support/test-app';
import { waitUntil } from '../support/wait-for';
import { randomBytes } from 'node:crypto';
import { Knot, servedSerial, startKnot } from '../propagation/knot';

/**
 * The service on a pg_auto_failover formation (Debian's postgresql-15-auto-failover: a monitor and two data
 * nodes, synchronous), DATABASE_URL as `pg_autoctl show uri` gives it (both nodes, target_session_attrs=
 * read-write), under write load from REST, GraphQL and DNS UPDATE (16 clients): a planned switchover
 * (`pg_autoctl perform switchover`), then kill -9 of the primary's postmaster. The service never exits,
 * answers 503 (SERVFAIL to UPDATE) only while no node is writable, every acknowledged write is kept, the
 * serial chain has no gap, the formation settles again with a primary and a secondary, and a Knot
 * secondary reaches the final serial by IXFR alone. The figures are
 * printed (docs/deployment.md), not asserted.
 */
describe('on a pg_auto_failover formation under write load', () => {
  const formation = new AutoFailoverFormation();
  let service: RunningService;
  let http: ReturnType<typeof request>;
  let updateKey: { name: string; algorithm: 'hmac-sha256'; secret: Buffer };
  const zone = 'auto-failover.example';
  const CATALOG = 'catalog.zk-auto-failover.test';
  const tsig = { name: 'zk-auto-failover', secret: randomBytes(32).toString('base64') };
  let knot: Knot;
  /** where Knot's log stood once it held the zone: every transfer after it must be an IXFR */
  let knotLogBefore = 0;
  const gql = (query: string, variables?: Record<string, unknown>) =>
    http.post('/graphql').set('X-API-Key', ADMIN_KEY).set('content-type', 'application/json').send({ query, variables });
  /** statements on the formation's primary now */
  const onPrimary = async (statement: string, database = 'zk') => {
    const primary = await formation.settled();
    const client = new Client({ connectionString: formation.nodeUrl(primary.port, database) });
    await client.connect();
    try {
      return (await client.query(statement)).rows;
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    await formation.start();
    await onPrimary('create database zk', 'postgres');
    const dnsPort = await freePort();
    knot = await startKnot({ catalogZone: CATALOG, primaryPort: dnsPort, tsig });
    service = await startService(
      loadSettings({
        DATABASE_URL: formation.url('zk'),
        API_KEY: ADMIN_KEY,
        PORT: '0',
        HOST: '127.0.0.1',
        DNS_LISTEN: `127.0.0.1:${dnsPort}`,
        SECONDARIES: `127.0.0.1:${knot.port}`,
        TSIG_KEY: `${tsig.name}:hmac-sha256:${tsig.secret}`,
        CATALOG_ZONE: CATALOG,
        SERIAL_POLICY: 'increment',
        // the load's DNS UPDATEs (a user's key) would otherwise meet the zone's change rate (20/s, burst 100) and be
        // answered REFUSED (RATE_LIMITED), an answer the load counts as unexpected: this test is about the switch
        ZONE_CHANGES_PER_SECOND: '0',
        LOG_LEVEL: 'silent',
      }),
    );
    http = request(`http://127.0.0.1:${service.httpPort}`);
    const user = await gql('mutation { createUser(input: {email: "auto@example.org"}) { id } }');
    const created = await gql('mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }', {
      u: user.body.data.createUser.id,
      z: zone,
    });
    expect(created.body.errors).toBeUndefined();
    const key = await gql('mutation($u: ID!) { createTsigKey(input: {userId: $u, name: "auto-key"}) { secret } }', {
      u: user.body.data.createUser.id,
    });
    updateKey = { name: 'auto-key', algorithm: 'hmac-sha256', secret: Buffer.from(key.body.data.createTsigKey.secret, 'base64') };
    await waitUntil(`${zone} at the Knot secondary`, async () => (await servedSerial(knot.port, zone)) !== undefined, 60_000);
    knotLogBefore = knot.log().length;
  }, 180_000);

  afterAll(async () => {
    await service?.stop();
    await knot?.stop();
    await formation.stop();
  }, 90_000);

  it('pg_autoctl perform switchover: writes go on on the new primary, nothing lost', async () => {
    const before = await formation.settled();
    const load = writeLoad({ http, dnsPort: service.dnsPort!, zone, updateKey });
    await waitUntil('writes acknowledged before the switchover', () => load.acknowledged.length >= 50, 30_000);
    load.phase = 'switchover';
    const startedAt = Date.now();
    await formation.switchover().catch(async (error) => {
      await load.stop();
      throw error;
    });
    const after = await formation.settled();
    const doneAt = Date.now();
    await waitUntil('writes acknowledged on the new primary', () => load.acknowledgedSince(doneAt) >= 30, 60_000);
    await load.stop();
    process.stdout.write(
      `pg_auto_failover switchover: ${doneAt - startedAt} ms from the command to a settled formation, writes refused (503 / SERVFAIL: ${load.refused().reduce((sum, key) => sum + load.answers.get(key)!, 0)}) for ${load.refusedFor()} ms, no write acknowledged for ${load.longestPauseAfter(startedAt)} ms at most; answers ${JSON.stringify(Object.fromEntries(load.answers))}\n`,
    );
    expect(after.port).not.toBe(before.port);
    expect(load.unexpected()).toEqual([]);
    await expectNothingLost((statement) => onPrimary(statement), zone, load.acknowledged);
  }, 180_000);

  it("kill -9 of the primary's postmaster: 503 only meanwhile, nothing acknowledged lost, the formation settles", async () => {
    const primary = await formation.settled();
    const load = writeLoad({ http, dnsPort: service.dnsPort!, zone, updateKey });
    await waitUntil('writes acknowledged before the kill', () => load.acknowledged.length >= 50, 30_000);
    load.phase = 'kill';
    const killedAt = Date.now();
    formation.killPostmaster(primary.port);
    await waitUntil('writes acknowledged after the kill', () => load.acknowledgedSince(killedAt + 1000) >= 30, 120_000);
    const settled = await formation.settled(2, 120_000);
    await load.stop();
    process.stdout.write(
      `pg_auto_failover kill -9: no write acknowledged for ${load.longestPauseAfter(killedAt)} ms at most after the kill, writes refused for ${load.refusedFor()} ms (the primary now on ${settled.port === primary.port ? 'the same node, restarted by its keeper' : 'the other node'}); answers ${JSON.stringify(Object.fromEntries(load.answers))}\n`,
    );
    expect(load.unexpected()).toEqual([]);
    expect((await http.get('/health')).status).toBe(200);
    await expectNothingLost((statement) => onPrimary(statement), zone, load.acknowledged);
  }, 240_000);

  it('the Knot secondary serves the final serial, every transfer since it held the zone an IXFR or its fallback after a SERVFAIL', async () => {
    const [{ serial }] = await onPrimary(`select serial::int from domains where name = '${zone}'`);
    await waitUntil('the Knot secondary at the final serial', async () => (await servedSerial(knot.port, zone)) === serial, 60_000);
    const zoneLines = knot
      .log()
      .slice(knotLogBefore)
      .split('\n')
      .filter((line) => line.includes(`[${zone}.]`));
    expect(zoneLines.some((line) => line.includes('IXFR, incoming'))).toBe(true);
    // refreshes that met the switch failed and were retried (Knot's retry timer); no full transfer completed.
    // Knot takes any RCODE but NOERROR to its IXFR, SERVFAIL included, as "not allowed" (KNOT_EDENIED in
    // refresh.c's ixfr_consume) and asks for an AXFR at once, which the primary answers SERVFAIL while the
    // database moves: such a refresh logs "fallback to AXFR (not allowed)" although the primary answered as it
    // should (docs/deployment.md, «Known gaps»). What must hold: every error Knot got was SERVFAIL (never a
    // refusal, REFUSED or NOTAUTH), and every fallback followed an IXFR answered SERVFAIL
    const errors = zoneLines.filter((line) => line.includes('server responded with error'));
    expect(errors.filter((line) => !line.includes("server responded with error 'SERVFAIL'"))).toEqual([]);
    const fallbacksWithout = zoneLines.filter(
      (line, at) =>
        line.includes('fallback to AXFR') &&
        !/IXFR, incoming.*server responded with error 'SERVFAIL'/.test(
          zoneLines
            .slice(0, at)
            .reverse()
            .find((earlier) => earlier.includes('IXFR, incoming')) ?? '',
        ),
    );
    expect(fallbacksWithout).toEqual([]);
    const fallbacks = zoneLines.filter((line) => /fallback to AXFR|AXFR, incoming|server responded with error/.test(line));
    if (fallbacks.length) process.stdout.write(`Knot's errors and fallbacks to AXFR during the switch:\n${fallbacks.join('\n')}\n`);
    // the primary never answered an IXFR with the whole zone; a full transfer completes only as Knot's own fallback,
    // when the database came back in the moment between the IXFR answered SERVFAIL and the AXFR Knot asked at once
    expect(zoneLines.filter((line) => line.includes('AXFR-style'))).toEqual([]);
    const fullTransfersNotFallbacks = zoneLines.filter(
      (line, at) =>
        /AXFR, incoming.*finished/.test(line) &&
        !(
          zoneLines
            .slice(0, at)
            .reverse()
            .find((earlier) => earlier.includes('fallback to AXFR') || earlier.includes('IXFR, incoming')) ?? ''
        ).includes('fallback to AXFR'),
    );
    expect(fullTransfersNotFallbacks).toEqual([]);
  }, 90_000);
});
