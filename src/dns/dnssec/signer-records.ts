/**
 * What the data layer keeps beside a signer record so that it never parses one to find it: the denial
 * chain's sort key of an NSEC (RFC 4034 §6.1 canonical order of its owner) or NSEC3 (its hash, RFC 5155 §3),
 * and an RRSIG's expiration (RFC 4034 §3.1.5), by which the refresh finds the signatures falling due.
 */
import { ownerToFqdn } from '../name';
import type { CanonicalRecord } from '../record';
import { rrsigCoverage } from '../record-types/signer-types';
import { nameSortKey } from './canonical-order';
import { fromBase32hex } from '../wire/nsec3-hash';

/** the types the signer owns in a signed zone: no user change may write one (the signer writes them) */
export const SIGNER_OWNED_TYPES: ReadonlySet<string> = new Set(['DNSKEY', 'CDS', 'CDNSKEY', 'RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM']);

export function chainKeyOf(zone: string, record: CanonicalRecord): Buffer | undefined {
  if (record.type === 'NSEC') return nameSortKey(ownerToFqdn(record.owner, zone));
  if (record.type === 'NSEC3') return fromBase32hex(record.owner.split('.')[0]);
  return undefined;
}

/** the covered type and expiration of the RRSIGs this process made, by record: what they were made with, not parsed back from their text */
const madeCoverage = new WeakMap<CanonicalRecord, { typeCovered: number; expiration: number }>();

/** remembers what an RRSIG just made covers and when it expires (its RDATA's text says the same) */
export function rememberCoverage(record: CanonicalRecord, typeCovered: number, expiration: number): void {
  madeCoverage.set(record, { typeCovered, expiration: expiration >>> 0 });
}

const coverageOf = (record: CanonicalRecord) => madeCoverage.get(record) ?? rrsigCoverage(record.rdata);

/** an RRSIG's expiration in seconds since the epoch (serial arithmetic aside: we write them within 2^31 s of now) */
export function signatureExpiration(zone: string, record: CanonicalRecord): number | undefined {
  if (record.type !== 'RRSIG') return undefined;
  return coverageOf(record)?.expiration;
}

/** the type an RRSIG covers, by code */
export function coveredTypeOf(zone: string, record: CanonicalRecord): number | undefined {
  if (record.type !== 'RRSIG') return undefined;
  return coverageOf(record)?.typeCovered;
}
