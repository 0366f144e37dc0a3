/**
 * End to end with a real secondary: Knot DNS configured only with the catalog zone follows every zone the
 * API creates, edits and deletes (NOTIFY, IXFR/AXFR with TSIG, RFC 9432 catalog). Also AXFR / IXFR straight
 * from the primary with dig, and the refusals.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import dnsPacket from 'dns-packet';
import { Client } from 'pg';
import { loadSettings } from '../../src/config/settings';
import { logger } from '../../src/logger';
import { startDnsRole, PrimaryServer } from '../../src/primary/server';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { ADMIN_KEY, TestApp } from '../support/test-app';
import { startServiceWithKnot } from '../support/knot-fleet';
import { dig, freePort, Knot, records, servedSerial, waitFor } from './knot';

const CATALOG = 'catalog.zk-one.test';
const KEY_NAME = 'zk-test-key';
const SECRET = randomBytes(32).toString('base64');
const TSIG_ARG = `hmac-sha256:${KEY_NAME}:${SECRET}`;

let knot: Knot;
let app: TestApp;
let dnsPort: number;
let userId: string;

beforeAll(async () => {
  ({ app, knot, dnsPort, userId } = await startServiceWithKnot({
    catalog: CATALOG,
    tsig: { name: KEY_NAME, secret: SECRET },
    user: 'prop@example.com',
  }));
}, 60_000);

afterAll(async () => {
  await app?.close();
  await knot?.stop();
});

async function createZone(name: string): Promise<{ id: string; serial: number }> {
  const res = await app.gql(`mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id serial } }`, {
    u: userId,
    z: name,
  });
  expect(res.errors).toBeUndefined();
  return res.data.createDomain;
}

async function zoneSerial(name: string): Promise<number> {
  const res = await app.gql(`query($n: String) { domain(name: $n) { serial } }`, { n: name });
  expect(res.errors).toBeUndefined();
  return res.data.domain.serial;
}

const knotAnswer = async (name: string, type: string) => {
  const result = await dig(['@127.0.0.1', '-p', String(knot.port), '+norec', name, type]);
  return {
    status: result.status,
    rdata: records(result)
      .filter((r) => r.type === type)
      .map((r) => r.rdata)
      .sort(),
  };
};

const withDiag = async <T>(promise: Promise<T>): Promise<T> => {
  try {
    return await promise;
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- knotd log (tail) ---\n${knot.log().split('\n').slice(-40).join('\n')}`, {
      cause: error,
    });
  }
};

test('a zone created through the API is served by Knot (via the catalog), records follow create / edit / delete', async () => {
  const zone = await createZone('alpha.zk-one.test');
  await withDiag(
    waitFor('Knot to serve alpha.zk-one.test at the new serial', async () =>
      (await servedSerial(knot.port, 'alpha.zk-one.test')) === zone.serial ? true : undefined,
    ),
  );
  expect((await knotAnswer('www.alpha.zk-one.test', 'CNAME')).rdata).toEqual(['alpha.zk-one.test.']);

  const created = await app.gql(
    `mutation { createRecord(input: {zone: "alpha.zk-one.test", owner: "host", type: "A", rdata: "192.0.2.1", ttl: 300}) { id } }`,
  );
  expect(created.errors).toBeUndefined();
  await withDiag(
    waitFor('Knot to serve the new A record', async () => {
      const a = await knotAnswer('host.alpha.zk-one.test', 'A');
      return a.rdata.join() === '192.0.2.1' ? true : undefined;
    }),
  );

  const updated = await app.gql(
    `mutation($id: ID!) { updateRecord(id: $id, input: {zone: "alpha.zk-one.test", owner: "host", type: "A", rdata: "192.0.2.2", ttl: 300}) { id } }`,
    { id: created.data.createRecord.id },
  );
  expect(updated.errors).toBeUndefined();
  await withDiag(
    waitFor('Knot to serve the edited A record', async () => {
      const a = await knotAnswer('host.alpha.zk-one.test', 'A');
      return a.rdata.join() === '192.0.2.2' ? true : undefined;
    }),
  );

  const deleted = await app.gql(`mutation($id: ID!) { deleteRecord(id: $id) }`, { id: updated.data.updateRecord.id });
  expect(deleted.errors).toBeUndefined();
  await withDiag(
    waitFor('Knot to answer NXDOMAIN for the deleted record', async () =>
      (await knotAnswer('host.alpha.zk-one.test', 'A')).status === 'NXDOMAIN' ? true : undefined,
    ),
  );
  expect(await servedSerial(knot.port, 'alpha.zk-one.test')).toBe(await zoneSerial('alpha.zk-one.test'));
});

test('Domain.propagation shows the serial per name server: pending, then in_sync', async () => {
  await createZone('status.zk-one.test');
  const query = `query { domain(name: "status.zk-one.test") { serial propagation { serial state servers { server servedSerial state error updatedAt } } } }`;
  const status = await waitFor('propagation in_sync', async () => {
    const res = await app.gql(query);
    expect(res.errors).toBeUndefined();
    return res.data.domain.propagation.state === 'in_sync' ? res.data.domain : undefined;
  });
  expect(status.propagation.serial).toBe(status.serial);
  expect(status.propagation.servers).toEqual([
    { server: `127.0.0.1:${knot.port}`, servedSerial: status.serial, state: 'in_sync', error: null, updatedAt: expect.any(String) },
  ]);
  // a change makes it pending again (or already in sync, if Knot was that fast), then in sync at the new serial
  const rec = await app.gql(
    `mutation { createRecord(input: {zone: "status.zk-one.test", owner: "x", type: "TXT", rdata: "\\"hello\\"", ttl: 300}) { id } }`,
  );
  expect(rec.errors).toBeUndefined();
  const serial = await zoneSerial('status.zk-one.test');
  expect(serial).toBeGreaterThan(status.serial);
  await waitFor('propagation in_sync at the new serial', async () => {
    const res = await app.gql(query);
    const p = res.data.domain.propagation;
    return p.state === 'in_sync' && p.servers[0].servedSerial === serial ? true : undefined;
  });
});

test('live: propagationChanged tells, over graphql-ws, when Knot serves a change; zoneChanged carries the change', async () => {
  await createZone('live.zk-one.test');
  await waitFor('Knot to serve live.zk-one.test', async () =>
    (await knotAnswer('live.zk-one.test', 'SOA')).rdata.length === 1 ? true : undefined,
  );
  const client = createClient({
    url: `${app.baseUrl.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { 'X-API-Key': ADMIN_KEY },
    retryAttempts: 0,
  });
  const propagation: any[] = [];
  const changes: any[] = [];
  const stops = [
    client.subscribe(
      { query: 'subscription { propagationChanged(zone: "live.zk-one.test") { propagation { serial servers { state servedSerial } } } }' },
      { next: (v) => propagation.push(v), error: (e) => propagation.push({ error: e }), complete: () => undefined },
    ),
    client.subscribe(
      { query: 'subscription { zoneChanged(zone: "live.zk-one.test") { change { serialAfter added { owner type rdata } } } }' },
      { next: (v) => changes.push(v), error: (e) => changes.push({ error: e }), complete: () => undefined },
    ),
  ];
  try {
    // both subscriptions registered by the server before the change (graphql-ws acknowledges none)
    await waitFor('the two subscriptions to be registered', async () =>
      app.service.services.liveUpdates.subscriberCount() >= 2 ? true : undefined,
    );
    const res = await app.gql(
      `mutation { createRecord(input: {zone: "live.zk-one.test", owner: "pushed", type: "A", rdata: "192.0.2.77", ttl: 3600}) { id } }`,
    );
    expect(res.errors).toBeUndefined();
    const serial = await zoneSerial('live.zk-one.test');
    // the secondary catches up: an event whose server serves the new serial, in sync
    await waitFor('an in_sync propagation event for the new serial', async () =>
      propagation.some((e) =>
        e.data?.propagationChanged.propagation.servers.some((server: any) => server.state === 'in_sync' && server.servedSerial === serial),
      )
        ? true
        : undefined,
    );
    // the change's event comes through the event feed, the propagation's through the worker: either may be first
    await waitFor('the zoneChanged event of the change', async () => (changes.length >= 1 ? true : undefined));
    expect(changes[0].data.zoneChanged.change.serialAfter).toBe(serial);
    expect(changes[0].data.zoneChanged.change.added).toEqual(expect.arrayContaining([{ owner: 'pushed', type: 'A', rdata: '192.0.2.77' }]));
    expect((await knotAnswer('pushed.live.zk-one.test', 'A')).rdata).toEqual(['192.0.2.77']);
  } finally {
    for (const stop of stops) stop();
    await client.dispose();
  }
}, 60_000);

test('a deleted zone is dropped by Knot; the catalog serial only rises', async () => {
  const catalogBefore = await servedSerial(dnsPort, CATALOG);
  const zone = await createZone('gone.zk-one.test');
  await withDiag(
    waitFor('Knot to serve gone.zk-one.test', async () =>
      (await servedSerial(knot.port, 'gone.zk-one.test')) === zone.serial ? true : undefined,
    ),
  );
  const res = await app.gql(`mutation { deleteDomain(zone: "gone.zk-one.test") }`);
  expect(res.errors).toBeUndefined();
  await withDiag(
    waitFor('Knot to drop gone.zk-one.test', async () => {
      const r = await dig(['@127.0.0.1', '-p', String(knot.port), '+norec', 'gone.zk-one.test', 'SOA']);
      return r.status !== 'NOERROR' ? r.status : undefined;
    }),
  );
  const catalogAfter = await servedSerial(dnsPort, CATALOG);
  expect(catalogAfter).toBeGreaterThan(catalogBefore ?? -1);
  // Knot does not answer queries for a catalog zone; its log shows the serial it transferred
  await withDiag(
    waitFor('Knot to transfer the newest catalog', async () =>
      knot.log().includes(`[${CATALOG}.] refresh, remote 127.0.0.1@${dnsPort}, zone updated`) &&
      new RegExp(`\\[${CATALOG.replace(/\./g, '\\.')}\\.\\] refresh.*serial \\d+ -> ${catalogAfter}\\b`).test(knot.log())
        ? true
        : undefined,
    ),
  );
});

describe('the primary itself', () => {
  test('SOA, data, NXDOMAIN, NODATA and REFUSED answers', async () => {
    const zone = await createZone('q.zk-one.test');
    const at = ['@127.0.0.1', '-p', String(dnsPort), '+norec'];
    const soa = await dig([...at, 'q.zk-one.test', 'SOA']);
    expect(soa.status).toBe('NOERROR');
    expect(soa.stdout).toMatch(/flags: qr aa/);
    expect(
      Number(
        records(soa)
          .find((r) => r.type === 'SOA')!
          .rdata.split(' ')[2],
      ),
    ).toBe(zone.serial);
    const www = await dig([...at, 'www.q.zk-one.test', 'A']);
    // the CNAME's target is the apex, in the zone: followed (RFC 1034 §4.3.2), it has no A, so NODATA with the SOA
    expect(records(www).map((r) => [r.type, r.rdata])).toEqual([
      ['CNAME', 'q.zk-one.test.'],
      ['SOA', expect.stringMatching(/^ns1\.example\.net\. /)],
    ]);
    expect(www.stdout).toMatch(/AUTHORITY SECTION:\s*\nq\.zk-one\.test\.\s+\d+\s+IN\s+SOA/);
    const nx = await dig([...at, 'nope.q.zk-one.test', 'A']);
    expect(nx.status).toBe('NXDOMAIN');
    expect(nx.stdout).toMatch(/AUTHORITY SECTION:\s*\nq\.zk-one\.test\.\s+\d+\s+IN\s+SOA/);
    const nodata = await dig([...at, 'q.zk-one.test', 'MX']);
    expect(nodata.status).toBe('NOERROR');
    expect(records(nodata).filter((r) => r.type === 'MX')).toEqual([]);
    const refused = await dig([...at, 'example.org', 'SOA']);
    expect(refused.status).toBe('REFUSED');
    const tcp = await dig([...at, '+tcp', 'q.zk-one.test', 'NS']);
    expect(tcp.status).toBe('NOERROR');
    expect(records(tcp).filter((r) => r.type === 'NS').length).toBeGreaterThan(0);
    // the catalog zone (RFC 9432): version "2" and one PTR per member
    const version = await dig([...at, `version.${CATALOG}`, 'TXT']);
    expect(records(version).map((r) => r.rdata)).toEqual(['"2"']);
  });

  test('AXFR with TSIG (several messages for a big zone), and IXFR from the journal', async () => {
    const zone = await createZone('xfr.zk-one.test');
    // a big zone, written straight to the database (the API's speed is not what is tested here)
    const db = new Client({ connectionString: app.settings.databaseUrl });
    await db.connect();
    try {
      await db.query(
        `insert into records (domain_id, owner, type, rdata, ttl)
         select $1, 'big' || i, 'TXT', '"' || repeat('x', 200) || '"', 300 from generate_series(1, 400) as i`,
        [zone.id],
      );
    } finally {
      await db.end();
    }
    const axfr = await dig(['-y', TSIG_ARG, '@127.0.0.1', '-p', String(dnsPort), 'xfr.zk-one.test', 'AXFR']);
    expect(axfr.stdout).not.toMatch(/failed|Couldn't verify|tsig verify failure|indicates error/i);
    const rows = records(axfr);
    expect(rows[0].type).toBe('SOA');
    expect(rows[rows.length - 1].type).toBe('SOA');
    expect(rows.filter((r) => r.type === 'TXT').length).toBe(400);
    const messages = Number(/messages (\d+)/.exec(axfr.stdout)?.[1]);
    expect(messages).toBeGreaterThan(1);

    // IXFR from the zone's first serial: the journal holds the change
    const rec = await app.gql(
      `mutation { createRecord(input: {zone: "xfr.zk-one.test", owner: "new", type: "A", rdata: "198.51.100.7", ttl: 300}) { id } }`,
    );
    expect(rec.errors).toBeUndefined();
    const current = await zoneSerial('xfr.zk-one.test');
    const ixfr = await dig(['-y', TSIG_ARG, '@127.0.0.1', '-p', String(dnsPort), 'xfr.zk-one.test', `IXFR=${zone.serial}`]);
    expect(ixfr.stdout).not.toMatch(/failed|Couldn't verify|tsig verify failure|indicates error/i);
    const ix = records(ixfr);
    expect(ix.map((r) => `${r.type} ${r.type === 'SOA' ? r.rdata.split(' ')[2] : r.rdata}`)).toEqual([
      `SOA ${current}`,
      `SOA ${zone.serial}`,
      `SOA ${current}`,
      'A 198.51.100.7',
      `SOA ${current}`,
    ]);
    // a serial the journal cannot lead from: the whole zone (AXFR form)
    const fallback = records(await dig(['-y', TSIG_ARG, '@127.0.0.1', '-p', String(dnsPort), 'xfr.zk-one.test', 'IXFR=1']));
    expect(fallback.filter((r) => r.type === 'TXT').length).toBe(400);
    expect(fallback.filter((r) => r.type === 'A').map((r) => r.rdata)).toEqual(['198.51.100.7']);
    // up to date: just the SOA
    const same = records(await dig(['-y', TSIG_ARG, '@127.0.0.1', '-p', String(dnsPort), 'xfr.zk-one.test', `IXFR=${current}`]));
    expect(same.map((r) => r.type)).toEqual(['SOA']);
    // the catalog by AXFR: a PTR for this zone
    const catalog = records(await dig(['-y', TSIG_ARG, '@127.0.0.1', '-p', String(dnsPort), CATALOG, 'AXFR']));
    expect(catalog).toContainEqual(
      expect.objectContaining({ name: `z${zone.id}.zones.${CATALOG}.`, type: 'PTR', rdata: 'xfr.zk-one.test.' }),
    );
  });

  test('transfers are refused without the key, with a wrong key, and from an address not allowed', async () => {
    const at = ['@127.0.0.1', '-p', String(dnsPort)];
    const unsigned = await dig([...at, 'alpha.zk-one.test', 'AXFR']);
    expect(unsigned.stdout).toMatch(/REFUSED|Transfer failed/);
    expect(records(unsigned)).toEqual([]);
    const wrongKey = await dig(['-y', `hmac-sha256:${KEY_NAME}:${randomBytes(32).toString('base64')}`, ...at, 'alpha.zk-one.test', 'AXFR']);
    expect(wrongKey.stdout).toMatch(/NOTAUTH|BADSIG|tsig|failed/i);
    expect(records(wrongKey).filter((r) => r.type !== 'TSIG')).toEqual([]);
    const otherKey = await dig(['-y', `hmac-sha256:other-key:${SECRET}`, ...at, 'alpha.zk-one.test', 'AXFR']);
    expect(records(otherKey).filter((r) => r.type !== 'TSIG')).toEqual([]);

    // a second primary on the same database that allows transfers only to 10.9.9.9
    const port = await freePort();
    const settings = loadSettings({
      DATABASE_URL: app.settings.databaseUrl!,
      DNS_LISTEN: `127.0.0.1:${port}`,
      TRANSFER_ALLOW: '10.9.9.9',
      TSIG_KEY: `${KEY_NAME}:hmac-sha256:${SECRET}`,
      CATALOG_ZONE: CATALOG,
    });
    const primary: PrimaryServer = await startDnsRole(settings, app.service.database.db, logger);
    try {
      const denied = await dig(['-y', TSIG_ARG, '@127.0.0.1', '-p', String(port), 'alpha.zk-one.test', 'AXFR']);
      expect(denied.stdout).toMatch(/REFUSED|Transfer failed/);
      expect(records(denied).filter((r) => r.type !== 'TSIG')).toEqual([]);
      // ordinary queries are still answered
      expect((await dig(['@127.0.0.1', '-p', String(port), 'alpha.zk-one.test', 'SOA'])).status).toBe('NOERROR');
    } finally {
      await primary.stop();
    }
  });

  test('a transfer whose client stops reading and goes away ends, its transaction given back', async () => {
    const zone = await createZone('gone.zk-one.test');
    const db = new Client({ connectionString: app.settings.databaseUrl });
    await db.connect();
    // a primary of its own on the same database, without TSIG_KEY: 127.0.0.1 may transfer unsigned
    const port = await freePort();
    const settings = loadSettings({ DATABASE_URL: app.settings.databaseUrl!, DNS_LISTEN: `127.0.0.1:${port}`, CATALOG_ZONE: CATALOG });
    const primary: PrimaryServer = await startDnsRole(settings, app.service.database.db, logger);
    // a transaction left open, its session idle for over a second: a transfer waiting on its client
    const stalled = async () =>
      (
        await db.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
            where datname = current_database() and state = 'idle in transaction' and now() - state_change > interval '1 second'`,
        )
      ).rows[0].n;
    try {
      // a zone larger than the sockets' buffers: the primary waits for its client to read
      await db.query(
        `insert into records (domain_id, owner, type, rdata, ttl)
         select $1, 'big' || i, 'TXT', '"' || repeat('x', 250) || '"', 300 from generate_series(1, 40000) as i`,
        [zone.id],
      );
      const client = net.connect(port, '127.0.0.1');
      await new Promise<void>((resolve, reject) => {
        let received = 0;
        client.once('error', reject);
        client.on('data', (chunk) => {
          received += chunk.length;
          // it stops reading after the first messages
          if (received > 64 * 1024) {
            client.pause();
            resolve();
          }
        });
        client.write(dnsPacket.streamEncode({ type: 'query', id: 7, questions: [{ type: 'AXFR', name: 'gone.zk-one.test' }] }));
      });
      await waitFor(
        'the transfer waiting on its client, its transaction open',
        async () => ((await stalled()) > 0 ? true : undefined),
        15_000,
        200,
      );
      client.destroy();
      await waitFor(
        'the transfer ended, its transaction given back',
        async () => ((await stalled()) === 0 ? true : undefined),
        15_000,
        200,
      );
    } finally {
      await primary.stop();
      await db.end();
    }
  });
});
