import type { Sql } from '../db/pool';

/**
 * Nameserver sets in the database (migration 20261127010000): `nameserver_sets`, `domains.nameserver_set` and
 * `catalog_departures` (a moved zone still listed in its old set's catalog). The `default` set's row (id 1)
 * holds nulls: its secondaries, NS names and catalog are the settings' (services/transfers/nameserver-sets.service.ts).
 */
export const DEFAULT_SET_ID = 1;

export interface NameserverSetRow {
  id: number;
  name: string;
  /** `address:port` entries; null for the default set (SECONDARIES) */
  secondaries: string[] | null;
  /** absolute host names; null for the default set (DEFAULT_NS) */
  nsNames: string[] | null;
  /** null for the default set (CATALOG_ZONE) */
  catalogZone: string | null;
  zoneCount: number;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `n.id, n.name, n.secondaries, n.ns_names, n.catalog_zone, n.created_at, n.updated_at`;
type Raw = {
  id: string;
  name: string;
  secondaries: string[] | null;
  ns_names: string[] | null;
  catalog_zone: string | null;
  created_at: Date;
  updated_at: Date;
  zone_count?: string;
};
const toRow = (r: Raw): NameserverSetRow => ({
  id: Number(r.id),
  name: r.name,
  secondaries: r.secondaries,
  nsNames: r.ns_names,
  catalogZone: r.catalog_zone,
  zoneCount: Number(r.zone_count ?? 0),
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

/** every set, by name; with `withCounts` the number of zones in each (one index range per set) */
export async function listNameserverSets(sql: Sql, withCounts = false): Promise<NameserverSetRow[]> {
  const count = withCounts ? ', (select count(*) from domains d where d.nameserver_set = n.id) as zone_count' : '';
  const rows = await sql.rows<Raw>(`select ${COLUMNS}${count} from nameserver_sets n order by n.id`);
  return rows.map(toRow);
}

/**
 * one set by name; with `withCount` the number of zones in it (`zoneCount`, else 0). The count reads every zone
 * of the set: a zone's create, which only needs the set's servers and names, must not pay for it (at 100,000
 * zones in the default set it was the one statement of a create whose cost grew with the zones: bench/FINDINGS.md)
 */
export async function nameserverSetByName(sql: Sql, name: string, withCount = false): Promise<NameserverSetRow | undefined> {
  const count = withCount ? ', (select count(*) from domains d where d.nameserver_set = n.id) as zone_count' : '';
  const rows = await sql.rows<Raw>(`select ${COLUMNS}${count} from nameserver_sets n where n.name = $1`, [name]);
  return rows[0] ? toRow(rows[0]) : undefined;
}

/** one set by id; with `withCount` the number of zones in it (as nameserverSetByName) */
export async function nameserverSetById(sql: Sql, id: number, withCount = false): Promise<NameserverSetRow | undefined> {
  const count = withCount ? ', (select count(*) from domains d where d.nameserver_set = n.id) as zone_count' : '';
  const rows = await sql.rows<Raw>(`select ${COLUMNS}${count} from nameserver_sets n where n.id = $1`, [id]);
  return rows[0] ? toRow(rows[0]) : undefined;
}

/** one set by id, its row locked until the transaction ends (a change of its names decides on the names it replaces) */
export async function lockNameserverSet(sql: Sql, id: number): Promise<NameserverSetRow | undefined> {
  const rows = await sql.rows<Raw>(`select ${COLUMNS} from nameserver_sets n where n.id = $1 for update`, [id]);
  return rows[0] ? toRow(rows[0]) : undefined;
}

export async function insertNameserverSet(
  sql: Sql,
  set: { name: string; secondaries: string[]; nsNames: string[]; catalogZone: string },
): Promise<NameserverSetRow> {
  const [row] = await sql.rows<Raw>(
    `insert into nameserver_sets as n (name, secondaries, ns_names, catalog_zone) values ($1, $2::text[], $3::text[], $4)
     returning ${COLUMNS}`,
    [set.name, set.secondaries, set.nsNames, set.catalogZone],
  );
  return toRow(row);
}

/** a set's secondaries and NS names (its catalog's name stays: its secondaries are configured with it) */
export async function updateNameserverSet(
  sql: Sql,
  id: number,
  set: { secondaries: string[]; nsNames: string[] },
): Promise<NameserverSetRow | undefined> {
  const rows = await sql.rows<Raw>(
    `update nameserver_sets as n set secondaries = $2::text[], ns_names = $3::text[], updated_at = now() where n.id = $1
     returning ${COLUMNS}`,
    [id, set.secondaries, set.nsNames],
  );
  return rows[0] ? toRow(rows[0]) : undefined;
}

/** deletes a set no zone uses (nor leaves); false when one does (the FKs decide, in the statement) */
export async function deleteNameserverSet(sql: Sql, id: number): Promise<'deleted' | 'in-use' | 'missing'> {
  const [row] = await sql.rows<{ in_use: boolean; deleted: boolean }>(
    `with used as (select exists (select 1 from domains where nameserver_set = $1)
                        or exists (select 1 from catalog_departures where nameserver_set = $1) as in_use),
          gone as (delete from nameserver_sets where id = $1 and not (select in_use from used) returning id)
     select (select in_use from used) as in_use, exists (select 1 from gone) as deleted`,
    [id],
  );
  return row.deleted ? 'deleted' : row.in_use ? 'in-use' : 'missing';
}

/** the status rows of a set's zones follow its secondaries: others' rows go, new ones start pending */
export async function reconcileSetStatusRows(sql: Sql, setId: number, servers: string[]): Promise<void> {
  await sql.rows(
    `delete from zone_server_status s using domains d
      where d.id = s.domain_id and d.nameserver_set = $1 and s.server <> all($2::text[])`,
    [setId, servers],
  );
  await sql.rows(
    `insert into zone_server_status (domain_id, server, state, error, attempts, next_check_at, updated_at)
     select d.id, s.server, 'pending', null, 0, now(), now() from domains d cross join unnest($2::text[]) as s(server)
      where d.nameserver_set = $1
     on conflict (domain_id, server) do nothing`,
    [setId, servers],
  );
}

/** a zone's set and whether it still leaves another (a move not yet complete) */
export async function zoneSetState(sql: Sql, domainId: number): Promise<{ setId: number; leaving: number | null } | undefined> {
  const rows = await sql.rows<{ nameserver_set: string; leaving: string | null }>(
    `select d.nameserver_set, x.nameserver_set as leaving from domains d left join catalog_departures x on x.domain_id = d.id where d.id = $1`,
    [domainId],
  );
  return rows[0]
    ? { setId: Number(rows[0].nameserver_set), leaving: rows[0].leaving === null ? null : Number(rows[0].leaving) }
    : undefined;
}

/**
 * Moves a zone's row to another set, locked (the caller holds both catalogs' locks): answers whether it was a
 * catalog member (then it also gets a departure row, so its old catalog keeps listing it), or undefined when
 * the zone is gone. Its status rows follow the new set's servers.
 */
export async function moveZoneRow(
  sql: Sql,
  move: { domainId: number; from: number; to: number; servers: string[] },
): Promise<{ member: boolean; name: string } | undefined> {
  const [row] = await sql.rows<{ member: boolean; name: string }>(
    `update domains set nameserver_set = $3 where id = $1 and nameserver_set = $2 returning catalog_serial is not null as member, name`,
    [move.domainId, move.from, move.to],
  );
  if (!row) return undefined;
  if (row.member) await sql.rows(`insert into catalog_departures (domain_id, nameserver_set) values ($1, $2)`, [move.domainId, move.from]);
  await sql.rows(`delete from zone_server_status where domain_id = $1 and server <> all($2::text[])`, [move.domainId, move.servers]);
  await sql.rows(
    `insert into zone_server_status (domain_id, server, state, error, attempts, next_check_at, updated_at)
     select $1, s.server, 'pending', null, 0, now(), now() from unnest($2::text[]) as s(server)
     on conflict (domain_id, server) do nothing`,
    [move.domainId, move.servers],
  );
  return row;
}

/**
 * The departures whose zone the new set's secondaries all serve (each status row of them has a served
 * serial: the worker asked and got the zone's SOA): they may leave their old catalog. `defaultServers`: the
 * default set's (SECONDARIES).
 */
export async function completedDepartures(
  sql: Sql,
  defaultServers: string[],
): Promise<{ domainId: number; name: string; setId: number }[]> {
  const rows = await sql.rows<{ domain_id: string; name: string; nameserver_set: string }>(
    `select x.domain_id, d.name, x.nameserver_set
       from catalog_departures x join domains d on d.id = x.domain_id join nameserver_sets n on n.id = d.nameserver_set
      where (select count(*) from zone_server_status s
              where s.domain_id = d.id and s.served_serial is not null and s.server = any(coalesce(n.secondaries, $1::text[])))
            >= cardinality(coalesce(n.secondaries, $1::text[]))
      order by x.domain_id limit 100`,
    [defaultServers],
  );
  return rows.map((r) => ({ domainId: Number(r.domain_id), name: r.name, setId: Number(r.nameserver_set) }));
}

/** ends a departure (the caller holds the old catalog's lock); false when it was ended already */
export async function endDeparture(sql: Sql, domainId: number, setId: number): Promise<boolean> {
  const rows = await sql.rows(`delete from catalog_departures where domain_id = $1 and nameserver_set = $2 returning domain_id`, [
    domainId,
    setId,
  ]);
  return rows.length > 0;
}

/** the sets the zones are in, and the sets they leave: every catalog that lists them */
export async function catalogsListing(sql: Sql, ids: number[]): Promise<{ domainId: number; setId: number; member: boolean }[]> {
  if (!ids.length) return [];
  const rows = await sql.rows<{ domain_id: string; set_id: string; member: boolean }>(
    `select id as domain_id, nameserver_set as set_id, catalog_serial is not null as member from domains where id = any($1::bigint[])
     union all
     select domain_id, nameserver_set, true from catalog_departures where domain_id = any($1::bigint[])`,
    [ids],
  );
  return rows.map((r) => ({ domainId: Number(r.domain_id), setId: Number(r.set_id), member: r.member }));
}

/** the zones' sets (and the sets they leave), by zone name: whose secondaries get their NOTIFYs */
export async function setsOfZones(sql: Sql, names: string[]): Promise<Map<string, number[]>> {
  const rows = await sql.rows<{ name: string; nameserver_set: string; leaving: string | null }>(
    `select d.name, d.nameserver_set, x.nameserver_set as leaving from domains d left join catalog_departures x on x.domain_id = d.id
      where d.name collate "C" = any($1::text[])`,
    [names],
  );
  return new Map(rows.map((r) => [r.name, [Number(r.nameserver_set), ...(r.leaving === null ? [] : [Number(r.leaving)])]]));
}
