/**
 * Views (docs/views.md) served to Knot DNS, which has no views: one knotd per view, each configured with exactly
 * the text `zonekeeper view secondary-config <view> <primary> --software knot` prints (the secret and the storage
 * path filled in), following its view's catalog with its view's key. A zone created appears in both through their
 * catalogs; an inside-only overlay reaches the inside instance within seconds and never the outside one, whose
 * serial stays put; a base change reaches both; a hidden RRset is NXDOMAIN or NODATA in its view only; each
 * instance's copy of the zone passes kzonecheck.
 *
 * The primary runs with VIEWS_UNSIGNED_TRANSFERS=refuse: an SOA query or a transfer of a zone with views without a
 * view's key is REFUSED with EDE 18 (Prohibited), as dig and kdig show; a zone without views, or a view's key,
 * is answered.
 *
 * The NSD and PowerDNS texts are held to the tools themselves: nsd-checkconf reads NSD's, and every pdnsutil line of
 * PowerDNS's runs against a gsqlite3 backend (the catalog a consumer zone transferred with the view's key).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { schemaFile } from '../support/powerdns-server';
import { startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createTsigKey, createUser, createZone } from '../support/fixtures';
import { waitFor } from '../support/wait-for';
import { buildOnce } from '../support/build';
import { askTcp, extendedError } from '../support/dns-tcp';
import dnsPacket from 'dns-packet';
import { runCli } from '../support/cli';
import { dig, DigResult, findBinary, freePort, Knot, records, servedSerial, sleep, startKnotd } from './knot';

const ZONE = 'corp.views-knot.test';
const FRESH = 'fresh.views-knot.test';
const CATALOG = 'catalog.views-knot.test';
const PLACEHOLDER = "<the key's secret, as given when it was made>";

let app: TestApp;
let dnsPort: number;
const keys: Record<'inside' | 'outside', { id: string; name: string; secret: string }> = {} as never;
const knots: Partial<Record<'inside' | 'outside', Knot>> = {};
const printed: Partial<Record<'inside' | 'outside', string>> = {};

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
const addRecord = async (owner: string, type: string, rdata: string) =>
  expect((await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner, type, rdata, ttl: 300 } })).errors).toBeUndefined();

const ask = (view: 'inside' | 'outside', name: string, type = 'A') =>
  dig(['@127.0.0.1', '-p', String(knots[view]!.port), '+norec', '+noauthority', '+noadditional', name, type]);
const answers = (result: DigResult, type = 'A') =>
  records(result)
    .filter((r) => r.type === type)
    .map((r) => r.rdata);
const serialOf = (view: 'inside' | 'outside', zone = ZONE) => servedSerial(knots[view]!.port, zone);

function run(bin: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(findBinary(bin), args, { timeout: 10_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

beforeAll(async () => {
  dnsPort = await freePort();
  const ports = { inside: await freePort(), outside: await freePort() };
  app = await startTestApp({
    ROLES: 'api,dns,worker',
    DNS_LISTEN: `127.0.0.1:${dnsPort}`,
    TRANSFER_ALLOW: '127.0.0.1/32',
    CATALOG_ZONE: CATALOG,
    SERIAL_POLICY: 'increment',
    VIEWS_UNSIGNED_TRANSFERS: 'refuse',
  });
  keys.inside = await createTsigKey(app, null, 'inside-knot-key');
  keys.outside = await createTsigKey(app, null, 'outside-knot-key');
  const create = `mutation($i: ViewInput!) { createView(input: $i) { id } }`;
  for (const [name, networks, precedence] of [
    ['inside', ['127.0.1.0/24'], 10],
    ['outside', ['0.0.0.0/0'], 20],
  ] as const) {
    const res = await app.gql(create, {
      i: { name, tsigKeyId: keys[name].id, networks, precedence, notify: [`127.0.0.1:${ports[name]}`] },
    });
    expect(res.errors).toBeUndefined();
  }
  const user = await createUser(app, 'views-knot@example.test');
  await createZone(app, user, ZONE);
  await addRecord('api', 'A', '203.0.113.7');
  await addRecord('web', 'A', '203.0.113.8');
  await addRecord('info', 'A', '203.0.113.9');
  await addRecord('info', 'TXT', '"the base"');
  expect((await overlay('inside', 'api', 'A', 'REPLACE', ['10.1.2.3'])).errors).toBeUndefined();
  expect((await overlay('inside', 'info', 'TXT', 'HIDE')).errors).toBeUndefined();
  expect((await overlay('outside', 'web', 'A', 'HIDE')).errors).toBeUndefined();

  // each instance's configuration: its server's own sections, then the view's text as the CLI prints it
  buildOnce();
  for (const view of ['inside', 'outside'] as const) {
    const out = await runCli(app.baseUrl, ['view', 'secondary-config', view, `127.0.0.1:${dnsPort}`, '--software', 'knot']);
    expect(out).toMatchObject({ code: 0, err: '' });
    printed[view] = out.out;
  }
  [knots.inside, knots.outside] = await Promise.all(
    (['inside', 'outside'] as const).map((view) =>
      startKnotd({
        port: ports[view],
        config: (dir) => `server:
    rundir: "${dir}/run"
    listen: 127.0.0.1@${ports[view]}
database:
    storage: "${dir}/db"
log:
  - target: stderr
    any: info
${printed[view]!.replace(PLACEHOLDER, keys[view].secret).replaceAll(`"/var/lib/knot/${view}"`, `"${dir}/zones"`)}`,
      }),
    ),
  );
}, 60_000);

afterAll(async () => {
  await knots.inside?.stop();
  await knots.outside?.stop();
  await app?.close();
});

test('the printed Knot configuration: the view key, a remote with it, NOTIFY taken with it, the catalog interpreted', () => {
  const text = printed.inside!;
  expect(text).toContain(`  - id: inside-knot-key\n    algorithm: hmac-sha256\n    secret: ${PLACEHOLDER}\n`);
  expect(text).toContain(`    address: 127.0.0.1@${dnsPort}\n    key: inside-knot-key\n`);
  expect(text).toMatch(/action: notify/);
  expect(text).toContain(`  - domain: ${CATALOG}.\n    catalog-role: interpret\n    catalog-template: inside-member\n`);
  // the secret is never printed
  expect(text).not.toContain(keys.inside.secret);
  expect(printed.outside).toContain('key: outside-knot-key');
  expect(printed.outside).not.toContain('inside-knot-key');
});

test('each instance follows its catalog: the zones appear in both, each with its view’s records', async () => {
  for (const [view, api] of [
    ['inside', '10.1.2.3'],
    ['outside', '203.0.113.7'],
  ] as const)
    await waitFor(
      `the ${view} instance serves its api`,
      async () => (answers(await ask(view, `api.${ZONE}`))[0] === api ? true : undefined),
      20_000,
    );
  await createZone(app, await createUser(app, 'views-knot-new@example.test'), FRESH);
  for (const view of ['inside', 'outside'] as const)
    await waitFor(`${FRESH} in the ${view} instance`, async () => ((await serialOf(view, FRESH)) !== undefined ? true : undefined), 15_000);
});

test('an inside-only overlay reaches the inside instance only; the outside serial does not move', async () => {
  const outsideBefore = await serialOf('outside');
  const insideBefore = await serialOf('inside');
  expect(outsideBefore).toBeDefined();
  expect((await overlay('inside', 'api', 'A', 'REPLACE', ['10.1.2.4'])).errors).toBeUndefined();
  const started = Date.now();
  await waitFor(
    'the inside instance takes the overlay',
    async () => (answers(await ask('inside', `api.${ZONE}`))[0] === '10.1.2.4' ? true : undefined),
    5_000,
    50,
  );
  expect(Date.now() - started).toBeLessThan(5_000);
  expect(await serialOf('inside')).toBe(insideBefore! + 1);
  // the outside instance, asked over a few seconds: the base's address, its serial where it was
  for (let i = 0; i < 10; i++) {
    expect(answers(await ask('outside', `api.${ZONE}`))).toEqual(['203.0.113.7']);
    expect(await serialOf('outside')).toBe(outsideBefore);
    await sleep(200);
  }
});

test('a base change reaches both instances', async () => {
  await addRecord('new', 'A', '198.51.100.1');
  for (const view of ['inside', 'outside'] as const)
    await waitFor(
      `the base change in the ${view} instance`,
      async () => (answers(await ask(view, `new.${ZONE}`))[0] === '198.51.100.1' ? true : undefined),
      10_000,
    );
});

test('a hidden RRset is NXDOMAIN or NODATA in its view only', async () => {
  // web has an A only: hidden in the outside view, the name is gone there
  expect((await ask('outside', `web.${ZONE}`)).status).toBe('NXDOMAIN');
  expect(answers(await ask('inside', `web.${ZONE}`))).toEqual(['203.0.113.8']);
  // info keeps its A: its TXT hidden in the inside view is NODATA there
  const insideTxt = await ask('inside', `info.${ZONE}`, 'TXT');
  expect(insideTxt.status).toBe('NOERROR');
  expect(answers(insideTxt, 'TXT')).toEqual([]);
  expect(answers(await ask('inside', `info.${ZONE}`))).toEqual(['203.0.113.9']);
  expect(answers(await ask('outside', `info.${ZONE}`, 'TXT'), 'TXT')).toEqual(['"the base"']);
});

test("each instance's copy of the zone passes kzonecheck", async () => {
  for (const view of ['inside', 'outside'] as const) {
    const file = path.join(knots[view]!.dir, 'zones', `${ZONE}.zone`);
    const serial = await serialOf(view);
    // the printed template keeps each zone in the journal (zonefile-sync -1, sized for many zones: docs/scale.md);
    // a flush asked for writes the zone file of the serial served, as an operator would for a copy
    const flushed = await run('knotc', ['-s', path.join(knots[view]!.dir, 'run', 'knot.sock'), '-f', 'zone-flush', `${ZONE}.`]);
    expect(flushed).toMatchObject({ code: 0 });
    await waitFor(
      `the ${view} zone file at serial ${serial}`,
      async () => {
        try {
          return new RegExp(`SOA\\s+\\S+\\s+\\S+\\s+${serial}\\s`).test(readFileSync(file, 'utf8')) ? true : undefined;
        } catch {
          return undefined;
        }
      },
      10_000,
    );
    const checked = await run('kzonecheck', ['-o', `${ZONE}.`, file]);
    expect(checked).toMatchObject({ code: 0 });
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('198.51.100.1');
    expect(text.includes('10.1.2.4')).toBe(view === 'inside');
  }
});

describe('VIEWS_UNSIGNED_TRANSFERS=refuse', () => {
  const at = () => ['@127.0.0.1', '-p', String(dnsPort)];

  test('an SOA query or a transfer of a zone with views, unsigned, is REFUSED with EDE 18', async () => {
    const soa = await dig([...at(), '+norec', ZONE, 'SOA']);
    expect(soa.status).toBe('REFUSED');
    expect(soa.stdout).toContain(
      `EDE: 18 (Prohibited): (${ZONE} has views: its SOA needs a view's TSIG key (VIEWS_UNSIGNED_TRANSFERS=refuse))`,
    );
    // dig and kdig print only REFUSED for a refused transfer: the answer itself is read for its EDE
    const soaOfOne = { mname: 'ns.invalid', rname: 'hostmaster.invalid', serial: 1, refresh: 1, retry: 1, expire: 1, minimum: 1 };
    for (const [type, authorities] of [
      ['AXFR', []],
      ['IXFR', [{ name: ZONE, type: 'SOA', class: 'IN', data: soaOfOne }]],
    ] as const) {
      const answer = await askTcp(
        dnsPort,
        dnsPacket.encode({ id: 9, type: 'query', questions: [{ name: ZONE, type, class: 'IN' }], authorities: [...authorities] } as never),
      );
      expect({ rcode: answer.rcode, ede: extendedError(answer) }).toEqual({
        rcode: 'REFUSED',
        ede: { code: 18, text: `${ZONE} has views: its ${type} needs a view's TSIG key (VIEWS_UNSIGNED_TRANSFERS=refuse)` },
      });
    }
    const kdig = await run('kdig', [...at(), ZONE, 'AXFR']);
    expect(kdig.output).toContain("server replied with error 'REFUSED'");
    // an ordinary look-up is answered from the base zone as before
    const lookUp = await dig([...at(), '+norec', `api.${ZONE}`, 'A']);
    expect(answers(lookUp)).toEqual(['203.0.113.7']);
  });

  test("a zone without views, or a view's key, is answered", async () => {
    const fresh = await dig([...at(), '+norec', FRESH, 'SOA']);
    expect(fresh.status).toBe('NOERROR');
    const signed = await dig(['-y', `hmac-sha256:${keys.outside.name}:${keys.outside.secret}`, ...at(), '+norec', ZONE, 'SOA']);
    expect(signed.status).toBe('NOERROR');
    const axfr = records(await dig(['-y', `hmac-sha256:${keys.inside.name}:${keys.inside.secret}`, ...at(), ZONE, 'AXFR']));
    expect(axfr.filter((r) => r.name === `api.${ZONE}.` && r.type === 'A').map((r) => r.rdata)).toEqual(['10.1.2.4']);
  });

  test('a key of no view is refused too', async () => {
    const other = await createTsigKey(app, null, 'no-view-knot-key');
    const soa = await dig(['-y', `hmac-sha256:${other.name}:${other.secret}`, ...at(), '+norec', ZONE, 'SOA']);
    expect(soa.status).toBe('REFUSED');
    expect(soa.stdout).toContain('EDE: 18 (Prohibited)');
  });
});

describe('the printed NSD and PowerDNS configurations', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-views-configs-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const print = async (software: string) => {
    const out = await runCli(app.baseUrl, ['view', 'secondary-config', 'inside', `127.0.0.1:${dnsPort}`, '--software', software]);
    expect(out).toMatchObject({ code: 0, err: '' });
    expect(out.out).toContain(PLACEHOLDER);
    expect(out.out).not.toContain(keys.inside.secret);
    return out.out.replaceAll(PLACEHOLDER, keys.inside.secret);
  };

  test("NSD's is read by nsd-checkconf: the key, the pattern with it, the catalog", async () => {
    const text = (await print('nsd')).replace('"/var/lib/nsd/inside/', `"${dir}/`);
    expect(text).toContain(`    request-xfr: 127.0.0.1@${dnsPort} inside-knot-key\n    allow-notify: 127.0.0.1 inside-knot-key\n`);
    const file = path.join(dir, 'nsd.conf');
    writeFileSync(file, `server:\n    zonesdir: "${dir}"\n${text}`);
    expect(await run('nsd-checkconf', [file])).toEqual({ code: 0, output: '' });
    // nsd-checkconf reads back the catalog zone's pattern, and the pattern's transfers signed with the key
    expect((await run('nsd-checkconf', ['-z', `${CATALOG}.`, '-o', 'request-xfr', file])).output.trim()).toBe(
      `127.0.0.1@${dnsPort} inside-knot-key`,
    );
    // the members' line: dig reads the key from the printed file, never from its command line, and lists the view's
    // catalog's members with the pattern
    const keyLine = text.split('\n').find((line) => line.startsWith('#   key "'));
    const keyFile = path.join(dir, 'dig.key');
    writeFileSync(keyFile, `${keyLine!.slice(4)}\n`, { mode: 0o600 });
    expect(await run('named-checkconf', [keyFile])).toEqual({ code: 0, output: '' });
    const membersLine = text.split('\n').find((line) => line.startsWith('#   dig '))!;
    expect(membersLine).not.toContain(keys.inside.secret);
    expect(membersLine).toContain(' -k /etc/nsd/zonekeeper-inside.dig.key ');
    const members = await run('bash', [
      '-c',
      `set -o pipefail; ${membersLine
        .slice(4)
        .replace(' -k /etc/nsd/zonekeeper-inside.dig.key ', ` -k ${keyFile} `)
        .replace(/ \| split .*$/, '')}`,
    ]);
    expect(members).toMatchObject({ code: 0 });
    expect(members.output).toContain(`${ZONE}. zonekeeper-inside\n`);
    // an unknown software is refused with the values taken
    const wrong = await runCli(app.baseUrl, ['view', 'secondary-config', 'inside', '127.0.0.1', '--software', 'djbdns']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.err).toMatch(/bind, knot, nsd, powerdns/);
  });

  test("PowerDNS's lines are taken by pdnsutil 4.7: the catalog a consumer zone of the primary, transferred with the key", async () => {
    const text = await print('powerdns');
    const database = path.join(dir, 'pdns.sqlite3');
    execFileSync(findBinary('sqlite3'), [database], { input: readFileSync(schemaFile()), stdio: ['pipe', 'ignore', 'pipe'] });
    const lines = text.split('\n');
    const config = lines.filter((l) => /^[a-z-]+=/.test(l));
    // the view's instance holds the default set's zones: the limits sized for them (docs/scale.md)
    expect(config).toEqual(['secondary=yes', 'allow-notify-from=127.0.0.1', 'retrieval-threads=2', 'xfr-cycle-interval=10']);
    writeFileSync(path.join(dir, 'pdns.conf'), [`launch=gsqlite3`, `gsqlite3-database=${database}`, ...config, ''].join('\n'));
    const commands = lines.filter((l) => /^(pdnsutil|for) /.test(l));
    expect(commands).toHaveLength(5);
    const pdnsutil = `pdnsutil --config-dir=${dir}`;
    for (const command of commands) {
      const ran = await run('bash', ['-euo', 'pipefail', '-c', command.replaceAll('pdnsutil', pdnsutil)]);
      expect({ command, code: ran.code }).toEqual({ command, code: 0 });
    }
    const zones = execFileSync(findBinary('sqlite3'), [database, 'select name, type, master from domains'], { encoding: 'utf8' });
    expect(zones.trim()).toBe(`${CATALOG}|CONSUMER|127.0.0.1:${dnsPort}`);
    const meta = await run('bash', ['-c', `${pdnsutil} get-meta ${CATALOG} AXFR-MASTER-TSIG`]);
    expect(meta.output).toContain('AXFR-MASTER-TSIG = inside-knot-key');
    // the loop gives a member (as the consumer makes it: a secondary zone of the same primaries) the key
    await run('bash', ['-c', `${pdnsutil} create-secondary-zone ${ZONE} 127.0.0.1:${dnsPort}`]);
    expect((await run('bash', ['-c', commands[4].replaceAll('pdnsutil', pdnsutil)])).code).toBe(0);
    expect((await run('bash', ['-c', `${pdnsutil} get-meta ${ZONE} AXFR-MASTER-TSIG`])).output).toContain(
      'AXFR-MASTER-TSIG = inside-knot-key',
    );
  });
});
