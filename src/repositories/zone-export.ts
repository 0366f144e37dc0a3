import type { Database } from '../db/pool';
import type { CanonicalRecord } from '../dns/record';

/**
 * A zone's records in master-file order, page by page (zone export), from one snapshot: the apex SOA first,
 * then every other record sorted by owner in RFC 4034 §6.1 canonical order (labels compared from the right, a name before its descendants; the
 * apex first), then type, then RDATA, all by octets (COLLATE "C"). The order is PostgreSQL's sort, so a
 * zone of a million records streams without being held (bench/RESULTS-scale.md).
 */
export function zoneFileRecords(
  db: Database,
  domainId: number,
  pageSize = 2000,
  /** false: without the A/AAAA derived from an ALIAS/ANAME (a zone file writes the ALIAS, as PowerDNS does) */
  includeDerived = true,
): AsyncGenerator<CanonicalRecord[]> {
  const id = Math.trunc(Number(domainId));
  if (!Number.isSafeInteger(id)) throw new Error(`bad domain id ${domainId}`);
  return db.cursorPages<CanonicalRecord>(
    `select owner, type, rdata, ttl from records
      where domain_id = ${id}${includeDerived ? '' : ' and derived_from is null'}
      order by (owner = '@' and type = 'SOA') desc,
               case when owner = '@' then array[]::text[]
                    else array(select label from unnest(string_to_array(owner, '.')) with ordinality as l(label, n) order by n desc) end collate "C",
               type collate "C", rdata collate "C", id`,
    pageSize,
  );
}
