/**
 * The DNS primary's statements run under the plans PostgreSQL makes once a connection, without their values: a
 * query's snapshot sets GENERIC_PLAN_SETTINGS in its BEGIN (repositories/dns-zone-data.ts, `inSnapshot`), because
 * planning each query's statements for its values cost PostgreSQL more than running them. What makes that safe
 * is that each generic plan reads a zone's rows by an index whatever the zone: read here from PostgreSQL's own plan
 * of every statement the primary sent for look-ups of every kind, transfers and the catalog, on a signed zone of
 * 2,000 records beside others, with their statistics taken.
 */
import { forcedGenericPlan, scansOf } from '../support/plans';
import { startTestApp, TestApp } from '../support/test-app';
import { dig, freePort } from '../propagation/knot';

const ZONE = 'big.dns-plans.test';
const CATALOG = 'catalog.dns-plans.test';
const RECORDS = 2000;

let app: TestApp;
let dnsPort: number;
const db = () => app.service.database.db;

beforeAll(async () => {
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns', DNS_LISTEN: `127.0.0.1:${dnsPort}`, CATALOG_ZONE: CATALOG });
  const user = await app.gql(`mutation { createUser(input: {email: "dns-plans@example.com"}) { id } }`);
  expect(user.errors).toBeUndefined();
  for (const zone of [ZONE, 'small.dns-plans.test']) {
    const made = await app.gql(`mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }`, {
      u: user.data.createUser.id,
      z: zone,
    });
    expect(made.errors).toBeUndefined();
  }
  // one zone holds nearly all of the records: a plan that guessed a zone's share from the table's statistics
  // would read it whole
  const changes = Array.from({ length: RECORDS }, (_, i) => ({ kind: 'ADD', owner: `host${i}`, type: 'A', rdata: '192.0.2.1', ttl: 300 }));
  for (const [owner, type, rdata] of [
    ['*.wild', 'A', '192.0.2.2'],
    ['alias', 'CNAME', `host1.${ZONE}.`],
    ['@', 'MX', `10 host2.${ZONE}.`],
    ['a.b.c', 'A', '192.0.2.3'],
  ])
    changes.push({ kind: 'ADD', owner, type, rdata, ttl: 300 });
  const applied = await app.gql(`mutation($z: String!, $c: [ZoneChangeInput!]!) { applyZoneChanges(zone: $z, changes: $c) { serial } }`, {
    z: ZONE,
    c: changes,
  });
  expect(applied.errors).toBeUndefined();
  const signed = await app.gql(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { enabled } }`, { z: ZONE });
  expect(signed.errors).toBeUndefined();
  for (const table of ['domains', 'records', 'dnssec_records', 'changes']) await db().rows(`analyze ${table}`);
}, 120_000);

afterAll(async () => {
  await app?.close();
});

/** the tables of the zones' data, each read by zone (`domain_id`) or by name */
const ZONE_TABLES = ['domains', 'records', 'dnssec_records', 'changes', 'view_overlays'];

/** the scans of those tables in `plan` that are not by an index */
const scansNotByIndex = (plan: any) =>
  ZONE_TABLES.flatMap((relation) =>
    scansOf(plan, relation)
      .filter((scan) => !/^(Index|Bitmap)/.test(scan['Node Type']))
      .map((scan) => `${scan['Node Type']} on ${relation}: ${scan.Filter ?? ''}`),
  );

test('every statement of the primary reads the zones by an index under its generic plan', async () => {
  const serial = Number((await db().rows('select serial from domains where name = $1', [ZONE]))[0].serial);
  const sent: { text: string; params: readonly unknown[] }[] = [];
  const stop = db().observeStatements((text, params) => {
    if (!/^(begin|commit)/.test(text)) sent.push({ text, params });
  });
  const ask = (...args: string[]) => dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', ...args]);
  try {
    for (const [name, type] of [
      [ZONE, 'SOA'],
      [`host7.${ZONE}`, 'A'],
      [`host7.${ZONE}`, 'AAAA'],
      [`nothing.${ZONE}`, 'A'],
      [`b.c.${ZONE}`, 'A'],
      [`x.wild.${ZONE}`, 'A'],
      [`alias.${ZONE}`, 'A'],
      [ZONE, 'MX'],
      [ZONE, 'DNSKEY'],
      [CATALOG, 'SOA'],
    ])
      expect((await ask(name, type)).status).toMatch(/NOERROR|NXDOMAIN/);
    // with DO: the RRSIGs of the answer
    expect((await ask('+dnssec', `host7.${ZONE}`, 'A')).status).toBe('NOERROR');
    expect((await ask(ZONE, 'AXFR')).lines.length).toBeGreaterThan(RECORDS);
    expect((await ask(ZONE, `IXFR=${serial - 1}`)).lines.length).toBeGreaterThan(0);
    expect((await ask(CATALOG, 'AXFR')).lines.length).toBeGreaterThan(2);
  } finally {
    stop();
  }
  const statements = [...new Map(sent.map((s) => [s.text, s])).values()];
  // the zone found with its first records, the names below one, the signer's records, the transfers' pages and journal
  expect(statements.length).toBeGreaterThanOrEqual(6);
  for (const { text, params } of statements) {
    // a statement without values has one plan, whatever the plan cache's mode
    const plan = await db().connection((sql) =>
      params.length
        ? forcedGenericPlan(sql, text, [...params])
        : sql.rows(`explain (format json) ${text}`).then(([row]) => row['QUERY PLAN'][0].Plan),
    );
    expect({ text, scans: scansNotByIndex(plan) }).toEqual({ text, scans: [] });
  }
}, 60_000);
