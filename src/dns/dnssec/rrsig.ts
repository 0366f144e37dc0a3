/**
 * RRSIG (RFC 4034 §3): what is signed and how the record is written. The signature covers the RRSIG RDATA
 * without its Signature field followed by the RRset in canonical form and order (RFC 4034 §3.1.8.1, §6.2,
 * §6.3): owner lower-cased and uncompressed, the TTL the RRset has in the zone (Original TTL), RDATA in
 * canonical form, the records sorted by their RDATA octets, duplicates removed.
 */
import type { KeyObject } from 'node:crypto';
import type { DnssecAlgorithm } from './algorithms';
import { canonicalRRsetOrder } from '../wire';
import type { RRSIGValue } from '../record-types/signer-types';

/** one RR of an RRset in canonical wire form: owner and RDATA already canonical (the wire module makes them) */
export interface CanonicalRr {
  owner: Buffer;
  type: number;
  ttl: number;
  rdata: Buffer;
}

export const CLASS_IN = 1;

/** the RRSIG RDATA the signer writes before its Signature field: the record type's fields, the signer in wire form */
export interface RrsigFields extends Omit<RRSIGValue, 'signer' | 'signature'> {
  /** the zone's apex in canonical wire form */
  signer: Buffer;
}

export interface RrsigValue extends RrsigFields {
  signature: Buffer;
}

/** the octets of the RRSIG RDATA before the Signer's Name: Type Covered to Key Tag (RFC 4034 §3.1) */
export const RRSIG_HEAD_FIXED_OCTETS = 18;

/** the RRSIG RDATA up to and without the Signature field (RFC 4034 §3.1) */
export function rrsigHead(fields: RrsigFields): Buffer {
  const head = Buffer.alloc(RRSIG_HEAD_FIXED_OCTETS + fields.signer.length);
  writeRrsigHead(fields, head);
  return head;
}

/** writes the RRSIG RDATA head at the start of `out`; the offset after it */
function writeRrsigHead(fields: RrsigFields, out: Buffer): number {
  out.writeUInt16BE(fields.typeCovered, 0);
  out.writeUInt8(fields.algorithm, 2);
  out.writeUInt8(fields.labels, 3);
  out.writeUInt32BE(fields.originalTtl >>> 0, 4);
  out.writeUInt32BE(fields.expiration >>> 0, 8);
  out.writeUInt32BE(fields.inception >>> 0, 12);
  out.writeUInt16BE(fields.keyTag, 16);
  return RRSIG_HEAD_FIXED_OCTETS + fields.signer.copy(out, RRSIG_HEAD_FIXED_OCTETS);
}

/**
 * RFC 4034 §3.1.8.1: signature = sign(RRSIG_RDATA | RR(1) | RR(2) | ...), RRs in canonical order. Written into
 * one buffer of the exact size: a zone of a million RRsets builds a million of these.
 */
export function signingInput(fields: RrsigFields, rrset: readonly CanonicalRr[]): Buffer {
  return signingInputOf(
    fields,
    rrset[0].owner,
    rrset[0].type,
    rrset.map((rr) => rr.rdata),
  );
}

/** `signingInput` of an RRset given by its owner (canonical wire form), type and canonical RDATAs, in any order */
export function signingInputOf(fields: RrsigFields, owner: Buffer, type: number, canonicalRdatas: readonly Buffer[]): Buffer {
  const rdatas = canonicalRdatas.length === 1 ? canonicalRdatas : canonicalRRsetOrder([...canonicalRdatas]);
  let size = RRSIG_HEAD_FIXED_OCTETS + fields.signer.length;
  for (const rdata of rdatas) size += owner.length + 10 + rdata.length;
  const input = Buffer.allocUnsafe(size);
  let at = writeRrsigHead(fields, input);
  for (const rdata of rdatas) {
    at += owner.copy(input, at);
    at = input.writeUInt16BE(type, at);
    at = input.writeUInt16BE(CLASS_IN, at);
    at = input.writeUInt32BE(fields.originalTtl >>> 0, at);
    at = input.writeUInt16BE(rdata.length, at);
    at += rdata.copy(input, at);
  }
  return input;
}

export function signRrset(
  fields: RrsigFields,
  rrset: readonly CanonicalRr[],
  algorithm: DnssecAlgorithm,
  privateKey: KeyObject,
): RrsigValue {
  if (!rrset.length) throw new Error('an empty RRset has nothing to sign');
  if (algorithm.number !== fields.algorithm) throw new Error('the RRSIG names another algorithm than the key');
  return { ...fields, signature: algorithm.sign(signingInput(fields, rrset), privateKey) };
}

/** the RRSIG RDATA on the wire */
export const rrsigRdata = (value: RrsigValue): Buffer => Buffer.concat([rrsigHead(value), value.signature]);

/** RFC 4034 §3.1.3: the Labels field for an owner in presentation form (`*.a.example.` has 2) */
export function rrsigLabels(ownerLabels: readonly Buffer[]): number {
  const wildcard = ownerLabels.length > 0 && ownerLabels[0].length === 1 && ownerLabels[0][0] === 0x2a;
  return ownerLabels.length - (wildcard ? 1 : 0);
}
