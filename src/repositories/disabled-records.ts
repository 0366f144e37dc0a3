import type { Sql } from '../db/pool';

/**
 * Disabled records (Migration20261130020000_disabled_records): records a zone keeps and does not serve. Plain
 * rows in, plain rows out. Nothing that serves a zone reads this table; ZoneChangesService writes it in a change
 * set's transaction (a record moves between `records` and here), and reads are filtered by the caller's policy
 * in the services.
 */

// a type, not an interface: rows of a query are indexable by column
export type DisabledRecord = {
  owner: string;
  type: string;
  ttl: number;
  rdata: string;
};

/** a zone's disabled records, by owner, type and RDATA (those at `owners` only, when given; one owner and type, when filtered) */
export function disabledOfZone(
  sql: Sql,
  domainId: number,
  filter: { owner?: string; type?: string; owners?: readonly string[] } = {},
): Promise<DisabledRecord[]> {
  return sql.rows<DisabledRecord>(
    `select owner, type, ttl, rdata from disabled_records
      where domain_id = $1 and ($2::text is null or owner = $2) and ($3::text is null or type = $3)
        and ($4::text[] is null or owner = any($4))
      order by owner, type, rdata`,
    [domainId, filter.owner ?? null, filter.type ?? null, filter.owners ? [...filter.owners] : null],
  );
}

/** the zone's disabled records lose `removed` and gain `added`, in two statements whatever their number */
export async function writeDisabledRecords(
  sql: Sql,
  domainId: number,
  change: { removed: readonly DisabledRecord[]; added: readonly DisabledRecord[] },
): Promise<void> {
  const { removed, added } = change;
  if (removed.length)
    await sql.rows(
      `delete from disabled_records d using unnest($2::text[], $3::text[], $4::text[]) as r(owner, type, rdata)
        where d.domain_id = $1 and d.owner = r.owner and d.type = r.type and d.rdata = r.rdata`,
      [domainId, removed.map((r) => r.owner), removed.map((r) => r.type), removed.map((r) => r.rdata)],
    );
  if (added.length)
    await sql.rows(
      `insert into disabled_records (domain_id, owner, type, rdata, ttl)
       select $1, * from unnest($2::text[], $3::text[], $4::text[], $5::int[])
       on conflict (domain_id, owner, type, rdata) do update set ttl = excluded.ttl`,
      [domainId, added.map((r) => r.owner), added.map((r) => r.type), added.map((r) => r.rdata), added.map((r) => r.ttl)],
    );
}

/** how many records a zone keeps disabled */
export async function countDisabled(sql: Sql, domainId: number): Promise<number> {
  const [row] = await sql.rows<{ count: string }>(`select count(*) as count from disabled_records where domain_id = $1`, [domainId]);
  return Number(row.count);
}
