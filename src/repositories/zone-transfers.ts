import { insertEventsSql } from './events';
import type { Sql } from '../db/pool';

/**
 * Zone transfers between accounts (docs/people.md): pending offers, and the move of a zone's ownership. Plain rows
 * in, plain rows out; ZoneTransfersService decides who may offer, accept, cancel or move.
 */

export interface ZoneTransferRow {
  id: number;
  zoneId: number;
  zone: string;
  fromUserId: number;
  toUserId: number;
  offeredBy: string | null;
  createdAt: Date;
  expiresAt: Date;
}

const COLUMNS = `t.id, t.domain_id, d.name, t.from_user_id, t.to_user_id, t.offered_by, t.created_at, t.expires_at`;

const toRow = (r: any): ZoneTransferRow => ({
  id: Number(r.id),
  zoneId: Number(r.domain_id),
  zone: r.name,
  fromUserId: Number(r.from_user_id),
  toUserId: Number(r.to_user_id),
  offeredBy: r.offered_by,
  createdAt: new Date(r.created_at),
  expiresAt: new Date(r.expires_at),
});

/** the zone's offer, unless one is pending (an expired one is replaced); undefined: one is pending */
export async function insertZoneTransfer(
  sql: Sql,
  offer: { zoneId: number; fromUserId: number; toUserId: number; offeredBy: string | null; expiresAt: Date },
): Promise<ZoneTransferRow | undefined> {
  await sql.rows(`delete from zone_transfers where domain_id = $1 and expires_at <= now()`, [offer.zoneId]);
  const [row] = await sql.rows(
    `with t as (insert into zone_transfers (domain_id, from_user_id, to_user_id, offered_by, expires_at)
        values ($1, $2, $3, $4, $5) on conflict (domain_id) do nothing returning *)
     select ${COLUMNS} from t join domains d on d.id = t.domain_id`,
    [offer.zoneId, offer.fromUserId, offer.toUserId, offer.offeredBy, offer.expiresAt],
  );
  return row ? toRow(row) : undefined;
}

/** an offer by id, pending or expired, locked for the transaction that takes or cancels it */
export async function lockZoneTransfer(sql: Sql, id: number): Promise<ZoneTransferRow | undefined> {
  const [row] = await sql.rows(
    `select ${COLUMNS} from zone_transfers t join domains d on d.id = t.domain_id where t.id = $1 for update of t`,
    [id],
  );
  return row ? toRow(row) : undefined;
}

export async function deleteZoneTransfer(sql: Sql, id: number): Promise<void> {
  await sql.rows(`delete from zone_transfers where id = $1`, [id]);
}

/** every offer of the zone, pending or expired (the zone moved by other means) */
export async function deleteZoneTransfersOf(sql: Sql, zoneId: number): Promise<void> {
  await sql.rows(`delete from zone_transfers where domain_id = $1`, [zoneId]);
}

/** the pending (unexpired) offers from or to the account, or every one (undefined: the admin), oldest first */
export async function pendingZoneTransfers(sql: Sql, userId: number | undefined): Promise<ZoneTransferRow[]> {
  const rows = await sql.rows(
    `select ${COLUMNS} from zone_transfers t join domains d on d.id = t.domain_id
      where t.expires_at > now() and ($1::bigint is null or t.from_user_id = $1 or t.to_user_id = $1) order by t.id`,
    [userId ?? null],
  );
  return rows.map(toRow);
}

/** an account's id by its e-mail address (the REST interface's user) */
export async function userIdByEmail(sql: Sql, email: string): Promise<number | undefined> {
  const [row] = await sql.rows(`select id from users where lower(email) = lower($1) order by id limit 1`, [email.trim()]);
  return row ? Number(row.id) : undefined;
}

export interface ZoneToMove {
  id: number;
  name: string;
  userId: number;
  serial: number;
  recordCount: number;
}

/** the zone, locked for its move (the nesting check and the quotas read it under this lock) */
export async function lockZoneToMove(sql: Sql, by: { id?: number; name?: string }): Promise<ZoneToMove | undefined> {
  const [row] = await sql.rows(
    `select id, name, user_id, serial, record_count from domains where ($1::bigint is null or id = $1) and ($2::text is null or name = $2) for update`,
    [by.id ?? null, by.name ?? null],
  );
  return row
    ? { id: Number(row.id), name: row.name, userId: Number(row.user_id), serial: Number(row.serial), recordCount: Number(row.record_count) }
    : undefined;
}

/** the receiving account's quotas in force (0: none) and its zone count, locked so that no zone is created meanwhile */
export async function lockQuotasOf(
  sql: Sql,
  userId: number,
  defaults: { maxZones: number; maxRecordsPerZone: number },
): Promise<{ maxZones: number; maxRecordsPerZone: number; zoneCount: number } | undefined> {
  const [row] = await sql.rows(
    `select coalesce(max_zones, $2::int) as max_zones, coalesce(max_records_per_zone, $3::int) as max_records, zone_count
       from users where id = $1 for update`,
    [userId, defaults.maxZones, defaults.maxRecordsPerZone],
  );
  return row
    ? { maxZones: Number(row.max_zones), maxRecordsPerZone: Number(row.max_records), zoneCount: Number(row.zone_count) }
    : undefined;
}

/**
 * Moves the zone to the account: its owner, both accounts' zone counts, and a journal row of kind `zone-moved`
 * naming who moved it. The serial does not step (no record changed, RFC 1982 has nothing to tell the
 * secondaries); the row is written as published, so the worker sends no NOTIFY for it (RFC 1996: nothing new).
 */
export async function moveZoneToUser(
  sql: Sql,
  zone: ZoneToMove,
  toUserId: number,
  author: { keyId?: number; keyName?: string; userId?: number; email?: string },
): Promise<void> {
  await sql.rows(
    `with moved as (update domains set user_id = $2 where id = $1 returning id),
       gone as (update users set zone_count = zone_count - 1 where id = $3),
       came as (update users set zone_count = zone_count + 1 where id = $2),
       chg as (
         insert into changes (domain_id, zone, kind, serial_before, serial_after, removed, added, author_key_id, author_key_name, author_user_id, author_email, published_at)
         select $1, $4, 'zone-moved', $5, $5, '[]'::jsonb, '[]'::jsonb, $6, $7, $8, $9, now() from moved returning id)
     ${insertEventsSql(`select 'zone.moved', $1::bigint, $4::text, $2::bigint, chg.id, jsonb_build_object('zone', $4::text, 'serial', $5::bigint) from chg`)}`,
    [
      zone.id,
      toUserId,
      zone.userId,
      zone.name,
      zone.serial,
      author.keyId ?? null,
      author.keyName ?? null,
      author.userId ?? null,
      author.email ?? null,
    ],
  );
  // the move's journal row and event reach the live readers as a change's do
  sql.journalWritten();
}
