import * as dnsPacket from 'dns-packet';
import { encodeMessage, FLAG, outgoingRecord, rdataToWire } from '../../src/dns/wire';
import { CanonicalRecord, parseApiRecord, parseRecord, parseStandaloneRecord, parseStandaloneRecords } from '../../src/dns/record';
import { parseOwner } from '../../src/dns/name';
import { getRecordType } from '../../src/dns/record-types';
import { DEFAULT_ALLOWED_TTLS } from '../../src/dns/ttl';
import { errorFromProblems } from '../../src/errors/catalogue';
import {
  checkRecordDeletion,
  checkRecordPlacement,
  checkSoaSerialRaised,
  checkZone,
  soaSerial,
  StoredRecord,
  withSerial,
} from '../../src/dns/zone-rules';

const ZONE = 'example.com';
const SOA_RDATA = 'ns1.example.net. hostmaster.example.net. 2025010100 3600 1800 604800 86400';
const rec = (owner: string, type: string, rdata: string, ttl = 3600, id?: number): StoredRecord => ({ owner, type, rdata, ttl, id });

describe('parseRecord', () => {
  it('returns the canonical record', () => {
    expect(parseRecord(ZONE, { owner: 'Mail.Example.com.', type: 'mx', rdata: '10   mx1', ttl: 3600 }, DEFAULT_ALLOWED_TTLS)).toEqual({
      ok: true,
      record: { owner: 'mail', type: 'MX', rdata: '10 mx1.example.com.', ttl: 3600 },
      warnings: [],
    });
  });

  it('collects every problem, not only the first', () => {
    const result = parseRecord(ZONE, { owner: 'a..b', type: 'MX', rdata: '70000 x', ttl: 61 }, DEFAULT_ALLOWED_TTLS);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => [p.field, p.code])).toEqual([
      ['owner', 'NAME_EMPTY_LABEL'],
      ['rdata', 'MX_PREFERENCE_RANGE'],
      ['ttl', 'TTL_NOT_ALLOWED'],
    ]);
  });

  it('refuses a wildcard NS owner (RFC 4592 §4.2) but allows other wildcard owners', () => {
    const ns = parseRecord(ZONE, { owner: '*.sub', type: 'NS', rdata: 'ns1.example.net.', ttl: 3600 }, DEFAULT_ALLOWED_TTLS);
    expect(!ns.ok && ns.problems.map((p) => p.code)).toEqual(['WILDCARD_NS']);
    expect(parseRecord(ZONE, { owner: '*.sub', type: 'A', rdata: '192.0.2.1', ttl: 3600 }, DEFAULT_ALLOWED_TTLS).ok).toBe(true);
  });

  it('reports unknown types on the type field and still checks owner and TTL', () => {
    const result = parseRecord(ZONE, { owner: 'www.other.org.', type: 'LOCX', rdata: '"x"', ttl: 5 }, DEFAULT_ALLOWED_TTLS);
    expect(!result.ok && result.problems.map((p) => [p.field, p.code])).toEqual([
      ['owner', 'OWNER_OUTSIDE_ZONE'],
      ['type', 'UNKNOWN_TYPE'],
      ['ttl', 'TTL_NOT_ALLOWED'],
    ]);
  });
});

describe('parseStandaloneRecord (content without an origin: the PowerDNS API)', () => {
  const read = (type: string, rdata: string, owner = 'www') =>
    parseStandaloneRecord(ZONE, { owner, type, rdata, ttl: 3600 }, DEFAULT_ALLOWED_TTLS);
  const codes = (type: string, rdata: string) => {
    const result = read(type, rdata);
    return result.ok ? [] : result.problems.map((p) => p.code);
  };

  it('takes names written out whole and quoted character-strings, as PowerDNS writes them', () => {
    expect(read('CNAME', 'Target.Example.NET.')).toMatchObject({ ok: true, record: { rdata: 'target.example.net.' } });
    expect(read('MX', '10 mail.example.com.')).toMatchObject({ ok: true, record: { rdata: '10 mail.example.com.' } });
    expect(read('MX', '0 .')).toMatchObject({ ok: true, record: { rdata: '0 .' } });
    expect(read('SRV', '10 5 5060 .', '_sip._tcp')).toMatchObject({ ok: true, record: { rdata: '10 5 5060 .' } });
    expect(read('SOA', 'ns1.example.net. hostmaster.example.net. 1 3600 1800 604800 86400', '@').ok).toBe(true);
    expect(read('TXT', '"v=spf1 mx -all"')).toMatchObject({ ok: true, record: { rdata: '"v=spf1 mx -all"' } });
    expect(read('TXT', '"a" "b"')).toMatchObject({ ok: true, record: { rdata: '"a" "b"' } });
    expect(read('TXT', '"say \\"hi\\""').ok).toBe(true);
    expect(read('CAA', '0 issue "letsencrypt.org"').ok).toBe(true);
  });

  it('refuses a name that needs an origin and a bare word where a character-string goes', () => {
    for (const [type, rdata] of [
      ['CNAME', 'www'],
      ['CNAME', 'target.example.net'],
      ['CNAME', '@'],
      ['MX', '10 mail'],
      ['NS', 'ns1.example.net'],
      ['PTR', 'host'],
      ['SRV', '10 5 5060 sip.example.net'],
      ['DNAME', 'x'],
      ['SOA', 'ns1.example.net hostmaster.example.net. 1 3600 1800 604800 86400'],
    ])
      expect([type, rdata, codes(type, rdata)]).toEqual([type, rdata, ['NAME_NOT_FULLY_QUALIFIED']]);
    expect(codes('TXT', 'v=spf1 mx -all')).toEqual(['UNQUOTED_STRING', 'UNQUOTED_STRING', 'UNQUOTED_STRING']);
    expect(codes('TXT', '"a" b')).toEqual(['UNQUOTED_STRING']);
    expect(codes('SPF', 'v=spf1 -all')).toContain('UNQUOTED_STRING');
    expect(codes('CAA', '0 issue letsencrypt.org')).toEqual(['UNQUOTED_STRING']);
    // the zone file's reading is untouched: relative names complete with the origin, words are strings
    expect(parseRecord(ZONE, { owner: 'www', type: 'CNAME', rdata: 'web', ttl: 3600 }, DEFAULT_ALLOWED_TTLS)).toMatchObject({
      ok: true,
      record: { rdata: 'web.example.com.' },
    });
    expect(parseRecord(ZONE, { owner: 'www', type: 'TXT', rdata: 'a b', ttl: 3600 }, DEFAULT_ALLOWED_TTLS)).toMatchObject({
      ok: true,
      record: { rdata: '"a" "b"' },
    });
  });
});

describe('an RRset read once for its records (KnownRrset)', () => {
  it('reads each record as it reads it alone: the record, its problems and its warnings', () => {
    const cases: [string, string, string, number][] = [
      ['www.example.com.', 'A', '192.0.2.1', 3600],
      ['Www', 'mx', '10 mail.example.com.', 3600],
      ['www', 'TXT', 'v=spf1 mx -all', 3600],
      ['www', 'TXT', '"v=spf1 mx -all"', 61],
      ['*.w', 'NS', 'ns1.example.net.', 3600],
      ['www', 'CNAME', 'target', 3600],
      ['www', 'A', '999.0.2.1', -1],
      ['_sip._tcp', 'SRV', '10 5 5060 sip.example.net.', 3600],
    ];
    for (const [owner, type, rdata, ttl] of cases) {
      const parsedOwner = parseOwner(owner, ZONE, 'owner');
      const definition = getRecordType(type)!;
      if (!parsedOwner.ok) throw new Error(owner);
      const rrset = { owner: parsedOwner.name, definition };
      const input = { owner, type, rdata, ttl };
      expect([owner, type, rdata, parseStandaloneRecord(ZONE, input, DEFAULT_ALLOWED_TTLS, rrset)]).toEqual([
        owner,
        type,
        rdata,
        parseStandaloneRecord(ZONE, input, DEFAULT_ALLOWED_TTLS),
      ]);
      expect([owner, type, rdata, parseApiRecord(ZONE, input, DEFAULT_ALLOWED_TTLS, rrset)]).toEqual([
        owner,
        type,
        rdata,
        parseApiRecord(ZONE, input, DEFAULT_ALLOWED_TTLS),
      ]);
    }
  });
});

describe("an RRset's records read together (parseStandaloneRecords)", () => {
  it('reads each as it reads it alone, its warnings its own, with the owner read once or for each record', () => {
    // a name outside the host-name rule warns (NAME_NOT_HOSTNAME) for the record that holds it, not its neighbours
    const rdatas = ['10 mail.example.com.', '10 m\\@il.example.com.', '10 mail', '20 mx2.example.com.', '10 o\\@k.example.net.', 'bad'];
    for (const owner of ['www', 'w\\@w']) {
      const input = { owner, type: 'MX', ttl: 3600 };
      const parsedOwner = parseOwner(owner, ZONE, 'owner');
      if (!parsedOwner.ok) throw new Error(owner);
      const known = owner === 'www' ? { owner: parsedOwner.name, definition: getRecordType('MX')! } : undefined;
      const together = parseStandaloneRecords(ZONE, input, rdatas, DEFAULT_ALLOWED_TTLS, known);
      const alone = rdatas.map((rdata) => parseStandaloneRecord(ZONE, { ...input, rdata }, DEFAULT_ALLOWED_TTLS));
      expect(together).toEqual(alone);
      const warned = alone.map((r) => (r.ok ? r.warnings.map((w) => w.code) : 'refused'));
      expect(warned).toEqual(
        owner === 'www'
          ? [[], ['NAME_NOT_HOSTNAME'], 'refused', [], ['NAME_NOT_HOSTNAME'], 'refused']
          : [
              ['NAME_NOT_HOSTNAME'],
              ['NAME_NOT_HOSTNAME', 'NAME_NOT_HOSTNAME'],
              'refused',
              ['NAME_NOT_HOSTNAME'],
              ['NAME_NOT_HOSTNAME', 'NAME_NOT_HOSTNAME'],
              'refused',
            ],
      );
    }
  });
});

describe('checkRecordPlacement', () => {
  const apex = [
    rec('@', 'SOA', SOA_RDATA, 3600, 1),
    rec('@', 'NS', 'ns1.example.net.', 3600, 2),
    rec('@', 'NS', 'ns2.example.net.', 3600, 3),
  ];

  it.each([
    [
      'a duplicate (TTL not part of identity)',
      [rec('www', 'A', '192.0.2.1', 300)],
      rec('www', 'A', '192.0.2.1', 3600),
      ['DUPLICATE_RECORD'],
    ],
    ['a CNAME beside an A', [rec('www', 'A', '192.0.2.1')], rec('www', 'CNAME', 'x.example.net.'), ['CNAME_CONFLICT']],
    ['an A beside a CNAME', [rec('www', 'CNAME', 'x.example.net.')], rec('www', 'A', '192.0.2.1'), ['CNAME_CONFLICT']],
    ['a second CNAME', [rec('www', 'CNAME', 'x.example.net.')], rec('www', 'CNAME', 'y.example.net.'), ['CNAME_CONFLICT']],
    ['a CNAME beside a TXT', [rec('www', 'TXT', '"x"')], rec('www', 'CNAME', 'y.example.net.'), ['CNAME_CONFLICT']],
    ['a DS at the apex', apex, rec('@', 'DS', '1 8 2 ' + 'AB'.repeat(32)), ['DS_AT_APEX']],
    // said once, on the CNAME: not again as a conflict with each of the apex's types
    ['a CNAME at the apex', apex, rec('@', 'CNAME', 'x.example.net.'), ['CNAME_AT_APEX']],
    ['an SOA off the apex', [], rec('www', 'SOA', SOA_RDATA), ['SOA_NOT_AT_APEX']],
    ['a second SOA', apex, rec('@', 'SOA', SOA_RDATA.replace('2025010100', '2025010101')), ['SOA_SINGLETON']],
    ['a different TTL in an RRset', [rec('www', 'A', '192.0.2.1', 3600)], rec('www', 'A', '192.0.2.2', 300), ['TTL_MISMATCH']],
    ['a DNAME beside a CNAME', [rec('x', 'CNAME', 'y.example.net.')], rec('x', 'DNAME', 'example.net.'), ['DNAME_CONFLICT']],
    ['a CNAME beside a DNAME', [rec('x', 'DNAME', 'example.net.')], rec('x', 'CNAME', 'y.example.net.'), ['DNAME_CONFLICT']],
    ['a second DNAME', [rec('x', 'DNAME', 'example.net.')], rec('x', 'DNAME', 'example.org.'), ['DNAME_CONFLICT']],
    ['a null MX beside an MX', [rec('@', 'MX', '10 mx.example.net.')], rec('@', 'MX', '0 .'), ['NULL_MX_NOT_ALONE']],
    ['an MX beside a null MX', [rec('@', 'MX', '0 .')], rec('@', 'MX', '10 mx.example.net.'), ['NULL_MX_NOT_ALONE']],
  ])('refuses %s', (_name, sameOwner, next, expected) => {
    expect(checkRecordPlacement(ZONE, sameOwner, next).map((p) => p.code)).toEqual(expected);
  });

  it.each([
    ['a second A with the same TTL', [rec('www', 'A', '192.0.2.1')], rec('www', 'A', '192.0.2.2')],
    ['an MX beside an A', [rec('www', 'A', '192.0.2.1')], rec('www', 'MX', '10 mx.example.net.')],
    ['a DNAME beside an A', [rec('x', 'A', '192.0.2.1')], rec('x', 'DNAME', 'example.net.')],
    ['an NS at the apex', apex, rec('@', 'NS', 'ns3.example.net.')],
  ])('allows %s', (_name, sameOwner, next) => {
    expect(checkRecordPlacement(ZONE, sameOwner, next)).toEqual([]);
  });

  it('says a CNAME at the apex once, suggesting ALIAS, and not again on the apex data beside it', () => {
    const [problem] = checkRecordPlacement(ZONE, apex, rec('@', 'CNAME', 'x.example.net.'));
    expect(problem.message).toMatch(/an ALIAS record serves its target's addresses there instead \(with ALIAS_RESOLVERS set\)$/);
    expect(checkRecordPlacement(ZONE, [rec('@', 'CNAME', 'x.example.net.')], rec('@', 'MX', '10 mx.example.net.'))).toEqual([]);
  });

  it('names the owner an SOA off the apex has, absolute, and suggests the final dot the zone name lacked', () => {
    const [relative] = checkRecordPlacement(ZONE, [], rec('example.com', 'SOA', SOA_RDATA));
    expect(relative.message).toBe(
      'owner: the SOA record belongs at the apex (@) of example.com, not at example.com.example.com. (`example.com` without a final dot is relative to the zone: write `example.com.`, or @)',
    );
    const [www] = checkRecordPlacement(ZONE, [], rec('www', 'SOA', SOA_RDATA));
    expect(www.message).toBe('owner: the SOA record belongs at the apex (@) of example.com, not at www.example.com.');
  });

  it('an edit replaces its previous version', () => {
    const previous = rec('www', 'A', '192.0.2.1', 3600, 7);
    expect(checkRecordPlacement(ZONE, [previous], rec('www', 'CNAME', 'x.example.net.'), previous)).toEqual([]);
    // changing the TTL of a lone record is fine; of one record in an RRset it is not
    expect(checkRecordPlacement(ZONE, [previous], rec('www', 'A', '192.0.2.1', 300), previous)).toEqual([]);
    const sibling = rec('www', 'A', '192.0.2.9', 3600, 8);
    expect(checkRecordPlacement(ZONE, [previous, sibling], rec('www', 'A', '192.0.2.1', 300), previous).map((p) => p.code)).toEqual([
      'TTL_MISMATCH',
    ]);
  });

  it('an edit that changes nothing is a duplicate; SOA type changes are refused', () => {
    const [soa, ns] = apex;
    expect(checkRecordPlacement(ZONE, apex, { ...ns }, ns).map((p) => p.code)).toEqual(['DUPLICATE_RECORD']);
    expect(checkRecordPlacement(ZONE, apex, { ...ns, ttl: 300 }, ns).map((p) => p.code)).toEqual(['TTL_MISMATCH']); // ns2 keeps 3600
    expect(checkRecordPlacement(ZONE, apex, rec('@', 'TXT', '"x"'), soa).map((p) => p.code)).toEqual(['SOA_TYPE_CHANGE']);
    expect(checkRecordPlacement(ZONE, apex, rec('@', 'SOA', SOA_RDATA), ns).map((p) => p.code)).toEqual([
      'DUPLICATE_RECORD',
      'SOA_TYPE_CHANGE',
      'SOA_SINGLETON',
    ]);
  });
});

describe('checkRecordDeletion', () => {
  const ns1 = rec('@', 'NS', 'ns1.example.net.', 3600, 2);
  const ns2 = rec('@', 'NS', 'ns2.example.net.', 3600, 3);
  it('refuses deleting the SOA', () => {
    expect(checkRecordDeletion([rec('@', 'SOA', SOA_RDATA, 3600, 1)], rec('@', 'SOA', SOA_RDATA, 3600, 1)).map((p) => p.code)).toEqual([
      'SOA_UNDELETABLE',
    ]);
  });
  it('refuses deleting the last apex NS, allows the others', () => {
    expect(checkRecordDeletion([ns1], ns1).map((p) => p.code)).toEqual(['LAST_APEX_NS']);
    expect(checkRecordDeletion([ns1, ns2], ns1)).toEqual([]);
    expect(checkRecordDeletion([rec('sub', 'NS', 'x.', 3600, 4)], rec('sub', 'NS', 'x.', 3600, 4))).toEqual([]);
  });
});

describe('SOA serial helpers', () => {
  it('reads and replaces the serial', () => {
    expect(soaSerial(SOA_RDATA)).toBe(2025010100);
    expect(withSerial(SOA_RDATA, 7)).toBe('ns1.example.net. hostmaster.example.net. 7 3600 1800 604800 86400');
    expect(() => withSerial(SOA_RDATA, 2 ** 32)).toThrow(RangeError);
  });
  it.each([
    [2025010100, 2025010101, []],
    [2025010100, 2025010100, ['SOA_SERIAL_NOT_INCREASED']],
    [2025010100, 2025010099, ['SOA_SERIAL_NOT_INCREASED']],
    [4294967295, 0, []],
    [0, 2147483648, ['SOA_SERIAL_NOT_INCREASED']],
  ])('%d -> %d', (before, after, expected) => {
    expect(checkSoaSerialRaised(withSerial(SOA_RDATA, before), withSerial(SOA_RDATA, after)).map((p) => p.code)).toEqual(expected);
  });
});

describe('checkZone', () => {
  const good: CanonicalRecord[] = [
    rec('@', 'SOA', SOA_RDATA),
    rec('@', 'NS', 'ns1.example.net.'),
    rec('www', 'CNAME', 'example.com.'),
    rec('@', 'A', '192.0.2.1'),
  ];
  it('accepts a complete zone', () => {
    expect(checkZone(ZONE, good)).toEqual([]);
  });
  it('needs one SOA and an apex NS', () => {
    expect(checkZone(ZONE, [rec('www', 'A', '192.0.2.1')]).map((p) => p.code)).toEqual(['SOA_MISSING', 'APEX_NS_MISSING']);
  });
  it('applies the placement rules', () => {
    expect(checkZone(ZONE, [...good, rec('www', 'A', '192.0.2.1'), rec('@', 'SOA', SOA_RDATA)]).map((p) => p.code)).toEqual([
      'CNAME_CONFLICT',
      'DUPLICATE_RECORD',
      'SOA_SINGLETON',
    ]);
  });
});

/**
 * dns-packet 5.6.1 as an independent peer: it decodes the primary's answers (owner names compressed, RDATA of
 * every type) to the same fields; the types it does not know it gives back as opaque RDATA, which must be the
 * octets of the type's RFC wire form.
 */
describe('answers as an independent decoder (dns-packet) reads them', () => {
  const cases: [string, string][] = [
    ['A', '192.0.2.1'],
    ['AAAA', '2001:db8::1'],
    ['MX', '10 mx.example.net.'],
    ['MX', '0 .'],
    ['SRV', '1 2 3 sip.example.net.'],
    ['SOA', SOA_RDATA],
    ['TXT', '"a" "b\\255"'],
    ['CAA', '0 issue "letsencrypt.org"'],
    ['DS', '1 8 2 ' + 'AB'.repeat(32)],
    ['TLSA', '3 1 1 ' + 'CD'.repeat(32)],
    ['SSHFP', '1 1 ' + 'EF'.repeat(20)],
    ['NAPTR', '1 2 "U" "E2U+sip" "!^.*$!sip:x@example.com!" .'],
    ['NS', 'ns1.example.net.'],
    ['CNAME', 'x.example.net.'],
    ['DNAME', 'example.net.'],
    ['PTR', 'x.example.net.'],
  ];
  it.each(cases)('%s %s: dns-packet decodes it and writes the same RDATA back', (type, rdata) => {
    const answer = outgoingRecord(ZONE, { owner: 'host', type, rdata, ttl: 300 });
    const message = encodeMessage({
      id: 1,
      flags: FLAG.QR,
      questions: [{ name: 'host.example.com.', type: answer.type, klass: 1 }],
      answers: [answer, answer],
    });
    const decoded = dnsPacket.decode(message);
    const got = decoded.answers![1] as { name: string; ttl: number; data: unknown; type: string };
    expect(got.name).toBe('host.example.com');
    expect(got.ttl).toBe(300);
    expect(got.type).toBe(type);
    // dns-packet's own encoding of what it read, uncompressed: its RDATA is ours, uncompressed
    const again: Buffer = (dnsPacket as unknown as { answer: { encode(a: unknown): Buffer } }).answer.encode({
      ...(got as object),
      class: 'IN',
    });
    const ours = rdataToWire(type, (answer.rdata as { value: unknown }).value);
    expect(again.subarray(again.length - ours.length).toString('hex')).toBe(ours.toString('hex'));
    expect(again.readUInt16BE(again.length - ours.length - 2)).toBe(ours.length);
  });

  it.each([
    ['CAA', '0 issue "\\200"'],
    ['SSHFP', '1 7 0102'],
    ['NAPTR', '1 2 "U" "\\200" "" x.example.net.'],
    ['SVCB', '1 . alpn="h2,h3" port=443'],
    ['HTTPS', '0 cdn.example.net.'],
    ['ZONEMD', '2018031900 1 1 ' + 'AB'.repeat(48)],
  ])("%s %s: octets dns-packet cannot hold as text go out as the type's wire form", (type, rdata) => {
    const answer = outgoingRecord(ZONE, { owner: 'host', type, rdata, ttl: 300 });
    const message = encodeMessage({ id: 1, flags: FLAG.QR, answers: [answer] });
    const ours = rdataToWire(type, (answer.rdata as { value: unknown }).value);
    // the answer is the message's last RR: its RDLENGTH, then exactly the RDATA (RFC 1035 §4.1.3)
    expect(message.subarray(message.length - ours.length).equals(ours)).toBe(true);
    expect(message.readUInt16BE(message.length - ours.length - 2)).toBe(ours.length);
    expect(dnsPacket.decode(message).answers![0].name).toBe('host.example.com');
  });

  it('writes HTTPS in the RFC 9460 §2.2 wire form', () => {
    const answer = outgoingRecord(ZONE, { owner: '@', type: 'HTTPS', rdata: '1 . alpn="h2" port=443', ttl: 60 });
    expect(answer.type).toBe(65);
    // priority 1, root, key 1 len 3 "\x02h2", key 3 len 2 443
    expect(rdataToWire('HTTPS', (answer.rdata as { value: unknown }).value).toString('hex')).toBe(
      '0001' + '00' + '0001' + '0003' + '026832' + '0003' + '0002' + '01bb',
    );
  });
});

describe("the CNAME conflict names the type already at the owner, in RESTKnot's words (docs/decisions.md §3)", () => {
  const apex = [
    rec('@', 'SOA', SOA_RDATA, 3600, 1),
    rec('@', 'NS', 'ns1.example.net.', 3600, 2),
    rec('@', 'NS', 'ns2.example.net.', 3600, 3),
  ];
  test.each([
    [
      'a CNAME where an A is',
      [rec('www', 'A', '192.0.2.1')],
      rec('www', 'CNAME', 'x.example.net.'),
      'An A record already exist with that owner',
    ],
    [
      'a CNAME where a TXT is',
      [rec('www', 'TXT', '"x"')],
      rec('www', 'CNAME', 'x.example.net.'),
      'A TXT record already exist with that owner',
    ],
    [
      'a CNAME where an A, an AAAA and a TXT are: each named',
      [rec('www', 'A', '192.0.2.1'), rec('www', 'AAAA', '2001:db8::1'), rec('www', 'TXT', '"x"')],
      rec('www', 'CNAME', 'x.example.net.'),
      'A, AAAA and TXT records already exist with that owner',
    ],
    [
      'an A where a CNAME is',
      [rec('www', 'CNAME', 'x.example.net.')],
      rec('www', 'A', '192.0.2.1'),
      'A CNAME record already exist with that owner',
    ],
    [
      'a second CNAME',
      [rec('www', 'CNAME', 'x.example.net.')],
      rec('www', 'CNAME', 'y.example.net.'),
      'A CNAME record already exist with that owner',
    ],
  ])('%s', (_label, existing, next, message) => {
    const error = errorFromProblems(checkZone(ZONE, [...apex, ...existing, next]));
    expect(error.code).toBe('CNAME_CONFLICT');
    expect(error.message).toBe(message);
  });
});
