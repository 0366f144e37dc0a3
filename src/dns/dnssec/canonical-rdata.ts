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

/**
 * The SOA (RFC 1035 §3.3.13) of a signed zone changes with every write, and only in its serial: its canonical
 * RDATA (the two names lower-cased, RFC 4034 §6.2, then five 32-bit numbers) is kept per zone and text with the
 * serial left out, and the serial written into a copy. A text in another form than the service writes (single
 * spaces, the numbers in digits) takes the general way.
 */
const SOA_TEXT = /^(\S+ \S+ )(\d{1,10})( \d{1,10} \d{1,10} \d{1,10} \d{1,10})$/;
/** the serial's offset from the end of the SOA RDATA: serial, refresh, retry, expire, minimum (4 octets each) */
const SOA_SERIAL_FROM_END = 20;
const soaTemplates = new Map<string, Buffer>();
const SOA_TEMPLATES_KEPT = 4096;

function soaWire(zone: string, record: CanonicalRecord): Buffer | undefined {
  const match = SOA_TEXT.exec(record.rdata);
  if (!match) return undefined;
  const serial = Number(match[2]);
  if (serial > 0xffffffff) return undefined;
  const key = `${zone}\u0000${match[1]}${match[3]}`;
  let template = soaTemplates.get(key);
  if (!template) {
    template = generalWire(zone, { ...record, rdata: `${match[1]}0${match[3]}` });
    if (soaTemplates.size >= SOA_TEMPLATES_KEPT) soaTemplates.clear();
    soaTemplates.set(key, template);
  }
  const wire = Buffer.from(template);
  wire.writeUInt32BE(serial, wire.length - SOA_SERIAL_FROM_END);
  return wire;
}

export function canonicalRdata(zone: string, record: CanonicalRecord): Buffer {
  const address = addressWire(record);
  if (address) return address;
  if (record.type === 'SOA') {
    const soa = soaWire(zone, record);
    if (soa) return soa;
  }
  return generalWire(zone, record);
}

function generalWire(zone: string, record: CanonicalRecord): Buffer {
  const definition = getServedRecordType(record.type);
  if (!definition) throw new Error(`unsupported record type ${record.type}`);
  const parsed = definition.parse(record.rdata, zone);
  if (!parsed.ok) throw new Error(`stored ${record.type} RDATA does not parse: ${parsed.problems.map((p) => p.message).join('; ')}`);
  return rdataToWire(definition, parsed.value, { canonical: true });
}
