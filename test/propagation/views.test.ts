/**
 * Views (docs/views.md) served to a real BIND secondary with two views: `inside` matches its key and 127.0.1.0/24,
 * `outside` its key and every other client; each view follows its own catalog from our primary with its own key,
 * as the block `zonekeeper view bind-config` prints. dig from a source in each network gets that view's answers and never the
 * other's; an AXFR with the outside key holds no inside-only name; an inside-only change moves no outside serial
 * and reaches the inside; a base change reaches both; a hidden RRset is absent in its view only; the zone rules
 * hold in a view's zone.
 *
 * Signed zones (NSEC, overlaid before it was signed; NSEC3, overlaid once signed): the inside view replaces an
 * RRset, adds an inside-only name and hides an RRset, the outside view replaces another. Each view's zone, as our
 * primary transfers it by the view's key, passes dnssec-verify, ldns-verify-zone and kzonecheck, with the base's
 * DNSKEY set; a validating Unbound asking the BIND secondary from each network, anchored at the zone's DS, sets AD
 * on the inside name from the inside and proves it absent (NXDOMAIN, AD) from the outside; after an overlay change
 * and a base change, each view's zone verifies again and the inside resolver validates the new answer.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createTsigKey, createUser, createZone, errorCode } from '../support/fixtures';
import { namedConfFrom, startNamed } from '../support/bind-secondary';
import { waitFor } from '../support/wait-for';
import { buildOnce } from '../support/build';
import { runCli } from '../support/cli';
import { dig, DigResult, freePort, records } from './knot';
import { startUnbound, Unbound } from '../support/unbound';
import { transferZone, verifySignedZone } from '../support/signed-zone-checks';
import { refreshZone } from '../../src/services/dnssec/signature-refresh';

const ZONE = 'corp.views.test';
const CATALOG = 'catalog.views.test';
const INSIDE_SOURCE = '127.0.1.7';
/** the validating resolver of the inside network asks the secondary from this address */
const INSIDE_RESOLVER_SOURCE = '127.0.1.8';
/** signed zones with views: one overlaid before it was signed, one once signed */
const SIGNED = [
  { zone: 'nsec.views.test', denial: 'NSEC', overlaidFirst: true },
  { zone: 'nsec3.views.test', denial: 'NSEC3', overlaidFirst: false },
] as const;

let app: TestApp;
let dnsPort: number;
let bindPort: number;
let named: { log(): string; stop(): Promise<void> } | undefined;
let inside: { id: string; name: string; secret: string };
let outside: { id: string; name: string; secret: string };
let dir: string;
const dsOf = new Map<string, string>();

const SET = `mutation($z: String!, $v: String!, $o: String!, $t: String!, $a: OverlayAction!, $r: [OverlayRecordInput!]) {
  setViewOverlay(zone: $z, view: $v, owner: $o, type: $t, action: $a, records: $r) }`;
const overlay = (view: string, owner: string, type: string, action: 'REPLACE' | 'HIDE', rdata: string[] = [], zone = ZONE) =>
  app.gql(SET, {
    z: zone,
    v: view,
    o: owner,
    t: type,
    a: action,
    r: action === 'REPLACE' ? rdata.map((d) => ({ rdata: d, ttl: 300 })) : null,
  });

/** a query to the BIND secondary from `source` (the view is chosen by it) */
const ask = (source: string, name: string, type = 'A') =>
  dig(['-b', source, '@127.0.0.1', '-p', String(bindPort), '+norec', '+noauthority', '+noadditional', name, type]);
const answers = (result: DigResult) => records(result).map((r) => r.rdata);
const bindSerial = async (source: string): Promise<number | undefined> => {
  const soa = records(await ask(source, ZONE, 'SOA')).find((r) => r.type === 'SOA');
  return soa ? Number(soa.rdata.split(/\s+/)[2]) : undefined;
};
/** an AXFR from our primary, signed with a key or not */
const axfr = async (key?: { name: string; secret: string }) =>
  records(await dig([...(key ? ['-y', `hmac-sha256:${key.name}:${key.secret}`] : []), '@127.0.0.1', '-p', String(dnsPort), ZONE, 'AXFR']));

beforeAll(async () => {
  dnsPort = await freePort();
  bindPort = await freePort();
  app = await startTestApp({
    ROLES: 'api,dns,worker',
    DNS_LISTEN: `127.0.0.1:${dnsPort}`,
    TRANSFER_ALLOW: '127.0.0.1/32',
    CATALOG_ZONE: CATALOG,
    SERIAL_POLICY: 'increment',
  });
  inside = await createTsigKey(app, null, 'inside-key');
  outside = await createTsigKey(app, null, 'outside-key');
  const create = `mutation($i: ViewInput!) { createView(input: $i) { id name tsigKeyName } }`;
  for (const [name, key, networks, precedence] of [
    ['inside', inside, ['127.0.1.0/24'], 10],
    ['outside', outside, ['0.0.0.0/0'], 20],
  ] as const) {
    const res = await app.gql(create, { i: { name, tsigKeyId: key.id, networks, precedence, notify: [`127.0.0.1:${bindPort}`] } });
    expect(res.errors).toBeUndefined();
  }
  const user = await createUser(app, 'views@example.test');
  await createZone(app, user, ZONE);
  for (const [owner, type, rdata] of [
    ['api', 'A', '203.0.113.7'],
    ['web', 'A', '203.0.113.8'],
  ])
    expect((await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner, type, rdata, ttl: 300 } })).errors).toBeUndefined();
  expect((await overlay('inside', 'api', 'A', 'REPLACE', ['10.1.2.3'])).errors).toBeUndefined();
  expect((await overlay('inside', 'staging', 'A', 'REPLACE', ['10.1.2.9'])).errors).toBeUndefined();
  expect((await overlay('outside', 'web', 'A', 'HIDE')).errors).toBeUndefined();

  // the signed zones, each with an overlay of both views
  for (const { zone, denial, overlaidFirst } of SIGNED) {
    await createZone(app, user, zone);
    for (const [owner, type, rdata] of [
      ['api', 'A', '203.0.113.7'],
      ['web', 'A', '203.0.113.8'],
      ['mail', 'A', '203.0.113.25'],
      ['www.deep', 'A', '203.0.113.9'],
    ])
      expect((await app.gql(CREATE_RECORD, { input: { zone, owner, type, rdata, ttl: 300 } })).errors).toBeUndefined();
    const overlays = async () => {
      for (const [view, owner, action, rdata] of [
        ['inside', 'api', 'REPLACE', ['10.1.2.3']],
        ['inside', 'staging', 'REPLACE', ['10.1.2.9']],
        ['inside', 'web', 'HIDE', []],
        ['outside', 'mail', 'REPLACE', ['198.51.100.25']],
      ] as const)
        expect((await overlay(view, owner, 'A', action, [...rdata], zone)).errors).toBeUndefined();
    };
    if (overlaidFirst) await overlays();
    const enabled = await app.gql(`mutation($i: EnableDnssecInput!) { enableDnssec(input: $i) { state ds } }`, { i: { zone, denial } });
    expect(enabled.errors).toBeUndefined();
    dsOf.set(zone, enabled.data.enableDnssec.ds[0]);
    if (!overlaidFirst) await overlays();
  }

  // the secondary's configuration: each view's block as the CLI prints it, the keys' secrets filled in
  buildOnce();
  dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-views-'));
  const blocks: string[] = [];
  for (const [view, key] of [
    ['inside', inside],
    ['outside', outside],
  ] as const) {
    const printed = await runCli(app.baseUrl, ['view', 'bind-config', view, `127.0.0.1:${dnsPort}`]);
    expect(printed).toMatchObject({ code: 0, err: '' });
    blocks.push(
      printed.out.replace(`<the key's secret, as given when it was made>`, key.secret).replace(/file "catalog-/, `file "${dir}/catalog-`),
    );
  }
  const config = namedConfFrom(blocks, dir, bindPort, '  notify no;\n  min-refresh-time 1;\n  min-retry-time 1;');
  writeFileSync(path.join(dir, 'views.conf'), config);
  named = await startNamed(dir, config);
}, 90_000);

// the service first, then its secondary: the service's worker is never left refreshing towards a stopped server
afterAll(async () => {
  await app?.close();
  await named?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 120_000);

test('each view of the secondary answers its own records, and never the other view’s', async () => {
  await waitFor(
    'the inside view serves its api',
    async () => (answers(await ask(INSIDE_SOURCE, `api.${ZONE}`))[0] === '10.1.2.3' ? true : undefined),
    30_000,
  );
  await waitFor(
    'the outside view serves its api',
    async () => (answers(await ask('127.0.0.1', `api.${ZONE}`))[0] === '203.0.113.7' ? true : undefined),
    30_000,
  );
  // a thousand queries from each side in one dig each (a batch file): 0 leaks
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-views-q-'));
  const batch = path.join(dir, 'queries');
  writeFileSync(batch, Array.from({ length: 1000 }, () => `api.${ZONE} A +norec +short`).join('\n'));
  for (const [source, expected, leak] of [
    [INSIDE_SOURCE, '10.1.2.3', '203.0.113.7'],
    ['127.0.0.1', '203.0.113.7', '10.1.2.3'],
  ]) {
    const result = await dig(['-b', source, '@127.0.0.1', '-p', String(bindPort), '-f', batch], 60_000);
    const lines = result.stdout.split('\n').filter((l) => /^\d/.test(l.trim()));
    expect(lines).toHaveLength(1000);
    expect(lines.filter((l) => l.trim() === leak)).toHaveLength(0);
    expect(lines.every((l) => l.trim() === expected)).toBe(true);
  }
  // the inside-only name exists inside only
  expect(answers(await ask(INSIDE_SOURCE, `staging.${ZONE}`))).toEqual(['10.1.2.9']);
  expect((await ask('127.0.0.1', `staging.${ZONE}`)).status).toBe('NXDOMAIN');
});

test('a transfer signed with a view’s key is that view’s zone; unsigned, the base zone', async () => {
  const outsideZone = await axfr(outside);
  expect(outsideZone.some((r) => r.name.startsWith('staging.'))).toBe(false);
  expect(outsideZone.some((r) => r.name.startsWith('web.'))).toBe(false);
  expect(outsideZone.filter((r) => r.name.startsWith('api.')).map((r) => r.rdata)).toEqual(['203.0.113.7']);
  const insideZone = await axfr(inside);
  expect(insideZone.filter((r) => r.name.startsWith('api.')).map((r) => r.rdata)).toEqual(['10.1.2.3']);
  expect(insideZone.filter((r) => r.name.startsWith('staging.')).map((r) => r.rdata)).toEqual(['10.1.2.9']);
  const base = await axfr();
  expect(base.some((r) => r.name.startsWith('staging.'))).toBe(false);
  expect(base.filter((r) => r.name.startsWith('web.')).map((r) => r.rdata)).toEqual(['203.0.113.8']);
  // three zones, three serials: each SOA names its own
  const serials = [outsideZone, insideZone, base].map((zone) => Number(zone.find((r) => r.type === 'SOA')!.rdata.split(/\s+/)[2]));
  expect(new Set(serials).size).toBe(3);
});

test('a hidden RRset is absent in its view only', async () => {
  expect((await ask('127.0.0.1', `web.${ZONE}`)).status).toBe('NXDOMAIN');
  expect(answers(await ask(INSIDE_SOURCE, `web.${ZONE}`))).toEqual(['203.0.113.8']);
});

test('an inside-only change moves no outside serial and reaches the inside; a base change reaches both', async () => {
  const outsideBefore = await bindSerial('127.0.0.1');
  const insideBefore = await bindSerial(INSIDE_SOURCE);
  expect(outsideBefore).toBeDefined();
  expect((await overlay('inside', 'api', 'A', 'REPLACE', ['10.1.2.4'])).errors).toBeUndefined();
  await waitFor(
    'the inside view takes the change',
    async () => (answers(await ask(INSIDE_SOURCE, `api.${ZONE}`))[0] === '10.1.2.4' ? true : undefined),
    10_000,
  );
  expect(await bindSerial(INSIDE_SOURCE)).toBe(insideBefore! + 1);
  expect(await bindSerial('127.0.0.1')).toBe(outsideBefore);
  expect(answers(await ask('127.0.0.1', `api.${ZONE}`))).toEqual(['203.0.113.7']);

  // a base change of an RRset the inside view replaces moves only the outside (and the base)
  const replaced = await app.gql(`query { viewZone(zone: "${ZONE}", view: "inside") { serial records { owner type rdata overlay } } }`);
  expect(replaced.data.viewZone.records).toEqual(
    expect.arrayContaining([
      { owner: 'api', type: 'A', rdata: '10.1.2.4', overlay: 'REPLACE' },
      { owner: 'web', type: 'A', rdata: '203.0.113.8', overlay: 'BASE' },
    ]),
  );
  const insideSerial = replaced.data.viewZone.serial as number;
  expect(
    (await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: 'api', type: 'A', rdata: '203.0.113.70', ttl: 300 } })).errors,
  ).toBeUndefined();
  await waitFor(
    'the outside view takes the base change',
    async () => (answers(await ask('127.0.0.1', `api.${ZONE}`)).length === 2 ? true : undefined),
    10_000,
  );
  expect((await app.gql(`query { viewZone(zone: "${ZONE}", view: "inside") { serial } }`)).data.viewZone.serial).toBe(insideSerial);

  // a base change of an RRset no view overrides reaches both
  expect(
    (await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: 'new', type: 'A', rdata: '198.51.100.1', ttl: 300 } })).errors,
  ).toBeUndefined();
  for (const source of [INSIDE_SOURCE, '127.0.0.1'])
    await waitFor(
      `the base change reaches ${source}`,
      async () => (answers(await ask(source, `new.${ZONE}`))[0] === '198.51.100.1' ? true : undefined),
      10_000,
    );
  expect(await bindSerial(INSIDE_SOURCE)).toBe(insideSerial + 1);
});

test('a new zone appears in both views’ catalogs and each view serves it', async () => {
  const user = await createUser(app, 'views-new@example.test');
  await createZone(app, user, 'fresh.views.test');
  for (const source of [INSIDE_SOURCE, '127.0.0.1'])
    await waitFor(
      `the new zone is served to ${source}`,
      async () => ((await ask(source, 'fresh.views.test', 'SOA')).status === 'NOERROR' ? true : undefined),
      15_000,
    );
});

test("a view's zone is held to the zone's rules", async () => {
  // a CNAME in an overlay beside the base's A
  expect(errorCode(await overlay('inside', 'web', 'CNAME', 'REPLACE', ['api.corp.views.test.']))).toBe('CNAME_CONFLICT');
  // a base A where a view's overlay has a CNAME
  expect((await overlay('inside', 'alias', 'CNAME', 'REPLACE', ['api.corp.views.test.'])).errors).toBeUndefined();
  const beside = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: 'alias', type: 'A', rdata: '192.0.2.1', ttl: 300 } });
  expect(errorCode(beside)).toBe('CNAME_CONFLICT');
  // a view's zone is signed with the zone: an overlay of one of the signer's types keeps the zone unsigned, as a
  // base record of it would
  const cds = `12345 13 2 ${'ab'.repeat(32)}`;
  expect((await overlay('inside', 'signal', 'CDS', 'REPLACE', [cds])).errors).toBeUndefined();
  const signing = await app.gql(`mutation { enableDnssec(input: { zone: "${ZONE}" }) { state } }`);
  expect(errorCode(signing)).toBe('DNSSEC_RECORD_MANAGED');
  expect(signing.errors![0].message).toMatch(/overlay/);
  // a user may not touch views
  const user = await app.gql(`query { views { name } }`, undefined, null);
  expect(user.errors).toBeDefined();
});

test("the CLI prints a view's history: an overlay set, then cleared, newest first with the view's serial", async () => {
  const set = await runCli(app.baseUrl, ['view', 'replace', ZONE, 'inside', 'printer', 'A', '10.1.2.40', '--ttl', '300']);
  expect(set).toMatchObject({ code: 0, err: '' });
  const setSerial = Number(set.out.match(/\breplace\s+(\d+)/)![1]);
  const cleared = await runCli(app.baseUrl, ['view', 'clear', ZONE, 'inside', 'printer', 'A']);
  expect(cleared).toMatchObject({ code: 0, err: '' });
  const clearedSerial = Number(cleared.out.match(/\bcleared\s+(\d+)/)![1]);
  expect(clearedSerial).toBe(setSerial + 1);

  const printed = await runCli(app.baseUrl, ['view', 'history', ZONE, 'inside', '--first', '2']);
  expect(printed).toMatchObject({ code: 0, err: '' });
  const lines = printed.out.trimEnd().split('\n');
  expect(lines[0].split(/\s+/)).toEqual(['SERIAL', 'AT', 'BY', 'OWNER', 'TYPE', 'ACTION', 'RECORDS']);
  expect(lines).toHaveLength(3);
  // newest first; the admin key's name is the test app's, so only its shape is asserted
  expect(lines[1]).toMatch(new RegExp(`^${clearedSerial}\\s+\\S+Z\\s+admin \\(.*\\)\\s+printer\\s+A\\s+clear\\s+-$`));
  expect(lines[2]).toMatch(new RegExp(`^${setSerial}\\s+\\S+Z\\s+admin \\(.*\\)\\s+printer\\s+A\\s+replace\\s+300 10\\.1\\.2\\.40$`));

  const json = await runCli(app.baseUrl, ['--json', 'view', 'history', ZONE, 'inside', '--first', '1']);
  expect(json.code).toBe(0);
  expect(JSON.parse(json.out)).toEqual([
    expect.objectContaining({ owner: 'printer', type: 'A', action: 'CLEAR', serial: clearedSerial, records: [] }),
  ]);
  // the outside view's history has none of it
  const other = await runCli(app.baseUrl, ['view', 'history', ZONE, 'outside']);
  expect(other.out).not.toMatch(/printer/);
});

/** a zone as our primary transfers it by a view's key (unsigned: the base), checked by the three verifiers */
async function verifiedView(zone: string, key: { name: string; secret: string } | undefined, label: string) {
  const { text, serial } = await transferZone(dnsPort, key, zone, { expectContent: true });
  await verifySignedZone(zone, path.join(dir, `${zone}-${label}.zone`), { text });
  const rrs = text
    .trim()
    .split('\n')
    .map((line) => line.split(/\s+/));
  const at = (owner: string, type: string) =>
    rrs
      .filter((f) => f[0] === `${owner === '@' ? '' : `${owner}.`}${zone}.` && f[3] === type)
      .map((f) => f.slice(4).join(' '))
      .sort();
  return { serial, at, text };
}

/** the serial of a zone as the BIND secondary's view of `source` serves it */
const servedSerial = async (source: string, zone: string): Promise<number | undefined> => {
  const soa = records(await dig(['-b', source, '@127.0.0.1', '-p', String(bindPort), '+norec', zone, 'SOA'])).find((r) => r.type === 'SOA');
  return soa ? Number(soa.rdata.split(/\s+/)[2]) : undefined;
};

describe('signed zones with views', () => {
  let insideResolver: Unbound;
  let outsideResolver: Unbound;

  beforeAll(async () => {
    const options = {
      trustAnchors: SIGNED.map(({ zone }) => ({ zone, ds: [dsOf.get(zone)!] })),
      stubs: SIGNED.map(({ zone }) => ({ zone, port: bindPort })),
    };
    [insideResolver, outsideResolver] = await Promise.all([
      startUnbound({ ...options, outgoingInterface: INSIDE_RESOLVER_SOURCE }),
      startUnbound({ ...options, outgoingInterface: '127.0.0.1' }),
    ]);
  }, 30_000);

  afterAll(async () => {
    await insideResolver?.stop();
    await outsideResolver?.stop();
  });

  /** each view's zone and the base verify, with one DNSKEY set; the views' own records are there */
  async function expectSignedViews(zone: string, label: string, insideApi: string) {
    const [inZone, outZone, base] = await Promise.all([
      verifiedView(zone, inside, `inside-${label}`),
      verifiedView(zone, outside, `outside-${label}`),
      verifiedView(zone, undefined, `base-${label}`),
    ]);
    expect(inZone.at('@', 'DNSKEY').length).toBeGreaterThan(0);
    expect(inZone.at('@', 'DNSKEY')).toEqual(base.at('@', 'DNSKEY'));
    expect(outZone.at('@', 'DNSKEY')).toEqual(base.at('@', 'DNSKEY'));
    expect(inZone.at('api', 'A')).toEqual([insideApi]);
    expect(inZone.at('staging', 'A')).toEqual(['10.1.2.9']);
    expect(inZone.at('web', 'A')).toEqual([]);
    expect(outZone.at('staging', 'A')).toEqual([]);
    expect(outZone.at('mail', 'A')).toEqual(['198.51.100.25']);
    expect(base.at('staging', 'A')).toEqual([]);
    expect(new Set([inZone.serial, outZone.serial, base.serial]).size).toBe(3);
    return { inside: inZone.serial, outside: outZone.serial };
  }

  /** the BIND secondary's views serve the zone at these serials */
  async function served(zone: string, serials: { inside: number; outside: number }) {
    for (const [source, serial] of [
      [INSIDE_RESOLVER_SOURCE, serials.inside],
      ['127.0.0.1', serials.outside],
    ] as const)
      await waitFor(
        `${zone} at serial ${serial} from ${source}`,
        async () => ((await servedSerial(source, zone)) === serial ? true : undefined),
        15_000,
      );
  }

  test.each(SIGNED)('$zone ($denial): each view’s zone is signed with the zone’s keys and validates', async ({ zone }) => {
    const serials = await expectSignedViews(zone, 'first', '10.1.2.3');
    await served(zone, serials);
    const staging = `staging.${zone}`;
    const fromInside = await insideResolver.query(staging, 'A');
    expect({ rcode: fromInside.rcode, ad: fromInside.ad }).toEqual({ rcode: 'NOERROR', ad: true });
    expect(fromInside.answer.filter((r) => r.type === 'A').map((r) => r.rdata)).toEqual(['10.1.2.9']);
    const fromOutside = await outsideResolver.query(staging, 'A');
    expect({ rcode: fromOutside.rcode, ad: fromOutside.ad }).toEqual({ rcode: 'NXDOMAIN', ad: true });
    // the hidden RRset is denied in the inside view only; a replaced RRset validates in each view
    const web = await insideResolver.query(`web.${zone}`, 'A');
    expect({ rcode: web.rcode, ad: web.ad }).toEqual({ rcode: 'NXDOMAIN', ad: true });
    const outsideWeb = await outsideResolver.query(`web.${zone}`, 'A');
    expect({
      rcode: outsideWeb.rcode,
      ad: outsideWeb.ad,
      answer: outsideWeb.answer.filter((r) => r.type === 'A').map((r) => r.rdata),
    }).toEqual({
      rcode: 'NOERROR',
      ad: true,
      answer: ['203.0.113.8'],
    });
    const mail = await outsideResolver.query(`mail.${zone}`, 'A');
    expect({ rcode: mail.rcode, ad: mail.ad, answer: mail.answer.filter((r) => r.type === 'A').map((r) => r.rdata) }).toEqual({
      rcode: 'NOERROR',
      ad: true,
      answer: ['198.51.100.25'],
    });

    // an overlay change, then a base change: each view's zone is signed again and still verifies
    expect((await overlay('inside', 'api', 'A', 'REPLACE', ['10.1.2.4'], zone)).errors).toBeUndefined();
    expect(
      (await app.gql(CREATE_RECORD, { input: { zone, owner: 'new', type: 'A', rdata: '198.51.100.1', ttl: 300 } })).errors,
    ).toBeUndefined();
    const after = await expectSignedViews(zone, 'after', '10.1.2.4');
    expect(after.inside).toBe(serials.inside + 2);
    expect(after.outside).toBe(serials.outside + 1);
    await served(zone, after);
    // what each resolver holds of the zone before the change (an NSEC that covered `new`, RFC 8198) goes
    await Promise.all([insideResolver.flush(zone), outsideResolver.flush(zone)]);
    const api = await insideResolver.query(`api.${zone}`, 'A');
    expect({ rcode: api.rcode, ad: api.ad, answer: api.answer.filter((r) => r.type === 'A').map((r) => r.rdata) }).toEqual({
      rcode: 'NOERROR',
      ad: true,
      answer: ['10.1.2.4'],
    });
    const added = await outsideResolver.query(`new.${zone}`, 'A');
    expect({ rcode: added.rcode, ad: added.ad }).toEqual({ rcode: 'NOERROR', ad: true });
  });
});

describe("a signed zone's views at the edges", () => {
  const EDGE = 'edge.views.test';
  let zoneId: number;

  /** a view's zone (or the base) as transferred and verified, with its NSEC3 owners counted */
  async function edge(key: { name: string; secret: string } | undefined, label: string) {
    const view = await verifiedView(EDGE, key, label);
    const types = view.text
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/)[3]);
    return { ...view, nsec3: types.filter((t) => t === 'NSEC3').length, rrsigs: types.filter((t) => t === 'RRSIG').length };
  }

  beforeAll(async () => {
    const user = await createUser(app, 'views-edge@example.test');
    zoneId = Number(await createZone(app, user, EDGE));
    for (const [owner, type, rdata] of [
      ['api', 'A', '203.0.113.7'],
      ['www.deep', 'A', '203.0.113.9'],
      ['mail', 'A', '203.0.113.25'],
    ])
      expect((await app.gql(CREATE_RECORD, { input: { zone: EDGE, owner, type, rdata, ttl: 300 } })).errors).toBeUndefined();
    const enabled = await app.gql(`mutation { enableDnssec(input: { zone: "${EDGE}", denial: NSEC3 }) { state } }`);
    expect(enabled.errors).toBeUndefined();
  });

  test('a name the view empties leaves its chain with the empty non-terminal above it; a delegation only the view has is signed as one', async () => {
    // the signer's types are the signer's in every view's zone
    expect(errorCode(await overlay('inside', 'signal', 'CDS', 'REPLACE', [`12345 13 2 ${'ab'.repeat(32)}`], EDGE))).toBe(
      'DNSSEC_RECORD_MANAGED',
    );
    const base = await edge(undefined, 'edge-base');
    // hiding www.deep takes two names out of the inside's NSEC3 chain: it, and deep (an empty non-terminal above it)
    expect((await overlay('inside', 'www.deep', 'A', 'HIDE', [], EDGE)).errors).toBeUndefined();
    const hidden = await edge(inside, 'edge-hidden');
    expect(hidden.nsec3).toBe(base.nsec3 - 2);
    expect(hidden.at('@', 'DNSKEY')).toEqual(base.at('@', 'DNSKEY'));
    // a delegation only the inside has (an overlay that moves a zone cut: the view's zone is planned whole), and
    // an address below it, which the delegation occludes
    expect((await overlay('inside', 'sub', 'NS', 'REPLACE', ['ns1.example.net.'], EDGE)).errors).toBeUndefined();
    expect((await overlay('inside', 'host.sub', 'A', 'REPLACE', ['10.9.9.9'], EDGE)).errors).toBeUndefined();
    const delegated = await edge(inside, 'edge-delegated');
    expect(delegated.at('sub', 'NS')).toEqual(['ns1.example.net.']);
    expect(delegated.text).not.toMatch(/^sub\.edge\.views\.test\.\s.*\sRRSIG\s+NS\s/m);
    expect(delegated.text).not.toMatch(/^host\.sub\.edge\.views\.test\.\s.*\sRRSIG\s/m);
    // the signatures: www.deep's A and the two NSEC3s' gone, the delegation's NSEC3's added (its NS is not signed)
    expect(hidden.rrsigs).toBe(base.rrsigs - 3);
    expect(delegated.rrsigs).toBe(hidden.rrsigs + 1);
    // the outside has no overlay here: its zone is the base's
    expect((await edge(outside, 'edge-outside')).serial).toBe(base.serial);
    // a serial names one zone: transferred twice, it is the same text (the signatures are stored, not made per request)
    expect((await transferZone(dnsPort, inside, EDGE, { expectContent: true })).text).toBe(delegated.text);
    // cleared, the view's zone is signed incrementally again
    expect(
      (await app.gql(`mutation { clearViewOverlay(zone: "${EDGE}", view: "inside", owner: "sub", type: "NS") }`)).errors,
    ).toBeUndefined();
    await edge(inside, 'edge-cleared');
  });

  test("the base's refresh and a key roll sign each view's zone again; unsigning leaves no signer record in it", async () => {
    const before = await edge(inside, 'edge-before-refresh');
    const services = app.service.services;
    await refreshZone(services.dnssecWriter, app.service.database.db, app.settings, zoneId);
    const refreshed = await edge(inside, 'edge-refreshed');
    expect(refreshed.serial).toBe(before.serial + 1);
    expect(refreshed.at('@', 'RRSIG')).not.toEqual(before.at('@', 'RRSIG'));
    // a ZSK roll's first step publishes the new key: one DNSKEY set in the base and the view
    expect((await app.gql(`mutation { rollDnssecKey(zone: "${EDGE}", role: ZSK) { state } }`)).errors).toBeUndefined();
    const rolled = await edge(inside, 'edge-rolled');
    const base = await edge(undefined, 'edge-rolled-base');
    expect(rolled.at('@', 'DNSKEY')).toHaveLength(before.at('@', 'DNSKEY').length + 1);
    expect(rolled.at('@', 'DNSKEY')).toEqual(base.at('@', 'DNSKEY'));
    expect((await app.gql(`mutation { disableDnssec(zone: "${EDGE}", force: true) { state } }`)).errors).toBeUndefined();
    const unsigned = await transferZone(dnsPort, inside, EDGE, { expectContent: true });
    expect(unsigned.serial).toBe(rolled.serial + 1);
    expect(unsigned.text).not.toMatch(/\s(RRSIG|NSEC3|NSEC3PARAM|DNSKEY)\s/);
    expect(unsigned.text).toMatch(/^mail\.edge\.views\.test\.\s/m);
  });
});
