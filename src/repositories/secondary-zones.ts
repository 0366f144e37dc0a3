import type { Sql } from '../db/pool';
import { insertEventsSql } from './events';
import type { TsigAlgorithm } from '../dns/wire/tsig';

/**
 * Secondary zones (docs/transfers.md): their primaries, the refresh timers the worker keeps (RFC 1035 §3.3.13,
 * RFC 1996), and what the last attempt found. Plain rows; SecondaryZonesService and the worker decide.
 */
export type SecondaryState = 'pending' | 'in_sync' | 'retrying' | 'expired';

export interface ZonePrimaryRow {
  address: string;
  port: number;
  tsigKeyId: number | null;
  tsigKeyName: string | null;
  /** the key to sign with; undefined when none was named, or it was revoked since (`keyRevoked`) */
  key?: { name: string; algorithm: TsigAlgorithm; secret: Buffer };
  keyRevoked: boolean;
}

export interface SecondaryStatusRow {
  state: SecondaryState;
  /** the primary's serial of the copy held; null before the first transfer */
  primarySerial: number | null;
  nextRefreshAt: Date;
  lastAttemptAt: Date | null;
  lastSuccessAt: Date | null;
  expiresAt: Date | null;
  lastError: string | null;
  transfers: number;
}

/** a secondary zone's primaries and its state row, at its creation (in the caller's transaction) */
export async function insertSecondary(
  sql: Sql,
  domainId: number,
  primaries: { address: string; port: number; tsigKeyId: number | null }[],
): Promise<void> {
  await sql.rows(
    `insert into zone_primaries (domain_id, position, address, port, tsig_key_id)
     select $1::bigint, n, a, p, k from unnest($2::inet[], $3::int[], $4::bigint[]) with ordinality as e(a, p, k, n)`,
    [domainId, primaries.map((p) => p.address), primaries.map((p) => p.port), primaries.map((p) => p.tsigKeyId)],
  );
  await sql.rows('insert into secondary_zone_state (domain_id) values ($1)', [domainId]);
}

/** the zone's primaries in the order they are tried, with their keys */
export async function zonePrimaries(sql: Sql, domainId: number): Promise<ZonePrimaryRow[]> {
  const rows = await sql.rows<{
    address: string;
    port: number;
    tsig_key_id: string | null;
    name: string | null;
    algorithm: TsigAlgorithm | null;
    secret: Buffer | null;
    revoked: boolean | null;
  }>(
    `select host(p.address) as address, p.port, p.tsig_key_id, k.name, k.algorithm, k.secret, k.revoked_at is not null as revoked
       from zone_primaries p left join tsig_keys k on k.id = p.tsig_key_id
      where p.domain_id = $1 order by p.position`,
    [domainId],
  );
  return rows.map((row) => ({
    address: row.address,
    port: row.port,
    tsigKeyId: row.tsig_key_id === null ? null : Number(row.tsig_key_id),
    tsigKeyName: row.name,
    key: row.name && !row.revoked ? { name: row.name, algorithm: row.algorithm!, secret: row.secret! } : undefined,
    keyRevoked: Boolean(row.revoked),
  }));
}

/** a secondary zone's primary as its readers show it: where, with which key (its name), and whether the zone was ever taken */
export interface PrimaryAddress {
  address: string;
  port: number;
  tsigKeyName: string | null;
  /** false while the zone is `pending`: never transferred, its SOA a placeholder that is not served */
  transferred: boolean;
}

/** the primaries of each of these zones, in their order (keys by name only: for showing them) */
export async function primaryAddressesOf(sql: Sql, domainIds: readonly number[]): Promise<Map<number, PrimaryAddress[]>> {
  const byZone = new Map<number, PrimaryAddress[]>();
  if (!domainIds.length) return byZone;
  const rows = await sql.rows<{ domain_id: string; address: string; port: number; key_name: string | null; transferred: boolean | null }>(
    `select p.domain_id, host(p.address) as address, p.port, k.name as key_name, s.state <> 'pending' as transferred
       from zone_primaries p left join tsig_keys k on k.id = p.tsig_key_id left join secondary_zone_state s on s.domain_id = p.domain_id
      where p.domain_id = any($1::bigint[]) order by p.domain_id, p.position`,
    [domainIds],
  );
  for (const row of rows) {
    const id = Number(row.domain_id);
    const primary = { address: row.address, port: row.port, tsigKeyName: row.key_name, transferred: row.transferred !== false };
    byZone.set(id, [...(byZone.get(id) ?? []), primary]);
  }
  return byZone;
}

export interface DueSecondary {
  id: number;
  name: string;
  /**
   * the primary's serial of the copy held (`primary_serial`): the zone's own serial runs ahead of it once the
   * service flattens an ALIAS in the zone (docs/transfers.md, «ALIAS in secondary zones»)
   */
  serial: number;
  /** false until its first transfer */
  loaded: boolean;
  /** its stored SOA's RDATA (the retry timer of a failed refresh is its; an IXFR asks from it) and TTL */
  soa: string;
  soaTtl: number;
}

/**
 * Claims up to `batch` secondary zones whose refresh is due (SKIP LOCKED: several workers each take others) and
 * leases them for `leaseSeconds`; a worker that dies leaves them to the next after the lease.
 */
export async function claimDueSecondaries(sql: Sql, batch: number, leaseSeconds: number): Promise<DueSecondary[]> {
  const rows = await sql.rows<{ id: string; name: string; serial: string; loaded: boolean; soa: string; soa_ttl: number }>(
    `with due as (
       select domain_id from secondary_zone_state
        where next_refresh_at <= now() and (lease_until is null or lease_until < now())
        order by next_refresh_at limit $1 for update skip locked)
     update secondary_zone_state s set lease_until = now() + make_interval(secs => $2::int), last_attempt_at = now()
       from domains d
      where s.domain_id in (select domain_id from due) and d.id = s.domain_id and d.kind = 'secondary'
     returning d.id, d.name, coalesce(s.primary_serial, d.serial) as serial, s.last_success_at is not null as loaded,
               (select r.rdata from records r where r.domain_id = d.id and r.owner = '@' and r.type = 'SOA') as soa,
               (select r.ttl from records r where r.domain_id = d.id and r.owner = '@' and r.type = 'SOA') as soa_ttl`,
    [batch, leaseSeconds],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    name: r.name,
    serial: Number(r.serial),
    loaded: r.loaded,
    soa: r.soa,
    soaTtl: Number(r.soa_ttl),
  }));
}

/**
 * Renews the lease of these zones, whose refreshes the caller has under way, for `leaseSeconds` from now: no
 * other worker claims them while they last. A zone whose refresh has already recorded its outcome (its lease
 * cleared) is left alone: a renewal then would keep it from its next refresh, or a NOTIFY's, for the lease.
 */
export async function renewSecondaryLeases(sql: Sql, domainIds: readonly number[], leaseSeconds: number): Promise<void> {
  if (!domainIds.length) return;
  await sql.rows(
    `update secondary_zone_state set lease_until = now() + make_interval(secs => $2::int)
      where domain_id = any($1::bigint[]) and lease_until is not null`,
    [domainIds, leaseSeconds],
  );
}

/**
 * Whether the zone is `expired` now (a refresh that works serves it again, and it rejoins its catalog: the
 * caller locks the catalog first). A plain read: besides the zone's refresh, which the caller holds the lease
 * of, only the expiry at its EXPIRE changes the state (`recordExpired`; a promotion deletes the row). Should that
 * expiry commit between this read and a refresh that works, the zone is served again without having rejoined
 * its catalog: it then waits to join it (catalog.ts, `waiting`) and the worker's admission, every poll, lists it.
 */
export async function isExpired(sql: Sql, domainId: number): Promise<boolean> {
  const rows = await sql.rows(`select 1 from secondary_zone_state where domain_id = $1 and state = 'expired'`, [domainId]);
  return rows.length > 0;
}

/**
 * Whether a refresh that fails now leaves the zone `expired` while a catalog still lists it (then the caller
 * locks the catalogs first, and the zone leaves them). A plain read, as `isExpired`: `expires_at` changes only
 * with a refresh that works, and `now()` is the transaction's, the same in `recordRefreshFailed`.
 */
export async function failureExpiresListedZone(sql: Sql, domainId: number): Promise<boolean> {
  const rows = await sql.rows(
    `select 1 from secondary_zone_state s join domains d on d.id = s.domain_id
      where s.domain_id = $1 and s.last_success_at is not null and s.expires_at <= now()
        and (d.catalog_serial is not null or exists (select 1 from catalog_departures x where x.domain_id = d.id))`,
    [domainId],
  );
  return rows.length > 0;
}

/**
 * a refresh that found the zone current, or took it: next refresh after `refresh` (or `expire`, if sooner), expiry
 * `expire` from now; answers whether the zone is served again (it was not: never taken, or expired)
 */
export async function recordRefreshed(
  sql: Sql,
  domainId: number,
  timers: { refresh: number; expire: number },
  transferred: boolean,
): Promise<boolean> {
  const rows = await sql.rows(
    `with s as (
       update secondary_zone_state set state = 'in_sync', last_success_at = now(), last_error = null, lease_until = null,
              -- an EXPIRE shorter than REFRESH is checked at the EXPIRE (a secondary must not serve past it)
              next_refresh_at = now() + make_interval(secs => least($2::int, $3::int)), expires_at = now() + make_interval(secs => $3::int),
              transfers = transfers + $4::int
        where domain_id = $1 returning domain_id)
     update domains set serving = true where id in (select domain_id from s) and kind = 'secondary' and not serving returning id`,
    [domainId, timers.refresh, timers.expire, transferred ? 1 : 0],
  );
  return rows.length > 0;
}

/**
 * A refresh that failed at every primary: retried after `retry`, or at the expiry if that comes first (a RETRY
 * longer than what is left of the EXPIRE must not keep an expired zone served); past the expiry the zone is
 * `expired` and no longer served (RFC 1035 §3.3.13), and retried after `retry`; never loaded, it stays
 * `pending`. Returns the state.
 */
export async function recordRefreshFailed(sql: Sql, domainId: number, error: string, retry: number): Promise<SecondaryState | undefined> {
  const rows = await sql.rows<{ state: SecondaryState }>(
    `with s as (
       update secondary_zone_state
          set state = case when last_success_at is null then 'pending'
                           when expires_at <= now() then 'expired' else 'retrying' end,
              last_error = $2, lease_until = null,
              -- expires_at: the row's before this update (null until the first transfer)
              next_refresh_at = case when expires_at > now() then least(now() + make_interval(secs => $3::int), expires_at)
                                     else now() + make_interval(secs => $3::int) end
        where domain_id = $1 returning domain_id, state),
     d as (update domains set serving = false where id in (select domain_id from s where state = 'expired') and serving returning id),
     -- its events (repositories/events.ts): the failure, and the expiry when this failure ends the zone's service
     ev as (${insertEventsSql(`select t.type, z.id, z.name, z.user_id, null, jsonb_build_object('zone', z.name, 'serial', z.serial, 'error', $2::text)
         from s join domains z on z.id = s.domain_id
              cross join lateral (select 'zone.transfer_failed' as type union all select 'zone.expired' where exists (select 1 from d)) t`)})
     select state from s`,
    [domainId, error, retry],
  );
  return rows[0]?.state;
}

/**
 * The served secondary zones whose EXPIRE has passed (`expires_at`), whatever their lease: a refresh may be under
 * way (its SOA queries and transfers can take minutes, docs/transfers.md) or not started yet; up to `batch`, the
 * longest expired first. A served zone's next refresh is never later than its expiry (`recordRefreshed`,
 * `recordRefreshFailed`; a NOTIFY and a claim only bring it nearer), so these are among the due rows: the
 * `next_refresh_at` condition lets the statement read them through `secondary_zone_state_due_index`.
 */
export async function overdueSecondaries(sql: Sql, batch: number): Promise<{ id: number; name: string }[]> {
  const rows = await sql.rows<{ id: string; name: string }>(
    `select d.id, d.name from secondary_zone_state s join domains d on d.id = s.domain_id
      where s.next_refresh_at <= now() and s.expires_at <= now() and s.state in ('in_sync', 'retrying') and d.kind = 'secondary'
      order by s.expires_at limit $1`,
    [batch],
  );
  return rows.map((r) => ({ id: Number(r.id), name: r.name }));
}

/**
 * A served zone past its EXPIRE before any refresh worked (RFC 1035 §3.3.13): `expired` and no longer served,
 * at once, with the refresh under way, if any, left to record its outcome (its lease and next refresh are left
 * alone: a failure keeps it `expired`, a refresh that works serves it again). The last failure's reason is kept
 * (none: the zone was `in_sync` when its refresh started). Answers whether it expired now: false when a refresh
 * that worked, or another worker, came first (the update waits for their row lock, then finds the row changed).
 */
export async function recordExpired(sql: Sql, domainId: number): Promise<boolean> {
  const rows = await sql.rows(
    `with s as (
       update secondary_zone_state
          set state = 'expired',
              last_error = coalesce(last_error, 'no refresh worked before the SOA EXPIRE passed (a refresh was under way or due)')
        where domain_id = $1 and state in ('in_sync', 'retrying') and expires_at <= now()
        returning domain_id),
     d as (update domains set serving = false where id in (select domain_id from s) and serving returning id),
     ev as (${insertEventsSql(`select 'zone.expired', z.id, z.name, z.user_id, null, jsonb_build_object('zone', z.name, 'serial', z.serial)
         from s join domains z on z.id = s.domain_id`)})
     select domain_id from s`,
    [domainId],
  );
  return rows.length > 0;
}

/** the secondary zone's state, undefined for a zone that is not one */
export async function secondaryStatus(sql: Sql, domainId: number): Promise<SecondaryStatusRow | undefined> {
  const [row] = await sql.rows<{
    state: SecondaryState;
    next_refresh_at: string;
    last_attempt_at: string | null;
    last_success_at: string | null;
    expires_at: string | null;
    last_error: string | null;
    transfers: number;
    primary_serial: string | null;
  }>(
    `select s.state, s.next_refresh_at, s.last_attempt_at, s.last_success_at, s.expires_at, s.last_error, s.transfers,
            case when s.last_success_at is null then null else coalesce(s.primary_serial, d.serial) end as primary_serial
       from secondary_zone_state s join domains d on d.id = s.domain_id where s.domain_id = $1`,
    [domainId],
  );
  if (!row) return undefined;
  const date = (value: unknown) => (value === null ? null : new Date(value as string));
  return {
    state: row.state,
    primarySerial: row.primary_serial === null ? null : Number(row.primary_serial),
    nextRefreshAt: new Date(row.next_refresh_at),
    lastAttemptAt: date(row.last_attempt_at),
    lastSuccessAt: date(row.last_success_at),
    expiresAt: date(row.expires_at),
    lastError: row.last_error,
    transfers: Number(row.transfers),
  };
}

/**
 * The primary's serial noted at a secondary zone's last transfer (`notePrimarySerial`); null before its first (and
 * for a zone transferred before the column, whose serial is the primary's). Read in the transfer's transaction.
 */
export async function notedPrimarySerial(sql: Sql, domainId: number): Promise<number | null> {
  const [row] = await sql.rows<{ primary_serial: string | null }>('select primary_serial from secondary_zone_state where domain_id = $1', [
    domainId,
  ]);
  return row?.primary_serial == null ? null : Number(row.primary_serial);
}

/** notes the primary's serial a transfer took (in the transfer's transaction) */
export async function notePrimarySerial(sql: Sql, domainId: number, serial: number): Promise<void> {
  await sql.affected('update secondary_zone_state set primary_serial = $2 where domain_id = $1', [domainId, serial]);
}

/** the channel a NOTIFY taken wakes the workers on */
export const SECONDARY_CHANNEL = 'zonekeeper_secondary';

export type NotifyOutcome = 'refreshing' | 'no-zone' | 'not-secondary' | 'not-a-primary';

/**
 * A NOTIFY (RFC 1996 §3.10) for `zone` from `address`: taken only for a secondary zone and from one of its
 * primaries, and then its refresh is due now.
 */
export async function noteNotify(sql: Sql, zone: string, address: string): Promise<NotifyOutcome> {
  const [row] = await sql.rows<{ kind: string; from_primary: boolean; refreshed: boolean }>(
    `with z as (select id, kind from domains where name = $1),
          p as (select exists (select 1 from zone_primaries where domain_id = (select id from z) and address = $2::inet) as from_primary),
          r as (update secondary_zone_state set next_refresh_at = now()
                 where domain_id = (select id from z) and (select kind from z) = 'secondary' and (select from_primary from p)
                returning domain_id)
     select (select kind from z) as kind, (select from_primary from p) as from_primary, exists (select 1 from r) as refreshed,
            -- wakes the workers' secondary-zone refresh at once (worker/secondary-zones.ts)
            case when exists (select 1 from r) then pg_notify('${SECONDARY_CHANNEL}', $1) end as woken`,
    [zone, address],
  );
  if (!row || row.kind === null) return 'no-zone';
  if (row.kind !== 'secondary') return 'not-secondary';
  return row.from_primary ? 'refreshing' : 'not-a-primary';
}

/**
 * Turns a secondary zone into a primary zone of ours (in the caller's transaction, the zone row locked): its
 * primaries and timers go, it is served whatever its state. False when it is not a secondary zone.
 */
export async function promoteSecondary(sql: Sql, domainId: number): Promise<boolean> {
  const rows = await sql.rows(`update domains set kind = 'primary', serving = true where id = $1 and kind = 'secondary' returning id`, [
    domainId,
  ]);
  if (!rows.length) return false;
  await sql.rows('delete from zone_primaries where domain_id = $1', [domainId]);
  await sql.rows('delete from secondary_zone_state where domain_id = $1', [domainId]);
  return true;
}

/** an active TSIG key to sign a transfer with */
export async function transferKey(sql: Sql, id: number): Promise<{ name: string; algorithm: TsigAlgorithm; secret: Buffer } | undefined> {
  const [row] = await sql.rows<{ name: string; algorithm: TsigAlgorithm; secret: Buffer }>(
    'select name, algorithm, secret from tsig_keys where id = $1 and revoked_at is null',
    [id],
  );
  return row;
}
