/**
 * The DS record a parent publishes for a child's key (RFC 4034 §5.1.4): digest = hash(owner | DNSKEY RDATA),
 * the owner in canonical wire form (RFC 4034 §6.2). SHA-256 is digest type 2 (RFC 4509), SHA-384 type 4
 * (RFC 6605 §2); SHA-1 (type 1) is no longer given out (RFC 8624 §3.3: MUST NOT for new DS).
 */
import { createHash } from 'node:crypto';

export const DS_DIGESTS = { 2: 'sha256', 4: 'sha384' } as const;
export type DsDigestType = keyof typeof DS_DIGESTS;

export interface DsValue {
  keyTag: number;
  algorithm: number;
  digestType: DsDigestType;
  digest: Buffer;
}

export function dsDigest(ownerCanonicalWire: Buffer, dnskeyRdata: Buffer, digestType: DsDigestType): Buffer {
  return createHash(DS_DIGESTS[digestType]).update(ownerCanonicalWire).update(dnskeyRdata).digest();
}

/** the DS record in presentation form, as a parent's operator types it in */
export const formatDs = (ds: DsValue): string => `${ds.keyTag} ${ds.algorithm} ${ds.digestType} ${ds.digest.toString('hex').toUpperCase()}`;
