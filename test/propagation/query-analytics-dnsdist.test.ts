/**
 * Query analytics from PowerDNS (docs/analytics.md): PowerDNS Authoritative sends no dnstap, so dnsdist is put in
 * front of it. Debian's pdns-server 4.7 (gsqlite3) as a secondary of the service, Debian's dnsdist 1.7 in front of
 * it configured from the text the service prints for a PowerDNS secondary (GraphQL nameserverSetSecondaryConfig),
 * its answers sent as dnstap (CLIENT_RESPONSE) to the collector's unix socket. A known mix of queries (names,
 * types, NODATA, NXDOMAIN) through dnsdist over pipelined TCP (each query answered once: test/support/dns-load.ts)
 * is counted exactly per (owner, type, RCODE), under dnsdist's identity (the host's name), dnsdist's own count of
 * frames dropped (its console's) standing at 0; a NOTIFY through dnsdist is answered and not counted.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createUser, createZone } from '../support/fixtures';
import { PowerDnsServer, startPowerDnsSecondary } from '../support/powerdns-server';
import { Dnsdist, startDnsdist } from '../support/dnsdist';
import { knownMix, sendQueries } from '../support/dns-load';
import { rcodeOf, sendUdp } from '../support/update-clients';
import { encodeMessage, FLAG, OPCODE } from '../../src/dns/wire/message';
import { DNSDIST_CONF_LINE, POWERDNS_BEHIND_DNSDIST } from '../../src/services/transfers/dnstap-config';
import { dig, freePort, servedSerial, waitFor } from './knot';

const ZONE = 'pdns.analytics.zk.test';
const KEY = { name: 'zk-analytics-dnsdist', secret: randomBytes(32).toString('base64') };
/** queries sent (a few thousand: seconds) */
const QUERIES = Number(process.env.ANALYTICS_DNSDIST_QUERIES ?? 3_000);
/** dnsdist names its dnstap by the host's name (the printed `io.popen("hostname")`) */
const IDENTITY = os.hostname();

let app: TestApp;
let powerdns: PowerDnsServer | undefined;
let dnsdist: Dnsdist | undefined;
let dir: string;
let zoneId: string;
const since = new Date(Date.now() - 60 * 60_000);

const COUNTS = `query($id: ID!, $since: DateTimeISO!) {
  domain(id: $id) {
    queries(since: $since, step: HOUR, by: [SECONDARY, OWNER, TYPE, RCODE]) { buckets { counts { secondary owner type rcode count } } }
  }
}`;

/** the name asked until dnsdist's answers are counted (dnsdist connects to the collector as it starts): left out */
const PROBE = `ready.${ZONE}`;

/**
 * what the collector counted, keyed `name type RCODE` as the load generator keys its answers (prefixed with the
 * sender's name if it is not dnsdist's identity), the probe's answers left out
 */
async function counted(): Promise<Map<string, number>> {
  const res = await app.gql(COUNTS, { id: zoneId, since: since.toISOString() });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  const counts = new Map<string, number>();
  for (const bucket of res.data.domain.queries.buckets)
    for (const { secondary, owner, type, rcode, count } of bucket.counts) {
      // one sender here: any other name is a frame under the wrong identity
      const name = owner === '@' ? ZONE : `${owner}.${ZONE}`;
      if (name === PROBE) continue;
      const key = `${secondary === IDENTITY ? '' : `${secondary}: `}${name} ${type} ${rcode}`;
      counts.set(key, (counts.get(key) ?? 0) + count);
    }
  return counts;
}

const TOP = `query($id: ID!, $since: DateTimeISO!) { domain(id: $id) { topQueriedNames(since: $since, first: 1) { owner } } }`;

const sum = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
const sorted = (counts: Map<string, number>) => Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b)));

/** waits until the collector counted `total` answers (the probe's left out) */
function countedUpTo(total: number): Promise<Map<string, number>> {
  return waitFor(
    'every answer counted',
    async () => {
      const now = await counted();
      return sum(now) >= total ? now : undefined;
    },
    60_000,
    50,
  ).catch(async (error) => {
    const frames = await framesOf();
    throw new Error(
      `${(error as Error).message}: ${sum(await counted())} of ${total}; dnsdist sent ${frames.sent}, dropped ${frames.dropped}`,
    );
  });
}

/** dnsdist's Frame Streams logger's own counters, from its console: frames sent and dropped (its queue full) */
async function framesOf(): Promise<{ sent: number; dropped: number }> {
  const rules = await dnsdist!.responseRules();
  const found = /\((\d+) frames sent, (\d+) dropped/.exec(rules);
  if (!found) throw new Error(`no Frame Streams logger among dnsdist's response rules: ${rules}`);
  return { sent: Number(found[1]), dropped: Number(found[2]) };
}

function add(into: Map<string, number>, from: Map<string, number>): void {
  for (const [key, count] of from) into.set(key, (into.get(key) ?? 0) + count);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'zk-dnsdist-'));
  const socket = path.join(dir, 'dnstap.sock');
  const dnsPort = await freePort();
  app = await startTestApp({
    ROLES: 'api,dns,collector',
    DNS_LISTEN: `127.0.0.1:${dnsPort}`,
    TSIG_KEY: `${KEY.name}:hmac-sha256:${KEY.secret}`,
    TRANSFER_ALLOW: '127.0.0.1/32',
    ANALYTICS_DNSTAP_LISTEN: socket,
    ANALYTICS_FLUSH_MS: '200',
  });
  zoneId = await createZone(app, await createUser(app, 'dnsdist@zk.test'), ZONE);
  for (const input of [
    { owner: 'web', type: 'A', rdata: '192.0.2.80' },
    { owner: 'mail', type: 'A', rdata: '192.0.2.25' },
    { owner: 'mail', type: 'MX', rdata: `10 mail.${ZONE}.` },
  ]) {
    const res = await app.gql(CREATE_RECORD, { input: { zone: ZONE, ttl: 300, ...input } });
    expect(res.errors).toBeUndefined();
  }
  await app.service.collector!.refreshZones();
  powerdns = await startPowerDnsSecondary({ zones: [ZONE], primaryPort: dnsPort, tsig: KEY });
  // asked of PowerDNS itself, not through dnsdist: nothing of it is counted
  await waitFor(
    'PowerDNS serving the zone',
    async () => ((await servedSerial(powerdns!.dnsPort, ZONE)) !== undefined ? true : undefined),
    30_000,
  );

  // dnsdist as printed for a PowerDNS secondary of the default set, but on the test's ports
  const printed = await app.gql(`query($p: String!) { nameserverSetSecondaryConfig(primary: $p, software: POWERDNS) }`, {
    p: `127.0.0.1:${dnsPort}`,
  });
  expect(printed.errors).toBeUndefined();
  const text: string = printed.data.nameserverSetSecondaryConfig;
  const lua = text.slice(text.indexOf(`${DNSDIST_CONF_LINE}\n`) + DNSDIST_CONF_LINE.length + 1);
  expect(lua).toContain(`newFrameStreamUnixLogger("${socket}", `);
  const backend = `${POWERDNS_BEHIND_DNSDIST.host}:${POWERDNS_BEHIND_DNSDIST.port}`;
  expect(lua).toContain(`"${backend}"`);
  dnsdist = await startDnsdist({
    config: lua.replace(/^(setLocal|addLocal)\(.*\)\n/gm, '').replace(`"${backend}"`, `"127.0.0.1:${powerdns.dnsPort}"`),
    listen: (port) => `setLocal("127.0.0.1:${port}")`,
  });
}, 120_000);

afterAll(async () => {
  await dnsdist?.stop();
  await powerdns?.stop();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

test(`${QUERIES} queries through dnsdist in front of PowerDNS are counted exactly, per owner, type and RCODE`, async () => {
  // dnsdist connects to the collector as it starts (an answer before that is not sent): a name of the zone asked
  // until its answers are counted, left out of the counts compared
  await waitFor(
    'dnsdist sending dnstap',
    async () => {
      await dig(['@127.0.0.1', '-p', String(dnsdist!.port), '+tcp', '+norec', PROBE, 'A']);
      return (await app.gql(TOP, { id: zoneId, since: since.toISOString() })).data?.domain.topQueriedNames.length ? true : undefined;
    },
    30_000,
    500,
  );
  // all at once: fewer than the printed queue of dnstap frames (16,384), so none is dropped however slow the collector
  const began = Date.now();
  const sent = await sendQueries(dnsdist!.port, knownMix(ZONE, QUERIES, 11));
  expect(sum(sent)).toBe(QUERIES);
  const final = await countedUpTo(QUERIES);
  console.log(`${QUERIES} queries through dnsdist answered and counted in ${Date.now() - began} ms`);
  expect((await framesOf()).dropped).toBe(0);
  expect(sorted(final)).toEqual(sorted(sent));
  // the mix is what it says: NODATA and NXDOMAIN among the answers, all under dnsdist's identity
  expect([...sent.keys()]).toEqual(
    expect.arrayContaining([`web.${ZONE} A NOERROR`, `web.${ZONE} AAAA NOERROR`, `gone.deep.${ZONE} TXT NXDOMAIN`, `${ZONE} SOA NOERROR`]),
  );

  // a NOTIFY from the primary's address passes dnsdist to PowerDNS and is answered; its answer is not counted
  const notify = encodeMessage({ id: 99, flags: FLAG.AA | (OPCODE.NOTIFY << 11), questions: [{ name: `${ZONE}.`, type: 6, klass: 1 }] });
  expect(rcodeOf(await sendUdp(dnsdist!.port, notify))).toBe(0);
  await dig(['@127.0.0.1', '-p', String(dnsdist!.port), '+tcp', '+norec', `web.${ZONE}`, 'A']);
  add(sent, new Map([[`web.${ZONE} A NOERROR`, 1]]));
  expect(sorted(await countedUpTo(QUERIES + 1))).toEqual(sorted(sent));
}, 120_000);
