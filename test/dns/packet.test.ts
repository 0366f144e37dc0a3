/** The primary's wire forms: escaped names, RFC 3597 generic data, and types an older decoder lacks; dns-packet reads them as a peer would. */
import dnsPacket from 'dns-packet';
import { encodeMessage, FLAG, outgoingRecord, readWireMessage } from '../../src/dns/wire';
import { parseRecord } from '../../src/dns/record';

const ZONE = 'example.com';
const record = (owner: string, type: string, rdata: string) => {
  const parsed = parseRecord(ZONE, { owner, type, rdata, ttl: 300 }, []);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.record;
};
const wire = (owner: string, type: string, rdata: string) =>
  encodeMessage({ id: 1, flags: FLAG.QR, answers: [outgoingRecord(ZONE, record(owner, type, rdata))] });

test('a label holding a dot or octets above 127 goes out as those octets (RFC 1035 §3.1), and comes back escaped', () => {
  const message = wire('a\\.b.\\200\\000x', 'A', '192.0.2.1');
  const owner = Buffer.from([3, 0x61, 0x2e, 0x62, 3, 200, 0, 0x78, 7, ...Buffer.from('example'), 3, ...Buffer.from('com'), 0]);
  expect(message.includes(owner)).toBe(true);
  expect(readWireMessage(message).answers[0].name).toBe('a\\.b.\\200\\000x.example.com.');
});

test('a question in mixed case decodes to the same letters, escapes only where needed', () => {
  const query = dnsPacket.encode({ type: 'query', id: 2, flags: 0, questions: [{ type: 'A', class: 'IN', name: 'WWW.Example.COM' }] });
  expect(readWireMessage(query).questions[0]).toEqual({ name: 'WWW.Example.COM.', type: 1, klass: 1 });
});

test.each([
  ['TYPE65534', '\\# 3 abcdef', 65534, 'abcdef'],
  ['SPF', '"v=spf1" "-all"', 99, '06763d73706631042d616c6c'],
  ['EUI48', '00-00-5e-00-53-2a', 108, '00005e00532a'],
  ['URI', '10 1 "ftp://a"', 256, '000a0001' + Buffer.from('ftp://a').toString('hex')],
  [
    'LOC',
    '42 21 54 N 71 06 18 W -24m 30m',
    29,
    '00331613' + (2 ** 31 + 152514000).toString(16) + (2 ** 31 - 255978000).toString(16) + (10000000 - 2400).toString(16).padStart(8, '0'),
  ],
  ['APL', '1:192.168.32.0/21 !2:ff00::/8', 42, '000115' + '03c0a820' + '000208' + '81ff'],
])('%s %s is sent as type %i with its RFC wire RDATA', (type, rdata, code, hex) => {
  const message = wire('x', type, rdata);
  const data = Buffer.from(hex, 'hex');
  // the answer is the message's last RR: TYPE, CLASS, TTL, RDLENGTH, then the RDATA (RFC 1035 §4.1.3)
  const rdlength = message.readUInt16BE(message.length - data.length - 2);
  expect(message.readUInt16BE(message.length - data.length - 10)).toBe(code);
  expect(rdlength).toBe(data.length);
  expect(message.subarray(message.length - data.length).toString('hex')).toBe(hex);
});
