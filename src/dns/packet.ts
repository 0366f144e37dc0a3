/**
 * Turning a stored record into the answer object dns-packet 5.6.1 encodes. Types that dns-packet cannot encode
 * (SVCB, HTTPS; SSHFP with fingerprint types other than 1 and 2; CAA and NAPTR with non-ASCII octets) come back
 * from `toPacketData` as a Buffer holding the RDATA wire form; they are sent under the name `UNKNOWN_<code>`,
 * which dns-packet maps to the type code and its opaque RDATA encoder (RFC 3597 §5: unknown types are
 * transmitted as-is).
 */
import dnsPacket from 'dns-packet';
import { nameToWire, ownerToFqdn, toPacketName } from './name';
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
type NameCodec = { encode: (n: string, buf?: Buffer, offset?: number) => Buffer & { bytes?: number }; encodingLength: (n: string) => number };
const codec = (dnsPacket as unknown as { name: NameCodec & { encode: { bytes?: number } } }).name;
codec.encodingLength = (n: string) => nameToWire(n === '' ? '.' : n).length;
codec.encode = function encode(n: string, buf?: Buffer, offset = 0) {
  const wire = nameToWire(n === '' ? '.' : n);
  const target = buf ?? Buffer.alloc(wire.length);
  wire.copy(target, offset);
  (codec.encode as { bytes?: number }).bytes = wire.length;
  return target;
};
