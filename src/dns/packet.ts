/**
 * Turning a stored record into the answer object dns-packet 5.6.1 encodes. Types that dns-packet cannot encode
 * (SVCB, HTTPS; SSHFP with fingerprint types other than 1 and 2; CAA and NAPTR with non-ASCII octets) come back
 * from `toPacketData` as a Buffer holding the RDATA wire form; they are sent under the name `UNKNOWN_<code>`,
 * which dns-packet maps to the type code and its opaque RDATA encoder (RFC 3597 §5: unknown types are
 * transmitted as-is).
 */
import { ownerToFqdn, toPacketName } from './name';
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
