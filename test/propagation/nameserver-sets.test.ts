/**
 * Two nameserver sets (docs/transfers.md, «Nameserver sets»), one served by a Knot secondary and one by a BIND
 * secondary, each configured with its set's catalog zone only (RFC 9432) and transferring from its own loopback
 * address (the primary tells the sets' secondaries apart by address): each takes its own set's zones and no other; each set's catalog and zones are refused to the other
 * set's secondary; a zone moved from the Knot set to the BIND set appears at BIND and leaves Knot, and at every
 * poll during the move one of them serves it (the old catalog lists it until the worker sees BIND serve it).
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, TestApp } from '../support/test-app';
import { startNamed } from '../support/bind-secondary';
import { dig, freePort, Knot, records, sleep, startKnot, waitFor } from './knot';

const KEY_NAME = 'zk-sets-key';
const SECRET = Buffer.alloc(32, 7).toString('base64');
const KNOT_ADDRESS = '127.0.0.2';
/**
 * named listens only on the addresses of the machine's interfaces (127.0.0.1 on lo), while knotd binds any
 * loopback address: BIND keeps 127.0.0.1, Knot takes 127.0.0.2, and the operator's tools ask from 127.0.0.4
 */
const BIND_ADDRESS = '127.0.0.1';
const TOOLS_ADDRESS = '127.0.0.4';
const KNOT_CATALOG = 'catalog.knot-set.test';
const BIND_CATALOG = 'catalog.bind-set.test';

let app: TestApp;
let knot: Knot;
let bind: { log(): string; stop(): Promise<void> };
let bindPort: number;
let dnsPort: number;
let userId: string;

/** the SOA serial a server serves for a zone (authoritatively), undefined when it does not serve it */
async function servedAt(address: string, port: number, zone: string): Promise<number | undefined> {
  const result = await dig([`@${address}`, '-p', String(port), '+norec', zone, 'SOA']);
  if (result.status !== 'NOERROR' || !/flags: qr aa/.test(result.stdout)) return undefined;
  const soa = records(result).find((r) => r.type === 'SOA' && r.name === `${zone}.`);
  return soa ? Number(soa.rdata.split(/\s+/)[2]) : undefined;
}
const atKnot = (zone: string) => servedAt(KNOT_ADDRESS, knot.port, zone);
const atBind = (zone: string) => servedAt(BIND_ADDRESS, bindPort, zone);

/** an AXFR from the primary, asked from `source` and signed with the fleet's key: the PTR targets, or the refusal */
async function axfrFrom(source: string, zone: string): Promise<{ ok: boolean; names: string[] }> {
  const result = await dig(['-b', source, '@127.0.0.1', '-p', String(dnsPort), '-y', `hmac-sha256:${KEY_NAME}:${SECRET}`, zone, 'AXFR']);
  const ok = !/Transfer failed|REFUSED|communications error/.test(result.stdout) && records(result).some((r) => r.type === 'SOA');
  return {
    ok,
    names: records(result)
      .filter((r) => r.type === 'PTR')
      .map((r) => r.rdata)
      .sort(),
  };
}

async function startBind(port: number): Promise<{ log(): string; stop(): Promise<void> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-bind-set-'));
  const primary = `port ${dnsPort} { 127.0.0.1 key "${KEY_NAME}"; }`;
  return startNamed(
    dir,
    `options {
  directory "${dir}";
  pid-file "${dir}/named.pid";
  session-keyfile "${dir}/session.key";
  managed-keys-directory "${dir}";
  listen-on port ${port} { ${BIND_ADDRESS}; };
  listen-on-v6 { none; };
  recursion no;
  dnssec-validation no;
  notify no;
  min-refresh-time 1;
  min-retry-time 1;
  allow-new-zones yes;
  catalog-zones {
    zone "${BIND_CATALOG}" default-primaries ${primary} in-memory yes min-update-interval 1;
  };
};
key "${KEY_NAME}" { algorithm hmac-sha256; secret "${SECRET}"; };
zone "${BIND_CATALOG}" {
  type secondary;
  primaries ${primary};
  file "${dir}/catalog.db";
  allow-notify { 127.0.0.1; };
};
`,
  );
}

async function gql(query: string, variables: Record<string, unknown> = {}) {
  const res = await app.gql(query, variables);
  expect(res.errors).toBeUndefined();
  return res.data;
}

async function createZone(zone: string, set: string): Promise<void> {
  await gql(`mutation($u: ID!, $z: String!, $s: String) { createDomain(input: {userId: $u, zone: $z, nameserverSet: $s}) { id } }`, {
    u: userId,
    z: zone,
    s: set,
  });
}

beforeAll(async () => {
  dnsPort = await freePort();
  bindPort = await freePort();
  const knotPort = await freePort();
  app = await startTestApp({
    ROLES: 'api,dns,worker',
    DNS_LISTEN: `127.0.0.1:${dnsPort}`,
    // the default set has no secondaries here: the two sets are the fleets under test
    SECONDARIES: '',
    TSIG_KEY: `${KEY_NAME}:hmac-sha256:${SECRET}`,
    CATALOG_ZONE: 'catalog.default-set.test',
  });
  userId = (await gql(`mutation { createUser(input: {email: "sets@example.com"}) { id } }`)).createUser.id;
  await gql(`mutation($i: NameserverSetInput!) { createNameserverSet(input: $i) { id } }`, {
    i: { name: 'knot', secondaries: [`${KNOT_ADDRESS}:${knotPort}`], nsNames: ['ns1.knot-set.test.'], catalogZone: KNOT_CATALOG },
  });
  await gql(`mutation($i: NameserverSetInput!) { createNameserverSet(input: $i) { id } }`, {
    i: { name: 'bind', secondaries: [`${BIND_ADDRESS}:${bindPort}`], nsNames: ['ns1.bind-set.test.'], catalogZone: BIND_CATALOG },
  });
  knot = await startKnot({
    catalogZone: KNOT_CATALOG,
    primaryPort: dnsPort,
    tsig: { name: KEY_NAME, secret: SECRET },
    port: knotPort,
    address: KNOT_ADDRESS,
  });
  bind = await startBind(bindPort);
}, 90_000);

afterAll(async () => {
  await knot?.stop();
  await bind?.stop();
  await app?.close();
});

test('each secondary takes its own set’s zones from its own catalog, and is refused the other set’s', async () => {
  await createZone('k1.sets.test', 'knot');
  await createZone('b1.sets.test', 'bind');
  await createZone('d1.sets.test', null as unknown as string);
  await waitFor('Knot to serve k1', async () => ((await atKnot('k1.sets.test')) ? true : undefined), 30_000, 100);
  await waitFor('BIND to serve b1', async () => ((await atBind('b1.sets.test')) ? true : undefined), 30_000, 100);
  // each serves its own set's zone only
  expect(await atKnot('b1.sets.test')).toBeUndefined();
  expect(await atKnot('d1.sets.test')).toBeUndefined();
  expect(await atBind('k1.sets.test')).toBeUndefined();
  expect(await atBind('d1.sets.test')).toBeUndefined();

  // the primary: each set's catalog lists its zones only, and goes to its own secondary's address only
  expect(await axfrFrom(KNOT_ADDRESS, KNOT_CATALOG)).toEqual({ ok: true, names: ['k1.sets.test.'] });
  expect(await axfrFrom(BIND_ADDRESS, BIND_CATALOG)).toEqual({ ok: true, names: ['b1.sets.test.'] });
  expect((await axfrFrom(KNOT_ADDRESS, BIND_CATALOG)).ok).toBe(false);
  expect((await axfrFrom(BIND_ADDRESS, KNOT_CATALOG)).ok).toBe(false);
  expect((await axfrFrom(KNOT_ADDRESS, 'b1.sets.test')).ok).toBe(false);
  expect((await axfrFrom(BIND_ADDRESS, 'k1.sets.test')).ok).toBe(false);
  expect((await axfrFrom(BIND_ADDRESS, 'd1.sets.test')).ok).toBe(false);
  // an address of no set (an operator's tools, in TRANSFER_ALLOW) reads every catalog, as before sets
  expect(await axfrFrom(TOOLS_ADDRESS, 'catalog.default-set.test')).toEqual({ ok: true, names: ['d1.sets.test.'] });
  expect((await axfrFrom(TOOLS_ADDRESS, BIND_CATALOG)).ok).toBe(true);

  // propagation status per set: each zone lists its own set's secondary
  const status = await gql(
    `{ k: domain(name: "k1.sets.test") { propagation { state servers { server } } } b: domain(name: "b1.sets.test") { propagation { state servers { server } } } }`,
  );
  expect(status.k.propagation.servers.map((s: any) => s.server)).toEqual([`${KNOT_ADDRESS}:${knot.port}`]);
  expect(status.b.propagation.servers.map((s: any) => s.server)).toEqual([`${BIND_ADDRESS}:${bindPort}`]);
  // and /metrics has the lag of every set's secondaries (SECONDARIES, the default set's, is empty here)
  const metrics = (await app.http.get('/metrics')).text;
  for (const server of [`${KNOT_ADDRESS}:${knot.port}`, `${BIND_ADDRESS}:${bindPort}`]) {
    expect(metrics).toContain(`zonekeeper_secondary_zones_behind{server="${server}"} 0`);
    expect(metrics).toContain(`zonekeeper_secondary_lag_seconds{server="${server}"} 0`);
  }
}, 90_000);

test('a zone moved from the Knot set to the BIND set: BIND takes it, Knot drops it, and one of them serves it at every poll', async () => {
  await createZone('mover.sets.test', 'knot');
  await waitFor('Knot to serve the zone', async () => ((await atKnot('mover.sets.test')) ? true : undefined), 30_000, 100);
  expect(await atBind('mover.sets.test')).toBeUndefined();

  const moved = await gql(
    `mutation { moveZoneToNameserverSet(zone: "mover.sets.test", nameserverSet: "bind") { serial nameserverSet { name } } }`,
  );
  expect(moved.moveZoneToNameserverSet.nameserverSet.name).toBe('bind');
  const polls: { knot?: number; bind?: number }[] = [];
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [k, b] = await Promise.all([atKnot('mover.sets.test'), atBind('mover.sets.test')]);
    polls.push({ knot: k, bind: b });
    if (k === undefined && b !== undefined) break;
    if (Date.now() > deadline) throw new Error(`the move did not complete: ${JSON.stringify(polls.slice(-5))}`);
    await sleep(50);
  }
  // never a poll where neither served it
  expect(polls.filter((p) => p.knot === undefined && p.bind === undefined)).toEqual([]);
  // both served it for a while (the old catalog kept it until BIND served it), and the end state is BIND only
  expect(polls.some((p) => p.knot !== undefined && p.bind !== undefined)).toBe(true);
  // BIND serves the zone as moved: its NS are the BIND set's (they were the Knot set's defaults)
  await waitFor(
    'BIND to serve the move’s serial',
    async () => ((await atBind('mover.sets.test')) === moved.moveZoneToNameserverSet.serial ? true : undefined),
    30_000,
    100,
  );
  const ns = await dig([`@${BIND_ADDRESS}`, '-p', String(bindPort), '+norec', 'mover.sets.test', 'NS']);
  expect(
    records(ns)
      .filter((r) => r.type === 'NS')
      .map((r) => r.rdata),
  ).toEqual(['ns1.bind-set.test.']);
  // the catalogs: the zone left Knot's and is in BIND's
  expect(await axfrFrom(KNOT_ADDRESS, KNOT_CATALOG)).toEqual({ ok: true, names: ['k1.sets.test.'] });
  expect(await axfrFrom(BIND_ADDRESS, BIND_CATALOG)).toEqual({ ok: true, names: ['b1.sets.test.', 'mover.sets.test.'] });
  // Knot's address may no longer transfer it
  expect((await axfrFrom(KNOT_ADDRESS, 'mover.sets.test')).ok).toBe(false);
}, 120_000);
