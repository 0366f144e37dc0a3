/**
 * A zone's row and its owner's (docs/architecture.md, «The write path»): found, listed, deleted, labelled, and made
 * one at a time or many in one statement (bulk creation); the write of a zone's records is zone-writes.ts.
 */
import type { ZoneKind } from '../entities/domain.entity';
import type { JournalRecord } from '../entities/change.entity';
import type { Sql } from '../db/pool';
import { DEFAULT_SET_ID } from './nameserver-sets';
import { FLATTENED_TYPE_NAMES } from '../dns/record-types';
import { insertEventsSql } from './events';
import { scheduleInsertedSql } from './alias-schedule';

/** a zone to delete: its row, unless the scope may not see it; undefined when there is none */
export async function findZoneRow(
  sql: Sql,
  by: { id?: number; name?: string; scopeUserId?: number },
): Promise<{ id: number; name: string; serial: number; userId: number } | undefined> {
  const [row] = await sql.rows(
    `select id, name, serial, user_id from domains
      where ($1::bigint is null or id = $1) and ($2::text is null or name = $2) and ($3::bigint is null or user_id = $3)
      limit 1`,
    [by.id ?? null, by.name ?? null, by.scopeUserId ?? null],
  );
  return row ? { id: Number(row.id), name: row.name, serial: Number(row.serial), userId: Number(row.user_id) } : undefined;
}

/** the zones of a user, in id order */
export async function zoneRowsOfUser(sql: Sql, userId: number): Promise<{ id: number; name: string; serial: number }[]> {
  const rows = await sql.rows('select id, name, serial from domains where user_id = $1 order by id', [userId]);
  return rows.map((row) => ({ id: Number(row.id), name: row.name, serial: Number(row.serial) }));
}

/** the records of the given zones, in id order, as the journal holds them */
export async function zoneRecords(sql: Sql, domainIds: number[]): Promise<(JournalRecord & { domainId: number })[]> {
  const rows = await sql.rows('select domain_id, owner, type, rdata, ttl from records where domain_id = any($1::bigint[]) order by id', [
    domainIds,
  ]);
  return rows.map((r) => ({ domainId: Number(r.domain_id), owner: r.owner, type: r.type, rdata: r.rdata, ttl: Number(r.ttl) }));
}

/**
 * Locks the user row of a zone about to be deleted, before the catalog's lock: the order a user's deletion
 * takes them in (users, catalog, zones), so that the zone count's update in `deleteZone` cannot deadlock with it.
 */
export async function lockZoneOwner(sql: Sql, zoneId: number): Promise<void> {
  await sql.rows('select 1 from users where id = (select user_id from domains where id = $1) for update', [zoneId]);
}

/** deletes a zone; its records go with it (foreign key cascade), and its user's zone count falls by one */
export async function deleteZone(sql: Sql, id: number): Promise<void> {
  // its `zone.deleted` event in the same statement (repositories/events.ts), naming the deletion's journal row,
  // written just before in this transaction (the zone's newest), as a change's event names its own
  await sql.rows(
    `with gone as (delete from domains where id = $1 returning id, user_id, name, serial),
       ev as (${insertEventsSql(`select 'zone.deleted', id, name, user_id,
           (select max(c.id) from changes c where c.zone = gone.name and c.domain_id = gone.id and c.kind = 'zone-deleted'),
           jsonb_build_object('zone', name, 'serial', serial) from gone`)})
     update users set zone_count = zone_count - 1 from gone where users.id = gone.user_id`,
    [id],
  );
}

/**
 * What the PowerDNS API was told of a zone, kept to be read back as told (docs/powerdns-api.md): the `account`
 * text (Terraform compares it at every plan) and the `kind` (`Native` or `Master`). Null: never told.
 */
export interface ZoneApiLabels {
  account?: string | null;
  kind?: string | null;
}

/** each zone's labels, by zone id (zones without any are left out) */
export async function zoneApiLabels(sql: Sql, ids: readonly number[]): Promise<Map<number, ZoneApiLabels>> {
  if (ids.length === 0) return new Map();
  const rows = await sql.rows(
    `select id, api_account, api_kind from domains where id = any($1::bigint[]) and (api_account is not null or api_kind is not null)`,
    [ids],
  );
  return new Map(rows.map((row: any) => [Number(row.id), { account: row.api_account, kind: row.api_kind }]));
}

/** sets the labels given (a field left undefined stays as it is) */
export async function setZoneApiLabels(sql: Sql, id: number, labels: ZoneApiLabels): Promise<void> {
  await sql.rows(
    `update domains set api_account = case when $2 then $3 else api_account end, api_kind = case when $4 then $5 else api_kind end
      where id = $1`,
    [id, labels.account !== undefined, labels.account ?? null, labels.kind !== undefined, labels.kind ?? null],
  );
}

/**
 * Creates a zone with its records and its `zone-created` journal row in one statement (autocommit: all or
 * nothing), for a user that exists. The zone's unique name decides between concurrent creates (23505 on
 * domains_name_unique). The zone waits to join the catalog (`domains.catalog_serial` null) until
 * `publishWaitingMembers` admits it. Through the ORM this was a transaction of eight statements and most of a
 * create's CPU (bench/RESULTS-scale.md).
 *
 * Its `zone-created` journal row wakes no reader: the catalog change that admits the zone right after it
 * does (`writeCatalogChange`), and the worker publishes every unpublished row when it wakes.
 *
 * `onlyWithoutHistory`: write nothing if the journal has a serial of an earlier zone of this name (the caller
 * then picks a serial above it and tries again), so that the usual create, of a name never used, is one
 * statement. Answers the zone, or why not: `user` (no such user) or `history` (the earlier serial).
 */
export async function insertZone(
  sql: Sql,
  zone: {
    userId: number;
    name: string;
    serial: number;
    records: JournalRecord[];
    onlyWithoutHistory: boolean;
    /** the user's zone quota when the user has none of its own (0: none); undefined: not checked (the admin) */
    defaultMaxZones: number | undefined;
    /** a secondary zone is not served until its first transfer (docs/transfers.md); default primary */
    kind?: ZoneKind;
    /** its nameserver set (docs/transfers.md, «Nameserver sets»); the default set when omitted */
    nameserverSet?: number;
    /** what the PowerDNS API was told of it, read back as told (docs/powerdns-api.md): `account`, `kind` */
    apiLabels?: ZoneApiLabels;
  },
): Promise<
  | { zone: { id: number; userId: number; name: string; serial: number; createdAt: Date; kind: ZoneKind } }
  | { missing: 'user' }
  | { history: number }
  | { quota: { limit: number; current: number } }
> {
  // the user's row is updated first, raising its zone count only while it stays within the quota: concurrent
  // creates of one user wait for each other's row lock and each checks the count the one before left
  // (READ COMMITTED re-evaluates the condition on the row as committed), so no quota is passed however many
  // come at once; a zone that is then not inserted (a duplicate name) fails the statement, count included
  // a template's ALIAS/ANAME gets its schedule row in the same statement (alias-schedule.ts)
  const scheduled = zone.records.some((r) => FLATTENED_TYPE_NAMES.has(r.type));
  const [row] = await sql.rows(
    `with prior as (
       select serial_after from changes where zone = $2 order by id desc limit 1),
     usr as (
       update users set zone_count = zone_count + 1
        where id = $1 and not ($5::boolean and exists (select 1 from prior))
          and ($6::int is null or coalesce(max_zones, $6::int) = 0 or zone_count < coalesce(max_zones, $6::int))
       returning id),
     dom as (
       insert into domains (user_id, name, serial, record_count, kind, serving, nameserver_set, api_account, api_kind)
       select id, $2, $3, json_array_length($4::json), $7, $7 = 'primary', $8, $9, $10 from usr
       returning id, user_id, name, serial, created_at, kind),
     rec as (
       insert into records (domain_id, owner, type, rdata, ttl)
       select dom.id, x.owner, x.type, x.rdata, x.ttl
         from dom, rows from (json_to_recordset($4::json) as (owner text, type text, rdata text, ttl int)) with ordinality as x(owner, type, rdata, ttl, n)
        order by x.n${
          scheduled
            ? `
       returning id, type, rdata),
     sched as (${scheduleInsertedSql('rec', '(select id from dom)')}`
            : ''
        }),
     chg as (
       insert into changes (domain_id, zone, kind, serial_before, serial_after, removed, added)
       select dom.id, dom.name, 'zone-created', null, dom.serial, '[]'::jsonb, $4::jsonb from dom),
     ev as (${insertEventsSql(`select 'zone.created', dom.id, dom.name, dom.user_id, null,
         jsonb_build_object('zone', dom.name, 'serial', dom.serial, 'kind', dom.kind) from dom`)})
     select dom.id, dom.user_id, dom.name, dom.serial, dom.created_at, dom.kind, (select serial_after from prior) as prior,
            (select json_build_object('limit', coalesce(max_zones, $6::int), 'current', zone_count) from users where id = $1) as quota
       from (select 1) as one left join dom on true`,
    [
      zone.userId,
      zone.name,
      zone.serial,
      JSON.stringify(zone.records),
      zone.onlyWithoutHistory,
      zone.defaultMaxZones ?? null,
      zone.kind ?? 'primary',
      zone.nameserverSet ?? DEFAULT_SET_ID,
      zone.apiLabels?.account ?? null,
      zone.apiLabels?.kind ?? null,
    ],
  );
  if (row.id === null) {
    if (zone.onlyWithoutHistory && row.prior !== null) return { history: Number(row.prior) };
    if (row.quota === null) return { missing: 'user' };
    // the statement's snapshot is from before it waited for the user's row: the count that refused it is
    // read again (a refusal only)
    const [now] = await sql.rows('select zone_count, coalesce(max_zones, $2::int) as max from users where id = $1', [
      zone.userId,
      zone.defaultMaxZones ?? null,
    ]);
    return { quota: { limit: Number(now?.max ?? row.quota.limit), current: Number(now?.zone_count ?? row.quota.current) } };
  }
  return {
    zone: {
      id: Number(row.id),
      userId: Number(row.user_id),
      name: row.name,
      serial: Number(row.serial),
      createdAt: new Date(row.created_at),
      kind: row.kind,
    },
  };
}

/**
 * The last serial the journal has of each name (a zone of that name deleted before), for the names that have
 * one: a new zone of that name starts above it (DomainsService.firstSerial). One index look-up per name
 * (changes_zone_id_index), in one statement.
 */
export async function lastSerialsOfNames(sql: Sql, names: readonly string[]): Promise<Map<string, number>> {
  const rows = await sql.rows<{ name: string; serial: string }>(
    `select n.name, (select c.serial_after from changes c where c.zone = n.name order by c.id desc limit 1) as serial
       from unnest($1::text[]) as n(name)`,
    [names],
    { plan: 'values' },
  );
  return new Map(rows.filter((r) => r.serial !== null).map((r) => [r.name, Number(r.serial)]));
}

/** the names among `names` that a zone has now */
export async function existingZoneNames(sql: Sql, names: readonly string[]): Promise<Set<string>> {
  // planned for its names: a plan made once while the table was small reads every zone (measured: 90 % of a bulk
  // create's time at 4,000 zones)
  const rows = await sql.rows<{ name: string }>('select name from domains where name collate "C" = any($1::text[])', [names], {
    plan: 'values',
  });
  return new Set(rows.map((r) => r.name));
}

/** one zone of `insertZones`: what `insertZone` takes of one, its serial decided by the caller */
export interface NewZone {
  userId: number;
  name: string;
  serial: number;
  records: JournalRecord[];
  kind: ZoneKind;
  nameserverSet: number;
  apiLabels?: ZoneApiLabels;
}

/**
 * Creates many zones in one statement, in the caller's transaction: what `insertZone` writes for one (the
 * zone, its records, its `zone-created` journal row, its `zone.created` event, the owner's zone count within
 * its quota, an ALIAS's schedule row), for each, in the order given, so that ids rise as single creates would
 * leave them. A user whose quota the zones would pass has none of them written (`overQuota`, with the count
 * as it stands); a user that does not exist neither (`missingUsers`): the caller then rolls the transaction
 * back, nothing being half made. The zones' unique names decide against concurrent creates (23505 on
 * domains_name_unique fails the statement).
 */
export async function insertZones(
  sql: Sql,
  zones: readonly NewZone[],
  /** the users' zone quota when they have none of their own (0: none); undefined: not checked (the admin) */
  defaultMaxZones: number | undefined,
): Promise<{
  zones: { id: number; userId: number; name: string; serial: number; createdAt: Date; kind: ZoneKind }[];
  overQuota: Map<number, { limit: number; current: number }>;
  missingUsers: Set<number>;
}> {
  const scheduled = zones.some((z) => z.records.some((r) => FLATTENED_TYPE_NAMES.has(r.type)));
  // the owners' rows are locked in id order first: two calls for the same users in other orders (the update below
  // takes its rows in no stated order) would otherwise deadlock
  const users = [...new Set(zones.map((z) => z.userId))].sort((a, b) => a - b);
  if (users.length > 1) await sql.rows('select 1 from users where id = any($1::bigint[]) order by id for update', [users]);
  const input = zones.map((z, n) => ({
    n,
    user_id: z.userId,
    name: z.name,
    serial: z.serial,
    kind: z.kind,
    nameserver_set: z.nameserverSet,
    api_account: z.apiLabels?.account ?? null,
    api_kind: z.apiLabels?.kind ?? null,
    records: z.records,
  }));
  const rows = await sql.rows<{
    what: 'zone' | 'user';
    id: string | null;
    user_id: string;
    name: string;
    serial: string;
    created_at: string;
    kind: ZoneKind;
    zone_count: number | null;
    max: number | null;
  }>(
    `with input as (
       select * from json_to_recordset($1::json)
         as x(n int, user_id bigint, name text, serial bigint, kind text, nameserver_set bigint, api_account text, api_kind text, records json)),
     wanted as (select user_id, count(*)::int as n from input group by user_id),
     usr as (
       update users u set zone_count = u.zone_count + w.n
         from wanted w
        where u.id = w.user_id
          and ($2::int is null or coalesce(u.max_zones, $2::int) = 0 or u.zone_count + w.n <= coalesce(u.max_zones, $2::int))
       returning u.id),
     dom as (
       insert into domains (user_id, name, serial, record_count, kind, serving, nameserver_set, api_account, api_kind)
       select i.user_id, i.name, i.serial, json_array_length(i.records), i.kind, i.kind = 'primary', i.nameserver_set, i.api_account, i.api_kind
         from input i where i.user_id in (select id from usr) order by i.n
       returning id, user_id, name, serial, created_at, kind),
     rec as (
       insert into records (domain_id, owner, type, rdata, ttl)
       select dom.id, x.owner, x.type, x.rdata, x.ttl
         from input i join dom on dom.name = i.name,
              rows from (json_to_recordset(i.records) as (owner text, type text, rdata text, ttl int)) with ordinality as x(owner, type, rdata, ttl, k)
        order by i.n, x.k${
          scheduled
            ? `
       returning id, domain_id, type, rdata),
     sched as (${scheduleInsertedSql('rec', 'i.domain_id')}`
            : ''
        }),
     chg as (
       insert into changes (domain_id, zone, kind, serial_before, serial_after, removed, added)
       select dom.id, dom.name, 'zone-created', null, dom.serial, '[]'::jsonb, i.records::jsonb
         from input i join dom on dom.name = i.name order by i.n),
     ev as (${insertEventsSql(`select 'zone.created', dom.id, dom.name, dom.user_id, null,
         jsonb_build_object('zone', dom.name, 'serial', dom.serial, 'kind', dom.kind) from input i join dom on dom.name = i.name order by i.n`)})
     select 'zone' as what, dom.id, dom.user_id, dom.name, dom.serial, dom.created_at, dom.kind, null::int as zone_count, null::int as max
       from dom
     union all
     select 'user', null, w.user_id, null, null, null, null, u.zone_count, coalesce(u.max_zones, $2::int)
       from wanted w left join users u on u.id = w.user_id
      where w.user_id not in (select id from usr)`,
    [JSON.stringify(input), defaultMaxZones ?? null],
  );
  const order = new Map(zones.map((z, n) => [z.name, n]));
  const created = rows
    .filter((r) => r.what === 'zone')
    .map((r) => ({
      id: Number(r.id),
      userId: Number(r.user_id),
      name: r.name,
      serial: Number(r.serial),
      createdAt: new Date(r.created_at),
      kind: r.kind,
    }))
    .sort((a, b) => order.get(a.name)! - order.get(b.name)!);
  const overQuota = new Map<number, { limit: number; current: number }>();
  const missingUsers = new Set<number>();
  for (const r of rows.filter((row) => row.what === 'user')) {
    // the statement's snapshot is from before it waited for the users' rows: a refusal's count is as it stood then
    if (r.zone_count === null) missingUsers.add(Number(r.user_id));
    else overQuota.set(Number(r.user_id), { limit: Number(r.max), current: Number(r.zone_count) });
  }
  // as for one zone (`insertZone`), the journal rows wake no reader: the catalog change that admits the zones does
  return { zones: created, overQuota, missingUsers };
}
