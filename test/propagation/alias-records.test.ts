/**
 * ALIAS and ANAME records (docs/templates-and-alias.md), the part that holds before flattening: stored and
 * shown as written (the record API, zone files as PowerDNS writes them), refused beside a CNAME, beside a
 * person's A/AAAA, and in loops, each naming the field; never served by the primary (queries, AXFR, IXFR);
 * taken by a signed zone, whose signer leaves them out of its signatures and NSEC/NSEC3 chains.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone, CREATE_RECORD, errorCode } from '../support/fixtures';
import { transferZone, verifySignedZone } from '../support/signed-zone-checks';
import { dig, freePort, records } from './knot';

const ZONE = 'alias.zk.test';
let app: TestApp;
let dir: string;
let dnsPort: number;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-alias-records-'));
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns', DNS_LISTEN: `127.0.0.1:${dnsPort}`, ALIAS_RESOLVERS: '127.0.0.1:9' });
  await createZone(app, await createUser(app, 'owner@alias.zk.test'), ZONE);
}, 60_000);
afterAll(async () => {
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const add = (owner: string, type: string, rdata: string) => app.gql(CREATE_RECORD, { input: { zone: ZONE, owner, type, rdata, ttl: 300 } });
const detail = (res: { errors?: any[] }) => res.errors?.[0]?.extensions?.details?.[0];

test('an apex ALIAS is stored and shown as written, and exported as PowerDNS writes it', async () => {
  const res = await add('@', 'ALIAS', 'CDN.Example.NET.');
  expect(res.errors).toBeUndefined();
  expect(res.data.createRecord).toMatchObject({ owner: '@', type: 'ALIAS', rdata: 'cdn.example.net.' });
  const anameRes = await add('shop', 'ANAME', 'lb.example.net.');
  expect(anameRes.errors).toBeUndefined();
  const file = (await app.gql(`query($z: String!) { exportZone(zone: $z) }`, { z: ZONE })).data.exportZone as string;
  expect(file).toMatch(/^@ 300 IN ALIAS cdn\.example\.net\.$/m);
  expect(file).toMatch(/^shop 300 IN ANAME lb\.example\.net\.$/m);
});

test('refused with the field named: beside a CNAME (both ways), beside A/AAAA (both ways), a second ALIAS, a loop', async () => {
  // a new zone has `www CNAME <zone>.` (the default template)
  const besideCname = await add('www', 'ALIAS', 'cdn.example.net.');
  expect(errorCode(besideCname)).toBe('CNAME_CONFLICT');
  expect(detail(besideCname)).toMatchObject({ field: 'type', code: 'CNAME_CONFLICT' });
  expect(errorCode(await add('shop', 'CNAME', 'elsewhere.example.'))).toBe('CNAME_CONFLICT');

  const addressBeside = await add('@', 'A', '192.0.2.1');
  expect(errorCode(addressBeside)).toBe('ZONE_RULE_VIOLATION');
  expect(detail(addressBeside)).toMatchObject({ field: 'type', code: 'ALIAS_CONFLICT' });
  expect(await add('mail', 'AAAA', '2001:db8::25')).toMatchObject({ errors: undefined });
  expect(detail(await add('mail', 'ALIAS', 'cdn.example.net.'))).toMatchObject({ field: 'type', code: 'ALIAS_CONFLICT' });
  expect(detail(await add('@', 'ANAME', 'other.example.net.'))).toMatchObject({ field: 'type', code: 'ALIAS_CONFLICT' });

  expect(detail(await add('self', 'ALIAS', `self.${ZONE}.`))).toMatchObject({ field: 'rdata', code: 'ALIAS_LOOP' });
  expect((await add('a', 'ALIAS', `b.${ZONE}.`)).errors).toBeUndefined();
  const loop = await add('b', 'ALIAS', 'a');
  expect(errorCode(loop)).toBe('ZONE_RULE_VIOLATION');
  expect(detail(loop)).toMatchObject({ field: 'rdata', code: 'ALIAS_LOOP' });

  // a zone file's loop (three steps) is told with its line, and nothing is written
  const text = ['x 300 IN ALIAS y', 'y 300 IN ALIAS z', 'z 300 IN ALIAS x'].join('\n');
  const imported = await app.gql(`mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t, mode: MERGE) { added } }`, {
    z: ZONE,
    t: text,
  });
  expect(errorCode(imported)).toBe('INVALID_ZONE_FILE');
  expect(imported.errors![0].extensions.details).toEqual([expect.objectContaining({ code: 'ALIAS_LOOP', field: 'rdata', line: 3 })]);
});

test('the primary never serves them: not in answers, AXFR or IXFR', async () => {
  const before = (await app.gql(`query($n: String) { domain(name: $n) { serial } }`, { n: ZONE })).data.domain.serial as number;
  expect((await add('late', 'ALIAS', 'cdn.example.net.')).errors).toBeUndefined();
  const at = ['@127.0.0.1', '-p', String(dnsPort)];
  const axfr = records(await dig([...at, ZONE, 'AXFR']));
  expect(axfr.filter((r) => r.type === 'SOA')).toHaveLength(2);
  expect(axfr.map((r) => r.type)).not.toEqual(expect.arrayContaining(['ALIAS']));
  expect(axfr.some((r) => /^TYPE65(401|305)$/.test(r.type))).toBe(false);
  expect(axfr.some((r) => r.name === `a.${ZONE}.`)).toBe(false);
  const ixfr = records(await dig([...at, ZONE, `IXFR=${before}`]));
  expect(ixfr.filter((r) => r.type === 'SOA').length).toBeGreaterThanOrEqual(2);
  expect(ixfr.some((r) => r.name === `late.${ZONE}.`)).toBe(false);
  // the primary answers as a secondary holding that AXFR would: an owner with nothing but an ALIAS has no
  // served data (its addresses come with the flattening)
  const answer = await dig([...at, '+norec', `late.${ZONE}`, 'TYPE65401']);
  expect(answer.status).toBe('NXDOMAIN');
  expect(answer.stdout).toMatch(/ANSWER: 0,/);
  const apex = await dig([...at, '+norec', ZONE, 'TYPE65401']);
  expect(apex.status).toBe('NOERROR');
  expect(apex.stdout).toMatch(/ANSWER: 0,/);
});

/** the zone's AXFR from our primary (no TSIG key here) as a zone file, the closing SOA left out */
const transfer = async (zone: string): Promise<string> => (await transferZone(dnsPort, undefined, zone)).text;

/**
 * The signer reads past what is never served (RFC 4034 §4.1.2: a bitmap lists the RRsets at the owner): no
 * RRSIG over an ALIAS or ANAME, no bitmap naming them, and one NSEC or NSEC3 per served name (an NSEC3 also per
 * empty non-terminal, RFC 5155 §7.1), so an owner with nothing but an ALIAS is in no chain. The zone passes
 * BIND's dnssec-verify, ldns-verify-zone and kzonecheck.
 */
async function expectSignedWithoutAliases(zone: string, denial: 'NSEC' | 'NSEC3'): Promise<void> {
  const text = await transfer(zone);
  const rrs = text
    .trim()
    .split('\n')
    .map((line) => line.split(/\s+/));
  expect(rrs.some(([, , , type, covered]) => type === 'RRSIG' && covered === 'SOA')).toBe(true);
  expect(rrs.filter((rr) => rr.some((field) => /^(ALIAS|ANAME|TYPE65401|TYPE65305)$/.test(field))).map((rr) => rr.join(' '))).toEqual([]);
  const apex = `${zone}.`;
  // the names of the served zone: every owner but the NSEC3 chain's own (its records and their RRSIGs)
  const served = new Set(
    rrs
      .filter(([, , , type, covered]) => type !== 'NSEC3' && !(type === 'RRSIG' && covered === 'NSEC3'))
      .map(([owner]) => owner.toLowerCase()),
  );
  const names = new Set(served);
  if (denial === 'NSEC3')
    for (const owner of served)
      for (let at = owner; at !== apex && at.length > apex.length; at = at.slice(at.indexOf('.') + 1)) names.add(at);
  expect(rrs.filter(([, , , type]) => type === denial).length).toBe(names.size);
  await verifySignedZone(zone, path.join(dir, `${zone}.zone`), { text });
}

test('a signed zone takes them and signs only what it serves: enabling DNSSEC on a zone that holds them, adding one once signed', async () => {
  // no worker runs here and the resolver is silent: these ALIASes have no addresses, their owners no served data
  const enable = await app.gql(`mutation($z: String!) { enableDnssec(input: {zone: $z, denial: NSEC}) { enabled } }`, { z: ZONE });
  expect(enable.errors).toBeUndefined();
  expect((await add('later', 'ALIAS', 'cdn.example.net.')).errors).toBeUndefined();
  await expectSignedWithoutAliases(ZONE, 'NSEC');
  // the owner with nothing but an ALIAS is in no chain (the count above): it is NXDOMAIN as served
  expect((await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', `late.${ZONE}`, 'A'])).status).toBe('NXDOMAIN');

  const signed = 'signed-alias.zk.test';
  await createZone(app, await createUser(app, 'signed@alias.zk.test'), signed);
  const enabled = await app.gql(`mutation($z: String!) { enableDnssec(input: {zone: $z, denial: NSEC3}) { enabled } }`, { z: signed });
  expect(enabled.errors).toBeUndefined();
  // below `only`, which holds nothing: an ALIAS there makes no empty non-terminal of it
  const res = await app.gql(CREATE_RECORD, {
    input: { zone: signed, owner: 'x.only', type: 'ANAME', rdata: 'cdn.example.net.', ttl: 300 },
  });
  expect(res.errors).toBeUndefined();
  await expectSignedWithoutAliases(signed, 'NSEC3');
  const beside = await app.gql(CREATE_RECORD, { input: { zone: signed, owner: 'y.only', type: 'TXT', rdata: '"beside"', ttl: 300 } });
  expect(beside.errors).toBeUndefined();
  // `only` is an empty non-terminal while y.only holds a TXT, and no longer once it is gone: the ANAME left
  // below does not keep it (the signer's look-up of the names below leaves ALIAS and ANAME out)
  await expectSignedWithoutAliases(signed, 'NSEC3');
  expect((await app.gql(`mutation($id: ID!) { deleteRecord(id: $id) }`, { id: beside.data.createRecord.id })).errors).toBeUndefined();
  await expectSignedWithoutAliases(signed, 'NSEC3');
  // and removed again: a change of the ALIAS alone re-signs the SOA and leaves the chain as it was
  const before = (await transfer(signed)).split('\n').filter((line) => /\sNSEC3\s/.test(line));
  const del = await app.gql(`mutation($id: ID!) { deleteRecord(id: $id) }`, { id: res.data.createRecord.id });
  expect(del.errors).toBeUndefined();
  await expectSignedWithoutAliases(signed, 'NSEC3');
  expect((await transfer(signed)).split('\n').filter((line) => /\sNSEC3\s/.test(line))).toEqual(before);
});
