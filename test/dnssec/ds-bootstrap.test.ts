/**
 * The DS reaches the parent without a person (docs/dnssec.md, «DS without a person»).
 *
 * RFC 9615 signals: a signed child whose nameserver ns1 lies in a signed zone held here gets its CDS/CDNSKEY
 * copied to `_dsboot.<child>._signal.ns1.<ops>` in that zone, served by the primary with their RRSIGs, the
 * signalling zone's transfer passing dnssec-verify and ldns-verify-zone; none under its in-domain nameserver;
 * the API refuses a person's CDS there, and a zone file replacing the operator zone keeps them.
 * The copies follow a KSK roll (gone while the child publishes no CDS mid-roll, the new key's after it) and
 * leave when the child starts going unsigned.
 *
 * A parent held here: the child's DS RRset there is the child's CDS as the primary serves it (signed by the
 * child's keys, which dnssec-verify checks over the child's transfer), written in one serial step of the parent
 * with a `dnssec.ds_updated` event naming that serial; the child going unsigned (its CDS the DS-delete, RFC 8078
 * §4) takes the DS away the same way.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import dgram from 'node:dgram';
import { startTestApp, TestApp } from '../support/test-app';
import { dig, freePort, records, waitFor } from '../propagation/knot';
import { KnotPrimary, startKnotPrimary } from '../support/knot-primary';
import { transferZone } from '../support/signed-zone-checks';
import { DSYNC } from '../../src/dns/record-types/dsync';
import { rdataToWire, readWireMessage } from '../../src/dns/wire';

const run = promisify(execFile);
const OPS = 'zk-dsboot-ops.test';
const CHILD = 'zk-dsboot-child.test';
const SIGNAL = `_dsboot.${CHILD}._signal.ns1.${OPS}`;
const PARENT = 'zk-dsboot-parent.test';
const KID = `kid.${PARENT}`;
const KEY_NAME = 'zk-dsboot-key';
const SECRET = randomBytes(32).toString('base64');

const ELSEWHERE = 'zk-dsync-parent.test';
const NOTIFIED = `kid.${ELSEWHERE}`;

let app: TestApp;
let dnsPort: number;
let dir: string;
let knot: KnotPrimary;
let listener: dgram.Socket;
/** the NOTIFY messages the parent's endpoint received: opcode, question name and type */
const heard: { opcode: number; name: string; type: number }[] = [];

const zoneFile = (zone: string, extra: string) =>
  `$ORIGIN ${zone}.\n@ 2 IN SOA ns1.${OPS}. hostmaster.${zone}. 1 7200 3600 1209600 2\n${extra}`;

async function gqlOk<T = any>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await app.gql<T>(query, variables);
  expect(res.errors).toBeUndefined();
  return res.data as T;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'zk-dsboot-'));
  dnsPort = await freePort();
  // the parent's NOTIFY(CDS) endpoint: Debian's Knot (3.2) and BIND (9.18) do not act on NOTIFY of type CDS, so a UDP
  // listener here records what arrives and answers as RFC 1996 §4.7 says (the request echoed, QR set)
  listener = dgram.createSocket('udp4');
  listener.on('message', (message, from) => {
    const read = readWireMessage(message);
    heard.push({ opcode: (read.flags >> 11) & 0xf, name: read.questions[0]?.name.toLowerCase(), type: read.questions[0]?.type });
    const answer = Buffer.from(message);
    answer[2] |= 0x80;
    listener.send(answer, from.port, from.address);
  });
  await new Promise<void>((resolve) => listener.bind(0, '127.0.0.1', resolve));
  // a parent elsewhere (Knot), publishing DSYNC for all its children at _dsync.<parent> (RFC 9859 §4.1), in
  // RFC 3597's generic form, which Knot 3.2 serves without knowing the type
  const dsyncValue = DSYNC.parse(`CDS 1 ${listener.address().port} notify.${ELSEWHERE}.`, ELSEWHERE);
  if (!dsyncValue.ok) throw new Error('the DSYNC sample does not parse');
  const dsync = rdataToWire(DSYNC, dsyncValue.value);
  const parentFile = join(dir, `${ELSEWHERE}.zone`);
  writeFileSync(
    parentFile,
    `$ORIGIN ${ELSEWHERE}.\n@ 60 IN SOA ns.${ELSEWHERE}. hostmaster.${ELSEWHERE}. 1 7200 3600 1209600 60\n@ 60 IN NS ns.${ELSEWHERE}.\n` +
      `ns 60 IN A 127.0.0.1\nnotify 60 IN A 127.0.0.1\nkid 60 IN NS ns1.${OPS}.\n` +
      `_dsync 60 IN TYPE66 \\# ${dsync.length} ${dsync.toString('hex')}\n`,
  );
  knot = await startKnotPrimary([{ zone: ELSEWHERE, file: parentFile }]);
  app = await startTestApp({
    DNSSEC_PARENT_DS_SERVERS: `127.0.0.1:${knot.port}`,
    DNSSEC_CDS_NOTIFY_ALLOW: '127.0.0.1/32',
    ROLES: 'api,dns,worker',
    DNS_LISTEN: `127.0.0.1:${dnsPort}`,
    TSIG_KEY: `${KEY_NAME}:hmac-sha256:${SECRET}`,
    ALLOWED_TTLS: 'any',
    DNSSEC_PROPAGATION_DELAY: '1',
  });
  const user = await gqlOk(`mutation { createUser(input: {email: "dsboot@example.com"}) { id } }`);
  for (const [zone, extra] of [
    [OPS, `@ 2 IN NS ns1.${OPS}.\nns1 2 IN A 192.0.2.53\n`],
    // ns1 in the operator's zone, ns3 in the child itself (in-domain: no signal)
    [CHILD, `@ 2 IN NS ns1.${OPS}.\n@ 2 IN NS ns3.${CHILD}.\nns3 2 IN A 192.0.2.54\nwww 2 IN A 192.0.2.80\n`],
    // a parent held here, signed, delegating kid to the operator's nameserver
    [PARENT, `@ 2 IN NS ns1.${OPS}.\nkid 2 IN NS ns1.${OPS}.\n`],
    [KID, `@ 2 IN NS ns1.${OPS}.\nwww 2 IN A 192.0.2.81\n`],
    [NOTIFIED, `@ 2 IN NS ns1.${OPS}.\n`],
  ]) {
    await gqlOk(`mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }`, {
      u: user.createUser.id,
      z: zone,
    });
    await gqlOk(`mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t) { serial } }`, { z: zone, t: zoneFile(zone, extra) });
  }
  for (const zone of [OPS, PARENT]) await gqlOk(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { enabled } }`, { z: zone });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await knot?.stop();
  listener?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** an RRset as the primary answers it with DO set: the records of `type` and the types their RRSIGs cover */
async function ask(name: string, type: string): Promise<{ rdata: string[]; signed: string[] }> {
  const answer = await dig(['@127.0.0.1', '-p', String(dnsPort), name, type, '+dnssec', '+norec', '+noall', '+answer']);
  const rows = records(answer);
  return {
    // dig splits a long digest or key into groups: joined, so two answers compare by content
    rdata: rows
      .filter((r) => r.type === type)
      .map((r) => r.rdata.replace(/\s+/g, ' '))
      .sort(),
    signed: rows.filter((r) => r.type === 'RRSIG').map((r) => `${r.rdata.split(/\s+/)[0]} ${r.rdata.split(/\s+/)[7]}`),
  };
}

/** the signalling zone as the primary transfers it, through BIND's and ldns's verifiers */
async function verifyOps(): Promise<string> {
  const text = await verifyZone(OPS);
  const ldns = await run('ldns-verify-zone', [join(dir, `${OPS}.zone`)]).catch((error) => error);
  expect(`${ldns.stdout}${ldns.stderr}`).toMatch(/Zone is verified and complete/);
  return text;
}

const keysOf = async (zone: string) =>
  (await gqlOk(`query($z: String) { domain(name: $z) { dnssec { keys { keyTag role state } } } }`, { z: zone })).domain.dnssec.keys as {
    keyTag: number;
    role: string;
    state: string;
  }[];

test("RFC 9615: the child's CDS/CDNSKEY are signalled under its nameserver in the signed operator zone, and follow its KSK roll", async () => {
  await gqlOk(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { enabled } }`, { z: CHILD });
  const apexCds = await ask(CHILD, 'CDS');
  const apexCdnskey = await ask(CHILD, 'CDNSKEY');
  expect(apexCds.rdata).toHaveLength(1);
  // the copies, each RRset signed by the operator zone's keys (RRSIG's signer field)
  const signalCds = await ask(SIGNAL, 'CDS');
  const signalCdnskey = await ask(SIGNAL, 'CDNSKEY');
  expect(signalCds.rdata).toEqual(apexCds.rdata);
  expect(signalCdnskey.rdata).toEqual(apexCdnskey.rdata);
  expect(signalCds.signed).toEqual([`CDS ${OPS}.`]);
  expect(signalCdnskey.signed).toEqual([`CDNSKEY ${OPS}.`]);
  // none under the in-domain nameserver
  expect((await ask(`_dsboot.${CHILD}._signal.ns3.${CHILD}`, 'CDS')).rdata).toEqual([]);
  // the signer's records: a person may not write one (a CDS in a signed zone is the signer's), and a zone file
  // that replaces the operator zone keeps them
  const refused = await app.gql(
    `mutation($z: String!, $o: String!, $r: String!) { createRecord(input: {zone: $z, owner: $o, type: "CDS", ttl: 2, rdata: $r}) { id } }`,
    { z: OPS, o: `_dsboot.${CHILD}._signal.ns1`, r: `12345 13 2 ${'AB'.repeat(32)}` },
  );
  expect(refused.errors?.[0].extensions?.code).toBe('DNSSEC_RECORD_MANAGED');
  await gqlOk(`mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t) { serial } }`, {
    z: OPS,
    t: zoneFile(OPS, `@ 2 IN NS ns1.${OPS}.\nns1 2 IN A 192.0.2.53\nns2 2 IN A 192.0.2.55\n`),
  });
  expect((await ask(SIGNAL, 'CDS')).rdata).toEqual(apexCds.rdata);
  const text = await verifyOps();
  expect(text).toMatch(
    new RegExp(`^_dsboot\\.${CHILD.replace(/\./g, '\\.')}\\._signal\\.ns1\\.${OPS.replace(/\./g, '\\.')}\\.\\s+\\d+\\s+IN\\s+CDS\\s`, 'm'),
  );

  // a KSK roll (double-DS): the child publishes no CDS until the old DS may go, nor do the signals
  const before = (await keysOf(CHILD)).find((k) => k.role === 'KSK')!.keyTag;
  await gqlOk(`mutation($z: String!) { rollDnssecKey(zone: $z, role: KSK) { enabled } }`, { z: CHILD });
  expect((await ask(CHILD, 'CDS')).rdata).toEqual([]);
  expect((await ask(SIGNAL, 'CDS')).rdata).toEqual([]);
  // the parent is elsewhere: the operator's word that the new DS is there, then the worker swaps and withdraws
  await gqlOk(`mutation($z: String!) { confirmDnssecDsPublished(zone: $z) { enabled } }`, { z: CHILD });
  const after = await waitFor(
    'the roll to end with the new key alone',
    async () => {
      const ksks = (await keysOf(CHILD)).filter((k) => k.role === 'KSK' && k.state !== 'removed');
      return ksks.length === 1 && ksks[0].keyTag !== before && ksks[0].state === 'active' ? ksks[0].keyTag : undefined;
    },
    30_000,
    250,
  );
  const rolled = await waitFor(
    'the signals to name the new key',
    async () => {
      const signal = await ask(SIGNAL, 'CDS');
      return signal.rdata.length === 1 && signal.rdata[0].startsWith(`${after} `) ? signal : undefined;
    },
    10_000,
    250,
  );
  expect(rolled.rdata).toEqual((await ask(CHILD, 'CDS')).rdata);
  expect((await ask(SIGNAL, 'CDNSKEY')).rdata).toEqual((await ask(CHILD, 'CDNSKEY')).rdata);
  await verifyOps();

  // going unsigned: the child's CDS asks for deletion (RFC 8078 §4), which is no bootstrap; the signals leave
  await gqlOk(`mutation($z: String!) { disableDnssec(zone: $z) { state } }`, { z: CHILD });
  expect((await ask(CHILD, 'CDS')).rdata).toEqual(['0 0 0 00']);
  expect((await ask(SIGNAL, 'CDS')).rdata).toEqual([]);
  expect((await ask(SIGNAL, 'CDNSKEY')).rdata).toEqual([]);
  await verifyOps();
}, 60_000);

/** a zone as the primary transfers it, through BIND's verifier */
async function verifyZone(zone: string): Promise<string> {
  const { text } = await transferZone(dnsPort, { name: KEY_NAME, secret: SECRET }, zone);
  const file = join(dir, `${zone}.zone`);
  writeFileSync(file, text);
  await run('dnssec-verify', ['-o', zone, file]);
  return text;
}

/** the RRset of `type` at `owner` in a transferred zone, and the types its RRSIGs there cover */
function rrsetIn(text: string, owner: string, type: string): { rdata: string[]; signed: string[] } {
  const rows = text
    .split('\n')
    .map((line) => line.split(/\s+/))
    .filter((f) => f[0] === `${owner}.`);
  return {
    rdata: rows
      .filter((f) => f[3] === type)
      .map((f) => f.slice(4).join(' '))
      .sort(),
    signed: rows.filter((f) => f[3] === 'RRSIG' && f[4] === type).map((f) => `${f[4]} ${f[11]}`),
  };
}

const serialOf = async (zone: string) =>
  Number((await gqlOk(`query($z: String) { domain(name: $z) { serial } }`, { z: zone })).domain.serial);

async function dsEvents(): Promise<{ zone: string; data: any }[]> {
  const page = await gqlOk(`query { events(limit: 1000, types: ["dnssec.ds_updated"]) { events { zone data } } }`);
  return page.events.events.filter((e: { zone: string }) => e.zone === KID);
}

test("a parent held here takes the child's CDS as its DS in one serial step, with a dnssec.ds_updated event; the DS-delete CDS takes it away", async () => {
  const before = await serialOf(PARENT);
  await gqlOk(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { enabled } }`, { z: KID });
  const cds = await ask(KID, 'CDS');
  expect(cds.rdata).toHaveLength(1);
  // the CDS is the child's, signed by its keys (RFC 7344 §4.1: the parent acts on a CDS that validates)
  expect(cds.signed).toEqual([`CDS ${KID}.`]);
  await verifyZone(KID);
  // the parent serves that DS, signed by the parent, one serial later (its transfer: the primary answers a query
  // for kid's DS from kid's own zone)
  const ds = rrsetIn(await verifyZone(PARENT), KID, 'DS');
  expect(ds.rdata.map(e2eDigest)).toEqual(cds.rdata.map(e2eDigest));
  expect(ds.signed).toEqual([`DS ${PARENT}.`]);
  const after = await serialOf(PARENT);
  expect(after).toBe(before + 1);
  const events = await waitFor('the DS event', async () => ((await dsEvents()).length ? await dsEvents() : undefined), 5000, 100);
  expect(events.map((e) => [e.data.parent, e.data.parentSerial, e.data.ds.length, e.data.removed.length])).toEqual([[PARENT, after, 1, 0]]);
  expect(e2eDigest(events[0].data.ds[0])).toBe(e2eDigest(cds.rdata[0]));

  // going unsigned: the CDS asks for deletion (RFC 8078 §4) and the DS leaves the parent in one step
  await gqlOk(`mutation($z: String!) { disableDnssec(zone: $z) { state } }`, { z: KID });
  expect((await ask(KID, 'CDS')).rdata).toEqual(['0 0 0 00']);
  expect(rrsetIn(await verifyZone(PARENT), KID, 'DS').rdata).toEqual([]);
  expect(await serialOf(PARENT)).toBe(after + 1);
  const gone = await waitFor('the removal event', async () => ((await dsEvents()).length === 2 ? await dsEvents() : undefined), 5000, 100);
  expect(gone[1].data).toMatchObject({ parent: PARENT, parentSerial: after + 1, ds: [], added: [] });
  expect(gone[1].data.removed).toEqual(events[0].data.ds);
}, 30_000);

/** a DS's RDATA with its digest in one piece and upper case (dig groups it) */
const e2eDigest = (rdata: string) => {
  const [tag, algorithm, type, ...digest] = rdata.split(/\s+/);
  return `${tag} ${algorithm} ${type} ${digest.join('').toUpperCase()}`;
};

test('RFC 9859: a parent elsewhere that publishes DSYNC (CDS, NOTIFY) at _dsync.<parent> is sent NOTIFY(CDS) when the CDS changes', async () => {
  // the record type reads and writes its RDATA (RFC 9859 §2.1): the mnemonic scheme taken, the number kept
  const parsed = DSYNC.parse(`CDS NOTIFY 5359 notify.${ELSEWHERE}.`, ELSEWHERE);
  expect(parsed.ok && parsed.canonical).toBe(`CDS 1 5359 notify.${ELSEWHERE}.`);
  expect(DSYNC.parse('CDS 1 70000 x.example.', ELSEWHERE).ok).toBe(false);
  // Knot serves it as the parent would
  expect((await dig(['@127.0.0.1', '-p', String(knot.port), `_dsync.${ELSEWHERE}`, 'TYPE66', '+short'])).lines).toHaveLength(1);

  await gqlOk(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { enabled } }`, { z: NOTIFIED });
  const first = await waitFor(
    'the NOTIFY(CDS)',
    () => (heard.some((h) => h.name === `${NOTIFIED}.`) ? heard.slice() : undefined),
    10_000,
    50,
  );
  // opcode NOTIFY (4), the child's name, type CDS (59)
  expect(first.filter((h) => h.name === `${NOTIFIED}.`)).toEqual([{ opcode: 4, name: `${NOTIFIED}.`, type: 59 }]);
  // going unsigned changes the CDS to the DS-delete one (RFC 8078 §4): the parent hears of it again
  await gqlOk(`mutation($z: String!) { disableDnssec(zone: $z) { state } }`, { z: NOTIFIED });
  await waitFor(
    'the second NOTIFY(CDS)',
    () => (heard.filter((h) => h.name === `${NOTIFIED}.`).length === 2 ? true : undefined),
    10_000,
    50,
  );
}, 30_000);
