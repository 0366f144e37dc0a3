import type { RowOptions, Sql } from '../db/pool';
import type { ReadRules } from '../auth/policy';
import {
  keyset,
  LAZY_TIMES,
  type PageRequest,
  Params,
  RECORD_COLUMNS,
  recordRuleCondition,
  recordsWithZones,
  RecordRow,
} from './read-model';

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
  /** a record id: the page before it */
  before?: number;
  /** the page nearest `before` (or the end), read backwards: answered as read */
  fromEnd?: boolean;
}

/** what a search matches, without its page */
export type SearchScope = Omit<RecordSearch, keyof PageRequest>;

/** timestamps as text (LAZY_TIMES), and planned for the pattern each time: one finds a record, another half the table */
const SEARCH_ROWS: RowOptions = { ...LAZY_TIMES, plan: 'values' };

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
  const { conditions } = searchConditionsOf(p, search, await zonesNamedLike(sql, search.namePiece));
  const paged = keyset(p, 'r.id', search);
  const rows = await sql.rows(
    `select ${RECORD_COLUMNS} from records r join domains d on d.id = r.domain_id
      where ${[...conditions, ...paged.conditions].join(' and ')} ${paged.order} limit ${p.add(search.first)}`,
    p.values,
    SEARCH_ROWS,
  );
  return recordsWithZones(rows);
}

/** how many records the search finds over all pages (read only when a client asks for it) */
export async function countSearchedRecords(sql: Sql, search: SearchScope): Promise<number> {
  const p = new Params();
  const { conditions, readsZone } = searchConditionsOf(p, search, await zonesNamedLike(sql, search.namePiece));
  // without the zone's columns in a condition, the records are counted alone: joined, every matching record was
  // hashed against every zone (a count of 100,000 matches among 100,000 zones took 87 ms instead of 39)
  const zone = readsZone ? 'join domains d on d.id = r.domain_id' : '';
  const [row] = await sql.rows<{ count: string }>(
    `select count(*) as count from records r ${zone} where ${conditions.join(' and ')}`,
    p.values,
    { plan: 'values' },
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

/** past this many zones whose name holds the piece, they are looked up within the search's own statement */
const MAX_ZONES_NAMED_LIKE = 1000;

/**
 * The ids of the zones whose name holds `namePiece` (domains_name_trgm_index), read before the search so that
 * its statement is planned knowing them: usually there are none, and then no record is looked for by its zone.
 * Looked up within the statement, they were a guess to the planner (ten zones' records, 120,000 of them), which
 * then read the whole table rather than the two trigram indexes. 'within': more than MAX_ZONES_NAMED_LIKE.
 */
async function zonesNamedLike(sql: Sql, namePiece: string): Promise<string[] | 'within'> {
  if (!namePiece) return [];
  const rows = await sql.rows<{ id: string }>('select id from domains where name like $1 limit $2', [
    `%${namePiece}%`,
    MAX_ZONES_NAMED_LIKE + 1,
  ]);
  return rows.length > MAX_ZONES_NAMED_LIKE ? 'within' : rows.map((row) => row.id);
}

/** the conditions a record matches by, and whether one of them reads its zone's columns (`d`) */
function searchConditionsOf(p: Params, search: SearchScope, zonesNamed: string[] | 'within'): { conditions: string[]; readsZone: boolean } {
  const pattern = p.add(search.pattern);
  // the name piece's parameter, added once when a condition uses it (a parameter no condition uses is an error)
  let pieceParameter: string | undefined;
  const piece = () => (pieceParameter ??= p.add(`%${search.namePiece}%`));
  /** the records of the zones whose name holds the piece, or undefined: none */
  const inZonesNamed =
    zonesNamed === 'within'
      ? `r.domain_id = any(array(select z.id from domains z where z.name like ${piece()}))`
      : zonesNamed.length
        ? `r.domain_id = any(${p.add(zonesNamed)}::bigint[])`
        : undefined;
  let byName: string;
  let readsZone = false;
  if (search.contentForm === 'stored' && search.pattern === `%${search.namePiece}%`) {
    // the text anywhere, without a dot: it cannot straddle the dot between the owner and the zone's name, so an
    // absolute name holds it when the owner does or the zone's name does. The apex's `@` is no part of the name,
    // and only the text `@` itself is found in it; that one text alone is kept from the apex, since a condition
    // beside the LIKE is a filter PostgreSQL runs after its recheck of the LIKE, each LIKE then evaluated twice
    // (a count of 100,000 matches: 76 ms instead of 46)
    const ownerHolds = `lower(r.owner) like ${pattern}`;
    const byOwner = search.namePiece === '@' ? `(r.owner <> '@' and ${ownerHolds})` : ownerHolds;
    byName = inZonesNamed ? `(${byOwner} or ${inZonesNamed})` : byOwner;
  } else {
    const absolute = `(case when r.owner = '@' then d.name else lower(r.owner) || '.' || d.name end)`;
    byName = `${absolute} like ${pattern}`;
    readsZone = true;
    if (search.namePiece) {
      const holding = inZonesNamed ? `(lower(r.owner) like ${piece()} or ${inZonesNamed})` : `lower(r.owner) like ${piece()}`;
      byName = `(${holding} and ${byName})`;
    }
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
  return { conditions, readsZone: readsZone || readable !== undefined || search.scopeUserId !== undefined };
}
