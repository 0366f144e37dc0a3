import type { EntityManager } from '@mikro-orm/postgresql';
import type { Knex } from '@mikro-orm/knex';

/**
 * Read queries of the API, in one place. They return plain rows, not entities: lists and nested GraphQL
 * fields stay cheap (no identity map, no hydration), page by keyset (`id > after`), and batch by key lists
 * for the DataLoaders. Every query takes the caller's scope (`scopeUserId`) so that a user key never sees
 * another user's data.
 */
export interface UserRow { id: number; email: string; createdAt: Date }
export interface DomainRow { id: number; userId: number; name: string; serial: number; createdAt: Date }
export interface RecordRow {
  id: number; domainId: number; zone: string; owner: string; type: string; rdata: string; ttl: number;
  /** the zone as the same statement saw it (record lists): a read racing a zone's deletion stays consistent */
  zoneRow?: DomainRow;
}
export interface PageRequest { first: number; after?: number }

export interface UserFilter { scopeUserId?: number; id?: number; email?: string }
export interface DomainFilter { scopeUserId?: number; id?: number; userId?: number; name?: string }
export interface RecordFilter {
  scopeUserId?: number;
  id?: number;
  domainId?: number;
  zone?: string;
  owner?: string;
  type?: string;
}

/** MikroORM's pg connection hands timestamps over as text (`2026-11-22 02:57:39.346+00`). */
function toDate(value: Date | string): Date {
  if (value instanceof Date) return value;
  return new Date(value.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00'));
}

/**
 * Rows whose creation time is parsed when it is read: a nested answer carries 1,100 users and zones and rarely
 * asks for it, and parsing every timestamp was 4% of such an answer's CPU (bench/FINDINGS.md, session 9).
 */
class ReadUserRow implements UserRow {
  constructor(readonly id: number, readonly email: string, private readonly createdAtText: Date | string) {}
  get createdAt(): Date {
    return toDate(this.createdAtText);
  }
}
class ReadDomainRow implements DomainRow {
  constructor(readonly id: number, readonly userId: number, readonly name: string, readonly serial: number, private readonly createdAtText: Date | string) {}
  get createdAt(): Date {
    return toDate(this.createdAtText);
  }
}

const toUser = (row: any): UserRow => new ReadUserRow(Number(row.id), row.email, row.created_at);
const toDomain = (row: any): DomainRow => new ReadDomainRow(Number(row.id), Number(row.user_id), row.name, Number(row.serial), row.created_at);
/**
 * Record rows with their zone as the same statement saw it. The records of one zone share one zone row: a list
 * of 100,000 records of 1,000 zones makes 1,000 zone objects, not 100,000.
 */
function recordsWithZones(rows: any[]): RecordRow[] {
  const zones = new Map<number, DomainRow>();
  return rows.map((row): RecordRow => {
    const domainId = Number(row.domain_id);
    let zoneRow = zones.get(domainId);
    if (!zoneRow) {
      zoneRow = new ReadDomainRow(domainId, Number(row.zone_user_id), row.zone, Number(row.zone_serial), row.zone_created_at);
      zones.set(domainId, zoneRow);
    }
    return { id: Number(row.id), domainId, zone: row.zone, owner: row.owner, type: row.type, rdata: row.rdata, ttl: row.ttl, zoneRow };
  });
}

/**
 * A key list as one PostgreSQL array parameter (`= any($1::bigint[])`): one bind value and one plan whatever
 * the batch's size, where `in ($1 … $1000)` made PostgreSQL parse, bind and plan a thousand parameters per
 * batch. (knex would spread a JS array binding into such a list, hence the literal.)
 */
const idArray = (ids: readonly number[]): string => `{${ids.map((id) => Math.trunc(Number(id))).join(',')}}`;

function knex(em: EntityManager): Knex {
  return em.getKnex();
}

function page<T extends Knex.QueryBuilder>(query: T, column: string, request?: PageRequest): T {
  if (!request) return query.orderBy(column) as T;
  if (request.after !== undefined) query.where(column, '>', request.after);
  return query.orderBy(column).limit(request.first) as T;
}

function usersQuery(em: EntityManager, filter: UserFilter) {
  const query = knex(em)('users as u');
  if (filter.scopeUserId !== undefined) query.where('u.id', filter.scopeUserId);
  if (filter.id !== undefined) query.where('u.id', filter.id);
  if (filter.email !== undefined) query.whereRaw('lower(u.email) = lower(?)', [filter.email]);
  return query;
}

export async function listUsers(em: EntityManager, filter: UserFilter, request?: PageRequest): Promise<UserRow[]> {
  const rows = await page(usersQuery(em, filter).select('u.id', 'u.email', 'u.created_at'), 'u.id', request);
  return rows.map(toUser);
}

export async function countUsers(em: EntityManager, filter: UserFilter): Promise<number> {
  const [row] = await usersQuery(em, filter).count({ count: '*' });
  return Number(row.count);
}

export async function usersByIds(em: EntityManager, ids: readonly number[]): Promise<UserRow[]> {
  const rows = await knex(em)('users').select('id', 'email', 'created_at').whereRaw('id = any(?::bigint[])', [idArray(ids)]);
  return rows.map(toUser);
}

function domainsQuery(em: EntityManager, filter: DomainFilter) {
  const query = knex(em)('domains as d');
  if (filter.scopeUserId !== undefined) query.where('d.user_id', filter.scopeUserId);
  if (filter.id !== undefined) query.where('d.id', filter.id);
  if (filter.userId !== undefined) query.where('d.user_id', filter.userId);
  if (filter.name !== undefined) query.where('d.name', filter.name);
  return query;
}

const DOMAIN_COLUMNS = ['d.id', 'd.user_id', 'd.name', 'd.serial', 'd.created_at'];

export async function listDomains(em: EntityManager, filter: DomainFilter, request?: PageRequest): Promise<DomainRow[]> {
  const rows = await page(domainsQuery(em, filter).select(DOMAIN_COLUMNS), 'd.id', request);
  return rows.map(toDomain);
}

export async function countDomains(em: EntityManager, filter: DomainFilter): Promise<number> {
  const [row] = await domainsQuery(em, filter).count({ count: '*' });
  return Number(row.count);
}

export async function domainsByIds(em: EntityManager, ids: readonly number[]): Promise<DomainRow[]> {
  const rows = await knex(em)('domains as d').select(DOMAIN_COLUMNS).whereRaw('d.id = any(?::bigint[])', [idArray(ids)]);
  return rows.map(toDomain);
}

/**
 * The first `perParent` rows (by id) of each parent, in id order (or in `order`, columns of `rows`' select), in
 * one statement for a whole batch: `rows` (one parent's rows, without the parent condition) runs once per parent
 * as a LATERAL subquery that walks the (parent, id) index and stops at the limit. A nested list reads what it
 * returns: a window function (row_number() over each parent) read every row of every parent before keeping the
 * first, 500,000 rows and 190 ms for the first 10,000 of a zone of 500,000 records, against 3 ms.
 */
function firstRowsPerParent(em: EntityManager, parentIds: readonly number[], rows: Knex.QueryBuilder, parentColumn: string, idColumn: string, perParent: number, order: string[] = ['id']) {
  const ofOneParent = rows.whereRaw(`${parentColumn} = parents.parent_id`).orderBy(idColumn).limit(perParent).toSQL();
  const parents = knex(em).raw(`unnest(?::bigint[]) as parents(parent_id) cross join lateral (${ofOneParent.sql}) as limited`, [idArray(parentIds), ...ofOneParent.bindings]);
  return knex(em).select('limited.*').from(parents).orderBy(order);
}

/** One page of each parent's rows: `first` after the cursor `after`, and how many the parent has in all. */
export interface PerParentPage { first: number; after?: number }
export interface PagedRows<T> { rows: T[]; totals: Map<number, number> }

/**
 * `first + 1` rows of each parent after the cursor, in id order, and each parent's total, in one statement
 * for a whole batch (window functions): a nested connection costs one statement per level of a query. The
 * extra row says whether a next page follows. A parent whose page is empty has no total here (see callers).
 */
async function pagePerParent(em: EntityManager, inner: Knex.QueryBuilder, parentColumn: string, idColumn: string, page: PerParentPage): Promise<{ rows: any[]; totals: Map<number, number> }> {
  const after = page.after ?? 0;
  inner.select(
    knex(em).raw(`count(*) over (partition by ${parentColumn}) as total_in_parent`),
    knex(em).raw(`count(*) filter (where ${idColumn} > ?) over (partition by ${parentColumn} order by ${idColumn}) as position_after_cursor`, [after]),
  );
  const rows = await knex(em).from(inner.as('paged')).where('id', '>', after).andWhere('position_after_cursor', '<=', page.first + 1).orderBy('id');
  const totals = new Map<number, number>();
  for (const row of rows) totals.set(Number(row.parent_id), Number(row.total_in_parent));
  return { rows, totals };
}

/** A page of each user's zones (User.domainsConnection), with each user's total. */
export async function domainPagesByUserIds(em: EntityManager, userIds: readonly number[], page: PerParentPage, filter: { name?: string } = {}): Promise<PagedRows<DomainRow>> {
  const inner = knex(em)('domains as d').select([...DOMAIN_COLUMNS, 'd.user_id as parent_id']).whereRaw('d.user_id = any(?::bigint[])', [idArray(userIds)]);
  if (filter.name !== undefined) inner.where('d.name', filter.name);
  const { rows, totals } = await pagePerParent(em, inner, 'd.user_id', 'd.id', page);
  return { rows: rows.map(toDomain), totals };
}

export async function domainsByUserIds(em: EntityManager, userIds: readonly number[], perUser?: number): Promise<DomainRow[]> {
  const domains = knex(em)('domains as d').select(DOMAIN_COLUMNS);
  const rows = perUser === undefined
    ? await domains.whereRaw('d.user_id = any(?::bigint[])', [idArray(userIds)]).orderBy('d.id')
    : await firstRowsPerParent(em, userIds, domains, 'd.user_id', 'd.id', perUser);
  return rows.map(toDomain);
}

function recordsQuery(em: EntityManager, filter: RecordFilter) {
  const query = knex(em)('records as r').join('domains as d', 'd.id', 'r.domain_id');
  if (filter.scopeUserId !== undefined) query.where('d.user_id', filter.scopeUserId);
  if (filter.id !== undefined) query.where('r.id', filter.id);
  if (filter.domainId !== undefined) query.where('r.domain_id', filter.domainId);
  if (filter.zone !== undefined) query.where('d.name', filter.zone);
  if (filter.owner !== undefined) query.where('r.owner', filter.owner);
  if (filter.type !== undefined) query.where('r.type', filter.type);
  return query;
}

const RECORD_COLUMNS = ['r.id', 'r.domain_id', 'd.name as zone', 'r.owner', 'r.type', 'r.rdata', 'r.ttl', 'd.user_id as zone_user_id', 'd.serial as zone_serial', 'd.created_at as zone_created_at'];

export async function listRecords(em: EntityManager, filter: RecordFilter, request?: PageRequest): Promise<RecordRow[]> {
  const rows = await page(recordsQuery(em, filter).select(RECORD_COLUMNS), 'r.id', request);
  return recordsWithZones(rows);
}

export async function countRecords(em: EntityManager, filter: RecordFilter): Promise<number> {
  const [row] = await recordsQuery(em, filter).count({ count: '*' });
  return Number(row.count);
}

export interface NestedRecordFilter { owner?: string; type?: string; perDomain?: number }
/** a zone as a parent of nested records: its id and name */
export interface ZoneRef { id: number; name: string }

/**
 * The records of the given zones. The caller knows the zones' names, so the records are not joined with
 * `domains` for them: for a nested answer of 10,000 records the join and its sort were half of the
 * statement's time (the records come by primary key order otherwise).
 */
/** A page of each zone's records (Domain.recordsConnection), with each zone's total. */
export async function recordPagesOfDomains(em: EntityManager, domains: readonly ZoneRef[], page: PerParentPage, filter: NestedRecordFilter = {}): Promise<PagedRows<RecordRow>> {
  const names = new Map(domains.map((d) => [d.id, d.name]));
  const inner = knex(em)('records as r')
    .select('r.id', 'r.domain_id', 'r.owner', 'r.type', 'r.rdata', 'r.ttl', 'r.domain_id as parent_id')
    .whereRaw('r.domain_id = any(?::bigint[])', [idArray([...names.keys()])]);
  if (filter.owner !== undefined) inner.where('r.owner', filter.owner);
  if (filter.type !== undefined) inner.where('r.type', filter.type);
  const { rows, totals } = await pagePerParent(em, inner, 'r.domain_id', 'r.id', page);
  return {
    rows: rows.map((row: any): RecordRow => {
      const domainId = Number(row.domain_id);
      return { id: Number(row.id), domainId, zone: names.get(domainId)!, owner: row.owner, type: row.type, rdata: row.rdata, ttl: row.ttl };
    }),
    totals,
  };
}

export async function recordsOfDomains(em: EntityManager, domains: readonly ZoneRef[], filter: NestedRecordFilter = {}): Promise<RecordRow[]> {
  const names = new Map(domains.map((d) => [d.id, d.name]));
  const ids = [...names.keys()];
  const rows = filter.perDomain === undefined
    ? await nestedRecordsQuery(em, filter).whereRaw('r.domain_id = any(?::bigint[])', [idArray(ids)]).orderBy('r.id')
    : await firstRowsPerParent(em, ids, nestedRecordsQuery(em, filter), 'r.domain_id', 'r.id', filter.perDomain);
  return rows.map((row: any): RecordRow => {
    const domainId = Number(row.domain_id);
    return { id: Number(row.id), domainId, zone: names.get(domainId)!, owner: row.owner, type: row.type, rdata: row.rdata, ttl: row.ttl };
  });
}

/** the nested records' columns and filters; the caller adds which zones (all of a batch, or one per LATERAL) */
function nestedRecordsQuery(em: EntityManager, filter: NestedRecordFilter) {
  const inner = knex(em)('records as r')
    .select('r.id', 'r.domain_id', 'r.owner', 'r.type', 'r.rdata', 'r.ttl');
  if (filter.owner !== undefined) inner.where('r.owner', filter.owner);
  if (filter.type !== undefined) inner.where('r.type', filter.type);
  return inner;
}

/** between the fields of a packed record, and between the records of a zone (ASCII's unit and record separators) */
const FIELD_SEPARATOR = '\x1f';
const RECORD_SEPARATOR = '\x1e';

/**
 * The records of the given zones, grouped by zone, in id order: the nested `Domain.records` list.
 *
 * Each zone's records come as one text value (`string_agg` of id, owner, type, rdata and ttl, joined by ASCII's
 * unit separator, records by its record separator), split here. For a nested answer of 10,000 records, pg's
 * decoding of 10,000 rows of 6 columns was most of the statement's cost on the node side; one row per zone
 * took the node's CPU for the statement from ~30 to ~9 ms (bench/FINDINGS.md, sessions 7 and 8).
 *
 * The service never stores a control character in an owner or rdata (the name parser refuses them and the
 * canonical forms escape them, RFC 1035 §5.1), but a row written before those rules, or by hand, could hold a
 * separator and so forge fields or records of its zone. The split checks itself instead: the zone's record
 * count comes with it, and a separator inside a value either adds a record (the count differs) or adds a
 * field (a record with more than five). Such a zone is read again row by row (`recordsOfDomains`).
 *
 * A zone's records are handed over as a `PackedRecords` iterable, which makes each record as the answer reads
 * it: a nested answer walks every list once, so its records are short-lived garbage rather than 10,000
 * objects that every garbage collection during the request must copy (bench/FINDINGS.md, session 11).
 */
export async function recordsGroupedByDomain(em: EntityManager, domains: readonly ZoneRef[], filter: NestedRecordFilter = {}): Promise<Map<number, Iterable<RecordRow>>> {
  const names = new Map(domains.map((d) => [d.id, d.name]));
  const ids = [...names.keys()];
  // rows come sorted by zone and id, so the aggregate reads each zone's rows in order without a sort of its own
  // (an ordered aggregate sorted every group: 1.4× the statement's time); the packed records' check sees the order
  const sorted = filter.perDomain === undefined
    ? nestedRecordsQuery(em, filter).whereRaw('r.domain_id = any(?::bigint[])', [idArray(ids)]).orderBy(['r.domain_id', 'r.id'])
    : firstRowsPerParent(em, ids, nestedRecordsQuery(em, filter), 'r.domain_id', 'r.id', filter.perDomain, ['domain_id', 'id']);
  const packed = await knex(em)
    .from(sorted.as('nested'))
    .select(
      'domain_id',
      knex(em).raw('count(*) as record_count'),
      knex(em).raw(`string_agg(id::text || chr(31) || owner || chr(31) || type || chr(31) || rdata || chr(31) || ttl::text, chr(30)) as packed`),
    )
    .groupBy('domain_id');
  const groups = new Map<number, Iterable<RecordRow>>();
  const unpackable: ZoneRef[] = [];
  for (const row of packed) {
    const domainId = Number(row.domain_id);
    const zone = names.get(domainId)!;
    const records = PackedRecords.of(domainId, zone, row.packed, Number(row.record_count));
    if (records) groups.set(domainId, records);
    else unpackable.push({ id: domainId, name: zone });
  }
  if (unpackable.length) {
    // read row by row, in id order (recordsOfDomains sorts them)
    const regrouped = new Map<number, RecordRow[]>();
    for (const record of await recordsOfDomains(em, unpackable, filter)) {
      const group = regrouped.get(record.domainId);
      if (group) group.push(record);
      else regrouped.set(record.domainId, [record]);
    }
    for (const [domainId, records] of regrouped) groups.set(domainId, records);
  }
  return groups;
}

/**
 * One zone's packed records (see recordsGroupedByDomain), checked once when read and cut into records each
 * time they are iterated. The text is walked with indexOf and cut with slice, without an array per record
 * (3.5× faster than split, bench/FINDINGS.md, session 9); ids and TTLs are read digit by digit.
 */
export class PackedRecords implements Iterable<RecordRow> {
  private constructor(private readonly domainId: number, private readonly zone: string, private readonly packed: string, readonly length: number) {}

  /**
   * The zone's records, or undefined when the text is not `count` records of exactly five fields with decimal
   * ids and TTLs, in ascending id order (PostgreSQL keeps a sorted subquery's order into an aggregate in
   * practice, but does not promise it): the caller reads such a zone row by row.
   */
  static of(domainId: number, zone: string, packed: string, count: number): PackedRecords | undefined {
    if (count === 0) return packed === '' ? new PackedRecords(domainId, zone, packed, 0) : undefined;
    let at = 0;
    let previousId = -1;
    for (let i = 0; i < count; i++) {
      const fields = fieldsAt(packed, at, i === count - 1);
      if (!fields) return undefined;
      const id = decimal(packed, at, fields.f1);
      if (id <= previousId || decimal(packed, fields.f4 + 1, fields.end) < 0) return undefined;
      previousId = id;
      at = fields.end + 1;
    }
    return new PackedRecords(domainId, zone, packed, count);
  }

  *[Symbol.iterator](): Iterator<RecordRow> {
    const { packed, domainId, zone, length } = this;
    let at = 0;
    for (let i = 0; i < length; i++) {
      const { f1, f2, f3, f4, end } = fieldsAt(packed, at, i === length - 1)!;
      yield {
        id: decimal(packed, at, f1),
        domainId,
        zone,
        owner: packed.slice(f1 + 1, f2),
        type: packed.slice(f2 + 1, f3),
        rdata: packed.slice(f3 + 1, f4),
        ttl: decimal(packed, f4 + 1, end),
      };
      at = end + 1;
    }
  }
}

/**
 * Where the record starting at `at` has its four field separators and its end, or undefined unless it has
 * exactly five fields and ends where a record must: at a record separator, or (the last) at the text's end.
 */
function fieldsAt(packed: string, at: number, last: boolean): { f1: number; f2: number; f3: number; f4: number; end: number } | undefined {
  const next = packed.indexOf(RECORD_SEPARATOR, at);
  if (last ? next !== -1 : next === -1) return undefined;
  const end = last ? packed.length : next;
  const f1 = packed.indexOf(FIELD_SEPARATOR, at);
  const f2 = packed.indexOf(FIELD_SEPARATOR, f1 + 1);
  const f3 = packed.indexOf(FIELD_SEPARATOR, f2 + 1);
  const f4 = packed.indexOf(FIELD_SEPARATOR, f3 + 1);
  if (f1 < at || f2 <= f1 || f3 <= f2 || f4 <= f3 || f4 >= end) return undefined;
  const f5 = packed.indexOf(FIELD_SEPARATOR, f4 + 1);
  if (f5 !== -1 && f5 < end) return undefined;
  return { f1, f2, f3, f4, end };
}

/** the decimal number text[from, to) spells, or -1 when it is empty or not all digits */
function decimal(text: string, from: number, to: number): number {
  if (to <= from) return -1;
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}
