/**
 * ALIAS and ANAME records (docs/templates-and-alias.md), the part that holds before flattening: stored and
 * shown as written (the record API, zone files as PowerDNS writes them), refused beside a CNAME, beside a
 * person's A/AAAA, and in loops, each naming the field; never served by the primary (queries, AXFR, IXFR);
 * refused by a signed zone for now.
 */
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone, CREATE_RECORD, errorCode } from '../support/fixtures';
import { dig, freePort, records } from './knot';

const ZONE = 'alias.zk.test';
let app: TestApp;
let dnsPort: number;

beforeAll(async () => {
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns', DNS_LISTEN: `127.0.0.1:${dnsPort}`, ALIAS_RESOLVERS: '127.0.0.1:9' });
  await createZone(app, await createUser(app, 'owner@alias.zk.test'), ZONE);
}, 60_000);
afterAll(async () => app?.close());

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

test('a signed zone refuses them for now: enabling DNSSEC on a zone that holds one, and adding one to a signed zone', async () => {
  const enable = await app.gql(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { enabled } }`, { z: ZONE });
  expect(errorCode(enable)).toBe('ALIAS_IN_SIGNED_ZONE');
  const signed = 'signed-alias.zk.test';
  await createZone(app, await createUser(app, 'signed@alias.zk.test'), signed);
  expect((await app.gql(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { enabled } }`, { z: signed })).errors).toBeUndefined();
  const res = await app.gql(CREATE_RECORD, { input: { zone: signed, owner: '@', type: 'ALIAS', rdata: 'cdn.example.net.', ttl: 300 } });
  expect(errorCode(res)).toBe('ALIAS_IN_SIGNED_ZONE');
  expect(detail(res)).toMatchObject({ field: 'type' });
});
