/** The signer's records (`dnssec_records`) and the zone's records as the signer reads them, one question at a time */
import type { Database, Sql } from '../../db/pool';
import type { JournalRecord } from '../../entities/change.entity';
import { FLATTENED_TYPE_NAMES } from '../../dns/record-types';

/** a signer record as written: the chain's sort key (hex) for NSEC/NSEC3, the expiration (epoch s) for RRSIG */
export interface SignerRow extends JournalRecord {
  chainKey?: string;
  expiresAt?: number;
  /** the stored row's id, when the record was read from `dnssec_records` (a removal then deletes by id) */
  id?: number;
}

/** a signer record as read, with its row id: what the signer removes is deleted by primary key */
export type StoredSignerRecord = JournalRecord & { id: number };
export const toStoredSigner = (r: any): StoredSignerRecord => ({
  id: Number(r.id),
  owner: r.owner,
  type: r.type,
  rdata: r.rdata,
  ttl: Number(r.ttl),
});

/** the earliest expiration among a zone's signatures, or undefined when it has none */
export async function earliestExpiration(sql: Sql | Database, domainId: number): Promise<Date | undefined> {
  const [row] = await sql.rows('select min(expires_at) as at from dnssec_records where domain_id = $1 and expires_at is not null', [
    domainId,
  ]);
  return row?.at ?? undefined;
}

/** the owners and covered types of the signatures expiring before `before`, at most `limit` */
export async function signaturesExpiringBefore(sql: Sql, domainId: number, before: Date, limit: number): Promise<JournalRecord[]> {
  return sql.rows<JournalRecord>(
    `select owner, type, rdata, ttl from dnssec_records where domain_id = $1 and expires_at is not null and expires_at < $2
      order by expires_at limit $3`,
    [domainId, before, limit],
  );
}

/** the signer's records that are zone data, signed like the user's; the rest (RRSIG, NSEC, NSEC3, NSEC3PARAM) are its chain and signatures */
export const ZONE_DATA_TYPES = `('DNSKEY', 'CDS', 'CDNSKEY')`;

/** the records at some owners: the user's, plus the DNSKEY, CDS and CDNSKEY the signer keeps at the apex */
export async function zoneRecordsAt(sql: Sql, domainId: number, owners: string[]): Promise<JournalRecord[]> {
  return sql.rows<JournalRecord>(
    `select owner, type, rdata, ttl from records where domain_id = $1 and owner = any($2::text[])
     union all
     select owner, type, rdata, ttl from dnssec_records where domain_id = $1 and owner = any($2::text[]) and type in ${ZONE_DATA_TYPES}`,
    [domainId, owners],
  );
}

/** the signer's DNSKEY, CDS and CDNSKEY records at the apex, as stored (what a key step replaces) */
export async function apexKeyRecords(sql: Sql, domainId: number): Promise<StoredSignerRecord[]> {
  const rows = await sql.rows(
    `select id, owner, type, rdata, ttl from dnssec_records where domain_id = $1 and owner = '@' and type in ${ZONE_DATA_TYPES}`,
    [domainId],
  );
  return rows.map(toStoredSigner);
}

/** the signer's RRSIG, NSEC and NSEC3 at an owner (an NSEC3 at its hashed owner) */
export async function signerRecordsAt(sql: Sql, domainId: number, owner: string): Promise<StoredSignerRecord[]> {
  const rows = await sql.rows(
    `select id, owner, type, rdata, ttl from dnssec_records where domain_id = $1 and owner = $2 and type in ('RRSIG', 'NSEC', 'NSEC3')`,
    [domainId, owner],
  );
  return rows.map(toStoredSigner);
}

/**
 * records that exist in the served zone: ALIAS and ANAME are never served (repositories/dns-zone-data.ts), so a
 * name with nothing else below an owner does not make that owner an empty non-terminal (RFC 5155 §7.1)
 */
export const SERVED_DATA = `type not in (${[...FLATTENED_TYPE_NAMES].map((t) => `'${t}'`).join(', ')})`;

/**
 * Up to `limit` records strictly below `owner` (relative; not '@'): the owners ending with `.<owner>` are,
 * reversed, one range of `records_domain_reverse_owner_index`, not a scan of the zone.
 */
export async function recordsBelow(sql: Sql, domainId: number, owner: string, limit: number): Promise<JournalRecord[]> {
  const { from, to } = belowRange(owner);
  return sql.rows<JournalRecord>(
    `select owner, type, rdata, ttl from records where domain_id = $1 and reverse(owner) collate "C" >= $2 and reverse(owner) collate "C" < $3
       and ${SERVED_DATA} limit $4`,
    [domainId, from, to, limit],
  );
}

/** the bounds of the owners strictly below `owner` (relative; not '@') on `reverse(owner)`: one index range */
export function belowRange(owner: string): { from: string; to: string } {
  const from = [...`.${owner}`].reverse().join('');
  return { from, to: `${from.slice(0, -1)}/` };
}

/** the chain member stored right before (`-1`) or after (`1`) `key`, circularly, `key` itself excluded */
export async function chainNeighbour(
  sql: Sql,
  domainId: number,
  key: Buffer,
  step: 1 | -1,
): Promise<{ key: Buffer; owner: string } | undefined> {
  const [comparison, order] = step === 1 ? ['>', 'asc'] : ['<', 'desc'];
  const rows = await sql.rows<{ chain_key: Buffer; owner: string }>(
    `(select 0 as wrap, chain_key, owner from dnssec_records where domain_id = $1 and chain_key is not null and chain_key ${comparison} $2
        order by chain_key ${order} limit 1)
     union all
     (select 1 as wrap, chain_key, owner from dnssec_records where domain_id = $1 and chain_key is not null and chain_key <> $2
        order by chain_key ${order} limit 1)
     order by wrap limit 1`,
    [domainId, key],
  );
  return rows[0] ? { key: rows[0].chain_key, owner: rows[0].owner } : undefined;
}

/** every signer record of a zone (a whole-zone signing compares against them; AXFR sends them) */
export async function allSignerRecords(sql: Sql, domainId: number): Promise<StoredSignerRecord[]> {
  const rows = await sql.rows('select id, owner, type, rdata, ttl from dnssec_records where domain_id = $1 order by id', [domainId]);
  return rows.map(toStoredSigner);
}

/** every user record of a zone, for a whole-zone signing */
export async function allZoneRecords(sql: Sql, domainId: number): Promise<JournalRecord[]> {
  return sql.rows<JournalRecord>('select owner, type, rdata, ttl from records where domain_id = $1 order by id', [domainId]);
}

/**
 * a zone's own records of some types, and its views' overlays of them (docs/views.md: a view's zone is signed too),
 * the records first (at most a few: enabling DNSSEC refuses when there is one); `overlay` marks a view's
 */
export async function userRecordsOfTypes(sql: Sql, domainId: number, types: string[]): Promise<(JournalRecord & { overlay: boolean })[]> {
  return sql.rows<JournalRecord & { overlay: boolean }>(
    `(select owner, type, rdata, ttl, false as overlay from records where domain_id = $1 and type = any($2::text[]) limit 3)
     union all
     (select owner, type, '' as rdata, 0 as ttl, true as overlay from view_overlays where domain_id = $1 and type = any($2::text[]) limit 3)
     order by overlay limit 3`,
    [domainId, types],
  );
}

/** the RRset at an owner of one type, wherever it is kept (a user's records, or the signer's: DNSKEY, NSEC…) */
export async function rrsetAt(sql: Sql, domainId: number, owner: string, type: string): Promise<JournalRecord[]> {
  return sql.rows<JournalRecord>(
    `select owner, type, rdata, ttl from records where domain_id = $1 and owner = $2 and type = $3
     union all
     select owner, type, rdata, ttl from dnssec_records where domain_id = $1 and owner = $2 and type = $3`,
    [domainId, owner, type],
  );
}
