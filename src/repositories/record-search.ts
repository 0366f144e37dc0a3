import type { Sql } from '../db/pool';
import type { ReadRules } from '../auth/policy';
import { LAZY_TIMES, Params, RECORD_COLUMNS, recordRuleCondition, recordsWithZones, RecordRow } from './read-model';

/** what the search across zones is asked (RecordSearchService): a LIKE pattern over names and contents */
export interface RecordSearch {
  /** a LIKE pattern (`\` escapes), lower case, matched whole against a record's absolute name (no final dot) or content */
  pattern: string;
  /**
   * a run of characters every name the pattern matches holds, without a dot (lower case, LIKE-escaped), or ''
   * when the pattern has none: the index's way in (see searchRecords)
   */
  namePiece: string;
  /**
   * the content matched: `stored` (the canonical presentation form, as `rdata`) or `powerdns` (the form PowerDNS's
   * SQL backends store and match: every name without its final dot, an MX's or SRV's priority in a column of its
   * own, so out of the content)
   */
  contentForm: 'stored' | 'powerdns';
  /**
   * with `powerdns`: a run of characters every matching content holds in its stored form too (lower case,
   * LIKE-escaped, without a dot or a space, so that it cannot straddle a dropped final dot), or '': the content
   * index's way in
   */
  contentPiece: string;
  /** the caller's reach: its user's zones (undefined: every user's), a restricted key's rules */
  scopeUserId?: number;
  readRules?: ReadRules;
  first: number;
  /** a record id: the page after it */
  after?: number;
}

/**
 * Records whose content or absolute name matches, in id order, `first` after the cursor: the search across zones
 * (PowerDNS-Admin's, GraphQL's searchRecords, PowerDNS's search-data). Contents are matched through
 * records_rdata_trgm_index (Migration20261202030000). A record's absolute name is its owner and its zone's
 * name, in two tables: a name holding the dot-free `namePiece` holds it in its owner or in its zone's name
 * (a dot-free run cannot straddle the dot between them), so the records whose owner holds it
 * (records_owner_trgm_index) and the records of the zones whose name holds it (domains_name_trgm_index, then
 * the records of those zones by records_domain_owner_index) are the only ones whose whole name is compared.
 * The records the service derives from an ALIAS are left out: the ALIAS is what was written and is found.
 */
export async function searchRecords(sql: Sql, search: RecordSearch): Promise<RecordRow[]> {
  const p = new Params();
  const conditions = searchConditions(p, search);
  if (search.after !== undefined) conditions.push(`r.id > ${p.add(search.after)}`);
  const rows = await sql.rows(
    `select ${RECORD_COLUMNS} from records r join domains d on d.id = r.domain_id
      where ${conditions.join(' and ')} order by r.id limit ${p.add(search.first)}`,
    p.values,
    LAZY_TIMES,
  );
  return recordsWithZones(rows);
}

/** how many records the search finds over all pages (read only when a client asks for it) */
export async function countSearchedRecords(sql: Sql, search: Omit<RecordSearch, 'first' | 'after'>): Promise<number> {
  const p = new Params();
  const [row] = await sql.rows<{ count: string }>(
    `select count(*) as count from records r join domains d on d.id = r.domain_id where ${searchConditions(p, search).join(' and ')}`,
    p.values,
  );
  return Number(row.count);
}

/**
 * A record's content as PowerDNS's SQL backends store it (PowerDNS 4.7, gsqlite3 and gpgsql: the `content` column
 * their search-data matches): the priority of an MX or SRV is a column of its own, so the content starts after it,
 * and every name is written without its final dot (`10 mail.example.org.` is `mail.example.org`). A name is a
 * field that ends with a dot before a space or the end; a quoted character-string (TXT, CAA, NAPTR's fields) is
 * kept whole, whatever its dots: the first alternative takes it, and the longest match at a place wins (an ARE
 * with `|`), so a dot inside one is never taken for a name's. The root alone (`0 .`, a null MX) stays `.`.
 */
const POWERDNS_CONTENT = `regexp_replace(case when r.type in ('MX', 'SRV') then substr(r.rdata, strpos(r.rdata, ' ') + 1) else r.rdata end,
  '("(?:[^"\\\\]|\\\\.)*")|([^ ]*[^ .])\\.(?= |$)', '\\1\\2', 'g')`;

function searchConditions(p: Params, search: Omit<RecordSearch, 'first' | 'after'>): string[] {
  const pattern = p.add(search.pattern);
  const absolute = `(case when r.owner = '@' then d.name else lower(r.owner) || '.' || d.name end)`;
  let byName = `${absolute} like ${pattern}`;
  if (search.namePiece) {
    const piece = p.add(`%${search.namePiece}%`);
    byName = `((lower(r.owner) like ${piece} or r.domain_id = any(array(select z.id from domains z where z.name like ${piece}))) and ${byName})`;
  }
  let byContent = `lower(r.rdata) like ${pattern}`;
  if (search.contentForm === 'powerdns') {
    byContent = `lower(${POWERDNS_CONTENT}) like ${pattern}`;
    // the contents that hold the piece as stored (records_rdata_trgm_index) are the only ones rewritten and compared
    if (search.contentPiece) byContent = `(lower(r.rdata) like ${p.add(`%${search.contentPiece}%`)} and ${byContent})`;
  }
  const conditions = ['r.derived_from is null', `(${byContent} or ${byName})`];
  const readable = recordRuleCondition(p, search.readRules, (zone) => `d.name = ${p.add(zone)}`);
  if (readable) conditions.push(readable);
  if (search.scopeUserId !== undefined) conditions.push(`d.user_id = ${p.add(search.scopeUserId)}`);
  return conditions;
}
