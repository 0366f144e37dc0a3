import 'reflect-metadata';
import request from 'supertest';
import { loadSettings } from '../../src/config/settings';
import { databaseReachable, noteDatabaseFailure } from '../../src/db/availability';
import { parseLsn } from '../../src/db/read-replicas';
import { RunningService, startService } from '../../src/main';
import { CREATE_RECORD } from '../support/fixtures';
import { ReplicatedPostgres } from '../support/replicated-postgres';
import { ADMIN_KEY } from '../support/test-app';
import { waitUntil } from '../support/wait-for';

/**
 * Reads from a standby (DATABASE_REPLICA_URL, docs/deployment.md «Reading from standbys») on a real pair of
 * Debian's PostgreSQL 15: a primary and an asynchronous streaming standby made with pg_basebackup -R that
 * applies each commit 200 ms after the primary made it (recovery_min_apply_delay), so that a read which goes to
 * it too early sees the state before the write. A write's Consistency-Token sent back makes its read wait for
 * the standby (or go to the primary): no stale read; the same pairs without it read stale; with the standby
 * stopped, reads under way on it are answered by the primary and later ones go there, /ready names it unreachable
 * and the fallback counters move.
 */
describe('reads from a standby never go back in time', () => {
  const cluster = new ReplicatedPostgres({ synchronous: false, applyDelayMs: 200 });
  const ZONE = 'replicas.example';
  const PAIRS = 200;
  /** pairs run side by side: each waits out the standby's delay, one after another they would take 40 s */
  const AT_ONCE = 10;
  let service: RunningService;
  let http: ReturnType<typeof request>;
  let standbyName: string;
  let userId: string;

  const gql = (query: string, variables?: Record<string, unknown>, token?: string) => {
    const req = http.post('/graphql').set('X-API-Key', ADMIN_KEY).set('content-type', 'application/json');
    if (token !== undefined) req.set('Consistency-Token', token);
    return req.send({ query, variables });
  };
  const metric = async (line: RegExp): Promise<number> => {
    const text = (await http.get('/metrics')).text;
    const match = text.split('\n').find((row) => line.test(row));
    return match ? Number(match.split(' ').pop()) : 0;
  };
  const standbyReads = () => metric(/^zonekeeper_replica_reads_total /);
  const fallbacks = (reason: string) => metric(new RegExp(`^zonekeeper_replica_fallback_reads_total\\{reason="${reason}"\\} `));
  const readiness = async () =>
    (await http.get('/ready')).body as { status: string; standbys: { standby: string; state: string; lagSeconds: number | null }[] };

  /**
   * One write and the read of it that follows: a GraphQL record made and read back by id (over POST, or over GET
   * every fourth), or (every fourth) a record added through REST and the zone's export read; stale when the read
   * does not show the write.
   */
  const pair = async (i: number, tag: string, sendToken: boolean): Promise<{ stale: boolean }> => {
    const owner = `${tag}-${i}`;
    if (i % 4 === 3) {
      const written = await http
        .post('/api/record/add')
        .set('X-API-Key', ADMIN_KEY)
        .type('form')
        .send({ zone: ZONE, owner, rtype: 'TXT', rdata: `"${owner}"`, ttl: 300 });
      expect(written.status).toBeLessThan(300);
      const token = written.headers['consistency-token'];
      expect(token).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
      const read = http.get(`/api/domain/export/${ZONE}`).set('X-API-Key', ADMIN_KEY);
      if (sendToken) read.set('Consistency-Token', token);
      const exported = await read;
      expect(exported.status).toBe(200);
      return { stale: !exported.text.includes(`"${owner}"`) };
    }
    const written = await gql(CREATE_RECORD, { input: { zone: ZONE, owner, type: 'TXT', rdata: `"${owner}"`, ttl: 300 } });
    expect(written.body.errors).toBeUndefined();
    const token = written.headers['consistency-token'];
    expect(token).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    expect(written.body.extensions.consistencyToken).toBe(token);
    const query = 'query($id: ID!) { record(id: $id) { id rdata } }';
    const variables = { id: written.body.data.createRecord.id };
    let read;
    if (i % 4 === 1) {
      // a query over GET: its database is chosen before its ETag is read (http/conditional-get.ts)
      const get = http
        .get('/graphql')
        .set('X-API-Key', ADMIN_KEY)
        .query({ query, variables: JSON.stringify(variables) });
      if (sendToken) get.set('Consistency-Token', token);
      read = await get;
    } else read = await gql(query, variables, sendToken ? token : undefined);
    expect(read.status).toBe(200);
    if (read.body.errors) {
      // the record not there yet is the only failure a stale read may show
      expect(read.body.errors[0].extensions.code).toBe('RECORD_NOT_FOUND');
      return { stale: true };
    }
    return { stale: read.body.data.record.rdata !== `"${owner}"` };
  };
  const pairs = async (tag: string, sendToken: boolean): Promise<number> => {
    let stale = 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        while (next < PAIRS) if ((await pair(next++, tag, sendToken)).stale) stale++;
      }),
    );
    return stale;
  };

  beforeAll(async () => {
    await cluster.init();
    await cluster.sql(cluster.primary, ['create database zk_replicas']);
    service = await startService(
      loadSettings({
        DATABASE_URL: cluster.primary.url('zk_replicas'),
        DATABASE_REPLICA_URL: cluster.standby.url('zk_replicas'),
        API_KEY: ADMIN_KEY,
        PORT: '0',
        HOST: '127.0.0.1',
        DNS_LISTEN: '',
        ROLES: 'api',
        HEALTH_CHECK_INTERVAL: '0',
        // 800 requests of one user in a few seconds, 400 changes of one zone: this test is about where reads go
        RATE_LIMIT_PER_SECOND: '0',
        RATE_LIMIT_CONCURRENCY: '0',
        ZONE_CHANGES_PER_SECOND: '0',
        LOG_LEVEL: process.env.H7_LOG ?? 'silent',
      }),
    );
    http = request(`http://127.0.0.1:${service.httpPort}`);
    standbyName = `127.0.0.1:${cluster.standby.port}`;
    const user = await gql('mutation { createUser(input: {email: "replicas@example.org"}) { id } }');
    userId = user.body.data.createUser.id;
    const zone = await gql('mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }', {
      u: userId,
      z: ZONE,
    });
    expect(zone.body.errors).toBeUndefined();
    // the standby serves once it has the database and is within REPLICA_MAX_LAG_MS
    await waitUntil('the standby to serve reads', async () => (await readiness()).standbys?.[0]?.state === 'streaming', 20_000);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await cluster.stop();
  }, 60_000);

  it('/ready and /metrics name the standby and its lag, within the apply delay and a check interval', async () => {
    const ready = await readiness();
    expect(ready.status).toBe('ready');
    expect(ready.standbys).toEqual([{ standby: standbyName, state: 'streaming', lagSeconds: expect.any(Number) }]);
    expect(ready.standbys[0].lagSeconds).toBeLessThan(5);
    expect(await metric(new RegExp(`^zonekeeper_replica_serving\\{standby="${standbyName}"\\} `))).toBe(1);
    expect((await http.get('/metrics')).text).toMatch(new RegExp(`^zonekeeper_replica_lag_seconds\\{standby="${standbyName}"\\} `, 'm'));
  });

  it(`${PAIRS} write-then-read pairs sending the token back: no stale read, most served by the standby`, async () => {
    const before = { standby: await standbyReads(), waited: await fallbacks('token_wait') };
    expect(await pairs('token', true)).toBe(0);
    const served = (await standbyReads()) - before.standby;
    const toPrimary = (await fallbacks('token_wait')) - before.waited;
    // the standby answered once it had replayed the write (REPLICA_WAIT_MS 500 > the delay of 200 ms): the
    // zero above is the standby's, not the primary's answering everything
    expect(served).toBeGreaterThan(PAIRS / 2);
    expect(served + toPrimary).toBeGreaterThanOrEqual(PAIRS);
  }, 120_000);

  it('the same pairs without the token read from the standby before it applied the write: stale reads', async () => {
    const stale = await pairs('no-token', false);
    expect(stale).toBeGreaterThan(0);
  }, 120_000);

  it("the PowerDNS API: a write answers its token, a GET sending it back reads it from the standby; a TSIG secret's read (audited) from the primary", async () => {
    const tsigKeys = '/api/v1/servers/localhost/tsigkeys';
    const made = await http.post(tsigKeys).set('X-API-Key', ADMIN_KEY).send({ name: 'replicas-key', algorithm: 'hmac-sha256' });
    expect(made.status).toBe(201);
    const token = made.headers['consistency-token'];
    expect(token).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    const before = await standbyReads();
    const listed = await http.get(tsigKeys).set('X-API-Key', ADMIN_KEY).set('Consistency-Token', token);
    expect(listed.status).toBe(200);
    expect(listed.body.map((key: { name: string }) => key.name.replace(/\.$/, ''))).toContain('replicas-key');
    expect(await standbyReads()).toBe(before + 1);
    // on a standby its audit row would be refused (read-only): 503
    const secret = await http.get(`${tsigKeys}/${made.body.id}`).set('X-API-Key', ADMIN_KEY).set('Consistency-Token', token);
    expect(secret.status).toBe(200);
    expect(secret.body.key).toBe(made.body.key);
  });

  it('a write sent to a standby by mistake is refused (25006) without the service taking its database for away', async () => {
    const standby = await service.database.replicas!.readDatabase();
    expect(standby).not.toBe(service.database.db);
    const refused = await standby.rows('create table written_on_a_standby (id int)').catch((error: unknown) => error);
    expect((refused as { code?: string }).code).toBe('25006');
    // the request that met it answers 503, as for any outage; the primary is not away
    expect(noteDatabaseFailure(refused, 'test')).toBe(true);
    expect(databaseReachable()).toBe(true);
    expect((await readiness()).standbys[0].state).toBe('streaming');
  });

  it('a token that is no WAL position is served by the primary, and counted', async () => {
    const before = await fallbacks('token_invalid');
    const read = await gql(`query { domain(name: "${ZONE}") { name } }`, undefined, 'not-a-position');
    expect(read.body.data.domain.name).toBe(ZONE);
    expect(await fallbacks('token_invalid')).toBe(before + 1);
  });

  it("a person's session keeps the token of their writes: cookie reads right after the cookie's writes, sending no token, are never stale", async () => {
    const email = 'editor@replicas.example';
    const invited = await gql('mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token } }', {
      i: { userId, email, role: 'EDITOR' },
    });
    expect(invited.body.errors).toBeUndefined();
    const { token: cookie, sessionId } = await service.services.sessions.start(service.database.db, email, {
      method: 'oidc',
      sourceAddress: '127.0.0.1',
    });
    // as the console sends them: the cookie and the CSRF gate's header, no Consistency-Token
    const session = { cookie: `zk_session=${cookie}`, 'x-requested-with': 'zonekeeper-console' };
    const before = await standbyReads();
    let stale = 0;
    let lastToken = '';
    let next = 0;
    const COUNT = 40;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < COUNT) {
          const owner = `session-${next++}`;
          if (next % 2) {
            const written = await http
              .post('/graphql')
              .set(session)
              .send({ query: CREATE_RECORD, variables: { input: { zone: ZONE, owner, type: 'TXT', rdata: `"${owner}"`, ttl: 300 } } });
            expect(written.body.errors).toBeUndefined();
            lastToken = written.headers['consistency-token'];
            const read = await http
              .post('/graphql')
              .set(session)
              .send({ query: 'query($id: ID!) { record(id: $id) { rdata } }', variables: { id: written.body.data.createRecord.id } });
            if (read.body.errors?.[0]?.extensions?.code === 'RECORD_NOT_FOUND' || read.body.data?.record?.rdata !== `"${owner}"`) stale++;
          } else {
            const written = await http
              .post('/api/record/add')
              .set(session)
              .type('form')
              .send({ zone: ZONE, owner, rtype: 'TXT', rdata: `"${owner}"`, ttl: 300 });
            expect(written.status).toBeLessThan(300);
            lastToken = written.headers['consistency-token'];
            const exported = await http.get(`/api/domain/export/${ZONE}`).set(session);
            expect(exported.status).toBe(200);
            if (!exported.text.includes(`"${owner}"`)) stale++;
          }
        }
      }),
    );
    expect(stale).toBe(0);
    // the standby answered them (it had replayed the session's latest write), not the primary every time
    expect((await standbyReads()) - before).toBeGreaterThan(COUNT / 4);
    // the session row holds a position at or past every write's answer
    const [row] = await service.database.db.rows<{ token: string }>('select consistency_token::text as token from sessions where id = $1', [
      sessionId,
    ]);
    expect(parseLsn(row.token)! >= parseLsn(lastToken)!).toBe(true);
  }, 60_000);

  it('a request refused by authentication never waits for a standby; the same read with the key waits REPLICA_WAIT_MS, then the primary', async () => {
    // a position no standby will replay within the wait
    const far = 'FFFFFFFF/FFFFFFF0';
    const before = await fallbacks('token_wait');
    for (const path of [`/api/domain/export/${ZONE}`, '/api/v1/servers/localhost/zones', '/graphql?query=%7Bdomains%7BtotalCount%7D%7D']) {
      for (const key of [undefined, 'not-a-key-of-this-service']) {
        const started = Date.now();
        const req = http.get(path).set('Consistency-Token', far);
        if (key) req.set('X-API-Key', key);
        expect((await req).status).toBe(401);
        expect(Date.now() - started).toBeLessThan(400);
      }
    }
    expect(await fallbacks('token_wait')).toBe(before);
    const started = Date.now();
    const read = await http.get('/api/v1/servers/localhost/zones').set('X-API-Key', ADMIN_KEY).set('Consistency-Token', far);
    expect(read.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(await fallbacks('token_wait')).toBe(before + 1);
  });

  it('the standby 2 s behind, past REPLICA_WAIT_MS: reads with the token go to the primary, none stale, the counter moves', async () => {
    await cluster.setApplyDelay(2000);
    try {
      const before = { waited: await fallbacks('token_wait'), standby: await standbyReads() };
      let stale = 0;
      // one pair after another: each read waits REPLICA_WAIT_MS (500 ms) for the standby, then the primary answers
      for (let i = 0; i < 10; i++) if ((await pair(i, 'behind', true)).stale) stale++;
      expect(stale).toBe(0);
      // still within REPLICA_MAX_LAG_MS (5 s): the standby serves, but not these reads; its lag shows the delay
      // (the writes kept coming: the oldest it has not applied is some 2 s old)
      const [behind] = (await readiness()).standbys;
      expect(behind.state).toBe('streaming');
      expect(behind.lagSeconds).toBeGreaterThan(1);
      expect(await fallbacks('token_wait')).toBeGreaterThanOrEqual(before.waited + 8);
    } finally {
      await cluster.setApplyDelay(200);
    }
  }, 60_000);

  it('the standby stopped: reads under way on it are answered by the primary, later ones go there (never stale), /ready says so, the fallback counters move', async () => {
    // two reads on the standby when it stops, a statement and a snapshot's transaction, each sleeping there (and
    // not on the primary): the stop ends them, and the primary answers them instead
    const onStandby = await service.database.replicas!.readDatabase();
    expect(onStandby).not.toBe(service.database.db);
    const failedBefore = await fallbacks('standby_failed');
    const SLEEPING = 'select pg_is_in_recovery() as recovery from pg_sleep(case when pg_is_in_recovery() then 30 else 0 end)';
    const statement = onStandby.rows<{ recovery: boolean }>(SLEEPING);
    const transaction = onStandby.transaction((sql) => sql.rows<{ recovery: boolean }>(SLEEPING), 'repeatable read, read only');
    await waitUntil(
      'both reads to sleep on the standby',
      async () =>
        (
          await cluster.sql(cluster.standby, [
            "select count(*)::int as n from pg_stat_activity where query like '%pg_sleep(case%' and state = 'active' and pid <> pg_backend_pid()",
          ])
        )[0].n === 2,
    );
    await cluster.stopStandby();
    expect(await statement).toEqual([{ recovery: false }]);
    expect(await transaction).toEqual([{ recovery: false }]);
    expect(await fallbacks('standby_failed')).toBe(failedBefore + 2);
    await waitUntil('/ready to name the standby unreachable', async () => (await readiness()).standbys[0].state === 'unreachable', 10_000);
    const ready = await readiness();
    expect(ready.status).toBe('ready');
    expect(ready.standbys).toEqual([{ standby: standbyName, state: 'unreachable', lagSeconds: null }]);
    expect(await metric(new RegExp(`^zonekeeper_replica_serving\\{standby="${standbyName}"\\} `))).toBe(0);
    const before = await fallbacks('no_standby');
    const reads = await standbyReads();
    // without the token: from the primary, so never stale
    for (let i = 0; i < 20; i++) expect((await pair(i, 'stopped', false)).stale).toBe(false);
    expect(await fallbacks('no_standby')).toBeGreaterThanOrEqual(before + 20);
    expect(await standbyReads()).toBe(reads);

    // back, it takes the WAL it missed and serves again
    await cluster.startStandby();
    await waitUntil('the standby to serve reads again', async () => (await readiness()).standbys[0].state === 'streaming', 20_000);
  }, 120_000);
});
