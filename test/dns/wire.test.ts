/**
 * RDATA from the wire (DNS UPDATE): every type the model reads from the wire turns the octets the primary
 * sends back into the same canonical presentation form; compressed names are followed; RDATA shorter or
 * longer than its fields is a format error.
 */
import dnsPacket from 'dns-packet';
import { getRecordType, listRecordTypes } from '../../src/dns/record-types';
import { encodeMessage, OPCODE, outgoingRecord, RdataReader, rdataToWire, readWireMessage, WireFormatError } from '../../src/dns/wire';

const ZONE = 'example.com';

/** [type, canonical RDATA] for every type read from the wire */
const SAMPLES: [string, string][] = [
  ['A', '192.0.2.1'],
  ['AAAA', '2001:db8::1'],
  ['CAA', '0 issue "letsencrypt.org"'],
  ['DSYNC', 'CDS 1 5359 ds-scanner.example.net.'],
  ['CDNSKEY', '257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ=='],
  ['CDS', '60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118'],
  ['CNAME', 'target.example.net.'],
  ['DHCID', 'AAIBY2/AuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA='],
  ['DNAME', 'example.net.'],
  ['DNSKEY', '257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ=='],
  ['DS', '60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118'],
  ['HINFO', '"PC" "Linux"'],
  ['MX', '10 mail.example.com.'],
  ['MX', '0 .'],
  ['NAPTR', '100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .'],
  ['NS', 'ns1.example.net.'],
  ['OPENPGPKEY', 'mQENBFVHm5sBCADqZw=='],
  ['PTR', 'host.example.com.'],
  ['RP', 'admin.example.com. info.example.com.'],
  ['SMIMEA', '3 1 1 ' + 'AB'.repeat(32)],
  ['SOA', 'ns1.example.net. hostmaster.example.net. 2024010100 3600 1800 604800 86400'],
  ['SPF', '"v=spf1 -all"'],
  ['SRV', '10 60 5060 sip.example.net.'],
  ['SSHFP', '1 1 ' + 'AB'.repeat(20)],
  ['TLSA', '3 1 1 ' + 'AB'.repeat(32)],
  ['TXT', '"v=spf1 -all" "second \\"quoted\\" string"'],
  ['TXT', '"caf\\195\\169"'],
  ['URI', '10 1 "https://example.com/"'],
  ['TYPE65280', '\\# 3 ABCDEF'],
  ['APL', '1:192.168.32.0/21 !1:192.168.38.0/28 2:2001:db8::/32'],
  ['CERT', '3 0 254 AQID'],
  ['EUI48', '00-00-5e-00-53-2a'],
  ['EUI64', '00-00-5e-ef-10-00-00-2a'],
  ['HTTPS', '1 . alpn="h2,h3" ipv4hint=192.0.2.1,192.0.2.2'],
  ['IPSECKEY', '10 1 2 192.0.2.38 AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ=='],
  ['IPSECKEY', '10 3 2 gw.example.net. AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ=='],
  ['L32', '10 192.0.2.1'],
  ['L64', '10 2001:0db8:1140:1000'],
  ['LOC', '42 21 54.000 N 71 6 18.000 W -24.00m 30m 10000m 10m'],
  ['LP', '10 l64-subnet1.example.com.'],
  ['NID', '10 0014:4fff:ff20:ee64'],
  ['SVCB', '1 svc.example.net. port=8443'],
  ['ZONEMD', '2018031900 1 1 ' + 'AB'.repeat(48)],
];

/** the types the primary does not take over UPDATE (REFUSED): none; a new type must read its RDATA from the wire */
const NOT_FROM_WIRE: string[] = [];

/** an UPDATE message with one update RR, RDATA names uncompressed (as the RFC 3597 §4 types are sent) */
function messageWith(type: string, rdata: string): Buffer {
  const record = outgoingRecord(ZONE, { owner: 'www', type, rdata, ttl: 300 });
  const uncompressed = { ...record, rdata: rdataToWire(type, (record.rdata as { value: unknown }).value) };
  return encodeMessage({
    id: 1,
    flags: OPCODE.UPDATE << 11,
    questions: [{ name: `${ZONE}.`, type: 6, klass: 1 }],
    authorities: [uncompressed],
  });
}

function present(message: Buffer): string {
  const [rr] = readWireMessage(message).authorities;
  const definition = getRecordType(`TYPE${rr.type}`)!;
  const reader = new RdataReader(message, rr.rdataStart, rr.rdataLength);
  const value = definition.fromWire!(reader);
  reader.finish();
  return definition.format(value);
}

test.each(SAMPLES)('%s %s comes back from the wire unchanged', (type, rdata) => {
  expect(present(messageWith(type, rdata))).toBe(rdata);
});

test.each(SAMPLES)('%s %s: toWire writes what fromWire reads back to the same value', (type, rdata) => {
  const definition = getRecordType(type)!;
  const parsed = definition.parse(rdata, ZONE);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const wire = rdataToWire(definition, parsed.value);
  const reader = new RdataReader(wire, 0, wire.length);
  const value = definition.fromWire!(reader);
  reader.finish();
  expect(value).toEqual(parsed.value);
  // and dns-packet, an independent decoder, frames the record the same (owner, type, RDLENGTH)
  const decoded = dnsPacket.decode(messageWith(type, rdata));
  expect(decoded.authorities![0].name).toBe('www.example.com');
});

test('every type reads its RDATA from the wire, and each has a sample here', () => {
  // a type without toWire fails here too (TypeScript requires it; this holds it for plain JavaScript callers)
  expect(
    listRecordTypes()
      .filter((t) => typeof t.toWire !== 'function')
      .map((t) => t.type),
  ).toEqual([]);
  const readable = listRecordTypes()
    .filter((t) => t.fromWire)
    .map((t) => t.type);
  const unreadable = listRecordTypes()
    .filter((t) => !t.fromWire)
    .map((t) => t.type);
  expect(unreadable).toEqual(NOT_FROM_WIRE);
  for (const type of readable) expect(SAMPLES.some(([sample]) => sample === type)).toBe(true);
});

test('a compressed name in RDATA (RFC 1035 §4.1.4) is followed to the zone name', () => {
  const plain = messageWith('MX', '10 example.com.');
  // the exchange `example.com.` (13 octets at the end of the RDATA) becomes a pointer to the question's name at 12
  const rdlengthAt = plain.length - 2 - 13 - 2;
  const compressed = Buffer.concat([plain.subarray(0, plain.length - 13), Buffer.from([0xc0, 12])]);
  compressed.writeUInt16BE(4, rdlengthAt);
  expect(present(compressed)).toBe('10 example.com.');
});

test('RDATA shorter or longer than its fields, or a record past the end, is a format error', () => {
  const a = messageWith('A', '192.0.2.1');
  const short = Buffer.from(a.subarray(0, a.length - 1));
  short.writeUInt16BE(3, short.length - 5);
  expect(() => present(short)).toThrow(WireFormatError);
  const long = Buffer.concat([a, Buffer.from([7])]);
  long.writeUInt16BE(5, long.length - 7);
  expect(() => present(long)).toThrow(WireFormatError);
  expect(() => readWireMessage(a.subarray(0, a.length - 2))).toThrow(WireFormatError);
  expect(() => readWireMessage(Buffer.concat([a, Buffer.from([0])]))).toThrow(WireFormatError);
});
