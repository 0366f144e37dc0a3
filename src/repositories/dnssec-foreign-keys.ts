/**
 * The DNSKEYs of a zone's other signer (RFC 8901 model 2; Migration20261202040000): public keys the zone's
 * DNSKEY RRset publishes beside its own, and whose KSKs its CDS/CDNSKEY name. A key read from a server and
 * removed by hand is kept as declined (`removed_at`, Migration20261203030000) so that the worker's next reading
 * of that server does not add it back; the functions here that answer a zone's keys pass declined rows over.
 */
import type { Database, Sql } from '../db/pool';

export interface ForeignDnskey {
  id: number;
  domainId: number;
  /** 256 (a ZSK) or 257 (a KSK, Secure Entry Point) */
  flags: number;
  algorithm: number;
  keyTag: number;
  /** the DNSKEY RDATA in presentation form */
  dnskey: string;
  source: 'value' | 'fetched';
  /** the server it was read from (`source` fetched) */
  fetchedFrom: string | null;
  createdAt: Date;
}

const COLUMNS = 'id, domain_id, flags, algorithm, key_tag, dnskey, source, fetched_from, created_at';

const toForeign = (r: any): ForeignDnskey => ({
  id: Number(r.id),
  domainId: Number(r.domain_id),
  flags: Number(r.flags),
  algorithm: Number(r.algorithm),
  keyTag: Number(r.key_tag),
  dnskey: r.dnskey,
  source: r.source,
  fetchedFrom: r.fetched_from,
  createdAt: r.created_at,
});

/** the zone's foreign DNSKEYs, oldest first (the declined ones left out) */
export async function foreignKeysOfZone(sql: Pick<Sql | Database, 'rows'>, domainId: number): Promise<ForeignDnskey[]> {
  const rows = await sql.rows(`select ${COLUMNS} from dnssec_foreign_keys where domain_id = $1 and removed_at is null order by id`, [
    domainId,
  ]);
  return rows.map(toForeign);
}

/** the keys read from `server` and then removed by hand: not to be added back from it */
export async function declinedForeignKeys(sql: Pick<Sql | Database, 'rows'>, domainId: number, server: string): Promise<ForeignDnskey[]> {
  const rows = await sql.rows(
    `select ${COLUMNS} from dnssec_foreign_keys where domain_id = $1 and fetched_from = $2 and removed_at is not null order by id`,
    [domainId, server],
  );
  return rows.map(toForeign);
}

/** forgets declined keys (their server publishes them no more) */
export async function forgetDeclinedForeignKeys(sql: Sql, domainId: number, ids: readonly number[]): Promise<void> {
  if (!ids.length) return;
  await sql.rows(`delete from dnssec_foreign_keys where domain_id = $1 and id = any($2::bigint[]) and removed_at is not null`, [
    domainId,
    ids,
  ]);
}

/** adds the keys the zone does not hold yet (a declined one taken back); returns those added */
export async function insertForeignKeys(
  sql: Sql,
  domainId: number,
  keys: readonly Pick<ForeignDnskey, 'flags' | 'algorithm' | 'keyTag' | 'dnskey' | 'source' | 'fetchedFrom'>[],
): Promise<ForeignDnskey[]> {
  const added: ForeignDnskey[] = [];
  for (const key of keys) {
    const rows = await sql.rows(
      `insert into dnssec_foreign_keys (domain_id, flags, algorithm, key_tag, dnskey, source, fetched_from)
       values ($1, $2, $3, $4, $5, $6, $7)
       on conflict (domain_id, dnskey) do update
          set removed_at = null, source = excluded.source, fetched_from = excluded.fetched_from, created_at = now()
        where dnssec_foreign_keys.removed_at is not null
       returning ${COLUMNS}`,
      [domainId, key.flags, key.algorithm, key.keyTag, key.dnskey, key.source, key.fetchedFrom],
    );
    added.push(...rows.map(toForeign));
  }
  return added;
}

/**
 * removes one of the zone's foreign keys, by id; returns it, or undefined when the zone holds no such key.
 * `decline`: a key read from a server stays as declined, so that reading the server again does not add it back
 */
export async function deleteForeignKey(sql: Sql, domainId: number, id: number, decline = false): Promise<ForeignDnskey | undefined> {
  const rows = await sql.rows(
    decline
      ? `update dnssec_foreign_keys set removed_at = now()
          where domain_id = $1 and id = $2 and removed_at is null and source = 'fetched' returning ${COLUMNS}`
      : `delete from dnssec_foreign_keys where domain_id = $1 and id = $2 and removed_at is null returning ${COLUMNS}`,
    [domainId, id],
  );
  if (decline && !rows.length) return deleteForeignKey(sql, domainId, id);
  return rows.map(toForeign)[0];
}

/** removes every foreign key of the zone (it goes unsigned: nothing publishes them any more) */
export async function deleteForeignKeysOfZone(sql: Sql, domainId: number): Promise<void> {
  await sql.rows(`delete from dnssec_foreign_keys where domain_id = $1`, [domainId]);
}
