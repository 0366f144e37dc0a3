import type { JournalRecord } from '../entities/change.entity';
import type { Sql } from '../db/pool';

/**
 * The catalog zone's membership (RFC 9432) in the database: `domains.catalog_serial` is the catalog serial
 * at which a zone joined the catalog, null while it waits to join (migration 20261122160000). The catalog's
 * content at its serial (`catalog_state`) is the zones whose `catalog_serial` is set: the DNS primary reads
 * both in one snapshot (dns-zone-data.ts), and every statement here that changes the membership raises the
 * serial and writes the journal row in the same transaction, so one serial always means one content.
 *
 * A zone waits to join while `catalog_serial` is null, except an expired secondary zone (docs/transfers.md,
 * «Secondary zones»): it is not served, so it left its catalog (`unlistMembers`) and joins again only once it
 * is served again (a refresh that works, or its promotion).
 */

/** the zones that wait to join their set's catalog (`d`: the name `domains` goes by in the statement) */
const waiting = (d: string) =>
  `${d}.catalog_serial is null and (${d}.serving or not exists (select 1 from secondary_zone_state x where x.domain_id = ${d}.id and x.state = 'expired'))`;

/**
 * Waits for this catalog's admission turn (a transaction-scoped advisory lock: admissions run one at a
 * time) and answers whether any zone waits to join. A caller that finds none has written nothing, so its
 * commit costs no WAL flush: the many creates that queue here behind one admission end cheaply.
 *
 * One statement: its snapshot is taken before the lock is granted, so it may miss zones committed while it
 * waited, but never the caller's own (committed before it asked); those others are admitted by their own
 * callers' turns.
 */
export async function takeAdmissionTurn(sql: Sql, catalog: string, setId: number): Promise<boolean> {
  const [row] = await sql.rows<{ waiting: boolean }>(
    `select pg_advisory_xact_lock(hashtext('zonekeeper catalog admission ' || $1)) is not null
        and exists (select 1 from domains d where ${waiting('d')} and d.nameserver_set = $2) as waiting`,
    [catalog, setId],
  );
  return row.waiting;
}

/**
 * Creates the catalog's serial row once (serial 0) and locks it until the transaction ends; returns the
 * serial. The lock orders the catalog's changes: one at a time, each raising the serial once.
 */
export async function lockCatalog(sql: Sql, catalog: string): Promise<number> {
  const [row] = await sql.rows<{ serial: string }>(
    `insert into catalog_state (name, serial) values ($1, 0)
       on conflict (name) do update set serial = catalog_state.serial returning serial`,
    [catalog],
  );
  return Number(row.serial);
}

/**
 * Makes up to `limit` zones waiting to join the catalog members at `serial` (the caller holds the catalog's
 * lock and writes the journal row with `writeCatalogChange` in the same transaction); returns them.
 * Only committed zones wait here: a member's zone is always there to be transferred.
 */
export async function admitWaitingMembers(sql: Sql, setId: number, serial: number, limit: number): Promise<{ id: number; name: string }[]> {
  // the waiting zones' ids as one array, read once (an InitPlan), then each row by its key: as `id in (…)` the
  // planner, which saw no waiting zone in its statistics (a bulk creation's thousand are new), joined each of
  // them to a scan of all the others again: 386 ms for 1,000 zones (bench/FINDINGS.md)
  const rows = await sql.rows<{ id: string; name: string }>(
    `update domains set catalog_serial = $1
      where id = any(array(select d.id from domains d where ${waiting('d')} and d.nameserver_set = $3 order by d.id limit $2))
        and ${waiting('domains')} and nameserver_set = $3
      returning id, name`,
    [serial, limit, setId],
  );
  return rows.map((r) => ({ id: Number(r.id), name: r.name })).sort((a, b) => a.id - b.id);
}

/**
 * Makes one zone a member at `serial` if it waits to join (the caller holds its set's catalog lock and writes
 * the journal row); returns its name, or undefined when it does not wait (a member already, or expired).
 */
export async function admitMember(sql: Sql, domainId: number, serial: number): Promise<{ id: number; name: string } | undefined> {
  const [row] = await sql.rows<{ name: string }>(
    `update domains set catalog_serial = $2 where id = $1 and ${waiting('domains')} returning name`,
    [domainId, serial],
  );
  return row ? { id: domainId, name: row.name } : undefined;
}

/**
 * Takes zones out of every catalog's membership: not members of their set's catalog (`catalog_serial` null;
 * they do not wait to join while expired) and no longer listed by a catalog they were leaving (a move's
 * departure). The caller holds those catalogs' locks and writes their journal rows.
 */
export async function unlistMembers(sql: Sql, ids: number[]): Promise<void> {
  await sql.rows('update domains set catalog_serial = null where id = any($1::bigint[]) and catalog_serial is not null', [ids]);
  await sql.rows('delete from catalog_departures where domain_id = any($1::bigint[])', [ids]);
}

/** whether some zone waits to join the catalog (the partial index domains_catalog_waiting_set_index) */
export async function hasWaitingMembers(sql: Sql): Promise<boolean> {
  const rows = await sql.rows(`select 1 from domains d where ${waiting('d')} limit 1`);
  return rows.length > 0;
}

/** the nameserver sets some zone waits to join the catalog of (docs/transfers.md, «Nameserver sets»), with their catalogs' names (null: CATALOG_ZONE) */
export async function setsWithWaitingMembers(sql: Sql): Promise<{ setId: number; catalogZone: string | null }[]> {
  const rows = await sql.rows<{ id: string; catalog_zone: string | null }>(
    `select n.id, n.catalog_zone from nameserver_sets n
      where exists (select 1 from domains d where ${waiting('d')} and d.nameserver_set = n.id) order by n.id`,
  );
  return rows.map((r) => ({ setId: Number(r.id), catalogZone: r.catalog_zone }));
}

/** the catalogs' names of some sets (null: the default set's, CATALOG_ZONE) */
export async function catalogZonesOf(sql: Sql, setIds: number[]): Promise<Map<number, string | null>> {
  const rows = await sql.rows<{ id: string; catalog_zone: string | null }>(
    'select id, catalog_zone from nameserver_sets where id = any($1::bigint[])',
    [setIds],
  );
  return new Map(rows.map((r) => [Number(r.id), r.catalog_zone]));
}

/** Raises the catalog serial and writes its journal row (IXFR, the worker's NOTIFY), with the lock held. */
export async function writeCatalogChange(
  sql: Sql,
  change: { catalog: string; serialBefore: number; serialAfter: number; removed: JournalRecord[]; added: JournalRecord[] },
): Promise<void> {
  await sql.rows(
    `with state as (update catalog_state set serial = $3 where name = $1)
     insert into changes (domain_id, zone, kind, serial_before, serial_after, removed, added)
     values (0, $1, 'zone-changed', $2, $3, $4::jsonb, $5::jsonb)`,
    [change.catalog, change.serialBefore, change.serialAfter, JSON.stringify(change.removed), JSON.stringify(change.added)],
  );
  sql.journalWritten();
}
