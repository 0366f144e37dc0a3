/** One record as a whole: owner, type, RDATA and TTL validated together. */
import { parseOwner } from './name';
import { Problem, problem } from './problem';
import type { ContentReading } from './reading';
import { getRecordType, listRecordTypes, type RecordTypeDefinition } from './record-types';
import { SIGNER_TYPE_CODES } from './record-types/generic';
import { AllowedTtls, checkTtl } from './ttl';

export interface RecordInput {
  owner: string;
  type: string;
  rdata: string;
  ttl: number;
}
/** owner relative ('@' apex), type upper-case, rdata canonical */
export interface CanonicalRecord {
  owner: string;
  type: string;
  rdata: string;
  ttl: number;
}
/** `warnings`: what is accepted but worth a look (NAME_NOT_HOSTNAME); never a reason to refuse */
export type RecordResult = { ok: true; record: CanonicalRecord; warnings: Problem[] } | { ok: false; problems: Problem[] };

/**
 * A record's identity, as a string key: its owner, type and canonical RDATA. The TTL is not part of it: RFC 2181
 * §5 tells the RRs of an RRset apart by their RDATA alone, and the TTL belongs to the RRset (§5.2), so two
 * records that differ only in TTL are one record (a zone file's repeat is merged, a change set that removes a
 * record and adds it back with another TTL changes its TTL, a zone's records are unique on this key).
 *
 * `{ withTtl: true }` adds the TTL, for one use only: folding the journal (history.service.ts). The journal
 * writes a TTL change as the record removed (old TTL) and added (new TTL); folded on the identity without the
 * TTL, the two would cancel and the difference between two serials would lose the TTL change.
 */
export function recordIdentity(
  record: { owner: string; type: string; rdata: string; ttl?: number },
  options: { withTtl?: boolean } = {},
): string {
  const identity = `${record.owner}\u0000${record.type}\u0000${record.rdata}`;
  return options.withTtl ? `${identity}\u0000${record.ttl}` : identity;
}

/**
 * An RRset's owner and type read once for all its records (a change set's REPLACE of 1,000 RRsets read each
 * owner once per record and once more for the RRset): the owner as parseOwner gives it for `input.owner`, read
 * with no problem and no warning, and the definition getRecordType gives for `input.type`. A record read with
 * it is the record read without it, problems and warnings alike.
 */
export interface KnownRrset {
  owner: string;
  definition: RecordTypeDefinition;
}

/** validates owner, type, rdata and ttl together, collecting every problem (not only the first) */
export function parseRecord(zone: string, input: RecordInput, allowedTtls: AllowedTtls, rrset?: KnownRrset): RecordResult {
  return parseRecordWithOrigin(zone, zone, input, allowedTtls, rrset);
}

/**
 * As parseRecord, for text typed into the record API: each type's `apiText` reading applies first (an unquoted
 * TXT with spaces is one string, see txt.ts). Zone files and DNS UPDATE use parseRecord.
 */
export function parseApiRecord(zone: string, input: RecordInput, allowedTtls: AllowedTtls, rrset?: KnownRrset): RecordResult {
  const definition = rrset ? rrset.definition : getRecordType(String(input.type ?? '').trim());
  const read = definition?.apiText && typeof input.rdata === 'string' ? definition.apiText(input.rdata) : undefined;
  const result = parseRecord(zone, read ? { ...input, rdata: read.rdata } : input, allowedTtls, rrset);
  return result.ok && read?.warnings.length ? { ...result, warnings: [...read.warnings, ...result.warnings] } : result;
}

/**
 * As parseRecord, but relative names inside RDATA are completed with `origin` rather than the zone: a zone file
 * may change its origin with $ORIGIN (RFC 1035 §5.1). The owner must already be absolute or relative to the zone.
 */
export function parseRecordWithOrigin(
  zone: string,
  origin: string,
  input: RecordInput,
  allowedTtls: AllowedTtls,
  rrset?: KnownRrset,
): RecordResult {
  const warnings: Problem[] = [];
  return withNameWarnings(parseRecordFields(zone, { origin, warnings }, input, input.rdata, allowedTtls, rrset), warnings);
}

/** a record's result with the names' warnings its reading raised (a refusal keeps its problems alone) */
const withNameWarnings = (result: RecordResult, warnings: Problem[]): RecordResult =>
  result.ok && warnings.length ? { ...result, warnings } : result;

/**
 * As parseRecord, for content that stands alone, without an origin (the PowerDNS API's records): every name in
 * RDATA is written out whole, ending with the root's dot, and every character-string is quoted; a type that
 * PowerDNS reads otherwise says how (`powerDns.content`: TXT's string over 255 octets is cut as PowerDNS cuts it). `www` or
 * `10 mail` would need an origin to mean anything, and `v=spf1 mx -all` would be three strings; each is refused
 * naming its field, as PowerDNS refuses them, rather than read one way and published another.
 */
export function parseStandaloneRecord(zone: string, input: RecordInput, allowedTtls: AllowedTtls, rrset?: KnownRrset): RecordResult {
  return parseStandaloneRecords(zone, input, [input.rdata], allowedTtls, rrset)[0];
}

/**
 * The records of one RRset (its owner, type and TTL, and each record's content), each read as
 * parseStandaloneRecord reads it alone (its result, problems and warnings its own), under one reading: the
 * PowerDNS API's PATCH of 1,000 RRsets made, for each record, three closures, two wrappers' objects and an
 * input object that only its content told apart from its RRset's others.
 */
export function parseStandaloneRecords(
  zone: string,
  input: Omit<RecordInput, 'rdata'>,
  rdatas: readonly string[],
  allowedTtls: AllowedTtls,
  rrset?: KnownRrset,
): RecordResult[] {
  // content as PowerDNS reads it, where the type says it reads it otherwise (TXT's over-long string)
  const content = (rrset ? rrset.definition : getRecordType(String(input.type ?? '').trim()))?.powerDns?.content;
  // one reading for all the records: its list of warnings is replaced only after a record that raised some,
  // so that each record's warnings are its own
  const reading = { origin: '', standaloneIn: zone, warnings: [] as Problem[] };
  return rdatas.map((rdata) => {
    const result = parseRecordFields(
      zone,
      reading,
      input,
      content && typeof rdata === 'string' ? content(rdata) : rdata,
      allowedTtls,
      rrset,
    );
    if (!reading.warnings.length) return result;
    const warnings = reading.warnings;
    reading.warnings = [];
    return withNameWarnings(result, warnings);
  });
}

/**
 * Why a type cannot be stored: the signer's own types (RRSIG, NSEC, NSEC3, NSEC3PARAM, by name or as TYPEnnn)
 * are DNSSEC_RECORD_MANAGED like DNSKEY, CDS and CDNSKEY in a signed zone (RFC 4035 §2: the signer makes them
 * from the keys; signing is `enableDnssec`), any other type unknown to the model is UNKNOWN_TYPE.
 */
export function unsupportedTypeProblem(typeText: string, field: string): Problem {
  const upper = typeText.trim().toUpperCase();
  const code = /^TYPE(\d{1,5})$/.exec(upper);
  const signerType = code ? SIGNER_TYPE_CODES.get(Number(code[1])) : [...SIGNER_TYPE_CODES.values()].find((t) => t === upper);
  if (signerType)
    return problem(
      field,
      'DNSSEC_RECORD_MANAGED',
      `${field}: ${signerType} records are the signer's: a signed zone gets them from its keys (enableDnssec), no API stores one`,
    );
  const known = listRecordTypes()
    .map((t) => t.type)
    .join(', ');
  return problem(field, 'UNKNOWN_TYPE', `${field}: ${JSON.stringify(typeText)} is not a supported record type (supported: ${known})`);
}

/**
 * `input`'s owner, type and TTL with `rdata` (an RRset's records share the first three), its RDATA read as
 * `reading` says; the warnings about names go to the reading's list
 */
function parseRecordFields(
  zone: string,
  reading: ContentReading,
  input: Omit<RecordInput, 'rdata'>,
  rdata: unknown,
  allowedTtls: AllowedTtls,
  rrset?: KnownRrset,
): RecordResult {
  const problems: Problem[] = [];
  const owner = rrset ? { ok: true as const, name: rrset.owner } : parseOwner(input.owner ?? '', zone, 'owner', reading.warnings);
  if (!owner.ok) problems.push(...owner.problems);
  const definition = rrset ? rrset.definition : getRecordType(String(input.type ?? '').trim());
  let canonical: string | undefined;
  if (!definition) {
    problems.push(unsupportedTypeProblem(String(input.type ?? '').trim(), 'type'));
  } else if (typeof rdata !== 'string') {
    problems.push(problem('rdata', 'RDATA_FIELD_COUNT', `rdata: ${definition.type} RDATA is missing`));
  } else {
    const parsed = definition.parse(rdata, reading);
    if (parsed.ok) canonical = parsed.canonical;
    else problems.push(...parsed.problems);
  }
  if (owner.ok && definition?.type === 'NS' && (owner.name === '*' || owner.name.startsWith('*.'))) {
    // RFC 4592 §4.2: a wildcard NS RRset has no clear meaning; BIND refuses to load it
    problems.push(problem('owner', 'WILDCARD_NS', `owner: an NS record cannot have a wildcard owner (${owner.name}); RFC 4592 §4.2`));
  }
  problems.push(...checkTtl(input.ttl, allowedTtls, 'ttl'));
  if (problems.length) return { ok: false, problems };
  return {
    ok: true,
    record: { owner: (owner as { name: string }).name, type: definition!.type, rdata: canonical!, ttl: Number(input.ttl) },
    warnings: [],
  };
}
