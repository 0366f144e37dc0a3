import type { JournalRecord } from '../entities/change.entity';
import type { Sql } from '../db/pool';

/**
 * The catalog zone's membership (RFC 9432) in the database: `domains.catalog_serial` is the catalog serial
 * at which a zone joined the catalog, null while it waits to join (migration 20261122160000). The catalog's
 * content at its serial (`catalog_state`) is the zones whose `catalog_serial` is set: the DNS primary reads
 * both in one snapshot (dns-zone-data.ts), and every statement here that changes the membership raises the
 * serial and writes the journal row in the same transaction, so one serial always means one content.
 */

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
        and exists (select 1 from domains where catalog_serial is null and nameserver_set = $2) as waiting`,
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
  const rows = await sql.rows<{ id: string; name: string }>(
    `update domains set catalog_serial = $1
      where id in (select id from domains where catalog_serial is null and nameserver_set = $3 order by id limit $2)
        and catalog_serial is null and nameserver_set = $3
      returning id, name`,
    [serial, limit, setId],
  );
  return rows.map((r) => ({ id: Number(r.id), name: r.name })).sort((a, b) => a.id - b.id);
}

/** whether some zone waits to join the catalog (the partial index domains_catalog_waiting_index) */
export async function hasWaitingMembers(sql: Sql): Promise<boolean> {
  const rows = await sql.rows('select 1 from domains where catalog_serial is null limit 1');
  return rows.length > 0;
}

/** the nameserver sets some zone waits to join the catalog of (docs/transfers.md, «Nameserver sets»), with their catalogs' names (null: CATALOG_ZONE) */
export async function setsWithWaitingMembers(sql: Sql): Promise<{ setId: number; catalogZone: string | null }[]> {
  const rows = await sql.rows<{ id: string; catalog_zone: string | null }>(
    `select n.id, n.catalog_zone from nameserver_sets n
      where exists (select 1 from domains d where d.catalog_serial is null and d.nameserver_set = n.id) order by n.id`,
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
