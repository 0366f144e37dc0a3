/** A zone's signing policy (`dnssec_zones`) and the schedule of its signatures' refresh */
import type { Database, Sql } from '../../db/pool';
import { KeyStepEventType, recordRemovalOfAllKeys } from '../dnssec-key-events';

export type DenialKind = 'nsec' | 'nsec3';

/** a signed zone's policy as `readZone` returns it (undefined: the zone is not signed) */
export interface DnssecPolicy {
  state: 'signed' | 'disabling';
  denial: DenialKind;
  nsec3Iterations: number;
  nsec3Salt: Buffer;
  nsec3OptOut: boolean;
}

/** the SQL expression of a zone's policy as JSON, for the zone read of a change (zone-writes.ts readZone) */
export const DNSSEC_POLICY_JSON = `(select json_build_object('state', z.state, 'denial', z.denial, 'iterations', z.nsec3_iterations,
    'salt', encode(z.nsec3_salt, 'hex'), 'optOut', z.nsec3_opt_out) from dnssec_zones z where z.domain_id = d.id)`;

export function policyFromJson(value: any): DnssecPolicy | undefined {
  if (!value) return undefined;
  return {
    state: value.state,
    denial: value.denial,
    nsec3Iterations: Number(value.iterations),
    nsec3Salt: Buffer.from(value.salt ?? '', 'hex'),
    nsec3OptOut: !!value.optOut,
  };
}

export async function insertPolicy(
  sql: Sql,
  policy: { domainId: number; denial: DenialKind; iterations: number; salt: Buffer; optOut: boolean; refreshDueAt: Date },
): Promise<boolean> {
  const rows = await sql.rows(
    `insert into dnssec_zones (domain_id, denial, nsec3_iterations, nsec3_salt, nsec3_opt_out, refresh_due_at)
     values ($1, $2, $3, $4, $5, $6) on conflict (domain_id) do nothing returning domain_id`,
    [policy.domainId, policy.denial, policy.iterations, policy.salt, policy.optOut, policy.refreshDueAt],
  );
  return rows.length > 0;
}

/** which of these zones are signed (or still disabling): one statement for a page of zones */
export async function signedDomainIds(sql: Pick<Sql, 'rows'>, domainIds: readonly number[]): Promise<Set<number>> {
  if (!domainIds.length) return new Set();
  const rows = await sql.rows<{ domain_id: string }>('select domain_id from dnssec_zones where domain_id = any($1::bigint[])', [domainIds]);
  return new Set(rows.map((row) => Number(row.domain_id)));
}

export async function setPolicyState(sql: Sql, domainId: number, state: 'signed' | 'disabling'): Promise<void> {
  await sql.rows('update dnssec_zones set state = $2 where domain_id = $1', [domainId, state]);
}

/**
 * a zone stops being signed: its policy, keys and signer records go (the journal row of the step keeps them for
 * IXFR); each key's removal is a key event (`disabled`), which outlives the key, with the event out of `events`
 * (key-step-events.ts `removeAllKeys`)
 */
export async function deleteSigning(
  sql: Sql,
  domainId: number,
  at: Date,
  events: ReadonlyMap<number, KeyStepEventType | null>,
): Promise<void> {
  await recordRemovalOfAllKeys(sql, domainId, 'disabled', at, events);
  await sql.rows('delete from dnssec_records where domain_id = $1', [domainId]);
  await sql.rows('delete from dnssec_keys where domain_id = $1', [domainId]);
  await sql.rows('delete from dnssec_zones where domain_id = $1', [domainId]);
}

export async function setRefreshDue(sql: Sql | Database, domainId: number, dueAt: Date): Promise<void> {
  await sql.rows('update dnssec_zones set refresh_due_at = $2, refreshed_at = now() where domain_id = $1', [domainId, dueAt]);
}

/** signed zones whose refresh is due, claimed for this worker's transaction (others skip them) */
export async function claimZonesDueForRefresh(sql: Sql, limit: number): Promise<number[]> {
  const rows = await sql.rows(
    `select domain_id from dnssec_zones where refresh_due_at <= now() order by refresh_due_at limit $1 for update skip locked`,
    [limit],
  );
  return rows.map((r) => Number(r.domain_id));
}

/**
 * Signed zones whose refresh is due, leased to the caller for `leaseSeconds` (their due time moves to the end
 * of the lease), so that any number of workers share them and a zone whose refresh failed is tried again.
 */
export async function leaseZonesDueForRefresh(db: Database, limit: number, leaseSeconds: number): Promise<number[]> {
  const rows = await db.rows(
    `update dnssec_zones set refresh_due_at = now() + make_interval(secs => $2)
      where domain_id in (select domain_id from dnssec_zones where refresh_due_at <= now() order by refresh_due_at limit $1 for update skip locked)
      returning domain_id`,
    [limit, leaseSeconds],
  );
  return rows.map((r) => Number(r.domain_id));
}
