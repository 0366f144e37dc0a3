import 'reflect-metadata';
import request from 'supertest';
import { loadSettings } from '../../src/config/settings';
import { RunningService, startService } from '../../src/main';
import { axfr, ixfr, primarySoa } from '../../src/dns-client/zone-transfer-in';
import { freePort } from '../support/free-port';
import { ReplicatedPostgres } from '../support/replicated-postgres';
import { ADMIN_KEY } from '../support/test-app';
import { waitUntil } from '../support/wait-for';

const ZONE = 'standby.example';

/**
 * A commit the primary shows but its synchronous standby lacks (its session ended while it waited for the
 * standby: committed locally, acknowledged to no one) is lost if the standby is promoted. The DNS primary must
 * not hand it to a secondary by AXFR or IXFR: the secondary would keep that serial's records for good, as the new
 * history reaches the same serial with others. Once the standby has the commit, it is transferred.
 * docs/deployment.md, «Zone transfers wait for the standby».
 */
describe('zone transfers wait for the synchronous standby', () => {
  const cluster = new ReplicatedPostgres();
  let service: RunningService;
  let http: ReturnType<typeof request>;
  const source = () => ({ host: '127.0.0.1', port: service.dnsPort! });
  const addRecord = (owner: string) =>
    http.post('/api/record/add').set('X-API-Key', ADMIN_KEY).send({ zone: ZONE, owner, rtype: 'A', rdata: '192.0.2.7', ttl: 3600 });
  const waitingForStandby = async () =>
    (await cluster.sql(cluster.primary, ["select pid from pg_stat_activity where wait_event = 'SyncRep'"])).map((row) => row.pid as number);

  beforeAll(async () => {
    await cluster.init();
    await cluster.sql(cluster.primary, ['create database zk_transfer_standby']);
    const settings = loadSettings({
      DATABASE_URL: cluster.primary.url('zk_transfer_standby'),
      API_KEY: ADMIN_KEY,
      PORT: '0',
      HOST: '127.0.0.1',
      DNS_LISTEN: `127.0.0.1:${await freePort()}`,
      SECONDARIES: '',
      SERIAL_POLICY: 'increment',
      // no worker: the only session that waits for the standby below is the write's
      ROLES: 'api,dns',
      LOG_LEVEL: process.env.H7_LOG ?? 'silent',
    });
    service = await startService(settings);
    http = request(`http://127.0.0.1:${service.httpPort}`);
    const gql = (query: string, variables?: Record<string, unknown>) =>
      http.post('/graphql').set('X-API-Key', ADMIN_KEY).set('content-type', 'application/json').send({ query, variables });
    const user = await gql('mutation { createUser(input: {email: "standby@example.org"}) { id } }');
    const zone = await gql('mutation($u: ID!) { createDomain(input: {userId: $u, zone: "standby.example"}) { id } }', {
      u: user.body.data.createUser.id,
    });
    expect(zone.body.errors).toBeUndefined();
    expect((await addRecord('before')).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await cluster.stop();
  }, 60_000);

  it('a commit only the primary has is answered SERVFAIL (EDE Not Ready) to AXFR and IXFR; transferred once the standby has it', async () => {
    const before = await axfr(source(), ZONE);
    expect(before.records.map((r) => r.owner)).toContain('before');

    await cluster.stopStandby();
    // supertest sends a request once it is awaited: `then` sends this one now
    const write = addRecord('local-only').then((res) => res);
    await waitUntil('the write to wait for the standby', async () => (await waitingForStandby()).length === 1, 20_000);
    // its session ended while it waits: PostgreSQL has committed it locally, and its client gets an error
    await cluster.sql(cluster.primary, ["select pg_terminate_backend(pid) from pg_stat_activity where wait_event = 'SyncRep'"]);
    const answer = await write;
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ status: 'error', error: 'DATABASE_UNAVAILABLE' });

    // the primary shows it: look-ups are answered from what it shows, the SOA's serial included
    const localSerial = before.soa.value.serial + 1;
    await waitUntil('the SOA to show the local commit', async () => (await primarySoa(source(), ZONE)).serial === localSerial, 20_000);

    const notOnStandby = new RegExp(
      `SERVFAIL \\(serial ${localSerial} of ${ZONE.replace('.', '\\.')} is not yet on the database's synchronous standby; try again\\)`,
    );
    await expect(axfr(source(), ZONE)).rejects.toThrow(notOnStandby);
    await expect(ixfr(source(), ZONE, { rdata: before.soa.rdata, ttl: before.soa.ttl })).rejects.toThrow(notOnStandby);

    // the standby back: it takes the commit from the primary's WAL, and from then on it is transferred
    await cluster.startStandby();
    const after = await axfr(source(), ZONE);
    expect(after.soa.value.serial).toBe(localSerial);
    expect(after.records.map((r) => r.owner).sort()).toEqual(expect.arrayContaining(['before', 'local-only']));
    const incremental = await ixfr(source(), ZONE, { rdata: before.soa.rdata, ttl: before.soa.ttl });
    expect(incremental.kind).toBe('incremental');
    if (incremental.kind === 'incremental')
      expect(incremental.steps.flatMap((step) => step.added.map((r) => r.owner))).toContain('local-only');
  }, 120_000);
});
