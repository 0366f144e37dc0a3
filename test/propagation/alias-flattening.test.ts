/**
 * ALIAS flattening end to end (docs/templates-and-alias.md), with real parts: the target is served by a local
 * Knot (test/support/knot-primary.ts), which is the ALIAS_RESOLVERS here (it answers authoritatively, which is
 * all the worker asks); the worker publishes the target's A and AAAA at the ALIAS owner as derived records;
 * our primary's AXFR, a Knot secondary (catalog), and a BIND and a PowerDNS secondary (the zone configured, as
 * a plain secondary has it, nothing about ALIAS) serve them, and the new ones after the target changes, within the derived TTL. The
 * history shows each refresh as the service's own change. A target gone NXDOMAIN, SERVFAIL or silent keeps the last
 * addresses served and the status says why; the derived records are read-only; with no ALIAS_RESOLVERS an ALIAS
 * is refused.
 */
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, TestApp } from '../support/test-app';
import { startServiceWithKnot } from '../support/knot-fleet';
import { createUser, createZone, CREATE_RECORD, errorCode } from '../support/fixtures';
import { KnotPrimary, startKnotPrimary } from '../support/knot-primary';
import { BindSecondary, startBindSecondary } from '../support/bind-secondary';
import { PowerDnsServer, startPowerDnsSecondary } from '../support/powerdns-server';
import { dig, freePort, Knot, records, waitFor } from './knot';
import { encodeMessage, FLAG, readWireMessage } from '../../src/dns/wire';

const ZONE = 'flat.zk-alias.test';
const TARGET_ZONE = 'cdn.zk-target.test';
const TARGET = `www.${TARGET_ZONE}.`;
const CATALOG = 'catalog.zk-alias.test';
const KEY_NAME = 'zk-alias-key';
const SECRET = randomBytes(32).toString('base64');
/**
 * What a worker tick (1 s) and the refresh's write may add to the derived TTL before the primary serves the new
 * addresses, and what a NOTIFY and an IXFR take after that, on a shared test machine: measured apart, so that a
 * slow step is named (on a loaded CI host the two came to 13–20 s together, each step a few seconds)
 */
const REFRESH_ALLOWANCE_MS = 6_000;
const PROPAGATION_ALLOWANCE_MS = 12_000;

let dir: string;
let target: KnotPrimary;
let secondary: Knot;
let bind: BindSecondary;
let powerdns: PowerDnsServer;
let app: TestApp;
let dnsPort: number;
let targetSerial = 1;

/** the target zone as Knot serves it: `www` with these addresses, or no `www` at all (NXDOMAIN) */
function writeTarget(addresses: { a: string; aaaa: string } | undefined): void {
  const lines = [
    `$ORIGIN ${TARGET_ZONE}.`,
    `@ 300 IN SOA ns.${TARGET_ZONE}. hostmaster.${TARGET_ZONE}. ${targetSerial++} 3600 600 86400 60`,
    `@ 300 IN NS ns.${TARGET_ZONE}.`,
    `ns 300 IN A 127.0.0.1`,
    ...(addresses ? [`www 120 IN A ${addresses.a}`, `www 60 IN AAAA ${addresses.aaaa}`, `shop 300 IN A 198.51.100.7`] : []),
  ];
  writeFileSync(path.join(dir, 'target.zone'), `${lines.join('\n')}\n`);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-alias-target-'));
  writeTarget({ a: '192.0.2.10', aaaa: '2001:db8::10' });
  target = await startKnotPrimary([{ zone: TARGET_ZONE, file: path.join(dir, 'target.zone') }]);
  dnsPort = await freePort();
  bind = await startBindSecondary({ zones: [ZONE], primaryPort: dnsPort, tsig: { name: KEY_NAME, secret: SECRET } });
  powerdns = await startPowerDnsSecondary({ zones: [ZONE], primaryPort: dnsPort, tsig: { name: KEY_NAME, secret: SECRET } });
  let userId: string;
  ({
    app,
    knot: secondary,
    userId,
  } = await startServiceWithKnot({
    catalog: CATALOG,
    tsig: { name: KEY_NAME, secret: SECRET },
    dnsPort,
    extraSecondaries: [`127.0.0.1:${bind.port}`, `127.0.0.1:${powerdns.dnsPort}`],
    env: {
      ALIAS_RESOLVERS: `127.0.0.1:${target.port}`,
      // refreshes every 1 to 2 s, so the test sees a change within seconds
      ALIAS_MIN_TTL: '1',
      ALIAS_MAX_TTL: '2',
    },
    user: 'owner@zk-alias.test',
  }));
  await createZone(app, userId, ZONE);
}, 60_000);

afterAll(async () => {
  await app?.close();
  await secondary?.stop();
  await bind?.stop();
  await powerdns?.stop();
  await target?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** the apex's A and AAAA a server serves (AXFR from our primary, or a query to the secondary) */
async function apexAddresses(port: number, how: 'axfr' | 'query'): Promise<string[]> {
  const at = ['@127.0.0.1', '-p', String(port)];
  const served =
    how === 'axfr'
      ? records(await dig([...at, '-y', `hmac-sha256:${KEY_NAME}:${SECRET}`, ZONE, 'AXFR']))
      : [...records(await dig([...at, '+norec', ZONE, 'A'])), ...records(await dig([...at, '+norec', ZONE, 'AAAA']))];
  return served
    .filter((r) => r.name === `${ZONE}.` && (r.type === 'A' || r.type === 'AAAA'))
    .map((r) => `${r.type} ${r.rdata} ${r.ttl}`)
    .sort();
}

const STATUS = `query($n: String) { domain(name: $n) { aliasStatus { owner type target state reason addresses }
  records { id owner type rdata derived } changes(first: 5) { nodes { author { keyName } serviceNote added { owner type rdata } } } } }`;
const status = async () => (await app.gql(STATUS, { n: ZONE })).data.domain;

/** when the primary published the refresh that added `address` at the apex: its change's time (PostgreSQL's clock, this host's) */
async function refreshPublishedAt(address: string): Promise<number> {
  const res = await app.gql(
    `query($n: String) { domain(name: $n) { changes(first: 10) { nodes { createdAt serviceNote added { owner type rdata } } } } }`,
    {
      n: ZONE,
    },
  );
  const change = res.data.domain.changes.nodes.find(
    (node: any) => node.serviceNote && node.added.some((r: any) => r.owner === '@' && r.type === 'A' && r.rdata === address),
  );
  if (!change) throw new Error(`no refresh adding ${address} in the history: ${JSON.stringify(res.data.domain.changes.nodes)}`);
  return Date.parse(change.createdAt);
}

test('an apex ALIAS gets its target’s addresses, served by AXFR and by Knot, BIND and PowerDNS secondaries, as the service’s own change; they are read-only', async () => {
  const res = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: '@', type: 'ALIAS', rdata: TARGET, ttl: 300 } });
  expect(res.errors).toBeUndefined();
  // the answers' smallest TTL (60) capped by ALIAS_MAX_TTL (2)
  const expected = ['A 192.0.2.10 2', 'AAAA 2001:db8::10 2'];
  await waitFor('the primary to serve the flattened addresses', async () => {
    const served = await apexAddresses(dnsPort, 'axfr');
    return JSON.stringify(served) === JSON.stringify(expected) ? true : undefined;
  });
  for (const [name, port] of [
    ['Knot', secondary.port],
    ['BIND', bind.port],
    ['PowerDNS', powerdns.dnsPort],
  ] as const)
    await waitFor(`the ${name} secondary to serve them`, async () => {
      const served = await apexAddresses(port, 'query');
      return JSON.stringify(served) === JSON.stringify(expected) ? true : undefined;
    });

  const domain = await status();
  expect(domain.aliasStatus).toEqual([
    { owner: '@', type: 'ALIAS', target: TARGET, state: 'ok', reason: null, addresses: ['192.0.2.10', '2001:db8::10'] },
  ]);
  const derived = domain.records.filter((r: any) => r.derived);
  expect(derived.map((r: any) => `${r.type} ${r.rdata}`).sort()).toEqual(['A 192.0.2.10', 'AAAA 2001:db8::10']);
  expect(domain.records.find((r: any) => r.type === 'ALIAS')).toMatchObject({ derived: false });
  // the history: the refresh is the service's, not a person's
  const refresh = domain.changes.nodes.find((c: any) => c.added.some((r: any) => r.type === 'A' && r.owner === '@'));
  expect(refresh).toMatchObject({ author: null, serviceNote: `ALIAS refresh of ${ZONE}. → ${TARGET}` });
  const byPerson = domain.changes.nodes.find((c: any) => c.added.some((r: any) => r.type === 'ALIAS'));
  expect(byPerson.author).not.toBeNull();

  // read-only: a person's delete or edit of a derived record is refused, and so is an A of their own beside it
  const del = await app.gql(`mutation($id: ID!) { deleteRecord(id: $id) }`, { id: derived[0].id });
  expect(errorCode(del)).toBe('RECORD_DERIVED');
  expect(del.errors![0].extensions.details[0]).toMatchObject({ field: 'id', code: 'RECORD_DERIVED' });
  const own = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: '@', type: 'A', rdata: '192.0.2.99', ttl: 300 } });
  expect(own.errors![0].extensions.details[0]).toMatchObject({ field: 'type', code: 'ALIAS_CONFLICT' });
  // the ALIAS itself stays the person's to change (its derived rows do not stand in the way)
  const edited = await app.gql(`mutation($id: ID!, $i: RecordInput!) { updateRecord(id: $id, input: $i) { ttl } }`, {
    id: domain.records.find((r: any) => r.type === 'ALIAS').id,
    i: { zone: ZONE, owner: '@', type: 'ALIAS', rdata: TARGET, ttl: 900 },
  });
  expect(edited.errors).toBeUndefined();
});

test('a zone file writes the ALIAS, not its derived addresses; imported back (REPLACE, MERGE), the addresses stay', async () => {
  const file = (await app.gql(`query($z: String!) { exportZone(zone: $z) }`, { z: ZONE })).data.exportZone as string;
  expect(file).toMatch(/^@ 900 IN ALIAS www\.cdn\.zk-target\.test\.$/m);
  expect(file).not.toMatch(/ IN (A|AAAA) /);
  const IMPORT = `mutation($z: String!, $t: String!, $m: ZoneImportMode!) { importZone(zone: $z, text: $t, mode: $m) { added removed } }`;
  const replaced = await app.gql(IMPORT, { z: ZONE, t: `${file}kept 300 IN TXT "replace"\n`, m: 'REPLACE' });
  expect(replaced.errors).toBeUndefined();
  expect(replaced.data.importZone).toEqual({ added: 1, removed: 0 });
  const merged = await app.gql(IMPORT, { z: ZONE, t: 'merged 300 IN TXT "merge"\n', m: 'MERGE' });
  expect(merged.errors).toBeUndefined();
  const derived = (await status()).records.filter((r: any) => r.derived);
  expect(derived.map((r: any) => `${r.type} ${r.rdata}`).sort()).toEqual(['A 192.0.2.10', 'AAAA 2001:db8::10']);
});

test('the target’s new addresses reach the primary within the TTL, and the Knot, BIND and PowerDNS secondaries after it', async () => {
  writeTarget({ a: '192.0.2.20', aaaa: '2001:db8::20' });
  const changedAt = Date.now();
  await target.reload();
  const expected = ['A 192.0.2.20 2', 'AAAA 2001:db8::20 2'];
  const servedAfter: Record<string, number> = {};
  await Promise.all(
    (
      [
        ['Knot', secondary.port],
        ['BIND', bind.port],
        ['PowerDNS', powerdns.dnsPort],
      ] as const
    ).map(async ([name, port]) => {
      await waitFor(`the ${name} secondary to serve the new addresses`, async () => {
        const served = await apexAddresses(port, 'query');
        return JSON.stringify(served) === JSON.stringify(expected) ? true : undefined;
      });
      servedAfter[name] = Date.now() - changedAt;
    }),
  );
  const publishedAfter = (await refreshPublishedAt('192.0.2.20')) - changedAt;
  console.log(`ALIAS refresh published after ${publishedAfter} ms, served by the secondaries after (ms): ${JSON.stringify(servedAfter)}`);
  // the primary: within the derived TTL (2 s: the next refresh is due no later), a worker tick and the write
  expect({ publishedAfter, inTime: publishedAfter <= 2_000 + REFRESH_ALLOWANCE_MS }).toEqual({ publishedAfter, inTime: true });
  // each secondary: what a NOTIFY and an IXFR take after that
  for (const [name, ms] of Object.entries(servedAfter))
    expect({ name, inTime: ms - publishedAfter <= PROPAGATION_ALLOWANCE_MS }).toEqual({ name, inTime: true });
  expect(await apexAddresses(dnsPort, 'axfr')).toEqual(expected);
});

test('an ALIAS edited to another target is asked at once: its addresses replace the old ones', async () => {
  const alias = (await status()).records.find((r: any) => r.type === 'ALIAS');
  const shop = `shop.${TARGET_ZONE}.`;
  const edited = await app.gql(`mutation($id: ID!, $i: RecordInput!) { updateRecord(id: $id, input: $i) { rdata } }`, {
    id: alias.id,
    i: { zone: ZONE, owner: '@', type: 'ALIAS', rdata: shop, ttl: 900 },
  });
  expect(edited.errors).toBeUndefined();
  await waitFor('the primary to serve the new target’s address only', async () => {
    const served = await apexAddresses(dnsPort, 'axfr');
    return JSON.stringify(served) === JSON.stringify(['A 198.51.100.7 2']) ? true : undefined;
  });
  expect((await status()).aliasStatus[0]).toMatchObject({ target: shop, state: 'ok', addresses: ['198.51.100.7'] });
});

test('an ALIAS moved to another owner takes its addresses along, and back', async () => {
  const alias = (await status()).records.find((r: any) => r.type === 'ALIAS');
  const move = (owner: string) =>
    app.gql(`mutation($id: ID!, $i: RecordInput!) { updateRecord(id: $id, input: $i) { owner } }`, {
      id: alias.id,
      i: { zone: ZONE, owner, type: 'ALIAS', rdata: alias.rdata, ttl: 900 },
    });
  const servedAt = async () =>
    records(await dig(['@127.0.0.1', '-p', String(dnsPort), '-y', `hmac-sha256:${KEY_NAME}:${SECRET}`, ZONE, 'AXFR']))
      .filter((r) => r.type === 'A' || r.type === 'AAAA')
      .map((r) => `${r.name} ${r.type} ${r.rdata}`)
      .sort();
  expect((await move('moved')).errors).toBeUndefined();
  const moved = [`moved.${ZONE}. A 198.51.100.7`];
  await waitFor('the addresses at the new owner only', async () =>
    JSON.stringify(await servedAt()) === JSON.stringify(moved) ? true : undefined,
  );
  expect((await move('@')).errors).toBeUndefined();
  const back = [`${ZONE}. A 198.51.100.7`];
  await waitFor('the addresses back at the apex only', async () =>
    JSON.stringify(await servedAt()) === JSON.stringify(back) ? true : undefined,
  );
});

/** the resolver's port answering every question SERVFAIL (RCODE 2, RFC 1035 §4.1.1), as a resolver does when the target's servers fail */
async function answerServfail(port: number): Promise<dgram.Socket> {
  const socket = dgram.createSocket('udp4');
  socket.on('message', (raw, from) => {
    const question = readWireMessage(raw);
    const reply = encodeMessage({ id: question.id, flags: FLAG.QR | FLAG.RD | FLAG.RA | 2, questions: question.questions });
    socket.send(reply, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(port, '127.0.0.1', () => resolve()));
  return socket;
}

test('a target gone NXDOMAIN, then SERVFAIL, then silent: the last addresses stay served and the status says why', async () => {
  const last = ['A 198.51.100.7 2'];
  writeTarget(undefined);
  await target.reload();
  const gone = await waitFor('the status to tell NXDOMAIN', async () => {
    const [alias] = (await status()).aliasStatus;
    return alias.state === 'stale' && /NXDOMAIN/.test(alias.reason) ? alias : undefined;
  });
  expect(gone.addresses).toEqual(['198.51.100.7']);
  expect(await apexAddresses(dnsPort, 'axfr')).toEqual(last);

  await target.stop();
  const servfail = await answerServfail(target.port);
  try {
    await waitFor('the status to tell SERVFAIL', async () => {
      const [alias] = (await status()).aliasStatus;
      return alias.state === 'stale' && /SERVFAIL/.test(alias.reason) ? alias : undefined;
    });
    expect(await apexAddresses(dnsPort, 'axfr')).toEqual(last);
  } finally {
    servfail.close();
  }

  await waitFor('the status to tell no answer', async () => {
    const [alias] = (await status()).aliasStatus;
    return alias.state === 'stale' && !/NXDOMAIN|SERVFAIL/.test(alias.reason) ? alias : undefined;
  });
  expect(await apexAddresses(dnsPort, 'axfr')).toEqual(last);
  // the secondaries serve them too, once they have taken the primary's last serial (the owner's move and back
  // above waited for the primary alone, and a busy machine may hold a secondary's IXFR for a moment)
  for (const [name, port] of [
    ['Knot', secondary.port],
    ['BIND', bind.port],
    ['PowerDNS', powerdns.dnsPort],
  ] as const)
    await waitFor(`the ${name} secondary to serve the last addresses`, async () =>
      JSON.stringify(await apexAddresses(port, 'query')) === JSON.stringify(last) ? true : undefined,
    );
}, 45_000);

test('a deleted ALIAS: the worker removes its derived addresses in a change of its own, and forgets its schedule', async () => {
  const alias = (await status()).records.find((r: any) => r.type === 'ALIAS');
  const del = await app.gql(`mutation($id: ID!) { deleteRecord(id: $id) }`, { id: alias.id });
  expect(del.errors).toBeUndefined();
  await waitFor('the primary to serve no apex address', async () =>
    (await apexAddresses(dnsPort, 'axfr')).length === 0 ? true : undefined,
  );
  const domain = await status();
  expect(domain.records.filter((r: any) => r.derived)).toEqual([]);
  expect(domain.aliasStatus).toEqual([]);
  expect(domain.changes.nodes[0]).toMatchObject({ author: null, serviceNote: 'ALIAS removed: its derived addresses go' });
  await waitFor('the schedule row to be forgotten', async () =>
    (await app.service.database.db.rows('select 1 from alias_refresh where record_id = $1', [alias.id])).length === 0 ? true : undefined,
  );
});

test('with no ALIAS_RESOLVERS, an ALIAS is refused naming the setting, and nothing is written', async () => {
  const bare = await startTestApp();
  try {
    const zone = 'bare.zk-alias.test';
    await createZone(bare, await createUser(bare, 'owner@bare.zk-alias.test'), zone);
    const res = await bare.gql(CREATE_RECORD, { input: { zone, owner: '@', type: 'ALIAS', rdata: TARGET, ttl: 300 } });
    expect(errorCode(res)).toBe('ALIAS_RESOLVERS_UNSET');
    expect(res.errors![0].extensions.details[0]).toMatchObject({ field: 'type', code: 'ALIAS_RESOLVERS_UNSET' });
    const stored = await bare.gql(`query($n: String) { domain(name: $n) { records { type } } }`, { n: zone });
    expect(stored.data.domain.records.map((r: any) => r.type)).not.toContain('ALIAS');
    // nor does a template take one: every zone made from it would hold an ALIAS never served
    const template = await bare.gql(`mutation($i: CreateRecordTemplateInput!) { createRecordTemplate(input: $i) { id } }`, {
      i: {
        name: 'cdn',
        records: [
          { owner: '@', type: 'SOA', rdata: 'ns1.example.net. hostmaster.example.net. 1 3600 900 604800 300' },
          { owner: '@', type: 'NS', rdata: 'ns1.example.net.' },
          { owner: '@', type: 'ALIAS', rdata: TARGET },
        ],
      },
    });
    expect(errorCode(template)).toBe('ALIAS_RESOLVERS_UNSET');
    expect(template.errors![0].extensions.details[0]).toMatchObject({ field: 'records[2].type', code: 'ALIAS_RESOLVERS_UNSET' });
  } finally {
    await bare.close();
  }
});
