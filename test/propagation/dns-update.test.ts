/**
 * DNS UPDATE (RFC 2136) with per-user TSIG keys, end to end with the clients operators use: BIND's nsupdate,
 * Knot's knsupdate, dnspython over TCP and UDP, and certbot's dns-rfc2136 plugin; a real Knot secondary serves
 * what an UPDATE wrote. The results are read back through GraphQL (the history names the TSIG key) and with
 * dig against the primary; refused updates write nothing and leave the process answering.
 */
import { randomBytes } from 'node:crypto';
import dnsPacket from 'dns-packet';
import { signMessage } from '../../src/dns/wire';
import { TestApp } from '../support/test-app';
import { startServiceWithKnot } from '../support/knot-fleet';
import { createUser, createZone, createUserKey } from '../support/fixtures';
import { KeyArg, knsupdate, nsupdate, python, rcodeOf, sendUdp, updateMessage } from '../support/update-clients';
import { dig, freePort, Knot, records, servedSerial, waitFor } from './knot';
import { loadSettings } from '../../src/config/settings';
import { logger } from '../../src/logger';
import { startDnsRole } from '../../src/primary/server';

const CATALOG = 'catalog.zk-upd.test';
const TRANSFER_KEY = { name: 'zk-transfer', secret: randomBytes(32).toString('base64') };
const ALICE = 'alice.zk-upd.test';
const BOB = 'bob.zk-upd.test';

let knot: Knot;
let app: TestApp;
let dnsPort: number;
let aliceId: string;
let aliceKey: KeyArg & { id: string };
let bobKey: KeyArg & { id: string };

async function createTsigKey(
  userId: string | null,
  name: string,
  algorithm = 'hmac-sha256',
  apiKey?: string,
): Promise<KeyArg & { id: string }> {
  const res = await app.gql(
    `mutation($input: CreateTsigKeyInput!) { createTsigKey(input: $input) { secret tsigKey { id name algorithm } } }`,
    { input: { userId, name, algorithm } },
    apiKey,
  );
  expect(res.errors).toBeUndefined();
  return { id: res.data.createTsigKey.tsigKey.id, name, algorithm, secret: res.data.createTsigKey.secret };
}

async function zoneState(zone: string) {
  const res = await app.gql(
    `query($n: String) { domain(name: $n) { serial changes(first: 1) { nodes { serialAfter author { keyId tsigKeyId keyName userId } added { owner type rdata ttl } removed { owner type rdata ttl } } } } }`,
    { n: zone },
  );
  expect(res.errors).toBeUndefined();
  return { serial: res.data.domain.serial as number, last: res.data.domain.changes.nodes[0] };
}

/** the zone's records as the primary serves them (AXFR), SOA aside, as "owner TYPE rdata" lines */
async function served(zone: string): Promise<string[]> {
  const result = await dig([
    '-y',
    `hmac-sha256:${TRANSFER_KEY.name}:${TRANSFER_KEY.secret}`,
    '@127.0.0.1',
    '-p',
    String(dnsPort),
    zone,
    'AXFR',
  ]);
  return [
    ...new Set(
      records(result)
        .filter((r) => r.type !== 'SOA')
        .map((r) => `${r.name} ${r.ttl} ${r.type} ${r.rdata}`),
    ),
  ].sort();
}

const ask = async (name: string, type: string) => {
  const result = await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', name, type]);
  return records(result)
    .filter((r) => r.type === type)
    .map((r) => r.rdata)
    .sort();
};

/**
 * the answers to many questions of one type, asked by one dig process one after another: of forty dig
 * processes started at once on a loaded machine, some time out (each waits for a core to start, send and
 * read), which says nothing about the primary (it answered forty concurrent UDP questions within 350 ms
 * under that load)
 */
const askEach = async (names: string[], type: string) => {
  const result = await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', ...names.flatMap((name) => [name, type])], 60_000);
  expect(result.stdout).not.toContain('timed out');
  const answers = records(result).filter((r) => r.type === type);
  return names.map((name) =>
    answers
      .filter((r) => r.name === `${name}.`)
      .map((r) => r.rdata)
      .sort(),
  );
};

beforeAll(async () => {
  ({
    app,
    knot,
    dnsPort,
    userId: aliceId,
  } = await startServiceWithKnot({ catalog: CATALOG, tsig: TRANSFER_KEY, user: 'alice@zk-upd.test' }));
  const bobId = await createUser(app, 'bob@zk-upd.test');
  await createZone(app, aliceId, ALICE);
  await createZone(app, bobId, BOB);
  aliceKey = await createTsigKey(aliceId, 'alice-key');
  bobKey = await createTsigKey(bobId, 'bob-key.zk-upd.test', 'hmac-sha512');
}, 90_000);

afterAll(async () => {
  await app?.close();
  await knot?.stop();
});

test('nsupdate: a batch of several changes is one change set: one serial step, one journal row naming the TSIG key', async () => {
  const before = await zoneState(ALICE);
  const run = await nsupdate(dnsPort, aliceKey, [
    `zone ${ALICE}`,
    `update add host.${ALICE} 300 A 192.0.2.10`,
    `update add host.${ALICE} 300 A 192.0.2.11`,
    `update add host.${ALICE} 300 TXT "v=spf1 -all"`,
    `update add _sip._tcp.${ALICE} 600 SRV 10 5 5060 sip.example.net.`,
    `update add ${ALICE} 3600 MX 10 mail.${ALICE}.`,
    'send',
  ]);
  expect(run).toMatchObject({ code: 0 });
  const after = await zoneState(ALICE);
  expect(after.serial).not.toBe(before.serial);
  expect(after.last.author).toEqual({ keyId: null, tsigKeyId: aliceKey.id, keyName: 'alice-key', userId: aliceId });
  expect(
    after.last.added
      .filter((r: any) => r.type !== 'SOA')
      .map((r: any) => `${r.owner} ${r.type} ${r.rdata}`)
      .sort(),
  ).toEqual([
    '@ MX 10 mail.alice.zk-upd.test.',
    '_sip._tcp SRV 10 5 5060 sip.example.net.',
    'host A 192.0.2.10',
    'host A 192.0.2.11',
    'host TXT "v=spf1 -all"',
  ]);
  // one serial step: the journal row goes from the serial before to the serial after
  const history = await app.gql(`query($n: String) { domain(name: $n) { changes(first: 2) { nodes { serialBefore serialAfter } } } }`, {
    n: ALICE,
  });
  expect(history.data.domain.changes.nodes[0]).toEqual({ serialBefore: before.serial, serialAfter: after.serial });
  expect(await ask(`host.${ALICE}`, 'A')).toEqual(['192.0.2.10', '192.0.2.11']);
  expect(await ask(`_sip._tcp.${ALICE}`, 'SRV')).toEqual(['10 5 5060 sip.example.net.']);
});

// how soon Knot serves it is bench/propagation.js's measure (API write to Knot serving; an UPDATE's commit
// takes the same path from the journal on), not a pass mark here
test('a real Knot secondary serves an UPDATE', async () => {
  await waitFor('Knot to serve the zone', async () =>
    (await servedSerial(knot.port, ALICE)) === (await zoneState(ALICE)).serial ? true : undefined,
  );
  const run = await nsupdate(dnsPort, aliceKey, [`zone ${ALICE}`, `update add fast.${ALICE} 300 A 192.0.2.99`, 'send']);
  expect(run.code).toBe(0);
  const { serial } = await zoneState(ALICE);
  await waitFor('Knot to serve the updated serial', async () => ((await servedSerial(knot.port, ALICE)) === serial ? true : undefined));
  const answer = await dig(['@127.0.0.1', '-p', String(knot.port), '+norec', `fast.${ALICE}`, 'A']);
  expect(records(answer).map((r) => r.rdata)).toEqual(['192.0.2.99']);
});

test('nsupdate: prerequisites that hold apply the update; one that fails answers its RCODE and writes nothing', async () => {
  const holds = await nsupdate(dnsPort, aliceKey, [
    `zone ${ALICE}`,
    `prereq nxdomain new.${ALICE}`,
    `prereq yxdomain host.${ALICE}`,
    `prereq yxrrset host.${ALICE} A`,
    `prereq nxrrset host.${ALICE} AAAA`,
    `prereq yxrrset host.${ALICE} A 192.0.2.11`,
    `prereq yxrrset host.${ALICE} A 192.0.2.10`,
    `update add new.${ALICE} 300 AAAA 2001:db8::1`,
    'send',
  ]);
  expect(holds).toMatchObject({ code: 0 });
  expect(await ask(`new.${ALICE}`, 'AAAA')).toEqual(['2001:db8::1']);

  const cases: [string, string][] = [
    [`prereq nxdomain host.${ALICE}`, 'YXDOMAIN'],
    [`prereq yxdomain nothing.${ALICE}`, 'NXDOMAIN'],
    [`prereq nxrrset host.${ALICE} A`, 'YXRRSET'],
    [`prereq yxrrset host.${ALICE} MX`, 'NXRRSET'],
    // value-dependent: the RRset must be exactly the one given (RFC 2136 §3.2.3)
    [`prereq yxrrset host.${ALICE} A 192.0.2.10`, 'NXRRSET'],
  ];
  for (const [prereq, rcode] of cases) {
    const before = await zoneState(ALICE);
    const run = await nsupdate(dnsPort, aliceKey, [`zone ${ALICE}`, prereq, `update add refused.${ALICE} 300 A 192.0.2.1`, 'send']);
    expect(run.code).not.toBe(0);
    expect(run.stdout + run.stderr).toContain(rcode);
    expect((await zoneState(ALICE)).serial).toBe(before.serial);
  }
  expect(await ask(`refused.${ALICE}`, 'A')).toEqual([]);
});

test('nsupdate: the delete forms (one RR, an RRset, a name) and a CNAME conflict refused', async () => {
  await nsupdate(dnsPort, aliceKey, [
    `zone ${ALICE}`,
    `update add gone.${ALICE} 300 A 192.0.2.20`,
    `update add gone.${ALICE} 300 TXT "x"`,
    `update add rr.${ALICE} 300 A 192.0.2.21`,
    `update add rr.${ALICE} 300 A 192.0.2.22`,
    'send',
  ]);
  const run = await nsupdate(dnsPort, aliceKey, [
    `zone ${ALICE}`,
    `update delete rr.${ALICE} A 192.0.2.21`,
    `update delete gone.${ALICE}`,
    `update delete host.${ALICE} TXT`,
    // the apex keeps its SOA and NS whatever is asked (RFC 2136 §3.4.2.3)
    `update delete ${ALICE} NS`,
    `update delete ${ALICE} SOA`,
    'send',
  ]);
  expect(run).toMatchObject({ code: 0 });
  expect(await ask(`rr.${ALICE}`, 'A')).toEqual(['192.0.2.22']);
  expect(await ask(`gone.${ALICE}`, 'A')).toEqual([]);
  expect(await ask(`gone.${ALICE}`, 'TXT')).toEqual([]);
  expect(await ask(`host.${ALICE}`, 'TXT')).toEqual([]);
  expect((await ask(ALICE, 'NS')).length).toBeGreaterThan(0);
  expect((await ask(ALICE, 'SOA')).length).toBe(1);

  const before = await zoneState(ALICE);
  const conflict = await nsupdate(dnsPort, aliceKey, [
    `zone ${ALICE}`,
    `update add extra.${ALICE} 300 A 192.0.2.30`,
    `update add host.${ALICE} 300 CNAME elsewhere.example.net.`,
    'send',
  ]);
  expect(conflict.code).not.toBe(0);
  expect(conflict.stdout + conflict.stderr).toContain('REFUSED');
  expect((await zoneState(ALICE)).serial).toBe(before.serial);
  expect(await ask(`extra.${ALICE}`, 'A')).toEqual([]);
});

test('an added RR gives its RRset its TTL, one equal to an RR there replaces it, a CNAME its CNAME; the apex keeps its last NS', async () => {
  await nsupdate(dnsPort, aliceKey, [
    `zone ${ALICE}`,
    `update add ttl.${ALICE} 300 A 192.0.2.41`,
    `update add ttl.${ALICE} 300 A 192.0.2.42`,
    `update add alias.${ALICE} 300 CNAME first.example.net.`,
    'send',
  ]);
  const at = (lines: string[], owner: string) => lines.filter((line) => line.startsWith(`${owner}.${ALICE}. `));
  const run = await nsupdate(dnsPort, aliceKey, [
    `zone ${ALICE}`,
    // RFC 2181 §5.2: the RRs of an RRset share one TTL; the last added RR's is the RRset's
    `update add ttl.${ALICE} 900 A 192.0.2.43`,
    `update add alias.${ALICE} 300 CNAME second.example.net.`,
    'send',
  ]);
  expect(run).toMatchObject({ code: 0 });
  let lines = await served(ALICE);
  expect(at(lines, 'ttl')).toEqual([41, 42, 43].map((n) => `ttl.${ALICE}. 900 A 192.0.2.${n}`));
  expect(at(lines, 'alias')).toEqual([`alias.${ALICE}. 300 CNAME second.example.net.`]);
  // the RRset's RRs went and came back with the new TTL, the old CNAME went (and the SOA, as with every serial step)
  const removed = (await zoneState(ALICE)).last.removed as { owner: string; type: string; rdata: string; ttl: number }[];
  expect(removed.map((r) => `${r.owner} ${r.ttl} ${r.type} ${r.rdata}`).sort()).toEqual(
    expect.arrayContaining(['alias 300 CNAME first.example.net.', 'ttl 300 A 192.0.2.41', 'ttl 300 A 192.0.2.42']),
  );
  expect(removed.filter((r) => r.type !== 'SOA')).toHaveLength(3);

  // an RR equal to one there (RFC 2136 §3.4.2.2): its TTL becomes the RRset's, no RR is added
  expect(await nsupdate(dnsPort, aliceKey, [`zone ${ALICE}`, `update add ttl.${ALICE} 1800 A 192.0.2.42`, 'send'])).toMatchObject({
    code: 0,
  });
  lines = await served(ALICE);
  expect(at(lines, 'ttl')).toEqual([41, 42, 43].map((n) => `ttl.${ALICE}. 1800 A 192.0.2.${n}`));

  // §3.4.2.4: each NS of the apex may go but the last, whatever the update's order
  const ns = await ask(ALICE, 'NS');
  expect(
    await nsupdate(dnsPort, aliceKey, [`zone ${ALICE}`, ...ns.map((name) => `update delete ${ALICE} NS ${name}`), 'send']),
  ).toMatchObject({ code: 0 });
  expect(await ask(ALICE, 'NS')).toEqual([ns[ns.length - 1]]);
});

test('SOA updates are taken only when the serial rises (RFC 2136 §3.4.2.2)', async () => {
  const { serial } = await zoneState(ALICE);
  const lower = await nsupdate(dnsPort, aliceKey, [
    `zone ${ALICE}`,
    `update add ${ALICE} 3600 SOA ns1.example.net. admin.example.net. ${serial - 1} 3600 600 86400 300`,
    'send',
  ]);
  expect(lower.code).toBe(0);
  expect((await zoneState(ALICE)).serial).toBe(serial);
  const higher = serial + 1000;
  const raised = await nsupdate(dnsPort, aliceKey, [
    `zone ${ALICE}`,
    `update add ${ALICE} 3600 SOA ns1.example.net. hostmaster.${ALICE}. ${higher} 7200 600 86400 300`,
    'send',
  ]);
  expect(raised.code).toBe(0);
  expect((await zoneState(ALICE)).serial).toBe(higher);
  expect(await ask(ALICE, 'SOA')).toEqual([`ns1.example.net. hostmaster.${ALICE}. ${higher} 7200 600 86400 300`]);
});

test("knsupdate: add, delete, prerequisites; another user's zone is NOTAUTH", async () => {
  const add = await knsupdate(dnsPort, aliceKey, [
    `zone ${ALICE}.`,
    `origin ${ALICE}.`,
    'add knot 300 A 192.0.2.40',
    'add knot 300 AAAA 2001:db8::40',
    'send',
  ]);
  expect(add).toMatchObject({ code: 0 });
  expect(await ask(`knot.${ALICE}`, 'AAAA')).toEqual(['2001:db8::40']);
  const del = await knsupdate(dnsPort, aliceKey, [`zone ${ALICE}.`, `origin ${ALICE}.`, 'prereq yxrrset knot A', 'del knot AAAA', 'send']);
  expect(del).toMatchObject({ code: 0 });
  expect(await ask(`knot.${ALICE}`, 'AAAA')).toEqual([]);
  const failed = await knsupdate(dnsPort, aliceKey, [
    `zone ${ALICE}.`,
    `origin ${ALICE}.`,
    'prereq nxdomain knot',
    'add knot 300 TXT "no"',
    'send',
  ]);
  expect(failed.code).not.toBe(0);
  expect(failed.stdout + failed.stderr).toContain('YXDOMAIN');
  const before = await zoneState(BOB);
  const foreign = await knsupdate(dnsPort, aliceKey, [`zone ${BOB}.`, `origin ${BOB}.`, 'add intruder 300 A 192.0.2.66', 'send']);
  expect(foreign.code).not.toBe(0);
  expect(foreign.stdout + foreign.stderr).toContain('NOTAUTH');
  expect((await zoneState(BOB)).serial).toBe(before.serial);
});

test('dnspython: dns.update.Update over TCP and UDP, hmac-sha512', async () => {
  const script = `
import sys, dns.update, dns.query, dns.tsigkeyring, dns.rcode, dns.tsig
zone, port, name, secret, transport, owner = sys.argv[1:7]
keyring = dns.tsigkeyring.from_text({name: secret})
update = dns.update.Update(zone, keyring=keyring, keyalgorithm=dns.tsig.HMAC_SHA512)
update.replace(owner, 300, 'TXT', '"' + transport + '"')
send = dns.query.tcp if transport == 'tcp' else dns.query.udp
response = send(update, '127.0.0.1', port=int(port), timeout=5)
print(dns.rcode.to_text(response.rcode()))
`;
  for (const transport of ['tcp', 'udp']) {
    const run = await python(script, [BOB, String(dnsPort), bobKey.name, bobKey.secret, transport, `py-${transport}`]);
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('NOERROR');
    expect(await ask(`py-${transport}.${BOB}`, 'TXT')).toEqual([`"${transport}"`]);
  }
  const last = await zoneState(BOB);
  expect(last.last.author).toMatchObject({ tsigKeyId: bobKey.id, keyName: bobKey.name });
});

test("certbot's dns-rfc2136 plugin adds and removes the _acme-challenge TXT record", async () => {
  const script = `
import sys, dns.tsig
from certbot_dns_rfc2136._internal.dns_rfc2136 import _RFC2136Client
port, name, secret, record, action = sys.argv[1:6]
client = _RFC2136Client('127.0.0.1', int(port), name, secret, dns.tsig.HMAC_SHA256, 10)
if action == 'add':
    client.add_txt_record(record, 'challenge-token-123', 60)
else:
    client.del_txt_record(record, 'challenge-token-123')
print('done')
`;
  const record = `_acme-challenge.www.${ALICE}`;
  const added = await python(script, [String(dnsPort), aliceKey.name, aliceKey.secret, record, 'add']);
  expect(added.stdout.trim()).toBe('done');
  expect(await ask(record, 'TXT')).toEqual(['"challenge-token-123"']);
  const removed = await python(script, [String(dnsPort), aliceKey.name, aliceKey.secret, record, 'del']);
  expect(removed.stdout.trim()).toBe('done');
  expect(await ask(record, 'TXT')).toEqual([]);
});

const rawUpdate = (message: Buffer) => sendUdp(dnsPort, message);

test('refused: wrong secret, revoked key, unsigned, another user, truncated and malformed messages; nothing written, the process unharmed', async () => {
  const before = await served(ALICE);
  const serial = (await zoneState(ALICE)).serial;
  const add = [`zone ${ALICE}`, `update add bad.${ALICE} 300 A 192.0.2.50`, 'send'];

  const wrongSecret = await nsupdate(dnsPort, { ...aliceKey, secret: randomBytes(32).toString('base64') }, add);
  expect(wrongSecret.code).not.toBe(0);
  expect(wrongSecret.stdout + wrongSecret.stderr).toMatch(/NOTAUTH|BADSIG|tsig verify failure/i);

  const unsigned = await nsupdate(dnsPort, undefined, add);
  expect(unsigned.code).not.toBe(0);
  expect(unsigned.stdout + unsigned.stderr).toContain('REFUSED');

  const foreign = await nsupdate(dnsPort, bobKey, add);
  expect(foreign.stdout + foreign.stderr).toContain('NOTAUTH');

  // a name outside the zone (RFC 2136 §3.4.1.3)
  const notZone = await nsupdate(dnsPort, aliceKey, [`zone ${ALICE}`, `update add bad.${BOB} 300 A 192.0.2.50`, 'send']);
  expect(notZone.stdout + notZone.stderr).toContain('NOTZONE');
  // an escaped dot is inside a label (RFC 1035 §5.1): `www\.<zone>` ends with the zone's text but is one label
  // above it, so it is outside the zone too
  const escapedDot = await nsupdate(dnsPort, aliceKey, [`zone ${ALICE}`, `update add www\\.${ALICE} 300 TXT "x"`, 'send']);
  expect(escapedDot.stdout + escapedDot.stderr).toContain('NOTZONE');

  // a zone nobody has here
  const unknownZone = await nsupdate(dnsPort, aliceKey, [
    'zone nowhere.zk-upd.test',
    'update add x.nowhere.zk-upd.test 300 A 192.0.2.50',
    'send',
  ]);
  expect(unknownZone.stdout + unknownZone.stderr).toContain('NOTAUTH');

  // the transfer key is not an update key
  const transfer = await nsupdate(dnsPort, { algorithm: 'hmac-sha256', ...TRANSFER_KEY }, add);
  expect(transfer.stdout + transfer.stderr).toContain('REFUSED');

  // a record the model refuses: REFUSED; RDATA that cannot be read: FORMERR
  const key = { name: aliceKey.name, algorithm: 'hmac-sha256' as const, secret: Buffer.from(aliceKey.secret, 'base64') };
  const badMx = signMessage(
    updateMessage(ALICE, [{ name: `mx.${ALICE}`, type: 'MX', class: 'IN', ttl: 300, data: { preference: 5, exchange: '.' } }]),
    key,
  ).message;
  expect(rcodeOf(await rawUpdate(badMx))).toBe(5);
  const shortA = updateMessage(ALICE, [
    { name: `short.${ALICE}`, type: 'UNKNOWN_1', class: 'IN', ttl: 300, data: Buffer.from([192, 0, 2]) },
  ]);
  expect(rcodeOf(await rawUpdate(signMessage(shortA, key).message))).toBe(1);
  // a meta type as an update (RFC 2136 §3.4.1.2): FORMERR
  const axfr = updateMessage(ALICE, [{ name: `m.${ALICE}`, type: 'AXFR', class: 'IN', ttl: 300, data: Buffer.alloc(0) }]);
  expect(rcodeOf(await rawUpdate(signMessage(axfr, key).message))).toBe(1);
  // truncated: the header promises an update the message does not hold
  const truncated = signMessage(
    updateMessage(ALICE, [{ name: `t.${ALICE}`, type: 'A', class: 'IN', ttl: 300, data: '192.0.2.1' }]),
    key,
  ).message;
  expect(rcodeOf(await rawUpdate(truncated.subarray(0, truncated.length - 40)))).toBe(1);
  expect(await rawUpdate(randomBytes(9))).toBeUndefined();

  const revoked = await createTsigKey(aliceId, 'short-lived');
  expect((await nsupdate(dnsPort, revoked, [`zone ${ALICE}`, `update add lived.${ALICE} 300 A 192.0.2.51`, 'send'])).code).toBe(0);
  const revoke = await app.gql(`mutation($id: ID!) { revokeTsigKey(id: $id) { revokedAt } }`, { id: revoked.id });
  expect(revoke.data.revokeTsigKey.revokedAt).toBeTruthy();
  const afterRevoke = await zoneState(ALICE);
  const late = await nsupdate(dnsPort, revoked, [`zone ${ALICE}`, `update add late.${ALICE} 300 A 192.0.2.52`, 'send']);
  expect(late.code).not.toBe(0);
  expect(late.stdout + late.stderr).toMatch(/NOTAUTH|BADKEY|tsig/i);
  expect((await zoneState(ALICE)).serial).toBe(afterRevoke.serial);

  // nothing but the one accepted update was written, and the primary still works
  expect((await served(ALICE)).filter((line) => !before.includes(line))).toEqual([`lived.${ALICE}. 300 A 192.0.2.51`]);
  expect(serial).not.toBe(afterRevoke.serial);
  const ok = await nsupdate(dnsPort, aliceKey, [`zone ${ALICE}`, `update add after.${ALICE} 300 A 192.0.2.53`, 'send']);
  expect(ok.code).toBe(0);
});

test('TSIG keys through GraphQL and REST: a user key manages its own, the secret is shown once, admin keys need the admin', async () => {
  const userApiKey = await createUserKey(app, aliceId);
  const own = await app.http
    .post('/api/tsigkey/add')
    .set('X-API-Key', userApiKey)
    .send({ name: 'rest-key', user_id: Number(aliceId), algorithm: 'hmac-sha384' });
  expect(own.status).toBe(201);
  expect(own.body).toMatchObject({ name: 'rest-key', algorithm: 'hmac-sha384', user_id: aliceId, revoked_at: null });
  expect(Buffer.from(own.body.secret, 'base64')).toHaveLength(48);
  const listed = await app.http.get('/api/tsigkey/list').set('X-API-Key', userApiKey);
  expect(listed.status).toBe(200);
  expect(listed.body.map((k: any) => k.name)).toEqual(expect.arrayContaining(['alice-key', 'rest-key']));
  expect(listed.body.map((k: any) => k.name)).not.toContain(bobKey.name);
  expect(JSON.stringify(listed.body)).not.toContain(aliceKey.secret);
  const admin = await app.http.post('/api/tsigkey/add').set('X-API-Key', userApiKey).send({ name: 'admin-try' });
  expect(admin.status).toBe(403);
  const duplicate = await app.http
    .post('/api/tsigkey/add')
    .set('X-API-Key', userApiKey)
    .send({ name: 'rest-key', user_id: Number(aliceId) });
  expect(duplicate.status).toBe(409);
  expect(duplicate.body.error).toBe('DUPLICATE_TSIG_KEY');
  const badAlgorithm = await app.http
    .post('/api/tsigkey/add')
    .set('X-API-Key', userApiKey)
    .send({ name: 'md5-key', user_id: Number(aliceId), algorithm: 'hmac-md5' });
  expect(badAlgorithm.status).toBe(422);
  expect(JSON.stringify(badAlgorithm.body)).toContain('algorithm');
  expect(listed.headers.etag).toBeDefined();
  // the version may move where the answer does not (a key's use is written after its answer: src/repositories/
  // data-version.ts), which costs a full answer, and such a write can land between any two requests: once the
  // version rests, the list asked again with the ETag it gave is a 304
  const list = () => app.http.get('/api/tsigkey/list').set('X-API-Key', userApiKey);
  const revalidated = await waitFor('a 304 for the list asked with the ETag it gave', async () => {
    const etag = (await list()).headers.etag;
    return (await list().set('If-None-Match', etag)).status === 304 ? etag : undefined;
  });
  expect(revalidated).toMatch(/^(W\/)?"/);
  const revoked = await app.http.post(`/api/tsigkey/revoke/${own.body.id}`).set('X-API-Key', userApiKey);
  expect(revoked.status).toBe(200);
  expect(revoked.body.revoked_at).toEqual(expect.any(String));
  // the list's version follows the keys (a revoked key is never shown as active from a cache)
  const relisted = await app.http.get('/api/tsigkey/list').set('X-API-Key', userApiKey).set('If-None-Match', listed.headers.etag);
  expect(relisted.status).toBe(200);
  expect(relisted.body.find((k: any) => k.name === 'rest-key').revoked_at).toEqual(expect.any(String));
  const othersKey = await app.http.post(`/api/tsigkey/revoke/${bobKey.id}`).set('X-API-Key', userApiKey);
  expect(othersKey.status).toBe(404);

  // an admin TSIG key updates any zone
  const adminKey = await createTsigKey(null, 'admin-key.zk-upd.test');
  const run = await nsupdate(dnsPort, adminKey, [`zone ${BOB}`, `update add by-admin.${BOB} 300 A 192.0.2.70`, 'send']);
  expect(run).toMatchObject({ code: 0 });
  expect((await zoneState(BOB)).last.author).toMatchObject({ tsigKeyId: adminKey.id, userId: null });
});

test('concurrent UPDATEs of one zone: each its own serial step and journal row, a refused one alone, none lost', async () => {
  const key = { name: aliceKey.name, algorithm: 'hmac-sha256' as const, secret: Buffer.from(aliceKey.secret, 'base64') };
  const before = await zoneState(ALICE);
  // every fourth carries a prerequisite that fails: "the apex is not in use" (RFC 2136 §2.4.5: class NONE,
  // type ANY, which dns-packet cannot write: it is written as class ANY and the class octets set to 254)
  const messages = Array.from({ length: 40 }, (_, i) => {
    const add = { name: `burst${i}.${ALICE}`, type: 'A', class: 'IN', ttl: 300, data: `198.51.100.${i + 1}` };
    const refused = i % 4 === 3;
    const message = dnsPacket.encode({
      id: i,
      type: 'query',
      flags: 5 << 11,
      questions: [{ name: ALICE, type: 'SOA', class: 'IN' }],
      answers: refused ? [{ name: ALICE, type: 'ANY', class: 'ANY', ttl: 0, data: Buffer.alloc(0) } as any] : [],
      authorities: [add],
    } as any);
    if (refused) {
      const nameOctets = ALICE.length + 2;
      message.writeUInt16BE(254, 12 + nameOctets + 4 + nameOctets + 2);
    }
    return signMessage(message, key).message;
  });
  const rcodes = await Promise.all(messages.map((m) => rawUpdate(m).then(rcodeOf)));
  expect(rcodes).toEqual(messages.map((_, i) => (i % 4 === 3 ? 6 : 0)));
  const history = await app.gql(
    `query($n: String) { domain(name: $n) { serial changes(first: 40) { nodes { serialBefore serialAfter added { owner type } } } } }`,
    { n: ALICE },
  );
  const rows = history.data.domain.changes.nodes.filter((row: any) => row.added.some((r: any) => r.owner.startsWith('burst'))).reverse();
  expect(rows).toHaveLength(30);
  // a chain of serial steps from the serial before the burst, one record each
  expect(rows[0].serialBefore).toBe(before.serial);
  rows.forEach((row: any, i: number) => {
    if (i > 0) expect(row.serialBefore).toBe(rows[i - 1].serialAfter);
    expect(row.added.filter((r: any) => r.type === 'A')).toHaveLength(1);
  });
  expect(history.data.domain.serial).toBe(rows[rows.length - 1].serialAfter);
  const served = (
    await askEach(
      messages.map((_, i) => `burst${i}.${ALICE}`),
      'A',
    )
  ).map((a) => a.length);
  expect(served).toEqual(messages.map((_, i) => (i % 4 === 3 ? 0 : 1)));
});

test('UPDATE_ALLOW: an update from an address outside it is REFUSED before its key is read', async () => {
  const port = await freePort();
  const settings = loadSettings({
    DATABASE_URL: app.settings.databaseUrl!,
    DNS_LISTEN: `127.0.0.1:${port}`,
    UPDATE_ALLOW: '10.9.9.9',
    CATALOG_ZONE: CATALOG,
  });
  const { services, database } = app.service;
  const primary = await startDnsRole(settings, database.db, logger, {
    findKey: (db, name) => services.tsigKeys.findActive(db, name),
    apply: (db, principal, request) => services.dnsUpdates.apply({ db, principal }, request),
  });
  try {
    const before = await zoneState(ALICE);
    const run = await nsupdate(port, aliceKey, [`zone ${ALICE}`, `update add outside.${ALICE} 300 A 192.0.2.77`, 'send']);
    expect(run.code).not.toBe(0);
    expect(run.stdout + run.stderr).toContain('REFUSED');
    expect((await zoneState(ALICE)).serial).toBe(before.serial);
    // queries are still answered there
    expect((await dig(['@127.0.0.1', '-p', String(port), ALICE, 'SOA'])).status).toBe('NOERROR');
  } finally {
    await primary.stop();
  }
});
