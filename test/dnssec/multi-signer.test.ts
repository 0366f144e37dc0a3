/**
 * Multi-signer DNSSEC (RFC 8901 model 2), the way a signed zone moves between providers: a Knot signer is the
 * other provider (its own KSK and ZSK made by keymgr, automatic signing, and our ZSK and KSK imported as
 * public-only keys with `keymgr import-pub`, which Knot 3.2 publishes in its DNSKEY RRset); our zone reads the
 * other signer's keys by asking its server (`addForeignDnskeys(fetchFrom)`). Each provider's copy is served by
 * its own Knot secondary (ours by catalog from our primary, theirs NOTIFYed by the Knot signer). Both copies pass
 * dnssec-verify, ldns-verify-zone and kzonecheck; the parent held here gets both KSKs' DS, as our CDS names both.
 * A validating Unbound whose trust anchor is that DS set asks one provider's server, then the other's, in turn,
 * with the DNSKEY RRset of the last still in its cache: each answer is proven (AD), signed by the ZSK of the
 * provider that gave it. Moving in ends by removing the other signer's keys: out of the DNSKEY RRset, the CDS and
 * the parent's DS, with a `dnssec.foreign_keys_changed` event each time. Moving out is walked too: their keys
 * here again, both DS, the resolver asking their server alone, our DS withdrawn (`withdrawDnssecDs`: the parent
 * held here, signed, serves their DS alone), our keys deleted at the other signer, and the zone unsigned here (the
 * parent keeps their DS): a resolver anchored at the parent's DS proves every answer of the other provider.
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TestApp } from '../support/test-app';
import { startServiceWithKnot } from '../support/knot-fleet';
import { dig, findBinary, freePort, records, waitFor } from '../propagation/knot';
import { startUnbound, Unbound } from '../support/unbound';
import { pollValidator, transferZone, verifySignedZone } from '../support/signed-zone-checks';
import { Knot, servedSerial } from '../propagation/knot';
import { DNSSEC_ALGORITHMS } from '../../src/dns/dnssec/algorithms';
import { dnskeyOf } from '../../src/dns/dnssec/keys';
import { DNSKEY } from '../../src/dns/record-types/dnskey';

const run = promisify(execFile);
const PARENT = 'zk-ms.test';
const ZONE = `moving.${PARENT}`;
const KEY_NAME = 'zk-ms-key';
const SECRET = randomBytes(32).toString('base64');
const CATALOG = 'catalog.zk-ms.test';

const zoneText = (serial: number) => `$ORIGIN ${ZONE}.
@ 300 IN SOA ns1 hostmaster ${serial} 7200 3600 1209600 300
@ 300 IN NS ns1
ns1 300 IN A 192.0.2.1
www 300 IN A 192.0.2.2
`;

let app: TestApp;
let dnsPort: number;
let dir: string;
let signer: Signer | undefined;
/** our provider's server: a Knot secondary of our primary */
let ours: Knot;
/** the other provider's server: a Knot secondary of the Knot signer */
let theirs: { port: number; stop(): Promise<void> } | undefined;
let unbound: Unbound | undefined;
/** what the move-in test leaves for the move-out test: the DS of each provider's KSK, our key tags, each ZSK's tag */
let moveOut: { ourDs: string; theirDs: string; ourTags: number[]; ourZsk: number; theirZsk: number } | undefined;

interface Signer {
  port: number;
  tags: number[];
  /** keymgr on the signer's KASP database, for the zone */
  keymgr(args: string[]): Promise<{ stdout: string }>;
  /** knotc on the running signer */
  knotc(args: string[]): Promise<{ stdout: string }>;
  stop(): Promise<void>;
  log(): string;
}

async function gqlOk<T = any>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await app.gql<T>(query, variables);
  expect(res.errors).toBeUndefined();
  return res.data as T;
}

const STATUS = `ds dnskeys foreignKeys { id role keyTag dnskey ds source fetchedFrom }`;

interface Status {
  ds: string[];
  dnskeys: string[];
  foreignKeys: { id: string; role: string; keyTag: number; dnskey: string; ds: string[]; source: string; fetchedFrom: string | null }[];
}

const statusOf = async (): Promise<Status> =>
  (await gqlOk(`query($z: String) { domain(name: $z) { dnssec { ${STATUS} } } }`, { z: ZONE })).domain.dnssec;

/** the zone's DS RRset as the parent held here holds it */
async function parentDs(): Promise<string[]> {
  const data = await gqlOk(`query($z: String) { domain(name: $z) { records(owner: "moving") { type rdata } } }`, { z: PARENT });
  return data.domain.records
    .filter((r: any) => r.type === 'DS')
    .map((r: any) => r.rdata)
    .sort();
}

/** the key tags of an apex RRset of a zone file's text (DNSKEY: computed from the RDATA; CDS: its first field) */
function apexTags(text: string, type: 'DNSKEY' | 'CDS'): number[] {
  return text
    .split('\n')
    .map((line) => line.split(/\s+/))
    .filter((f) => f[0] === `${ZONE}.` && f[3] === type)
    .map((f) => {
      if (type === 'CDS') return Number(f[4]);
      const parsed = DNSKEY.parse(f.slice(4).join(' '), ZONE);
      if (!parsed.ok) throw new Error(`DNSKEY does not parse: ${f.join(' ')}`);
      return tagOf(parsed.value);
    })
    .sort((a, b) => a - b);
}

function tagOf(value: { flags: number; protocol: number; algorithm: number; key: Buffer }): number {
  const rdata = Buffer.concat([Buffer.from([value.flags >> 8, value.flags & 0xff, value.protocol, value.algorithm]), value.key]);
  let sum = 0;
  for (let i = 0; i < rdata.length; i++) sum += i & 1 ? rdata[i] : rdata[i] << 8;
  return (sum + ((sum >> 16) & 0xffff)) & 0xffff;
}

/**
 * The other provider: knotd signing the zone itself (RFC 8901 model 2) with its keys made by keymgr, and our
 * DNSKEYs imported public-only (keymgr import-pub, Knot 3.2), which it publishes and never signs with.
 */
async function startKnotSigner(ourDnskeys: string[], secondaryPort: number): Promise<Signer> {
  const home = join(dir, 'knot-signer');
  for (const sub of ['run', 'db', 'keys', 'pub']) mkdirSync(join(home, sub), { recursive: true });
  const port = await freePort();
  const file = join(home, 'zone');
  writeFileSync(file, zoneText(100));
  const config = join(home, 'knot.conf');
  writeFileSync(
    config,
    `server:
    rundir: "${home}/run"
    listen: 127.0.0.1@${port}
    udp-workers: 1
    tcp-workers: 1
    background-workers: 1
database:
    storage: "${home}/db"
log:
  - target: stderr
    any: info
keystore:
  - id: files
    config: "${home}/keys"
policy:
  - id: multi-signer
    algorithm: ecdsap256sha256
    manual: on
    keystore: files
    cds-cdnskey-publish: none
remote:
  - id: their-secondary
    address: 127.0.0.1@${secondaryPort}
acl:
  - id: loopback-transfer
    address: 127.0.0.0/8
    action: transfer
zone:
  - domain: ${ZONE}.
    file: "${file}"
    notify: their-secondary
    dnssec-signing: on
    dnssec-policy: multi-signer
    zonefile-load: whole
    zonefile-sync: -1
    journal-content: none
    acl: loopback-transfer
`,
  );
  const keymgr = (args: string[]) => run(findBinary('keymgr'), ['-c', config, `${ZONE}.`, ...args]);
  await keymgr(['generate', 'algorithm=13', 'ksk=yes']);
  await keymgr(['generate', 'algorithm=13', 'ksk=no']);
  for (const [i, rdata] of ourDnskeys.entries()) {
    const pub = join(home, 'pub', `ours-${i}.key`);
    writeFileSync(pub, `${ZONE}. 3600 IN DNSKEY ${rdata}\n`);
    await keymgr(['import-pub', pub]);
  }
  const listed = (await keymgr(['list'])).stdout;
  // its own keys: those with a private part (the imported ones are listed "public-only")
  const tags = listed
    .split('\n')
    .filter((line) => line.trim() && !line.includes('public-only'))
    .map((line) => Number(line.trim().split(/\s+/)[1]))
    .sort((a, b) => a - b);
  let output = '';
  const child: ChildProcess = spawn(findBinary('knotd'), ['-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  let exited = false;
  child.on('exit', () => (exited = true));
  await waitFor(
    'the Knot signer to serve the zone signed',
    async () => {
      if (exited) throw new Error(`knotd exited: ${output}`);
      const answer = await dig(['@127.0.0.1', '-p', String(port), '+norec', '+dnssec', `${ZONE}.`, 'DNSKEY']).catch(() => undefined);
      return answer?.status === 'NOERROR' && /\sRRSIG\s+DNSKEY\s/.test(answer.stdout) ? true : undefined;
    },
    15_000,
    100,
  );
  return {
    port,
    tags,
    keymgr,
    knotc: (args: string[]) => run(findBinary('knotc'), ['-c', config, ...args]),
    log: () => output,
    async stop() {
      if (!exited) {
        child.kill('SIGTERM');
        await waitFor('knotd to exit', async () => (exited ? true : undefined), 10_000, 50).catch(() => child.kill('SIGKILL'));
      }
    },
  };
}

/** the other provider's own server: knotd as a plain secondary of the signer, NOTIFYed by it, transfers allowed to loopback */
async function startTheirSecondary(port: number, signerPort: number): Promise<{ port: number; stop(): Promise<void> }> {
  const home = join(dir, 'their-secondary');
  for (const sub of ['run', 'db', 'zones']) mkdirSync(join(home, sub), { recursive: true });
  const config = join(home, 'knot.conf');
  writeFileSync(
    config,
    `server:
    rundir: "${home}/run"
    listen: 127.0.0.1@${port}
    udp-workers: 1
    tcp-workers: 1
    background-workers: 1
database:
    storage: "${home}/db"
log:
  - target: stderr
    any: info
remote:
  - id: signer
    address: 127.0.0.1@${signerPort}
acl:
  - id: from-signer
    address: 127.0.0.1
    action: notify
  - id: to-tests
    address: 127.0.0.1
    action: transfer
zone:
  - domain: ${ZONE}.
    storage: "${home}/zones"
    master: signer
    acl: [from-signer, to-tests]
    zonefile-sync: -1
    zonefile-load: none
    journal-content: none
    refresh-min-interval: 2
    retry-min-interval: 1
    retry-max-interval: 3
`,
  );
  let output = '';
  const child: ChildProcess = spawn(findBinary('knotd'), ['-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  let exited = false;
  child.on('exit', () => (exited = true));
  await waitFor(
    'the other provider’s secondary to serve the zone',
    async () => {
      if (exited) throw new Error(`knotd exited: ${output}`);
      return (await servedSerial(port, ZONE)) !== undefined ? true : undefined;
    },
    15_000,
    100,
  );
  return {
    port,
    async stop() {
      if (!exited) {
        child.kill('SIGTERM');
        await waitFor('knotd to exit', async () => (exited ? true : undefined), 10_000, 50).catch(() => child.kill('SIGKILL'));
      }
    },
  };
}

/** a server's copy of the zone by AXFR (no TSIG: the Knot servers here allow loopback), as zone file text */
async function axfr(port: number): Promise<string> {
  const answer = await dig(['@127.0.0.1', '-p', String(port), `${ZONE}.`, 'AXFR', '+nocomments', '+nostats']);
  return `${answer.lines.slice(0, -1).join('\n')}\n`;
}

/** a server's copy through the three verifiers, kept as `<name>.zone`; answers its text */
async function verifiedCopy(port: number, name: string): Promise<string> {
  const text = await axfr(port);
  const file = join(dir, `${name}.zone`);
  writeFileSync(file, text);
  await verifySignedZone(ZONE, file);
  return text;
}

/** waits until our Knot secondary serves the zone (or the parent) at our primary's serial */
async function oursCaughtUp(zone = ZONE): Promise<void> {
  const serial = (await transferZone(dnsPort, { name: KEY_NAME, secret: SECRET }, zone)).serial;
  await waitFor(
    `our secondary at serial ${serial} of ${zone}`,
    async () => ((await servedSerial(ours.port, zone)) === serial ? true : undefined),
    30_000,
  );
}

/** a DS RDATA as one string: tag, algorithm, digest type, the digest in upper case without dig's spaces */
const dsText = (rdata: string) => {
  const f = rdata.trim().split(/\s+/);
  return `${f[0]} ${f[1]} ${f[2]} ${f.slice(3).join('').toUpperCase()}`;
};

/** the zone's DS RRset as the parent's server (our Knot secondary, which serves the parent) answers it */
async function servedParentDs(): Promise<string[]> {
  const answer = await dig(['@127.0.0.1', '-p', String(ours.port), '+norec', `${ZONE}.`, 'DS']);
  return records(answer)
    .filter((r) => r.type === 'DS')
    .map((r) => dsText(r.rdata))
    .sort();
}

/** waits until the other provider's secondary serves the signer's serial */
async function theirsCaughtUp(): Promise<void> {
  await waitFor(
    'their secondary at the signer’s serial',
    async () => {
      const [atSigner, atSecondary] = await Promise.all([servedSerial(signer!.port, ZONE), servedSerial(theirs!.port, ZONE)]);
      return atSigner !== undefined && atSigner === atSecondary ? true : undefined;
    },
    30_000,
  );
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'zk-multi-signer-'));
  // the worker (there by default) NOTIFYs our secondary
  const started = await startServiceWithKnot({
    catalog: CATALOG,
    tsig: { name: KEY_NAME, secret: SECRET },
    env: {
      // the other signer's server is on loopback in this test
      DNSSEC_FOREIGN_KEYS_FETCH_ALLOW: '127.0.0.0/8',
      // the other signer's keys read again every second: its ZSK roll is followed within the roll's test
      DNSSEC_FOREIGN_KEYS_REFRESH_INTERVAL: '1',
    },
    user: 'multi-signer@example.com',
  });
  ({ app, knot: ours, dnsPort } = started);
  for (const [zone, text] of [
    [
      PARENT,
      `$ORIGIN ${PARENT}.\n@ 300 IN SOA ns1 hostmaster 1 7200 3600 1209600 300\n@ 300 IN NS ns1\nns1 300 IN A 192.0.2.9\nmoving 300 IN NS ns1.moving\nns1.moving 300 IN A 192.0.2.1\n`,
    ],
    [ZONE, zoneText(1)],
  ]) {
    await gqlOk(`mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }`, {
      u: started.userId,
      z: zone,
    });
    await gqlOk(`mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t) { serial } }`, { z: zone, t: text });
  }
  await gqlOk(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { enabled } }`, { z: ZONE });
}, 60_000);

afterAll(async () => {
  await unbound?.stop();
  await ours?.stop();
  await theirs?.stop();
  await signer?.stop();
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a DNSKEY given by value must be a zone key of the zone’s algorithm; a server to ask must be an allowed address', async () => {
  const ed25519 = DNSSEC_ALGORITHMS.ED25519;
  const otherAlgorithm = DNSKEY.format(dnskeyOf(ed25519.generate(), ed25519, false));
  const add = (input: Record<string, unknown>) =>
    app.gql(`mutation($i: AddForeignDnskeysInput!) { addForeignDnskeys(input: $i) { zone } }`, { i: { zone: ZONE, ...input } });
  const wrongAlgorithm = await add({ dnskeys: [otherAlgorithm] });
  expect(wrongAlgorithm.errors?.[0].extensions?.details).toEqual([
    expect.objectContaining({ field: 'dnskeys[0]', code: 'DNSSEC_FOREIGN_KEY_ALGORITHM' }),
  ]);
  const revoked = await add({ dnskeys: [`385 3 13 ${Buffer.alloc(64, 1).toString('base64')}`] });
  expect(revoked.errors?.[0].extensions?.details).toEqual([
    expect.objectContaining({ field: 'dnskeys[0]', code: 'DNSSEC_FOREIGN_KEY_INVALID' }),
  ]);
  const own = await add({ dnskeys: [(await statusOf()).dnskeys[0]] });
  expect(own.errors?.[0].extensions?.details).toEqual([expect.objectContaining({ code: 'DNSSEC_FOREIGN_KEY_OWN' })]);
  const privateAddress = await add({ fetchFrom: '10.1.2.3' });
  expect(privateAddress.errors?.[0].extensions?.code).toBe('ADDRESS_NOT_ALLOWED');
  const both = await add({ fetchFrom: '127.0.0.1', dnskeys: [otherAlgorithm] });
  expect(both.errors?.[0].extensions?.code).toBe('INVALID_INPUT');
  expect((await statusOf()).foreignKeys).toEqual([]);
  // our DS may not leave the parent without a KSK of another signer's there: the zone would be insecure
  const alone = await app.gql(`mutation($z: String!) { withdrawDnssecDs(zone: $z) { zone } }`, { z: ZONE });
  expect(alone.errors?.[0].extensions?.code).toBe('DNSSEC_NO_FOREIGN_KSK');
  expect(alone.errors?.[0].extensions?.details).toEqual([expect.objectContaining({ field: 'zone', code: 'DNSSEC_NO_FOREIGN_KSK' })]);
});

test('moving a signed zone with another signer: both copies verify, the parent holds both DS, a validator switching providers never fails', async () => {
  const before = await statusOf();
  expect(before.dnskeys).toHaveLength(2);
  // 1. the other signer publishes our ZSK and KSK beside its own keys, and its own secondary serves its copy
  const theirPort = await freePort();
  signer = await startKnotSigner(before.dnskeys, theirPort);
  expect(signer.tags).toHaveLength(2);
  theirs = await startTheirSecondary(theirPort, signer.port);

  // 2. we read the other signer's keys from its server; ours in its answer are passed over
  const added = await gqlOk(`mutation($i: AddForeignDnskeysInput!) { addForeignDnskeys(input: $i) { ${STATUS} } }`, {
    i: { zone: ZONE, fetchFrom: `127.0.0.1:${signer.port}` },
  });
  const status: Status = added.addForeignDnskeys;
  expect(status.foreignKeys.map((k) => k.keyTag).sort((a, b) => a - b)).toEqual(signer.tags);
  expect(status.foreignKeys.map((k) => k.role).sort()).toEqual(['KSK', 'ZSK']);
  expect(status.foreignKeys.every((k) => k.source === 'fetched' && k.fetchedFrom === `127.0.0.1:${signer!.port}`)).toBe(true);
  const theirKsk = status.foreignKeys.find((k) => k.role === 'KSK')!;
  expect(theirKsk.ds).toHaveLength(1);
  // asking again adds nothing: the keys are held already
  const again = await gqlOk(`mutation($i: AddForeignDnskeysInput!) { addForeignDnskeys(input: $i) { foreignKeys { id } } }`, {
    i: { zone: ZONE, fetchFrom: `127.0.0.1:${signer.port}` },
  });
  expect(again.addForeignDnskeys.foreignKeys).toHaveLength(2);

  // 3. our copy: four DNSKEYs, CDS naming both KSKs; the parent held here holds both DS
  const ourTags = (await gqlOk(`query($z: String) { domain(name: $z) { dnssec { keys { keyTag role } } } }`, { z: ZONE })).domain.dnssec
    .keys as { keyTag: number; role: string }[];
  const ourKsk = ourTags.find((k) => k.role === 'KSK')!.keyTag;
  const ourCopy = await transferZone(dnsPort, { name: KEY_NAME, secret: SECRET }, ZONE);
  expect(apexTags(ourCopy.text, 'DNSKEY')).toEqual([...ourTags.map((k) => k.keyTag), ...signer.tags].sort((a, b) => a - b));
  expect(apexTags(ourCopy.text, 'CDS')).toEqual([ourKsk, Number(theirKsk.ds[0].split(' ')[0])].sort((a, b) => a - b));
  const ourDs = status.ds.filter((ds) => ds.split(' ')[2] === '2');
  expect(await parentDs()).toEqual([...ourDs, theirKsk.ds[0]].sort());

  // 4. both copies, as each provider's secondary serves it, pass the three verifiers, with the same four keys
  await Promise.all([oursCaughtUp(), theirsCaughtUp()]);
  const [ourServed, theirServed] = await Promise.all([verifiedCopy(ours.port, 'ours'), verifiedCopy(theirs.port, 'theirs')]);
  expect(apexTags(ourServed, 'DNSKEY')).toEqual(apexTags(ourCopy.text, 'DNSKEY'));
  expect(apexTags(theirServed, 'DNSKEY')).toEqual(apexTags(ourCopy.text, 'DNSKEY'));

  // 5. a validator anchored at the parent's DS set asks one provider's server, then the other's, keeping the last one's DNSKEY
  unbound = await startUnbound({
    trustAnchors: [{ zone: ZONE, ds: [ourDs[0], theirKsk.ds[0]] }],
    stubs: [{ zone: ZONE, port: ours.port }],
    cacheMaxTtl: 60,
  });
  const control = (args: string[]) => run(findBinary('unbound-control'), ['-c', join(unbound!.dir, 'unbound.conf'), ...args]);
  const switchTo = async (port: number) => {
    await control(['stub_remove', `${ZONE}.`]);
    await control(['stub_add', `${ZONE}.`, `127.0.0.1@${port}`]);
    // the data again from the new provider; the DNSKEY RRset stays cached from the last
    await control(['flush', `www.${ZONE}.`]);
    await control(['flush_infra', 'all']);
  };
  const theirZsk = status.foreignKeys.find((k) => k.role === 'ZSK')!.keyTag;
  const ourZsk = ourTags.find((k) => k.role === 'ZSK')!.keyTag;
  const proven = async (expectedSigner: number) => {
    const answer = await unbound!.query(`www.${ZONE}`, 'A');
    const why = `${answer.text}\n${unbound!.log().slice(-3000)}`;
    expect({ rcode: answer.rcode, ad: answer.ad, why: answer.ad ? '' : why }).toEqual({ rcode: 'NOERROR', ad: true, why: '' });
    const rrsig = answer.answer.find((r) => r.type === 'RRSIG' && r.rdata.startsWith('A '));
    expect(Number(rrsig?.rdata.split(' ')[6])).toBe(expectedSigner);
  };
  await proven(ourZsk);
  await switchTo(theirs.port);
  // the other provider's signature, validated with our DNSKEY RRset (it holds their ZSK: RFC 8901 §3)
  await proven(theirZsk);
  await unbound.flush(ZONE);
  await proven(theirZsk);
  await switchTo(ours.port);
  // and ours, validated with theirs (it holds our ZSK)
  await proven(ourZsk);
  // then in turn, as a resolver does while the NS RRset lists both: three answers from each, six times over
  for (let round = 0; round < 6; round++) {
    const [port, zsk] = round % 2 ? [ours.port, ourZsk] : [theirs.port, theirZsk];
    await switchTo(port);
    for (let i = 0; i < 3; i++) await proven(zsk);
  }
  expect(unbound.log()).not.toMatch(/validation failure/);
  moveOut = { ourDs: ourDs[0], theirDs: theirKsk.ds[0], ourTags: ourTags.map((k) => k.keyTag), ourZsk, theirZsk };

  // 6. the move is over: their keys go, from the DNSKEY RRset, the CDS and the parent's DS, with an event each
  for (const key of status.foreignKeys)
    await gqlOk(`mutation($z: String!, $id: ID!) { removeForeignDnskey(zone: $z, id: $id) { zone } }`, { z: ZONE, id: key.id });
  expect((await statusOf()).foreignKeys).toEqual([]);
  const after = await transferZone(dnsPort, { name: KEY_NAME, secret: SECRET }, ZONE);
  expect(apexTags(after.text, 'DNSKEY')).toEqual(ourTags.map((k) => k.keyTag).sort((a, b) => a - b));
  expect(apexTags(after.text, 'CDS')).toEqual([ourKsk]);
  expect(await parentDs()).toEqual(ourDs);
  const afterFile = join(dir, 'after.zone');
  writeFileSync(afterFile, after.text);
  await verifySignedZone(ZONE, afterFile);
  await oursCaughtUp();
  await verifiedCopy(ours.port, 'ours-after');
  const events = await gqlOk(`query { events(limit: 100, types: ["dnssec.foreign_keys_changed"]) { events { zone data } } }`);
  const mine = events.events.events.filter((e: { zone: string }) => e.zone === ZONE);
  expect(mine.map((e: any) => [e.data.added.length, e.data.removed.length, e.data.keys.length])).toEqual([
    [2, 0, 2],
    [0, 1, 1],
    [0, 1, 0],
  ]);
}, 60_000);

test('the other signer rolls its ZSK: its pre-published key is in our DNSKEY RRset before it signs, and its old one leaves with it', async () => {
  expect(moveOut).toBeDefined();
  const oldZsk = moveOut!.theirZsk;
  // their keys here again (they were removed at the end of the move in), read from their secondary this time:
  // keys removed by hand come back only when asked for
  const added = await gqlOk(`mutation($i: AddForeignDnskeysInput!) { addForeignDnskeys(input: $i) { ${STATUS} } }`, {
    i: { zone: ZONE, fetchFrom: `127.0.0.1:${theirs!.port}` },
  });
  expect(added.addForeignDnskeys.foreignKeys.map((k: { keyTag: number }) => k.keyTag).sort((a: number, b: number) => a - b)).toEqual(
    signer!.tags,
  );
  await oursCaughtUp();
  // a resolver of its own, caching 2 s at most (the other signer pre-publishes for 10 s), anchored at both DS
  const resolver = await startUnbound({
    trustAnchors: [{ zone: ZONE, ds: [moveOut!.ourDs, moveOut!.theirDs] }],
    stubs: [{ zone: ZONE, port: ours.port }],
  });
  try {
    const control = (args: string[]) => run(findBinary('unbound-control'), ['-c', join(resolver.dir, 'unbound.conf'), ...args]);
    const eventsBefore = (await gqlOk(`query { events(limit: 1000, types: ["dnssec.foreign_keys_changed"]) { events { id } } }`)).events
      .events.length;

    // keymgr: a new ZSK published now and signing in 10 s, the old one signing until then and published until 20 s
    const listed = async () => (await signer!.keymgr(['list'])).stdout;
    const tagsBefore = new Set(
      (await listed())
        .split('\n')
        .filter((line) => line.trim())
        .map((line) => Number(line.trim().split(/\s+/)[1])),
    );
    await signer!.keymgr(['generate', 'algorithm=13', 'ksk=no', 'publish=+0', 'active=+10']);
    await signer!.keymgr(['set', String(oldZsk), 'retire=+10', 'remove=+20']);
    const newZsk = (await listed())
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => Number(line.trim().split(/\s+/)[1]))
      .find((tag) => !tagsBefore.has(tag))!;
    expect(newZsk).toBeGreaterThan(0);
    await signer!.knotc(['zone-keys-load', `${ZONE}.`]);

    // until the roll is over at both: the resolver asks each provider in turn (five answers each), every 100 ms
    const dnskeyTags = async (port: number) =>
      apexTags((await dig(['@127.0.0.1', '-p', String(port), '+norec', `${ZONE}.`, 'DNSKEY'])).stdout, 'DNSKEY');
    const signerOfWww = async (port: number) => {
      const answer = await dig(['@127.0.0.1', '-p', String(port), '+norec', '+dnssec', `www.${ZONE}.`, 'A']);
      const rrsig = answer.stdout.split('\n').find((line) => /\sRRSIG\s+A\s/.test(line));
      return Number(rrsig?.split(/\s+/)[10]);
    };
    const seen: { oursHasNew?: number; theirsSignNew?: number; oursWithoutOld?: number } = {};
    const failures: string[] = [];
    let asked = 0;
    // the providers the resolver was sent to while the other signer's old ZSK signed, and once its new one did
    const askedWhile = { oldSigns: new Set<number>(), newSigns: new Set<number>() };
    const verified: string[] = [];
    await waitFor(
      'the other signer’s ZSK roll, followed here',
      async () => {
        const now = Date.now();
        const [ourTags, theirSigner] = await Promise.all([dnskeyTags(ours.port), signerOfWww(theirs!.port)]);
        if (seen.oursHasNew === undefined && ourTags.includes(newZsk)) {
          seen.oursHasNew = now;
          // our copy with their new key, before it signs: through the three verifiers
          verified.push(await verifiedCopy(ours.port, 'roll-ours-prepublished'));
        }
        if (seen.theirsSignNew === undefined && theirSigner === newZsk) {
          seen.theirsSignNew = now;
          await theirsCaughtUp();
          verified.push(await verifiedCopy(theirs!.port, 'roll-theirs-new'));
        }
        if (seen.oursWithoutOld === undefined && seen.theirsSignNew !== undefined && !ourTags.includes(oldZsk)) seen.oursWithoutOld = now;
        const port = Math.floor(asked / 5) % 2 ? theirs!.port : ours.port;
        if (asked % 5 === 0) {
          await control(['stub_remove', `${ZONE}.`]);
          await control(['stub_add', `${ZONE}.`, `127.0.0.1@${port}`]);
          await control(['flush', `www.${ZONE}.`]);
          await control(['flush_infra', 'all']);
        }
        const answer = await resolver.query(`www.${ZONE}`, 'A');
        asked++;
        askedWhile[seen.theirsSignNew === undefined ? 'oldSigns' : 'newSigns'].add(port);
        if (answer.rcode !== 'NOERROR' || !answer.ad)
          failures.push(`${new Date().toISOString()} port ${port}: ${answer.rcode} ad=${answer.ad}`);
        return seen.oursWithoutOld !== undefined ? true : undefined;
      },
      60_000,
      100,
    );
    expect(failures).toEqual([]);
    // each provider validated through both halves of the roll (how many answers that takes follows the machine's
    // speed; that both were asked in each half does not)
    const providers = [ours.port, theirs!.port].sort((a, b) => a - b);
    expect([...askedWhile.oldSigns].sort((a, b) => a - b)).toEqual(providers);
    expect([...askedWhile.newSigns].sort((a, b) => a - b)).toEqual(providers);
    // published here before the other signer used it
    expect(seen.oursHasNew).toBeLessThan(seen.theirsSignNew!);
    expect(verified).toHaveLength(2);
    await oursCaughtUp();
    const finalCopy = await verifiedCopy(ours.port, 'roll-ours-after');
    const expected = [...signer!.tags.filter((t) => t !== oldZsk), newZsk].sort((a, b) => a - b);
    expect(apexTags(finalCopy, 'DNSKEY')).toEqual([...moveOut!.ourTags, ...expected].sort((a, b) => a - b));
    expect(resolver.log()).not.toMatch(/validation failure/);

    // one event when the new key joined, one when the old one left, each naming the server read
    const events = (await gqlOk(`query { events(limit: 1000, types: ["dnssec.foreign_keys_changed"]) { events { zone data } } }`)).events
      .events;
    const followed = events
      .slice(eventsBefore)
      .filter((e: { zone: string; data: any }) => e.zone === ZONE && e.data.refreshedFrom)
      .map((e: { data: any }) => ({
        from: e.data.refreshedFrom,
        added: e.data.added.map((k: { keyTag: number }) => k.keyTag),
        removed: e.data.removed.map((k: { keyTag: number }) => k.keyTag),
      }));
    const from = `127.0.0.1:${theirs!.port}`;
    expect(followed).toEqual([
      { from, added: [newZsk], removed: [] },
      { from, added: [], removed: [oldZsk] },
    ]);
    const status = await statusOf();
    expect(status.foreignKeys.map((k) => k.keyTag).sort((a, b) => a - b)).toEqual(expected);
    expect(status.foreignKeys.every((k) => k.source === 'fetched' && k.fetchedFrom === from)).toBe(true);

    // a key removed by hand is declined: the readings of the next seconds do not add it back; asked for, it comes back
    const newKey = status.foreignKeys.find((k) => k.keyTag === newZsk)!;
    await gqlOk(`mutation($z: String!, $id: ID!) { removeForeignDnskey(zone: $z, id: $id) { zone } }`, { z: ZONE, id: newKey.id });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect((await statusOf()).foreignKeys.map((k) => k.keyTag).sort((a, b) => a - b)).toEqual(expected.filter((t) => t !== newZsk));
    const back = await gqlOk(`mutation($i: AddForeignDnskeysInput!) { addForeignDnskeys(input: $i) { ${STATUS} } }`, {
      i: { zone: ZONE, fetchFrom: from },
    });
    expect(back.addForeignDnskeys.foreignKeys.map((k: { keyTag: number }) => k.keyTag).sort((a: number, b: number) => a - b)).toEqual(
      expected,
    );
    signer!.tags = expected;
    moveOut!.theirZsk = newZsk;
  } finally {
    await resolver.stop();
  }
}, 90_000);

test('moving the signed zone out to the other signer: both DS, their server alone, our DS withdrawn from the parent held here, our keys deleted there, the zone unsigned here', async () => {
  expect(moveOut).toBeDefined();
  const { ourDs, theirDs, ourTags, theirZsk } = moveOut!;
  const control = (args: string[]) => run(findBinary('unbound-control'), ['-c', join(unbound!.dir, 'unbound.conf'), ...args]);
  const switchTo = async (port: number) => {
    await control(['stub_remove', `${ZONE}.`]);
    await control(['stub_add', `${ZONE}.`, `127.0.0.1@${port}`]);
    await control(['flush', `www.${ZONE}.`]);
    await control(['flush_infra', 'all']);
  };
  const proven = async (resolver: Unbound, expectedSigner: number) => {
    const answer = await resolver.query(`www.${ZONE}`, 'A');
    expect({ rcode: answer.rcode, ad: answer.ad, why: answer.ad ? '' : `${answer.text}\n${resolver.log().slice(-3000)}` }).toEqual({
      rcode: 'NOERROR',
      ad: true,
      why: '',
    });
    const rrsig = answer.answer.find((r) => r.type === 'RRSIG' && r.rdata.startsWith('A '));
    expect(Number(rrsig?.rdata.split(' ')[6])).toBe(expectedSigner);
  };
  const sorted = (tags: number[]) => [...tags].sort((a, b) => a - b);
  // the move-in's resolver caches up to 60 s: what it holds predates the other signer's ZSK roll (pre-published
  // 10 s, for resolvers caching 2 s, as the roll's test says), so it starts this walk empty
  await unbound!.flush();

  // 1. (moving out, steps 2 and 3 of the table) their keys here again, read from their server; ours are still at theirs
  const added = await gqlOk(`mutation($i: AddForeignDnskeysInput!) { addForeignDnskeys(input: $i) { ${STATUS} } }`, {
    i: { zone: ZONE, fetchFrom: `127.0.0.1:${theirs!.port}` },
  });
  expect(sorted(added.addForeignDnskeys.foreignKeys.map((k: { keyTag: number }) => k.keyTag))).toEqual(signer!.tags);
  await Promise.all([oursCaughtUp(), theirsCaughtUp()]);
  const [ourCopy, theirCopy] = await Promise.all([verifiedCopy(ours.port, 'out-ours'), verifiedCopy(theirs!.port, 'out-theirs')]);
  const all = sorted([...ourTags, ...signer!.tags]);
  expect(apexTags(ourCopy, 'DNSKEY')).toEqual(all);
  expect(apexTags(theirCopy, 'DNSKEY')).toEqual(all);

  // 2. (step 4) the parent holds both DS: the resolver's anchor is both (it has been), and it asks both in turn
  expect(await parentDs()).toEqual([ourDs, theirDs].sort());
  for (let round = 0; round < 4; round++) {
    const [port, zsk] = round % 2 ? [ours.port, moveOut!.ourZsk] : [theirs!.port, theirZsk];
    await switchTo(port);
    for (let i = 0; i < 3; i++) await proven(unbound!, zsk);
  }

  // 3. (step 5) the NS moves to them: the resolver asks their server alone, every 100 ms from here on
  await switchTo(theirs!.port);
  let poller = pollValidator(unbound!, `www.${ZONE}`);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  let polled = await poller.stop();
  expect(polled.failures).toEqual([]);
  await proven(unbound!, theirZsk);

  // 4. (the NS TTL and DS TTL waited) our DS leaves the parent, while the zone is still signed here: the parent
  // held here (signed from now on, served by our secondary) holds their DS alone at once, and our CDS names their
  // KSK alone. A validating resolver anchored at the PARENT's DS (not the child's) asks their server every 100 ms
  // from before the call to the end; it reaches the zone through the DS the parent serves.
  await gqlOk(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { enabled } }`, { z: PARENT });
  const parentAnchor = (await gqlOk(`query($z: String) { domain(name: $z) { dnssec { ds } } }`, { z: PARENT })).domain.dnssec.ds.find(
    (ds: string) => ds.split(' ')[2] === '2',
  );
  await oursCaughtUp(PARENT);
  expect(await servedParentDs()).toEqual([ourDs, theirDs].map(dsText).sort());
  await unbound!.stop();
  unbound = await startUnbound({
    trustAnchors: [{ zone: PARENT, ds: [parentAnchor] }],
    stubs: [
      { zone: PARENT, port: ours.port },
      { zone: ZONE, port: theirs!.port },
    ],
  });
  await proven(unbound, theirZsk);
  poller = pollValidator(unbound, `www.${ZONE}`);
  // without a KSK of the other signer the call is refused (the parent would be left with no DS); here it has one
  const dsEvents = async () =>
    (await gqlOk(`query { events(limit: 1000, types: ["dnssec.ds_updated"]) { events { zone data } } }`)).events.events.filter(
      (e: { zone: string }) => e.zone === ZONE,
    );
  const eventsBefore = (await dsEvents()).length;
  const withdrawn = (await gqlOk(`mutation($z: String!) { withdrawDnssecDs(zone: $z) { ds dsWithdrawnAt } }`, { z: ZONE }))
    .withdrawDnssecDs;
  expect(withdrawn.ds).toEqual([]);
  expect(withdrawn.dsWithdrawnAt).not.toBeNull();
  expect(await parentDs()).toEqual([theirDs]);
  // (the feed shows an event once every older transaction has ended: waited for)
  const ds = await waitFor(
    'the dnssec.ds_updated event',
    async () => {
      const fresh = (await dsEvents()).slice(eventsBefore);
      return fresh.length ? fresh : undefined;
    },
    10_000,
    100,
  );
  expect(ds.map((e: any) => ({ ds: e.data.ds, removed: e.data.removed, added: e.data.added }))).toEqual([
    { ds: [theirDs], removed: [ourDs], added: [] },
  ]);
  const withdrawnCopy = await transferZone(dnsPort, { name: KEY_NAME, secret: SECRET }, ZONE);
  expect(apexTags(withdrawnCopy.text, 'CDS')).toEqual([Number(theirDs.split(' ')[0])]);
  // our keys and signatures stay: a resolver still holding our DS keeps validating our copy
  expect(apexTags(withdrawnCopy.text, 'DNSKEY')).toEqual(all);
  // its reverse brings our DS back beside theirs; withdrawn again
  const restored = (await gqlOk(`mutation($z: String!) { restoreDnssecDs(zone: $z) { ds dsWithdrawnAt } }`, { z: ZONE })).restoreDnssecDs;
  expect(restored.dsWithdrawnAt).toBeNull();
  expect(await parentDs()).toEqual([ourDs, theirDs].sort());
  await gqlOk(`mutation($z: String!) { withdrawDnssecDs(zone: $z) { zone } }`, { z: ZONE });
  expect(await parentDs()).toEqual([theirDs]);
  await Promise.all([oursCaughtUp(), oursCaughtUp(PARENT)]);
  expect(await servedParentDs()).toEqual([dsText(theirDs)]);
  await verifiedCopy(ours.port, 'out-withdrawn');

  // 5. our keys deleted at the other signer: its DNSKEY RRset is its own keys alone, at its server too
  for (const tag of ourTags) await signer!.keymgr(['delete', String(tag)]);
  await signer!.knotc(['zone-keys-load', `${ZONE}.`]);
  await waitFor(
    'their server to serve their keys alone',
    async () => {
      const dnskey = await dig(['@127.0.0.1', '-p', String(theirs!.port), '+norec', `${ZONE}.`, 'DNSKEY']);
      const tags = apexTags(dnskey.stdout, 'DNSKEY');
      return JSON.stringify(tags) === JSON.stringify(signer!.tags) ? true : undefined;
    },
    30_000,
    200,
  );
  const finalCopy = await verifiedCopy(theirs!.port, 'out-final');
  expect(apexTags(finalCopy, 'DNSKEY')).toEqual(signer!.tags);

  // 6. the zone leaves Zonekeeper: unsigned here (their keys go with ours); the parent here keeps their DS (our DS
  // was withdrawn, theirs remains), and the zone is still proven through the parent at the other provider
  await gqlOk(`mutation($z: String!) { disableDnssec(zone: $z, force: true) { enabled } }`, { z: ZONE });
  expect((await statusOf()).foreignKeys).toEqual([]);
  expect(await parentDs()).toEqual([theirDs]);
  await oursCaughtUp(PARENT);
  expect(await servedParentDs()).toEqual([dsText(theirDs)]);
  // the resolver's caches emptied: it reads the parent's DS and their DNSKEY RRset again, and goes on asking for a second
  await unbound.flush();
  await proven(unbound, theirZsk);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  polled = await poller.stop();
  expect(polled.failures).toEqual([]);
  expect(polled.asked).toBeGreaterThan(10);
  expect(unbound.log()).not.toMatch(/validation failure/);
}, 60_000);
