import 'reflect-metadata';
import request from 'supertest';
import { Client } from 'pg';
import { loadSettings } from '../../src/config/settings';
import { RunningService, startService } from '../../src/main';
import { databaseReachable } from '../../src/db/availability';
import { freePort } from '../support/free-port';
import { ReplicatedPostgres } from '../support/replicated-postgres';
import { ADMIN_KEY } from '../support/test-app';
import { Endpoint, servedA } from '../support/steering-endpoints';
import { sleep, waitUntil } from '../support/wait-for';

/**
 * Steering across a failover of the database's primary (docs/steering.md): the service (API, DNS primary and the
 * worker's prober, 1 s checks, fall 2, rise 2) on a synchronous streaming pair of Debian's PostgreSQL 15, given
 * both in DATABASE_URL's host list. A check goes down and its publication is under way (waiting for the zone's row)
 * when the primary's postmaster is killed with SIGKILL; the standby is promoted. With no restart of the service,
 * the prober carries on by itself: the publication that met the outage is made on the new primary, an endpoint
 * killed after the promotion leaves what the DNS primary serves and one brought back returns, each within the
 * steering bounds plus the failover's time; every decision is taken once (one `steering.changed` event and one
 * journal row of steering's per transition, none repeated). A change scheduled on another zone before the kill, due
 * around the promotion, is applied once on the new primary and served (its state, like steering's, is PostgreSQL's).
 */
const ZONE = 'failover.zk-steering.test';
const NAME = `app.${ZONE}`;
/** a zone of the same user with a change scheduled to fall due around the failover (docs/changes.md) */
const SCHEDULED_ZONE = 'scheduled.zk-steering.test';
/** a check's probes: fall 2 at 1 s, a 500 ms timeout, the 250 ms of the zone's coalescing, and the machine's load */
const STEERING_BOUND_MS = 8_000;

describe('steering across a kill -9 of the database primary and the standby’s promotion', () => {
  const cluster = new ReplicatedPostgres();
  // A is down from the start (its check's first decision is no transition, so nothing holds it when it is back)
  const [a, b, c, steady] = [new Endpoint(), new Endpoint(), new Endpoint(), new Endpoint()];
  let service: RunningService;
  let http: ReturnType<typeof request>;
  let dnsPort: number;
  /** a session of the primary's that holds the zone's row (ended by the primary's death, or at the end) */
  let holder: Client | undefined;
  const gql = async (query: string, variables?: Record<string, unknown>) => {
    const res = await http.post('/graphql').set('X-API-Key', ADMIN_KEY).set('content-type', 'application/json').send({ query, variables });
    if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
    return res.body.data;
  };
  /** what the DNS primary answers at app, or its failure's message (SERVFAIL while no host is writable) */
  const served = () =>
    servedA(dnsPort, NAME).then(
      (answer) => JSON.stringify(answer),
      (error: Error) => error.message,
    );
  const servedBecomes = async (what: string, expected: string[], timeoutMs: number): Promise<number> => {
    const wanted = JSON.stringify([...expected].sort());
    let last = '';
    await waitUntil(
      what,
      async () => {
        last = await served();
        return last === wanted;
      },
      timeoutMs,
      50,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; the primary serves ${last}`);
    });
    return Date.now();
  };

  beforeAll(async () => {
    for (const endpoint of [b, c, steady]) await endpoint.start();
    await cluster.init();
    await cluster.sql(cluster.primary, ['create database zk_steering_failover']);
    dnsPort = await freePort();
    const { primary, standby } = cluster;
    service = await startService(
      loadSettings({
        // the standby first: the search passes over it to the writable primary
        DATABASE_URL: `postgresql://postgres@127.0.0.1:${standby.port},127.0.0.1:${primary.port}/zk_steering_failover?target_session_attrs=read-write`,
        API_KEY: ADMIN_KEY,
        PORT: '0',
        HOST: '127.0.0.1',
        ROLES: 'api,dns,worker',
        DNS_LISTEN: `127.0.0.1:${dnsPort}`,
        SECONDARIES: '',
        HEALTH_CHECK_INTERVAL: '0',
        STEERING_CHECK_INTERVAL: '1',
        STEERING_CHECK_TIMEOUT_MS: '500',
        STEERING_FALL: '2',
        STEERING_RISE: '2',
        STEERING_ALLOW_NETWORKS: '127.0.0.0/8',
        // a unit of work that meets no writable primary waits this long for one, then fails: shorter than the
        // outage below, as the 2.5 s default is shorter than a failover manager's detection and promotion
        DATABASE_FAILOVER_WAIT_MS: '500',
        LOG_LEVEL: process.env.H7_LOG ?? 'silent',
      }),
    );
    http = request(`http://127.0.0.1:${service.httpPort}`);
  }, 120_000);

  afterAll(async () => {
    await holder?.end().catch(() => undefined);
    await service?.stop();
    await cluster.stop();
    for (const endpoint of [a, b, c, steady]) await endpoint.stop();
  }, 60_000);

  it('the prober resumes by itself on the promoted standby: no transition lost, none taken twice', async () => {
    const user = await gql('mutation { createUser(input: {email: "steering@zk-steering.test"}) { id } }');
    for (const zone of [ZONE, SCHEDULED_ZONE])
      await gql('mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }', {
        u: user.createUser.id,
        z: zone,
      });
    const check = async (name: string, endpoint: Endpoint) =>
      (
        await gql(`mutation($z: String!, $i: SteeringCheckInput!) { createSteeringCheck(zone: $z, input: $i) { id } }`, {
          z: ZONE,
          i: { name, protocol: 'tcp', address: '127.0.0.1', port: endpoint.port },
        })
      ).createSteeringCheck.id as string;
    // three that keep passing, first: at most three of six fail at once, never more than half (no panic freeze)
    for (const n of [1, 2, 3]) await check(`steady-${n}`, steady);
    // A's port: taken and given up, so that A starts on it again later
    await a.start();
    await a.stop();
    const checks = { a: await check('a', a), b: await check('b', b), c: await check('c', c) };
    await gql(`mutation($z: String!, $i: SteeredRrsetInput!) { createSteeredRrset(zone: $z, input: $i) { id } }`, {
      z: ZONE,
      i: {
        owner: 'app',
        type: 'A',
        ttl: 300,
        pools: [
          {
            members: [
              { value: '192.0.2.1', checkId: checks.a },
              { value: '192.0.2.2', checkId: checks.b },
              { value: '192.0.2.3', checkId: checks.c },
            ],
          },
        ],
        backup: ['203.0.113.9'],
      },
    });
    await servedBecomes('A’s check to decide it down', ['192.0.2.2', '192.0.2.3'], STEERING_BOUND_MS);

    // B's check goes down while the zone's row is held, so its publication waits for the row: the primary is killed
    // with that publication under way
    holder = new Client({ connectionString: cluster.primary.url('zk_steering_failover') });
    const watcher = new Client({ connectionString: cluster.primary.url('zk_steering_failover') });
    for (const client of [holder, watcher]) {
      client.on('error', () => undefined);
      await client.connect();
    }
    await holder.query('begin');
    await holder.query('select id from domains where name = $1 for update', [ZONE]);
    await b.stop();
    // (another session than the holder's: a transaction sees pg_stat_activity as it first read it)
    await waitUntil(
      'B’s check to be stored down and its publication to wait for the zone’s row',
      async () => {
        const { rows } = await watcher.query(
          `select (select status from steering_checks where name = 'b') as status,
                  (select count(*)::int from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%for update of d%') as waiting`,
        );
        return rows[0].status === 'down' && rows[0].waiting > 0;
      },
      STEERING_BOUND_MS,
      25,
    );
    await watcher.end();
    // due 5 s from now: during the outage or just after the promotion, whichever this machine's speed makes it
    const scheduledAt = Date.now() + 5_000;
    const scheduled = await gql(
      `mutation($z: String!, $c: [ZoneChangeInput!]!, $at: DateTimeISO) { proposeZoneChange(zone: $z, changes: $c, at: $at) { id status } }`,
      {
        z: SCHEDULED_ZONE,
        c: [{ kind: 'REPLACE_RRSET', owner: 'later', type: 'A', rdatas: ['192.0.2.77'], ttl: 300 }],
        at: new Date(scheduledAt).toISOString(),
      },
    );
    const killedAt = Date.now();
    cluster.killPrimary();
    // the outage, met by the prober's ticks (claims refused) and by that publication, longer than the failover wait
    await waitUntil('the outage to be noticed', () => !databaseReachable(), 10_000, 25);
    await sleep(1_500);
    let promotedAt = 0;
    await cluster.promoteStandby({ promoted: () => (promotedAt = Date.now()) });
    const failoverMs = promotedAt - killedAt;

    // the publication that met the outage is made on the new primary, by the prober itself
    const republishedAt = await servedBecomes('B to leave once the standby is promoted', ['192.0.2.3'], STEERING_BOUND_MS + failoverMs);

    // the scheduled change, due during the outage or after it, applied on the new primary and served
    let scheduledServed = '';
    await waitUntil(
      'the change scheduled before the failover to be served',
      async () => {
        scheduledServed = await servedA(dnsPort, `later.${SCHEDULED_ZONE}`).then(
          (answer) => JSON.stringify(answer),
          (error: Error) => error.message,
        );
        return scheduledServed === JSON.stringify(['192.0.2.77']);
      },
      Math.max(scheduledAt, promotedAt) + 5_000 - Date.now(),
      50,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; the primary serves ${scheduledServed}`);
    });
    const scheduledLateMs = Date.now() - Math.max(scheduledAt, promotedAt);

    // an endpoint killed after the promotion: its pool is empty, the backup is served
    await c.stop();
    const cKilledAt = Date.now();
    const cGoneAt = await servedBecomes('C to leave (the backup served)', ['203.0.113.9'], STEERING_BOUND_MS + failoverMs);

    // one brought back: served again within rise
    await a.start();
    const aBackAt = Date.now();
    const aServedAt = await servedBecomes('A to be served again', ['192.0.2.1'], STEERING_BOUND_MS + failoverMs);
    process.stdout.write(
      `steering failover: primary killed, standby promoted ${failoverMs} ms later; the waiting publication made ${republishedAt - promotedAt} ms after the promotion; C out ${cGoneAt - cKilledAt} ms after its kill, A back ${aServedAt - aBackAt} ms after its start; the scheduled change served ${scheduledLateMs} ms after its time or the promotion, whichever was later\n`,
    );

    // every transition once: the events and steering's journal rows, read on the new primary
    const node = cluster.primary;
    const events = await cluster.sql(
      node,
      [
        `select data->'served' as served, data->>'source' as source from events where type = 'steering.changed' and data->>'owner' = 'app' order by id`,
      ],
      'zk_steering_failover',
    );
    expect(events.map((e) => [e.source, e.served])).toEqual([
      ['pool 1', ['192.0.2.1', '192.0.2.2', '192.0.2.3']],
      ['pool 1', ['192.0.2.2', '192.0.2.3']],
      ['pool 1', ['192.0.2.3']],
      ['backup', ['203.0.113.9']],
      ['pool 1', ['192.0.2.1']],
    ]);
    const journal = await cluster.sql(
      node,
      [`select serial_before, serial_after from changes where zone = '${ZONE}' and author_key_name = 'steering' order by id`],
      'zk_steering_failover',
    );
    expect(journal).toHaveLength(4);
    // the serial chain of the zone's journal has no gap and no step twice
    const chain = await cluster.sql(
      node,
      [`select serial_before, serial_after from changes where zone = '${ZONE}' and serial_before is not null order by id`],
      'zk_steering_failover',
    );
    for (let i = 1; i < chain.length; i++) expect(Number(chain[i].serial_before)).toBe(Number(chain[i - 1].serial_after));
    // the scheduled change applied once: one change of its zone, one `change.applied`, its request applied
    const applied = await cluster.sql(
      node,
      [
        `select (select count(*)::int from changes where zone = '${SCHEDULED_ZONE}' and serial_before is not null) as changes,
                (select count(*)::int from events where type = 'change.applied' and zone = '${SCHEDULED_ZONE}') as events,
                (select status from change_requests where id = ${Number(scheduled.proposeZoneChange.id)}) as status`,
      ],
      'zk_steering_failover',
    );
    expect(applied).toEqual([{ changes: 1, events: 1, status: 'applied' }]);
    // the checks' states moved once each: A down (its first decision, no transition) and up, B and C down
    const states = await cluster.sql(
      node,
      [`select name, status, cardinality(transitions) as moves from steering_checks where name in ('a', 'b', 'c') order by name`],
      'zk_steering_failover',
    );
    expect(states.map((s) => [s.name, s.status, s.moves])).toEqual([
      ['a', 'up', 1],
      ['b', 'down', 1],
      ['c', 'down', 1],
    ]);
  }, 90_000);
});
