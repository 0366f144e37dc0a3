/**
 * The zone signer held against three independent verifiers: BIND's dnssec-verify, ldns's ldns-verify-zone and
 * Knot's kzonecheck (--dnssec on). Each zone is signed with every algorithm the service offers, with NSEC,
 * NSEC3 (RFC 9276: no salt, no extra iterations) and NSEC3 with opt-out, and each verifier must accept it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DNSSEC_ALGORITHMS, DnssecAlgorithm } from '../../src/dns/dnssec/algorithms';
import { canonicalRdata } from '../../src/dns/dnssec/canonical-rdata';
import { dnskeyOf, dnskeyTag } from '../../src/dns/dnssec/keys';
import { Denial, signZone, ZoneKey } from '../../src/dns/dnssec/zone-signer';
import { CanonicalRecord } from '../../src/dns/record';
import { DEFAULT_ALLOWED_TTLS } from '../../src/dns/ttl';
import { parseZoneFile, renderZoneFile } from '../../src/dns/zone-file';

const run = promisify(execFile);
const ZONE = 'signed.example';

// every kind of name a signer must get right: apex, wildcard, empty non-terminals, a secure and an insecure
// delegation with glue, occluded data below a cut, a CNAME, a DNAME, upper-case input
const ZONE_TEXT = `
$ORIGIN signed.example.
$TTL 3600
@ 3600 IN SOA ns1.signed.example. hostmaster.signed.example. 2026112401 7200 3600 1209600 300
@ 3600 IN NS ns1
@ 3600 IN NS ns2.elsewhere.example.
@ 300 IN MX 10 mail
@ 300 IN TXT "v=spf1 -all"
@ 300 IN CAA 0 issue "letsencrypt.org"
ns1 300 IN A 192.0.2.1
ns1 300 IN AAAA 2001:db8::1
mail 300 IN A 192.0.2.2
www 300 IN A 192.0.2.3
www 300 IN A 192.0.2.4
*.wild 300 IN TXT "wildcard"
deep.a.b.c 300 IN A 192.0.2.5
alias 300 IN CNAME www
_sip._tcp 300 IN SRV 10 5 5060 www
secure 3600 IN NS ns.secure
secure 3600 IN DS 12345 13 2 0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF
ns.secure 3600 IN A 192.0.2.6
insecure 3600 IN NS ns.insecure
ns.insecure 3600 IN A 192.0.2.7
below.ns.insecure 3600 IN TXT "occluded"
redirect 300 IN DNAME other.example.
UPPER 300 IN A 192.0.2.8
`;

function zoneRecords(): CanonicalRecord[] {
  const parsed = parseZoneFile(ZONE, ZONE_TEXT, DEFAULT_ALLOWED_TTLS);
  if (!parsed.ok) throw new Error(parsed.problems.map((p) => p.message).join('\n'));
  return parsed.records;
}

function keysFor(algorithm: DnssecAlgorithm, split: boolean): ZoneKey[] {
  const make = (role: ZoneKey['role']): ZoneKey => {
    const privateKey = algorithm.name === 'RSASHA256' ? algorithm.generate(2048) : algorithm.generate();
    const dnskey = dnskeyOf(privateKey, algorithm, role !== 'ZSK');
    return { role, algorithm, privateKey, dnskey, tag: dnskeyTag(dnskey), published: true, signing: true };
  };
  return split ? [make('KSK'), make('ZSK')] : [make('CSK')];
}

const now = Math.floor(Date.now() / 1000);
const window = { inception: now - 3600, expiration: () => now + 14 * 86400 };

const dir = mkdtempSync(join(tmpdir(), 'zk-dnssec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function verifiers(file: string, options: { csk?: boolean } = {}): Promise<void> {
  // each verifier exits non-zero on any bogus or missing signature or a broken chain; BIND's wants a key
  // without the SEP flag unless told that a SEP key signs everything (-z), which is what a CSK is
  await run('dnssec-verify', [...(options.csk ? ['-z'] : []), '-o', ZONE, file]);
  const ldns = await run('ldns-verify-zone', [file]);
  expect(ldns.stdout + ldns.stderr).toMatch(/Zone is verified and complete/);
  await run('kzonecheck', ['--dnssec', 'on', '-o', ZONE, file]);
}

const denials: [string, Denial][] = [
  ['NSEC', { kind: 'nsec' }],
  ['NSEC3 (RFC 9276)', { kind: 'nsec3', iterations: 0, salt: Buffer.alloc(0), optOut: false }],
  ['NSEC3 opt-out', { kind: 'nsec3', iterations: 0, salt: Buffer.alloc(0), optOut: true }],
];

describe.each(Object.values(DNSSEC_ALGORITHMS))('$name', (algorithm) => {
  it.each(denials)('a KSK/ZSK-signed zone with %s passes dnssec-verify, ldns-verify-zone and kzonecheck', async (label, denial) => {
    const records = zoneRecords();
    const added = signZone(ZONE, records, keysFor(algorithm, true), denial, window, canonicalRdata);
    const file = join(dir, `${algorithm.name}-${label.replace(/\W+/g, '-')}.zone`);
    writeFileSync(file, renderZoneFile(ZONE, [...records, ...added]));
    await verifiers(file);
    // the occluded TXT and the glue are neither signed nor in the chain
    expect(added.filter((r) => r.type === 'RRSIG' && /^(below\.)?ns\.(in)?secure$/.test(r.owner))).toEqual([]);
    if (denial.kind === 'nsec') expect(added.filter((r) => r.type === 'NSEC').map((r) => r.owner)).not.toContain('ns.insecure');
  });
});

it('a CSK-signed zone (one key, both roles) verifies', async () => {
  const records = zoneRecords();
  const added = signZone(ZONE, records, keysFor(DNSSEC_ALGORITHMS.ECDSAP256SHA256, false), { kind: 'nsec' }, window, canonicalRdata);
  const file = join(dir, 'csk.zone');
  writeFileSync(file, renderZoneFile(ZONE, [...records, ...added]));
  await verifiers(file, { csk: true });
});

it('a verifier refuses a zone whose signature was tampered with (the check can fail)', async () => {
  const records = zoneRecords();
  const added = signZone(ZONE, records, keysFor(DNSSEC_ALGORITHMS.ED25519, true), { kind: 'nsec' }, window, canonicalRdata);
  const file = join(dir, 'tampered.zone');
  writeFileSync(file, renderZoneFile(ZONE, [...records, ...added]).replace('192.0.2.3', '192.0.2.99'));
  await expect(run('dnssec-verify', ['-o', ZONE, file])).rejects.toThrow();
  await expect(run('kzonecheck', ['--dnssec', 'on', '-o', ZONE, file])).rejects.toThrow();
  expect(readFileSync(file, 'utf8')).toContain('192.0.2.99');
});
