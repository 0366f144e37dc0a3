/**
 * Query analytics end to end (docs/analytics.md): Debian's BIND 9.18 as a secondary of the service, sending its
 * authoritative responses as dnstap (`dnstap { auth response; }`, `dnstap-output unix`) to the collector
 * (ROLES=collector); a known mix of queries sent to BIND with `dig -f`; GraphQL's Domain.queries then equals the
 * mix exactly per (owner, type, RCODE), names BIND by its dnstap identity, reads the minutes as covered, and the
 * records' lastQueried and queryCount and the zone's top NXDOMAIN names follow from the same counts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createUser, createZone } from '../support/fixtures';
import { BindSecondary, startBindSecondary } from '../support/bind-secondary';
import { waitFor } from '../support/wait-for';
import { dig, freePort } from './knot';

const ZONE = 'analytics.zk.test';
const FLEET_KEY = { name: 'zk-fleet-analytics', secret: randomBytes(32).toString('base64') };

/** the mix sent: owner, type, how many, and the RCODE BIND answers */
const MIX: { owner: string; type: string; times: number; rcode: string }[] = [
  { owner: 'web', type: 'A', times: 37, rcode: 'NOERROR' },
  { owner: 'web', type: 'AAAA', times: 11, rcode: 'NOERROR' }, // NODATA: the name exists, no AAAA
  { owner: 'mail', type: 'MX', times: 5, rcode: 'NOERROR' },
  { owner: 'mail', type: 'A', times: 13, rcode: 'NOERROR' },
  { owner: '@', type: 'SOA', times: 3, rcode: 'NOERROR' },
  { owner: 'nope', type: 'A', times: 17, rcode: 'NXDOMAIN' },
  { owner: 'gone.deep', type: 'TXT', times: 7, rcode: 'NXDOMAIN' },
];
const SENT = MIX.reduce((sum, entry) => sum + entry.times, 0);

let app: TestApp;
let bind: BindSecondary | undefined;
let dir: string;
let zoneId: string;
const since = new Date(Date.now() - 60 * 60_000);

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-analytics-'));
  const dnsPort = await freePort();
  const socket = path.join(dir, 'dnstap.sock');
  app = await startTestApp({
    ROLES: 'api,dns,collector',
    DNS_LISTEN: `127.0.0.1:${dnsPort}`,
    TSIG_KEY: `${FLEET_KEY.name}:hmac-sha256:${FLEET_KEY.secret}`,
    TRANSFER_ALLOW: '127.0.0.1/32',
    ANALYTICS_DNSTAP_LISTEN: socket,
    ANALYTICS_FLUSH_MS: '200',
  });
  const userId = await createUser(app, 'analytics@zk.test');
  zoneId = await createZone(app, userId, ZONE);
  for (const input of [
    { owner: 'web', type: 'A', rdata: '192.0.2.80' },
    { owner: 'mail', type: 'A', rdata: '192.0.2.25' },
    { owner: 'mail', type: 'MX', rdata: '10 mail.analytics.zk.test.' },
    { owner: 'quiet', type: 'A', rdata: '192.0.2.99' },
  ]) {
    const res = await app.gql(CREATE_RECORD, { input: { zone: ZONE, ttl: 300, ...input } });
    expect(res.errors).toBeUndefined();
  }
  await app.service.collector!.refreshZones();
  bind = await startBindSecondary({
    zones: [ZONE],
    primaryPort: dnsPort,
    tsig: FLEET_KEY,
    options: `  dnstap { auth response; };
  dnstap-output unix "${socket}";
  dnstap-identity "bind-a";`,
  });
  // told by BIND's log, not by asking it: every answer it gives is counted, and the test's mix is all it is asked
  await waitFor('BIND serving the zone', () => (/transferred serial/.test(bind!.log()) ? true : undefined), 30_000);
}, 90_000);

afterAll(async () => {
  await bind?.stop();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const QUERIES = `query($id: ID!, $since: DateTimeISO!) {
  domain(id: $id) {
    queries(since: $since, step: HOUR, by: [OWNER, TYPE, RCODE]) { step buckets { start total coverage missing counts { owner type rcode count } } }
    bySecondary: queries(since: $since, step: HOUR, by: [SECONDARY]) { buckets { counts { secondary count } } }
    topQueriedNames(since: $since, rcode: "NXDOMAIN") { owner count }
    records { owner type lastQueried queryCount(since: $since) }
  }
}`;

test('the counts equal the mix of queries sent to BIND, per owner, type and RCODE', async () => {
  // the mix, shuffled the same way each run, as one dig batch (each line a query)
  const lines = MIX.flatMap(({ owner, type, times }) =>
    Array.from({ length: times }, () => `${owner === '@' ? ZONE : `${owner}.${ZONE}`} ${type}`),
  );
  const shuffled = lines.map((line, i) => ({ line, key: (i * 7919) % lines.length })).sort((a, b) => a.key - b.key);
  const batch = path.join(dir, 'queries.txt');
  writeFileSync(batch, shuffled.map(({ line }) => line).join('\n') + '\n');
  // over TCP: a query is answered once, however slow the machine (no UDP retry answered twice)
  const sent = await dig(['@127.0.0.1', '-p', String(bind!.port), '+tcp', '+norec', '+tries=1', '+time=10', '-f', batch], 120_000);
  expect((sent.stdout.match(/status: /g) ?? []).length).toBe(SENT);

  const answer = await waitFor(
    `the ${SENT} answers counted`,
    async () => {
      const res = await app.gql(QUERIES, { id: zoneId, since: since.toISOString() });
      if (res.errors) throw new Error(JSON.stringify(res.errors));
      const total = res.data.domain.queries.buckets.reduce((sum: number, bucket: { total: number | null }) => sum + (bucket.total ?? 0), 0);
      return total >= SENT ? res.data.domain : undefined;
    },
    60_000,
  );
  const counted = new Map<string, number>();
  for (const bucket of answer.queries.buckets)
    for (const { owner, type, rcode, count } of bucket.counts)
      counted.set(`${owner} ${type} ${rcode}`, (counted.get(`${owner} ${type} ${rcode}`) ?? 0) + count);
  expect(Object.fromEntries(counted)).toEqual(
    Object.fromEntries(MIX.map(({ owner, type, rcode, times }) => [`${owner} ${type} ${rcode}`, times])),
  );
  expect(answer.queries.step).toBe(3600);

  // the secondary is named by its dnstap identity; its hour bucket is covered (it has been connected since it
  // first sent, and a bucket before it first sent expects nothing of it)
  expect(answer.bySecondary.buckets.flatMap((bucket: { counts: unknown[] }) => bucket.counts)).toEqual([
    { secondary: 'bind-a', count: SENT },
  ]);
  const current = answer.queries.buckets[answer.queries.buckets.length - 1];
  expect(current.missing).toEqual([]);
  expect(current.coverage).toBeGreaterThan(0);

  expect(answer.topQueriedNames).toEqual([
    { owner: 'nope', count: 17 },
    { owner: 'gone.deep', count: 7 },
  ]);
  const records = new Map<string, { lastQueried: string | null; queryCount: number }>(
    answer.records.map((record: { owner: string; type: string; lastQueried: string | null; queryCount: number }) => [
      `${record.owner} ${record.type}`,
      record,
    ]),
  );
  expect(records.get('web A')).toMatchObject({ queryCount: 37, lastQueried: expect.any(String) });
  expect(records.get('mail MX')).toMatchObject({ queryCount: 5 });
  expect(records.get('quiet A')).toMatchObject({ lastQueried: null, queryCount: 0 });
  expect(Date.now() - Date.parse(records.get('web A')!.lastQueried!)).toBeLessThan(10 * 60_000);
}, 180_000);

test('a window before the first frame is a gap, not zero', async () => {
  const res = await app.gql(
    `query($id: ID!, $since: DateTimeISO!, $until: DateTimeISO!) { domain(id: $id) { queries(since: $since, until: $until, step: MINUTE) { buckets { total coverage } } } }`,
    { id: zoneId, since: new Date(Date.now() - 3 * 3600_000).toISOString(), until: new Date(Date.now() - 2 * 3600_000).toISOString() },
  );
  expect(res.errors).toBeUndefined();
  const buckets = res.data.domain.queries.buckets;
  // an hour of minutes (61 buckets when the window's ends fall inside minutes)
  expect(buckets.length).toBeGreaterThanOrEqual(60);
  expect(buckets.every((bucket: { total: number | null; coverage: number }) => bucket.total === null && bucket.coverage === 0)).toBe(true);
});
