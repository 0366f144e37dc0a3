/**
 * A zone signed by the service, end to end on the default settings: DNSSEC enabled through GraphQL (NSEC,
 * NSEC3, NSEC3 with opt-out), a run of random changes through the API, each signed incrementally in its serial
 * step. The zone as the primary transfers it (AXFR), as a Knot secondary serves it after taking the changes by
 * IXFR, and as a BIND secondary serves it must pass BIND's dnssec-verify, ldns's ldns-verify-zone and Knot's
 * kzonecheck, and the copies must be the same zone. A validating Unbound anchored at the zone's DS and asking
 * the Knot secondary authenticates data, NXDOMAIN, NODATA and wildcard answers. Signature-only steps stay out
 * of the history; the signer's types are refused from users; disabling leaves a zone without a signer record.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_KEY, TestApp } from '../support/test-app';
import { startServiceWithKnot } from '../support/knot-fleet';
import { freePort, Knot, servedSerial, waitFor } from '../propagation/knot';
import { startUnbound } from '../support/unbound';
import { transferZone, verifySignedZone } from '../support/signed-zone-checks';
import { BindSecondary, startBindSecondary } from '../support/bind-secondary';

const CATALOG = 'catalog.zk-dnssec.test';
const KEY_NAME = 'zk-dnssec-key';
const SECRET = randomBytes(32).toString('base64');
const TSIG = { name: KEY_NAME, secret: SECRET };

let knot: Knot;
let bind: BindSecondary;
let app: TestApp;
let dnsPort: number;
let userId: string;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'zk-signed-'));
  dnsPort = await freePort();
  // BIND holds the signed zones too, configured one by one (it takes no catalog here)
  bind = await startBindSecondary({ zones: SIGNED_ZONES, primaryPort: dnsPort, tsig: TSIG });
  ({ app, knot, userId } = await startServiceWithKnot({
    catalog: CATALOG,
    tsig: TSIG,
    dnsPort,
    extraSecondaries: [`127.0.0.1:${bind.port}`],
    user: 'signed@example.com',
  }));
}, 60_000);

afterAll(async () => {
  await app?.close();
  await knot?.stop();
  await bind?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function gqlOk<T = any>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await app.gql<T>(query, variables);
  expect(res.errors).toBeUndefined();
  return res.data as T;
}

async function applyChanges(zone: string, changes: Record<string, unknown>[]): Promise<number> {
  const data = await gqlOk(`mutation($z: String!, $c: [ZoneChangeInput!]!) { applyZoneChanges(zone: $z, changes: $c) { serial } }`, {
    z: zone,
    c: changes,
  });
  return data.applyZoneChanges.serial;
}

/** a zone's transfer from a server (TSIG-signed from the primary) as a zone file, the closing SOA and the TSIG left out */
const transfer = async (zone: string, port: number, tsig: boolean): Promise<string> =>
  (await transferZone(port, tsig ? TSIG : undefined, zone, { expectContent: true })).text;

/** the three verifiers over a zone file */
const verifyAll = (zone: string, text: string, label: string): Promise<void> =>
  verifySignedZone(zone, join(dir, `${zone}-${label}.zone`), { text });

/** the records of a zone file as a sorted list of lines, names and types lower-cased, for comparing two copies */
function normalised(text: string): string[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [name, ttl, klass, type, ...rest] = line.split(/\s+/);
      return [name.toLowerCase(), ttl, klass, type, rest.join(' ')].join(' ');
    })
    .sort();
}

const INITIAL: Record<string, unknown>[] = [
  { kind: 'ADD', owner: '@', type: 'MX', ttl: 300, rdata: '10 mail' },
  { kind: 'ADD', owner: 'mail', type: 'A', ttl: 300, rdata: '192.0.2.2' },
  { kind: 'ADD', owner: 'ns1', type: 'A', ttl: 300, rdata: '192.0.2.1' },
  { kind: 'ADD', owner: '*.wild', type: 'TXT', ttl: 300, rdata: '"wildcard"' },
  { kind: 'ADD', owner: 'deep.a.b', type: 'A', ttl: 300, rdata: '192.0.2.5' },
  { kind: 'ADD', owner: 'insecure', type: 'NS', ttl: 3600, rdata: 'ns.insecure' },
  { kind: 'ADD', owner: 'ns.insecure', type: 'A', ttl: 3600, rdata: '192.0.2.7' },
];

/** a deterministic run of changes: adds, removals and RRset replacements at new and existing owners */
function randomChanges(seed: number, count: number): Record<string, unknown>[][] {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
  const live: { owner: string; type: string; rdata: string }[] = [];
  const steps: Record<string, unknown>[][] = [];
  for (let i = 0; i < count; i++) {
    const choice = next();
    if (choice < 0.55 || live.length === 0) {
      const depth = Math.floor(next() * 3);
      const owner = [`h${Math.floor(next() * 40)}`, ...Array.from({ length: depth }, (_, d) => `l${d}`)].join('.');
      const record = next() < 0.5 ? { owner, type: 'A', rdata: `198.51.100.${i % 250}` } : { owner, type: 'TXT', rdata: `"step ${i}"` };
      if (live.some((r) => r.owner === record.owner && r.type === record.type && r.rdata === record.rdata)) continue;
      live.push(record);
      steps.push([{ kind: 'ADD', ttl: 300, ...record }]);
    } else if (choice < 0.85) {
      const [gone] = live.splice(Math.floor(next() * live.length), 1);
      steps.push([{ kind: 'REMOVE', ...gone }]);
    } else {
      const target = live[Math.floor(next() * live.length)];
      if (target.type !== 'A') continue;
      const rdatas = [`203.0.113.${i % 250}`, `203.0.113.${(i + 1) % 250}`];
      for (let j = live.length - 1; j >= 0; j--) if (live[j].owner === target.owner && live[j].type === 'A') live.splice(j, 1);
      for (const rdata of rdatas) live.push({ owner: target.owner, type: 'A', rdata });
      steps.push([{ kind: 'REPLACE_RRSET', owner: target.owner, type: 'A', ttl: 300, rdatas }]);
    }
  }
  return steps;
}

const DENIALS = [
  ['NSEC', { denial: 'NSEC' }],
  ['NSEC3', { denial: 'NSEC3' }],
  ['NSEC3 with opt-out', { denial: 'NSEC3', nsec3OptOut: true }],
] as const;
function zoneOf(label: string): string {
  return `${label.replace(/\W+/g, '-').toLowerCase()}.zk-signed.test`;
}
const SIGNED_ZONES = DENIALS.map(([label]) => zoneOf(label));

describe.each([
  ['NSEC', { denial: 'NSEC' }],
  ['NSEC3', { denial: 'NSEC3' }],
  ['NSEC3 with opt-out', { denial: 'NSEC3', nsec3OptOut: true }],
])('a zone signed with %s', (label, options) => {
  const zone = zoneOf(label);
  const optOut = 'nsec3OptOut' in options;

  it('is signed, changed 40 times, and every copy passes the three verifiers', async () => {
    await gqlOk(`mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }`, { u: userId, z: zone });
    await applyChanges(zone, INITIAL);
    // the secondary holds the unsigned zone first, so that signing reaches it as an IXFR, like every change after
    await waitFor(`${zone} at the secondary`, async () => ((await servedSerial(knot.port, zone)) !== undefined ? true : undefined));
    const logBefore = knot.log().length;

    const enabled = await gqlOk(
      `mutation($i: EnableDnssecInput!) { enableDnssec(input: $i) { enabled state denial nsec3OptOut ds dnskeys keys { keyTag role algorithm state } } }`,
      { i: { zone, ...options } },
    );
    expect(enabled.enableDnssec).toMatchObject({ enabled: true, state: 'signed', denial: options.denial });
    expect(enabled.enableDnssec.keys.map((k: any) => `${k.role} ${k.algorithm} ${k.state}`)).toEqual([
      'KSK ECDSAP256SHA256 active',
      'ZSK ECDSAP256SHA256 active',
    ]);
    const ksk = enabled.enableDnssec.keys[0].keyTag;
    // SHA-256 and SHA-384 of the KSK: `tag 13 2 <64 hex>` and `tag 13 4 <96 hex>`
    expect(enabled.enableDnssec.ds).toEqual([
      expect.stringMatching(new RegExp(`^${ksk} 13 2 [0-9A-F]{64}$`)),
      expect.stringMatching(new RegExp(`^${ksk} 13 4 [0-9A-F]{96}$`)),
    ]);

    const signed = await transfer(zone, dnsPort, true);
    expect(signed).toMatch(/\sRRSIG\s/);
    expect(signed).toMatch(options.denial === 'NSEC' ? /\sNSEC\s/ : /\sNSEC3PARAM\s/);
    expect(signed).toMatch(/\sCDS\s/);
    await verifyAll(zone, signed, 'enabled');

    let serial = 0;
    for (const step of randomChanges(label.length * 7919, 40)) serial = await applyChanges(zone, step);
    const primary = await transfer(zone, dnsPort, true);
    await verifyAll(zone, primary, 'changed');

    // the secondary took every step by IXFR (it held the zone before signing) and serves the same signed zone
    await waitFor(
      `serial ${serial} at the secondary`,
      async () => ((await servedSerial(knot.port, zone)) === serial ? true : undefined),
      30_000,
    );
    const secondary = await transfer(zone, knot.port, false);
    await verifyAll(zone, secondary, 'secondary');
    expect(normalised(secondary)).toEqual(normalised(primary));
    // and BIND, which followed every step (BIND asks for IXFR by default, RFC 1995)
    await waitFor(`serial ${serial} at BIND`, async () => ((await servedSerial(bind.port, zone)) === serial ? true : undefined), 30_000);
    const bindCopy = await transfer(zone, bind.port, false);
    await verifyAll(zone, bindCopy, 'bind');
    expect(normalised(bindCopy)).toEqual(normalised(primary));
    // a validating Unbound with the zone's DS as its trust anchor, asking the Knot secondary: AD on data,
    // authenticated NXDOMAIN and NODATA, and a wildcard answer proven (RFC 4035 §5, RFC 4592)
    const unbound = await startUnbound({ trustAnchors: [{ zone, ds: [enabled.enableDnssec.ds[0]] }], stubs: [{ zone, port: knot.port }] });
    try {
      const why = (answer: { ad: boolean; text: string }) => (answer.ad ? '' : `${answer.text}\n${unbound.log()}`);
      const data = await unbound.query(`mail.${zone}`, 'A');
      expect({ rcode: data.rcode, ad: data.ad, why: why(data) }).toEqual({ rcode: 'NOERROR', ad: true, why: '' });
      const missing = await unbound.query(`no-such-name.${zone}`, 'A');
      // with opt-out the covering NSEC3 may span an unsigned delegation, so a validator proves the NXDOMAIN
      // only as insecure (RFC 5155 §9.2): no AD, and no SERVFAIL either
      if (optOut) expect({ rcode: missing.rcode, ad: missing.ad }).toEqual({ rcode: 'NXDOMAIN', ad: false });
      else expect({ rcode: missing.rcode, ad: missing.ad, why: why(missing) }).toEqual({ rcode: 'NXDOMAIN', ad: true, why: '' });
      const nodata = await unbound.query(`mail.${zone}`, 'TXT');
      expect({ rcode: nodata.rcode, ad: nodata.ad, answers: nodata.answer.length }).toEqual({ rcode: 'NOERROR', ad: true, answers: 0 });
      const wildcard = await unbound.query(`anything.wild.${zone}`, 'TXT');
      // the expansion's proof (no closer name) is an NSEC3 too: insecure under opt-out, as the NXDOMAIN
      expect({ rcode: wildcard.rcode, ad: wildcard.ad, why: optOut ? '' : why(wildcard) }).toEqual({
        rcode: 'NOERROR',
        ad: !optOut,
        why: '',
      });
      expect(wildcard.answer.some((r) => r.type === 'TXT' && r.rdata === '"wildcard"')).toBe(true);
    } finally {
      await unbound.stop();
    }

    const zoneLines = knot
      .log()
      .slice(logBefore)
      .split('\n')
      .filter((line) => line.includes(`[${zone}.]`));
    expect(zoneLines.some((line) => line.includes('IXFR, incoming'))).toBe(true);
    expect(zoneLines.filter((line) => /AXFR, incoming|fallback to AXFR|failed/.test(line))).toEqual([]);
  }, 180_000);

  it('keeps its history to the user changes, and refuses the signer’s own types from users', async () => {
    const history = await gqlOk(`query($z: String!) { domain(name: $z) { changes(first: 100) { nodes { kind } } } }`, { z: zone });
    const kinds = new Set(history.domain.changes.nodes.map((n: any) => n.kind));
    expect(kinds.has('zone-signed')).toBe(false);
    const refused = await app.gql(`mutation($z: String!, $c: [ZoneChangeInput!]!) { applyZoneChanges(zone: $z, changes: $c) { serial } }`, {
      z: zone,
      c: [
        {
          kind: 'ADD',
          owner: '@',
          type: 'DNSKEY',
          ttl: 3600,
          rdata: '257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==',
        },
      ],
    });
    expect(refused.errors?.[0]?.extensions?.code).toBe('DNSSEC_RECORD_MANAGED');
  });
});

it('disabling leaves the zone without a signer record, in one step the secondary takes', async () => {
  const zone = 'off.zk-signed.test';
  await gqlOk(`mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }`, { u: userId, z: zone });
  await gqlOk(`mutation($i: EnableDnssecInput!) { enableDnssec(input: $i) { enabled } }`, {
    i: { zone, algorithm: 'ED25519', keyLayout: 'CSK' },
  });
  expect(await transfer(zone, dnsPort, true)).toMatch(/\sRRSIG\s/);
  // the REST view of the same: the CSK's DS (SHA-256 and SHA-384) for the parent, algorithm 15
  const rest = await app.http.get(`/api/domain/dnssec/${zone}`).set('X-API-Key', ADMIN_KEY);
  expect(rest.status).toBe(200);
  expect(rest.body).toMatchObject({
    zone,
    enabled: true,
    state: 'signed',
    denial: 'NSEC',
    keys: [{ role: 'CSK', algorithm: 'ED25519', state: 'active' }],
  });
  expect(rest.body.ds).toEqual([expect.stringMatching(/^\d+ 15 2 [0-9A-F]{64}$/), expect.stringMatching(/^\d+ 15 4 [0-9A-F]{96}$/)]);
  const again = await app.gql(`mutation($i: EnableDnssecInput!) { enableDnssec(input: $i) { enabled } }`, { i: { zone } });
  expect(again.errors?.[0]?.extensions?.code).toBe('DNSSEC_ALREADY_ENABLED');
  // forced: unsigned in this one step (the zone's parent is not here, so an unforced disable would wait for it)
  const off = await gqlOk(`mutation($z: String!) { disableDnssec(zone: $z, force: true) { enabled state keys { keyTag } ds } }`, {
    z: zone,
  });
  expect(off.disableDnssec).toEqual({ enabled: false, state: 'unsigned', keys: [], ds: [] });
  const text = await transfer(zone, dnsPort, true);
  expect(text).not.toMatch(/\s(RRSIG|NSEC|DNSKEY|CDS|CDNSKEY)\s/);
  const serial = Number(text.split('\n')[0].split(/\s+/)[6]);
  await waitFor(
    `serial ${serial} at the secondary`,
    async () => ((await servedSerial(knot.port, zone)) === serial ? true : undefined),
    30_000,
  );
  const secondary = await transfer(zone, knot.port, false);
  expect(secondary).not.toMatch(/\sRRSIG\s/);
}, 60_000);
