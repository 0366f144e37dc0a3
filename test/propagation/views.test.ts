/**
 * Views (docs/views.md) served to a real BIND secondary with two views: `inside` matches its key and 127.0.1.0/24,
 * `outside` its key and every other client; each view follows its own catalog from our primary with its own key,
 * as the block `zonekeeper view bind-config` prints. dig from a source in each network gets that view's answers and never the
 * other's; an AXFR with the outside key holds no inside-only name; an inside-only change moves no outside serial
 * and reaches the inside; a base change reaches both; a hidden RRset is absent in its view only; the zone rules
 * hold in a view's zone, and a zone with a view's zone is not signed.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createTsigKey, createUser, createZone, errorCode } from '../support/fixtures';
import { namedOptions, startNamed } from '../support/bind-secondary';
import { waitFor } from '../support/wait-for';
import { buildOnce } from '../support/build';
import { runCli } from '../support/cli';
import { dig, DigResult, freePort, records } from './knot';

const ZONE = 'corp.views.test';
const CATALOG = 'catalog.views.test';
const INSIDE_SOURCE = '127.0.1.7';

let app: TestApp;
let dnsPort: number;
let bindPort: number;
let named: { log(): string; stop(): Promise<void> } | undefined;
let inside: { id: string; name: string; secret: string };
let outside: { id: string; name: string; secret: string };

const SET = `mutation($z: String!, $v: String!, $o: String!, $t: String!, $a: OverlayAction!, $r: [OverlayRecordInput!]) {
  setViewOverlay(zone: $z, view: $v, owner: $o, type: $t, action: $a, records: $r) }`;
const overlay = (view: string, owner: string, type: string, action: 'REPLACE' | 'HIDE', rdata: string[] = []) =>
  app.gql(SET, {
    z: ZONE,
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

  // the secondary's configuration: each view's block as the CLI prints it, the keys' secrets filled in
  buildOnce();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-views-'));
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
  const config = `${namedOptions(dir, bindPort)}
  notify no;
  min-refresh-time 1;
  min-retry-time 1;
};
${blocks.join('\n')}`;
  writeFileSync(path.join(dir, 'views.conf'), config);
  named = await startNamed(dir, config);
}, 60_000);

afterAll(async () => {
  await named?.stop();
  await app?.close();
});

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
  // a few hundred queries from each side in one dig each (a batch file): 0 leaks
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-views-q-'));
  const batch = path.join(dir, 'queries');
  writeFileSync(batch, Array.from({ length: 300 }, () => `api.${ZONE} A +norec +short`).join('\n'));
  for (const [source, expected, leak] of [
    [INSIDE_SOURCE, '10.1.2.3', '203.0.113.7'],
    ['127.0.0.1', '203.0.113.7', '10.1.2.3'],
  ]) {
    const result = await dig(['-b', source, '@127.0.0.1', '-p', String(bindPort), '-f', batch], 60_000);
    const lines = result.stdout.split('\n').filter((l) => /^\d/.test(l.trim()));
    expect(lines).toHaveLength(300);
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

test("a view's zone is held to the zone's rules, and a zone with one is not signed", async () => {
  // a CNAME in an overlay beside the base's A
  expect(errorCode(await overlay('inside', 'web', 'CNAME', 'REPLACE', ['api.corp.views.test.']))).toBe('CNAME_CONFLICT');
  // a base A where a view's overlay has a CNAME
  expect((await overlay('inside', 'alias', 'CNAME', 'REPLACE', ['api.corp.views.test.'])).errors).toBeUndefined();
  const beside = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: 'alias', type: 'A', rdata: '192.0.2.1', ttl: 300 } });
  expect(errorCode(beside)).toBe('CNAME_CONFLICT');
  const signed = await app.gql(`mutation { enableDnssec(input: { zone: "${ZONE}" }) { denial } }`);
  expect(errorCode(signed)).toBe('VIEW_ZONE_SIGNED');
  // a user may not touch views
  const user = await app.gql(`query { views { name } }`, undefined, null);
  expect(user.errors).toBeDefined();
});
