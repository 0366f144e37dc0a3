/**
 * RDATA and records in wire form outside a message, and the canonical forms DNSSEC signs (RFC 4034 §6):
 * what a signer digests and orders comes from here, built by the same `toWire` the primary sends with.
 */
import { getRecordType, RecordTypeDefinition } from '../record-types';
import { canonicalNameWire, lowercaseLabel, wireLabels } from './name';
import { LOWERCASED_RDATA_TYPES } from './rules';
import { WireWriter } from './writer';

export const CLASS_IN = 1;

function definitionOf(type: string | RecordTypeDefinition): RecordTypeDefinition {
  if (typeof type !== 'string') return type;
  const definition = getRecordType(type);
  if (!definition) throw new Error(`unsupported record type ${type}`);
  return definition;
}

/**
 * The RDATA of a value in wire form, never compressed (outside a message there is nothing to point at).
 * `canonical`: the RFC 4034 §6.2 form, names lower-cased for the types rules.ts lists (RFC 6840 §5.1), every
 * other octet as the value holds it.
 */
export function rdataToWire(type: string | RecordTypeDefinition, value: unknown, options: { canonical?: boolean } = {}): Buffer {
  const definition = definitionOf(type);
  const writer = new WireWriter({ size: 64 });
  writer.nameRules = { compress: false, lowercase: Boolean(options.canonical) && LOWERCASED_RDATA_TYPES.has(definition.code) };
  definition.toWire(value, writer);
  return writer.toBuffer();
}

/**
 * One RR in canonical form (RFC 4034 §6.2): owner uncompressed and lower-cased, TYPE, CLASS, TTL (the
 * signer puts the RRSIG's Original TTL here, RFC 4034 §3.1.8.1), RDLENGTH, and the canonical RDATA given.
 * A wildcard-expanded owner is the signer's to write (§3.1.8.1: `*.` and the closest encloser).
 */
export function canonicalRecordWire(owner: string, typeCode: number, ttl: number, canonicalRdata: Buffer, klass = CLASS_IN): Buffer {
  const name = canonicalNameWire(owner);
  const record = Buffer.allocUnsafe(name.length + 10 + canonicalRdata.length);
  name.copy(record, 0);
  record.writeUInt16BE(typeCode, name.length);
  record.writeUInt16BE(klass, name.length + 2);
  record.writeUInt32BE(ttl, name.length + 4);
  record.writeUInt16BE(canonicalRdata.length, name.length + 8);
  canonicalRdata.copy(record, name.length + 10);
  return record;
}

/**
 * The canonical order of an RRset's records (RFC 4034 §6.3): by their canonical RDATA as left-justified
 * unsigned octet strings, a missing octet before a zero one (what Buffer.compare does). Two RRs with the same
 * RDATA are one (§6.3: "MUST be treated as a single RR"), so duplicates are dropped.
 */
export function canonicalRRsetOrder(canonicalRdatas: Buffer[]): Buffer[] {
  const sorted = [...canonicalRdatas].sort(Buffer.compare);
  return sorted.filter((rdata, i) => i === 0 || !rdata.equals(sorted[i - 1]));
}

/**
 * The canonical order of names (RFC 4034 §6.1): by labels from the most significant (rightmost) one, each
 * compared as lower-cased octets, a missing octet before any other; a name sorts before the names below it.
 * Negative when `a` comes first, 0 for the same name, positive after.
 */
export function compareCanonicalNames(a: string, b: string): number {
  const left = wireLabels(a).reverse();
  const right = wireLabels(b).reverse();
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const order = Buffer.compare(lowercaseLabel(left[i]), lowercaseLabel(right[i]));
    if (order !== 0) return order;
  }
  return left.length - right.length;
}
