/**
 * The canonical wire RDATA of a stored record (RFC 4034 §6.2): what RRSIG covers, written by the type's own
 * `toWire` through the wire module, as the primary sends it.
 */
import { getServedRecordType } from '../record-types';
import type { CanonicalRecord } from '../record';
import { parseIPv4, parseIPv6 } from '../ip';
import { rdataToWire } from '../wire';

/**
 * The RDATA of A (RFC 1035 §3.4.1) and AAAA (RFC 3596 §2.2) is the address's octets and nothing else, and
 * their stored text is the address alone: read straight, without the type's parser and wire writer (most of
 * a large zone's RRsets are addresses). Undefined for any other text, which takes the general way.
 */
function addressWire(record: CanonicalRecord): Buffer | undefined {
  if (record.type === 'A') {
    const octets = parseIPv4(record.rdata);
    return octets && Buffer.from(octets);
  }
  if (record.type === 'AAAA') {
    const octets = parseIPv6(record.rdata);
    return octets && Buffer.from(octets);
  }
  return undefined;
}

export function canonicalRdata(zone: string, record: CanonicalRecord): Buffer {
  const address = addressWire(record);
  if (address) return address;
  const definition = getServedRecordType(record.type);
  if (!definition) throw new Error(`unsupported record type ${record.type}`);
  const parsed = definition.parse(record.rdata, zone);
  if (!parsed.ok) throw new Error(`stored ${record.type} RDATA does not parse: ${parsed.problems.map((p) => p.message).join('; ')}`);
  return rdataToWire(definition, parsed.value, { canonical: true });
}
