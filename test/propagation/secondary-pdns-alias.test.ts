/**
 * A secondary zone (docs/transfers.md, «ALIAS in secondary zones») whose primary is a customer's PowerDNS 4.7
 * holding an apex ALIAS, as a zone moving in from PowerDNS does. PowerDNS transfers the ALIAS as an ALIAS
 * (outgoing-axfr-expand-alias=no, its default); the service flattens it as it flattens its own (ALIAS_RESOLVERS:
 * a Knot on loopback serving the target's zone), into the secondary zone, so the apex answers the target's A and
 * AAAA at our primary and at our Knot secondary, before and after the zone's promotion. A change on PowerDNS (the
 * ALIAS's target, a record added) is taken by transfer; the derived addresses follow the new target and are never
 * taken for the primary's data. A second service without ALIAS_RESOLVERS takes the same zone: served, the apex
 * without an address, its status saying why. Before, the derived addresses were refused in a secondary zone
 * (ZONE_IS_SECONDARY: the ALIAS's owner had no address, NXDOMAIN for an owner with nothing else, until the zone's
 * promotion and the refresh's 60 s lease after it), and without ALIAS_RESOLVERS the transfer itself was refused
 * (the zone PENDING, not served).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, TestApp } from '../support/test-app';
import { startWithKnotFleet } from '../support/knot-fleet';
import { createSecondary, createUser } from '../support/fixtures';
import { KnotPrimary, startKnotPrimary } from '../support/knot-primary';
import { PowerDnsServer, powerDnsNotified, powerDnsRrset, powerDnsZonesApi, startPowerDnsPrimary } from '../support/powerdns-server';
import { waitFor } from '../support/wait-for';
import { dig, freePort, Knot, records, servedSerial } from './knot';

const ZONE = 'pdns-alias-secondary.zk.test';
const TARGET_ZONE = 'cdn.alias-target.test';
const CATALOG = 'catalog.zk-sec-alias.test';
/** an hour's REFRESH and RETRY: a change taken within the test came by NOTIFY */
const SOA = `ns1.${ZONE}. hostmaster.${ZONE}. 1 3600 3600 604800 300`;
const FIRST = ['A 192.0.2.44', 'AAAA 2001:db8::44'];
const SECOND = ['A 198.51.100.7'];

let dir: string;
let target: KnotPrimary;
let knot: Knot;
let powerdns: PowerDnsServer;
let app: TestApp;
let bare: TestApp;
let dnsPort: number;
let bareDnsPort: number;

/** the A and AAAA a server answers at `name`, with the RCODE */
async function addresses(port: number, name: string): Promise<{ status: string | undefined; addresses: string[] }> {
  const at = ['@127.0.0.1', '-p', String(port), '+norec'];
  const [a, aaaa] = await Promise.all([dig([...at, name, 'A']), dig([...at, name, 'AAAA'])]);
  const found = [...records(a), ...records(aaaa)]
    .filter((r) => r.name === `${name}.` && (r.type === 'A' || r.type === 'AAAA'))
    .map((r) => `${r.type} ${r.rdata}`)
    .sort();
  return { status: a.status === 'NOERROR' ? aaaa.status : a.status, addresses: found };
}

/** `port` answers `expected` at `name` (NOERROR) */
const answers = (port: number, name: string, expected: string[], what: string) =>
  waitFor(
    `${what} to answer ${name} with [${expected.join(', ')}]`,
    async () => {
      const served = await addresses(port, name);
      if (served.status === 'NOERROR' && served.addresses.join() === expected.join()) return true;
      throw new Error(`${what}: ${served.status} [${served.addresses.join(', ')}]`);
    },
    30_000,
    100,
  );

const STATUS = `query($z: String) { domain(name: $z) { kind serial
  secondary { state lastError transfers primarySerial warnings }
  aliasStatus { owner type target state reason addresses }
  records { owner type rdata derived } } }`;
async function status(service: TestApp): Promise<any> {
  const res = await service.gql(STATUS, { z: ZONE });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.domain;
}
const rowsOf = (zone: any, derived: boolean) =>
  zone.records
    .filter((r: any) => r.type !== 'SOA' && r.derived === derived)
    .map((r: any) => `${r.owner} ${r.type} ${r.rdata}`)
    .sort();

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-sec-alias-'));
  const lines = [
    `$ORIGIN ${TARGET_ZONE}.`,
    `@ 300 IN SOA ns.${TARGET_ZONE}. hostmaster.${TARGET_ZONE}. 1 3600 600 86400 60`,
    `@ 300 IN NS ns.${TARGET_ZONE}.`,
    `ns 300 IN A 127.0.0.1`,
    `www 300 IN A 192.0.2.44`,
    `www 300 IN AAAA 2001:db8::44`,
    `edge 300 IN A 198.51.100.7`,
  ];
  writeFileSync(path.join(dir, 'target.zone'), `${lines.join('\n')}\n`);
  target = await startKnotPrimary([{ zone: TARGET_ZONE, file: path.join(dir, 'target.zone') }]);
  ({ app, knot, dnsPort } = await startWithKnotFleet(CATALOG, 'zk-sec-alias-fleet', { ALIAS_RESOLVERS: `127.0.0.1:${target.port}` }));
  bareDnsPort = await freePort();
  bare = await startTestApp({ ROLES: 'api,dns,worker', DNS_LISTEN: `127.0.0.1:${bareDnsPort}` });
  powerdns = await startPowerDnsPrimary({
    notifyPort: dnsPort,
    zone: ZONE,
    rrsets: [
      powerDnsRrset(ZONE, 'SOA', [SOA]),
      powerDnsRrset(ZONE, 'NS', [`ns1.${ZONE}.`]),
      powerDnsRrset(ZONE, 'ALIAS', [`www.${TARGET_ZONE}.`]),
      powerDnsRrset(`ns1.${ZONE}`, 'A', ['192.0.2.53']),
    ],
  });
}, 90_000);

afterAll(async () => {
  await powerdns?.stop();
  await bare?.close();
  await app?.close();
  await knot?.stop();
  await target?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('without ALIAS_RESOLVERS the zone is taken and served, the ALIAS owner without an address, its status saying why', async () => {
  const user = await createUser(bare, 'customer@zk-sec-alias-bare.test');
  await createSecondary(bare, user, ZONE, [{ address: '127.0.0.1', port: powerdns.dnsPort }]);
  await answers(bareDnsPort, `ns1.${ZONE}`, ['A 192.0.2.53'], 'the service without ALIAS_RESOLVERS');
  const served = await status(bare);
  expect(served.secondary).toMatchObject({ state: 'IN_SYNC', lastError: null, transfers: 1 });
  // the ALIAS is the primary's data: kept; nothing derived from it
  expect(rowsOf(served, false)).toContain(`@ ALIAS www.${TARGET_ZONE}.`);
  expect(rowsOf(served, true)).toEqual([]);
  const reason = 'ALIAS_RESOLVERS is not set: nothing flattens the ALIAS, its owner serves no address';
  expect(served.secondary.warnings).toEqual([`ALIAS at ${ZONE} → www.${TARGET_ZONE}.: ${reason}`]);
  expect(served.aliasStatus).toEqual([
    { owner: '@', type: 'ALIAS', target: `www.${TARGET_ZONE}.`, state: 'unresolvable', reason, addresses: [] },
  ]);
  // the apex is there (NOERROR), with no address: not NXDOMAIN
  expect(await addresses(bareDnsPort, ZONE)).toEqual({ status: 'NOERROR', addresses: [] });
  expect(await servedSerial(bareDnsPort, ZONE)).toBe(served.serial);
});

test('an apex ALIAS taken from PowerDNS is served flattened at our primary and our Knot, across a transfer and a promotion', async () => {
  const first = await powerDnsNotified(powerdns, ZONE);
  const user = await createUser(app, 'customer@zk-sec-alias.test');
  await createSecondary(app, user, ZONE, [{ address: '127.0.0.1', port: powerdns.dnsPort }]);

  // before any promotion: the secondary zone's apex answers the target's addresses, here and at Knot
  await answers(dnsPort, ZONE, FIRST, 'our primary');
  await answers(knot.port, ZONE, FIRST, 'our Knot secondary');
  const loaded = await status(app);
  expect(loaded.kind).toBe('SECONDARY');
  expect(loaded.secondary).toMatchObject({ state: 'IN_SYNC', lastError: null, primarySerial: first, warnings: [] });
  // the primary's data as PowerDNS has it; the addresses are the service's, marked derived
  expect(rowsOf(loaded, false)).toEqual([`@ ALIAS www.${TARGET_ZONE}.`, `@ NS ns1.${ZONE}.`, 'ns1 A 192.0.2.53']);
  expect(rowsOf(loaded, true)).toEqual(['@ A 192.0.2.44', '@ AAAA 2001:db8::44']);
  expect(loaded.aliasStatus).toEqual([
    { owner: '@', type: 'ALIAS', target: `www.${TARGET_ZONE}.`, state: 'ok', reason: null, addresses: ['192.0.2.44', '2001:db8::44'] },
  ]);
  // the flattening is a serial step of ours (Knot took it by IXFR), ahead of the primary's
  expect(loaded.serial).toBe(first + 1);
  expect(await servedSerial(knot.port, ZONE)).toBe(first + 1);

  // a change on PowerDNS: the ALIAS's target and a new record; taken after its NOTIFY (REFRESH is an hour)
  await powerDnsZonesApi(powerdns, 'PATCH', `/${ZONE}.`, {
    rrsets: [powerDnsRrset(ZONE, 'ALIAS', [`edge.${TARGET_ZONE}.`]), powerDnsRrset(`new.${ZONE}`, 'A', ['192.0.2.9'])],
  });
  const second = await waitFor('PowerDNS to serve a new serial', async () => {
    const serial = await servedSerial(powerdns.dnsPort, ZONE);
    return serial !== undefined && serial !== first ? serial : undefined;
  });
  await answers(dnsPort, `new.${ZONE}`, ['A 192.0.2.9'], 'our primary');
  await answers(dnsPort, ZONE, SECOND, 'our primary');
  await answers(knot.port, ZONE, SECOND, 'our Knot secondary');
  const changed = await status(app);
  expect(changed.secondary).toMatchObject({ state: 'IN_SYNC', lastError: null, transfers: 2, primarySerial: second });
  expect(rowsOf(changed, false)).toEqual([`@ ALIAS edge.${TARGET_ZONE}.`, `@ NS ns1.${ZONE}.`, 'new A 192.0.2.9', 'ns1 A 192.0.2.53']);
  expect(rowsOf(changed, true)).toEqual(['@ A 198.51.100.7']);
  // PowerDNS's serial stepped by one, to the one the flattening had given us: ours stepped past it (the transfer,
  // then the new target's addresses and the old one's going), and Knot follows ours
  expect(second).toBe(first + 1);
  expect(changed.serial).toBeGreaterThan(second + 1);
  await waitFor('Knot to serve our serial', async () => ((await servedSerial(knot.port, ZONE)) === changed.serial ? true : undefined));

  // promoted: the addresses are there at once, at our primary and at Knot, and no refresh is waited for
  const promoted = await app.gql(`mutation($z: String!) { promoteZone(zone: $z) { kind } }`, { z: ZONE });
  expect(promoted.errors).toBeUndefined();
  expect(promoted.data.promoteZone.kind).toBe('PRIMARY');
  expect(await addresses(dnsPort, ZONE)).toEqual({ status: 'NOERROR', addresses: SECOND });
  expect(await addresses(knot.port, ZONE)).toEqual({ status: 'NOERROR', addresses: SECOND });
  const after = await status(app);
  expect(after.kind).toBe('PRIMARY');
  expect(after.serial).toBe(changed.serial);
  expect(rowsOf(after, true)).toEqual(['@ A 198.51.100.7']);
});
