import type { Sql } from '../db/pool';

/**
 * The lookups behind the zone-name rule (a user's zone may neither sit inside nor contain another user's
 * zone) and the locks that make it hold under concurrency.
 */

/**
 * Takes a transaction-scoped advisory lock on each name (in one order, so that two creates locking
 * overlapping sets cannot deadlock), held until the caller's transaction ends. Two zones nest only if the
 * outer one is among the inner one's ancestors; a create that locks its own name and its ancestors therefore
 * shares a lock with any create of a zone nested with it, and the later of the two reads the other's row in
 * its next statement (READ COMMITTED takes a new snapshot per statement, after the lock was granted). The
 * lock and the check cannot be one statement: its snapshot would predate the wait for the lock.
 */
export async function lockZoneNames(sql: Sql, names: string[]): Promise<void> {
  await sql.rows(
    `select count(pg_advisory_xact_lock(k)) from (
       select distinct hashtextextended('zonekeeper zone name ' || n, 0) as k from unnest($1::text[]) as n order by k) as keys`,
    [names],
  );
}

/**
 * Whether a zone of a user other than `userId` is one of `ancestors` or lies below `name` (its name ends
 * with `.name`). Descendants are found as a range of the reversed names (`domains_reversed_name_index`, in
 * byte order): every name ending with `.example.com` reversed starts with `moc.elpmaxe.`, and lies between
 * that and `moc.elpmaxe/` ('/' follows '.').
 */
/*
 * Zone names are compared `collate "C"` against a list (`= any(...)`): the list's equality then takes the
 * byte-order B-tree (domains_name_bytes_index; equality is the same in every deterministic collation), where
 * PostgreSQL otherwise picks the trigram index of the zone search (domains_name_trgm_index), whose look-up of a
 * name reads every zone sharing its trigrams (`.test`, `com`): 25 ms at 2,000 zones, growing with them
 * (bench/FINDINGS.md, «Creating zones at 100,000»). The same holds in the other look-ups of zones by a list of names.
 */
export async function zoneOfAnotherUserNests(sql: Sql, zone: { name: string; ancestors: string[]; userId: number }): Promise<boolean> {
  const below = [...`.${zone.name}`].reverse().join('');
  const [row] = await sql.rows<{ nests: boolean }>(
    `select exists (select 1 from domains where name collate "C" = any($1::text[]) and user_id <> $4)
         or exists (select 1 from domains
                     where reverse(name) collate "C" >= $2 and reverse(name) collate "C" < $3 and user_id <> $4) as nests`,
    [zone.ancestors, below, `${below.slice(0, -1)}/`, zone.userId],
  );
  return row.nests;
}

/**
 * `zoneOfAnotherUserNests` for many zones in one statement: the names among `zones` that a zone of a user
 * other than its own would nest with.
 */
export async function zonesOfAnotherUserNest(
  sql: Sql,
  zones: readonly { name: string; ancestors: string[]; userId: number }[],
): Promise<Set<string>> {
  const input = zones.map((zone) => {
    const below = [...`.${zone.name}`].reverse().join('');
    return { name: zone.name, ancestors: zone.ancestors, below, below_end: `${below.slice(0, -1)}/`, user_id: zone.userId };
  });
  const rows = await sql.rows<{ name: string }>(
    `select z.name from json_to_recordset($1::json) as z(name text, ancestors text[], below text, below_end text, user_id bigint)
      where exists (select 1 from domains where name collate "C" = any(z.ancestors) and user_id <> z.user_id)
         or exists (select 1 from domains
                     where reverse(name) collate "C" >= z.below and reverse(name) collate "C" < z.below_end and user_id <> z.user_id)`,
    [JSON.stringify(input)],
    { plan: 'values' },
  );
  return new Set(rows.map((r) => r.name));
}
