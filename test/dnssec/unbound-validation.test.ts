/**
 * The zone signer and the Unbound harness proven together by a validating resolver: zones signed by the model
 * (NSEC with a KSK and a ZSK; NSEC3 as RFC 9276 advises with a CSK) are served as files by a plain Knot
 * primary, and Debian's Unbound, whose only trust anchors are the zones' DS records, must prove every kind of
 * answer (RFC 4035 §5): data (AD), NXDOMAIN and NODATA by authenticated denial (RFC 4035 §5.4, RFC 5155 §8),
 * a wildcard expansion with the proof that no closer name exists (RFC 4035 §5.3.4, RFC 5155 §8.8), an empty
 * non-terminal (RFC 5155 §7.1) and an insecure delegation (no DS, proven). A zone with one tampered RRSIG must
 * give SERVFAIL for that name, so the proof can fail.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DNSSEC_ALGORITHMS } from '../../src/dns/dnssec/algorithms';
import { canonicalRdata } from '../../src/dns/dnssec/canonical-rdata';
import { formatDs } from '../../src/dns/dnssec/ds';
import { dnskeyOf, dnskeyTag, dsOf } from '../../src/dns/dnssec/keys';
import { Denial, signZone, ZoneKey } from '../../src/dns/dnssec/zone-signer';
import { CanonicalRecord } from '../../src/dns/record';
import { DEFAULT_ALLOWED_TTLS } from '../../src/dns/ttl';
import { canonicalNameWire } from '../../src/dns/wire';
import { parseZoneFile, renderZoneFile } from '../../src/dns/zone-file';
import { KnotPrimary, startKnotPrimary } from '../support/knot-primary';
import { ResolverAnswer, startUnbound, Unbound } from '../support/unbound';

const ZONES = { nsec: 'nsec-signed.example', nsec3: 'nsec3-signed.example', tampered: 'tampered.example' } as const;

// a wildcard, empty non-terminals (a.b and b above deep.a.b) and an insecure delegation with glue
const zoneText = (zone: string): string => `
$ORIGIN ${zone}.
@ 300 IN SOA ns1 hostmaster 2026112401 7200 3600 1209600 300
@ 300 IN NS ns1
ns1 300 IN A 192.0.2.1
www 300 IN A 192.0.2.3
www 300 IN AAAA 2001:db8::3
*.wild 300 IN TXT "wildcard"
deep.a.b 300 IN A 192.0.2.5
sub 300 IN NS ns.sub
ns.sub 300 IN A 192.0.2.6
`;

function makeKey(role: ZoneKey['role']): ZoneKey {
  const algorithm = DNSSEC_ALGORITHMS.ECDSAP256SHA256;
  const privateKey = algorithm.generate();
  const dnskey = dnskeyOf(privateKey, algorithm, role !== 'ZSK');
  return { role, algorithm, privateKey, dnskey, tag: dnskeyTag(dnskey), published: true, signing: true };
}

const now = Math.floor(Date.now() / 1000);
const window = { inception: now - 3600, expiration: () => now + 14 * 86400 };

interface SignedZone {
  zone: string;
  records: CanonicalRecord[];
  ds: string;
}

function signed(zone: string, keys: ZoneKey[], denial: Denial): SignedZone {
  const parsed = parseZoneFile(zone, zoneText(zone), DEFAULT_ALLOWED_TTLS);
  if (!parsed.ok) throw new Error(parsed.problems.map((p) => p.message).join('\n'));
  const added = signZone(zone, parsed.records, keys, denial, window, canonicalRdata);
  const sep = keys.find((key) => key.role !== 'ZSK')!;
  return { zone, records: [...parsed.records, ...added], ds: formatDs(dsOf(canonicalNameWire(`${zone}.`), sep.dnskey, 2)) };
}

/** one base64 character of the RRSIG over `owner`'s `type` RRset changed: a signature that cannot verify */
function tamperSignature(records: CanonicalRecord[], owner: string, type: string): CanonicalRecord[] {
  let tampered = 0;
  const result = records.map((record) => {
    if (record.owner !== owner || record.type !== 'RRSIG' || !record.rdata.startsWith(`${type} `)) return record;
    tampered++;
    const fields = record.rdata.split(' ');
    const signature = fields[fields.length - 1];
    fields[fields.length - 1] = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
    return { ...record, rdata: fields.join(' ') };
  });
  if (tampered !== 1) throw new Error(`expected one RRSIG over ${owner} ${type}, found ${tampered}`);
  return result;
}

const dir = mkdtempSync(join(tmpdir(), 'zk-unbound-'));
let knot: KnotPrimary;
let unbound: Unbound;
let nsecDs: string;

beforeAll(async () => {
  const zones = [
    signed(ZONES.nsec, [makeKey('KSK'), makeKey('ZSK')], { kind: 'nsec' }),
    signed(ZONES.nsec3, [makeKey('CSK')], { kind: 'nsec3', iterations: 0, salt: Buffer.alloc(0), optOut: false }),
    signed(ZONES.tampered, [makeKey('KSK'), makeKey('ZSK')], { kind: 'nsec' }),
  ];
  nsecDs = zones[0].ds;
  zones[2].records = tamperSignature(zones[2].records, 'www', 'A');
  const files = zones.map(({ zone, records }) => {
    const file = join(dir, `${zone}.zone`);
    writeFileSync(file, renderZoneFile(zone, records));
    return { zone, file };
  });
  knot = await startKnotPrimary(files);
  unbound = await startUnbound({
    trustAnchors: zones.map(({ zone, ds }) => ({ zone, ds: [ds] })),
    stubs: zones.map(({ zone }) => ({ zone, port: knot.port })),
  });
});

afterAll(async () => {
  await unbound?.stop();
  await knot?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** what the resolver said, for a failing assertion's message */
const shown = (answer: ResolverAnswer): string => `\n${answer.text}\nUnbound's log:\n${unbound.log().slice(-4000)}`;

function expectProven(answer: ResolverAnswer, rcode: string): void {
  expect({ rcode: answer.rcode, ad: answer.ad, why: answer.ad ? '' : shown(answer) }).toEqual({ rcode, ad: true, why: '' });
}

describe.each([
  ['NSEC, KSK and ZSK', ZONES.nsec, 'NSEC'],
  ['NSEC3 (no salt, 0 iterations), CSK', ZONES.nsec3, 'NSEC3'],
])('a zone signed with %s, validated by Unbound', (_label, zone, denialType) => {
  it('proves existing data (AD)', async () => {
    const answer = await unbound.query(`www.${zone}`, 'A');
    expectProven(answer, 'NOERROR');
    expect(answer.answer.filter((r) => r.type === 'A').map((r) => r.rdata)).toEqual(['192.0.2.3']);
    expect(answer.answer.some((r) => r.type === 'RRSIG' && r.rdata.startsWith('A '))).toBe(true);
  });

  it('proves a name does not exist (NXDOMAIN with AD)', async () => {
    const answer = await unbound.query(`missing.${zone}`, 'A');
    expectProven(answer, 'NXDOMAIN');
    expect(answer.answer).toEqual([]);
    expect(answer.authority.some((r) => r.type === denialType)).toBe(true);
  });

  it('proves a type does not exist at a name (NODATA with AD)', async () => {
    const answer = await unbound.query(`www.${zone}`, 'TXT');
    expectProven(answer, 'NOERROR');
    expect(answer.answer).toEqual([]);
    expect(answer.authority.some((r) => r.type === denialType)).toBe(true);
  });

  it('proves an empty non-terminal exists without data (NODATA with AD, not NXDOMAIN)', async () => {
    const answer = await unbound.query(`a.b.${zone}`, 'A');
    expectProven(answer, 'NOERROR');
    expect(answer.answer).toEqual([]);
  });

  it('proves a wildcard-expanded answer and that no closer name exists', async () => {
    const answer = await unbound.query(`anything.wild.${zone}`, 'TXT');
    expectProven(answer, 'NOERROR');
    expect(answer.answer.filter((r) => r.type === 'TXT')).toEqual([
      { name: `anything.wild.${zone}.`, ttl: expect.any(Number), type: 'TXT', rdata: '"wildcard"' },
    ]);
    // RFC 4035 §5.3.4: the RRSIG's Labels field counts the wildcard's owner without '*' (here the zone's two
    // labels plus 'wild'), fewer than the answer's owner has: the mark of an expansion
    const rrsig = answer.answer.find((r) => r.type === 'RRSIG');
    expect(rrsig?.rdata.split(' ')[2]).toBe('3');
    // and the proof that the query name itself does not exist comes with it
    expect(answer.authority.some((r) => r.type === denialType)).toBe(true);
  });

  it('proves a delegation is insecure (no DS, with AD)', async () => {
    const answer = await unbound.query(`sub.${zone}`, 'DS');
    expectProven(answer, 'NOERROR');
    expect(answer.answer).toEqual([]);
  });
});

describe('a zone with one tampered RRSIG', () => {
  it('gives SERVFAIL for the name whose signature does not verify, and still proves the rest', async () => {
    const bogus = await unbound.query(`www.${ZONES.tampered}`, 'A');
    expect({ rcode: bogus.rcode, answer: bogus.answer }).toEqual({ rcode: 'SERVFAIL', answer: [] });
    // val-log-level 2 names the failure in the log the tests can read
    expect(unbound.log()).toMatch(new RegExp(`validation failure <www\\.${ZONES.tampered.replace('.', '\\.')}\\. A IN>`));
    // the same zone's other data, under the same keys, still validates: the failure is that one signature
    expectProven(await unbound.query(`ns1.${ZONES.tampered}`, 'A'), 'NOERROR');
  });

  it('stays bogus after the caches are flushed: the failure is the zone, not a cached state', async () => {
    await unbound.flush(ZONES.tampered);
    expect((await unbound.query(`www.${ZONES.tampered}`, 'A')).rcode).toBe('SERVFAIL');
  });
});

describe('the harness', () => {
  it('flush() empties the cache: an answer cached for an hour is gone afterwards', async () => {
    // its own resolver that keeps answers for their whole TTL, so only the flush can take one out
    const keeping = await startUnbound({
      trustAnchors: [{ zone: ZONES.nsec, ds: [nsecDs] }],
      stubs: [{ zone: ZONES.nsec, port: knot.port }],
      cacheMaxTtl: 3600,
    });
    try {
      // the A RRset as Unbound's RRset cache holds it
      const cachedA = async () =>
        (await keeping.cacheDump())
          .split('\n')
          .filter((line) => /^www\.nsec-signed\.example\.\s+\d+\s+IN\s+A\s/.test(line))
          .map((line) => line.split(/\s+/)[4]);
      expect(await cachedA()).toEqual([]);
      expectProven(await keeping.query(`www.${ZONES.nsec}`, 'A'), 'NOERROR');
      expect(await cachedA()).toEqual(['192.0.2.3']);
      await keeping.flush();
      expect(await cachedA()).toEqual([]);
      // and the next answer is proven again from the server, not from a cache
      expectProven(await keeping.query(`www.${ZONES.nsec}`, 'A'), 'NOERROR');
      expect(await cachedA()).toEqual(['192.0.2.3']);
    } finally {
      await keeping.stop();
    }
  });
});
