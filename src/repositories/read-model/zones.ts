/** The read model's zones: lists in several orders, counts, and a batch of users' zones */
import type { Sql } from '../../db/pool';
import type { ReadRules } from '../../auth/policy';
import type { ZoneKind } from '../../entities/domain.entity';
import type { HealthState } from '../health';
import { PROPAGATION_COLUMNS, propagationReadOf, type PropagationRead } from '../propagation-status';
import { LAZY_TIMES, toDate, toDomain, toUser, type DomainRow, type PageRequest, type UserRow } from './rows';
import { idArray, keyset, page, Params, whereOf } from './statement-parts';
import { decimal, FIELD_SEPARATOR, RECORD_SEPARATOR } from './packed-records';
import {
  childrenPerParent,
  countPerParent,
  pagePerParent,
  parentsWithChildBeyond,
  type ChildQuery,
  type PerParentPage,
} from './per-parent';

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

/**
 * The zones a restricted key sees, as a condition on `nameColumn`: every zone of its user when a rule names
 * every zone, else the zones its rules name (none: no rule at all).
 */
function zoneRuleCondition(p: Params, rules: ReadRules | undefined, nameColumn: string): string | undefined {
  if (!rules || rules.some((rule) => rule.zone === null)) return undefined;
  return `${nameColumn} = any(${p.add(rules.map((rule) => rule.zone))}::text[])`;
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
  const rows = await sql.rows(`select ${DOMAIN_COLUMNS} from domains d ${domainPage(p, filter, request, order)}`, p.values, LAZY_TIMES);
  return rows.map(toDomain);
}

/** a zone of a list as a zone list shows it: the zone, its owner, its facts and its health's state */
export interface ListedZone {
  zone: DomainRow;
  user: UserRow;
  facts: ZoneListFacts;
  /** the last check's state and when it ended (a zone never checked: unknown, null), without its findings */
  health: { state: HealthState; checkedAt: Date | null };
  /** what its propagation is made of, when the list asked for it (its serial and servers' rows of one snapshot) */
  propagation?: PropagationRead;
}

/**
 * listDomains with each zone's owner, facts and health state read in the same statement (the console's zone list,
 * which shows them), and with `propagation` what each zone's propagation is made of: what usersByIds,
 * zoneListFacts, healthOfZones without findings and readPropagationRowsOf read of the page's zones, four
 * statements fewer, and a round trip: the console's list is its page and its count, side by side.
 */
export async function listDomainsWithOwnersAndFacts(
  sql: Sql,
  filter: DomainFilter,
  request?: PageRequest,
  order: DomainOrder = 'created',
  { propagation = false } = {},
): Promise<ListedZone[]> {
  const p = new Params();
  const rows = await sql.rows(
    `select ${DOMAIN_COLUMNS}, u.email as user_email, u.created_at as user_created_at, d.record_count,
            (select z.state from dnssec_zones z where z.domain_id = d.id) as dnssec_state,
            coalesce(zh.state, 'unknown') as health_state, zh.checked_at as health_checked_at
            ${propagation ? `, ${PROPAGATION_COLUMNS}` : ''}
       from domains d join users u on u.id = d.user_id left join zone_health zh on zh.domain_id = d.id
            ${propagation ? 'join nameserver_sets n on n.id = d.nameserver_set' : ''}
            ${domainPage(p, filter, request, order)}`,
    p.values,
    LAZY_TIMES,
  );
  return rows.map((row) => ({
    zone: toDomain(row),
    user: toUser({ id: row.user_id, email: row.user_email, created_at: row.user_created_at }),
    facts: factsOf(row),
    health: { state: row.health_state, checkedAt: row.health_checked_at === null ? null : toDate(row.health_checked_at) },
    propagation: propagation ? propagationReadOf(row.serial, row) : undefined,
  }));
}

/** a zone as the PowerDNS API's list shows it: its row's fields, what that API was told of it, and whether it is signed */
export interface ApiListedZone {
  id: number;
  name: string;
  serial: number;
  kind: ZoneKind;
  /** the `account` the PowerDNS API was told, else the owner's e-mail, else '' */
  account: string;
  /** the `kind` the PowerDNS API was told (`Native`, `Master`), or null */
  apiKind: string | null;
  signed: boolean;
}

/** what the PowerDNS API shows of each zone of a page, in id order (`d`: the zone, `u`: its owner) */
function apiListedZones(p: Params, filter: DomainFilter, request: PageRequest): string {
  return `select d.id, d.name, d.serial, d.kind, coalesce(d.api_account, u.email, '') as account, d.api_kind,
                 exists (select from dnssec_zones z where z.domain_id = d.id) as signed
            from domains d left join users u on u.id = d.user_id
                 ${page(p, domainConditions(p, filter), 'd.id', request)}`;
}

/**
 * A page of zones in id order with what the PowerDNS API shows of each, in one statement: what listDomains,
 * usersByIds, zoneApiLabels and signedDomainIds read of a page, without the three lists of ids (each page of the
 * whole list sent 10,000 ids three times). The account is the label the API was told, else the owner's e-mail.
 *
 * The page comes as one text, each zone's fields between ASCII's unit separators and the zones between record
 * separators, in id order, as the records' nested lists come (packed-records.ts): the list of every zone reads
 * 100,000 of them, and `pg`'s decoding of a row and its seven columns a zone was half of that list's CPU (a row a
 * page: 284–350 → 97–129 ms of CPU for 100,000 zones, bench/FINDINGS.md). A page the text cannot be read back
 * from (unpackedApiListedZones) is read row by row.
 */
export async function listDomainsWithApiFacts(sql: Sql, filter: DomainFilter, request: PageRequest): Promise<ApiListedZone[]> {
  const p = new Params();
  // the API's kind is '=' and its text, or '' when it was not told; concat_ws, not a chain of ||, which made a text
  // a step (a third more of PostgreSQL's time for the whole list)
  const [page] = await sql.rows<{ zones: number; packed: string | null }>(
    `select count(*)::int as zones,
            string_agg(concat_ws(chr(31), d.id, d.serial, d.kind, d.signed::int, coalesce('=' || d.api_kind, ''), d.name, d.account), chr(30)) as packed
       from (${apiListedZones(p, filter, request)}) as d`,
    p.values,
  );
  if (page.zones === 0) return [];
  return (page.packed !== null && unpackedApiListedZones(page.packed, page.zones)) || apiListedZoneRows(sql, filter, request);
}

/**
 * The zones of a packed page (listDomainsWithApiFacts), or undefined when the text is not `count` of them, each of
 * seven fields, in id order: a name, an account or the API's kind holding a separator (an account is any text)
 * makes more zones or more fields than that. The aggregate takes the page's rows in the order its subquery reads
 * them (the id's index): PostgreSQL keeps it in practice without promising it, and an aggregate ordered of its own
 * sorted every page (PostgreSQL's time for 100,000 zones then longer than this process's, 440 → 660 ms in all);
 * the check here sees the order.
 */
function unpackedApiListedZones(packed: string, count: number): ApiListedZone[] | undefined {
  const zones = new Array<ApiListedZone>(count);
  let at = 0;
  for (let i = 0; i < count; i++) {
    const next = packed.indexOf(RECORD_SEPARATOR, at);
    if (i === count - 1 ? next !== -1 : next === -1) return undefined;
    const end = next === -1 ? packed.length : next;
    const f1 = packed.indexOf(FIELD_SEPARATOR, at);
    const f2 = packed.indexOf(FIELD_SEPARATOR, f1 + 1);
    const f3 = packed.indexOf(FIELD_SEPARATOR, f2 + 1);
    const f4 = packed.indexOf(FIELD_SEPARATOR, f3 + 1);
    const f5 = packed.indexOf(FIELD_SEPARATOR, f4 + 1);
    const f6 = packed.indexOf(FIELD_SEPARATOR, f5 + 1);
    const f7 = packed.indexOf(FIELD_SEPARATOR, f6 + 1);
    if (!(f1 >= at && f2 > f1 && f3 > f2 && f4 === f3 + 2 && f5 > f4 && f6 > f5 && f6 < end) || (f7 !== -1 && f7 < end)) return undefined;
    const id = decimal(packed, at, f1);
    const serial = decimal(packed, f1 + 1, f2);
    const signed = packed.charCodeAt(f3 + 1) - 48;
    const ordered = i === 0 || id > zones[i - 1].id;
    if (!ordered || id < 0 || serial < 0 || (signed !== 0 && signed !== 1) || (f5 > f4 + 1 && packed[f4 + 1] !== '=')) return undefined;
    zones[i] = {
      id,
      serial,
      kind: packed.slice(f2 + 1, f3) as ZoneKind,
      signed: signed === 1,
      apiKind: f5 === f4 + 1 ? null : packed.slice(f4 + 2, f5),
      name: packed.slice(f5 + 1, f6),
      account: packed.slice(f6 + 1, end),
    };
    at = end + 1;
  }
  return zones;
}

/** listDomainsWithApiFacts's page a row a zone */
async function apiListedZoneRows(sql: Sql, filter: DomainFilter, request: PageRequest): Promise<ApiListedZone[]> {
  const p = new Params();
  const rows = await sql.rows<{
    id: string;
    name: string;
    serial: string;
    kind: ZoneKind;
    account: string;
    api_kind: string | null;
    signed: boolean;
  }>(apiListedZones(p, filter, request), p.values, LAZY_TIMES);
  const zones = new Array<ApiListedZone>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    zones[i] = {
      id: Number(row.id),
      name: row.name,
      serial: Number(row.serial),
      kind: row.kind,
      account: row.account,
      apiKind: row.api_kind,
      signed: row.signed,
    };
  }
  return zones;
}

/** the conditions, order and page of a list of zones (`d`) */
function domainPage(p: Params, filter: DomainFilter, request: PageRequest | undefined, order: DomainOrder): string {
  const conditions = domainConditions(p, filter);
  const column = ORDER_COLUMNS[order.replace(/_desc$/, '')];
  if (order === 'name' || order === 'name_desc') return pageByName(p, conditions, request, order === 'name_desc');
  if (column) return pageByColumn(p, conditions, request, column, order.endsWith('_desc'));
  return page(p, conditions, 'd.id', request);
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
 * An order by a fact many zones share (a record count, a kind), keyset-paged with the same cursors (a zone's id):
 * ties are broken by id, and a page after (or before) a cursor starts past the cursor zone's (fact, id) pair,
 * read from that zone as it is now
 */
function pageByColumn(
  p: Params,
  conditions: string[],
  request: PageRequest | undefined,
  column: (alias: string) => string,
  descending: boolean,
): string {
  const direction = descending !== Boolean(request?.fromEnd) ? ' desc' : '';
  const order = `order by ${column('d')}${direction}, d.id${direction}`;
  if (!request) return `${whereOf(conditions)} ${order}`;
  const past = (id: number, later: boolean) =>
    `(${column('d')}, d.id) ${descending === later ? '<' : '>'} (select ${column('c')}, c.id from domains c where c.id = ${p.add(id)})`;
  const all = [...conditions];
  if (request.after !== undefined) all.push(past(request.after, true));
  if (request.before !== undefined) all.push(past(request.before, false));
  return `${whereOf(all)} ${order} limit ${p.add(request.first)}`;
}

/**
 * Name order, keyset-paged like id order with the same cursors (a zone's id): a page after (or before) one starts
 * past that zone's name. Names are unique and compared byte-wise (collate "C"), the order of
 * domains_name_bytes_index, which a page read from the end reads backwards.
 */
function pageByName(p: Params, conditions: string[], request: PageRequest | undefined, descending: boolean): string {
  if (!request) return `${whereOf(conditions)} order by d.name collate "C"${descending ? ' desc' : ''}`;
  const paged = keyset(
    p,
    'd.name collate "C"',
    request,
    descending,
    (id) => `(select c.name from domains c where c.id = ${id}) collate "C"`,
  );
  return `${whereOf([...conditions, ...paged.conditions])} ${paged.order} limit ${p.add(request.first)}`;
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
  return new Map(rows.map((r) => [Number(r.id), factsOf(r)]));
}

const factsOf = (row: { record_count: number | string; dnssec_state: string | null }): ZoneListFacts => ({
  recordCount: Number(row.record_count),
  dnssecState: row.dnssec_state ?? 'unsigned',
});

export async function domainsByIds(sql: Sql, ids: readonly number[]): Promise<DomainRow[]> {
  const rows = await sql.rows(`select ${DOMAIN_COLUMNS} from domains d where d.id = any($1::bigint[])`, [idArray(ids)], LAZY_TIMES);
  return rows.map(toDomain);
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

/** the users of the batch whose zones go on past their anchors (ids) on one side: User.domainsConnection's pageInfo */
export function usersWithZonesBeyond(
  sql: Sql,
  anchors: ReadonlyMap<number, number | undefined>,
  side: 'after' | 'before',
  filter: { name?: string; readRules?: ReadRules } = {},
): Promise<Set<number>> {
  return parentsWithChildBeyond(sql, zonesOfUsersQuery(new Params(), [...anchors.keys()], filter), anchors, side);
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
