/**
 * The canonical wire RDATA of a stored record (RFC 4034 §6.2): what RRSIG covers. Stored RDATA is already in
 * the model's canonical presentation form (names lower-case and absolute), so its wire form is canonical.
 */
import dnsPacket from 'dns-packet';
import '../packet';
import { getServedRecordType } from '../record-types';
import type { CanonicalRecord } from '../record';

const answerCodec = (dnsPacket as unknown as { answer: { encode(answer: object): Buffer } }).answer;

/** owner '.' (1 octet) + TYPE, CLASS (2 + 2) + TTL (4) + RDLENGTH (2): where the RDATA starts */
const RDATA_OFFSET = 11;

export function canonicalRdata(zone: string, record: CanonicalRecord): Buffer {
  const definition = getServedRecordType(record.type);
  if (!definition) throw new Error(`unsupported record type ${record.type}`);
  const parsed = definition.parse(record.rdata, zone);
  if (!parsed.ok) throw new Error(`stored ${record.type} RDATA does not parse: ${parsed.problems.map((p) => p.message).join('; ')}`);
  const data = definition.toPacketData(parsed.value);
  if (Buffer.isBuffer(data)) return data;
  const encoded = answerCodec.encode({ name: '.', type: definition.type, class: 'IN', ttl: 0, data });
  return Buffer.from(encoded.subarray(RDATA_OFFSET));
}
