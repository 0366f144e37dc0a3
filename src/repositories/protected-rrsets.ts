import type { Sql } from '../db/pool';

/**
 * Protected RRsets and what else a change set's plan is checked against besides the records
 * (Migration20261209020000_protected_rrsets): plain rows in, plain rows out.
 */

export type ProtectedRrsetRow = { owner: string; type: string; lockedBy: string | null; lockedAt: Date };

/** what a zone's change sets are held to: `strict_checks`, its locked RRsets and its steered ones (`owner type`) */
export interface ZoneGuards {
  strictChecks: boolean;
  protectedRrsets: ReadonlySet<string>;
  steeredRrsets: ReadonlySet<string>;
}

/** one statement for all three, read with every change set (a zone with none answers three empty values) */
export async function guardsOfZone(sql: Sql, domainId: number): Promise<ZoneGuards> {
  const [row] = await sql.rows<{ strict_checks: boolean; protected: string[] | null; steered: string[] | null }>(
    `select d.strict_checks,
            (select array_agg(p.owner || ' ' || p.type) from protected_rrsets p where p.domain_id = d.id) as protected,
            (select array_agg(s.owner || ' ' || s.type) from steered_rrsets s where s.domain_id = d.id) as steered
       from domains d where d.id = $1`,
    [domainId],
  );
  return {
    strictChecks: row?.strict_checks ?? false,
    protectedRrsets: new Set(row?.protected ?? []),
    steeredRrsets: new Set(row?.steered ?? []),
  };
}

/** what a zone's changes are held to (docs/changes.md): its strictChecks and the approvals each change needs */
export interface ZoneChangePolicy {
  strictChecks: boolean;
  requiredApprovals: number;
}

/** each zone's strictChecks and required approvals, by zone id (one statement for a list of zones) */
export async function changePolicyOfZones(sql: Sql, ids: readonly number[]): Promise<Map<number, ZoneChangePolicy>> {
  if (ids.length === 0) return new Map();
  const rows = await sql.rows<{ id: string; strict_checks: boolean; required_approvals: number }>(
    `select id, strict_checks, required_approvals from domains where id = any($1::bigint[])`,
    [[...new Set(ids)]],
  );
  return new Map(
    rows.map((row) => [
      Number(row.id),
      { strictChecks: row.strict_checks === true, requiredApprovals: Number(row.required_approvals ?? 0) },
    ]),
  );
}

export async function protectedRrsetsOfZone(sql: Sql, domainId: number): Promise<ProtectedRrsetRow[]> {
  const rows = await sql.rows<{ owner: string; type: string; locked_by: string | null; locked_at: Date }>(
    `select owner, type, locked_by, locked_at from protected_rrsets where domain_id = $1 order by owner, type`,
    [domainId],
  );
  return rows.map((r) => ({ owner: r.owner, type: r.type, lockedBy: r.locked_by, lockedAt: r.locked_at }));
}

/**
 * The zone's rules changed (an RRset locked or unlocked, strictChecks, the approvals a change needs): its
 * `rules_version` rises in the same statement, so that a change of its records that read the rules before writes
 * nothing (repositories/zone-writes.ts) and is decided again on the rules as they are now.
 */
const RULES_CHANGED = 'rules_version = rules_version + 1';

/** true when the RRset was not locked before */
export async function lockRrset(sql: Sql, domainId: number, owner: string, type: string, by: string | null): Promise<boolean> {
  const [row] = await sql.rows<{ locked: boolean }>(
    `with ins as (insert into protected_rrsets (domain_id, owner, type, locked_by) values ($1, $2, $3, $4)
                  on conflict (domain_id, owner, type) do nothing returning domain_id),
          ver as (update domains set ${RULES_CHANGED} where id = (select domain_id from ins))
     select exists (select 1 from ins) as locked`,
    [domainId, owner, type, by],
  );
  return row.locked;
}

/** true when the RRset was locked */
export async function unlockRrset(sql: Sql, domainId: number, owner: string, type: string): Promise<boolean> {
  const [row] = await sql.rows<{ unlocked: boolean }>(
    `with del as (delete from protected_rrsets where domain_id = $1 and owner = $2 and type = $3 returning domain_id),
          ver as (update domains set ${RULES_CHANGED} where id = (select domain_id from del))
     select exists (select 1 from del) as unlocked`,
    [domainId, owner, type],
  );
  return row.unlocked;
}

/** the zone's strictChecks, and its rules' version with it */
export async function setStrictChecks(sql: Sql, domainId: number, strict: boolean): Promise<void> {
  await sql.affected(`update domains set strict_checks = $2, ${RULES_CHANGED} where id = $1`, [domainId, strict]);
}

/**
 * The approvals each change of the zone needs, and its rules' version with them, in the caller's transaction: the
 * number before and the zone's serial, read with the row's lock (undefined: no such zone); nothing written when the
 * number is the same
 */
export async function setRequiredApprovals(
  sql: Sql,
  domainId: number,
  approvals: number,
): Promise<{ before: number; serial: number } | undefined> {
  const [row] = await sql.rows<{ required_approvals: number; serial: string }>(
    'select required_approvals, serial from domains where id = $1 for update',
    [domainId],
  );
  if (!row) return undefined;
  const before = Number(row.required_approvals);
  if (before !== approvals)
    await sql.affected(`update domains set required_approvals = $2, ${RULES_CHANGED} where id = $1`, [domainId, approvals]);
  return { before, serial: Number(row.serial) };
}

/** the records a zone serves, its SOA aside: what the safety threshold is a share of */
export async function countRecordsOfZone(sql: Sql, domainId: number): Promise<number> {
  const [row] = await sql.rows<{ count: string }>(`select count(*) as count from records where domain_id = $1 and type <> 'SOA'`, [
    domainId,
  ]);
  return Number(row.count);
}
