/**
 * The wire module's name codec and the canonical forms: compression written and followed, pointer loops and
 * over-long names refused, escaped labels kept octet for octet, and the canonical form lower-casing names only
 * in the RDATA of the types RFC 4034 §6.2 lists (as RFC 6840 §5.1 corrects it). dns-packet decodes what we
 * write as an independent peer.
 */
import dnsPacket from 'dns-packet';
import { EDE, extendedErrorOption, readExtendedError } from '../../src/dns/extended-error';
import {
  canonicalNameWire,
  canonicalRecordWire,
  canonicalRRsetOrder,
  compareCanonicalNames,
  encodeMessage,
  FLAG,
  LOWERCASED_RDATA_TYPES,
  nameToWire,
  outgoingRecord,
  rdataToWire,
  readEdns,
  readName,
  readWireMessage,
  WireFormatError,
  WireWriter,
  COMPRESSIBLE_RDATA_TYPES,
} from '../../src/dns/wire';

const ZONE = 'example.com';
const header = Buffer.from([0, 1, 0x81, 0, 0, 0, 0, 1, 0, 0, 0, 0]);
/** a message whose one answer's owner is `name` (octets as given), type A, RDATA 192.0.2.1 */
const withOwner = (name: number[]) =>
  Buffer.concat([header, Buffer.from(name), Buffer.from([0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 1])]);

describe('writer', () => {
  test('grows from any size without losing a field', () => {
    const writer = new WireWriter({ size: 1 });
    const expected: Buffer[] = [];
    for (let i = 0; i < 200; i++) {
      writer
        .u8(i)
        .u16(i * 7)
        .u32(i * 65537)
        .u48(i * 2 ** 33 + 5)
        .bytes([i, i]);
      const b = Buffer.alloc(15);
      b.writeUInt8(i, 0);
      b.writeUInt16BE(i * 7, 1);
      b.writeUInt32BE(i * 65537, 3);
      b.writeUInt16BE(Math.floor((i * 2 ** 33 + 5) / 2 ** 32), 7);
      b.writeUInt32BE((i * 2 ** 33 + 5) % 2 ** 32, 9);
      b.writeUInt8(i, 13);
      b.writeUInt8(i, 14);
      expected.push(b);
    }
    expect(writer.toBuffer().equals(Buffer.concat(expected))).toBe(true);
  });

  test('refuses a <character-string> over 255 octets and RDATA over 65535', () => {
    expect(() => new WireWriter().characterString(Buffer.alloc(256))).toThrow(RangeError);
    const writer = new WireWriter();
    const at = writer.beginLength();
    writer.bytes(Buffer.alloc(65536));
    expect(() => writer.endLength(at)).toThrow(RangeError);
  });
});

describe('names on the wire (RFC 1035 §3.1, §4.1.4)', () => {
  test('escaped labels go out as their octets and come back in the same escaped form, case kept', () => {
    for (const [name, octets] of [
      ['a\\.b.Example.com.', [3, 0x61, 0x2e, 0x62, 7, ...Buffer.from('Example'), 3, ...Buffer.from('com'), 0]],
      ['\\200.example.', [1, 200, 7, ...Buffer.from('example'), 0]],
      ['\\000\\032x.example.', [3, 0, 32, 0x78, 7, ...Buffer.from('example'), 0]],
      ['.', [0]],
    ] as [string, number[]][]) {
      expect([name, nameToWire(name).toString('hex')]).toEqual([name, Buffer.from(octets).toString('hex')]);
      expect(readName(Buffer.from(octets), 0)).toEqual({ name, octets: octets.length });
    }
  });

  test('compression: names share the suffixes written before, and both decoders read the same names back', () => {
    const records = ['@', 'www', 'mail', 'a.b.deep', 'x.deep'].map((owner) =>
      outgoingRecord(ZONE, { owner, type: 'A', rdata: '192.0.2.1', ttl: 60 }),
    );
    const mx = outgoingRecord(ZONE, { owner: '@', type: 'MX', rdata: '10 mail.example.com.', ttl: 60 });
    const message = encodeMessage({
      id: 7,
      flags: FLAG.QR,
      questions: [{ name: 'example.com.', type: 255, klass: 1 }],
      answers: [...records, mx],
    });
    // each owner after the question's is a pointer or labels ending in one: far below 17 octets a name
    const uncompressed =
      12 + 17 + records.reduce((n, r) => n + nameToWire(r.name).length + 14, 0) + nameToWire(mx.name).length + 10 + 2 + 18;
    expect(message.length).toBeLessThan(uncompressed - 50);
    const framed = readWireMessage(message);
    expect(framed.answers.map((r) => r.name)).toEqual([
      'example.com.',
      'www.example.com.',
      'mail.example.com.',
      'a.b.deep.example.com.',
      'x.deep.example.com.',
      'example.com.',
    ]);
    const peer = dnsPacket.decode(message);
    expect(peer.answers!.map((a) => a.name)).toEqual([
      'example.com',
      'www.example.com',
      'mail.example.com',
      'a.b.deep.example.com',
      'x.deep.example.com',
      'example.com',
    ]);
    // MX is an RFC 1035 type: its exchange is compressed to one pointer, at `mail.example.com.` (RFC 3597 §4)
    const mxRdlength = message.readUInt16BE(message.length - 6);
    expect(mxRdlength).toBe(4);
    expect((peer.answers![5] as { data: { exchange: string } }).data.exchange).toBe('mail.example.com');
  });

  test.each([
    ['SRV', '1 2 3 www.example.com.'],
    ['NAPTR', '1 2 "U" "" "" www.example.com.'],
    ['SVCB', '1 www.example.com.'],
    ['LP', '10 www.example.com.'],
    ['RP', 'www.example.com. www.example.com.'],
  ])('%s: names in RDATA of a type outside RFC 1035 are never compressed (RFC 3597 §4)', (type, rdata) => {
    const owner = outgoingRecord(ZONE, { owner: 'www', type: 'A', rdata: '192.0.2.1', ttl: 60 });
    const record = outgoingRecord(ZONE, { owner: 'www', type, rdata, ttl: 60 });
    const message = encodeMessage({ id: 1, flags: FLAG.QR, answers: [owner, record] });
    const uncompressed = rdataToWire(type, (record.rdata as { value: unknown }).value);
    expect(message.subarray(message.length - uncompressed.length).equals(uncompressed)).toBe(true);
  });

  test('the RFC 1035 types are the only ones that compress', () => {
    expect([...COMPRESSIBLE_RDATA_TYPES].sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 12, 14, 15]);
  });

  test('a pointer to itself, forwards, or in a loop is refused; so is a name over 255 octets', () => {
    // the owner at offset 12 points at 12: itself
    expect(() => readWireMessage(withOwner([0xc0, 12]))).toThrow(WireFormatError);
    // forwards, past itself
    expect(() => readWireMessage(withOwner([0xc0, 14, 0]))).toThrow(WireFormatError);
    // a label, then a pointer back to that label: a loop through two positions
    expect(() => readWireMessage(withOwner([1, 0x61, 0xc0, 12]))).toThrow(/backwards/);
    // two names: the second points at the first, which is fine, and back again, which is not
    const ok = Buffer.from([1, 0x61, 0, 0xc0, 0]);
    expect(readName(ok, 3)).toEqual({ name: 'a.', octets: 2 });
    // 4 labels of 63 octets and one of 3: 4*64 + 4 + 1 = 261 octets
    const long = [
      ...Array(4)
        .fill([63, ...Buffer.alloc(63, 0x61)])
        .flat(),
      3,
      0x61,
      0x61,
      0x61,
      0,
    ];
    expect(() => readName(Buffer.from(long), 0)).toThrow(/255/);
    expect(() => readName(Buffer.from([2, 0x61]), 0)).toThrow(WireFormatError);
    expect(() => readName(Buffer.from([0x40, 0]), 0)).toThrow(WireFormatError);
  });
});

describe('the canonical form (RFC 4034 §6)', () => {
  test('the list of types whose RDATA names are lower-cased is RFC 4034 §6.2 without NSEC (RFC 6840 §5.1)', () => {
    expect(LOWERCASED_RDATA_TYPES.has(47)).toBe(false); // NSEC
    expect(LOWERCASED_RDATA_TYPES.has(46)).toBe(true); // RRSIG
    expect([...LOWERCASED_RDATA_TYPES].sort((a, b) => a - b)).toEqual([
      2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 17, 18, 21, 24, 26, 30, 33, 35, 36, 38, 39, 46,
    ]);
  });

  test.each([
    ['MX', { preference: 10, exchange: 'Mail.Example.COM.' }, true],
    ['NS', { target: 'NS1.Example.net.' }, true],
    ['CNAME', { target: 'X.Example.net.' }, true],
    ['DNAME', { target: 'Example.NET.' }, true],
    ['PTR', { target: 'Host.Example.' }, true],
    ['SOA', { mname: 'NS1.Example.', rname: 'Host.Master.Example.', serial: 1, refresh: 2, retry: 3, expire: 4, minimum: 5 }, true],
    ['SRV', { priority: 1, weight: 2, port: 3, target: 'SIP.Example.' }, true],
    [
      'NAPTR',
      {
        order: 1,
        preference: 2,
        flags: Buffer.from('u'),
        services: Buffer.from('e2u+sip'),
        regexp: Buffer.from(''),
        replacement: 'SIP.Example.',
      },
      true,
    ],
    ['RP', { mbox: 'Admin.Example.', txt: 'Info.Example.' }, true],
    ['LP', { preference: 10, fqdn: 'L64.Example.' }, false],
    ['SVCB', { priority: 1, target: 'SVC.Example.', params: [] }, false],
    ['HTTPS', { priority: 1, target: 'SVC.Example.', params: [] }, false],
    ['IPSECKEY', { precedence: 10, gatewayType: 3, algorithm: 2, gateway: 'GW.Example.', key: Buffer.from([1, 2]) }, false],
  ])('%s: canonical RDATA lower-cases its names only if RFC 4034 §6.2 lists the type', (type, value, folds) => {
    const plain = rdataToWire(type, value);
    const canonical = rdataToWire(type, value, { canonical: true });
    expect(plain.equals(canonical)).toBe(!folds);
    if (folds) expect(canonical.toString('latin1')).toBe(plain.toString('latin1').toLowerCase());
    // never compressed: the canonical RDATA holds no pointer
    expect(canonical.length).toBe(plain.length);
  });

  test("only names fold: HINFO (listed, but holds no name) and NAPTR's strings keep their case", () => {
    const value = { cpu: Buffer.from('INTEL-386'), os: Buffer.from('Linux') };
    expect(rdataToWire('HINFO', value, { canonical: true }).equals(rdataToWire('HINFO', value))).toBe(true);
    const naptr = {
      order: 1,
      preference: 2,
      flags: Buffer.from('U'),
      services: Buffer.from('E2U+SIP'),
      regexp: Buffer.from('!A!B!'),
      replacement: 'X.Example.',
    };
    const canonical = rdataToWire('NAPTR', naptr, { canonical: true });
    expect(canonical.equals(rdataToWire('NAPTR', { ...naptr, replacement: 'x.example.' }))).toBe(true);
  });

  test('a whole RR: owner lower-cased and uncompressed, type, class, TTL, RDLENGTH, RDATA', () => {
    const rdata = rdataToWire('A', { address: [192, 0, 2, 1] }, { canonical: true });
    expect(canonicalRecordWire('WWW.Example.com.', 1, 3600, rdata).toString('hex')).toBe(
      canonicalNameWire('www.example.com.').toString('hex') + '0001' + '0001' + '00000e10' + '0004' + 'c0000201',
    );
    expect(canonicalNameWire('A\\.B.\\200.Example.').equals(nameToWire('a\\.b.\\200.example.'))).toBe(true);
  });

  test('RRset order: by canonical RDATA octets, a shorter prefix first, duplicates once (§6.3)', () => {
    const txt = (...strings: string[]) => rdataToWire('TXT', { strings: strings.map((s) => Buffer.from(s)) }, { canonical: true });
    const ordered = canonicalRRsetOrder([txt('b'), txt('a', 'b'), txt('a'), txt('b'), txt('B')]);
    expect(ordered.map((b) => b.toString('hex'))).toEqual([txt('B'), txt('a'), txt('a', 'b'), txt('b')].map((b) => b.toString('hex')));
  });

  test('name order: the example of RFC 4034 §6.1', () => {
    const expected = [
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
    const shuffled = [...expected].reverse();
    shuffled.push(shuffled.shift()!);
    expect(shuffled.sort(compareCanonicalNames)).toEqual(expected);
    expect(compareCanonicalNames('Example.', 'example.')).toBe(0);
  });
});

test('EDNS: the OPT record carries the payload size and an Extended DNS Error, read back as written (RFC 6891, RFC 8914)', () => {
  const option = extendedErrorOption({ code: EDE.PROHIBITED, text: 'not from here' });
  const message = encodeMessage({
    id: 3,
    flags: FLAG.QR | 5,
    edns: { udpPayloadSize: 1232, extendedRcode: 0, version: 0, flags: 0x8000, options: [option] },
  });
  const edns = readEdns(message, readWireMessage(message))!;
  expect(edns).toMatchObject({ udpPayloadSize: 1232, version: 0, flags: 0x8000 });
  expect(readExtendedError(edns.options[0].data)).toEqual({ code: EDE.PROHIBITED, text: 'not from here' });
  const peer = dnsPacket.decode(message).additionals![0] as { type: string; udpPayloadSize: number; options: { code: number }[] };
  expect(peer).toMatchObject({ type: 'OPT', udpPayloadSize: 1232 });
  expect(peer.options[0].code).toBe(15);
});
