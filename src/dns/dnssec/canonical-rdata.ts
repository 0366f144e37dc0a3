/**
 * The canonical wire RDATA of a stored record (RFC 4034 §6.2): what RRSIG covers, written by the type's own
 * `toWire` through the wire module, as the primary sends it.
 */
import { getServedRecordType } from '../record-types';
import type { CanonicalRecord } from '../record';
import { rdataToWire } from '../wire';

export function canonicalRdata(zone: string, record: CanonicalRecord): Buffer {
  const definition = getServedRecordType(record.type);
  if (!definition) throw new Error(`unsupported record type ${record.type}`);
  const parsed = definition.parse(record.rdata, zone);
  if (!parsed.ok) throw new Error(`stored ${record.type} RDATA does not parse: ${parsed.problems.map((p) => p.message).join('; ')}`);
  return rdataToWire(definition, parsed.value, { canonical: true });
}
