/**
 * ALIAS/ANAME flattening's SQL (docs/templates-and-alias.md): the worker's schedule (`alias_refresh`, kept by
 * the write engine's statements and claimed with FOR UPDATE SKIP LOCKED so each refresh runs in one worker
 * process) and the derived A/AAAA rows (`records.derived_from`).
 */
import type { Database, Sql } from '../db/pool';
import type { StoredRow } from './zone-writes';
import { FLATTENED_TYPES_SQL } from './alias-schedule';

export interface DueAlias {
  recordId: number;
  domainId: number;
  zone: string;
  owner: string;
  type: string;
  target: string;
  /** the record is gone (or is no longer an ALIAS/ANAME): its derived rows go, then its schedule row */
  gone: boolean;
}

export interface AliasOutcome {
  state: 'ok' | 'stale';
  reason: string | null;
  addresses: string[];
  authenticated: boolean;
  nextRefreshInSeconds: number;
}

export interface AliasStatusRow {
  recordId: number;
  owner: string;
  type: string;
  target: string;
  state: string;
  reason: string | null;
  addresses: string[];
  authenticated: boolean;
  checkedAt: string | null;
  nextRefreshAt: string;
}

/**
 * Claims up to `limit` due rows, leasing each for `leaseSeconds` (a worker that dies leaves it to another): one
 * range of `alias_refresh_due_index`, never the whole schedule. A row whose record is gone or no longer an
 * ALIAS/ANAME comes back `gone`, with its id: its derived rows are to be removed.
 */
export async function leaseDueAliases(db: Database, limit: number, leaseSeconds: number): Promise<DueAlias[]> {
  const rows = await db.rows(
    `with due as (select record_id from alias_refresh where next_refresh_at <= now()
                   order by next_refresh_at limit $1 for update skip locked),
          leased as (update alias_refresh s set next_refresh_at = now() + make_interval(secs => $2)
                       from due where s.record_id = due.record_id returning s.record_id, s.domain_id)
     select l.record_id, l.domain_id, d.name, r.owner, r.type, r.rdata, r.id is null or r.type not in ${FLATTENED_TYPES_SQL} as gone
       from leased l join domains d on d.id = l.domain_id left join records r on r.id = l.record_id`,
    [limit, leaseSeconds],
  );
  return rows.map((r) => ({
    recordId: Number(r.record_id),
    domainId: Number(r.domain_id),
    zone: r.name,
    owner: r.owner,
    type: r.type,
    target: r.rdata,
    gone: r.gone === true,
  }));
}

/** removes the schedule row of an ALIAS/ANAME gone (its derived rows removed), unless it came back as one */
export async function forgetAlias(db: Database, recordId: number): Promise<void> {
  await db.affected(
    `delete from alias_refresh where record_id = $1 and not exists (select 1 from records where id = $1 and type in ${FLATTENED_TYPES_SQL})`,
    [recordId],
  );
}

/** the last outcome of a refresh and when the next is due */
export async function saveAliasOutcome(db: Database, recordId: number, outcome: AliasOutcome): Promise<void> {
  await db.affected(
    `update alias_refresh set state = $2, reason = $3, addresses = $4::jsonb, authenticated = $5, checked_at = now(),
        next_refresh_at = now() + make_interval(secs => $6) where record_id = $1`,
    [recordId, outcome.state, outcome.reason, JSON.stringify(outcome.addresses), outcome.authenticated, outcome.nextRefreshInSeconds],
  );
}

/** whether the ALIAS/ANAME row is still there (read in the change's transaction) */
export async function aliasStillThere(sql: Sql, aliasId: number, target: string): Promise<boolean> {
  return (await sql.rows(`select 1 from records where id = $1 and rdata = $2`, [aliasId, target])).length > 0;
}

/** the A/AAAA rows derived from one ALIAS/ANAME */
export async function derivedRowsOf(sql: Sql, aliasId: number): Promise<StoredRow[]> {
  const rows = await sql.rows(`select id, owner, type, rdata, ttl from records where derived_from = $1 order by id`, [aliasId]);
  return rows.map((r) => ({ id: Number(r.id), owner: r.owner, type: r.type, rdata: r.rdata, ttl: Number(r.ttl) }));
}

/** marks rows just written by the worker as derived from an ALIAS/ANAME (same transaction as their insert) */
export async function markDerived(sql: Sql, ids: number[], aliasId: number): Promise<void> {
  if (ids.length) await sql.affected(`update records set derived_from = $2 where id = any($1::bigint[])`, [ids, aliasId]);
}

/** which of these record ids are derived rows (a person's write to them is refused) */
export async function derivedAmong(sql: Sql, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  const rows = await sql.rows(`select id from records where id = any($1::bigint[]) and derived_from is not null`, [ids]);
  return rows.map((r) => Number(r.id));
}

/** a zone's ALIAS/ANAME records with their last refresh */
export async function aliasStatusOfZone(db: Database, domainId: number): Promise<AliasStatusRow[]> {
  const rows = await db.rows(
    `select r.id, r.owner, r.type, r.rdata, s.state, s.reason, s.addresses, s.authenticated, s.checked_at, s.next_refresh_at
       from records r join alias_refresh s on s.record_id = r.id where r.domain_id = $1 order by r.owner, r.id`,
    [domainId],
  );
  return rows.map((r) => ({
    recordId: Number(r.id),
    owner: r.owner,
    type: r.type,
    target: r.rdata,
    state: r.state,
    reason: r.reason,
    addresses: r.addresses,
    authenticated: r.authenticated,
    checkedAt: r.checked_at ? new Date(r.checked_at).toISOString() : null,
    nextRefreshAt: new Date(r.next_refresh_at).toISOString(),
  }));
}
