import { DNSSEC_ALGORITHMS, parseDnssecAlgorithm, privateKeyFromPkcs8, privateKeyToPkcs8 } from '../../src/dns/dnssec/algorithms';
import { dnskeyOf, dnskeyRdata, dnskeyTag } from '../../src/dns/dnssec/keys';
import { keyTag } from '../../src/dns/dnssec/key-tag';
import { base32hex, fromBase32hex, nsec3Hash } from '../../src/dns/wire/nsec3-hash';
import { rrsigLabels, signingInput, signRrset } from '../../src/dns/dnssec/rrsig';
import { formatSignatureTime, RRSIG, rrsigCoverage } from '../../src/dns/record-types/signer-types';
import '../../src/dns/record-types';
import { canonicalSortKey } from '../../src/dns/dnssec/canonical-order';
import { compareCanonicalNames, nameToWire } from '../../src/dns/wire';
import { typeBitmap, typesOfBitmap } from '../../src/dns/wire/type-bitmap';
import { nameLabels } from '../../src/dns/name';
import { CDS } from '../../src/dns/record-types/cds';
import { CDNSKEY } from '../../src/dns/record-types/cdnskey';
import { DS } from '../../src/dns/record-types/ds';
import { rdataToWire } from '../../src/dns/wire';

describe('NSEC3 hashing (RFC 5155 §5)', () => {
  // RFC 5155 Appendix A: salt aabbccdd, 12 additional iterations
  it.each([
    ['example.', '0p9mhaveqvm6t7vbl5lop2u3t2rp3tom'],
    ['a.example.', '35mthgpgcu1qg68fab165klnsnk3dpvl'],
    ['ai.example.', 'gjeqe526plbf1g8mklp59enfd789njgi'],
  ])('%s hashes to %s', (name, expected) => {
    expect(base32hex(nsec3Hash(nameToWire(name), Buffer.from('aabbccdd', 'hex'), 12))).toBe(expected);
  });

  it('base32hex follows RFC 4648 §10 (without padding) and reads back', () => {
    expect(['', 'f', 'fo', 'foo', 'foob', 'fooba', 'foobar'].map((s) => base32hex(Buffer.from(s)))).toEqual([
      '',
      'co',
      'cpng',
      'cpnmu',
      'cpnmuog',
      'cpnmuoj1',
      'cpnmuoj1e8',
    ]);
    const digest = nsec3Hash(nameToWire('www.example.com.'), Buffer.alloc(0), 0);
    expect(fromBase32hex(base32hex(digest)).equals(digest)).toBe(true);
  });
});

describe('type bit maps (RFC 4034 §4.1.2)', () => {
  it('writes the RFC 4034 §4.3 example: A MX RRSIG NSEC TYPE1234', () => {
    const bitmap = typeBitmap([1, 15, 46, 47, 1234]);
    const expected = Buffer.alloc(37);
    Buffer.from([0x00, 0x06, 0x40, 0x01, 0x00, 0x00, 0x00, 0x03, 0x04, 0x1b]).copy(expected);
    expected[36] = 0x20;
    expect(bitmap.toString('hex')).toBe(expected.toString('hex'));
    expect(typesOfBitmap(bitmap)).toEqual([1, 15, 46, 47, 1234]);
  });

  it('lists each type once, in ascending order', () => {
    expect(typesOfBitmap(typeBitmap([65, 2, 2, 6, 257]))).toEqual([2, 6, 65, 257]);
  });
});

describe('algorithm names and numbers (the one reader of the CLI, REST and the PowerDNS API)', () => {
  it.each([
    ['ECDSAP256SHA256', 'ECDSAP256SHA256'],
    ['ecdsap256sha256', 'ECDSAP256SHA256'],
    [' EcdsaP256Sha256 ', 'ECDSAP256SHA256'],
    ['ecdsa256', 'ECDSAP256SHA256'],
    ['13', 'ECDSAP256SHA256'],
    [13, 'ECDSAP256SHA256'],
    ['ed25519', 'ED25519'],
    ['15', 'ED25519'],
    ['RSASHA256', 'RSASHA256'],
    ['8', 'RSASHA256'],
    ['008', 'RSASHA256'],
  ])('%j is %s', (written, name) => {
    expect(parseDnssecAlgorithm(written)?.name).toBe(name);
  });

  // algorithms we do not sign with (RSASHA1 is 5, ECDSAP384SHA384 14), and what names no algorithm
  it.each(['RSASHA1', '5', '14', 'ECDSAP384SHA384', 'DSA', '', '13.0', '-13', '0x0d', '1300', 'ECDSAP256SHA256 '.repeat(2)])(
    '%j is none',
    (written) => {
      expect(parseDnssecAlgorithm(written)).toBeUndefined();
    },
  );
});

describe('keys and signatures', () => {
  const data = Buffer.from('the canonical bytes of an RRset');

  it.each(Object.values(DNSSEC_ALGORITHMS))('$name signs and the DNSKEY public key verifies; PKCS#8 round trip', (algorithm) => {
    const privateKey = algorithm.name === 'RSASHA256' ? algorithm.generate(1024) : algorithm.generate();
    const dnskey = dnskeyOf(privateKey, algorithm, false);
    const signature = algorithm.sign(data, privateKey);
    expect(algorithm.verify(data, signature, dnskey.key)).toBe(true);
    expect(algorithm.verify(Buffer.concat([data, Buffer.from('!')]), signature, dnskey.key)).toBe(false);
    const again = privateKeyFromPkcs8(privateKeyToPkcs8(privateKey));
    expect(algorithm.verify(data, algorithm.sign(data, again), dnskey.key)).toBe(true);
  });

  it('has the field sizes RFC 6605 and RFC 8080 give', () => {
    const ec = DNSSEC_ALGORITHMS.ECDSAP256SHA256;
    const ed = DNSSEC_ALGORITHMS.ED25519;
    const ecKey = ec.generate();
    const edKey = ed.generate();
    expect(ec.publicKeyField(ecKey)).toHaveLength(64);
    expect(ec.sign(data, ecKey)).toHaveLength(64);
    expect(ed.publicKeyField(edKey)).toHaveLength(32);
    expect(ed.sign(data, edKey)).toHaveLength(64);
    expect(dnskeyOf(ecKey, ec, true).flags).toBe(257);
    expect(dnskeyOf(ecKey, ec, false).flags).toBe(256);
  });

  it("gives each key's size in bits from its DNSKEY public-key field", () => {
    const rsa = DNSSEC_ALGORITHMS.RSASHA256;
    expect(rsa.keyBits(rsa.publicKeyField(rsa.generate(1024)))).toBe(1024);
    const ec = DNSSEC_ALGORITHMS.ECDSAP256SHA256;
    expect(ec.keyBits(ec.publicKeyField(ec.generate()))).toBe(256);
    const ed = DNSSEC_ALGORITHMS.ED25519;
    expect(ed.keyBits(ed.publicKeyField(ed.generate()))).toBe(256);
  });

  it('computes the key tag of RFC 4034 Appendix B', () => {
    // a DNSKEY RDATA of 4 + 2 octets: 0x0101 + 0x0308 + 0x0102 (sum of 16-bit words), no carry
    expect(keyTag(Buffer.from([0x01, 0x01, 0x03, 0x08, 0x01, 0x02]))).toBe(0x0101 + 0x0308 + 0x0102);
    // an odd length: the last octet counts as the high half of a word; the carry is folded back in
    expect(keyTag(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x80]))).toBe((0xffff + 0xffff + 0x8000 + 2) & 0xffff);
    const key = DNSSEC_ALGORITHMS.ED25519.generate();
    const value = dnskeyOf(key, DNSSEC_ALGORITHMS.ED25519, true);
    expect(dnskeyTag(value)).toBe(keyTag(dnskeyRdata(value)));
  });

  it('signs an RRset in canonical order: the order the records come in does not matter', () => {
    const algorithm = DNSSEC_ALGORITHMS.ECDSAP256SHA256;
    const key = algorithm.generate();
    const owner = nameToWire('www.example.com.');
    const rrs = [Buffer.from([192, 0, 2, 2]), Buffer.from([192, 0, 2, 1]), Buffer.from([192, 0, 2, 1])].map((rdata) => ({
      owner,
      type: 1,
      ttl: 300,
      rdata,
    }));
    const fields = {
      typeCovered: 1,
      algorithm: 13,
      labels: 3,
      originalTtl: 300,
      expiration: 1_800_000_000,
      inception: 1_700_000_000,
      keyTag: 1,
      signer: nameToWire('example.com.'),
    };
    const input = signingInput(fields, rrs);
    expect(input.equals(signingInput(fields, [...rrs].reverse()))).toBe(true);
    // the duplicate is signed once: head + 2 × (owner + 10 + 4)
    expect(input.length).toBe(18 + nameToWire('example.com.').length + 2 * (owner.length + 14));
    const signed = signRrset(fields, rrs, algorithm, key);
    expect(algorithm.verify(input, signed.signature, algorithm.publicKeyField(key))).toBe(true);
  });

  it('counts labels without the root and a leading wildcard (RFC 4034 §3.1.3), writes times as RFC 4034 §3.2', () => {
    expect(rrsigLabels(nameLabels('*.a.example.com'))).toBe(3);
    expect(rrsigLabels(nameLabels('a.example.com'))).toBe(3);
    expect(rrsigLabels(nameLabels('.'))).toBe(0);
    expect(formatSignatureTime(1_700_000_000)).toBe('20231114221320');
  });
});

describe('canonical sort key', () => {
  // RFC 4034 §6.1's own example, in its order
  const names = [
    'example.',
    'a.example.',
    'yljkjljk.a.example.',
    'Z.a.example.',
    'zABC.a.EXAMPLE.',
    'z.example.',
    '\\001.z.example.',
    '*.z.example.',
    '\\200.z.example.',
  ];

  it('orders names as RFC 4034 §6.1 does, by plain octet comparison', () => {
    const keys = names.map((name) => ({ name, key: canonicalSortKey(nameLabels(name)) }));
    const sorted = [...keys].sort((a, b) => Buffer.compare(a.key, b.key)).map((k) => k.name);
    expect(sorted).toEqual(names);
    expect([...names].sort(compareCanonicalNames)).toEqual(names);
  });
});

describe('the DS-delete CDS and CDNSKEY (RFC 8078 §4)', () => {
  it('takes CDS 0 0 0 00 and CDNSKEY 0 3 0 AA==, and writes them as the RFC shows them', () => {
    const cds = CDS.parse('0 0 0 00', 'example.');
    expect(cds.ok && cds.canonical).toBe('0 0 0 00');
    expect(cds.ok && rdataToWire(CDS, cds.value)).toEqual(Buffer.from([0, 0, 0, 0, 0]));
    const cdnskey = CDNSKEY.parse('0 3 0 AA==', 'example.');
    expect(cdnskey.ok && cdnskey.canonical).toBe('0 3 0 AA==');
    expect(cdnskey.ok && rdataToWire(CDNSKEY, cdnskey.value)).toEqual(Buffer.from([0, 0, 3, 0, 0]));
  });

  it('refuses digest type 0 anywhere else: a longer digest, or in a DS', () => {
    expect(CDS.parse('0 0 0 0000', 'example.').ok).toBe(false);
    expect(CDS.parse('1 0 0 00', 'example.').ok).toBe(false);
    expect(DS.parse('0 0 0 00', 'example.').ok).toBe(false);
  });
});

describe('an RRSIG read by its leading fields', () => {
  it('gives the covered type and expiration a full parse gives, and nothing for what does not parse', () => {
    const rdata = 'NSEC 13 3 300 20261208123422 20261124113422 40000 example.com. ' + Buffer.alloc(64, 7).toString('base64');
    const parsed = RRSIG.parse(rdata, 'example.com');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(rrsigCoverage(rdata)).toEqual({ typeCovered: 47, expiration: parsed.value.expiration });
    expect(rrsigCoverage('TYPE65000 13 3 300 4000000000 1 2 example.com. AAAA')).toEqual({ typeCovered: 65000, expiration: 4000000000 });
    expect(rrsigCoverage('NOTATYPE 13 3 300 20261208123422 20261124113422 40000 example.com. AAAA')).toBeUndefined();
    expect(rrsigCoverage('A 13 3 300 2026-12-08 20261124113422 40000 example.com. AAAA')).toBeUndefined();
    expect(rrsigCoverage('A 13 3')).toBeUndefined();
  });
});
