/**
 * Zone health's rows (Migration20261201010000_zone_health, docs/health.md): the worker's schedule of checks
 * (`zone_health`, claimed with FOR UPDATE SKIP LOCKED and leased), the findings of each zone's last check, and
 * the reads behind the API and the metrics.
 */
import type { Database, Sql } from '../db/pool';

export type HealthState = 'unknown' | 'ok' | 'warning' | 'critical';
export type Severity = 'critical' | 'warning' | 'info';

export interface StoredFinding {
  code: string;
  severity: Severity;
  /** the server the finding is about, null when it names none */
  server: string | null;
  message: string;
  since: Date;
}

export interface StoredHealth {
  domainId: number;
  state: HealthState;
  checkedAt: Date | null;
  findings: StoredFinding[];
}

/** a zone claimed for a check */
export interface DueZone {
  id: number;
  name: string;
  serial: number;
  /** when its check was due (the worker's claims); absent for a check asked for at once */
  dueAt?: Date;
}

/**
 * Gives zones with an id above `afterId` (up to `limit`, in id order) their schedule row, their first check
 * somewhere in the next `spreadSeconds` (so that zones adopted together are not checked together). Answers
 * the last id looked at (undefined when there was none: every zone has its row).
 */
export async function adoptZones(db: Database, afterId: number, limit: number, spreadSeconds: number): Promise<number | undefined> {
  const [row] = await db.rows(
    `with picked as (select id from domains where id > $1 order by id limit $2),
          adopted as (insert into zone_health (domain_id, next_check_at)
                      select id, now() + random() * make_interval(secs => $3::double precision) from picked
                      on conflict (domain_id) do nothing)
     select max(id) as last from picked`,
    [afterId, limit, spreadSeconds],
  );
  return row?.last === null || row?.last === undefined ? undefined : Number(row.last);
}

/**
 * Claims up to `limit` zones whose check is due (SKIP LOCKED: several workers each take others) and moves their
 * next check `leaseSeconds` ahead: the lease; the check's outcome sets the next check after the interval. Each
 * zone comes with when it was due, from which its next check is counted (`recordCheck`).
 */
export async function claimDueZones(db: Database, limit: number, leaseSeconds: number): Promise<DueZone[]> {
  const rows = await db.rows(
    `with due as (select domain_id, next_check_at from zone_health where next_check_at <= now()
                   order by next_check_at limit $1 for update skip locked)
     update zone_health h set next_check_at = now() + make_interval(secs => $2::int)
       from domains d, due
      where h.domain_id = due.domain_id and d.id = h.domain_id
     returning d.id, d.name, d.serial, due.next_check_at as due_at`,
    [limit, leaseSeconds],
  );
  return rows.map((r) => ({ id: Number(r.id), name: r.name, serial: Number(r.serial), dueAt: r.due_at }));
}

/** the apex NS targets of a zone (absolute names as stored) */
export async function apexNsOf(db: Sql, domainId: number): Promise<string[]> {
  const rows = await db.rows(`select rdata from records where domain_id = $1 and owner = '@' and type = 'NS'`, [domainId]);
  return rows.map((r) => r.rdata as string);
}

/** the A and AAAA records at these owners of a zone (owners relative, '@' the apex), by owner */
export async function addressesAt(db: Sql, domainId: number, owners: readonly string[]): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>(owners.map((owner) => [owner, []]));
  if (!owners.length) return found;
  const rows = await db.rows(
    `select owner, rdata from records where domain_id = $1 and owner = any($2::text[]) and type in ('A', 'AAAA')`,
    [domainId, [...owners]],
  );
  for (const row of rows) found.get(row.owner)?.push(row.rdata);
  return found;
}

/** the NS and glue of a delegation as a parent zone held here stores it (`child` relative to the parent) */
export async function storedDelegation(
  db: Sql,
  parentName: string,
  child: string,
): Promise<{ ns: string[]; addresses: { owner: string; rdata: string }[] } | undefined> {
  const [parent] = await db.rows(`select id from domains where name = $1`, [parentName]);
  if (!parent) return undefined;
  const rows = await db.rows(
    `select owner, type, rdata from records where domain_id = $1 and (owner = $2 or owner like '%.' || $2) and type in ('NS', 'A', 'AAAA')`,
    [parent.id, child],
  );
  return {
    ns: rows.filter((r) => r.owner === child && r.type === 'NS').map((r) => r.rdata),
    addresses: rows.filter((r) => r.type !== 'NS').map((r) => ({ owner: r.owner, rdata: r.rdata })),
  };
}

/** a zone's DNSSEC: its state (undefined: unsigned) and the DNSKEY RDATA of its KSKs and CSKs still in the zone */
export async function signingOf(db: Sql, domainId: number): Promise<{ state: string | undefined; ksks: string[] }> {
  const [zone] = await db.rows(`select state from dnssec_zones where domain_id = $1`, [domainId]);
  if (!zone) return { state: undefined, ksks: [] };
  const keys = await db.rows(`select dnskey from dnssec_keys where domain_id = $1 and role <> 'ZSK' and state <> 'removed'`, [domainId]);
  return { state: zone.state, ksks: keys.map((k) => k.dnskey) };
}

/**
 * when the zone's current serial was committed (its journal row), if the journal still holds it; a change of
 * comments alone at that serial (which steps none) is not when it was
 */
export async function serialCommittedAt(db: Sql, zone: string, serial: number): Promise<Date | undefined> {
  const [row] = await db.rows(
    `select created_at from changes where zone = $1 and serial_after = $2 and kind <> 'comment-changed' order by id desc limit 1`,
    [zone, serial],
  );
  return row?.created_at ?? undefined;
}

/** a finding as a check makes it (before it is stored: no `since` yet) */
/** what a check changed: the zone's state, and the findings it raised and cleared */
export interface CheckOutcome {
  before: HealthState;
  after: HealthState;
  raised: { code: string; server: string | null }[];
  cleared: { code: string; server: string | null }[];
}

export interface NewFinding {
  code: string;
  severity: Severity;
  server: string | null;
  message: string;
}

/**
 * When a zone checked (n.due_at: when it was due, null for a check asked for; $4: the interval in seconds) is
 * checked next (recordChecks). h.checked_at on the right of SET is the row's value before this check (null: the
 * zone's first check).
 */
const NEXT_CHECK = `case
              when n.due_at is null then now() + make_interval(secs => $4::int)
              when h.checked_at is not null and n.due_at + make_interval(secs => $4::int) > now() then n.due_at + make_interval(secs => $4::int)
              else now() + random() * make_interval(secs => $4::int) end`;

/** one zone's check to store: its findings, the state they make, and when the check was due (a worker's claim) */
export interface CheckToRecord {
  domainId: number;
  findings: readonly NewFinding[];
  state: Exclude<HealthState, 'unknown'>;
  dueAt?: Date;
  /** the NS set the parent lists, as the check read it (host names); null: it read no delegation */
  parentNs?: readonly string[] | null;
}

/**
 * Stores the outcomes of checks of several zones in the caller's transaction, in five statements whatever their
 * number (the worker stores its checks in batches: docs/health.md, «Cost»): the zones' rows locked in id order
 * (two checks of one zone, the worker's and one asked for, write one after the other), the findings no longer seen
 * deleted, the others kept with their `since` (their severity and message as seen now), new ones added; the
 * states and the next checks set. Answers, for each zone still there, the state before and after, and the
 * findings raised and cleared by its check.
 *
 * The next check: `intervalSeconds` after the time the check was due (`dueAt`, a worker's claim), so a zone keeps
 * its place in the interval however long its checks wait or take; after a zone's first check, and when that place
 * has already passed (the workers were stopped longer than an interval), a random place within the next interval.
 * Zones adopted together (a first start over 100,000 zones: all due within a minute) are so spread over the
 * interval from their second check on, rather than coming back together every interval. A check asked for at once
 * (no `dueAt`): an interval after now.
 */
export async function recordChecks(
  sql: Sql,
  checks: readonly CheckToRecord[],
  intervalSeconds: number,
): Promise<Map<number, CheckOutcome>> {
  const outcomes = new Map<number, CheckOutcome>();
  if (!checks.length) return outcomes;
  const ids = checks.map((c) => c.domainId);
  // a zone checked before the worker adopted it (a check asked for at once) gets its row here
  await sql.rows(
    `insert into zone_health (domain_id) select id from domains where id = any($1::bigint[]) on conflict (domain_id) do nothing`,
    [ids],
  );
  const locked = await sql.rows(
    `select domain_id, state from zone_health where domain_id = any($1::bigint[]) order by domain_id for update`,
    [ids],
  );
  const before = new Map(locked.map((r) => [Number(r.domain_id), r.state as HealthState]));
  // the zones deleted meanwhile: nothing to keep
  const kept = checks.filter((c) => before.has(c.domainId));
  if (!kept.length) return outcomes;
  const keptIds = kept.map((c) => c.domainId);
  const all = kept.flatMap((c) => c.findings.map((f) => ({ id: c.domainId, ...f })));
  const codes = all.map((f) => f.code);
  const servers = all.map((f) => f.server ?? '');
  const cleared = await sql.rows(
    `delete from zone_health_findings f where f.domain_id = any($1::bigint[])
        and not exists (select 1 from unnest($2::bigint[], $3::text[], $4::text[]) n(domain_id, code, server)
                         where n.domain_id = f.domain_id and n.code = f.code and n.server = f.server)
     returning f.domain_id, f.code, f.server`,
    [keptIds, all.map((f) => f.id), codes, servers],
  );
  // xmax = 0: the row was inserted by this statement, not updated (a finding new at this check)
  const written = all.length
    ? await sql.rows(
        `insert into zone_health_findings (domain_id, code, server, severity, message)
         select domain_id, code, server, severity, message
           from unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[]) n(domain_id, code, server, severity, message)
         on conflict (domain_id, code, server) do update set severity = excluded.severity, message = excluded.message
         returning domain_id, code, server, (xmax = 0) as raised`,
        [all.map((f) => f.id), codes, servers, all.map((f) => f.severity), all.map((f) => f.message)],
      )
    : [];
  // the parent's NS set goes as JSON text per zone (an array of arrays must be rectangular in PostgreSQL)
  await sql.rows(
    `update zone_health h set state = n.state, checked_at = now(), next_check_at = ${NEXT_CHECK}, parent_ns = n.parent_ns::jsonb
       from unnest($1::bigint[], $2::text[], $3::timestamptz[], $5::text[]) n(domain_id, state, due_at, parent_ns)
      where h.domain_id = n.domain_id`,
    [
      keptIds,
      kept.map((c) => c.state),
      kept.map((c) => c.dueAt ?? null),
      intervalSeconds,
      kept.map((c) => (c.parentNs ? JSON.stringify(c.parentNs) : null)),
    ],
  );
  for (const check of kept)
    outcomes.set(check.domainId, { before: before.get(check.domainId)!, after: check.state, raised: [], cleared: [] });
  const named = (r: { code: string; server: string }) => ({ code: r.code, server: r.server === '' ? null : r.server });
  for (const row of written) if (row.raised) outcomes.get(Number(row.domain_id))?.raised.push(named(row));
  for (const row of cleared) outcomes.get(Number(row.domain_id))?.cleared.push(named(row));
  return outcomes;
}

/**
 * The NS set the zone's parent listed at the health checker's last look (host names, lower case, no final dot);
 * undefined when that look read no delegation or the zone was never checked. What a change set's plan compares a
 * new apex NS set with (APEX_NS_NOT_AT_PARENT): a stored row, never a query of the network.
 */
export async function parentNsOf(sql: Sql, domainId: number): Promise<string[] | undefined> {
  const [row] = await sql.rows<{ parent_ns: string[] | null }>(`select parent_ns from zone_health where domain_id = $1`, [domainId]);
  return row?.parent_ns ?? undefined;
}

/**
 * the stored health of these zones (a zone never checked: unknown, no findings); without `findings`, their
 * states alone (a list of zones that shows each one's state). One statement, so one snapshot: a check stores a
 * zone's state and findings in one transaction, and two statements read beside it could pair the state before
 * the check with the findings after it (an `ok` zone holding a critical finding).
 */
export async function healthOfZones(db: Sql, domainIds: readonly number[], findings = true): Promise<Map<number, StoredHealth>> {
  const result = new Map<number, StoredHealth>(
    domainIds.map((id) => [id, { domainId: id, state: 'unknown' as HealthState, checkedAt: null, findings: [] }]),
  );
  if (!domainIds.length) return result;
  const ids = [...new Set(domainIds)];
  const rows = await db.rows(
    findings
      ? `select h.domain_id, h.state, h.checked_at, f.code, f.severity, f.server, f.message, f.since
           from zone_health h left join zone_health_findings f on f.domain_id = h.domain_id
          where h.domain_id = any($1::bigint[])
          order by h.domain_id, case f.severity when 'critical' then 0 when 'warning' then 1 else 2 end, f.code, f.server`
      : `select domain_id, state, checked_at, null as code from zone_health where domain_id = any($1::bigint[])`,
    [ids],
  );
  for (const row of rows) {
    const health = result.get(Number(row.domain_id))!;
    health.state = row.state;
    health.checkedAt = row.checked_at;
    if (row.code !== null)
      health.findings.push({
        code: row.code,
        severity: row.severity,
        server: row.server === '' ? null : row.server,
        message: row.message,
        since: row.since,
      });
  }
  return result;
}

/** zones by health state (zones without a row yet: unknown) and findings by code, over every zone (the metrics) */
export async function healthCounts(db: Database): Promise<{ states: Map<HealthState, number>; findings: Map<string, number> }> {
  const [states, findings] = await Promise.all([
    db.rows(
      `select coalesce(h.state, 'unknown') as state, count(*)::int as n from domains d left join zone_health h on h.domain_id = d.id
        group by 1`,
    ),
    db.rows(`select code, severity, count(*)::int as n from zone_health_findings group by code, severity`),
  ]);
  return {
    states: new Map(states.map((r) => [r.state as HealthState, Number(r.n)])),
    findings: new Map(findings.map((r) => [`${r.code} ${r.severity}`, Number(r.n)])),
  };
}

/**
 * Checks that could not see the zones (the root hints did not answer: the checker's state, not theirs): the zones
 * keep their state and findings, and their next check comes when it would have (recordChecks' NEXT_CHECK), so a
 * checker out of reach does not ask again sooner than its interval.
 */
export async function postponeChecks(
  sql: Sql,
  checks: readonly { domainId: number; dueAt?: Date }[],
  intervalSeconds: number,
): Promise<void> {
  if (!checks.length) return;
  const ids = checks.map((c) => c.domainId);
  await sql.rows(
    `insert into zone_health (domain_id) select id from domains where id = any($1::bigint[]) on conflict (domain_id) do nothing`,
    [ids],
  );
  await sql.rows(
    `update zone_health h set next_check_at = ${NEXT_CHECK}
       from unnest($1::bigint[], $2::text[], $3::timestamptz[]) n(domain_id, state, due_at)
      where h.domain_id = n.domain_id`,
    [ids, ids.map(() => ''), checks.map((c) => c.dueAt ?? null), intervalSeconds],
  );
}

/**
 * The findings about nameservers a zone no longer names (`hosts`, host names without the trailing dot) dropped,
 * and the zone's state set from what is left; the rest waits for the zone's next check. In the caller's
 * transaction; answers what changed (undefined: nothing).
 */
export async function forgetServers(sql: Sql, domainId: number, hosts: readonly string[]): Promise<CheckOutcome | undefined> {
  if (!hosts.length) return undefined;
  const [row] = await sql.rows(`select state, checked_at from zone_health where domain_id = $1 for update`, [domainId]);
  if (!row) return undefined;
  if (row.checked_at === null) return undefined;
  // a finding's server is the host name, or `name (address)`
  const cleared = await sql.rows(
    `delete from zone_health_findings where domain_id = $1 and split_part(server, ' ', 1) = any($2::text[]) returning code, server`,
    [domainId, hosts],
  );
  if (!cleared.length) return undefined;
  const [after] = await sql.rows(
    `update zone_health h set state = coalesce((select case min(case severity when 'critical' then 0 when 'warning' then 1 else 2 end)
                                                        when 0 then 'critical' when 1 then 'warning' else 'ok' end
                                                   from zone_health_findings f where f.domain_id = h.domain_id), 'ok')
      where h.domain_id = $1 returning state`,
    [domainId],
  );
  return {
    before: row.state as HealthState,
    after: after.state as HealthState,
    raised: [],
    cleared: cleared.map((r) => ({ code: r.code, server: r.server })),
  };
}

/** the health checker's reach of the root (Migration20261206020000_health_checker); undefined before any round asked it */
export interface RootReach {
  reachable: boolean;
  reason: string | null;
  since: Date;
  notedAt: Date;
}

export async function rootReach(db: Sql): Promise<RootReach | undefined> {
  const [row] = await db.rows(`select root_reachable, reason, since, noted_at from health_checker`);
  return row ? { reachable: row.root_reachable, reason: row.reason, since: row.since, notedAt: row.noted_at } : undefined;
}

/** notes what a round found of the root; answers whether that changed it (the first note is a change) */
export async function noteRootReach(db: Sql, reachable: boolean, reason: string | null): Promise<boolean> {
  const [row] = await db.rows(
    `insert into health_checker (id, root_reachable, reason) values (true, $1, $2)
     on conflict (id) do update set root_reachable = excluded.root_reachable, reason = excluded.reason, noted_at = now(),
            since = case when health_checker.root_reachable = excluded.root_reachable then health_checker.since else now() end
     returning since = noted_at as changed`,
    [reachable, reason],
  );
  return row.changed === true;
}
