import 'reflect-metadata';
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import request from 'supertest';
import { Client } from 'pg';
import { AutoFailoverFormation } from '../support/auto-failover';
import { expectNothingLost, writeLoad } from '../support/failover-load';
import { freePort } from '../support/free-port';
import { ADMIN_KEY } from '../support/test-app';
import { waitFor, waitUntil } from '../support/wait-for';
import { dig, Knot, records, servedSerial, startKnot } from '../propagation/knot';

/**
 * The combined run: two Zonekeeper processes of every role (each ROLES=api,dns,worker: two HTTP
 * APIs, two DNS primaries, two workers; real processes) on a pg_auto_failover formation, under write load
 * from REST, GraphQL and DNS UPDATE on both, with DNSSEC key rolls in progress. Then kill -9 of the primary's
 * postmaster and kill -9 of one Zonekeeper process at the same moment. What must hold: no acknowledged write
 * lost, each zone's serial chain in the journal gap-free, no key event doubled and every roll ended by the
 * process left (the duties done once, docs/deployment.md «Several processes»), and a Knot secondary (whose
 * primaries are both processes) serves each zone's final serial, its AXFR equal to the zone as the database
 * holds it. The figures are printed (docs/deployment.md), not asserted.
 */
const root = path.resolve(__dirname, '..', '..');
const ZONE = 'combined.example';
const SIGNED = ['roll0.zk-combined.test', 'roll1.zk-combined.test'];
const CATALOG = 'catalog.zk-combined.test';

interface ZonekeeperProcess {
  child: ChildProcess;
  httpPort: number;
  dnsPort: number;
  http: ReturnType<typeof request>;
  output(): string;
}

describe('two processes of every role on a pg_auto_failover formation: kill -9 of the primary and of one process', () => {
  const formation = new AutoFailoverFormation();
  const tsig = { name: 'zk-combined', secret: randomBytes(32).toString('base64') };
  let knot: Knot;
  const processes: ZonekeeperProcess[] = [];
  let updateKey: { name: string; algorithm: 'hmac-sha256'; secret: Buffer };

  /** statements on the formation's primary now */
  const onPrimary = async (statement: string, database = 'zk') => {
    const primary = await formation.settled(2, 120_000);
    const client = new Client({ connectionString: formation.nodeUrl(primary.port, database) });
    await client.connect();
    try {
      return (await client.query(statement)).rows;
    } finally {
      await client.end();
    }
  };

  const startZonekeeper = async (dnsPort: number): Promise<ZonekeeperProcess> => {
    const httpPort = await freePort();
    const child = spawn(process.execPath, ['--require', '@swc-node/register', 'src/main.ts'], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: formation.url('zk'),
        API_KEY: ADMIN_KEY,
        PORT: String(httpPort),
        HOST: '127.0.0.1',
        ROLES: 'api,dns,worker',
        DNS_LISTEN: `127.0.0.1:${dnsPort}`,
        SECONDARIES: `127.0.0.1:${knot.port}`,
        TSIG_KEY: `${tsig.name}:hmac-sha256:${tsig.secret}`,
        CATALOG_ZONE: CATALOG,
        SERIAL_POLICY: 'increment',
        ALLOWED_TTLS: 'any',
        DNSSEC_PROPAGATION_DELAY: '1',
        // the load's DNS UPDATEs would otherwise meet the zone's change rate: this test is about the failures
        ZONE_CHANGES_PER_SECOND: '0',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const http = request(`http://127.0.0.1:${httpPort}`);
    await waitFor(
      `the Zonekeeper process on ${httpPort}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`Zonekeeper exited: ${output}`);
        const res = await http.get('/ready').catch(() => undefined);
        return res?.status === 200 ? true : undefined;
      },
      60_000,
      200,
    );
    const started = { child, httpPort, dnsPort, http, output: () => output };
    processes.push(started);
    return started;
  };

  const gql = (query: string, variables?: Record<string, unknown>) =>
    processes[0].http.post('/graphql').set('X-API-Key', ADMIN_KEY).set('content-type', 'application/json').send({ query, variables });

  beforeAll(async () => {
    await formation.start();
    await onPrimary('create database zk', 'postgres');
    const dnsPorts = [await freePort(), await freePort()];
    knot = await startKnot({ catalogZone: CATALOG, primaryPort: dnsPorts[0], morePrimaryPorts: [dnsPorts[1]], tsig });
    // the first applies the migrations; the second starts while the zones are made through the first
    await startZonekeeper(dnsPorts[0]);
    const second = startZonekeeper(dnsPorts[1]);
    const user = await gql('mutation { createUser(input: {email: "combined@example.org"}) { id } }');
    const userId = user.body.data.createUser.id as string;
    const created = await gql('mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }', {
      u: userId,
      z: ZONE,
    });
    expect(created.body.errors).toBeUndefined();
    const key = await gql('mutation($u: ID!) { createTsigKey(input: {userId: $u, name: "combined-key"}) { secret } }', { u: userId });
    updateKey = { name: 'combined-key', algorithm: 'hmac-sha256', secret: Buffer.from(key.body.data.createTsigKey.secret, 'base64') };
    // signed zones with short TTLs, so that a ZSK roll takes its steps within seconds (DNSSEC_PROPAGATION_DELAY=1)
    for (const zone of SIGNED) {
      const made = await gql('mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }', {
        u: userId,
        z: zone,
      });
      expect(made.body.errors).toBeUndefined();
      const imported = await gql('mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t) { serial } }', {
        z: zone,
        t: `$ORIGIN ${zone}.\n@ 1 IN SOA ns1.${zone}. hostmaster.${zone}. 1 7200 3600 1209600 1\n@ 1 IN NS ns1.${zone}.\nns1 1 IN A 192.0.2.1\n`,
      });
      expect(imported.body.errors).toBeUndefined();
      const enabled = await gql('mutation($z: String!) { enableDnssec(input: {zone: $z}) { keys { keyTag } } }', { z: zone });
      expect(enabled.body.errors).toBeUndefined();
    }
    await second;
    for (const zone of [ZONE, ...SIGNED])
      await waitUntil(`${zone} at the Knot secondary`, async () => (await servedSerial(knot.port, zone)) !== undefined, 60_000);
  }, 240_000);

  afterAll(async () => {
    for (const { child } of processes) if (child.exitCode === null) child.kill('SIGKILL');
    await knot?.stop();
    await formation.stop();
  }, 90_000);

  it('0 acknowledged writes lost, the duties done once, the Knot secondary at the final serials with the database zones', async () => {
    const [kept, killed] = processes;
    const loads = processes.map((zonekeeper) => writeLoad({ http: zonekeeper.http, dnsPort: zonekeeper.dnsPort, zone: ZONE, updateKey }));
    await waitUntil('writes acknowledged by both processes', () => loads.every((load) => load.acknowledged.length >= 25), 30_000);
    for (const zone of SIGNED) {
      const rolled = await gql('mutation($z: String!) { rollDnssecKey(zone: $z, role: ZSK) { keys { keyTag } } }', { z: zone });
      expect(rolled.body.errors).toBeUndefined();
    }
    const primary = await formation.settled();
    for (const load of loads) load.phase = 'kill';
    const killedAt = Date.now();
    formation.killPostmaster(primary.port);
    killed.child.kill('SIGKILL');
    // the killed process's clients: what was in flight is lost (counted as no answer); they stop there
    await loads[1].stop();
    await waitUntil('writes acknowledged after the kills', () => loads[0].acknowledgedSince(killedAt + 1000) >= 30, 120_000);
    const settled = await formation.settled(2, 120_000);
    await loads[0].stop();
    process.stdout.write(
      `combined run: no write acknowledged for ${loads[0].longestPauseAfter(killedAt)} ms at most after the kills, writes refused for ${loads[0].refusedFor()} ms by the process left (the primary now on ${settled.port === primary.port ? 'the same node, restarted by its keeper' : 'the other node'}); answers ${JSON.stringify(Object.fromEntries(loads[0].answers))}; the killed process's ${JSON.stringify(Object.fromEntries(loads[1].answers))}\n`,
    );
    expect(killed.child.signalCode).toBe('SIGKILL');
    expect(kept.child.exitCode).toBeNull();
    expect(loads[0].unexpected()).toEqual([]);
    // the killed process's clients lost their answers (no answer), nothing else
    expect(loads[1].unexpected().filter((key) => !/^kill: (rest|graphql) no answer$/.test(key))).toEqual([]);
    await expectNothingLost(
      (statement) => onPrimary(statement),
      ZONE,
      loads.flatMap((load) => load.acknowledged),
    );

    // the duties: every roll ends on the process left, each key passes each state once, each signed zone's
    // journal is a gap-free chain
    await waitUntil(
      'every ZSK roll ended (the old ZSK removed)',
      async () =>
        (
          await onPrimary(
            "select count(*)::int as n from dnssec_key_events where to_state = 'removed' and reason <> 'disabled' and role = 'ZSK'",
          )
        )[0].n === SIGNED.length,
      60_000,
    );
    expect(
      await onPrimary('select key_id, to_state, count(*)::int as n from dnssec_key_events group by key_id, to_state having count(*) > 1'),
    ).toEqual([]);
    const chains = await onPrimary(
      "select zone, serial_before::int as before, serial_after::int as after from changes where zone like '%.zk-combined.test' order by zone, id",
    );
    expect(
      chains.filter((link, index, all) => index > 0 && all[index - 1].zone === link.zone && link.before !== all[index - 1].after),
    ).toEqual([]);

    // the Knot secondary: each zone at its final serial, its AXFR the zone the database holds (as the process
    // left serves it from there), and the load's A records those of the database
    const zoneRecords = (lines: ReturnType<typeof records>) =>
      lines.map(({ name, ttl, type, rdata }) => `${name} ${ttl} ${type} ${rdata}`).sort();
    for (const zone of [ZONE, ...SIGNED]) {
      const [{ serial }] = await onPrimary(`select serial::int from domains where name = '${zone}'`);
      await waitUntil(
        `${zone} at its final serial ${serial} at the Knot secondary`,
        async () => (await servedSerial(knot.port, zone)) === serial,
        60_000,
      );
      const fromKnot = zoneRecords(records(await dig(['@127.0.0.1', '-p', String(knot.port), zone, 'AXFR'])));
      const fromDatabase = zoneRecords(
        records(await dig(['-y', `hmac-sha256:${tsig.name}:${tsig.secret}`, '@127.0.0.1', '-p', String(kept.dnsPort), zone, 'AXFR'])),
      );
      expect(fromKnot.length).toBeGreaterThan(2);
      expect(fromKnot).toEqual(fromDatabase);
      if (zone === ZONE) {
        const stored = await onPrimary(
          `select r.owner from records r join domains d on d.id = r.domain_id where d.name = '${ZONE}' and r.type = 'A'`,
        );
        const knotOwners = fromKnot.filter((line) => / A /.test(line)).map((line) => line.split(' ')[0]);
        expect(knotOwners.sort()).toEqual(stored.map(({ owner }) => `${owner}.${ZONE}.`).sort());
      }
    }
  }, 240_000);
});
