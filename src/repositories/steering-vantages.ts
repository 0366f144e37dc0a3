/**
 * Steering's vantages in SQL (docs/steering.md, «Vantages and the quorum»): each prober's row, its votes on
 * every probed check (claimed FOR UPDATE SKIP LOCKED, as the checks are), what the quorum and the isolation rule
 * read of them, and the checks held.
 */
import type { Sql } from '../db/pool';
import { CHECK_COLUMNS, toCheck, VANTAGE_KEPT, type CheckRow, type ClaimedCheck, type Held, type ProbeOutcome } from './steering';

/**
 * Registers a vantage (a prober process says it is alive, STEERING_VANTAGE) and, `withVotes`, gives it a vote row
 * for every probed check that has none yet, due now: a new vantage probes every check at once (a check made while
 * the vantage was known got its rows when it was made: insertCheck). Answers why it is isolated
 * (null: it is not), as stored: a restarted prober goes on from there.
 */
export async function registerVantage(sql: Sql, vantage: string, withVotes: boolean): Promise<{ isolatedReason: string | null }> {
  const [row] = await sql.rows(
    `insert into steering_vantages (name) values ($1) on conflict (name) do update set seen_at = now() returning isolated_reason`,
    [vantage],
  );
  if (withVotes)
    await sql.affected(
      `insert into steering_votes (check_id, vantage)
       select c.id, $1 from steering_checks c
        where c.protocol <> 'external' and not exists (select 1 from steering_votes v where v.check_id = c.id and v.vantage = $1)
       on conflict do nothing`,
      [vantage],
    );
  return { isolatedReason: row.isolated_reason };
}

/** a probed check claimed by a vantage, with the vantage's own runs of passes and failures */
export interface ClaimedVote extends ClaimedCheck {
  vote: { passes: number; failures: number };
}

/**
 * Claims up to `limit` probed checks due for `vantage` now or within `aheadMs`, each vantage on its own schedule
 * (its vote rows), as claimDueExternalChecks claims: FOR UPDATE SKIP LOCKED, the schedule is the lease and keeps
 * its beat, so that every vantage probes every check once per interval however many of its processes run.
 */
export async function claimDueVotes(
  sql: Sql,
  vantage: string,
  limit: number,
  defaultInterval: number,
  aheadMs = 0,
): Promise<ClaimedVote[]> {
  const rows = await sql.rows(
    `with due as (select check_id, next_check_at as due_at from steering_votes
                   where vantage = $4 and next_check_at <= now() + make_interval(secs => $3::double precision / 1000)
                   order by next_check_at limit $1 for update skip locked),
          claimed as (update steering_votes v
                         set next_check_at = greatest(due.due_at + make_interval(secs => coalesce(c.interval_seconds, $2)),
                                                      now() + make_interval(secs => coalesce(c.interval_seconds, $2)) / 2)
                        from due, steering_checks c
                       where v.vantage = $4 and v.check_id = due.check_id and c.id = due.check_id and c.protocol <> 'external'
                   returning v.check_id, v.passes as vote_passes, v.failures as vote_failures, due.due_at)
     select ${CHECK_COLUMNS}, k.vote_passes, k.vote_failures, greatest(0, extract(epoch from k.due_at - now()) * 1000)::int as due_in_ms
       from claimed k join steering_checks c on c.id = k.check_id join domains d on d.id = c.domain_id`,
    [limit, defaultInterval, aheadMs, vantage],
  );
  return rows.map((r) => ({
    ...toCheck(r),
    dueInMs: Number(r.due_in_ms),
    vote: { passes: Number(r.vote_passes), failures: Number(r.vote_failures) },
  }));
}

/** one vantage's probe of a check and its runs after it, to be stored */
export interface VoteToSave {
  checkId: number;
  passes: number;
  failures: number;
  probe: ProbeOutcome;
  at: Date;
}

export async function saveVotes(sql: Sql, vantage: string, votes: VoteToSave[]): Promise<void> {
  if (!votes.length) return;
  const rows = votes.map((v) => ({
    check_id: v.checkId,
    passes: v.passes,
    failures: v.failures,
    last_ok: v.probe.ok,
    last_error: v.probe.error,
    latency_ms: v.probe.latencyMs,
    checked_at: v.at,
  }));
  await sql.affected(
    `update steering_votes v set passes = n.passes, failures = n.failures, last_ok = n.last_ok, last_error = n.last_error,
       latency_ms = n.latency_ms, checked_at = n.checked_at
     from jsonb_to_recordset($2::jsonb) as n(check_id bigint, passes integer, failures integer, last_ok boolean, last_error text,
       latency_ms integer, checked_at timestamptz)
     where v.vantage = $1 and v.check_id = n.check_id`,
    [vantage, JSON.stringify(rows)],
  );
}

/** the checks, locked for their decision (in id order: two vantages deciding the same checks never deadlock) */
export async function lockChecks(sql: Sql, ids: number[]): Promise<CheckRow[]> {
  const rows = await sql.rows(
    `select ${CHECK_COLUMNS} from steering_checks c join domains d on d.id = c.domain_id
      where c.id = any($1::bigint[]) order by c.id for update of c`,
    [ids],
  );
  return rows.map(toCheck);
}

/** a vantage's recent vote on a check: its last probe within two of the check's intervals */
export interface RecentVote {
  checkId: number;
  vantage: string;
  isolated: boolean;
  /** the vantage's own probes are in a panic freeze */
  panic: boolean;
  lastOk: boolean;
  passes: number;
  failures: number;
  lastError: string | null;
  checkedAt: Date;
}

/** the recent votes on the checks, every vantage's, with whether the vantage is isolated */
export async function recentVotes(sql: Sql, checkIds: number[], defaultInterval: number): Promise<RecentVote[]> {
  const rows = await sql.rows(
    `select v.check_id, v.vantage, g.isolated, g.panic, v.last_ok, v.passes, v.failures, v.last_error, v.checked_at
       from steering_votes v join steering_checks c on c.id = v.check_id join steering_vantages g on g.name = v.vantage
      where v.check_id = any($1::bigint[]) and v.last_ok is not null
        and v.checked_at > now() - 2 * make_interval(secs => coalesce(c.interval_seconds, $2))
      order by v.check_id, v.vantage`,
    [checkIds, defaultInterval],
  );
  return rows.map((r) => ({
    checkId: Number(r.check_id),
    vantage: r.vantage,
    isolated: r.isolated,
    panic: r.panic,
    lastOk: r.last_ok,
    passes: r.passes,
    failures: r.failures,
    lastError: r.last_error,
    checkedAt: r.checked_at,
  }));
}

/**
 * The panic freeze's measure for one vantage: how many probed checks it has, how many failed its last probe of
 * them (recent: within two of the check's intervals, so a probe a moment late still counts), and across how many
 * networks of their targets (/24, /48): the prober's own network failing fails them all, everywhere.
 */
export async function panicMeasure(
  sql: Sql,
  vantage: string,
  defaultInterval: number,
): Promise<{ failing: number; total: number; failingNetworks: number }> {
  const [row] = await sql.rows(
    `select count(*)::int as total, count(*) filter (where f.failing)::int as failing,
            count(distinct f.network) filter (where f.failing)::int as failing_networks
       from (select v.last_ok = false and v.checked_at > now() - 2 * make_interval(secs => coalesce(c.interval_seconds, $2)) as failing,
                    network(set_masklen(c.address::inet, case when family(c.address::inet) = 4 then 24 else 48 end)) as network
               from steering_votes v join steering_checks c on c.id = v.check_id
              where v.vantage = $1 and c.protocol <> 'external') f`,
    [vantage, defaultInterval],
  );
  return { failing: row.failing, total: row.total, failingNetworks: row.failing_networks };
}

/**
 * How a vantage's last probes agree with the other sound vantages': of the checks both it and some other sound
 * vantage probed lately, how many it saw fail while most of the others saw them pass (the isolation rule's
 * measure, services/steering/decision.ts)
 */
export async function vantageAgreement(
  sql: Sql,
  vantage: string,
  defaultInterval: number,
): Promise<{ compared: number; contradicted: number }> {
  const [row] = await sql.rows(
    `with recent as (select v.check_id, v.vantage, v.last_ok from steering_votes v
                       join steering_checks c on c.id = v.check_id join steering_vantages g on g.name = v.vantage
                      where c.protocol <> 'external' and v.last_ok is not null
                        and v.checked_at > now() - 2 * make_interval(secs => coalesce(c.interval_seconds, $2))
                        and (v.vantage = $1 or not g.isolated)),
          others as (select check_id, avg(case when last_ok then 1 else 0 end) as passing from recent where vantage <> $1 group by check_id)
     select count(*)::int as compared, count(*) filter (where not m.last_ok and o.passing > 0.5)::int as contradicted
       from recent m join others o on o.check_id = m.check_id where m.vantage = $1`,
    [vantage, defaultInterval],
  );
  return { compared: row.compared, contradicted: row.contradicted };
}

/** sets whether a vantage is isolated, and why; answers whether that changed */
export async function setVantageIsolation(sql: Sql, vantage: string, reason: string | null): Promise<boolean> {
  const changed = await sql.affected(
    `update steering_vantages set isolated = $2::text is not null, isolated_reason = $2::text,
       isolated_since = case when $2::text is null then null else coalesce(isolated_since, now()) end
     where name = $1 and (isolated <> ($2::text is not null) or isolated_reason is distinct from $2::text)`,
    [vantage, reason],
  );
  return changed > 0;
}

/** sets whether a vantage's own probes are in a panic freeze; answers whether that changed */
export async function setVantagePanic(sql: Sql, vantage: string, panic: boolean): Promise<boolean> {
  const changed = await sql.affected(`update steering_vantages set panic = $2 where name = $1 and panic <> $2`, [vantage, panic]);
  return changed > 0;
}

export interface VantageRow {
  name: string;
  seenAt: Date;
  isolated: boolean;
  isolatedReason: string | null;
  isolatedSince: Date | null;
  panic: boolean;
}

/** every vantage seen lately (the kept day), the live ones first */
export async function vantages(sql: Sql): Promise<VantageRow[]> {
  const rows = await sql.rows(
    `select name, seen_at, isolated, isolated_reason, isolated_since, panic from steering_vantages
      where seen_at > now() - ${VANTAGE_KEPT} order by seen_at desc, name`,
  );
  return rows.map((r) => ({
    name: r.name,
    seenAt: r.seen_at,
    isolated: r.isolated,
    isolatedReason: r.isolated_reason,
    isolatedSince: r.isolated_since,
    panic: r.panic,
  }));
}

/** a vantage's vote on a check as the API shows it: its last probe and runs, whether it is recent and counted */
export interface VoteRow {
  domainId: number;
  checkId: number;
  vantage: string;
  isolated: boolean;
  /** its last probe is within two of the check's intervals (older votes count for nothing) */
  recent: boolean;
  lastOk: boolean | null;
  lastError: string | null;
  latencyMs: number | null;
  checkedAt: Date | null;
  passes: number;
  failures: number;
}

/** every vantage's vote on each of the zones' probed checks (the vantages seen within the kept day) */
export async function votesOfZones(sql: Sql, domainIds: number[], defaultInterval: number): Promise<VoteRow[]> {
  const rows = await sql.rows(
    `select c.domain_id, v.check_id, v.vantage, g.isolated, v.last_ok, v.last_error, v.latency_ms, v.checked_at, v.passes, v.failures,
            coalesce(v.checked_at > now() - 2 * make_interval(secs => coalesce(c.interval_seconds, $2)), false) as recent
       from steering_votes v join steering_checks c on c.id = v.check_id join steering_vantages g on g.name = v.vantage
      where c.domain_id = any($1::bigint[]) and g.seen_at > now() - ${VANTAGE_KEPT}
      order by v.check_id, v.vantage`,
    [domainIds, defaultInterval],
  );
  return rows.map((r) => ({
    domainId: Number(r.domain_id),
    checkId: Number(r.check_id),
    vantage: r.vantage,
    isolated: r.isolated,
    recent: r.recent,
    lastOk: r.last_ok,
    lastError: r.last_error,
    latencyMs: r.latency_ms,
    checkedAt: r.checked_at,
    passes: r.passes,
    failures: r.failures,
  }));
}

/** the checks held where they are (panic freeze, no sound vantage), of every zone: the metric's count */
export async function heldChecks(sql: Sql): Promise<{ held: Held; count: number }[]> {
  const rows = await sql.rows(`select held, count(*)::int as count from steering_checks where held is not null group by held`);
  return rows.map((r) => ({ held: r.held, count: r.count }));
}
