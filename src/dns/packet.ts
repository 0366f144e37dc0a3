/**
 * Turning a stored record into the answer object dns-packet 5.6.1 encodes. Types that dns-packet cannot encode
 * (SVCB, HTTPS; SSHFP with fingerprint types other than 1 and 2; CAA and NAPTR with non-ASCII octets) come back
 * from `toPacketData` as a Buffer holding the RDATA wire form; they are sent under the name `UNKNOWN_<code>`,
 * which dns-packet maps to the type code and its opaque RDATA encoder (RFC 3597 §5: unknown types are
 * transmitted as-is).
 */
import dnsPacket from 'dns-packet';
import { labelText, nameToWire, nameWireLength, ownerToFqdn, toPacketName } from './name';
import { CanonicalRecord } from './record';
import { getRecordType } from './record-types';

export interface PacketAnswer {
  name: string;
  type: string;
  class: 'IN';
  ttl: number;
  data: unknown;
}

export function packetAnswer(zone: string, record: CanonicalRecord): PacketAnswer {
  const definition = getRecordType(record.type);
  if (!definition) throw new Error(`unsupported record type ${record.type}`);
  const parsed = definition.parse(record.rdata, zone);
  if (!parsed.ok) throw new Error(`stored ${record.type} RDATA does not parse: ${parsed.problems.map((p) => p.message).join('; ')}`);
  const data = definition.toPacketData(parsed.value);
  const type = Buffer.isBuffer(data) ? `UNKNOWN_${definition.code}` : definition.type;
  return { name: toPacketName(ownerToFqdn(record.owner, zone)), type, class: 'IN', ttl: record.ttl, data };
}

/**
 * dns-packet 5.6.1 writes a name by splitting its text on every dot and writing each piece as UTF-8, so a
 * label holding a dot (`a\\.b`) or an octet above 127 (`\\200`) would go out wrong. Names reach it in our
 * canonical presentation form (RFC 1035 §5.1 escapes), so its encoder is replaced, once, by one that reads
 * that form (RFC 1035 §3.1 wire format; dns-packet does not compress names, neither does this).
 */
type NameCodec = {
  encode: (n: string, buf?: Buffer, offset?: number) => Buffer & { bytes?: number };
  decode: (buf: Buffer, offset?: number) => string;
  encodingLength: (n: string) => number;
};
const codec = (dnsPacket as unknown as { name: NameCodec & { encode: { bytes?: number } } }).name;
codec.encodingLength = (n: string) => nameWireLength(n === '' ? '.' : n);
codec.encode = function encode(n: string, buf?: Buffer, offset = 0) {
  const wire = nameToWire(n === '' ? '.' : n);
  const target = buf ?? Buffer.alloc(wire.length);
  wire.copy(target, offset);
  (codec.encode as { bytes?: number }).bytes = wire.length;
  return target;
};

/**
 * The decoder to match: a question for `a\\.b.example.com` or `\\200.example.com` is read into the same
 * escaped presentation form the owners are stored in (RFC 1035 §4.1.4 pointers followed backwards only, as
 * dns-packet does; names longer than 255 octets refused).
 */
codec.decode = function decode(buf: Buffer, offset = 0) {
  const labels: string[] = [];
  let position = offset;
  let consumed = 0;
  let jumped = false;
  let total = 0;
  let lowest = offset;
  for (;;) {
    if (position >= buf.length) throw new Error('Cannot decode name (buffer overflow)');
    const length = buf[position];
    if (length === 0) {
      if (!jumped) consumed += 1;
      break;
    }
    if ((length & 0xc0) === 0xc0) {
      if (position + 1 >= buf.length) throw new Error('Cannot decode name (buffer overflow)');
      const target = buf.readUInt16BE(position) & 0x3fff;
      if (target >= lowest) throw new Error('Cannot decode name (bad pointer)');
      if (!jumped) consumed += 2;
      jumped = true;
      position = target;
      lowest = target;
      continue;
    }
    if ((length & 0xc0) !== 0) throw new Error('Cannot decode name (bad label)');
    if (position + 1 + length > buf.length) throw new Error('Cannot decode name (buffer overflow)');
    total += length + 1;
    if (total > 254) throw new Error('Cannot decode name (name too long)');
    labels.push(labelText(buf.subarray(position + 1, position + 1 + length)));
    if (!jumped) consumed += length + 1;
    position += length + 1;
  }
  (codec.decode as { bytes?: number }).bytes = consumed;
  return labels.length ? labels.join('.') : '.';
};
