/**
 * ALIAS/ANAME flattening's SQL (docs/templates-and-alias.md): the worker's schedule (`alias_refresh`, claimed
 * with FOR UPDATE SKIP LOCKED so each refresh runs in one worker process) and the derived A/AAAA rows
 * (`records.derived_from`).
 */
import type { Database, Sql } from '../db/pool';
import type { StoredRow } from './zone-writes';
import { FLATTENED_TYPE_NAMES } from '../dns/record-types';

export interface DueAlias {
  recordId: number;
  domainId: number;
  zone: string;
  owner: string;
  type: string;
  target: string;
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
 * every ALIAS/ANAME without a schedule row gets one, due now (a new record, or one made before the worker ran),
 * and one whose target was edited is due now
 */
export async function scheduleNewAliases(db: Database): Promise<number> {
  const added = await db.affected(
    `insert into alias_refresh (record_id, domain_id, target)
       select r.id, r.domain_id, r.rdata from records r
        where r.type = any($1::text[]) and not exists (select 1 from alias_refresh s where s.record_id = r.id)
     on conflict do nothing`,
    [[...FLATTENED_TYPE_NAMES]],
  );
  const edited = await db.affected(
    `update alias_refresh s set target = r.rdata, next_refresh_at = now() from records r
      where r.id = s.record_id and r.rdata <> s.target`,
  );
  return added + edited;
}

/** claims up to `limit` due ALIAS/ANAME records, leasing each for `leaseSeconds` (a worker that dies leaves it to another) */
export async function leaseDueAliases(db: Database, limit: number, leaseSeconds: number): Promise<DueAlias[]> {
  const rows = await db.rows(
    `with due as (select record_id from alias_refresh where next_refresh_at <= now()
                   order by next_refresh_at limit $1 for update skip locked),
          leased as (update alias_refresh s set next_refresh_at = now() + make_interval(secs => $2)
                       from due where s.record_id = due.record_id returning s.record_id, s.domain_id)
     select l.record_id, l.domain_id, d.name, r.owner, r.type, r.rdata
       from leased l join records r on r.id = l.record_id join domains d on d.id = l.domain_id`,
    [limit, leaseSeconds],
  );
  return rows.map((r) => ({
    recordId: Number(r.record_id),
    domainId: Number(r.domain_id),
    zone: r.name,
    owner: r.owner,
    type: r.type,
    target: r.rdata,
  }));
}

/** the last outcome of a refresh and when the next is due */
export async function saveAliasOutcome(db: Database, recordId: number, outcome: AliasOutcome): Promise<void> {
  await db.affected(
    `update alias_refresh set state = $2, reason = $3, addresses = $4::jsonb, authenticated = $5, checked_at = now(),
        next_refresh_at = now() + make_interval(secs => $6) where record_id = $1`,
    [recordId, outcome.state, outcome.reason, JSON.stringify(outcome.addresses), outcome.authenticated, outcome.nextRefreshInSeconds],
  );
}

/** zones holding derived rows whose ALIAS/ANAME is gone, with those ALIAS ids (at most `limit`) */
export async function orphanedDerivations(db: Database, limit: number): Promise<{ domainId: number; aliasId: number }[]> {
  const rows = await db.rows(
    `select distinct r.domain_id, r.derived_from from records r
      where r.derived_from is not null and not exists (select 1 from records a where a.id = r.derived_from) limit $1`,
    [limit],
  );
  return rows.map((r) => ({ domainId: Number(r.domain_id), aliasId: Number(r.derived_from) }));
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
