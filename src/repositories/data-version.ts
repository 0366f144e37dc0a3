import type { Sql } from '../db/pool';

/** Whose data a read can see: one user's (a user's API key) or everyone's (the admin key). */
export interface VersionScope {
  userId?: number;
  /** a read of one zone (by id or name): its version is that zone's alone, whatever the number of zones */
  zone?: { id?: number; name?: string };
  /** the read may show propagation state, which the worker changes without touching the zone's serial */
  withPropagation: boolean;
}

/**
 * The audit log as the admin reads it, by index lookups only: events are added (the newest id) and pruned
 * oldest first (the oldest id); the one kind of row that changes, a failed authentication's summary, takes
 * its counts within a few seconds of its minute (the flush every second; the rows of the last 5 minutes,
 * on `audit_events_failed_auth_unique`, which leads with `at`).
 */
const AUDIT_LOG_VERSION = `(select coalesce(max(id), 0) || ':' || coalesce(min(id), 0) from audit_events) || ':' ||
  (select count(*) || ':' || coalesce(sum(hashtextextended(id || ':' || xmin::text, 0)::numeric), 0) from audit_events
    where kind = 'authentication-failed' and at >= now() - interval '5 minutes')`;

/**
 * A version of everything a read in `scope` can show, from one statement that reads no record rows: per
 * table, the number of rows and a sum of hashes of each row's id and `xmin` (the transaction that wrote the
 * row's current version: every insert and update gives a row a new one, and a delete changes the count and
 * the sum); for the admin, the audit log's (AUDIT_LOG_VERSION). Records need no term of their own: every record change raises its zone's serial in the same
 * transaction (docs/decisions.md §3), so the zone's row has a new `xmin`; a change of RRsets' comments alone, which
 * steps no serial, writes the zone's row again all the same (repositories/rrset-comments.ts). The version moves whenever the
 * answer could; it may also move when it does not (a change the read does not show), which only costs a
 * full answer.
 */
export async function dataVersion(sql: Sql, scope: VersionScope): Promise<string> {
  if (scope.zone) return zoneVersion(sql, { ...scope, zone: scope.zone });
  const [row] = await sql.rows<{ version: string }>(
    `select concat_ws('/',
       (select count(*) || ':' || coalesce(sum(hashtextextended(id || ':' || xmin::text, 0)::numeric), 0)
          from users where $1::bigint is null or id = $1),
       (select count(*) || ':' || coalesce(sum(hashtextextended(id || ':' || xmin::text, 0)::numeric), 0)
          from domains where $1::bigint is null or user_id = $1),
       (select count(*) || ':' || coalesce(sum(hashtextextended(id || ':' || xmin::text, 0)::numeric), 0)
          from api_keys where $1::bigint is null or user_id = $1),
       (select count(*) || ':' || coalesce(sum(hashtextextended(id || ':' || xmin::text, 0)::numeric), 0)
          from tsig_keys where $1::bigint is null or user_id = $1),
       case when $2 then
         (select count(*) || ':' || coalesce(sum(hashtextextended(s.id || ':' || s.xmin::text, 0)::numeric), 0)
            from zone_server_status s join domains d on d.id = s.domain_id where $1::bigint is null or d.user_id = $1)
       end,
       case when $1::bigint is null then ${AUDIT_LOG_VERSION} end) as version`,
    [scope.userId ?? null, scope.withPropagation],
  );
  return row.version;
}

/**
 * The version of what a read of one zone can show, by index lookups only (a one-zone read costs the same at 100
 * and 100,000 zones): the zone's row (every record change raises its serial in the same transaction), its
 * owner's row (the answer names the owner), the oldest journal row kept for it (pruning shortens the history
 * without touching the zone) and, when asked, its propagation rows. A zone the scope cannot see has a version
 * too (the answer is then a 404, which keeps no ETag).
 */
async function zoneVersion(sql: Sql, scope: VersionScope & { zone: { id?: number; name?: string } }): Promise<string> {
  const [row] = await sql.rows<{ version: string }>(
    `with z as (select id, name, user_id, xmin from domains
                 where (id = $3::bigint or name = $4::text) and ($1::bigint is null or user_id = $1))
     select concat_ws('/',
       (select count(*) || ':' || coalesce(sum(hashtextextended(id || ':' || xmin::text, 0)::numeric), 0) from z),
       (select coalesce(sum(hashtextextended(u.id || ':' || u.xmin::text, 0)::numeric), 0) from users u where u.id in (select user_id from z)),
       (select coalesce(min(c.id), 0) from changes c where c.zone in (select name from z)),
       case when $2 then
         (select count(*) || ':' || coalesce(sum(hashtextextended(s.id || ':' || s.xmin::text, 0)::numeric), 0)
            from zone_server_status s where s.domain_id in (select id from z))
       end) as version`,
    [scope.userId ?? null, scope.withPropagation, scope.zone.id ?? null, scope.zone.name ?? null],
  );
  return row.version;
}
