/**
 * The signing pool (src/dns/dnssec/signing-pool.ts): a zone large enough to be signed on threads comes out
 * record for record as the in-thread signer makes it (Ed25519 signs deterministically, so the signatures
 * themselves are compared), the three verifiers accept it, and an idle pool does not keep a process alive.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DNSSEC_ALGORITHMS, DnssecAlgorithm } from '../../src/dns/dnssec/algorithms';
import { canonicalRdata } from '../../src/dns/dnssec/canonical-rdata';
import { dnskeyOf, dnskeyTag } from '../../src/dns/dnssec/keys';
import { SIGN_IN_THREAD_BELOW_RRSETS, SigningPool } from '../../src/dns/dnssec/signing-pool';
import { Denial, signZone, ZoneKey } from '../../src/dns/dnssec/zone-signer';
import { CanonicalRecord } from '../../src/dns/record';
import { renderZoneFile } from '../../src/dns/zone-file';

const run = promisify(execFile);
const ZONE = 'pool.example';
const NAMES = 3000;

/** more RRsets than the pool signs in-thread: an A and an AAAA per name, a delegation with glue, a wildcard */
function zoneRecords(): CanonicalRecord[] {
  const records: CanonicalRecord[] = [
    { owner: '@', type: 'SOA', ttl: 3600, rdata: 'ns1.pool.example. hostmaster.pool.example. 1 7200 3600 1209600 300' },
    { owner: '@', type: 'NS', ttl: 3600, rdata: 'ns1.pool.example.' },
    { owner: 'ns1', type: 'A', ttl: 3600, rdata: '192.0.2.1' },
    { owner: 'child', type: 'NS', ttl: 3600, rdata: 'ns.child.pool.example.' },
    { owner: 'ns.child', type: 'A', ttl: 3600, rdata: '192.0.2.2' },
    { owner: '*.wild', type: 'TXT', ttl: 300, rdata: '"wildcard"' },
  ];
  for (let i = 0; i < NAMES; i++) {
    records.push({ owner: `h${i}`, type: 'A', ttl: 300, rdata: `10.0.${i >> 8}.${i & 255}` });
    records.push({ owner: `h${i}`, type: 'AAAA', ttl: 300, rdata: `2001:db8::${i.toString(16)}` });
  }
  return records;
}

function keysFor(algorithm: DnssecAlgorithm): ZoneKey[] {
  return (['KSK', 'ZSK'] as const).map((role) => {
    const privateKey = algorithm.generate();
    const dnskey = dnskeyOf(privateKey, algorithm, role === 'KSK');
    return { role, algorithm, privateKey, dnskey, tag: dnskeyTag(dnskey), published: true, signing: true };
  });
}

const now = Math.floor(Date.now() / 1000);
const window = { inception: now - 3600, expiration: (owner: string) => now + 14 * 86400 - (owner.length % 7) };
const dir = mkdtempSync(join(tmpdir(), 'zk-pool-'));
const pool = new SigningPool(2);
afterAll(async () => {
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

const denials: [string, Denial][] = [
  ['NSEC', { kind: 'nsec' }],
  ['NSEC3', { kind: 'nsec3', iterations: 0, salt: Buffer.alloc(0), optOut: false }],
];

it('the zone is large enough to go to the threads', () => {
  // one RRset per type and owner, plus the chain's: well above the in-thread limit
  expect(NAMES * 2).toBeGreaterThan(SIGN_IN_THREAD_BELOW_RRSETS);
});

it.each(denials)('Ed25519 with %s: the pool makes exactly the records the in-thread signer makes', async (_label, denial) => {
  const records = zoneRecords();
  const keys = keysFor(DNSSEC_ALGORITHMS.ED25519);
  const pooled = await pool.signZone(ZONE, records, keys, denial, window);
  const inThread = signZone(ZONE, records, keys, denial, window, canonicalRdata);
  expect(pooled.length).toBe(inThread.length);
  expect(pooled).toEqual(inThread);
  expect(pooled.filter((r) => r.type === 'RRSIG').length).toBeGreaterThan(NAMES * 2);
});

it.each(denials)(
  'ECDSAP256SHA256 with %s: the pool-signed zone passes dnssec-verify, ldns-verify-zone and kzonecheck',
  async (label, denial) => {
    const records = zoneRecords();
    const added = await pool.signZone(ZONE, records, keysFor(DNSSEC_ALGORITHMS.ECDSAP256SHA256), denial, window);
    const file = join(dir, `${label}.zone`);
    writeFileSync(file, renderZoneFile(ZONE, [...records, ...added]));
    await run('dnssec-verify', ['-o', ZONE, file], { maxBuffer: 16 * 1024 * 1024 });
    const ldns = await run('ldns-verify-zone', [file], { maxBuffer: 16 * 1024 * 1024 });
    expect(ldns.stdout + ldns.stderr).toMatch(/Zone is verified and complete/);
    await run('kzonecheck', ['--dnssec', 'on', '-o', ZONE, file], { maxBuffer: 16 * 1024 * 1024 });
    // the delegation's NS and its glue are not signed (RFC 4035 §2.2)
    expect(
      added.filter((r) => r.type === 'RRSIG' && (r.owner === 'ns.child' || (r.owner === 'child' && r.rdata.startsWith('NS ')))),
    ).toEqual([]);
  },
);

it('a record whose RDATA does not parse fails the signing, with its reason', async () => {
  const records = zoneRecords();
  // its canonical wire form, written by the calling thread for the threads, cannot be made
  records.push({ owner: 'h1', type: 'MX', ttl: 300, rdata: 'not an mx' });
  await expect(pool.signZone(ZONE, records, keysFor(DNSSEC_ALGORITHMS.ED25519), { kind: 'nsec' }, window)).rejects.toThrow(
    /stored MX RDATA does not parse/,
  );
});

it('a thread that fails fails the signing, with its reason, and the pool signs the next zone', async () => {
  // an Ed25519 private key given as RSASHA256's: the thread's RSA signature with it throws
  const [ksk, zsk] = keysFor(DNSSEC_ALGORITHMS.ED25519);
  const wrong: ZoneKey = { ...zsk, algorithm: DNSSEC_ALGORITHMS.RSASHA256 };
  await expect(pool.signZone(ZONE, zoneRecords(), [ksk, wrong], { kind: 'nsec' }, window)).rejects.toThrow(/^signing thread: /);
  const records = zoneRecords();
  const keys = keysFor(DNSSEC_ALGORITHMS.ED25519);
  expect(await pool.signZone(ZONE, records, keys, { kind: 'nsec' }, window)).toEqual(
    signZone(ZONE, records, keys, { kind: 'nsec' }, window, canonicalRdata),
  );
});

it('a process that signed on the pool and did not close it exits by itself (idle threads hold nothing)', async () => {
  const script = `
    const { SigningPool } = require(${JSON.stringify(join(__dirname, '../../src/dns/dnssec/signing-pool.ts'))});
    const { DNSSEC_ALGORITHMS } = require(${JSON.stringify(join(__dirname, '../../src/dns/dnssec/algorithms.ts'))});
    const { dnskeyOf, dnskeyTag } = require(${JSON.stringify(join(__dirname, '../../src/dns/dnssec/keys.ts'))});
    const algorithm = DNSSEC_ALGORITHMS.ED25519;
    const privateKey = algorithm.generate();
    const dnskey = dnskeyOf(privateKey, algorithm, true);
    const key = { role: 'CSK', algorithm, privateKey, dnskey, tag: dnskeyTag(dnskey), published: true, signing: true };
    const records = [{ owner: '@', type: 'SOA', ttl: 3600, rdata: 'ns1.pool.example. h.pool.example. 1 7200 3600 1209600 300' }];
    for (let i = 0; i < 3000; i++) records.push({ owner: 'h' + i, type: 'A', ttl: 300, rdata: '10.0.0.1' });
    new SigningPool(2).signZone('pool.example', records, [key], { kind: 'nsec' }, { inception: 0, expiration: () => 1 })
      .then((added) => console.log('signed', added.filter((r) => r.type === 'RRSIG').length));
  `;
  const started = Date.now();
  const { stdout } = await run(process.execPath, ['--require', '@swc-node/register', '-e', script], { timeout: 60_000 });
  // 3000 A RRsets, the apex's SOA and DNSKEY, 3001 NSEC
  expect(stdout.trim()).toBe('signed 6003');
  expect(Date.now() - started).toBeLessThan(60_000);
});
