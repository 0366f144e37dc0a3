/**
 * A zone's signing key as the DNS sees it: the DNSKEY RDATA (RFC 4034 §2.1) built from the private key, its
 * key tag and the DS records that point at it.
 */
import { createHash, type KeyObject } from 'node:crypto';
import { DnssecAlgorithm } from './algorithms';
import { dsDigest, DsDigestType, DsValue } from './ds';
import { keyTag } from './key-tag';

/** RFC 4034 §2.1.1: bit 7 Zone Key; bit 15 Secure Entry Point (what a KSK or CSK carries) */
export const DNSKEY_FLAG_ZONE = 0x0100;
export const DNSKEY_FLAG_SEP = 0x0001;
/** RFC 5011 §3: the REVOKE bit; never set by this service (it does not act as a trust-anchor operator) */
export const DNSKEY_FLAG_REVOKE = 0x0080;
export const DNSKEY_PROTOCOL = 3;

export interface DnskeyValue {
  flags: number;
  protocol: number;
  algorithm: number;
  key: Buffer;
}

export function dnskeyOf(privateKey: KeyObject, algorithm: DnssecAlgorithm, secureEntryPoint: boolean): DnskeyValue {
  return {
    flags: DNSKEY_FLAG_ZONE | (secureEntryPoint ? DNSKEY_FLAG_SEP : 0),
    protocol: DNSKEY_PROTOCOL,
    algorithm: algorithm.number,
    key: algorithm.publicKeyField(privateKey),
  };
}

/** RFC 4034 §2.1: Flags (16) | Protocol (8) | Algorithm (8) | Public Key; the same for CDNSKEY (RFC 7344 §3.2) */
export function dnskeyRdata(value: DnskeyValue): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(value.flags, 0);
  head.writeUInt8(value.protocol, 2);
  head.writeUInt8(value.algorithm, 3);
  return Buffer.concat([head, value.key]);
}

export const dnskeyTag = (value: DnskeyValue): number => keyTag(dnskeyRdata(value));

export function dsOf(apexCanonicalWire: Buffer, value: DnskeyValue, digestType: DsDigestType): DsValue {
  const rdata = dnskeyRdata(value);
  return { keyTag: keyTag(rdata), algorithm: value.algorithm, digestType, digest: dsDigest(apexCanonicalWire, rdata, digestType) };
}

/** the digests a DS may carry that a validator still checks: SHA-1 as well (RFC 8624 §3.3: MUST validate) */
const DS_CHECKED_DIGESTS: Record<number, string> = { 1: 'sha1', 2: 'sha256', 4: 'sha384' };

/**
 * Whether a DS published at the parent points at this DNSKEY (RFC 4034 §5.1: key tag, algorithm, and the digest
 * of owner | DNSKEY RDATA); a DS of a digest type validators do not know points at nothing (RFC 4035 §5.2).
 */
export function dsMatchesKey(
  apexCanonicalWire: Buffer,
  value: DnskeyValue,
  ds: { keyTag: number; algorithm: number; digestType: number; digest: Buffer },
): boolean {
  const digest = DS_CHECKED_DIGESTS[ds.digestType];
  if (!digest) return false;
  const rdata = dnskeyRdata(value);
  if (keyTag(rdata) !== ds.keyTag || value.algorithm !== ds.algorithm) return false;
  return createHash(digest).update(apexCanonicalWire).update(rdata).digest().equals(ds.digest);
}
