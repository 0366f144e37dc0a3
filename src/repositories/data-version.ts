import type { Sql } from './sql';

/** Whose data a read can see: one user's (a user's API key) or everyone's (the admin key). */
export interface VersionScope {
  userId?: number;
  /** the read may show propagation state, which the worker changes without touching the zone's serial */
  withPropagation: boolean;
}

/**
 * A version of everything a read in `scope` can show, from one statement that reads no record rows: per
 * table, the number of rows and a sum of hashes of each row's id and `xmin` (the transaction that wrote the
 * row's current version: every insert and update gives a row a new one, and a delete changes the count and
 * the sum). Records need no term of their own: every record change raises its zone's serial in the same
 * transaction (docs/decisions.md §3), so the zone's row has a new `xmin`. The version moves whenever the
 * answer could; it may also move when it does not (a change the read does not show), which only costs a
 * full answer.
 */
export async function dataVersion(sql: Sql, scope: VersionScope): Promise<string> {
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
       end) as version`,
    [scope.userId ?? null, scope.withPropagation],
  );
  return row.version;
}
