/** What a signed zone waits for of its parent: its DS seen, checked, withdrawn, and the parent's own records */
import type { Database, Sql } from '../../db/pool';
import type { DenialKind } from './policy';

/** what a signed zone waits for of its parent, and the last look at the parent's servers */
export interface ParentDsRow {
  state: 'signed' | 'disabling';
  dsSeenAt: Date | null;
  dsCheckDueAt: Date | null;
  dsCheckedAt: Date | null;
  dsCheck: unknown;
  disableAt: Date | null;
  /** multi-signer: the zone withdrew its own DS (withdrawDnssecDs); its CDS and a parent here name the other signer's KSKs alone */
  dsWithdrawnAt: Date | null;
}

/** a zone's policy and parent-DS state as the status shows them (undefined: not signed) */
export async function policyOf(
  sql: Pick<Sql, 'rows'>,
  domainId: number,
): Promise<(ParentDsRow & { denial: DenialKind; nsec3Iterations: number; nsec3OptOut: boolean }) | undefined> {
  const [row] = await sql.rows(
    `select state, denial, nsec3_iterations, nsec3_opt_out, ds_seen_at, ds_check_due_at, ds_checked_at, ds_check, disable_at,
            ds_withdrawn_at
       from dnssec_zones where domain_id = $1`,
    [domainId],
  );
  if (!row) return undefined;
  return {
    state: row.state,
    denial: row.denial,
    nsec3Iterations: Number(row.nsec3_iterations),
    nsec3OptOut: !!row.nsec3_opt_out,
    dsSeenAt: row.ds_seen_at,
    dsCheckDueAt: row.ds_check_due_at,
    dsCheckedAt: row.ds_checked_at,
    dsCheck: row.ds_check,
    disableAt: row.disable_at,
    dsWithdrawnAt: row.ds_withdrawn_at ?? null,
  };
}

/**
 * Multi-signer (RFC 8901): the zone withdrew its own DS from the parent at `at` (null: its DS is wanted there),
 * while it still signs (docs/dnssec.md «Moving a signed zone in / out»)
 */
export async function setDsWithdrawn(sql: Sql | Database, domainId: number, at: Date | null): Promise<void> {
  await sql.rows('update dnssec_zones set ds_withdrawn_at = $2 where domain_id = $1', [domainId, at]);
}

/** the zone withdrew its own DS (setDsWithdrawn); false for a zone not signed */
export async function dsWithdrawnOf(sql: Pick<Sql, 'rows'>, domainId: number): Promise<boolean> {
  const [row] = await sql.rows('select ds_withdrawn_at is not null as withdrawn from dnssec_zones where domain_id = $1', [domainId]);
  return !!row?.withdrawn;
}

/** the parent was seen (or said) to serve the zone's DS at `at`; null: the zone waits for it */
export async function setDsSeen(sql: Sql | Database, domainId: number, at: Date | null): Promise<void> {
  await sql.rows('update dnssec_zones set ds_seen_at = $2 where domain_id = $1', [domainId, at]);
}

/** when the worker next asks the parent's servers about the zone's DS (null: nothing to ask) */
export async function scheduleDsCheck(sql: Sql | Database, domainId: number, at: Date | null): Promise<void> {
  await sql.rows('update dnssec_zones set ds_check_due_at = $2 where domain_id = $1', [domainId, at]);
}

/** a zone starts disabling (RFC 8078): its state, and when it goes unsigned (null: once the parent's DS is gone) */
export async function setDisabling(sql: Sql, domainId: number, disableAt: Date | null): Promise<void> {
  await sql.rows(`update dnssec_zones set state = 'disabling', disable_at = $2 where domain_id = $1`, [domainId, disableAt]);
}

/**
 * Zones whose parent-DS check is due, leased to the caller for `leaseSeconds` (their due time moves to the end
 * of the lease): workers share them, and a check that failed midway runs again.
 */
export async function leaseZonesDueForDsCheck(db: Database, limit: number, leaseSeconds: number): Promise<{ id: number; name: string }[]> {
  const rows = await db.rows(
    `update dnssec_zones z set ds_check_due_at = now() + make_interval(secs => $2)
       from domains d
      where d.id = z.domain_id and z.domain_id in (select domain_id from dnssec_zones where ds_check_due_at <= now()
        order by ds_check_due_at limit $1 for update skip locked)
      returning z.domain_id, d.name`,
    [limit, leaseSeconds],
  );
  return rows.map((r) => ({ id: Number(r.domain_id), name: r.name }));
}

/** the last check of the parent's DS: its answer (shown in the status) and the next check (null: none) */
export async function recordDsCheck(sql: Sql | Database, domainId: number, result: unknown, nextDue: Date | null): Promise<void> {
  await sql.rows('update dnssec_zones set ds_checked_at = now(), ds_check = $2::jsonb, ds_check_due_at = $3 where domain_id = $1', [
    domainId,
    JSON.stringify(result),
    nextDue,
  ]);
}

/** the longest zone stored that is a proper parent of `zone` (its DS RRset lives there), if any */
export async function parentZoneOf(sql: Sql | Database, zone: string): Promise<{ id: number; name: string } | undefined> {
  const labels = zone.split('.');
  const candidates = labels.slice(1).map((_, i) => labels.slice(i + 1).join('.'));
  if (!candidates.length) return undefined;
  const [row] = await sql.rows('select id, name from domains where name collate "C" = any($1::text[]) order by length(name) desc limit 1', [
    candidates,
  ]);
  return row ? { id: Number(row.id), name: row.name } : undefined;
}

/**
 * How long resolvers may cache a child's DS RRset at its parent: the RRset's TTL, or for a new one the parent's
 * SOA TTL, which is what the signer gives a DS it writes there (writeParentDs in key-rollover.ts)
 */
export async function dsTtlAtParent(sql: Sql | Database, parentId: number, owner: string): Promise<number> {
  const [row] = await sql.rows<{ ttl: number | string }>(
    `select coalesce((select max(ttl) from records where domain_id = $1 and owner = $2 and type = 'DS'),
                     (select ttl from records where domain_id = $1 and owner = '@' and type = 'SOA' limit 1), 0) as ttl`,
    [parentId, owner],
  );
  return Number(row.ttl);
}

/** the DS RDATA a zone holds at an owner (a child's delegation) */
export async function dsAtParent(sql: Sql | Database, parentId: number, owner: string): Promise<string[]> {
  const rows = await sql.rows<{ rdata: string }>(`select rdata from records where domain_id = $1 and owner = $2 and type = 'DS'`, [
    parentId,
    owner,
  ]);
  return rows.map((r) => r.rdata);
}
