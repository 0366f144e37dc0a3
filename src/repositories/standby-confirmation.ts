import type { Sql } from '../db/pool';

/**
 * Whether what a snapshot of the primary shows is also on a synchronous standby, before a zone transfer hands it
 * to a secondary.
 *
 * Under synchronous replication a commit becomes visible on the primary before its standby has it in two cases:
 * the session waiting for the standby is cancelled or ended (its client gets an error or a warning), and the
 * postmaster dies while the session waits (PostgreSQL's syncrep.c ends the wait; the commit is then visible to
 * the sessions still running, and to every session after a local restart, as a failover manager's keeper does).
 * Such a commit is lost when the standby is promoted. A secondary that took it by AXFR or IXFR would then hold a
 * serial the new history reaches again with other records: it would never transfer that serial again, and
 * every IXFR after it would be applied to the wrong zone. A transfer therefore waits, briefly, until a
 * synchronous standby has flushed the primary's WAL as far as the snapshot could see, and is answered SERVFAIL
 * when none does (a secondary tries again after its SOA RETRY interval, RFC 1035 §4.3.5).
 *
 * Why the WAL's flush position: a zone's data is committed with synchronous_commit on (only the propagation
 * worker's claim commits without waiting: repositories/propagation.ts), and such a commit is flushed before it is
 * visible, so every commit a snapshot taken earlier shows lies at or below the position read after it.
 */
export type StandbyConfirmation =
  /** a synchronous standby has flushed everything the snapshot could show */
  | 'confirmed'
  /** nothing to wait for: no synchronous standby is configured (one server, or a failover manager that
   * stopped waiting when its standby left), or the session is on a standby itself */
  | 'unguarded'
  /** the session may not read the standbys' positions (pg_stat_replication's LSNs need pg_read_all_stats) */
  | 'unreadable'
  /** no synchronous standby reached that position within the wait */
  | 'unconfirmed';

/** between two looks at the standbys' positions, while waiting */
const LOOK_EVERY_MS = 5;

const SYNCHRONOUS_STANDBY_HAS = `exists (select 1 from pg_stat_replication where sync_state in ('sync', 'quorum') and flush_lsn >= $1::pg_lsn)`;

/**
 * One statement when no synchronous standby is configured or the standby is already there (the common case:
 * a commit's own wait for its standby ended before it was visible); then one more a LOOK_EVERY_MS while
 * waiting, `waitMs` at most. Run inside the snapshot's transaction, after its reads.
 */
export async function confirmOnSynchronousStandby(sql: Sql, waitMs: number): Promise<StandbyConfirmation> {
  const [first] = await sql.rows<{ guarded: boolean; readable: boolean; position: string | null; confirmed: boolean | null }>(
    `with here as (
       select current_setting('synchronous_standby_names') <> '' and not pg_is_in_recovery() as guarded,
              pg_has_role('pg_read_all_stats', 'member') as readable
     ), position as (
       select case when (select guarded from here) then pg_current_wal_flush_lsn()::text end as position
     )
     select here.guarded, here.readable, position.position,
            case when position.position is not null then ${SYNCHRONOUS_STANDBY_HAS.replace('$1', 'position.position')} end as confirmed
     from here, position`,
  );
  if (!first.guarded) return 'unguarded';
  if (!first.readable) return 'unreadable';
  if (first.confirmed) return 'confirmed';
  const until = Date.now() + waitMs;
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS));
    const [look] = await sql.rows<{ confirmed: boolean }>(`select ${SYNCHRONOUS_STANDBY_HAS} as confirmed`, [first.position]);
    if (look.confirmed) return 'confirmed';
  }
  return 'unconfirmed';
}
