/**
 * RRSIG (RFC 4034 §3): what is signed and how the record is written. The signature covers the RRSIG RDATA
 * without its Signature field followed by the RRset in canonical form and order (RFC 4034 §3.1.8.1, §6.2,
 * §6.3): owner lower-cased and uncompressed, the TTL the RRset has in the zone (Original TTL), RDATA in
 * canonical form, the records sorted by their RDATA octets, duplicates removed.
 */
import type { KeyObject } from 'node:crypto';
import type { DnssecAlgorithm } from './algorithms';
import { canonicalRRsetOrder } from '../wire';

/** one RR of an RRset in canonical wire form: owner and RDATA already canonical (the wire module makes them) */
export interface CanonicalRr {
  owner: Buffer;
  type: number;
  ttl: number;
  rdata: Buffer;
}

export const CLASS_IN = 1;

export interface RrsigFields {
  typeCovered: number;
  algorithm: number;
  /** RFC 4034 §3.1.3: labels of the owner, not counting the root nor a leading wildcard label */
  labels: number;
  originalTtl: number;
  /** seconds since the epoch, written modulo 2^32 (RFC 4034 §3.1.5: serial number arithmetic) */
  expiration: number;
  inception: number;
  keyTag: number;
  /** the zone's apex in canonical wire form */
  signer: Buffer;
}

export interface RrsigValue extends RrsigFields {
  signature: Buffer;
}

/** the RRSIG RDATA up to and without the Signature field (RFC 4034 §3.1) */
export function rrsigHead(fields: RrsigFields): Buffer {
  const head = Buffer.alloc(18 + fields.signer.length);
  head.writeUInt16BE(fields.typeCovered, 0);
  head.writeUInt8(fields.algorithm, 2);
  head.writeUInt8(fields.labels, 3);
  head.writeUInt32BE(fields.originalTtl >>> 0, 4);
  head.writeUInt32BE(fields.expiration >>> 0, 8);
  head.writeUInt32BE(fields.inception >>> 0, 12);
  head.writeUInt16BE(fields.keyTag, 16);
  fields.signer.copy(head, 18);
  return head;
}

/** RFC 4034 §3.1.8.1: signature = sign(RRSIG_RDATA | RR(1) | RR(2) | ...), RRs in canonical order */
export function signingInput(fields: RrsigFields, rrset: readonly CanonicalRr[]): Buffer {
  const parts: Buffer[] = [rrsigHead(fields)];
  for (const rdata of canonicalRRsetOrder(rrset.map((rr) => rr.rdata))) {
    const rr = rrset[0];
    const fixed = Buffer.alloc(10);
    fixed.writeUInt16BE(rr.type, 0);
    fixed.writeUInt16BE(CLASS_IN, 2);
    fixed.writeUInt32BE(fields.originalTtl >>> 0, 4);
    fixed.writeUInt16BE(rdata.length, 8);
    parts.push(rr.owner, fixed, rdata);
  }
  return Buffer.concat(parts);
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
