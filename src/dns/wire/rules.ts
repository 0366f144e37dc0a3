/**
 * Which names inside RDATA are compressed in messages, and which are lower-cased in the canonical form: two
 * lists from the RFCs, by type code, in one place. The record types' `toWire` write names without knowing
 * either; the framing code (message.ts, canonical.ts) sets the writer's `nameRules` from these.
 */

/**
 * RFC 3597 §4: names in RDATA may be compressed only for the types "defined in RFC 1035" ("well-known"), and
 * a server MUST NOT compress them for any other type. The RFC 1035 types with names in their RDATA: NS 2,
 * MD 3, MF 4, CNAME 5, SOA 6, MB 7, MG 8, MR 9, PTR 12, MINFO 14, MX 15 (RFC 1035 §3.3).
 */
export const COMPRESSIBLE_RDATA_TYPES: ReadonlySet<number> = new Set([2, 3, 4, 5, 6, 7, 8, 9, 12, 14, 15]);

/**
 * RFC 4034 §6.2, item 3: in the canonical form, names in the RDATA of these types are lower-cased: NS, MD,
 * MF, CNAME, SOA, MB, MG, MR, PTR, HINFO, MINFO, MX, RP, AFSDB, RT, SIG, PX, NXT, NAPTR, KX, SRV, DNAME, A6,
 * RRSIG and NSEC. RFC 6840 §5.1 takes NSEC out ("DNS names in the RDATA section of NSEC resource records are
 * not converted to lowercase") and keeps RRSIG. HINFO is listed but holds no name: its two
 * <character-string>s are never folded (only names are, §6.2). Every other type (LP, IPSECKEY, SVCB,
 * HTTPS, …) keeps its names as written.
 */
export const LOWERCASED_RDATA_TYPES: ReadonlySet<number> = new Set([
  2, // NS
  3, // MD
  4, // MF
  5, // CNAME
  6, // SOA
  7, // MB
  8, // MG
  9, // MR
  12, // PTR
  13, // HINFO (no name in its RDATA)
  14, // MINFO
  15, // MX
  17, // RP
  18, // AFSDB
  21, // RT
  24, // SIG
  26, // PX
  30, // NXT
  35, // NAPTR
  36, // KX
  33, // SRV
  39, // DNAME
  38, // A6
  46, // RRSIG
]);
