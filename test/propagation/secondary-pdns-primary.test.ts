/**
 * A secondary zone (docs/transfers.md) whose primary is a customer's PowerDNS (Debian's pdns-server 4.7, gsqlite3,
 * test/support/powerdns-server.ts): taken by AXFR, then each change made through PowerDNS's API (soa_edit_api
 * INCREASE: the serial rises) taken after PowerDNS's NOTIFY (the zone's REFRESH is an hour: only the NOTIFY
 * explains it) by IXFR, which PowerDNS answers in AXFR form with the SOA alone in its first message. Before the
 * fix in zone-transfer-in.ts (`ixfr`, `messageEnd`), that lone SOA was read as "up to date": the zone stayed at
 * its first serial, IN_SYNC, and never took a change.
 */
import { startTestApp, TestApp } from '../support/test-app';
import { createUser } from '../support/fixtures';
import { python } from '../support/update-clients';
import { PowerDnsServer, powerDnsNotified, powerDnsRrset, powerDnsZonesApi, startPowerDnsPrimary } from '../support/powerdns-server';
import { waitFor } from '../support/wait-for';
import { dig, freePort, records, servedSerial } from './knot';

const ZONE = 'pdns-primary.zk.test';
/** an hour's REFRESH and RETRY: a change taken within the test came by NOTIFY */
const SOA = `ns1.${ZONE}. hostmaster.${ZONE}. 1 3600 3600 604800 300`;

let app: TestApp;
let powerdns: PowerDnsServer;
let dnsPort: number;
let userId: string;

/** the rdata of the `type` records at `name` a server serves (none when it does not serve the zone) */
async function served(port: number, name: string, type = 'A'): Promise<string[]> {
  const result = await dig(['@127.0.0.1', '-p', String(port), '+norec', name, type]);
  return records(result)
    .filter((r) => r.type === type && r.name === `${name}.`)
    .map((r) => r.rdata)
    .sort();
}

const STATUS = `query($z: String) { domain(name: $z) { kind serial secondary { state lastError transfers } records { owner type rdata } } }`;
async function status(): Promise<any> {
  const res = await app.gql(STATUS, { z: ZONE });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.domain;
}
/**
 * The zone's status once it counts `transfers`: a refresh writes the transferred zone, then its status (state,
 * timers, the count) in a transaction after it, so the new data can be read a moment before the count
 */
const counted = (transfers: number) =>
  waitFor(`the status to count ${transfers} transfers`, async () => {
    const current = await status();
    return current.secondary.transfers >= transfers ? current : undefined;
  });
const rowsOf = (state: any) =>
  state.records
    .filter((r: any) => r.type !== 'SOA')
    .map((r: any) => `${r.owner} ${r.type} ${r.rdata}`)
    .sort();

async function lastChangeAuthor(): Promise<{ serialAfter: number; keyName: string }> {
  const res = await app.gql(`query($z: String) { domain(name: $z) { changes(first: 1) { nodes { serialAfter author { keyName } } } } }`, {
    z: ZONE,
  });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  const last = res.data.domain.changes.nodes[0];
  return { serialAfter: last.serialAfter, keyName: last.author.keyName };
}

/**
 * dnspython: an IXFR from `serial` to PowerDNS over TCP, its answer read message by message (until the closing SOA
 * of the AXFR form, or the end of the stream); prints each message's answer records as a JSON list of `TYPE` (and
 * `SOA <serial>`) per line
 */
const DNSPYTHON_IXFR_MESSAGES = `
import sys, json, socket, time, dns.exception, dns.message, dns.query, dns.rdatatype, dns.rrset
zone, port, serial = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
q = dns.message.make_query(zone, 'IXFR', use_edns=False)
q.authority.append(dns.rrset.from_text(zone + '.', 300, 'IN', 'SOA', f'ns1.{zone}. hostmaster.{zone}. {serial} 3600 3600 604800 300'))
with socket.create_connection(('127.0.0.1', port), timeout=5) as s:
    dns.query.send_tcp(s, q)
    soas = 0
    while soas < 2:
        try:
            r, _ = dns.query.receive_tcp(s, time.time() + 3, one_rr_per_rrset=True)
        except (EOFError, socket.timeout, dns.exception.Timeout):
            break
        rows = [f'SOA {rr[0].serial}' if rr.rdtype == dns.rdatatype.SOA else dns.rdatatype.to_text(rr.rdtype) for rr in r.answer]
        soas += sum(row.startswith('SOA') for row in rows)
        print(json.dumps(rows))
`;
async function ixfrMessages(serial: number): Promise<string[][]> {
  const run = await python(DNSPYTHON_IXFR_MESSAGES, [ZONE, String(powerdns.dnsPort), String(serial)]);
  if (run.code !== 0) throw new Error(`dnspython's IXFR: ${run.stderr}`);
  return run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as string[]);
}

/** the zone's serial PowerDNS serves, once it differs from `before` */
const powerDnsSerialAfter = (before: number | undefined) =>
  waitFor('PowerDNS to serve a new serial', async () => {
    const serial = await servedSerial(powerdns.dnsPort, ZONE);
    return serial !== undefined && serial !== before ? serial : undefined;
  });

/** our primary serves `addresses` (or nothing) at `name`, and the zone is IN_SYNC at `serial` */
async function taken(name: string, addresses: string[], serial: number): Promise<any> {
  const state = await waitFor(
    `our primary to serve ${name} A [${addresses.join(', ')}], the zone IN_SYNC at PowerDNS’s serial ${serial}`,
    async () => {
      const [current, answer] = await Promise.all([status(), served(dnsPort, name)]);
      if (current.serial === serial && current.secondary.state === 'IN_SYNC' && answer.join() === addresses.join()) return current;
      // what the timeout reports: before the fix, [192.0.2.1] served and IN_SYNC at the first serial, for good
      throw new Error(`${name} A [${answer.join(', ')}] served, the zone ${current.secondary.state} at serial ${current.serial}`);
    },
    20_000,
    100,
  );
  expect(await servedSerial(dnsPort, ZONE)).toBe(serial);
  return state;
}

beforeAll(async () => {
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns,worker', DNS_LISTEN: `127.0.0.1:${dnsPort}` });
  userId = await createUser(app, 'customer@zk-pdns-primary.test');
  powerdns = await startPowerDnsPrimary({
    notifyPort: dnsPort,
    zone: ZONE,
    rrsets: [
      powerDnsRrset(ZONE, 'SOA', [SOA]),
      powerDnsRrset(ZONE, 'NS', [`ns1.${ZONE}.`]),
      powerDnsRrset(`ns1.${ZONE}`, 'A', ['192.0.2.53']),
      powerDnsRrset(`www.${ZONE}`, 'A', ['192.0.2.1']),
    ],
  });
}, 60_000);

afterAll(async () => {
  await powerdns?.stop();
  await app?.close();
});

test('a secondary zone follows every change on its PowerDNS primary (IXFR answered in AXFR form)', async () => {
  const first = await powerDnsSerialAfter(undefined);
  const created = await app.gql(
    `mutation($u: ID!, $z: String!, $p: [ServerInput!]) { createDomain(input: { userId: $u, zone: $z, kind: SECONDARY, primaries: $p }) { kind } }`,
    { u: userId, z: ZONE, p: [{ address: '127.0.0.1', port: powerdns.dnsPort }] },
  );
  expect(created.errors).toBeUndefined();
  expect(created.data.createDomain.kind).toBe('SECONDARY');
  const loaded = await taken(`www.${ZONE}`, ['192.0.2.1'], first);
  expect((await counted(1)).secondary).toMatchObject({ state: 'IN_SYNC', lastError: null, transfers: 1 });
  expect(rowsOf(loaded)).toEqual([`@ NS ns1.${ZONE}.`, 'ns1 A 192.0.2.53', 'www A 192.0.2.1']);
  expect(await lastChangeAuthor()).toEqual({ serialAfter: first, keyName: `transfer from 127.0.0.1#${powerdns.dnsPort} (AXFR)` });

  // a change on PowerDNS: www replaced, a record added; its serial rises (soa_edit_api), and it NOTIFYs us
  expect(await powerDnsNotified(powerdns, ZONE)).toBe(first);
  await powerDnsZonesApi(powerdns, 'PATCH', `/${ZONE}.`, {
    rrsets: [powerDnsRrset(`www.${ZONE}`, 'A', ['192.0.2.2']), powerDnsRrset(`new.${ZONE}`, 'A', ['192.0.2.3'])],
  });
  const second = await powerDnsSerialAfter(first);
  expect(second).toBeGreaterThan(first);
  // what made the bug: PowerDNS answers an IXFR from our serial in AXFR form, its SOA alone in the first message
  const messages = await ixfrMessages(first);
  expect(messages[0]).toEqual([`SOA ${second}`]);
  expect(messages.flat().sort()).toEqual(['A', 'A', 'A', 'NS', `SOA ${second}`, `SOA ${second}`]);
  const changed = await taken(`www.${ZONE}`, ['192.0.2.2'], second);
  expect(await served(dnsPort, `new.${ZONE}`)).toEqual(['192.0.2.3']);
  expect((await counted(2)).secondary).toMatchObject({ state: 'IN_SYNC', lastError: null, transfers: 2 });
  expect(rowsOf(changed)).toEqual([`@ NS ns1.${ZONE}.`, 'new A 192.0.2.3', 'ns1 A 192.0.2.53', 'www A 192.0.2.2']);
  // by IXFR, which PowerDNS answered whole (in AXFR form), not by an AXFR after a failed IXFR
  expect(await lastChangeAuthor()).toEqual({ serialAfter: second, keyName: `transfer from 127.0.0.1#${powerdns.dnsPort} (IXFR, whole)` });

  // and the next change too: a deletion
  expect(await powerDnsNotified(powerdns, ZONE)).toBe(second);
  await powerDnsZonesApi(powerdns, 'PATCH', `/${ZONE}.`, { rrsets: [powerDnsRrset(`new.${ZONE}`, 'A', [])] });
  const third = await powerDnsSerialAfter(second);
  const deleted = await taken(`new.${ZONE}`, [], third);
  expect((await counted(3)).secondary).toMatchObject({ state: 'IN_SYNC', lastError: null, transfers: 3 });
  expect(rowsOf(deleted)).toEqual([`@ NS ns1.${ZONE}.`, 'ns1 A 192.0.2.53', 'www A 192.0.2.2']);
  expect((await lastChangeAuthor()).serialAfter).toBe(third);
});
