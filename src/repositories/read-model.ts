import type { ZoneKind } from '../entities/domain.entity';
import type { HealthState } from './health';
import type { RowOptions, Sql } from '../db/pool';
import type { ReadRules } from '../auth/policy';

/**
 * Read queries of the API, in one place. They return plain rows, not entities: lists and nested GraphQL
 * fields stay cheap (no identity map, no hydration), page by keyset (`id > after`), and batch by key lists
 * for the DataLoaders. Every query takes the caller's scope (`scopeUserId`) so that a user key never sees
 * another user's data.
 */
export interface UserRow {
  id: number;
  email: string;
  createdAt: Date;
}
export interface DomainRow {
  id: number;
  userId: number;
  name: string;
  serial: number;
  createdAt: Date;
  /** `primary` (ours) or `secondary` (taken by transfer): docs/transfers.md */
  kind: ZoneKind;
}
export interface RecordRow {
  id: number;
  domainId: number;
  zone: string;
  owner: string;
  type: string;
  rdata: string;
  ttl: number;
  /** the zone as the same statement saw it (record lists): a read racing a zone's deletion stays consistent */
  zoneRow?: DomainRow;
}
export interface PageRequest {
  first: number;
  after?: number;
}

/**
 * the order of a zone list: creation (id), name in byte order (A-labels: alphabetical), record count, serial,
 * kind or DNSSEC state, each either way but creation; keyset-paged
 */
export type DomainOrder =
  | 'created'
  | 'name'
  | 'name_desc'
  | 'records'
  | 'records_desc'
  | 'serial'
  | 'serial_desc'
  | 'kind'
  | 'kind_desc'
  | 'dnssec'
  | 'dnssec_desc';

export interface UserFilter {
  scopeUserId?: number;
  id?: number;
  email?: string;
}
export interface DomainFilter {
  scopeUserId?: number;
  /** a restricted key's rules (docs/least-privilege.md): only the zones they name (or every zone) are seen */
  readRules?: ReadRules;
  id?: number;
  userId?: number;
  name?: string;
  /** only the zones whose name starts with this (normalised, lower case, no final dot); '' or absent: all */
  nameStartsWith?: string;
  /** only the zones whose whole name matches this glob: `*` any run of characters, `?` one (lower case, no final dot) */
  nameMatches?: string;
  /** only the zones of this kind */
  kind?: ZoneKind;
  /** only the zones in this health state (zone_health; a zone without its row yet is unknown, docs/health.md) */
  health?: HealthState;
}
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

/** timestamps as text, parsed when read (see ReadUserRow) */
export const LAZY_TIMES: RowOptions = { timestamps: 'text' };

/** a timestamp as pg hands it over (a Date), or as text (`2026-11-22 02:57:39.346+00`, LAZY_TIMES) */
function toDate(value: Date | string): Date {
  if (value instanceof Date) return value;
  return new Date(value.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00'));
}

/**
 * Rows whose creation time is parsed when it is read: a nested answer carries 1,100 users and zones and rarely
 * asks for it, and parsing every timestamp was 4% of such an answer's CPU (docs/performance.md, «Reading zones»).
 */
class ReadUserRow implements UserRow {
  constructor(
    readonly id: number,
    readonly email: string,
    private readonly createdAtText: Date | string,
  ) {}
  get createdAt(): Date {
    return toDate(this.createdAtText);
  }
}
class ReadDomainRow implements DomainRow {
  constructor(
    readonly id: number,
    readonly userId: number,
    readonly name: string,
    readonly serial: number,
    private readonly createdAtText: Date | string,
    readonly kind: ZoneKind = 'primary',
  ) {}
  get createdAt(): Date {
    return toDate(this.createdAtText);
  }
}

const toUser = (row: any): UserRow => new ReadUserRow(Number(row.id), row.email, row.created_at);
const toDomain = (row: any): DomainRow =>
  new ReadDomainRow(Number(row.id), Number(row.user_id), row.name, Number(row.serial), row.created_at, row.kind ?? 'primary');
/**
 * Record rows with their zone as the same statement saw it. The records of one zone share one zone row: a list
 * of 100,000 records of 1,000 zones makes 1,000 zone objects, not 100,000.
 */
export function recordsWithZones(rows: any[]): RecordRow[] {
  const zones = new Map<number, DomainRow>();
  return rows.map((row): RecordRow => {
    const domainId = Number(row.domain_id);
    let zoneRow = zones.get(domainId);
    if (!zoneRow) {
      zoneRow = new ReadDomainRow(
        domainId,
        Number(row.zone_user_id),
        row.zone,
        Number(row.zone_serial),
        row.zone_created_at,
        row.zone_kind ?? 'primary',
      );
      zones.set(domainId, zoneRow);
    }
    return { id: Number(row.id), domainId, zone: row.zone, owner: row.owner, type: row.type, rdata: row.rdata, ttl: row.ttl, zoneRow };
  });
}

/** Statement text and its parameters, built together: `add` gives a value its `$n`. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * A key list as one PostgreSQL array parameter (`= any($1::bigint[])`): one bind value and one plan whatever
 * the batch's size, where `in ($1 … $1000)` made PostgreSQL parse, bind and plan a thousand parameters per
 * batch.
 */
const idArray = (ids: readonly number[]): string => `{${ids.map((id) => Math.trunc(Number(id))).join(',')}}`;

/** `where …` of the conditions (`true` when there are none) */
const whereOf = (conditions: string[]): string => `where ${conditions.length ? conditions.join(' and ') : 'true'}`;

/** a page by keyset on `column`: after the cursor, `first` rows, in `column` order (all rows without a request) */
function page(p: Params, conditions: string[], column: string, request?: PageRequest): string {
  if (!request) return `${whereOf(conditions)} order by ${column}`;
  const all = request.after === undefined ? conditions : [...conditions, `${column} > ${p.add(request.after)}`];
  return `${whereOf(all)} order by ${column} limit ${p.add(request.first)}`;
}

function userConditions(p: Params, filter: UserFilter): string[] {
  const conditions: string[] = [];
  if (filter.scopeUserId !== undefined) conditions.push(`u.id = ${p.add(filter.scopeUserId)}`);
  if (filter.id !== undefined) conditions.push(`u.id = ${p.add(filter.id)}`);
  if (filter.email !== undefined) conditions.push(`lower(u.email) = lower(${p.add(filter.email)})`);
  return conditions;
}

export async function listUsers(sql: Sql, filter: UserFilter, request?: PageRequest): Promise<UserRow[]> {
  const p = new Params();
  const rows = await sql.rows(
    `select u.id, u.email, u.created_at from users u ${page(p, userConditions(p, filter), 'u.id', request)}`,
    p.values,
    LAZY_TIMES,
  );
  return rows.map(toUser);
}

export async function countUsers(sql: Sql, filter: UserFilter): Promise<number> {
  const p = new Params();
  const [row] = await sql.rows(`select count(*) as count from users u ${whereOf(userConditions(p, filter))}`, p.values);
  return Number(row.count);
}

export async function usersByIds(sql: Sql, ids: readonly number[]): Promise<UserRow[]> {
  const rows = await sql.rows('select id, email, created_at from users where id = any($1::bigint[])', [idArray(ids)], LAZY_TIMES);
  return rows.map(toUser);
}

/**
 * The zones a restricted key sees, as a condition on `nameColumn`: every zone of its user when a rule names
 * every zone, else the zones its rules name (none: no rule at all).
 */
function zoneRuleCondition(p: Params, rules: ReadRules | undefined, nameColumn: string): string | undefined {
  if (!rules || rules.some((rule) => rule.zone === null)) return undefined;
  return `${nameColumn} = any(${p.add(rules.map((rule) => rule.zone))}::text[])`;
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

export function domainConditions(p: Params, filter: DomainFilter): string[] {
  const conditions: string[] = [];
  const visible = zoneRuleCondition(p, filter.readRules, 'd.name');
  if (visible) conditions.push(visible);
  if (filter.scopeUserId !== undefined) conditions.push(`d.user_id = ${p.add(filter.scopeUserId)}`);
  if (filter.id !== undefined) conditions.push(`d.id = ${p.add(filter.id)}`);
  if (filter.userId !== undefined) conditions.push(`d.user_id = ${p.add(filter.userId)}`);
  if (filter.name !== undefined) conditions.push(`d.name = ${p.add(filter.name)}`);
  if (filter.nameStartsWith) conditions.push(namePrefixCondition(p, filter.nameStartsWith, 'd.name'));
  if (filter.nameMatches !== undefined) conditions.push(`d.name like ${p.add(likePattern(filter.nameMatches))}`);
  if (filter.kind !== undefined) conditions.push(`d.kind = ${p.add(filter.kind)}`);
  if (filter.health !== undefined)
    conditions.push(`coalesce((select h.state from zone_health h where h.domain_id = d.id), 'unknown') = ${p.add(filter.health)}`);
  return conditions;
}

/** a glob (`*` any run, `?` one character) as a LIKE pattern: LIKE's own `%`, `_` and escape `\` taken literally */
export function likePattern(glob: string): string {
  return glob
    .replace(/[\\%_]/g, (c) => `\\${c}`)
    .replace(/\*/g, '%')
    .replace(/\?/g, '_');
}

/**
 * Names starting with `prefix`, as one range of domains_name_bytes_index (Migration20261124170000): in byte order
 * (collate "C") every name that starts with the prefix lies between the prefix itself and the prefix followed by
 * U+10FFFF, the highest code point (names are ASCII, so no name holds it). No LIKE, so nothing needs escaping.
 */
function namePrefixCondition(p: Params, prefix: string, column: string): string {
  const from = `${p.add(prefix)}::text`;
  return `(${column} collate "C" >= ${from} and ${column} collate "C" < ${from} || chr(1114111))`;
}

const DOMAIN_COLUMNS = 'd.id, d.user_id, d.name, d.serial, d.created_at, d.kind';

export async function listDomains(
  sql: Sql,
  filter: DomainFilter,
  request?: PageRequest,
  order: DomainOrder = 'created',
): Promise<DomainRow[]> {
  const p = new Params();
  const conditions = domainConditions(p, filter);
  const column = ORDER_COLUMNS[order.replace(/_desc$/, '')];
  const rows = await sql.rows(
    order === 'name' || order === 'name_desc'
      ? `select ${DOMAIN_COLUMNS} from domains d ${pageByName(p, conditions, request, order === 'name_desc')}`
      : column
        ? `select ${DOMAIN_COLUMNS} from domains d ${pageByColumn(p, conditions, request, column, order.endsWith('_desc'))}`
        : `select ${DOMAIN_COLUMNS} from domains d ${page(p, conditions, 'd.id', request)}`,
    p.values,
    LAZY_TIMES,
  );
  return rows.map(toDomain);
}

/**
 * The zone list's sortable facts as SQL over `d` (or `c`, the cursor's zone): the record count and serial the
 * zone row keeps, its kind, its DNSSEC state (a signed zone has a dnssec_zones row; unsigned has none)
 */
const ORDER_COLUMNS: Record<string, ((alias: string) => string) | undefined> = {
  records: (a) => `${a}.record_count`,
  serial: (a) => `${a}.serial`,
  kind: (a) => `${a}.kind`,
  dnssec: (a) => `coalesce((select z.state from dnssec_zones z where z.domain_id = ${a}.id), 'unsigned')`,
};

/**
 * An order by a fact many zones share (a record count, a kind), keyset-paged with the same cursor (a zone's id):
 * ties are broken by id, and the page after the cursor starts past the cursor zone's (fact, id) pair, read
 * from that zone as it is now
 */
function pageByColumn(
  p: Params,
  conditions: string[],
  request: PageRequest | undefined,
  column: (alias: string) => string,
  descending: boolean,
): string {
  const direction = descending ? ' desc' : '';
  const order = `order by ${column('d')}${direction}, d.id${direction}`;
  if (!request) return `${whereOf(conditions)} ${order}`;
  const all =
    request.after === undefined
      ? conditions
      : [
          ...conditions,
          `(${column('d')}, d.id) ${descending ? '<' : '>'} (select ${column('c')}, c.id from domains c where c.id = ${p.add(request.after)})`,
        ];
  return `${whereOf(all)} ${order} limit ${p.add(request.first)}`;
}

/**
 * Name order, keyset-paged like id order with the same cursor (a zone's id): the page after it starts past that
 * zone's name. Names are unique and compared byte-wise (collate "C"), the order of domains_name_bytes_index.
 */
function pageByName(p: Params, conditions: string[], request: PageRequest | undefined, descending: boolean): string {
  const order = `order by d.name collate "C"${descending ? ' desc' : ''}`;
  if (!request) return `${whereOf(conditions)} ${order}`;
  const all =
    request.after === undefined
      ? conditions
      : [
          ...conditions,
          `d.name collate "C" ${descending ? '<' : '>'} (select c.name from domains c where c.id = ${p.add(request.after)}) collate "C"`,
        ];
  return `${whereOf(all)} ${order} limit ${p.add(request.first)}`;
}

/** whether a zone with this id exists (a name-ordered page after a deleted zone's cursor has no place to start) */
export async function domainExists(sql: Sql, id: number): Promise<boolean> {
  const rows = await sql.rows('select 1 from domains where id = $1', [id]);
  return rows.length > 0;
}

export async function countDomains(sql: Sql, filter: DomainFilter): Promise<number> {
  const p = new Params();
  const [row] = await sql.rows(`select count(*) as count from domains d ${whereOf(domainConditions(p, filter))}`, p.values);
  return Number(row.count);
}

/**
 * The most a nested list can hold per parent today: the zones of the user with the most (`zone_count`, kept by
 * every zone create and delete) and the records of the largest zone (`record_count`, kept by every change),
 * over one user's rows, or every user's (undefined: the admin).
 */
export async function nestedListBounds(sql: Sql, userId: number | undefined): Promise<{ zonesPerUser: number; recordsPerZone: number }> {
  const [row] =
    userId === undefined
      ? await sql.rows(
          'select (select coalesce(max(zone_count), 0) from users) as zones, (select coalesce(max(record_count), 0) from domains) as records',
        )
      : await sql.rows(
          `select (select coalesce(max(zone_count), 0) from users where id = $1) as zones,
                  (select coalesce(max(record_count), 0) from domains where user_id = $1) as records`,
          [userId],
        );
  return { zonesPerUser: Number(row.zones), recordsPerZone: Number(row.records) };
}

/** what a list of zones shows of each beside its row: its record count (kept by every change) and DNSSEC state */
export interface ZoneListFacts {
  recordCount: number;
  /** unsigned, or the signing policy's state (signed, disabling) */
  dnssecState: string;
}

/** ZoneListFacts of many zones in one statement (index probes by id), by zone id; an id with no zone is left out */
export async function zoneListFacts(sql: Sql, ids: readonly number[]): Promise<Map<number, ZoneListFacts>> {
  const rows = await sql.rows<{ id: string; record_count: number; dnssec_state: string | null }>(
    `select d.id, d.record_count, z.state as dnssec_state
       from domains d left join dnssec_zones z on z.domain_id = d.id where d.id = any($1::bigint[])`,
    [idArray(ids)],
  );
  return new Map(rows.map((r) => [Number(r.id), { recordCount: Number(r.record_count), dnssecState: r.dnssec_state ?? 'unsigned' }]));
}

export async function domainsByIds(sql: Sql, ids: readonly number[]): Promise<DomainRow[]> {
  const rows = await sql.rows(`select ${DOMAIN_COLUMNS} from domains d where d.id = any($1::bigint[])`, [idArray(ids)], LAZY_TIMES);
  return rows.map(toDomain);
}

/**
 * A query of child rows (a user's zones, a zone's records) for a batch of parents: its select list, its
 * `from …`, the column naming the parent and the child's id (the pair an index leads with), and its other
 * conditions, not yet put together.
 */
interface ChildQuery {
  p: Params;
  columns: string;
  from: string;
  parentColumn: string;
  idColumn: string;
  parentIds: readonly number[];
  conditions: string[];
}

/** the child column's name in the select list's output (`r.domain_id` → `domain_id`) */
const outputName = (column: string): string => column.replace(/^\w+\./, '');

/** all the children of every parent of the batch, in `order` */
function allChildren(query: ChildQuery, order: string[]): string {
  const { p, columns, from, parentColumn, parentIds, conditions } = query;
  const all = [`${parentColumn} = any(${p.add(idArray(parentIds))}::bigint[])`, ...conditions];
  return `select ${columns} from ${from} ${whereOf(all)} order by ${order.join(', ')}`;
}

/**
 * At most `limit` children of each parent after the cursor `after` (by id), in one statement for a whole batch:
 * the child query runs once per parent as a LATERAL subquery on the (parent, id) index, which stops at the
 * limit. A nested list reads what it returns: a window function (row_number() over each parent) read every
 * row of every parent before keeping the first ones, 500,000 rows and 190 ms for the first 10,000 records of
 * a 500,000-record zone, against 3 ms (docs/performance.md). Rows come in `order` (output names).
 */
function firstChildrenPerParent(query: ChildQuery, limit: number, order: string[], after?: number): string {
  const { p, columns, from, parentColumn, idColumn, parentIds, conditions } = query;
  const parents = p.add(idArray(parentIds));
  const ofOneParent = [`${parentColumn} = parents.id`, ...conditions];
  if (after !== undefined) ofOneParent.push(`${idColumn} > ${p.add(after)}`);
  return `select children.* from unnest(${parents}::bigint[]) as parents(id)
    cross join lateral (select ${columns} from ${from} ${whereOf(ofOneParent)} order by ${idColumn} limit ${p.add(limit)}) as children
    order by ${order.map((column) => `children.${column}`).join(', ')}`;
}

/** the first `perParent` children of each parent (all of them without `perParent`), in `order` (qualified columns) */
function childrenPerParent(query: ChildQuery, perParent: number | undefined, order: string[]): string {
  if (perParent === undefined) return allChildren(query, order);
  return firstChildrenPerParent(query, perParent, order.map(outputName));
}

/** One page of each parent's rows: `first` after the cursor `after`. */
export interface PerParentPage {
  first: number;
  after?: number;
}

/**
 * `first + 1` rows of each parent after the cursor, in id order, in one statement for a whole batch
 * (`firstChildrenPerParent`): a nested connection costs one statement per level of a query, and reads at most
 * `first + 1` rows per parent. The extra row says whether a next page follows. Totals are counted apart, and
 * only when asked for (`countPerParent`).
 */
async function pagePerParent(sql: Sql, query: ChildQuery, page: PerParentPage): Promise<any[]> {
  return sql.rows(firstChildrenPerParent(query, page.first + 1, [outputName(query.idColumn)], page.after), query.p.values, LAZY_TIMES);
}

/** how many children each parent of the batch has (a parent without any: none in the map), in one statement */
async function countPerParent(sql: Sql, query: ChildQuery): Promise<Map<number, number>> {
  const { p, from, parentColumn, parentIds, conditions } = query;
  const all = [`${parentColumn} = any(${p.add(idArray(parentIds))}::bigint[])`, ...conditions];
  const rows = await sql.rows(
    `select ${parentColumn} as parent_id, count(*) as count from ${from} ${whereOf(all)} group by ${parentColumn}`,
    p.values,
  );
  return new Map(rows.map((row) => [Number(row.parent_id), Number(row.count)]));
}

/** the zones of a batch of users */
function zonesOfUsersQuery(
  p: Params,
  userIds: readonly number[],
  filter: { name?: string; readRules?: ReadRules },
  columns = DOMAIN_COLUMNS,
): ChildQuery {
  const conditions = filter.name !== undefined ? [`d.name = ${p.add(filter.name)}`] : [];
  const visible = zoneRuleCondition(p, filter.readRules, 'd.name');
  if (visible) conditions.push(visible);
  return { p, columns, from: 'domains d', parentColumn: 'd.user_id', idColumn: 'd.id', parentIds: userIds, conditions };
}

/** A page of each user's zones (User.domainsConnection). */
export async function domainPagesByUserIds(
  sql: Sql,
  userIds: readonly number[],
  page: PerParentPage,
  filter: { name?: string; readRules?: ReadRules } = {},
): Promise<DomainRow[]> {
  const rows = await pagePerParent(sql, zonesOfUsersQuery(new Params(), userIds, filter), page);
  return rows.map(toDomain);
}

/** how many zones each user has (User.domainsConnection's totalCount), for a batch of users */
export function domainCountsByUserIds(
  sql: Sql,
  userIds: readonly number[],
  filter: { name?: string; readRules?: ReadRules } = {},
): Promise<Map<number, number>> {
  return countPerParent(sql, zonesOfUsersQuery(new Params(), userIds, filter));
}

export async function domainsByUserIds(
  sql: Sql,
  userIds: readonly number[],
  perUser?: number,
  readRules?: ReadRules,
): Promise<DomainRow[]> {
  const query = zonesOfUsersQuery(new Params(), userIds, { readRules });
  const rows = await sql.rows(childrenPerParent(query, perUser, ['d.id']), query.p.values, LAZY_TIMES);
  return rows.map(toDomain);
}

function recordConditions(p: Params, filter: RecordFilter): string[] {
  const conditions: string[] = [];
  const readable = recordRuleCondition(p, filter.readRules, (zone) => `d.name = ${p.add(zone)}`);
  if (readable) conditions.push(readable);
  if (filter.scopeUserId !== undefined) conditions.push(`d.user_id = ${p.add(filter.scopeUserId)}`);
  if (filter.id !== undefined) conditions.push(`r.id = ${p.add(filter.id)}`);
  if (filter.domainId !== undefined) conditions.push(`r.domain_id = ${p.add(filter.domainId)}`);
  if (filter.zone !== undefined) conditions.push(`d.name = ${p.add(filter.zone)}`);
  if (filter.owner !== undefined) conditions.push(`r.owner = ${p.add(filter.owner)}`);
  if (filter.type !== undefined) conditions.push(`r.type = ${p.add(filter.type)}`);
  if (filter.asWritten) conditions.push('r.derived_from is null');
  return conditions;
}

export const RECORD_COLUMNS =
  'r.id, r.domain_id, d.name as zone, r.owner, r.type, r.rdata, r.ttl, d.user_id as zone_user_id, d.serial as zone_serial, d.created_at as zone_created_at, d.kind as zone_kind';

export async function listRecords(sql: Sql, filter: RecordFilter, request?: PageRequest): Promise<RecordRow[]> {
  const p = new Params();
  const rows = await sql.rows(
    `select ${RECORD_COLUMNS} from records r join domains d on d.id = r.domain_id ${page(p, recordConditions(p, filter), 'r.id', request)}`,
    p.values,
    LAZY_TIMES,
  );
  return recordsWithZones(rows);
}

export async function countRecords(sql: Sql, filter: RecordFilter): Promise<number> {
  const p = new Params();
  const [row] = await sql.rows(
    `select count(*) as count from records r join domains d on d.id = r.domain_id ${whereOf(recordConditions(p, filter))}`,
    p.values,
  );
  return Number(row.count);
}

export interface NestedRecordFilter {
  owner?: string;
  type?: string;
  perDomain?: number;
  /** a restricted key's rules: only the records some rule matches */
  readRules?: ReadRules;
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

/** between the fields of a packed record, and between the records of a zone (ASCII's unit and record separators) */
const FIELD_SEPARATOR = '\x1f';
const RECORD_SEPARATOR = '\x1e';

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
  const packed = await sql.rows(packedRecordsStatement(query, filter.perDomain), query.p.values, LAZY_TIMES);
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
function packedRecordsStatement(query: ChildQuery, perDomain: number | undefined): string {
  if (perDomain === undefined) {
    return `select domain_id, count(*) as record_count, string_agg(${PACKED_RECORD}, chr(30)) as packed
       from (${allChildren(query, ['r.domain_id', 'r.id'])}) as nested
      group by domain_id`;
  }
  const { p, columns, from, parentColumn, idColumn, parentIds, conditions } = query;
  const parents = p.add(idArray(parentIds));
  const ofOneParent = [`${parentColumn} = parents.id`, ...conditions];
  return `select parents.id as domain_id, zone.record_count, zone.packed
       from unnest(${parents}::bigint[]) as parents(id)
      cross join lateral (
        select count(*)::int as record_count, string_agg(${PACKED_RECORD}, chr(30)) as packed
          from (select ${columns} from ${from} ${whereOf(ofOneParent)} order by ${idColumn} limit ${p.add(perDomain)}) as children
      ) as zone
      where zone.record_count > 0`;
}

/**
 * One zone's packed records (see recordsGroupedByDomain), checked once when read and cut into records each
 * time they are iterated. The text is walked with indexOf and cut with slice, without an array per record
 * (3.5× faster than split, docs/performance.md, «Reading zones»); ids and TTLs are read digit by digit.
 */
export class PackedRecords implements Iterable<RecordRow> {
  private constructor(
    private readonly domainId: number,
    private readonly zone: string,
    private readonly packed: string,
    readonly length: number,
  ) {}

  /**
   * The zone's records, or undefined when the text is not `count` records of exactly five fields with decimal
   * ids and TTLs, in ascending id order (PostgreSQL keeps a sorted subquery's order into an aggregate in
   * practice, but does not promise it): the caller reads such a zone row by row.
   */
  static of(domainId: number, zone: string, packed: string, count: number): PackedRecords | undefined {
    if (count === 0) return packed === '' ? new PackedRecords(domainId, zone, packed, 0) : undefined;
    let at = 0;
    let previousId = -1;
    const b = BOUNDS;
    for (let i = 0; i < count; i++) {
      if (!fieldsAt(packed, at, i === count - 1)) return undefined;
      const id = decimal(packed, at, b[0]);
      if (id <= previousId || decimal(packed, b[3] + 1, b[4]) < 0) return undefined;
      previousId = id;
      at = b[4] + 1;
    }
    return new PackedRecords(domainId, zone, packed, count);
  }

  /**
   * The records as plain objects of the members named `keys[i]` for `fields[i]`, in that order: `id` as a string
   * (GraphQL's ID), `ttl` as a number, `{ value }` that value, the others as strings. This is the nested GraphQL
   * answer's plain record lists as they are answered (src/graphql/plain-record-lists.ts): one small object per
   * record instead of a record, a result object and a call per field. Those were most of what a nested answer
   * allocated, and the garbage collections they bring are its tail (bench/FINDINGS.md, «The nested answer's
   * record lists as plain values»).
   */
  objects(keys: readonly string[], fields: readonly PackedField[]): Record<string, unknown>[] {
    const { packed, zone, length } = this;
    const list = new Array<Record<string, unknown>>(length);
    let at = 0;
    for (let i = 0; i < length; i++) {
      fieldsAt(packed, at, i === length - 1);
      const [f1, f2, f3, f4, end] = BOUNDS;
      const record: Record<string, unknown> = {};
      for (let k = 0; k < fields.length; k++) {
        const field = fields[k];
        if (field === 'id') record[keys[k]] = packed.slice(at, f1);
        else if (field === 'owner') record[keys[k]] = packed.slice(f1 + 1, f2);
        else if (field === 'type') record[keys[k]] = packed.slice(f2 + 1, f3);
        else if (field === 'rdata') record[keys[k]] = packed.slice(f3 + 1, f4);
        else if (field === 'ttl') record[keys[k]] = decimal(packed, f4 + 1, end);
        else if (field === 'zone') record[keys[k]] = zone;
        else record[keys[k]] = field.value;
      }
      list[i] = record;
      at = end + 1;
    }
    return list;
  }

  /**
   * The records as the JSON text of `objects(keys, fields)` (what JSON.stringify writes of them, byte for byte),
   * written as UTF-8 into `out` from `at`: the end, or -1 when `out` has too little room from `at` (the caller
   * grows it; `jsonBytesAtMost` says how much is enough). The packed text's bytes are copied as they are,
   * escaped as JSON.stringify escapes them (`"`, `\`, control characters), with the members' names between:
   * no object, string or slice per record. The nested answer of the bench allocated 9 MB, its 10,000 plain
   * records and their JSON text the largest part (bench/FINDINGS.md, «The nested answer written as bytes»).
   */
  writeJson(out: Buffer, at: number, shape: JsonRecordShape): number {
    const { packed, length } = this;
    const n = packedBytes(packed);
    const bytes = scratch;
    const { names, codes, constants, perRecord } = shape;
    const members = codes.length;
    const zone = shape.zoneMembers ? shape.zoneJson(this.zone) : NO_BYTES;
    const beside = perRecord + shape.zoneMembers * zone.length;
    const f = FIELD_BOUNDS;
    let o = at;
    if (o + 2 > out.length) return -1;
    out[o++] = 0x5b; // [
    let p = 0;
    for (let i = 0; i < length; i++) {
      // the five fields' starts and ends (checked when the zone was read: PackedRecords.of)
      const start = p;
      for (let k = 0; k < 5; k++) {
        f[2 * k] = p;
        while (p < n && bytes[p] !== 0x1f && bytes[p] !== 0x1e) p++;
        f[2 * k + 1] = p++;
      }
      // room for the record as it is (each value byte once, its names, quotes and braces) and the list's end; an
      // escape (below) asks for room for the rest of the record at worst
      if (o + beside + (p - start) + 1 > out.length) return -1;
      if (i > 0) out[o++] = 0x2c; // ,
      if (members === 0) out[o++] = 0x7b; // {
      for (let k = 0; k < members; k++) {
        const name = names[k];
        for (let j = 0; j < name.length; j++) out[o++] = name[j];
        const code = codes[k];
        if (code === CONSTANT) {
          const value = constants[k];
          for (let j = 0; j < value.length; j++) out[o++] = value[j];
        } else if (code === ZONE) {
          for (let j = 0; j < zone.length; j++) out[o++] = zone[j];
        } else if (code === TTL) {
          for (let j = f[8]; j < f[9]; j++) out[o++] = bytes[j];
        } else {
          out[o++] = 0x22; // "
          for (let j = f[2 * code], to = f[2 * code + 1]; j < to; j++) {
            const b = bytes[j];
            if (b >= 0x20 && b !== 0x22 && b !== 0x5c) out[o++] = b;
            else if (o + beside + 6 * (p - j) + 1 > out.length) return -1;
            else o = writeEscaped(out, o, b);
          }
          out[o++] = 0x22;
        }
      }
      out[o++] = 0x7d; // }
    }
    out[o++] = 0x5d; // ]
    return o;
  }

  /** about the bytes writeJson writes for this zone (exactly, for ASCII text that JSON does not escape) */
  jsonBytesExpected(shape: JsonRecordShape): number {
    const zone = shape.zoneMembers ? shape.zoneMembers * shape.zoneJson(this.zone).length : 0;
    return 2 + this.length * (shape.perRecord + zone) + this.packed.length;
  }

  *[Symbol.iterator](): Iterator<RecordRow> {
    const { packed, domainId, zone, length } = this;
    let at = 0;
    for (let i = 0; i < length; i++) {
      fieldsAt(packed, at, i === length - 1);
      const [f1, f2, f3, f4, end] = BOUNDS;
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

/** a member of the plain records PackedRecords.objects makes: a field of the record, or a constant */
export type PackedField = 'id' | 'zone' | 'owner' | 'type' | 'rdata' | 'ttl' | { value: string };

/** what a member of JsonRecordShape is: a packed field by its position (id 0, owner 1, type 2, rdata 3, ttl 4) */
const PACKED_INDEX = { id: 0, owner: 1, type: 2, rdata: 3, ttl: 4 } as const;
const TTL = PACKED_INDEX.ttl;
/** … or the zone's name, or a constant */
const ZONE = 5;
const CONSTANT = 6;
/** the start and end of a packed record's five fields, in the record writeJson writes (one at a time) */
const FIELD_BOUNDS = new Int32Array(10);
/** a process-wide buffer for the packed text's UTF-8 bytes while one zone is written (synchronously) */
let scratch = Buffer.allocUnsafe(64 * 1024);

const NO_BYTES = new Uint8Array(0);

/** the packed text as UTF-8 bytes at the start of `scratch` (until the next call): how many */
function packedBytes(packed: string): number {
  if (packed.length * 3 > scratch.length) scratch = Buffer.allocUnsafe(Math.max(packed.length * 3, 2 * scratch.length));
  return scratch.write(packed, 0);
}

/** JSON.stringify's escape of a byte below 0x20, `"` or `\` (RFC 8259 §7) written at `o`: the end */
function writeEscaped(out: Buffer, o: number, b: number): number {
  out[o++] = 0x5c; // \
  const short =
    b === 0x22 ? 0x22 : b === 0x5c ? 0x5c : b === 8 ? 0x62 : b === 9 ? 0x74 : b === 10 ? 0x6e : b === 12 ? 0x66 : b === 13 ? 0x72 : 0;
  if (short) {
    out[o++] = short;
    return o;
  }
  const hex = '0123456789abcdef';
  out[o++] = 0x75; // u
  out[o++] = 0x30;
  out[o++] = 0x30;
  out[o++] = hex.charCodeAt(b >> 4);
  out[o++] = hex.charCodeAt(b & 15);
  return o;
}

/**
 * What PackedRecords.writeJson writes of each record: `names[i]` (`{"key":` for the first member, `,"key":` for
 * the next) then `fields[i]`'s value; a constant's JSON in `constants[i]`. `perRecord`: the most bytes of one
 * record beside its values and zone names (names, constants, quotes, braces and the comma before it).
 */
export class JsonRecordShape {
  readonly names: Uint8Array[];
  /** each member's field: PACKED_INDEX, ZONE or CONSTANT */
  readonly codes: Int8Array;
  readonly constants: Uint8Array[];
  readonly perRecord: number;
  /** how many members are the zone's name */
  readonly zoneMembers: number;
  private lastZone = '';
  private lastZoneJson = Buffer.from('""');

  constructor(
    keys: readonly string[],
    readonly fields: readonly PackedField[],
  ) {
    this.names = keys.map((key, i) => Buffer.from(`${i ? ',' : '{'}${JSON.stringify(key)}:`));
    this.codes = Int8Array.from(fields, (field) => (typeof field !== 'string' ? CONSTANT : field === 'zone' ? ZONE : PACKED_INDEX[field]));
    this.constants = fields.map((field) => Buffer.from(typeof field === 'string' ? '' : JSON.stringify(field.value)));
    let perRecord = 3;
    for (let i = 0; i < fields.length; i++) perRecord += this.names[i].length + this.constants[i].length + 2;
    this.perRecord = perRecord;
    this.zoneMembers = fields.filter((field) => field === 'zone').length;
  }

  /** the zone's name as JSON (the last one kept: a list's records share it) */
  zoneJson(zone: string): Uint8Array {
    if (zone !== this.lastZone) {
      this.lastZone = zone;
      this.lastZoneJson = Buffer.from(JSON.stringify(zone));
    }
    return this.lastZoneJson;
  }
}

/** where fieldsAt found the last record's four field separators and its end (f1, f2, f3, f4, end) */
const BOUNDS = new Int32Array(5);

/**
 * Whether the record starting at `at` has exactly five fields and ends where a record must: at a record
 * separator, or (the last) at the text's end. Its four field separators and its end are left in BOUNDS (an
 * object per record was 0.5 MB of the nested answer's garbage).
 */
function fieldsAt(packed: string, at: number, last: boolean): boolean {
  const next = packed.indexOf(RECORD_SEPARATOR, at);
  if (last ? next !== -1 : next === -1) return false;
  const end = last ? packed.length : next;
  const f1 = packed.indexOf(FIELD_SEPARATOR, at);
  const f2 = packed.indexOf(FIELD_SEPARATOR, f1 + 1);
  const f3 = packed.indexOf(FIELD_SEPARATOR, f2 + 1);
  const f4 = packed.indexOf(FIELD_SEPARATOR, f3 + 1);
  if (f1 < at || f2 <= f1 || f3 <= f2 || f4 <= f3 || f4 >= end) return false;
  const f5 = packed.indexOf(FIELD_SEPARATOR, f4 + 1);
  if (f5 !== -1 && f5 < end) return false;
  BOUNDS[0] = f1;
  BOUNDS[1] = f2;
  BOUNDS[2] = f3;
  BOUNDS[3] = f4;
  BOUNDS[4] = end;
  return true;
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
