/** The read model's records: lists and counts, and the nested lists of a batch of zones (packed, or row by row) */
import type { Sql } from '../../db/pool';
import type { ReadRules } from '../../auth/policy';
import { LAZY_TIMES, recordsWithZones, toDomain, type PageRequest, type RecordRow } from './rows';
import { idArray, page, Params, whereOf } from './statement-parts';
import {
  allChildren,
  childrenPerParent,
  countPerParent,
  pagePerParent,
  parentsWithChildBeyond,
  type ChildQuery,
  type PerParentPage,
} from './per-parent';
import { PackedRecords } from './packed-records';
import { rrsetCountsText, type RrsetCountWindow } from '../query-analytics';

export interface RecordFilter {
  scopeUserId?: number;
  /** a restricted key's rules: only the records some rule matches are seen, listed or counted */
  readRules?: ReadRules;
  id?: number;
  domainId?: number;
  zone?: string;
  owner?: string;
  type?: string;
  /** the records as written: without the A/AAAA the service derives from an ALIAS/ANAME (as a zone file writes it) */
  asWritten?: boolean;
}

/**
 * The records a restricted key may read, as SQL: one rule's zone, owner (exact, or `label.*`: that label and
 * names under it, compared with starts_with so that `_` is no LIKE wildcard) and types, or-ed over its rules.
 * `zoneOf(zone)` gives the condition for a rule's zone (a join's `d.name`, or the ids of the zones in hand).
 */
export function recordRuleCondition(p: Params, rules: ReadRules | undefined, zoneOf: (zone: string) => string): string | undefined {
  if (!rules) return undefined;
  if (rules.length === 0) return 'false';
  const each = rules.map((rule) => {
    const parts: string[] = [];
    if (rule.zone !== null) parts.push(zoneOf(rule.zone));
    if (rule.owner !== null && rule.owner.endsWith('.*')) {
      const prefix = rule.owner.slice(0, -2);
      parts.push(`(r.owner = ${p.add(prefix)} or starts_with(r.owner, ${p.add(`${prefix}.`)}))`);
    } else if (rule.owner !== null) parts.push(`r.owner = ${p.add(rule.owner)}`);
    if (rule.types !== null) parts.push(`r.type = any(${p.add(rule.types)}::text[])`);
    return parts.length ? `(${parts.join(' and ')})` : 'true';
  });
  return `(${each.join(' or ')})`;
}

function recordConditions(p: Params, filter: RecordFilter): string[] {
  const conditions: string[] = [];
  const readable = recordRuleCondition(p, filter.readRules, (zone) => `d.name = ${p.add(zone)}`);
  if (readable) conditions.push(readable);
  if (filter.scopeUserId !== undefined) conditions.push(`d.user_id = ${p.add(filter.scopeUserId)}`);
  if (filter.zone !== undefined) {
    const zone = p.add(filter.zone);
    // the zone's id as a value of the statement too, so that a page of one zone is read in order from the
    // (domain_id, id) index: joined by name alone, the planner read every record of the zone and sorted them for
    // each page (a 100,000-record zone's pages took 6–13 ms instead of 1.3)
    conditions.push(`d.name = ${zone}`, `r.domain_id = (select zd.id from domains zd where zd.name = ${zone})`);
  }
  return [...conditions, ...recordOwnConditions(p, filter)];
}

/**
 * The conditions of a filter on one zone by name that read no column of the zone: its id is a value of the
 * statement (the caller's reach included), and a rule's zone is true or false of it.
 */
function oneZoneConditions(p: Params, filter: RecordFilter & { zone: string }): string[] {
  const conditions: string[] = [];
  const readable = recordRuleCondition(p, filter.readRules, (zone) => (zone === filter.zone ? 'true' : 'false'));
  if (readable) conditions.push(readable);
  const owned = filter.scopeUserId === undefined ? '' : ` and zd.user_id = ${p.add(filter.scopeUserId)}`;
  conditions.push(`r.domain_id = (select zd.id from domains zd where zd.name = ${p.add(filter.zone)}${owned})`);
  return [...conditions, ...recordOwnConditions(p, filter)];
}

/** the conditions of a filter on the records' own columns */
function recordOwnConditions(p: Params, filter: RecordFilter): string[] {
  const conditions: string[] = [];
  if (filter.id !== undefined) conditions.push(`r.id = ${p.add(filter.id)}`);
  if (filter.domainId !== undefined) conditions.push(`r.domain_id = ${p.add(filter.domainId)}`);
  if (filter.owner !== undefined) conditions.push(`r.owner = ${p.add(filter.owner)}`);
  if (filter.type !== undefined) conditions.push(`r.type = ${p.add(filter.type)}`);
  if (filter.asWritten) conditions.push('r.derived_from is null');
  return conditions;
}

export const RECORD_COLUMNS =
  'r.id, r.domain_id, d.name as zone, r.owner, r.type, r.rdata, r.ttl, d.user_id as zone_user_id, d.serial as zone_serial, d.created_at as zone_created_at, d.kind as zone_kind';

/**
 * A page of records with their zones, as one statement sees them. A zone's columns come with the first of its
 * records in the page (the first record, and each one after a record of another zone) and are null on the
 * others, where recordsWithZones takes the zone it made of them: pg builds every column of every row, and a
 * zone page of 10,000 records took 19 ms of the process's CPU with the zone's five columns on each and 11 ms
 * without them. The page is read first, by the index its order and keyset use, then each zone by its key where
 * its first record is, in the page's order (`limit 1` keeps the look-up a nested loop: joined as a whole, the
 * planner read every zone for a hash join). A page of one zone by name is read without the zone (recordsOfOneZone).
 */
export async function listRecords(sql: Sql, filter: RecordFilter, request?: PageRequest): Promise<RecordRow[]> {
  if (filter.zone !== undefined) {
    const records = await recordsOfOneZone(sql, { ...filter, zone: filter.zone }, request);
    if (records) return records;
  }
  const p = new Params();
  // a page read from the end comes nearest its `before` first, as it was read
  const direction = request?.fromEnd ? ' desc' : '';
  const rows = await sql.rows(
    `select q.id, q.domain_id, q.owner, q.type, q.rdata, q.ttl, z.name as zone, z.user_id as zone_user_id,
        z.serial as zone_serial, z.created_at as zone_created_at, z.kind as zone_kind
     from (select g.*, g.domain_id is distinct from lag(g.domain_id) over (order by g.id${direction}) as first_of_zone
           from (select r.id, r.domain_id, r.owner, r.type, r.rdata, r.ttl from records r join domains d on d.id = r.domain_id
                 ${page(p, recordConditions(p, filter), 'r.id', request)}) g) q
     left join lateral (select d.name, d.user_id, d.serial, d.created_at, d.kind from domains d
                        where d.id = q.domain_id and q.first_of_zone limit 1) z on true
     order by q.id${direction}`,
    p.values,
    LAZY_TIMES,
  );
  return recordsWithZones(rows);
}

/**
 * The records of one zone that are these (owner, type and RDATA: a record's identity in the zone), as the zone
 * holds them now, in id order; one it no longer holds is not among them. By the identity's unique index
 * (`records_identity_unique`): a change's records (its journal row's additions) with the ids they were written with.
 */
export async function recordsByIdentity(
  sql: Sql,
  zone: { id: number; name: string },
  records: readonly { owner: string; type: string; rdata: string }[],
): Promise<RecordRow[]> {
  if (records.length === 0) return [];
  const rows = await sql.rows(
    `select r.id, r.owner, r.type, r.rdata, r.ttl
       from jsonb_to_recordset($2::jsonb) as x(owner text, type text, rdata text)
       join records r on r.domain_id = $1 and r.owner = x.owner and r.type = x.type and md5(r.rdata) = md5(x.rdata) and r.rdata = x.rdata
      order by r.id`,
    [zone.id, JSON.stringify(records.map(({ owner, type, rdata }) => ({ owner, type, rdata })))],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    domainId: zone.id,
    zone: zone.name,
    owner: row.owner,
    type: row.type,
    rdata: row.rdata,
    ttl: row.ttl,
  }));
}

/** a page's statement whose rows are packed in id order: one read from the end (backwards) is sorted back */
const inIdOrder = (statement: string, request: PageRequest | undefined): string =>
  request?.fromEnd ? `select * from (${statement}) as read order by id` : statement;

/**
 * A page of one zone's records (the console's zone page), read without joining its zone: the zone's row is read
 * beside the page, by a statement of its own at the same time, and given to the page's records. Joined, and its
 * columns given to the first record by a window over the page, a page of 10,000 records took 8.5 ms of the
 * database's time instead of 1.7. The page comes as one packed text (PACKED_RECORD, as the nested lists read a
 * zone: recordsGroupedByDomain), split here: pg making a row object of each record was most of what a page of
 * 1,000 records cost the service above its floor (bench/FINDINGS.md). Undefined when the zone's row is not the
 * zone the records were read of (deleted, or deleted and made again, between the two statements), or when the
 * text does not split into the page's records (a value holding a separator): the caller reads them as one
 * statement, row by row.
 */
async function recordsOfOneZone(
  sql: Sql,
  filter: RecordFilter & { zone: string },
  request: PageRequest | undefined,
): Promise<RecordRow[] | undefined> {
  const p = new Params();
  const [[paged], [zone]] = await Promise.all([
    sql.rows(
      `select count(*)::int as record_count, min(domain_id) as domain_id, string_agg(${PACKED_RECORD}, chr(30)) as packed
         from (${inIdOrder(`select r.id, r.domain_id, r.owner, r.type, r.rdata, r.ttl from records r ${page(p, oneZoneConditions(p, filter), 'r.id', request)}`, request)}) as paged`,
      p.values,
    ),
    sql.rows('select id, user_id, name, serial, created_at, kind from domains where name = $1', [filter.zone], LAZY_TIMES),
  ]);
  const count = Number(paged.record_count);
  if (count === 0) return [];
  if (zone === undefined || String(zone.id) !== String(paged.domain_id)) return undefined;
  const zoneRow = toDomain(zone);
  const packed = PackedRecords.of(zoneRow.id, zoneRow.name, paged.packed, count);
  if (!packed) return undefined;
  const records: RecordRow[] = [];
  for (const record of packed) {
    record.zoneRow = zoneRow;
    records.push(record);
  }
  // packed in id order; a page read from the end is answered as it was read, nearest its `before` first
  return request?.fromEnd ? records.reverse() : records;
}

export async function countRecords(sql: Sql, filter: RecordFilter): Promise<number> {
  const p = new Params();
  // one zone's records are counted alone, by the (domain_id, id) index: without the join, as its page is read
  const text =
    filter.zone !== undefined
      ? `select count(*) as count from records r ${whereOf(oneZoneConditions(p, { ...filter, zone: filter.zone }))}`
      : `select count(*) as count from records r join domains d on d.id = r.domain_id ${whereOf(recordConditions(p, filter))}`;
  const [row] = await sql.rows(text, p.values);
  return Number(row.count);
}

export interface NestedRecordFilter {
  owner?: string;
  type?: string;
  perDomain?: number;
  /** a restricted key's rules: only the records some rule matches */
  readRules?: ReadRules;
  /**
   * each record's RRset counts over these windows, and its last query, read with a page of each zone's records
   * (`perDomain`) as its packed counts (PackedRecords.counts)
   */
  counts?: readonly RrsetCountWindow[];
}
/** a zone as a parent of nested records: its id and name */
export interface ZoneRef {
  id: number;
  name: string;
}

const NESTED_RECORD_COLUMNS = 'r.id, r.domain_id, r.owner, r.type, r.rdata, r.ttl';

/**
 * The records of the given zones. The caller knows the zones' names, so the records are not joined with
 * `domains` for them: for a nested answer of 10,000 records the join and its sort were half of the
 * statement's time (the records come by primary key order otherwise).
 */
function nestedRecordsQuery(p: Params, names: Map<number, string> | readonly number[], filter: NestedRecordFilter): ChildQuery {
  const conditions: string[] = [];
  if (filter.owner !== undefined) conditions.push(`r.owner = ${p.add(filter.owner)}`);
  if (filter.type !== undefined) conditions.push(`r.type = ${p.add(filter.type)}`);
  // a rule's zone: the ids of the zones of that name when the names are in hand (no join with domains), else a
  // look-up of the name
  const readable = recordRuleCondition(p, filter.readRules, (zone) => {
    if (!(names instanceof Map)) return `r.domain_id in (select id from domains where name = ${p.add(zone)})`;
    const ids = [...names].filter(([, name]) => name === zone).map(([id]) => id);
    return `r.domain_id = any(${p.add(idArray(ids))}::bigint[])`;
  });
  if (readable) conditions.push(readable);
  return {
    p,
    columns: NESTED_RECORD_COLUMNS,
    from: 'records r',
    parentColumn: 'r.domain_id',
    idColumn: 'r.id',
    parentIds: names instanceof Map ? [...names.keys()] : names,
    conditions,
  };
}

/** records as the nested lists give them: with their zone's name, known to the caller */
function nestedRecordsOf(rows: any[], names: Map<number, string>): RecordRow[] {
  return rows.map((row: any): RecordRow => {
    const domainId = Number(row.domain_id);
    return { id: Number(row.id), domainId, zone: names.get(domainId)!, owner: row.owner, type: row.type, rdata: row.rdata, ttl: row.ttl };
  });
}

/** A page of each zone's records (Domain.recordsConnection). */
export async function recordPagesOfDomains(
  sql: Sql,
  domains: readonly ZoneRef[],
  page: PerParentPage,
  filter: NestedRecordFilter = {},
): Promise<RecordRow[]> {
  const names = new Map(domains.map((d) => [d.id, d.name]));
  const rows = await pagePerParent(sql, nestedRecordsQuery(new Params(), names, filter), page);
  return nestedRecordsOf(rows, names);
}

/**
 * The zones of the batch whose records under the filter go on past their anchors (ids) on one side, in one
 * statement: Domain.recordsConnection's pageInfo where a page's own read could not tell.
 */
export function domainsWithRecordsBeyond(
  sql: Sql,
  domains: readonly ZoneRef[],
  anchors: ReadonlyMap<number, number | undefined>,
  side: 'after' | 'before',
  filter: NestedRecordFilter = {},
): Promise<Set<number>> {
  const names = new Map(domains.map((d) => [d.id, d.name]));
  return parentsWithChildBeyond(sql, nestedRecordsQuery(new Params(), names, filter), anchors, side);
}

/** how many records each zone has under the filter (Domain.recordsConnection's totalCount), for a batch of zones */
export function recordCountsByDomainIds(
  sql: Sql,
  domainIds: readonly number[],
  filter: NestedRecordFilter = {},
): Promise<Map<number, number>> {
  return countPerParent(sql, nestedRecordsQuery(new Params(), domainIds, filter));
}

export async function recordsOfDomains(sql: Sql, domains: readonly ZoneRef[], filter: NestedRecordFilter = {}): Promise<RecordRow[]> {
  const names = new Map(domains.map((d) => [d.id, d.name]));
  const query = nestedRecordsQuery(new Params(), names, filter);
  return nestedRecordsOf(await sql.rows(childrenPerParent(query, filter.perDomain, ['r.id']), query.p.values), names);
}

/**
 * The records of the given zones, grouped by zone, in id order: the nested `Domain.records` list.
 *
 * Each zone's records come as one text value (`string_agg` of id, owner, type, rdata and ttl, joined by ASCII's
 * unit separator, records by its record separator), split here. For a nested answer of 10,000 records, pg's
 * decoding of 10,000 rows of 6 columns was most of the statement's cost on the node side; one row per zone
 * took the node's CPU for the statement from ~30 to ~9 ms (docs/performance.md, «Reading zones»).
 *
 * The service never stores a control character in an owner or rdata (the name parser refuses them and the
 * canonical forms escape them, RFC 1035 §5.1), but a row written before those rules, or by hand, could hold a
 * separator and so forge fields or records of its zone. The split checks itself instead: the zone's record
 * count comes with it, and a separator inside a value either adds a record (the count differs) or adds a
 * field (a record with more than five). Such a zone is read again row by row (`recordsOfDomains`).
 *
 * A zone's records are handed over as a `PackedRecords` iterable, which makes each record as the answer reads
 * it: a nested answer walks every list once, so its records are short-lived garbage rather than 10,000
 * objects that every garbage collection during the request must copy (docs/performance.md, «Reading zones»).
 */
export async function recordsGroupedByDomain(
  sql: Sql,
  domains: readonly ZoneRef[],
  filter: NestedRecordFilter = {},
): Promise<Map<number, Iterable<RecordRow>>> {
  const names = new Map(domains.map((d) => [d.id, d.name]));
  const query = nestedRecordsQuery(new Params(), names, filter);
  const packed = await sql.rows(packedRecordsStatement(query, filter.perDomain, filter.counts), query.p.values, LAZY_TIMES);
  const groups = new Map<number, Iterable<RecordRow>>();
  const unpackable: ZoneRef[] = [];
  for (const row of packed) {
    const domainId = Number(row.domain_id);
    const zone = names.get(domainId)!;
    const records = PackedRecords.of(domainId, zone, row.packed, Number(row.record_count), row.counts_packed ?? undefined);
    if (records) groups.set(domainId, records);
    else unpackable.push({ id: domainId, name: zone });
  }
  if (unpackable.length) {
    // read row by row, in id order (recordsOfDomains sorts them)
    const regrouped = new Map<number, RecordRow[]>();
    for (const record of await recordsOfDomains(sql, unpackable, filter)) {
      const group = regrouped.get(record.domainId);
      if (group) group.push(record);
      else regrouped.set(record.domainId, [record]);
    }
    for (const [domainId, records] of regrouped) groups.set(domainId, records);
  }
  return groups;
}

/** one record as packed text: id, owner, type, rdata and TTL joined by FIELD_SEPARATOR (chr(31)) */
const PACKED_RECORD = `id::text || chr(31) || owner || chr(31) || type || chr(31) || rdata || chr(31) || ttl::text`;

/**
 * The statement of recordsGroupedByDomain: a row per zone with records (its id, record count and packed text).
 *
 * With a page per zone (`perDomain`, every nested list the API serves) each zone's records are aggregated inside
 * the LATERAL subquery that reads them from the (domain_id, id) index in id order: no sort and no grouping of
 * the whole batch. Sorting the 10,000 rows of a nested answer by zone and id, then grouping them, was a third of
 * the statement's time (11–15 → 7.7–8 ms, bench/FINDINGS.md). Without a page (the service's own whole-zone
 * reads) the rows come sorted by zone and id into one aggregate, which then reads each zone's rows in order
 * without a sort of its own (an ordered aggregate sorted every group: 1.4× the statement's time). Either way
 * PostgreSQL keeps the subquery's order into the aggregate in practice without promising it; the packed
 * records' check sees the order.
 */
function packedRecordsStatement(query: ChildQuery, perDomain: number | undefined, counts: readonly RrsetCountWindow[] | undefined): string {
  if (perDomain === undefined) {
    return `select domain_id, count(*) as record_count, string_agg(${PACKED_RECORD}, chr(30)) as packed
       from (${allChildren(query, ['r.domain_id', 'r.id'])}) as nested
      group by domain_id`;
  }
  const { p, columns, from, parentColumn, idColumn, parentIds, conditions } = query;
  const parents = p.add(idArray(parentIds));
  const ofOneParent = [`${parentColumn} = parents.id`, ...conditions];
  // each record's RRset counts, when asked, probed per record of the page and packed alike, in the same order
  const countsColumn = counts ? `, ${rrsetCountsText((value) => p.add(value), 'r', counts)} as counts` : '';
  const countsPacked = counts ? `, string_agg(counts, chr(30)) as counts_packed` : '';
  return `select parents.id as domain_id, zone.record_count, zone.packed${counts ? ', zone.counts_packed' : ''}
       from unnest(${parents}::bigint[]) as parents(id)
      cross join lateral (
        select count(*)::int as record_count, string_agg(${PACKED_RECORD}, chr(30)) as packed${countsPacked}
          from (select ${columns}${countsColumn} from ${from} ${whereOf(ofOneParent)} order by ${idColumn} limit ${p.add(perDomain)}) as children
      ) as zone
      where zone.record_count > 0`;
}
